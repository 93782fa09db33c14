//! The hub's HTTP side on 127.0.0.1: the built UI on `/` and the WebSocket on `/ws`.
//! Hosting writes the token file peers join with; the listener binds to loopback only; every
//! route answers only `Host: 127.0.0.1:PORT` or `localhost:PORT`.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Query};
use axum::extract::{Request, State, WebSocketUpgrade};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use nexus_shared::limits::{MAX_FRAME_BYTES, MAX_UNAUTHENTICATED_SOCKETS};
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower_http::services::ServeDir;

use crate::chat::Chat;
use crate::cli::Options;
use crate::embed::{self, EmbedRequest, Embedder};
use crate::gitdiff::{self, DiffQuery};
use crate::guard;
use crate::host::Host;
use crate::hub::Hub;
use crate::mcp_http;
use crate::relay::Relay;
use crate::repo::{self, HashCache, Repo};
use crate::secret;
use crate::session::{self, Origin, SessionConfig};
use crate::settings;
use crate::token::{self, HubFile};
use crate::watch;

#[derive(Clone)]
struct AppState {
    hub: Arc<Hub>,
    repo: Option<Repo>,
    allowed_origins: Arc<Vec<String>>,
    sessions: Arc<SessionConfig>,
    /// One repository archive at a time.
    archive_busy: Arc<Semaphore>,
    /// One `POST /api/repo/files` archive at a time; others wait their turn.
    files_busy: Arc<Semaphore>,
    /// The manifest's file hashes by (path, size, mtime).
    hashes: Arc<HashCache>,
    chat: Arc<Chat>,
    /// The embeddings provider, when one is configured.
    embedder: Option<Arc<Embedder>>,
    /// Places for sockets (`/ws`, `/chat`) that have not proved the secret yet.
    unproven: Arc<Semaphore>,
}

pub async fn bind(port: u16) -> std::io::Result<TcpListener> {
    TcpListener::bind(("127.0.0.1", port)).await
}

/// Whether a hub prints the link with the browser secret when it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// `serve`: printed once, at start, for the user who ran it.
    Print,
    /// A hub an agent started (its stderr goes into the agent's logs): only the bare address
    /// and the command that prints the link.
    Withhold,
}

/// The MCP server `/mcp` runs: the same relay and host as the process's stdio server.
pub struct McpParts {
    pub relay: Arc<Relay>,
    pub host: Arc<Host>,
}

/// Runs the hub on a bound listener: writes the token file, then serves until the server fails.
pub async fn host(
    listener: TcpListener,
    mcp: McpParts,
    options: &Options,
    link: Link,
) -> Result<(), String> {
    let hub = mcp.relay.hub().clone();
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
    let browser_secret = secret::path().and_then(|path| secret::load_or_create(&path))?;
    let announce = match link {
        Link::Print => format!("Nexus: open {}", secret::url(options.port, &browser_secret)),
        Link::Withhold => format!(
            "Nexus: the UI is at http://127.0.0.1:{}/ (`{}` prints the link that opens it)",
            options.port,
            secret::link_command(options.port)
        ),
    };
    let sessions = Arc::new(SessionConfig {
        heartbeat: options.heartbeat,
        token,
        browser_secret,
        api_token: token::generate()?,
        port: options.port,
    });
    serve(listener, hub, mcp, options, sessions, &announce)
        .await
        .map_err(|err| format!("the hub stopped: {err}"))
}

async fn serve(
    listener: TcpListener,
    hub: Arc<Hub>,
    mcp: McpParts,
    options: &Options,
    sessions: Arc<SessionConfig>,
    announce: &str,
) -> std::io::Result<()> {
    let repo = match &options.repo {
        Some(path) => Some(Repo {
            stream_threshold: options.stream_threshold,
            ..Repo::open(path).map_err(std::io::Error::other)?
        }),
        None => None,
    };
    if let Some(repo) = &repo {
        watch_repo(&hub, repo);
    }
    let state = AppState {
        hub,
        repo,
        allowed_origins: Arc::new(options.allowed_origins.clone()),
        sessions,
        archive_busy: Arc::new(Semaphore::new(1)),
        files_busy: Arc::new(Semaphore::new(1)),
        hashes: Arc::new(HashCache::default()),
        chat: Arc::new(Chat::from_settings(
            &options.settings,
            options.chat_db.as_deref(),
            &options.ui_dir,
        )),
        embedder: Embedder::from_env().map(Arc::new),
        unproven: Arc::new(Semaphore::new(MAX_UNAUTHENTICATED_SOCKETS)),
    };
    let api = Router::new()
        .route(
            "/api/repo",
            get(|State(s): State<AppState>| repo::info(s.repo)),
        )
        .route("/api/bridge", get(bridge_info))
        .route("/api/embed", get(embed_info).post(embed_texts))
        .route(
            "/api/repo.zip",
            get(|State(s): State<AppState>| repo::archive(s.repo, s.archive_busy)),
        )
        .route(
            "/api/repo/manifest",
            get(
                |State(s): State<AppState>, Query(q): Query<repo::ManifestQuery>| {
                    repo::manifest(s.repo, s.hashes, q)
                },
            ),
        )
        .route(
            "/api/repo/files",
            post(|State(s): State<AppState>, body: Bytes| {
                repo::files(s.repo, s.files_busy, s.hashes, body)
            })
            .layer(DefaultBodyLimit::max(repo::MAX_REQUEST_BYTES)),
        )
        .route(
            "/api/repo/git-diff",
            get(|State(s): State<AppState>, Query(q): Query<DiffQuery>| {
                gitdiff::answer(s.repo, q.base)
            }),
        )
        .route_layer(middleware::from_fn_with_state(state.clone(), api_guard));
    let app = Router::new()
        .route("/ws", get(upgrade))
        .route("/chat", get(chat_upgrade))
        .merge(api)
        .merge(mcp_route(mcp, &options.allowed_origins));
    let index = options.ui_dir.join("index.html");
    let (app, csp) = match std::fs::read_to_string(&index) {
        Ok(html) => {
            let csp = guard::csp(options.port, &html);
            let html = Html(html);
            let app = app
                .route("/", get(move || async move { html }))
                .fallback_service(
                    ServeDir::new(&options.ui_dir).append_index_html_on_directories(false),
                );
            (app, csp)
        }
        Err(err) => {
            tracing::warn!(dir = %options.ui_dir.display(), %err, "the web UI is not built; `/` explains how to build it");
            (app.fallback(ui_missing), guard::csp(options.port, ""))
        }
    };
    let csp = HeaderValue::from_str(&csp).map_err(std::io::Error::other)?;
    let hosts = Arc::new(options.allowed_origins.clone());
    let app = app
        .layer(middleware::from_fn(move |request: Request, next: Next| {
            let hosts = hosts.clone();
            async move { guard::host_only(&hosts, request, next).await }
        }))
        .layer(middleware::from_fn(move |request: Request, next: Next| {
            guard::headers(csp.clone(), request, next)
        }));
    // Frames are small and latency matters: no Nagle delay on accepted sockets.
    let listener = listener.tap_io(|tcp| {
        if let Err(err) = tcp.set_nodelay(true) {
            tracing::debug!(%err, "cannot set TCP_NODELAY");
        }
    });
    // Announced once everything above has started (and logged), so it is the last line of the
    // start-up.
    eprintln!("{announce}");
    let settings = watch_settings(&state.hub, &state.chat, options);
    let served = axum::serve(listener, app.with_state(state)).await;
    settings.abort();
    served
}

/// Reads the configuration file again whenever it changes, for the chat and the hosted tools'
/// call limits, and deletes expired conversations (`settings::watch`).
fn watch_settings(
    hub: &Arc<Hub>,
    chat: &Arc<Chat>,
    options: &Options,
) -> tokio::task::JoinHandle<()> {
    let (path, first) = match options.settings.as_ref() {
        Ok(loaded) => (loaded.path.clone(), Some(loaded.clone())),
        Err(err) => (err.path.clone(), None),
    };
    let hub = hub.clone();
    let set_limits = move |quotas| {
        if let Some(host) = hub
            .hosted()
            .and_then(|hosted| hosted.into_any().downcast::<Host>().ok())
        {
            host.set_rate_limits(quotas);
        }
    };
    tokio::spawn(settings::watch::run(path, first, chat.clone(), set_limits))
}

/// `/mcp` behind its guard (origin, then the bearer token); without a token file, a route that
/// says why.
fn mcp_route(mcp: McpParts, allowed_origins: &[String]) -> Router<AppState> {
    let token = match mcp_http::load_token() {
        Ok(token) => token,
        Err(err) => {
            tracing::warn!("{err}; MCP over HTTP is off");
            let why = format!("MCP over HTTP is off: {err}");
            return Router::new().route(
                mcp_http::PATH,
                axum::routing::any(move || async move { (StatusCode::SERVICE_UNAVAILABLE, why) }),
            );
        }
    };
    let origins = Arc::new(allowed_origins.to_vec());
    Router::new()
        .route_service(mcp_http::PATH, mcp_http::service(mcp.relay, mcp.host))
        .route_layer(middleware::from_fn(move |request: Request, next: Next| {
            let refusal = mcp_http::refusal(request.headers(), &token, &origins);
            async move {
                match refusal {
                    Some(refusal) => refusal,
                    None => next.run(request).await,
                }
            }
        }))
}

/// Watches the served folder and hands each batch to the hub (for its tab). A watcher that cannot
/// start is logged and shown in health; the folder is still served.
fn watch_repo(hub: &Arc<Hub>, repo: &Repo) {
    match watch::start(repo.clone()) {
        Ok((handle, mut batches)) => {
            tracing::info!(root = %repo.root.display(), "watching the repository");
            hub.serve_repo(repo.name.clone(), Some(handle));
            let hub = hub.clone();
            tokio::spawn(async move {
                while let Some(batch) = batches.recv().await {
                    hub.send_repo_batch(batch);
                }
            });
        }
        Err(err) => {
            tracing::warn!("{err}; the tab will not see the repository's changes live");
            hub.serve_repo(repo.name.clone(), None);
        }
    }
}

/// Refuses `/api/*` requests from other host names, other sites, or without this hub run's
/// api token (which a tab gets only inside a proven session).
async fn api_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let refusal = guard::api_refusal(
        request.headers(),
        &state.sessions.api_token,
        &state.allowed_origins,
    );
    match refusal {
        Some(refusal) => refusal,
        None => next.run(request).await,
    }
}

async fn upgrade(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    State(state): State<AppState>,
) -> Response {
    if !guard::same_origin(&headers, &state.allowed_origins) {
        return (StatusCode::FORBIDDEN, "cross-site sockets are refused").into_response();
    }
    let (origin, check) = origin_check(&headers, &state.allowed_origins);
    if check == Origin::Foreign {
        tracing::debug!(?origin, "socket from a foreign origin");
    }
    let Some(unproven) = unproven_place(&state) else {
        return too_many_unproven();
    };
    let port = proof_port(origin.as_deref(), check, state.sessions.port);
    ws.max_message_size(MAX_FRAME_BYTES + 1024)
        .on_upgrade(move |socket| {
            session::run(socket, state.hub, check, port, state.sessions, unproven)
        })
}

/// The port a proof names: the one the page dialled, i.e. its allowed origin's (the hub's own,
/// or a dev server's that relays to it with `--allow-origin`); else the hub's.
fn proof_port(origin: Option<&str>, check: Origin, hub_port: u16) -> u16 {
    match (origin, check) {
        (Some(origin), Origin::Allowed) => guard::origin_port(origin).unwrap_or(hub_port),
        _ => hub_port,
    }
}

/// A place among the sockets still proving themselves, if one is free.
fn unproven_place(state: &AppState) -> Option<OwnedSemaphorePermit> {
    state.unproven.clone().try_acquire_owned().ok()
}

fn too_many_unproven() -> Response {
    tracing::warn!(
        limit = MAX_UNAUTHENTICATED_SOCKETS,
        "too many sockets have not proved the secret yet; refusing one"
    );
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "too many sockets are still proving themselves; retry shortly",
    )
        .into_response()
}

/// The page's `Origin` and how it compares with the allowed ones.
fn origin_check(headers: &HeaderMap, allowed_origins: &[String]) -> (Option<String>, Origin) {
    let origin = headers.get(header::ORIGIN).map(|o| {
        o.to_str()
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_owned()
    });
    let check = match origin.as_deref() {
        None => Origin::Absent,
        Some(o) if allowed_origins.iter().any(|allowed| allowed == o) => Origin::Allowed,
        Some(_) => Origin::Foreign,
    };
    (origin, check)
}

/// `/chat`: the chat agent's socket, for the hub's own page only (the browser role's checks:
/// `Sec-Fetch-Site`, an allowed `Origin`, then the mutual proof of the secret).
async fn chat_upgrade(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    State(state): State<AppState>,
) -> Response {
    if !guard::same_origin(&headers, &state.allowed_origins) {
        return (StatusCode::FORBIDDEN, "cross-site sockets are refused").into_response();
    }
    let (origin, check) = origin_check(&headers, &state.allowed_origins);
    let Some(unproven) = unproven_place(&state) else {
        return too_many_unproven();
    };
    let port = proof_port(origin.as_deref(), check, state.sessions.port);
    let sessions = state.sessions.clone();
    ws.max_message_size(MAX_FRAME_BYTES + 1024)
        .on_upgrade(move |socket| {
            crate::chat::socket::run(
                socket,
                state.chat,
                state.hub,
                check == Origin::Allowed,
                port,
                sessions,
                unproven,
            )
        })
}

/// Which embeddings provider the bridge offers (its model name; never its address or key).
async fn embed_info(State(state): State<AppState>) -> Response {
    match &state.embedder {
        Some(embedder) => Json(serde_json::json!({ "model": embedder.model() })).into_response(),
        None => no_embedder(),
    }
}

/// Vectors for the tab's texts from the provider (or the cache); a failure is a 502 naming it.
async fn embed_texts(State(state): State<AppState>, Json(request): Json<EmbedRequest>) -> Response {
    let Some(embedder) = &state.embedder else {
        return no_embedder();
    };
    if request.texts.len() > embed::MAX_TEXTS {
        let error = format!("at most {} texts per request", embed::MAX_TEXTS);
        return (
            StatusCode::BAD_REQUEST,
            Json(serde_json::json!({ "error": error })),
        )
            .into_response();
    }
    match embedder.embed(&request.texts).await {
        Ok(answer) => Json(answer).into_response(),
        Err(error) => {
            tracing::warn!("embeddings: {error}");
            (
                StatusCode::BAD_GATEWAY,
                Json(serde_json::json!({ "error": error })),
            )
                .into_response()
        }
    }
}

fn no_embedder() -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(serde_json::json!({ "error": embed::HOW_TO })),
    )
        .into_response()
}

/// The bridge's own binary and version, `/mcp`'s address and where its token is (never the
/// token), for the page's MCP client configuration snippets.
async fn bridge_info(State(state): State<AppState>) -> Response {
    let command = std::env::current_exe()
        .map(|path| path.display().to_string())
        .unwrap_or_default();
    let token_file = mcp_http::token_path()
        .map(|path| path.display().to_string())
        .unwrap_or_default();
    axum::Json(serde_json::json!({
        "command": command,
        "version": env!("CARGO_PKG_VERSION"),
        "mcp_url": mcp_http::url(state.sessions.port),
        "mcp_token_file": token_file,
    }))
    .into_response()
}

async fn ui_missing() -> impl IntoResponse {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Html(
            "<!doctype html><title>Nexus</title><h1>The Nexus web UI is not built</h1>\
             <p>Run <code>scripts/run.sh</code> from the Nexus checkout, or start the bridge with \
             <code>--ui-dir</code> pointing at a built <code>dist/</code> folder (by default it \
             looks for <code>dist/</code> beside the binary and two folders up).</p>",
        ),
    )
}
