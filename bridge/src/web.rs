//! The hub's HTTP side on 127.0.0.1: the built UI on `/` and the WebSocket on `/ws`.
//! Browser sockets are accepted by `Origin`; the listener binds to loopback only.

use std::sync::Arc;

use axum::Router;
use axum::extract::{State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use nexus_shared::limits::MAX_FRAME_BYTES;
use tokio::net::TcpListener;
use tower_http::services::{ServeDir, ServeFile};

use crate::cli::Options;
use crate::hub::Hub;
use crate::session;

#[derive(Clone)]
struct AppState {
    hub: Arc<Hub>,
    allowed_origins: Arc<Vec<String>>,
}

pub async fn bind(port: u16) -> std::io::Result<TcpListener> {
    TcpListener::bind(("127.0.0.1", port)).await
}

pub async fn serve(listener: TcpListener, hub: Arc<Hub>, options: Options) -> std::io::Result<()> {
    let state = AppState {
        hub,
        allowed_origins: Arc::new(options.allowed_origins.clone()),
    };
    let index = options.ui_dir.join("index.html");
    let app = Router::new().route("/ws", get(upgrade));
    let app = if index.is_file() {
        app.fallback_service(ServeDir::new(&options.ui_dir).fallback(ServeFile::new(index)))
    } else {
        tracing::warn!(dir = %options.ui_dir.display(), "the web UI is not built; `/` explains how to build it");
        app.fallback(ui_missing)
    };
    axum::serve(listener, app.with_state(state)).await
}

async fn upgrade(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    State(state): State<AppState>,
) -> Response {
    let origin = headers
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .map(|o| o.trim_end_matches('/').to_owned());
    let origin_allowed = origin
        .as_deref()
        .is_some_and(|o| state.allowed_origins.iter().any(|allowed| allowed == o));
    if !origin_allowed {
        tracing::debug!(
            ?origin,
            "socket from an origin that may not act as a browser tab"
        );
    }
    ws.max_message_size(MAX_FRAME_BYTES + 1024)
        .on_upgrade(move |socket| session::run(socket, state.hub, origin_allowed))
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
