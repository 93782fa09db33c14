//! One WebSocket on the hub: the Hello handshake (origin and secret for tabs, token for peers), then the
//! read loop with rate limit and heartbeat. Bad frames get an `Error` frame; the session goes on.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, close_code};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use nexus_shared::limits::{HELLO_TIMEOUT_MS, MAX_FRAMES_PER_SECOND, PROTOCOL_VERSION};
use nexus_shared::{ErrorCode, Frame, Outcome, RejectCode, Role, Token, ToolError};
use tokio::sync::mpsc;
use tokio::time::{Instant, interval_at, sleep_until, timeout};

use crate::call::Progress;
use crate::heartbeat::{Beat, Heartbeat};
use crate::hub::Hub;
use crate::ratelimit::RateLimiter;
use crate::token;

/// What every session of one hub shares.
pub struct SessionConfig {
    pub heartbeat: Duration,
    pub token: Token,
    /// The browser secret a tab presents in its Hello (`secret.rs`).
    pub browser_secret: Token,
}

/// The result of the `Origin` check on the upgrade request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The hub's own UI, or an origin the user allowed.
    Allowed,
    /// Some other web page.
    Foreign,
    /// No `Origin` header: not a browser (a peer bridge or a tool).
    Absent,
}

/// Who is on the other end, once welcomed.
#[derive(Debug, Clone, Copy)]
enum Side {
    Tab(u64),
    Peer(u64),
}

type Sink = SplitSink<WebSocket, Message>;
type Stream = SplitStream<WebSocket>;

/// Runs a socket from upgrade to close.
pub async fn run(socket: WebSocket, hub: Arc<Hub>, origin: Origin, config: Arc<SessionConfig>) {
    let (mut sink, mut stream) = socket.split();
    let hello = match timeout(
        Duration::from_millis(HELLO_TIMEOUT_MS),
        next_text(&mut stream),
    )
    .await
    {
        Ok(Some(text)) => Frame::decode(&text),
        Ok(None) => return,
        Err(_) => {
            refuse(&mut sink, RejectCode::BadHello, "no Hello within 5 s").await;
            return;
        }
    };
    let (role, agent) = match hello {
        Ok(Frame::Hello { protocol, .. }) if protocol != PROTOCOL_VERSION => {
            let reason =
                format!("protocol {protocol} is not supported; this hub speaks {PROTOCOL_VERSION}");
            refuse(&mut sink, RejectCode::Protocol, &reason).await;
            return;
        }
        Ok(Frame::Hello {
            role: Role::Browser,
            agent,
            token,
            ..
        }) => {
            if origin != Origin::Allowed {
                let reason = "this page's origin may not connect to the Nexus hub";
                refuse(&mut sink, RejectCode::Origin, reason).await;
                return;
            }
            if !token::matches(&config.browser_secret, token.as_ref()) {
                let reason = "missing or wrong secret: open the link `nexus-bridge status` prints";
                refuse(&mut sink, RejectCode::Token, reason).await;
                return;
            }
            (Role::Browser, agent)
        }
        Ok(Frame::Hello {
            role, token, agent, ..
        }) => {
            if origin == Origin::Foreign {
                let reason = "peer sockets may not be opened by a web page";
                refuse(&mut sink, RejectCode::Origin, reason).await;
                return;
            }
            if !token::matches(&config.token, token.as_ref()) {
                let reason = "missing or wrong token: read it from the hub's token file";
                refuse(&mut sink, RejectCode::Token, reason).await;
                return;
            }
            (role, agent)
        }
        Ok(other) => {
            let reason = format!("expected a hello frame first, got {}", other.kind());
            refuse(&mut sink, RejectCode::BadHello, &reason).await;
            return;
        }
        Err(err) => {
            refuse(&mut sink, RejectCode::BadHello, &err.to_string()).await;
            return;
        }
    };

    let (tx, rx) = mpsc::unbounded_channel::<Frame>();
    let side = match role {
        Role::Browser => Side::Tab(hub.attach_tab(tx.clone())),
        Role::Peer => Side::Peer(hub.attach_peer(tx.clone(), agent.clone(), false)),
        Role::Monitor => Side::Peer(hub.attach_peer(tx.clone(), agent.clone(), true)),
    };
    tracing::info!(?side, agent, "socket welcomed");
    let session = match side {
        Side::Tab(id) => format!("tab-{id}"),
        Side::Peer(id) => format!("peer-{id}"),
    };
    let welcome = Frame::Welcome {
        session,
        hub_version: env!("CARGO_PKG_VERSION").into(),
    };
    if send(&mut sink, &welcome).await.is_err() {
        detach(&hub, side);
        return;
    }
    let writer = tokio::spawn(write_loop(sink, rx));
    read_loop(&hub, side, &tx, stream, config.heartbeat, &writer).await;
    detach(&hub, side);
    // Let the writer flush what is queued (an error saying why the socket ends), then stop it.
    drop(tx);
    if timeout(Duration::from_millis(500), writer).await.is_err() {
        tracing::debug!(?side, "writer did not finish; socket dropped");
    }
    tracing::info!(?side, "socket closed");
}

fn detach(hub: &Hub, side: Side) {
    match side {
        Side::Tab(id) => hub.detach_tab(id),
        Side::Peer(id) => hub.detach_peer(id),
    }
}

async fn write_loop(mut sink: Sink, mut rx: mpsc::UnboundedReceiver<Frame>) {
    while let Some(frame) = rx.recv().await {
        let last = matches!(frame, Frame::Reject { .. });
        if send(&mut sink, &frame).await.is_err() || last {
            break;
        }
    }
    let _ = sink.close().await;
}

async fn read_loop(
    hub: &Arc<Hub>,
    side: Side,
    tx: &mpsc::UnboundedSender<Frame>,
    mut stream: Stream,
    heartbeat: Duration,
    writer: &tokio::task::JoinHandle<()>,
) {
    let started = Instant::now();
    let mut beat = Heartbeat::new(heartbeat, started.into_std());
    let mut ticker = interval_at(started + heartbeat, heartbeat);
    let mut limiter = RateLimiter::new(MAX_FRAMES_PER_SECOND, started.into_std());
    loop {
        tokio::select! {
            message = stream.next() => {
                let message = match message {
                    Some(Ok(message)) => message,
                    Some(Err(err)) => {
                        tracing::info!(?side, %err, "socket failed");
                        let _ = tx.send(error(&format!("closing the socket: {err}")));
                        break;
                    }
                    None => break,
                };
                // Every message counts against the rate, control messages too; those are
                // answered by the WebSocket layer and go no further (`None`).
                let frame = match message {
                    Message::Text(text) => Some(Frame::decode(text.as_str()).map_err(|err| err.to_string())),
                    Message::Binary(_) => Some(Err("binary frames are not supported; send JSON text".into())),
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => None,
                };
                let now = Instant::now();
                if !limiter.try_take(now.into_std()) {
                    if let Some(Ok(Frame::Call { id, .. })) = frame {
                        let _ = tx.send(rate_limited(id));
                        continue;
                    }
                    // Anything else is read more slowly: nothing is lost, the flood slows itself.
                    sleep_until(limiter.next_token_at(now.into_std()).into()).await;
                    limiter.try_take(Instant::now().into_std());
                }
                let Some(frame) = frame else { continue };
                match frame {
                    Ok(Frame::Pong { nonce }) => beat.pong(nonce),
                    Ok(Frame::Ping { nonce }) => {
                        let _ = tx.send(Frame::Pong { nonce });
                    }
                    Ok(frame) => handle(hub, side, tx, frame),
                    Err(err) => {
                        tracing::warn!(?side, err, "bad frame");
                        let _ = tx.send(error(&err));
                    }
                }
            }
            _ = ticker.tick() => match beat.tick(Instant::now().into_std()) {
                Beat::Dead => {
                    tracing::warn!(?side, "no answer to pings for two heartbeats; closing");
                    break;
                }
                Beat::Ping(nonce) => {
                    if tx.send(Frame::Ping { nonce }).is_err() {
                        break;
                    }
                }
            }
        }
        if writer.is_finished() {
            break;
        }
    }
}

fn handle(hub: &Arc<Hub>, side: Side, tx: &mpsc::UnboundedSender<Frame>, frame: Frame) {
    match (side, frame) {
        (Side::Tab(tab), Frame::Result { id, outcome }) => hub.deliver(tab, &id, outcome),
        (Side::Tab(tab), Frame::RepoApplied { seq, error }) => hub.repo_applied(tab, seq, error),
        (
            Side::Tab(tab),
            Frame::Progress {
                id,
                done,
                total,
                message,
            },
        ) => hub.progress(
            tab,
            &id,
            Progress {
                done,
                total,
                message,
            },
        ),
        (Side::Tab(tab), Frame::Context { project, stats, .. }) => {
            tracing::info!(
                tab,
                ?project,
                files = stats.files,
                nodes = stats.nodes,
                "tab context"
            );
            hub.set_context(tab, project, stats);
        }
        (
            Side::Peer(peer),
            Frame::Call {
                id,
                tool,
                args,
                deadline_ms,
            },
        ) => hub.call_from_peer(peer, id, tool, args, deadline_ms),
        (Side::Peer(peer), Frame::Cancel { id }) => hub.cancel_from_peer(peer, &id),
        (_, frame @ (Frame::HostedList { .. } | Frame::HostedCall { .. })) => {
            crate::host::wire::handle(hub, tx, frame)
        }
        (_, Frame::Error { message }) => {
            tracing::warn!(?side, message, "the other end reported an error")
        }
        (side, other) => {
            let who = match side {
                Side::Tab(_) => "a tab",
                Side::Peer(_) => "a peer",
            };
            let _ = tx.send(error(&format!(
                "{who} may not send {} frames",
                other.kind()
            )));
        }
    }
}

async fn next_text(stream: &mut Stream) -> Option<String> {
    while let Some(Ok(message)) = stream.next().await {
        match message {
            Message::Text(text) => return Some(text.as_str().to_owned()),
            Message::Binary(_) => return Some(String::new()),
            Message::Close(_) => return None,
            Message::Ping(_) | Message::Pong(_) => {}
        }
    }
    None
}

async fn send(sink: &mut Sink, frame: &Frame) -> Result<(), axum::Error> {
    sink.send(Message::Text(frame.encode().into())).await
}

/// Sends a `Reject` and closes the socket with a policy-violation close frame.
async fn refuse(sink: &mut Sink, code: RejectCode, reason: &str) {
    tracing::info!(?code, reason, "socket refused");
    let frame = Frame::Reject {
        code,
        reason: reason.into(),
    };
    let _ = send(sink, &frame).await;
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code: close_code::POLICY,
            reason: "rejected".into(),
        })))
        .await;
    let _ = sink.close().await;
}

fn rate_limited(id: String) -> Frame {
    Frame::Result {
        id,
        outcome: Outcome::Err(
            ToolError::new(
                ErrorCode::RateLimited,
                format!("this socket sent more than {MAX_FRAMES_PER_SECOND} frames per second"),
            )
            .with_hint("slow down and retry"),
        ),
    }
}

fn error(message: &str) -> Frame {
    Frame::Error {
        message: message.into(),
    }
}
