//! One WebSocket on the hub: the handshake (origin for tabs; both sides prove the secret, the hub
//! first: `proof.rs`), then the read loop with rate limit and heartbeat. Bad frames get an `Error`.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, close_code};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use nexus_shared::limits::{
    HELLO_TIMEOUT_MS, MAX_FRAMES_PER_SECOND, MAX_HANDSHAKE_BYTES, PROTOCOL_VERSION,
};
use nexus_shared::proof::{HubProof, Purpose};
use nexus_shared::{ErrorCode, Frame, Outcome, RejectCode, Role, Token, ToolError};
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tokio::time::{Instant, interval_at, sleep, sleep_until, timeout, timeout_at};

use crate::call::Progress;
use crate::heartbeat::{Beat, Heartbeat};
use crate::hub::Hub;
use crate::outbox::{self, FrameSender};
use crate::ratelimit::RateLimiter;
use crate::token;

/// What every session of one hub shares.
pub struct SessionConfig {
    pub heartbeat: Duration,
    /// The hub's token (its private file): peers and `status` prove they know it.
    pub token: Token,
    /// The browser secret (`secret.rs`): a tab proves it knows it.
    pub browser_secret: Token,
    /// This hub run's credential for `/api/*`, handed to a tab inside its Welcome.
    pub api_token: Token,
    /// The port the hub listens on: a peer's proof names it (a tab's names its page's).
    pub port: u16,
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

/// Runs a socket from upgrade to close. `port` is the one the client dialled (its proof names
/// it); `unproven` is the socket's place among those that have not proved the secret yet, given
/// back once it has.
pub async fn run(
    socket: WebSocket,
    hub: Arc<Hub>,
    origin: Origin,
    port: u16,
    config: Arc<SessionConfig>,
    unproven: OwnedSemaphorePermit,
) {
    let (mut sink, mut stream) = socket.split();
    let Some((role, agent)) = handshake(&mut sink, &mut stream, origin, port, &config).await else {
        return;
    };
    drop(unproven);
    let (tx, rx) = outbox::channel();
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
        api_token: (role == Role::Browser).then(|| config.api_token.clone()),
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

/// Hello, the hub's proof, the client's proof, all within `HELLO_TIMEOUT_MS` and each message
/// within `MAX_HANDSHAKE_BYTES`: the client's role and name once it proved the secret its role
/// needs, else `None` after a `Reject` (or a silent end when the socket closed).
async fn handshake(
    sink: &mut Sink,
    stream: &mut Stream,
    origin: Origin,
    port: u16,
    config: &SessionConfig,
) -> Option<(Role, String)> {
    let deadline = Instant::now() + Duration::from_millis(HELLO_TIMEOUT_MS);
    let text = handshake_text(sink, stream, deadline).await?;
    let (role, agent, nonce) = match Frame::decode(&text) {
        Ok(Frame::Hello { protocol, .. }) if protocol != PROTOCOL_VERSION => {
            refuse(sink, RejectCode::Protocol, &other_protocol(protocol.into())).await;
            return None;
        }
        Ok(Frame::Hello {
            role, agent, nonce, ..
        }) => (role, agent, nonce),
        Ok(other) => {
            let reason = format!("expected a hello frame first, got {}", other.kind());
            refuse(sink, RejectCode::BadHello, &reason).await;
            return None;
        }
        Err(err) => {
            match legacy_protocol(&text) {
                Some(protocol) => {
                    refuse(sink, RejectCode::Protocol, &other_protocol(protocol)).await
                }
                None => refuse(sink, RejectCode::BadHello, &err.to_string()).await,
            }
            return None;
        }
    };
    let (key, purpose, wrong) = match role {
        Role::Browser if origin != Origin::Allowed => {
            let reason = "this page's origin may not connect to the Nexus hub";
            refuse(sink, RejectCode::Origin, reason).await;
            return None;
        }
        _ if origin == Origin::Foreign => {
            let reason = "peer sockets may not be opened by a web page";
            refuse(sink, RejectCode::Origin, reason).await;
            return None;
        }
        Role::Browser => (
            &config.browser_secret,
            Purpose::Tab,
            "wrong secret: open the link `nexus-bridge status --link` prints",
        ),
        Role::Peer => (
            &config.token,
            Purpose::Peer,
            "wrong token: read it from the hub's token file",
        ),
        Role::Monitor => (
            &config.token,
            Purpose::Monitor,
            "wrong token: read it from the hub's token file",
        ),
    };
    let random = match token::random_bytes() {
        Ok(random) => random,
        Err(err) => {
            refuse(sink, RejectCode::BadHello, &err).await;
            return None;
        }
    };
    let (proof, hub_proof) = match HubProof::new(&key.0, purpose, port, &nonce, random) {
        Ok(answer) => answer,
        Err(err) => {
            refuse(sink, RejectCode::BadHello, &err.to_string()).await;
            return None;
        }
    };
    let challenge = Frame::Challenge {
        nonce: proof.nonce().to_owned(),
        proof: hub_proof,
    };
    send(sink, &challenge).await.ok()?;
    let text = handshake_text(sink, stream, deadline).await?;
    match Frame::decode(&text) {
        Ok(Frame::Prove {
            proof: client_proof,
        }) if proof.check(&key.0, &client_proof).is_ok() => Some((role, agent)),
        Ok(Frame::Prove { .. }) => {
            refuse(sink, RejectCode::Token, wrong).await;
            None
        }
        Ok(other) => {
            let reason = format!("expected a prove frame, got {}", other.kind());
            refuse(sink, RejectCode::BadHello, &reason).await;
            None
        }
        Err(err) => {
            refuse(sink, RejectCode::BadHello, &err.to_string()).await;
            None
        }
    }
}

/// The next handshake message before `deadline`, at most `MAX_HANDSHAKE_BYTES`; `None` after a
/// refusal or when the socket closed.
async fn handshake_text(sink: &mut Sink, stream: &mut Stream, deadline: Instant) -> Option<String> {
    match timeout_at(deadline, next_text(stream)).await {
        Ok(Some(text)) if text.len() > MAX_HANDSHAKE_BYTES => {
            let reason = format!(
                "a handshake message of {} bytes is over the {MAX_HANDSHAKE_BYTES}-byte limit",
                text.len()
            );
            refuse(sink, RejectCode::BadHello, &reason).await;
            None
        }
        Ok(Some(text)) => Some(text),
        Ok(None) => None,
        Err(_) => {
            let reason = format!("no handshake within {HELLO_TIMEOUT_MS} ms");
            refuse(sink, RejectCode::BadHello, &reason).await;
            None
        }
    }
}

fn other_protocol(protocol: u64) -> String {
    format!("protocol {protocol} is not supported; this hub speaks {PROTOCOL_VERSION}")
}

/// The protocol of a Hello from another version that no longer decodes (version 1 sent the
/// secret itself), so that it gets a clear `Protocol` refusal.
fn legacy_protocol(text: &str) -> Option<u64> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let protocol = value.get("protocol")?.as_u64()?;
    (value.get("type")?.as_str()? == "hello" && protocol != u64::from(PROTOCOL_VERSION))
        .then_some(protocol)
}

fn detach(hub: &Hub, side: Side) {
    match side {
        Side::Tab(id) => hub.detach_tab(id),
        Side::Peer(id) => hub.detach_peer(id),
    }
}

async fn write_loop(mut sink: Sink, mut rx: mpsc::Receiver<Frame>) {
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
    tx: &FrameSender,
    mut stream: Stream,
    heartbeat: Duration,
    writer: &tokio::task::JoinHandle<()>,
) {
    let started = Instant::now();
    let mut beat = Heartbeat::new(heartbeat, started.into_std());
    let mut ticker = interval_at(started + heartbeat, heartbeat);
    let mut limiter = RateLimiter::new(MAX_FRAMES_PER_SECOND, started.into_std());
    let dropped = tx.dropped();
    loop {
        tokio::select! {
            _ = dropped.cancelled() => {
                tracing::warn!(?side, "the socket fell too far behind its frames; closing");
                break;
            }
            // Full queue: this socket's own answers wait to be read before it may send more.
            _ = sleep(Duration::from_millis(2)), if !tx.has_room() => continue,
            message = stream.next(), if tx.has_room() => {
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

fn handle(hub: &Arc<Hub>, side: Side, tx: &FrameSender, frame: Frame) {
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
                session,
            },
        ) => hub.call_from_peer(peer, id, tool, args, session, deadline_ms),
        (Side::Peer(peer), Frame::Cancel { id }) => hub.cancel_from_peer(peer, &id),
        (_, frame @ (Frame::HostedList { .. } | Frame::HostedCall { .. })) => {
            hub.answer_hosted(tx, frame)
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
