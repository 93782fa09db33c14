//! The chat agent's LLM settings, read on the bridge only: the file's `[llm]` section under the
//! environment. The key is never logged nor sent to the page (`Debug` hides it).

use std::path::Path;
use std::time::Duration;

use crate::settings::LlmSection;

/// Which wire format the provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    Anthropic,
    OpenAi,
    Gemini,
}

impl ProviderKind {
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
            ProviderKind::Gemini => "gemini",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "anthropic" | "claude" => Some(ProviderKind::Anthropic),
            "openai" | "openai-compatible" | "ollama" | "llamacpp" | "llama.cpp" | "vllm"
            | "openrouter" => Some(ProviderKind::OpenAi),
            "gemini" | "google" => Some(ProviderKind::Gemini),
            _ => None,
        }
    }

    fn key_variable(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
            ProviderKind::OpenAi => "OPENAI_API_KEY",
            ProviderKind::Gemini => "GEMINI_API_KEY",
        }
    }

    fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::OpenAi => "https://api.openai.com/v1",
            ProviderKind::Gemini => "https://generativelanguage.googleapis.com",
        }
    }

    fn default_model(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "claude-sonnet-4-5",
            ProviderKind::OpenAi => "gpt-4o-mini",
            ProviderKind::Gemini => "gemini-2.5-flash",
        }
    }
}

/// An API key; `Debug` and `Display` never show it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<String> for ApiKey {
    fn from(key: String) -> ApiKey {
        ApiKey(key)
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_empty() {
            "<none>"
        } else {
            "<redacted>"
        })
    }
}

/// A configured provider.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmConfig {
    pub kind: ProviderKind,
    pub model: String,
    pub base_url: String,
    pub key: ApiKey,
    /// Where the key came from (a variable's or a file's name), for `config check`; never the key.
    pub key_source: String,
    /// Use the provider's own function calling; off: the ```` ```tool ```` text protocol.
    pub native_tools: bool,
    pub max_output_tokens: u32,
    /// Sampling temperature; `None`: the provider's default.
    pub temperature: Option<f64>,
    /// The user's text appended to the built-in system prompt.
    pub prompt_addition: Option<String>,
}

/// The turn's limits (the orchestrator's configuration).
#[derive(Debug, Clone, PartialEq)]
pub struct TurnLimits {
    /// Longest wait for the provider's response or its next chunk.
    pub request_timeout: Duration,
    /// Retries after a transient provider failure (429, 5xx, connection, timeout).
    pub retries: u32,
    /// First retry delay; each further one doubles.
    pub retry_delay: Duration,
    /// Model calls per turn (each tool round is one).
    pub max_rounds: u32,
    /// Tokens of history sent to the model besides the system prompt.
    pub context_tokens: usize,
}

impl Default for TurnLimits {
    fn default() -> Self {
        Self {
            request_timeout: Duration::from_secs(120),
            retries: 3,
            retry_delay: Duration::from_secs(1),
            max_rounds: 8,
            context_tokens: 24_000,
        }
    }
}

/// What the page is told: provider and model, or what is missing.
#[derive(Debug, Clone, PartialEq)]
pub enum Setup {
    Ready(LlmConfig),
    Missing(String),
}

/// Without a provider, for the page and the log (the page also gets the file's path and
/// [`SNIPPET`]).
pub const HOW_TO: &str = "No LLM is configured. Add an [llm] section to the configuration file \
    (below); the bridge picks it up as soon as the file is saved, no restart needed. \
    (NEXUS_LLM_PROVIDER, NEXUS_LLM_MODEL, NEXUS_LLM_BASE_URL and ANTHROPIC_API_KEY, \
    OPENAI_API_KEY or GEMINI_API_KEY still work and win over the file, but need a restart.)";

/// The `[llm]` section a user adds to the configuration file: a hosted provider with its key in
/// a private file, or a local OpenAI-compatible server that needs none.
pub const SNIPPET: &str = r#"[llm]
provider = "openai"        # anthropic, openai (any compatible server) or gemini
model = "gpt-4o-mini"
api_key_file = "openai.key" # a file only you can read (chmod 600), beside this one
# or a local server (Ollama, llama.cpp, vLLM), no key needed:
# base_url = "http://127.0.0.1:11434/v1"
"#;

/// Reads the settings from the file's `[llm]` section with the environment (`lookup`: the
/// process environment in the bridge, a table in tests) winning key by key.
pub fn read(file: &LlmSection, lookup: &dyn Fn(&str) -> Option<String>) -> Setup {
    let get = |name: &str| {
        lookup(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let kind = match get("NEXUS_LLM_PROVIDER") {
        Some(name) => match ProviderKind::parse(&name) {
            Some(kind) => kind,
            None => {
                return Setup::Missing(format!(
                    "NEXUS_LLM_PROVIDER={name} is not a provider: use anthropic, openai or gemini."
                ));
            }
        },
        None => match file.provider {
            Some(kind) => kind,
            // No provider named: the first key present decides.
            None => match [
                ProviderKind::Anthropic,
                ProviderKind::OpenAi,
                ProviderKind::Gemini,
            ]
            .into_iter()
            .find(|kind| get(kind.key_variable()).is_some())
            {
                Some(kind) => kind,
                None => return Setup::Missing(HOW_TO.into()),
            },
        },
    };
    let base_url = get("NEXUS_LLM_BASE_URL").or_else(|| clean(&file.base_url));
    let variable = clean(&file.api_key_env).unwrap_or_else(|| kind.key_variable().to_owned());
    let (key, key_source) = match (get(&variable), &file.api_key_file) {
        (Some(key), _) => (ApiKey(key), variable.clone()),
        (None, Some(path)) => match read_key_file(path.get_ref()) {
            Ok(key) => (key, path.get_ref().display().to_string()),
            Err(why) => return Setup::Missing(why),
        },
        (None, None) => (ApiKey::default(), String::new()),
    };
    // A public provider needs its key; a base URL of one's own (a local server) may not.
    if key.is_empty() && base_url.is_none() {
        return Setup::Missing(format!(
            "The provider is {} but {variable} is not set and no api_key_file is configured.",
            kind.name(),
        ));
    }
    let native_tools = match get("NEXUS_LLM_NATIVE_TOOLS").as_deref() {
        Some("0" | "false" | "no" | "off") => false,
        Some(_) => true,
        None => file.native_tools.unwrap_or(true),
    };
    let temperature = get("NEXUS_LLM_TEMPERATURE")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|t| t.is_finite() && (0.0..=2.0).contains(t))
        .or(file.temperature);
    Setup::Ready(LlmConfig {
        kind,
        model: get("NEXUS_LLM_MODEL")
            .or_else(|| clean(&file.model))
            .unwrap_or_else(|| kind.default_model().to_owned()),
        base_url: base_url
            .unwrap_or_else(|| kind.default_base_url().to_owned())
            .trim_end_matches('/')
            .to_owned(),
        key,
        key_source: if key_source.is_empty() {
            "none (a server of one's own)".into()
        } else {
            key_source
        },
        native_tools,
        max_output_tokens: get("NEXUS_LLM_MAX_OUTPUT_TOKENS")
            .and_then(|v| v.parse().ok())
            .or(file.max_output_tokens)
            .unwrap_or(2048),
        temperature,
        prompt_addition: clean(&file.system_prompt_addition),
    })
}

fn clean(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// A key file: a regular file that only its owner may read, holding the key on its first line.
fn read_key_file(path: &Path) -> Result<ApiKey, String> {
    use std::os::unix::fs::PermissionsExt;
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|err| format!("api_key_file {shown}: {err}"))?;
    if !meta.is_file() {
        return Err(format!("api_key_file {shown} is not a file"));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(format!(
            "api_key_file {shown} may be read by others: run chmod 600 on it"
        ));
    }
    let text =
        std::fs::read_to_string(path).map_err(|err| format!("api_key_file {shown}: {err}"))?;
    let key = text.lines().next().unwrap_or("").trim().to_owned();
    if key.is_empty() {
        return Err(format!("api_key_file {shown} is empty"));
    }
    Ok(ApiKey(key))
}

/// The turn's limits: `NEXUS_LLM_TIMEOUT_MS`, `NEXUS_LLM_RETRY_MS`, `NEXUS_LLM_MAX_ROUNDS` and
/// `NEXUS_LLM_CONTEXT_TOKENS` over the file's `timeout_ms`, `retry_delay_ms`, `max_rounds` and
/// `context_tokens`, over the defaults.
pub fn limits(file: &LlmSection, lookup: &dyn Fn(&str) -> Option<String>) -> TurnLimits {
    let number = |name: &str| lookup(name).and_then(|v| v.trim().parse::<u64>().ok());
    let defaults = TurnLimits::default();
    TurnLimits {
        request_timeout: number("NEXUS_LLM_TIMEOUT_MS")
            .or(file.timeout_ms)
            .map(|ms| Duration::from_millis(ms.max(1)))
            .unwrap_or(defaults.request_timeout),
        retries: defaults.retries,
        retry_delay: number("NEXUS_LLM_RETRY_MS")
            .or(file.retry_delay_ms)
            .map(Duration::from_millis)
            .unwrap_or(defaults.retry_delay),
        max_rounds: number("NEXUS_LLM_MAX_ROUNDS")
            .or(file.max_rounds.map(u64::from))
            .map(|n| n.clamp(1, 50) as u32)
            .unwrap_or(defaults.max_rounds),
        context_tokens: number("NEXUS_LLM_CONTEXT_TOKENS")
            .or(file.context_tokens)
            .map(|n| n.max(256) as usize)
            .unwrap_or(defaults.context_tokens),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn nothing_set_names_the_variables() {
        let Setup::Missing(message) = read(&LlmSection::default(), &table(&[])) else {
            panic!()
        };
        for name in [
            "NEXUS_LLM_PROVIDER",
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GEMINI_API_KEY",
        ] {
            assert!(message.contains(name), "{message}");
        }
        let Setup::Missing(message) = read(
            &LlmSection::default(),
            &table(&[("NEXUS_LLM_PROVIDER", "gemini")]),
        ) else {
            panic!()
        };
        assert!(message.contains("GEMINI_API_KEY"));
        assert!(matches!(
            read(
                &LlmSection::default(),
                &table(&[("NEXUS_LLM_PROVIDER", "bard")])
            ),
            Setup::Missing(_)
        ));
    }

    #[test]
    fn a_key_or_a_local_base_url_configures_a_provider() {
        let Setup::Ready(config) = read(
            &LlmSection::default(),
            &table(&[("OPENAI_API_KEY", "sk-very-secret")]),
        ) else {
            panic!()
        };
        assert_eq!(config.kind, ProviderKind::OpenAi);
        assert_eq!(config.base_url, "https://api.openai.com/v1");
        assert!(config.native_tools);
        let shown = format!("{config:?}");
        assert!(!shown.contains("very-secret"), "{shown}");
        let Setup::Ready(local) = read(
            &LlmSection::default(),
            &table(&[
                ("NEXUS_LLM_PROVIDER", "openai"),
                ("NEXUS_LLM_BASE_URL", "http://127.0.0.1:8080/v1/"),
                ("NEXUS_LLM_MODEL", "smollm2"),
                ("NEXUS_LLM_NATIVE_TOOLS", "0"),
            ]),
        ) else {
            panic!()
        };
        assert_eq!(local.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(local.model, "smollm2");
        assert!(!local.native_tools);
        assert!(local.key.is_empty());
    }

    #[test]
    fn limits_read_their_overrides() {
        let limits = limits(
            &LlmSection::default(),
            &table(&[
                ("NEXUS_LLM_TIMEOUT_MS", "300"),
                ("NEXUS_LLM_MAX_ROUNDS", "0"),
            ]),
        );
        assert_eq!(limits.request_timeout, Duration::from_millis(300));
        assert_eq!(limits.max_rounds, 1);
        assert_eq!(limits.retries, 3);
    }
}
