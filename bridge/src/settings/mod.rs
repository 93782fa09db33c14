//! The bridge's configuration file (`nexus.toml` in the user's config folder, or `--config`): its
//! schema, where it is, and reading it with errors that name line and column, never a panic.
//!
//! Precedence, highest first: command-line flags (`--config`, `--chat-db`, …), then environment
//! variables (`NEXUS_LLM_*`, the provider key variables, `NEXUS_CHAT_RETENTION_DAYS`), then this
//! file, then the built-in defaults. `check.rs` prints the result; `watch.rs` re-reads the file.

pub mod check;
pub mod watch;

use std::collections::BTreeMap;
use std::num::NonZeroU32;
use std::ops::Range;
use std::path::{Path, PathBuf};

use nexus_jit::ToolSelection;
use serde::{Deserialize, Deserializer};
use toml::Spanned;

use crate::chat::config::ProviderKind;
use crate::host::quota::Quotas;

/// The file's name in the user's config folder (beside `mcp.json`).
pub const FILE_NAME: &str = "nexus.toml";
/// Highest temperature any of the providers accepts.
const MAX_TEMPERATURE: f64 = 2.0;

/// The whole file. Every section and key is optional; unknown ones are errors.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FileSettings {
    pub llm: LlmSection,
    pub tool_selection: ToolSelection,
    pub chat: ChatSection,
    /// Calls per minute per tool, by `server:tool` or a glob over it (`github:*`).
    pub rate_limits: BTreeMap<Spanned<String>, NonZeroU32>,
}

/// The chat agent's language model. Keys are never in the file: `api_key_env` names the
/// variable holding it, `api_key_file` a file only its owner can read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmSection {
    #[serde(deserialize_with = "provider")]
    pub provider: Option<ProviderKind>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub api_key_file: Option<Spanned<PathBuf>>,
    #[serde(deserialize_with = "temperature")]
    pub temperature: Option<f64>,
    /// Appended to the built-in system prompt.
    pub system_prompt_addition: Option<String>,
    pub native_tools: Option<bool>,
    pub max_output_tokens: Option<u32>,
    /// Longest wait for the provider's response or its next chunk.
    pub timeout_ms: Option<u64>,
    pub retry_delay_ms: Option<u64>,
    pub max_rounds: Option<u32>,
    pub context_tokens: Option<u64>,
}

/// Stored conversations.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChatSection {
    /// Conversations untouched for more days than this are deleted; absent: kept forever.
    pub retention_days: Option<NonZeroU32>,
}

fn provider<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ProviderKind>, D::Error> {
    let name = String::deserialize(d)?;
    ProviderKind::parse(&name).map(Some).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "`{name}` is not a provider: use anthropic, openai (or any OpenAI-compatible server) or gemini"
        ))
    })
}

fn temperature<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let value = f64::deserialize(d)?;
    if value.is_finite() && (0.0..=MAX_TEMPERATURE).contains(&value) {
        Ok(Some(value))
    } else {
        Err(serde::de::Error::custom(format!(
            "temperature {value} is out of range: use 0 to {MAX_TEMPERATURE}"
        )))
    }
}

/// A file that could not be used: the file, where in it (1-based) when known, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let (Some(line), Some(column)) = (self.line, self.column) {
            write!(f, ", line {line}, column {column}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The file as read: its settings (defaults when it does not exist) and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub path: PathBuf,
    pub exists: bool,
    pub file: FileSettings,
    /// The per-tool call limits, compiled.
    pub quotas: Quotas,
}

impl Loaded {
    /// No file: defaults everywhere.
    pub fn defaults(path: PathBuf) -> Loaded {
        Loaded {
            path,
            exists: false,
            file: FileSettings::default(),
            quotas: Quotas::default(),
        }
    }
}

/// The configuration file: `--config` (or `NEXUS_CONFIG`, which clap folds into the flag), else
/// `nexus/nexus.toml` in the user's config folder (`$XDG_CONFIG_HOME`, else `~/.config`).
pub fn resolve_path(flag: Option<&Path>) -> PathBuf {
    match flag {
        Some(path) => path.to_path_buf(),
        None => dirs::config_dir()
            .map(|dir| dir.join("nexus").join(FILE_NAME))
            .unwrap_or_else(|| PathBuf::from(FILE_NAME)),
    }
}

/// Reads the file at `path`; a missing file is the defaults (`exists: false`).
pub fn load(path: &Path) -> Result<Loaded, ConfigError> {
    let text = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Loaded::defaults(path.to_path_buf()));
        }
        Err(err) => return Err(error(path, format!("cannot read it: {err}"))),
    };
    let text =
        String::from_utf8(text).map_err(|err| error(path, format!("not UTF-8 text: {err}")))?;
    parse(path, &text)
}

/// Parses and checks `text` as the file at `path` (relative paths in it resolve beside it).
pub fn parse(path: &Path, text: &str) -> Result<Loaded, ConfigError> {
    let file: FileSettings = toml::from_str(text).map_err(|err| {
        let message = err.message().trim().to_owned();
        error_at(path, text, err.span(), message)
    })?;
    let mut file = file;
    let base = path.parent().unwrap_or(Path::new(""));
    if let Some(key_file) = &file.llm.api_key_file {
        let resolved = resolve_beside(base, key_file.get_ref());
        file.llm.api_key_file = Some(Spanned::new(key_file.span(), resolved));
    }
    if let Some(rules) = &file.tool_selection.rules_file {
        file.tool_selection.rules_file = Some(resolve_beside(base, rules));
    }
    check_tool_selection(path, text, &file.tool_selection)?;
    let quotas = Quotas::new(file.rate_limits.iter().map(|(k, v)| (k.get_ref(), v.get())))
        .map_err(|(pattern, why)| {
            let span = file
                .rate_limits
                .keys()
                .find(|k| *k.get_ref() == pattern)
                .map(Spanned::span);
            error_at(path, text, span, why)
        })?;
    Ok(Loaded {
        path: path.to_path_buf(),
        exists: true,
        file,
        quotas,
    })
}

/// What serde cannot say of `tool_selection`: ordered thresholds, usable weights, a rules file
/// that reads and parses (its own errors name its line and column).
fn check_tool_selection(path: &Path, text: &str, s: &ToolSelection) -> Result<(), ConfigError> {
    let at = |key: &str, message: String| {
        let span = key_span(text, "tool_selection", key);
        error_at(path, text, span, message)
    };
    if s.full_threshold > 100 {
        return Err(at(
            "full_threshold",
            format!("full_threshold {} is over 100", s.full_threshold),
        ));
    }
    if !(s.full_threshold >= s.condensed_threshold && s.condensed_threshold >= s.minimal_threshold)
    {
        return Err(at(
            "condensed_threshold",
            format!(
                "thresholds must not rise: full_threshold ({}) ≥ condensed_threshold ({}) ≥ minimal_threshold ({})",
                s.full_threshold, s.condensed_threshold, s.minimal_threshold
            ),
        ));
    }
    for (key, weight) in [
        ("logic_weight", s.logic_weight),
        ("vector_weight", s.vector_weight),
    ] {
        if !weight.is_finite() || weight < 0.0 {
            return Err(at(key, format!("{key} must be a number of 0 or more")));
        }
    }
    if let Some(rules) = &s.rules_file {
        nexus_jit::load_rules(rules).map_err(|err| at("rules_file", err.to_string()))?;
    }
    Ok(())
}

/// The span of `key = …` inside `[section]`, for errors found after parsing.
fn key_span(text: &str, section: &str, key: &str) -> Option<Range<usize>> {
    // `toml::Table` keeps no spans: the key's line within its section.
    let mut in_section = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            in_section = trimmed
                .trim_end()
                .trim_end_matches(']')
                .trim_start_matches('[')
                == section;
        } else if in_section
            && trimmed
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            let start = offset + (line.len() - trimmed.len());
            return Some(start..start + key.len());
        }
        offset += line.len();
    }
    None
}

fn resolve_beside(base: &Path, path: &Path) -> PathBuf {
    let expanded = match path.strip_prefix("~") {
        Ok(rest) => dirs::home_dir().map(|home| home.join(rest)),
        Err(_) => None,
    };
    let path = expanded.unwrap_or_else(|| path.to_path_buf());
    if path.is_relative() {
        base.join(path)
    } else {
        path
    }
}

fn error(path: &Path, message: String) -> ConfigError {
    ConfigError {
        path: path.to_path_buf(),
        line: None,
        column: None,
        message,
    }
}

fn error_at(path: &Path, text: &str, span: Option<Range<usize>>, message: String) -> ConfigError {
    let (line, column) = match span {
        Some(span) => {
            let (line, column) = line_column(text, span.start);
            (Some(line), Some(column))
        }
        None => (None, None),
    };
    ConfigError {
        path: path.to_path_buf(),
        line,
        column,
        message,
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |tail| tail.chars().count())
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests;
