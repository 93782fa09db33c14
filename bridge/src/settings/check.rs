//! `nexus-bridge config check`: the effective settings (file under environment under defaults)
//! as TOML with the file and the overriding variables named, keys redacted; errors fail it.

use std::time::Duration;

use toml::{Table, Value};

use super::{ConfigError, Loaded};
use crate::chat::Live;
use crate::chat::config::Setup;

/// Variables that override the file, by the key they override (key variables are named, never
/// shown).
pub const OVERRIDES: &[(&str, &str)] = &[
    ("NEXUS_LLM_PROVIDER", "llm.provider"),
    ("NEXUS_LLM_MODEL", "llm.model"),
    ("NEXUS_LLM_BASE_URL", "llm.base_url"),
    ("NEXUS_LLM_TEMPERATURE", "llm.temperature"),
    ("NEXUS_LLM_NATIVE_TOOLS", "llm.native_tools"),
    ("NEXUS_LLM_MAX_OUTPUT_TOKENS", "llm.max_output_tokens"),
    ("NEXUS_LLM_TIMEOUT_MS", "llm.timeout_ms"),
    ("NEXUS_LLM_RETRY_MS", "llm.retry_delay_ms"),
    ("NEXUS_LLM_MAX_ROUNDS", "llm.max_rounds"),
    ("NEXUS_LLM_CONTEXT_TOKENS", "llm.context_tokens"),
    ("ANTHROPIC_API_KEY", "llm key (anthropic)"),
    ("OPENAI_API_KEY", "llm key (openai)"),
    ("GEMINI_API_KEY", "llm key (gemini)"),
    (crate::chat::RETENTION_ENV, "chat.retention_days"),
];

/// The report for a usable file, or the error that makes `check` fail. A file that names a
/// provider the bridge cannot use (a key file others may read, a variable not set) fails too.
pub fn report(
    settings: &Result<Loaded, ConfigError>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let loaded = settings.as_ref().map_err(ToString::to_string)?;
    let live = Live::read(loaded, lookup);
    if let (Setup::Missing(why), Some(_)) = (&live.setup, loaded.file.llm.provider) {
        return Err(format!(
            "{}: [llm] names a provider the bridge cannot use: {why}",
            loaded.path.display()
        ));
    }
    let mut out = String::new();
    out.push_str(&format!(
        "# configuration file: {} ({})\n",
        loaded.path.display(),
        if loaded.exists {
            "read"
        } else {
            "not there: defaults and the environment"
        }
    ));
    out.push_str(
        "# precedence: command-line flags > environment variables > this file > defaults\n",
    );
    let overriding: Vec<String> = OVERRIDES
        .iter()
        .filter(|(name, _)| lookup(name).is_some_and(|v| !v.trim().is_empty()))
        .map(|(name, key)| format!("{name} ({key})"))
        .collect();
    if !overriding.is_empty() {
        out.push_str(&format!(
            "# set in the environment, over the file: {}\n",
            overriding.join(", ")
        ));
    }
    let mut doc = Table::new();
    doc.insert("llm".into(), Value::Table(llm_table(&live, loaded)));
    if let Ok(Value::Table(mut selection)) = Value::try_from(&loaded.file.tool_selection) {
        // The weights are f32: shown as written (0.7), not as their f64 widening.
        for (_, value) in selection.iter_mut() {
            if let Value::Float(f) = value {
                *f = (*f * 1e6).round() / 1e6;
            }
        }
        doc.insert("tool_selection".into(), Value::Table(selection));
    }
    let mut chat = Table::new();
    chat.insert(
        "retention_days".into(),
        match live.retention_days {
            Some(days) => Value::Integer(i64::from(days)),
            None => Value::String("forever (not set)".into()),
        },
    );
    doc.insert("chat".into(), Value::Table(chat));
    let limits: Table = loaded
        .quotas
        .entries()
        .map(|(pattern, n)| (pattern.to_owned(), Value::Integer(i64::from(n))))
        .collect();
    doc.insert("rate_limits".into(), Value::Table(limits));
    out.push('\n');
    out.push_str(&toml::to_string(&doc).map_err(|err| err.to_string())?);
    Ok(out)
}

fn llm_table(live: &Live, loaded: &Loaded) -> Table {
    let mut t = Table::new();
    let ms = |d: Duration| Value::Integer(i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    match &live.setup {
        Setup::Ready(c) => {
            t.insert("provider".into(), Value::String(c.kind.name().into()));
            t.insert("model".into(), Value::String(c.model.clone()));
            t.insert("base_url".into(), Value::String(c.base_url.clone()));
            t.insert(
                "api_key".into(),
                Value::String(if c.key.is_empty() {
                    "none".into()
                } else {
                    format!("<redacted>, from {}", c.key_source)
                }),
            );
            t.insert(
                "temperature".into(),
                match c.temperature {
                    Some(v) => Value::Float(v),
                    None => Value::String("the provider's default".into()),
                },
            );
            t.insert("native_tools".into(), Value::Boolean(c.native_tools));
            t.insert(
                "max_output_tokens".into(),
                Value::Integer(i64::from(c.max_output_tokens)),
            );
            if let Some(addition) = &c.prompt_addition {
                t.insert(
                    "system_prompt_addition".into(),
                    Value::String(addition.clone()),
                );
            }
        }
        Setup::Missing(why) => {
            t.insert(
                "provider".into(),
                Value::String(format!("none: {}", why.split(". ").next().unwrap_or(why))),
            );
            if let Some(addition) = &loaded.file.llm.system_prompt_addition {
                t.insert(
                    "system_prompt_addition".into(),
                    Value::String(addition.clone()),
                );
            }
        }
    }
    t.insert("timeout_ms".into(), ms(live.limits.request_timeout));
    t.insert("retry_delay_ms".into(), ms(live.limits.retry_delay));
    t.insert(
        "max_rounds".into(),
        Value::Integer(i64::from(live.limits.max_rounds)),
    );
    t.insert(
        "context_tokens".into(),
        Value::Integer(i64::try_from(live.limits.context_tokens).unwrap_or(i64::MAX)),
    );
    t
}
