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

use analyze::ModelAnalyzer;
use config::{Setup, TurnLimits};
use jit::ToolJit;
use store::Store;

/// What every chat socket of a hub shares.
pub struct Chat {
    pub setup: Setup,
    pub limits: TurnLimits,
    pub store: Store,
    /// The JIT tool compiler; `None` when `NEXUS_JIT=off` (every tool in every prompt).
    pub jit: Option<Arc<ToolJit>>,
    /// The model-based tool analyzer (an LLM configured and `analyze::analysis_on`).
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
    /// The chat service from the environment, with its database at `db` (else the user's data
    /// folder). A database that cannot be opened leaves chat working in memory, and says so. The
    /// tool compiler embeds with the built-in model: `NEXUS_JIT_MODEL_FILE`, else the one the UI
    /// folder `ui_dir` serves to the page; without it, hashed words.
    pub fn from_env(db: Option<&Path>, ui_dir: &Path) -> Chat {
        let lookup = |name: &str| std::env::var(name).ok();
        let db_path = db.map(Path::to_path_buf).or_else(store::default_path);
        let jit = jit_enabled(&lookup).then(|| {
            let path = db_path.as_ref().map(|p| p.with_file_name(JIT_DB_NAME));
            let model = lookup("NEXUS_JIT_MODEL_FILE")
                .map(PathBuf::from)
                .unwrap_or_else(|| ui_dir.join(MODEL_FILE));
            let (embedder, fallback) = nexus_jit::best_embedder(Some(&model));
            match fallback {
                None => tracing::info!(model = %model.display(), "the tool compiler embeds with the built-in model"),
                Some(why) => tracing::info!(%why, "the tool compiler embeds hashed words"),
            }
            Arc::new(ToolJit::open(path.as_deref(), Some(embedder)))
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
        let setup = config::read(&lookup);
        match &setup {
            Setup::Ready(config) => tracing::info!(
                provider = config.kind.name(),
                model = %config.model,
                base_url = %config.base_url,
                native_tools = config.native_tools,
                "chat LLM configured"
            ),
            Setup::Missing(why) => tracing::info!("chat has no LLM: {why}"),
        }
        let analysis_setting = lookup(analyze::ANALYSIS_ENV);
        let config = match &setup {
            Setup::Ready(config) => Some(config.clone()),
            Setup::Missing(_) => None,
        };
        let analysis_on = config
            .as_ref()
            .is_some_and(|c| analyze::analysis_on(analysis_setting.as_deref(), c));
        let mut chat = Chat::new(setup, config::limits(&lookup), store);
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
    pub fn new(setup: Setup, limits: TurnLimits, store: Store) -> Chat {
        let client = crate::provider_http::client(None);
        Chat {
            setup,
            limits,
            store,
            jit: None,
            analyzer: None,
            client,
            busy: Mutex::new(HashSet::new()),
            describing: Arc::new(tokio::sync::Semaphore::new(1)),
            confirmations: confirm::Confirmations::default(),
        }
    }

    /// The `provider` message: names only, never a key.
    pub fn provider_message(&self) -> ChatServerMessage {
        match &self.setup {
            Setup::Ready(config) => ChatServerMessage::Provider {
                configured: true,
                provider: config.kind.name().into(),
                model: config.model.clone(),
                message: format!("{} · {}", config.kind.name(), config.model),
            },
            Setup::Missing(message) => ChatServerMessage::Provider {
                configured: false,
                provider: String::new(),
                model: String::new(),
                message: message.clone(),
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
