//! The hub's HTTP side on 127.0.0.1: the built UI on `/` and the WebSocket on `/ws`.
//! Hosting writes the token file peers join with; the listener binds to loopback only.

use std::sync::Arc;

use axum::Router;
use axum::extract::{State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use nexus_shared::limits::MAX_FRAME_BYTES;
use tokio::net::TcpListener;
use tower_http::services::{ServeDir, ServeFile};

use crate::cli::Options;
use crate::hub::Hub;
use crate::repo::{self, Repo};
use crate::session::{self, Origin, SessionConfig};
use crate::token::{self, HubFile};

#[derive(Clone)]
struct AppState {
    hub: Arc<Hub>,
    repo: Option<Repo>,
    allowed_origins: Arc<Vec<String>>,
    sessions: Arc<SessionConfig>,
}

pub async fn bind(port: u16) -> std::io::Result<TcpListener> {
    TcpListener::bind(("127.0.0.1", port)).await
}

/// Runs the hub on a bound listener: writes the token file, then serves until the server fails.
pub async fn host(listener: TcpListener, hub: Arc<Hub>, options: &Options) -> Result<(), String> {
    let token = token::generate()?;
    match token::path(options.port) {
        Ok(path) => {
            let file = HubFile {
                port: options.port,
                token: token.clone(),
                pid: std::process::id(),
            };
            match token::write(&path, &file) {
                Ok(()) => tracing::info!(file = %path.display(), "token file written"),
                Err(err) => tracing::warn!(
                    file = %path.display(),
                    "cannot write the token file ({err}); other agents cannot join this hub"
                ),
            }
        }
        Err(err) => tracing::warn!("{err}; other agents cannot join this hub"),
    }
    let sessions = Arc::new(SessionConfig {
        heartbeat: options.heartbeat,
        token,
    });
    serve(listener, hub, options, sessions)
        .await
        .map_err(|err| format!("the hub stopped: {err}"))
}

async fn serve(
    listener: TcpListener,
    hub: Arc<Hub>,
    options: &Options,
    sessions: Arc<SessionConfig>,
) -> std::io::Result<()> {
    let repo = match &options.repo {
        Some(path) => Some(Repo::open(path).map_err(std::io::Error::other)?),
        None => None,
    };
    let state = AppState {
        hub,
        repo,
        allowed_origins: Arc::new(options.allowed_origins.clone()),
        sessions,
    };
    let index = options.ui_dir.join("index.html");
    let app = Router::new()
        .route("/ws", get(upgrade))
        .route(
            "/api/repo",
            get(|State(s): State<AppState>, headers: HeaderMap| repo::info(s.repo, headers)),
        )
        .route(
            "/api/bridge",
            get(|headers: HeaderMap| bridge_info(headers)),
        )
        .route(
            "/api/repo.zip",
            get(|State(s): State<AppState>, headers: HeaderMap| repo::archive(s.repo, headers)),
        );
    let app = if index.is_file() {
        app.fallback_service(ServeDir::new(&options.ui_dir).fallback(ServeFile::new(index)))
    } else {
        tracing::warn!(dir = %options.ui_dir.display(), "the web UI is not built; `/` explains how to build it");
        app.fallback(ui_missing)
    };
    // Frames are small and latency matters: no Nagle delay on accepted sockets.
    let listener = listener.tap_io(|tcp| {
        if let Err(err) = tcp.set_nodelay(true) {
            tracing::debug!(%err, "cannot set TCP_NODELAY");
        }
    });
    axum::serve(listener, app.with_state(state)).await
}

async fn upgrade(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    State(state): State<AppState>,
) -> Response {
    let origin = headers.get(header::ORIGIN).map(|o| {
        o.to_str()
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_owned()
    });
    let check = match origin.as_deref() {
        None => Origin::Absent,
        Some(o) if state.allowed_origins.iter().any(|allowed| allowed == o) => Origin::Allowed,
        Some(_) => Origin::Foreign,
    };
    if check == Origin::Foreign {
        tracing::debug!(?origin, "socket from a foreign origin");
    }
    ws.max_message_size(MAX_FRAME_BYTES + 1024)
        .on_upgrade(move |socket| session::run(socket, state.hub, check, state.sessions))
}

/// The bridge's own binary and version, for the page's MCP client configuration snippet.
async fn bridge_info(headers: HeaderMap) -> Response {
    if !repo::loopback_host(&headers) {
        return StatusCode::FORBIDDEN.into_response();
    }
    let command = std::env::current_exe()
        .map(|path| path.display().to_string())
        .unwrap_or_default();
    axum::Json(serde_json::json!({
        "command": command,
        "version": env!("CARGO_PKG_VERSION"),
    }))
    .into_response()
}

async fn ui_missing() -> impl IntoResponse {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Html(
            "<!doctype html><title>Nexus</title><h1>The Nexus web UI is not built</h1>\
             <p>Run <code>scripts/run.sh</code> from the Nexus checkout, or start the bridge with \
             <code>--ui-dir</code> pointing at a built <code>dist/</code> folder.</p>",
        ),
    )
}
