//! Command-line interface of `nexus-bridge`, with environment variable overrides.
//! Everything a user can set is here, and `--help` explains it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use nexus_shared::limits::{
    DEFAULT_CALL_TIMEOUT_MS, DEFAULT_HEAVY_CALL_TIMEOUT_MS, DEFAULT_PORT, HEARTBEAT_INTERVAL_MS,
};

use crate::deadline::Deadlines;
use crate::settings::{self, ConfigError, Loaded};

/// Nexus bridge: relays MCP tool calls from AI agents to the Nexus code graph in your browser.
///
/// With no command, nexus-bridge is an MCP server on stdio, as MCP clients (Claude Desktop,
/// Cursor, Claude Code) launch it. The first one hosts the hub on 127.0.0.1:PORT that the Nexus
/// browser tab connects to; later ones join it as peers (with the token the hub writes to
/// $XDG_RUNTIME_DIR/nexus/hub-PORT.json, else ~/.cache/nexus/), and one of them takes over
/// when the hub exits. Open the link `nexus-bridge serve` prints (http://127.0.0.1:PORT/?token=…;
/// `nexus-bridge status --link` prints it again): the token is the browser's secret, kept in
/// browser-token beside the hub file. The tab and the hub prove to each other that they know it
/// before anything moves, so a program that takes the port after the hub exits learns nothing.
/// Load a repository, then ask.
/// MCP clients that speak Streamable HTTP (IDEs, remote agents) connect to the hub instead:
/// URL http://127.0.0.1:PORT/mcp, header `Authorization: Bearer <token>`, the token being the
/// contents of nexus/mcp-token in your data folder (~/.local/share on Linux; created 0600 by
/// the first hub). E.g. {"mcpServers": {"nexus": {"type": "http",
/// "url": "http://127.0.0.1:54319/mcp", "headers": {"Authorization": "Bearer <token>"}}}}.
/// The web UI is not embedded: it is the built dist/ folder found relative to this executable
/// (beside it, else two folders up, as in target/release/), or --ui-dir; never the working directory.
/// Logs go to stderr (set NEXUS_LOG=debug for more); stdout carries only MCP messages.
#[derive(Debug, Parser)]
#[command(name = "nexus-bridge", version, verbatim_doc_comment)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Loopback port of the hub and the UI.
    #[arg(long, env = "NEXUS_PORT", default_value_t = DEFAULT_PORT, global = true)]
    pub port: u16,

    /// A local repository the page may load by itself (served read-only on loopback; excluded
    /// folders, secrets and files over 1 MB are never served).
    #[arg(long, env = "NEXUS_REPO", global = true)]
    pub repo: Option<PathBuf>,

    /// A repository with more files than this (or more bytes than one archive may hold) is sent
    /// to the page in batches, parsed as they arrive, rather than as one archive.
    #[arg(long, env = "NEXUS_STREAM_THRESHOLD", default_value_t = crate::repo::STREAM_THRESHOLD, global = true)]
    pub stream_threshold: usize,

    /// Folder holding the built web UI (index.html and the wasm bundle); by default dist/ beside
    /// this executable, else two folders up from it (the source tree of target/release/).
    #[arg(long, env = "NEXUS_UI_DIR", global = true)]
    pub ui_dir: Option<PathBuf>,

    /// Deadline of one relayed call of a quick tool, in milliseconds.
    #[arg(long, env = "NEXUS_CALL_TIMEOUT_MS", default_value_t = DEFAULT_CALL_TIMEOUT_MS, global = true)]
    pub call_timeout_ms: u64,

    /// Deadline of one relayed call of a heavy tool (impact, deep_dive, test_impact, trace_flow,
    /// route, find_similar, cypher, grep), in milliseconds.
    #[arg(long, env = "NEXUS_HEAVY_TIMEOUT_MS", default_value_t = DEFAULT_HEAVY_CALL_TIMEOUT_MS, global = true)]
    pub heavy_timeout_ms: u64,

    /// Interval between heartbeat pings on every socket, in milliseconds; a socket that does
    /// not answer for two intervals is closed.
    #[arg(long, env = "NEXUS_HEARTBEAT_MS", default_value_t = HEARTBEAT_INTERVAL_MS, global = true)]
    pub heartbeat_ms: u64,

    /// Extra page origin allowed to open a browser socket (repeatable), e.g. http://127.0.0.1:8080 for `trunk serve`.
    #[arg(
        long = "allow-origin",
        env = "NEXUS_ALLOW_ORIGINS",
        value_delimiter = ',',
        global = true
    )]
    pub allow_origins: Vec<String>,

    /// MCP servers to host (an mcp.json: the spec's `servers` or Claude Desktop's `mcpServers`);
    /// default: nexus/mcp.json in your config folder (~/.config on Linux) when it exists.
    /// Only the hub runs them; their tools are `server:tool` beside Nexus's own.
    #[arg(long = "mcp-config", env = "MCP_JSON_PATH", global = true)]
    pub mcp_config: Option<PathBuf>,

    /// Also offer the hosted servers' tools to this bridge's MCP clients, as `server__tool`
    /// (same as `"expose": true` in the configuration).
    #[arg(long = "expose-hosted", env = "NEXUS_EXPOSE_HOSTED", global = true)]
    pub expose_hosted: bool,

    /// SQLite file of the chat agent's conversations; default: nexus/chat.sqlite3 in your data
    /// folder (~/.local/share on Linux).
    #[arg(long = "chat-db", env = "NEXUS_CHAT_DB", global = true)]
    pub chat_db: Option<PathBuf>,

    /// The configuration file (TOML: the chat's LLM, tool_selection, chat retention,
    /// rate_limits; docs/nexus.example.toml explains every key); default: nexus/nexus.toml in
    /// your config folder (~/.config on Linux). Environment variables (NEXUS_LLM_PROVIDER,
    /// NEXUS_LLM_MODEL, NEXUS_LLM_BASE_URL, ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …)
    /// win over it; the hub reads it again when it changes.
    #[arg(long = "config", env = "NEXUS_CONFIG", global = true)]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the hub and serve the UI for people, without MCP on stdio. Stops on Ctrl-C, SIGTERM
    /// or SIGHUP. Fails if another process holds the port. Prints the link with the browser's
    /// secret once, at start.
    Serve {
        /// Open the link in the default browser (through a private redirect file, so the secret
        /// is never on a command line).
        #[arg(long)]
        open: bool,
    },
    /// The configuration file: `config check` validates it and prints the effective settings
    /// (keys redacted), `config path` prints where it is.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Print the hub's health as JSON (browser, graph, peers); exit 1 if no hub runs, or if
    /// the program on the port cannot prove it is this user's hub.
    Status {
        /// Print only the link that opens the UI (with the browser's secret), once the hub
        /// proved itself.
        #[arg(long)]
        link: bool,
    },
    /// Analyse Nexus's tools and the servers' tools in TOOLS (a JSON object: server id → its
    /// `tools/list` array) with the configured LLM, as the chat does in the background, into
    /// the analysis store STORE (SQLite, created when missing; tools stored there are skipped).
    /// Prints how many were stored and each failure.
    AnalyzeTools {
        /// The servers' tools: `{"server": [{"name", "description", "inputSchema"}, …], …}`.
        tools: PathBuf,
        /// The analysis store to fill.
        store: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// Check the file: print the effective settings (file, then environment over it; keys
    /// redacted); exit 1 naming the line and column of the first error.
    Check,
    /// Print the configuration file's path (whether or not it exists).
    Path,
}

/// Settings resolved from the command line and the environment.
#[derive(Debug, Clone)]
pub struct Options {
    pub port: u16,
    pub repo: Option<PathBuf>,
    pub stream_threshold: usize,
    pub ui_dir: PathBuf,
    pub deadlines: Deadlines,
    pub heartbeat: Duration,
    pub allowed_origins: Vec<String>,
    pub mcp_config: Option<PathBuf>,
    pub expose_hosted: bool,
    pub chat_db: Option<PathBuf>,
    /// The configuration file as read at start (or why it could not be).
    pub settings: Arc<Result<Loaded, ConfigError>>,
}

impl Cli {
    /// The configuration file's path: `--config` / `NEXUS_CONFIG`, else the default place.
    pub fn config_path(&self) -> PathBuf {
        settings::resolve_path(self.config.as_deref())
    }

    pub fn options(&self) -> Options {
        let ui_dir = self.ui_dir.clone().unwrap_or_else(default_ui_dir);
        let mut allowed_origins = vec![
            format!("http://127.0.0.1:{}", self.port),
            format!("http://localhost:{}", self.port),
        ];
        allowed_origins.extend(
            self.allow_origins
                .iter()
                .map(|o| o.trim().trim_end_matches('/').to_owned())
                .filter(|o| !o.is_empty()),
        );
        Options {
            port: self.port,
            repo: self.repo.clone(),
            stream_threshold: self.stream_threshold,
            ui_dir,
            deadlines: Deadlines {
                quick: Duration::from_millis(self.call_timeout_ms.max(1)),
                heavy: Duration::from_millis(self.heavy_timeout_ms.max(1)),
            },
            heartbeat: Duration::from_millis(self.heartbeat_ms.max(10)),
            allowed_origins,
            mcp_config: self.mcp_config.clone(),
            expose_hosted: self.expose_hosted,
            chat_db: self.chat_db.clone(),
            settings: Arc::new(settings::load(&self.config_path())),
        }
    }
}

/// `dist/` beside the executable, else two folders up from it (`target/release/nexus-bridge` in a
/// checkout); never the working directory, where another project's `dist/` may lie.
fn default_ui_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    ui_dir_near(&exe)
}

fn ui_dir_near(exe: &std::path::Path) -> PathBuf {
    let candidates: Vec<PathBuf> = exe
        .ancestors()
        .skip(1)
        .take(3)
        .map(|dir| dir.join("dist"))
        .collect();
    candidates
        .iter()
        .find(|dir| dir.join("index.html").is_file())
        .or(candidates.first())
        .cloned()
        .unwrap_or_else(|| PathBuf::from("/nonexistent-nexus-ui"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_origins_and_extras_are_allowed() {
        let cli = Cli::parse_from([
            "nexus-bridge",
            "--port",
            "4000",
            "--allow-origin",
            "http://127.0.0.1:8080/",
        ]);
        let options = cli.options();
        assert_eq!(
            options.allowed_origins,
            [
                "http://127.0.0.1:4000",
                "http://localhost:4000",
                "http://127.0.0.1:8080"
            ]
        );
        assert_eq!(options.port, 4000);
    }

    #[test]
    fn timeouts_and_heartbeat_are_configurable() {
        let cli = Cli::parse_from([
            "nexus-bridge",
            "--call-timeout-ms",
            "1500",
            "--heavy-timeout-ms",
            "9000",
            "--heartbeat-ms",
            "250",
        ]);
        let options = cli.options();
        assert_eq!(options.deadlines.quick, Duration::from_millis(1500));
        assert_eq!(options.deadlines.heavy, Duration::from_millis(9000));
        assert_eq!(options.heartbeat, Duration::from_millis(250));
        let defaults = Cli::parse_from(["nexus-bridge", "status"]).options();
        assert!(defaults.deadlines.heavy > defaults.deadlines.quick);
        assert_eq!(
            defaults.heartbeat,
            Duration::from_millis(HEARTBEAT_INTERVAL_MS)
        );
    }

    #[test]
    fn serve_takes_global_flags_after_the_command() {
        let cli = Cli::parse_from(["nexus-bridge", "serve", "--port", "5000", "--open"]);
        assert!(matches!(cli.command, Some(Command::Serve { open: true })));
        assert_eq!(cli.port, 5000);
    }

    #[test]
    fn the_ui_is_found_near_the_executable_never_in_the_working_directory() {
        let root = std::env::temp_dir().join(format!("nexus-ui-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("target/release")).unwrap();
        std::fs::create_dir_all(root.join("dist")).unwrap();
        std::fs::write(root.join("dist/index.html"), "<!doctype html>").unwrap();
        let exe = root.join("target/release/nexus-bridge");
        assert_eq!(ui_dir_near(&exe), root.join("dist"));
        std::fs::create_dir_all(root.join("target/release/dist")).unwrap();
        std::fs::write(root.join("target/release/dist/index.html"), "x").unwrap();
        assert_eq!(ui_dir_near(&exe), root.join("target/release/dist"));
        let elsewhere = PathBuf::from("/no/such/bin/nexus-bridge");
        assert_eq!(ui_dir_near(&elsewhere), PathBuf::from("/no/such/bin/dist"));
        assert!(ui_dir_near(&elsewhere).is_absolute());
        let _ = std::fs::remove_dir_all(&root);
    }
}
