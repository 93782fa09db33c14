//! The chat agent on the hub (spec §2.1–2.3): the `/chat` socket, the orchestrator of a turn, the
//! LLM service (providers, prompt, tool-block parser) and the SQLite store of sessions.

pub mod analyze;
pub mod config;
pub mod confirm;
pub mod describe;
pub mod fence;
pub mod jit;
pub mod orchestrator;
pub mod parser;
pub mod prompt;
pub mod provider;
pub mod prune;
pub mod socket;
pub mod store;

/// A chat page's queue of messages (bounded: a page that stops reading is dropped).
pub type ChatSender = crate::outbox::Outbox<nexus_shared::chat::ChatServerMessage>;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use nexus_shared::chat::ChatServerMessage;

use tokio::sync::watch;

use crate::settings::{ConfigError, Loaded};
use analyze::ModelAnalyzer;
use config::{Setup, TurnLimits};
use jit::ToolJit;
use store::Store;

/// The settings a chat uses that the configuration file may change while the hub runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    pub setup: Setup,
    pub limits: TurnLimits,
    /// Conversations untouched for more days are deleted; `None`: kept forever.
    pub retention_days: Option<u32>,
    /// The configuration file, named on the page when no provider is set.
    pub config_path: PathBuf,
}

impl Live {
    /// The file's settings under the environment (`lookup`).
    pub fn read(loaded: &Loaded, lookup: &dyn Fn(&str) -> Option<String>) -> Live {
        let retention_days = lookup(RETENTION_ENV)
            .and_then(|v| v.trim().parse::<u32>().ok())
            .or(loaded.file.chat.retention_days.map(|d| d.get()))
            .filter(|days| *days > 0);
        Live {
            setup: config::read(&loaded.file.llm, lookup),
            limits: config::limits(&loaded.file.llm, lookup),
            retention_days,
            config_path: loaded.path.clone(),
        }
    }

    /// The settings when the file cannot be used: the environment alone, and a missing provider
    /// says what is wrong with the file.
    pub fn unreadable(err: &ConfigError, lookup: &dyn Fn(&str) -> Option<String>) -> Live {
        let mut live = Live::read(&Loaded::defaults(err.path.clone()), lookup);
        if let Setup::Missing(how) = &live.setup {
            live.setup = Setup::Missing(format!(
                "The configuration file cannot be used: {err}. {how}"
            ));
        }
        live
    }
}

/// Overrides the file's `chat.retention_days`.
pub const RETENTION_ENV: &str = "NEXUS_CHAT_RETENTION_DAYS";
/// How often expired conversations are looked for after the one at start.
pub const RETENTION_SWEEP: std::time::Duration = std::time::Duration::from_secs(3600);

/// What every chat socket of a hub shares.
pub struct Chat {
    live: watch::Sender<Arc<Live>>,
    pub store: Store,
    /// The JIT tool compiler; `None` when `NEXUS_JIT=off` (every tool in every prompt).
    pub jit: Option<Arc<ToolJit>>,
    /// The model-based tool analyzer (an LLM configured at start and `analyze::analysis_on`).
    pub analyzer: Option<Arc<ModelAnalyzer>>,
    client: reqwest::Client,
    /// Sessions with a turn running (one turn at a time per session, across sockets).
    busy: Mutex<HashSet<String>>,
    /// The one description being written at a time.
    describing: Arc<tokio::sync::Semaphore>,
    /// Tool calls waiting for the user's confirmation, and each session's "always" tools.
    pub confirmations: confirm::Confirmations,
}

impl Chat {
    /// The chat service from the configuration file (`settings`, or why it cannot be used) and
    /// the environment, with its database at `db` (else the user's data folder). A database that
    /// cannot be opened leaves chat working in memory, and says so. The tool compiler follows the
    /// file's `tool_selection` and embeds with all-MiniLM-L6-v2 when its wheel is installed beside
    /// the built-in model (`nexus_jit::find_minilm`), else the built-in model:
    /// `NEXUS_JIT_MODEL_FILE`, else the one the UI folder `ui_dir` serves to the page; without
    /// it, hashed words.
    pub fn from_settings(
        settings: &Result<Loaded, ConfigError>,
        db: Option<&Path>,
        ui_dir: &Path,
    ) -> Chat {
        let lookup = |name: &str| std::env::var(name).ok();
        let db_path = db.map(Path::to_path_buf).or_else(store::default_path);
        let selection = match settings {
            Ok(loaded) => loaded.file.tool_selection.clone(),
            Err(_) => nexus_jit::ToolSelection::default(),
        };
        let jit = jit_enabled(&lookup).then(|| {
            let path = db_path.as_ref().map(|p| p.with_file_name(JIT_DB_NAME));
            let model = lookup("NEXUS_JIT_MODEL_FILE")
                .map(PathBuf::from)
                .unwrap_or_else(|| ui_dir.join(MODEL_FILE));
            // Loaded at the first chat turn: a bridge serving only MCP never holds the model.
            let embedder = nexus_jit::LazyEmbedder::new(move || {
                let started = std::time::Instant::now();
                let (embedder, fallback) = nexus_jit::best_embedder(Some(&model));
                let ms = started.elapsed().as_millis();
                match fallback {
                    None => tracing::info!(embedder = embedder.id(), ms, model = %model.display(), "the tool compiler embeds with a model (loaded in ms)"),
                    Some(why) => tracing::info!(%why, "the tool compiler embeds hashed words"),
                }
                embedder
            });
            Arc::new(ToolJit::open(path.as_deref(), Some(Box::new(embedder)), selection))
        });
        tracing::info!(on = jit.is_some(), "JIT tool compiler (NEXUS_JIT)");
        let store = match db_path {
            Some(path) => Store::open(&path).inspect(|_| {
                tracing::info!(db = %path.display(), "chat sessions are kept in SQLite");
            }),
            None => Err("no data folder for this user".into()),
        };
        let store = store.or_else(|err| {
            tracing::warn!("{err}; chat sessions are kept in memory only");
            Store::in_memory()
        });
        let store = match store {
            Ok(store) => store,
            Err(err) => {
                tracing::error!("{err}");
                // In-memory SQLite failing means no allocator left; nothing sensible remains.
                std::process::exit(1);
            }
        };
        let live = match settings {
            Ok(loaded) => Live::read(loaded, &lookup),
            Err(err) => Live::unreadable(err, &lookup),
        };
        log_setup(&live.setup);
        let analysis_setting = lookup(analyze::ANALYSIS_ENV);
        let config = match &live.setup {
            Setup::Ready(config) => Some(config.clone()),
            Setup::Missing(_) => None,
        };
        let analysis_on = config
            .as_ref()
            .is_some_and(|c| analyze::analysis_on(analysis_setting.as_deref(), c));
        let mut chat = Chat::new(live, store);
        if let (true, Some(config), Some(_), Ok(runtime)) = (
            analysis_on,
            config,
            &jit,
            tokio::runtime::Handle::try_current(),
        ) {
            tracing::info!("tools are analysed by the language model in the background");
            chat.analyzer = Some(Arc::new(ModelAnalyzer::new(
                chat.client.clone(),
                config,
                runtime,
            )));
        }
        chat.jit = jit;
        chat
    }

    /// A chat service without the tool compiler (set `jit` to add one).
    pub fn new(live: Live, store: Store) -> Chat {
        let client = crate::provider_http::client(None);
        Chat {
            live: watch::Sender::new(Arc::new(live)),
            store,
            jit: None,
            analyzer: None,
            client,
            busy: Mutex::new(HashSet::new()),
            describing: Arc::new(tokio::sync::Semaphore::new(1)),
            confirmations: confirm::Confirmations::default(),
        }
    }

    /// The settings in force now (a turn keeps the ones it started with).
    pub fn live(&self) -> Arc<Live> {
        self.live.borrow().clone()
    }

    /// Tells when the settings change (a socket then sends `provider` again).
    pub fn watch_live(&self) -> watch::Receiver<Arc<Live>> {
        self.live.subscribe()
    }

    /// Puts new settings in force (the configuration file changed); true when they differ.
    pub fn set_live(&self, live: Live) -> bool {
        let changed = **self.live.borrow() != live;
        if changed {
            log_setup(&live.setup);
            self.live.send_replace(Arc::new(live));
        }
        changed
    }

    /// Deletes the conversations older than the retention (none without one); how many.
    pub fn expire(&self, now_ms: u64) -> usize {
        let Some(days) = self.live().retention_days else {
            return 0;
        };
        let cutoff = now_ms.saturating_sub(u64::from(days) * 86_400_000);
        match self.store.delete_untouched_since(cutoff) {
            Ok(0) => 0,
            Ok(count) => {
                tracing::info!(count, days, "deleted conversations past their retention");
                count
            }
            Err(err) => {
                tracing::warn!("cannot delete expired conversations: {err}");
                0
            }
        }
    }

    /// The `provider` message: names only, never a key; without a provider, the configuration
    /// file and the section to add.
    pub fn provider_message(&self) -> ChatServerMessage {
        let live = self.live();
        match &live.setup {
            Setup::Ready(config) => ChatServerMessage::Provider {
                configured: true,
                provider: config.kind.name().into(),
                model: config.model.clone(),
                message: format!("{} · {}", config.kind.name(), config.model),
                config_path: live.config_path.display().to_string(),
                snippet: String::new(),
            },
            Setup::Missing(message) => ChatServerMessage::Provider {
                configured: false,
                provider: String::new(),
                model: String::new(),
                message: message.clone(),
                config_path: live.config_path.display().to_string(),
                snippet: config::SNIPPET.into(),
            },
        }
    }

    fn busy(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.busy
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Marks `session` busy; false when a turn already runs in it.
    pub fn begin(&self, session: &str) -> bool {
        self.busy().insert(session.to_owned())
    }

    pub fn end(&self, session: &str) {
        self.busy().remove(session);
    }

    /// Whether a turn runs in `session` now.
    pub fn is_busy(&self, session: &str) -> bool {
        self.busy().contains(session)
    }
}

fn log_setup(setup: &Setup) {
    match setup {
        Setup::Ready(config) => tracing::info!(
            provider = config.kind.name(),
            model = %config.model,
            base_url = %config.base_url,
            native_tools = config.native_tools,
            "chat LLM configured"
        ),
        Setup::Missing(why) => tracing::info!("chat has no LLM: {why}"),
    }
}

/// The built-in embedding model's file name (in the UI folder, as trunk copies it).
const MODEL_FILE: &str = "static-minilm.nxse";
/// The tool compiler's store, beside the chat database.
const JIT_DB_NAME: &str = "jit-tools.sqlite3";

/// `NEXUS_JIT=off` (or `0`, `false`) turns the tool compiler off: every tool in every prompt.
fn jit_enabled(lookup: &impl Fn(&str) -> Option<String>) -> bool {
    !matches!(
        lookup("NEXUS_JIT")
            .map(|v| v.trim().to_ascii_lowercase())
            .as_deref(),
        Some("off" | "0" | "false")
    )
}

/// A fresh random id (sessions, messages).
pub fn new_id() -> String {
    let mut bytes = [0u8; 12];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: a clock-and-counter id is still unique within this process.
        let nanos = crate::host::unix_ms().to_be_bytes();
        bytes[..8].copy_from_slice(&nanos);
        bytes[8..].copy_from_slice(&fastrand::u32(..).to_be_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY_MS: u64 = 86_400_000;

    fn live(retention: &[(&str, &str)], file: &str) -> Live {
        // As `main` does before any client is built (a `Chat` holds one).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let loaded =
            crate::settings::parse(Path::new("/c/nexus.toml"), file).expect("a valid file");
        let env: Vec<(String, String)> = retention
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Live::read(&loaded, &|name| {
            env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn conversations_past_the_retention_go_and_none_go_without_one() {
        let store = Store::in_memory().unwrap();
        store.create("old", DAY_MS).unwrap();
        store.create("new", 40 * DAY_MS).unwrap();
        let chat = Chat::new(live(&[], ""), store);
        assert_eq!(chat.expire(41 * DAY_MS), 0, "kept forever by default");
        assert!(chat.set_live(live(&[], "[chat]\nretention_days = 30\n")));
        assert!(
            !chat.set_live(live(&[], "[chat]\nretention_days = 30\n")),
            "no change"
        );
        assert_eq!(chat.expire(41 * DAY_MS), 1);
        assert!(!chat.store.exists("old") && chat.store.exists("new"));
        // The environment wins over the file.
        chat.set_live(live(
            &[(RETENTION_ENV, "0")],
            "[chat]\nretention_days = 1\n",
        ));
        assert_eq!(chat.live().retention_days, None);
        assert_eq!(chat.expire(100 * DAY_MS), 0);
    }

    #[test]
    fn without_a_provider_the_page_gets_the_file_and_the_section_to_add() {
        let chat = Chat::new(live(&[], ""), Store::in_memory().unwrap());
        let ChatServerMessage::Provider {
            configured,
            config_path,
            snippet,
            ..
        } = chat.provider_message()
        else {
            panic!("a provider message")
        };
        assert!(!configured);
        assert_eq!(config_path, "/c/nexus.toml");
        assert!(snippet.starts_with("[llm]"));
        // The snippet itself is a valid file.
        assert!(crate::settings::parse(Path::new("/c/nexus.toml"), &snippet).is_ok());
    }
}
