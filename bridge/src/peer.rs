//! A peer's link to the hub: the mutual proof of the token, this process's calls relayed as `Call` frames
//! under its own ids, answers and progress routed back to their waiters, heartbeats both ways.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use nexus_shared::limits::{HELLO_TIMEOUT_MS, MAX_FRAME_BYTES, PROTOCOL_VERSION};
use nexus_shared::proof::{ClientProof, Purpose};
use nexus_shared::{CallId, ErrorCode, Frame, Outcome, RejectCode, Role, Token, ToolError};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::{Instant, interval_at, timeout};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async_with_config};

use crate::call::{CallIds, Progress, ProgressSender, Waiter};
use crate::heartbeat::{Beat, Heartbeat};
use crate::hub::{FrameSender, HubView, check_size};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;
pub type Sink = SplitSink<Socket, Message>;
pub type Stream = SplitStream<Socket>;

/// Why joining the hub failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinError {
    /// Nothing answered, or not like a Nexus hub.
    Unreachable(String),
    /// The hub said no.
    Rejected(RejectCode, String),
}

impl std::fmt::Display for JoinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JoinError::Unreachable(why) => write!(f, "{why}"),
            JoinError::Rejected(code, reason) => {
                write!(f, "the hub refused this bridge ({code:?}): {reason}")
            }
        }
    }
}

/// Opens `/ws` on the hub and proves the token as `role` (the hub proves it first; `proof.rs`);
/// returns the socket once welcomed. A port another user holds (Linux), or a program there
/// that cannot prove the token, learns nothing: the token itself never moves.
pub async fn handshake(
    port: u16,
    role: Role,
    token: Token,
    agent: &str,
) -> Result<(Sink, Stream), JoinError> {
    crate::listener::check_owner(port).map_err(JoinError::Unreachable)?;
    let limit = Duration::from_millis(HELLO_TIMEOUT_MS);
    let config = WebSocketConfig::default().max_message_size(Some(MAX_FRAME_BYTES + 1024));
    let url = format!("ws://127.0.0.1:{port}/ws");
    let (socket, _) = timeout(limit, connect_async_with_config(url, Some(config), true))
        .await
        .map_err(|_| {
            JoinError::Unreachable(format!("port {port} did not answer within {limit:?}"))
        })?
        .map_err(|err| {
            JoinError::Unreachable(format!("cannot open a socket on port {port}: {err}"))
        })?;
    let (mut sink, mut stream) = socket.split();
    let purpose = match role {
        Role::Monitor => Purpose::Monitor,
        Role::Peer | Role::Browser => Purpose::Peer,
    };
    let proof = ClientProof::new(
        purpose,
        port,
        crate::token::random_bytes().map_err(JoinError::Unreachable)?,
    );
    let hello = Frame::Hello {
        role,
        protocol: PROTOCOL_VERSION,
        agent: agent.to_owned(),
        nonce: proof.nonce().to_owned(),
    };
    let closed = |err| JoinError::Unreachable(format!("the hub closed the socket: {err}"));
    sink.send(Message::Text(hello.encode().into()))
        .await
        .map_err(closed)?;
    let (nonce, hub_proof) = match reply(&mut stream, port, limit).await? {
        Frame::Challenge { nonce, proof } => (nonce, proof),
        other => return Err(unexpected(port, "challenge", &other)),
    };
    let answer = proof.answer(&[&token.0], &nonce, &hub_proof);
    let Ok((_, client_proof)) = answer else {
        let _ = sink.close().await;
        return Err(JoinError::Unreachable(format!(
            "the program on port {port} did not prove it knows this user's hub token; it is not your Nexus hub"
        )));
    };
    sink.send(Message::Text(
        Frame::Prove {
            proof: client_proof,
        }
        .encode()
        .into(),
    ))
    .await
    .map_err(closed)?;
    match reply(&mut stream, port, limit).await? {
        Frame::Welcome { .. } => Ok((sink, stream)),
        other => Err(unexpected(port, "welcome", &other)),
    }
}

/// The hub's next frame in the handshake; a `Reject` or a silent hub is an error.
async fn reply(stream: &mut Stream, port: u16, limit: Duration) -> Result<Frame, JoinError> {
    match timeout(limit, next_frame(stream)).await {
        Ok(Some(Ok(Frame::Reject { code, reason }))) => Err(JoinError::Rejected(code, reason)),
        Ok(Some(Ok(frame))) => Ok(frame),
        Ok(Some(Err(err))) => Err(JoinError::Unreachable(format!(
            "the program on port {port} is not a Nexus hub: {err}"
        ))),
        Ok(None) => Err(JoinError::Unreachable("the hub closed the socket".into())),
        Err(_) => Err(JoinError::Unreachable(format!(
            "no answer from the hub within {limit:?}"
        ))),
    }
}

fn unexpected(port: u16, wanted: &str, got: &Frame) -> JoinError {
    JoinError::Unreachable(format!(
        "expected a {wanted} from the hub on port {port}, got {}",
        got.kind()
    ))
}

/// The next decoded frame; `None` when the socket ended.
pub async fn next_frame(stream: &mut Stream) -> Option<Result<Frame, String>> {
    loop {
        match stream.next().await? {
            Ok(Message::Text(text)) => {
                return Some(Frame::decode(text.as_str()).map_err(|err| err.to_string()));
            }
            Ok(Message::Binary(_)) => return Some(Err("binary frame".into())),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => continue,
        }
    }
}

/// The hub's state, which it sends right after `Welcome`.
pub async fn first_status(stream: &mut Stream) -> Result<HubView, JoinError> {
    let limit = Duration::from_millis(HELLO_TIMEOUT_MS);
    loop {
        match timeout(limit, next_frame(stream)).await {
            Ok(Some(Ok(Frame::Status {
                browser,
                peers,
                project,
                stats,
                repo,
            }))) => {
                return Ok(HubView {
                    browser,
                    peers,
                    project,
                    stats,
                    repo,
                });
            }
            Ok(Some(_)) => continue,
            Ok(None) => {
                return Err(JoinError::Unreachable(
                    "the hub closed the socket before saying its state".into(),
                ));
            }
            Err(_) => {
                return Err(JoinError::Unreachable(format!(
                    "the hub did not say its state within {limit:?}"
                )));
            }
        }
    }
}

#[derive(Default)]
struct Calls {
    waiters: HashMap<CallId, Waiter>,
    /// Set when the link dropped: no call may start on it any more.
    closed: bool,
}

/// Requests for the hub's hosted MCP registry, waiting for `Hosted` or `HostedResult`.
#[derive(Default)]
struct HostedWaiters {
    lists: Vec<oneshot::Sender<serde_json::Value>>,
    calls: HashMap<CallId, oneshot::Sender<Outcome>>,
}

/// A live link to the hub.
pub struct PeerLink {
    tx: FrameSender,
    ids: Arc<CallIds>,
    calls: Mutex<Calls>,
    view: Mutex<HubView>,
    hosted: Mutex<HostedWaiters>,
}

/// Joins the hub as a peer. The returned task runs the link and ends when it drops; by then
/// every call in flight on it has failed with `LINK_LOST`.
pub async fn join(
    port: u16,
    token: Token,
    agent: &str,
    heartbeat: Duration,
    ids: Arc<CallIds>,
) -> Result<(Arc<PeerLink>, JoinHandle<()>), JoinError> {
    let (sink, mut stream) = handshake(port, Role::Peer, token, agent).await?;
    let view = first_status(&mut stream).await?;
    let (tx, rx) = crate::outbox::channel();
    let link = Arc::new(PeerLink {
        tx,
        ids,
        calls: Mutex::new(Calls::default()),
        view: Mutex::new(view),
        hosted: Mutex::new(HostedWaiters::default()),
    });
    let task = tokio::spawn(run(link.clone(), sink, stream, rx, heartbeat));
    Ok((link, task))
}

impl PeerLink {
    fn calls(&self) -> MutexGuard<'_, Calls> {
        self.calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn hosted(&self) -> MutexGuard<'_, HostedWaiters> {
        self.hosted
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The hub's hosted MCP registry (the hub runs the servers; peers ask it).
    pub async fn hosted_registry(&self) -> Result<serde_json::Value, ToolError> {
        let (tx, rx) = oneshot::channel();
        if self.calls().closed {
            return Err(link_lost());
        }
        self.hosted().lists.push(tx);
        if self.tx.send(Frame::HostedList { watch: false }).is_err() {
            return Err(link_lost());
        }
        match timeout(Duration::from_millis(HELLO_TIMEOUT_MS), rx).await {
            Ok(Ok(registry)) => Ok(registry),
            _ => Err(link_lost()),
        }
    }

    /// Calls a hosted tool through the hub's registry.
    pub async fn hosted_call(
        &self,
        tool: &str,
        args: serde_json::Map<String, serde_json::Value>,
    ) -> Outcome {
        let id = self.ids.next();
        let (tx, rx) = oneshot::channel();
        if self.calls().closed {
            return Outcome::Err(link_lost());
        }
        self.hosted().calls.insert(id.clone(), tx);
        let frame = Frame::HostedCall {
            id: id.clone(),
            tool: tool.to_owned(),
            args,
            timeout_ms: None,
        };
        if let Err(err) = check_size(&frame) {
            self.hosted().calls.remove(&id);
            return Outcome::Err(err);
        }
        if self.tx.send(frame).is_err() {
            self.hosted().calls.remove(&id);
            return Outcome::Err(link_lost());
        }
        rx.await.unwrap_or_else(|_| Outcome::Err(link_lost()))
    }

    /// What the hub last said about itself.
    pub fn view(&self) -> HubView {
        self.view
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Relays one call through the hub and waits for its answer. Dropping the returned future
    /// (timeout, client cancelled) sends `Cancel` to the hub, which passes it to the tab.
    pub async fn call(
        &self,
        tool: &str,
        args: serde_json::Value,
        session: Option<String>,
        deadline: Duration,
        progress: ProgressSender,
    ) -> Outcome {
        let id = self.ids.next();
        let frame = Frame::Call {
            id: id.clone(),
            tool: tool.to_owned(),
            args,
            deadline_ms: deadline.as_millis() as u64,
            session,
        };
        if let Err(err) = check_size(&frame) {
            return Outcome::Err(err);
        }
        let rx = {
            let mut calls = self.calls();
            if calls.closed || self.tx.send(frame).is_err() {
                return Outcome::Err(link_lost());
            }
            let (waiter, rx) = Waiter::new(progress);
            calls.waiters.insert(id.clone(), waiter);
            rx
        };
        let mut guard = CancelGuard {
            link: self,
            id: &id,
            armed: true,
        };
        let outcome = rx.await.unwrap_or_else(|_| Outcome::Err(link_lost()));
        guard.armed = false;
        outcome
    }

    fn cancel(&self, id: &str) {
        if self.calls().waiters.remove(id).is_some() {
            let _ = self.tx.send(Frame::Cancel { id: id.to_owned() });
        }
    }

    fn handle(&self, frame: Frame) {
        match frame {
            Frame::Result { id, outcome } => {
                let waiter = self.calls().waiters.remove(&id);
                match waiter {
                    Some(waiter) => waiter.answer(outcome),
                    None => tracing::debug!(id, "result for a call that already ended"),
                }
            }
            Frame::Progress {
                id,
                done,
                total,
                message,
            } => {
                if let Some(waiter) = self.calls().waiters.get(&id) {
                    waiter.report(Progress {
                        done,
                        total,
                        message,
                    });
                }
            }
            Frame::Status {
                browser,
                peers,
                project,
                stats,
                repo,
            } => {
                *self
                    .view
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = HubView {
                    browser,
                    peers,
                    project,
                    stats,
                    repo,
                };
            }
            Frame::Ping { nonce } => {
                let _ = self.tx.send(Frame::Pong { nonce });
            }
            Frame::Hosted { registry } => {
                for waiter in std::mem::take(&mut self.hosted().lists) {
                    let _ = waiter.send(registry.clone());
                }
            }
            Frame::HostedResult { id, outcome, .. } => {
                if let Some(waiter) = self.hosted().calls.remove(&id) {
                    let _ = waiter.send(outcome);
                }
            }
            Frame::Error { message } => tracing::warn!(message, "the hub reported an error"),
            other => tracing::debug!(kind = other.kind(), "frame ignored by a peer"),
        }
    }

    /// The link dropped: every waiting call fails now with a retryable error.
    fn close(&self) {
        let waiters = {
            let mut calls = self.calls();
            calls.closed = true;
            std::mem::take(&mut calls.waiters)
        };
        for (_, waiter) in waiters {
            waiter.answer(Outcome::Err(link_lost()));
        }
        // Dropping the hosted waiters fails their requests with `LINK_LOST`.
        *self.hosted() = HostedWaiters::default();
    }
}

fn link_lost() -> ToolError {
    ToolError::new(
        ErrorCode::LinkLost,
        "the link to the Nexus hub dropped during the call (the hub may have exited; another bridge takes over)",
    )
    .with_hint("retry the call")
}

async fn run(
    link: Arc<PeerLink>,
    mut sink: Sink,
    mut stream: Stream,
    mut rx: mpsc::Receiver<Frame>,
    heartbeat: Duration,
) {
    let dropped = link.tx.dropped();
    let writer = tokio::spawn(async move {
        while let Some(frame) = rx.recv().await {
            if sink
                .send(Message::Text(frame.encode().into()))
                .await
                .is_err()
            {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let started = Instant::now();
    let mut beat = Heartbeat::new(heartbeat, started.into_std());
    let mut ticker = interval_at(started + heartbeat, heartbeat);
    loop {
        tokio::select! {
            _ = dropped.cancelled() => {
                tracing::warn!("the hub stopped reading this peer's frames; leaving it");
                break;
            }
            frame = next_frame(&mut stream) => match frame {
                None => break,
                Some(Ok(Frame::Pong { nonce })) => beat.pong(nonce),
                Some(Ok(Frame::Reject { reason, .. })) => {
                    tracing::warn!(reason, "the hub ended this peer's session");
                    break;
                }
                Some(Ok(frame)) => link.handle(frame),
                Some(Err(err)) => {
                    tracing::warn!(err, "bad frame from the hub");
                    let _ = link.tx.send(Frame::Error { message: err });
                }
            },
            _ = ticker.tick() => match beat.tick(Instant::now().into_std()) {
                Beat::Dead => {
                    tracing::warn!("the hub did not answer pings for two heartbeats; leaving it");
                    break;
                }
                Beat::Ping(nonce) => {
                    let _ = link.tx.send(Frame::Ping { nonce });
                }
            },
        }
        if writer.is_finished() {
            break;
        }
    }
    link.close();
    writer.abort();
}

/// Cancels the call if its future is dropped before it finished.
struct CancelGuard<'a> {
    link: &'a PeerLink,
    id: &'a str,
    armed: bool,
}

impl Drop for CancelGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.link.cancel(self.id);
        }
    }
}
