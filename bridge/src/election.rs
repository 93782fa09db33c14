//! Hub or peer: bind the port and host the hub, or join the hub that holds it. When the link to
//! the hub drops, try to bind at once (the first to bind is the new hub), else rejoin with backoff.

use std::sync::Arc;
use std::time::Instant;

use nexus_shared::RejectCode;
use nexus_shared::reconnect::{Command, LinkState, Reconnect, ReconnectPolicy};
use tokio::net::TcpListener;

use crate::call::CallIds;
use crate::cli::Options;
use crate::host::Host;
use crate::peer::{self, JoinError};
use crate::relay::{Relay, Route};
use crate::{token, web};

/// Runs for the life of the process: a peer until its hub goes away, then possibly the hub.
pub async fn run(
    relay: Arc<Relay>,
    options: Options,
    agent: String,
    ids: Arc<CallIds>,
    hosted: Arc<Host>,
) {
    let clock = Instant::now();
    let now_ms = || clock.elapsed().as_millis() as u64;
    let mut machine = Reconnect::new(ReconnectPolicy::default());
    let mut command = machine.connect();
    let mut last_error = String::new();
    // Once this process was a peer, binding means taking over: the tab is on its way back.
    let mut was_peer = false;
    loop {
        command = match command {
            Command::Connect => {
                if let Some(listener) = try_bind(options.port).await {
                    return host(&relay, listener, &options, was_peer, &hosted).await;
                }
                match join(&relay, &options, &agent, &ids).await {
                    Ok(task) => {
                        was_peer = true;
                        machine.opened();
                        let _ = task.await;
                        relay.set_route(Route::Joining(None));
                        tracing::warn!("the link to the hub dropped; trying to take over");
                        if let Some(listener) = try_bind(options.port).await {
                            return host(&relay, listener, &options, true, &hosted).await;
                        }
                        machine.closed(now_ms(), fastrand::f64())
                    }
                    Err(JoinError::Rejected(code, reason)) if code != RejectCode::Token => {
                        tracing::error!(?code, reason, "the hub refused this bridge");
                        relay.set_route(Route::Unreachable(format!(
                            "the Nexus hub on port {} refused this bridge: {reason}",
                            options.port
                        )));
                        machine.rejected(reason)
                    }
                    Err(err) => {
                        tracing::debug!(%err, "cannot join the hub yet");
                        last_error = err.to_string();
                        relay.set_route(Route::Joining(Some(last_error.clone())));
                        machine.closed(now_ms(), fastrand::f64())
                    }
                }
            }
            Command::WaitUntil { at_ms } => {
                let wait = std::time::Duration::from_millis(at_ms.saturating_sub(now_ms()));
                tokio::select! {
                    _ = tokio::time::sleep(wait) => machine.timer_fired(at_ms.max(now_ms())),
                    _ = relay.wake_requested() => machine.retry_now(),
                }
            }
            Command::Close | Command::None => match machine.state() {
                LinkState::Waiting { retry_at_ms, .. } => Command::WaitUntil {
                    at_ms: *retry_at_ms,
                },
                LinkState::Connecting { .. } => Command::Connect,
                LinkState::Offline(_) | LinkState::Idle | LinkState::Connected => {
                    if matches!(relay.route(), Route::Joining(_)) {
                        tracing::error!(
                            last_error,
                            "giving up joining the hub until the next call"
                        );
                        relay.set_route(Route::Unreachable(format!(
                            "port {} is held by a program this bridge cannot join: {last_error}",
                            options.port
                        )));
                    }
                    relay.wake_requested().await;
                    machine.connect()
                }
            },
        };
    }
}

async fn try_bind(port: u16) -> Option<TcpListener> {
    match web::bind(port).await {
        Ok(listener) => Some(listener),
        Err(err) => {
            tracing::debug!(port, %err, "cannot bind; another process is the hub");
            None
        }
    }
}

/// Joins the hub and points the relay at the link; returns the task that runs the link.
async fn join(
    relay: &Relay,
    options: &Options,
    agent: &str,
    ids: &Arc<CallIds>,
) -> Result<tokio::task::JoinHandle<()>, JoinError> {
    let path = token::path(options.port).map_err(JoinError::Unreachable)?;
    let file = token::read(&path, options.port).map_err(JoinError::Unreachable)?;
    let (link, task) = peer::join(
        options.port,
        file.token,
        agent,
        options.heartbeat,
        ids.clone(),
    )
    .await?;
    tracing::info!(
        port = options.port,
        hub_pid = file.pid,
        "joined the hub as a peer"
    );
    relay.set_route(Route::Peer(link));
    Ok(task)
}

/// This process is the hub from now on.
async fn host(
    relay: &Arc<Relay>,
    listener: TcpListener,
    options: &Options,
    takeover: bool,
    hosted: &Arc<Host>,
) {
    tracing::info!(
        port = options.port,
        takeover,
        "hub listening on port {}",
        options.port
    );
    if takeover {
        relay.hub().expect_tab();
    }
    relay.set_route(Route::Hub);
    // Only the hub runs the hosted MCP servers; a peer that takes over starts them now.
    hosted.start();
    let mcp = web::McpParts {
        relay: relay.clone(),
        host: hosted.clone(),
    };
    if let Err(err) = web::host(listener, mcp, options, web::Link::Withhold).await {
        tracing::error!("{err}");
        relay.set_route(Route::Unreachable(err));
    }
}
