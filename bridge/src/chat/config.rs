//! The chat agent's LLM settings, read on the bridge only: provider, model, base URL, key, native
//! tool calling and the turn's limits. The key is never logged nor sent to the page (`Debug` hides it).

use std::time::Duration;

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

    fn parse(text: &str) -> Option<Self> {
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
    /// Use the provider's own function calling; off: the ```` ```tool ```` text protocol.
    pub native_tools: bool,
    pub max_output_tokens: u32,
}

/// The turn's limits (the orchestrator's configuration).
#[derive(Debug, Clone)]
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

/// What the page is told: provider and model, or which variables to set.
#[derive(Debug, Clone, PartialEq)]
pub enum Setup {
    Ready(LlmConfig),
    Missing(String),
}

/// How to configure a provider, for the page.
pub const HOW_TO: &str = "No LLM is configured. Start the bridge with NEXUS_LLM_PROVIDER \
    (anthropic, openai or gemini) and the key in ANTHROPIC_API_KEY, OPENAI_API_KEY or \
    GEMINI_API_KEY; NEXUS_LLM_MODEL picks the model and NEXUS_LLM_BASE_URL an OpenAI-compatible \
    server (Ollama, llama.cpp, vLLM, OpenRouter), where no key is needed.";

/// Reads the settings through `lookup` (the environment in the bridge, a table in tests).
pub fn read(lookup: &dyn Fn(&str) -> Option<String>) -> Setup {
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
        None => {
            // No provider named: the first key present decides.
            match [
                ProviderKind::Anthropic,
                ProviderKind::OpenAi,
                ProviderKind::Gemini,
            ]
            .into_iter()
            .find(|kind| get(kind.key_variable()).is_some())
            {
                Some(kind) => kind,
                None => return Setup::Missing(HOW_TO.into()),
            }
        }
    };
    let base_url = get("NEXUS_LLM_BASE_URL");
    let key = ApiKey(get(kind.key_variable()).unwrap_or_default());
    // A public provider needs its key; a base URL of one's own (a local server) may not.
    if key.is_empty() && base_url.is_none() {
        return Setup::Missing(format!(
            "NEXUS_LLM_PROVIDER is {} but {} is not set.",
            kind.name(),
            kind.key_variable()
        ));
    }
    let native_tools = !matches!(
        get("NEXUS_LLM_NATIVE_TOOLS").as_deref(),
        Some("0" | "false" | "no" | "off")
    );
    Setup::Ready(LlmConfig {
        kind,
        model: get("NEXUS_LLM_MODEL").unwrap_or_else(|| kind.default_model().to_owned()),
        base_url: base_url
            .unwrap_or_else(|| kind.default_base_url().to_owned())
            .trim_end_matches('/')
            .to_owned(),
        key,
        native_tools,
        max_output_tokens: get("NEXUS_LLM_MAX_OUTPUT_TOKENS")
            .and_then(|v| v.parse().ok())
            .unwrap_or(2048),
    })
}

/// The turn's limits, with `NEXUS_LLM_TIMEOUT_MS`, `NEXUS_LLM_RETRY_MS`, `NEXUS_LLM_MAX_ROUNDS`
/// and `NEXUS_LLM_CONTEXT_TOKENS` overriding the defaults.
pub fn limits(lookup: &dyn Fn(&str) -> Option<String>) -> TurnLimits {
    let number = |name: &str| lookup(name).and_then(|v| v.trim().parse::<u64>().ok());
    let defaults = TurnLimits::default();
    TurnLimits {
        request_timeout: number("NEXUS_LLM_TIMEOUT_MS")
            .map(|ms| Duration::from_millis(ms.max(1)))
            .unwrap_or(defaults.request_timeout),
        retries: defaults.retries,
        retry_delay: number("NEXUS_LLM_RETRY_MS")
            .map(Duration::from_millis)
            .unwrap_or(defaults.retry_delay),
        max_rounds: number("NEXUS_LLM_MAX_ROUNDS")
            .map(|n| n.clamp(1, 50) as u32)
            .unwrap_or(defaults.max_rounds),
        context_tokens: number("NEXUS_LLM_CONTEXT_TOKENS")
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
        let Setup::Missing(message) = read(&table(&[])) else {
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
        let Setup::Missing(message) = read(&table(&[("NEXUS_LLM_PROVIDER", "gemini")])) else {
            panic!()
        };
        assert!(message.contains("GEMINI_API_KEY"));
        assert!(matches!(
            read(&table(&[("NEXUS_LLM_PROVIDER", "bard")])),
            Setup::Missing(_)
        ));
    }

    #[test]
    fn a_key_or_a_local_base_url_configures_a_provider() {
        let Setup::Ready(config) = read(&table(&[("OPENAI_API_KEY", "sk-very-secret")])) else {
            panic!()
        };
        assert_eq!(config.kind, ProviderKind::OpenAi);
        assert_eq!(config.base_url, "https://api.openai.com/v1");
        assert!(config.native_tools);
        let shown = format!("{config:?}");
        assert!(!shown.contains("very-secret"), "{shown}");
        let Setup::Ready(local) = read(&table(&[
            ("NEXUS_LLM_PROVIDER", "openai"),
            ("NEXUS_LLM_BASE_URL", "http://127.0.0.1:8080/v1/"),
            ("NEXUS_LLM_MODEL", "smollm2"),
            ("NEXUS_LLM_NATIVE_TOOLS", "0"),
        ])) else {
            panic!()
        };
        assert_eq!(local.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(local.model, "smollm2");
        assert!(!local.native_tools);
        assert!(local.key.is_empty());
    }

    #[test]
    fn limits_read_their_overrides() {
        let limits = limits(&table(&[
            ("NEXUS_LLM_TIMEOUT_MS", "300"),
            ("NEXUS_LLM_MAX_ROUNDS", "0"),
        ]));
        assert_eq!(limits.request_timeout, Duration::from_millis(300));
        assert_eq!(limits.max_rounds, 1);
        assert_eq!(limits.retries, 3);
    }
}
