//! One `/chat` socket (§2.1): the mutual proof of the browser secret first (`hello`, `challenge`,
//! `prove`), then messages under a rate limit, one turn at a time per session; closing stops the turn.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, close_code};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use nexus_shared::chat::{ChatClientMessage, ChatServerMessage, ConnectionState};
use nexus_shared::limits::{HELLO_TIMEOUT_MS, MAX_HANDSHAKE_BYTES};
use nexus_shared::proof::{HubProof, Purpose};
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tokio::task::JoinHandle;
use tokio::time::{Instant, interval_at, timeout, timeout_at};
use tokio_util::sync::CancellationToken;

use super::{Chat, describe, new_id, orchestrator};
use crate::chat::ChatSender;
use crate::heartbeat::{Beat, Heartbeat};
use crate::host::Host;
use crate::hub::Hub;
use crate::ratelimit::RateLimiter;
use crate::session::SessionConfig;
use crate::token;

/// Messages one chat socket may send per second (a burst of as many, then that rate).
pub const CHAT_MESSAGES_PER_SECOND: u32 = 10;
/// Longest user message, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024;
/// Sessions listed at most.
const LISTED_SESSIONS: usize = 100;

type Sink = SplitSink<WebSocket, Message>;
type Stream = SplitStream<WebSocket>;

/// What the writer sends besides chat messages.
enum Control {
    Ping(u64),
}

struct Running {
    cancel: CancellationToken,
    task: JoinHandle<()>,
}

/// Runs a chat socket from upgrade to close. `origin_allowed` is the upgrade's Origin check,
/// `port` the one the page dialled (its proof names it);
/// `unproven` is the socket's place among those that have not proved the secret yet.
pub async fn run(
    socket: WebSocket,
    chat: Arc<Chat>,
    hub: Arc<Hub>,
    origin_allowed: bool,
    port: u16,
    sessions: Arc<SessionConfig>,
    unproven: OwnedSemaphorePermit,
) {
    let (mut sink, mut stream) = socket.split();
    let Some(wanted) = handshake(&mut sink, &mut stream, origin_allowed, port, &sessions).await
    else {
        return;
    };
    drop(unproven);
    let heartbeat = sessions.heartbeat;

    let (tx, rx) = crate::outbox::channel::<ChatServerMessage>();
    let dropped = tx.dropped();
    let (control, control_rx) = mpsc::unbounded_channel::<Control>();
    let mut session = open_first(&chat, wanted, &tx);
    // The configuration file changed (a provider set, or taken away): the page hears at once.
    let mut live = chat.watch_live();
    live.borrow_and_update();
    let _ = tx.send(chat.provider_message());
    let writer = tokio::spawn(write_loop(sink, rx, control_rx));
    tracing::info!(session, "chat socket welcomed");

    let started = Instant::now();
    let mut beat = Heartbeat::new(heartbeat, started.into_std());
    let mut ticker = interval_at(started + heartbeat, heartbeat);
    let mut limiter = RateLimiter::new(CHAT_MESSAGES_PER_SECOND, started.into_std());
    let mut running: Option<Running> = None;
    loop {
        tokio::select! {
            Ok(()) = live.changed() => {
                live.borrow_and_update();
                let _ = tx.send(chat.provider_message());
            }
            message = stream.next() => {
                let text = match message {
                    Some(Ok(Message::Text(text))) => text.as_str().to_owned(),
                    Some(Ok(Message::Pong(payload))) => {
                        if let Ok(bytes) = <[u8; 8]>::try_from(payload.as_ref()) {
                            beat.pong(u64::from_be_bytes(bytes));
                        }
                        continue;
                    }
                    Some(Ok(Message::Ping(_))) => continue,
                    Some(Ok(Message::Binary(_))) => {
                        let _ = tx.send(error("binary messages are not supported; send JSON text"));
                        continue;
                    }
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                };
                if !limiter.try_take(Instant::now().into_std()) {
                    let _ = tx.send(error(&format!(
                        "too many messages: at most {CHAT_MESSAGES_PER_SECOND} per second; this one was dropped"
                    )));
                    continue;
                }
                if running.as_ref().is_some_and(|r| r.task.is_finished()) {
                    running = None;
                }
                match ChatClientMessage::decode(&text) {
                    Ok(message) => handle(&chat, &hub, &tx, &mut session, &mut running, message),
                    Err(err) => { let _ = tx.send(error(&err.to_string())); }
                }
            }
            _ = dropped.cancelled() => break,
            _ = ticker.tick() => match beat.tick(Instant::now().into_std()) {
                Beat::Dead => {
                    tracing::info!(session, "chat socket answered no pings for two heartbeats; closing");
                    break;
                }
                Beat::Ping(nonce) => {
                    if control.send(Control::Ping(nonce)).is_err() {
                        break;
                    }
                }
            }
        }
        if writer.is_finished() {
            break;
        }
    }
    // The client went away: its turn stops (history stays stored).
    if let Some(running) = running {
        running.cancel.cancel();
    }
    drop(tx);
    drop(control);
    if timeout(Duration::from_millis(500), writer).await.is_err() {
        tracing::debug!(session, "chat writer did not finish; socket dropped");
    }
    tracing::info!(session, "chat socket closed");
}

/// `hello` with the page's nonce, the hub's `challenge` (its proof), the page's `prove`, all
/// within `HELLO_TIMEOUT_MS` and `MAX_HANDSHAKE_BYTES` each: the session the page asks to resume
/// once it proved the browser secret, else `None` after an `error` and a close.
async fn handshake(
    sink: &mut Sink,
    stream: &mut Stream,
    origin_allowed: bool,
    port: u16,
    sessions: &SessionConfig,
) -> Option<Option<String>> {
    let deadline = Instant::now() + Duration::from_millis(HELLO_TIMEOUT_MS);
    let nonce = match handshake_message(sink, stream, deadline).await? {
        ChatClientMessage::Hello { nonce } => nonce,
        _ => {
            refuse(sink, "the first message must be hello").await;
            return None;
        }
    };
    if !origin_allowed {
        refuse(sink, "this page's origin may not use the Nexus chat").await;
        return None;
    }
    let key = &sessions.browser_secret.0;
    let answer = token::random_bytes().and_then(|random| {
        HubProof::new(key, Purpose::Chat, port, &nonce, random).map_err(|err| err.to_string())
    });
    let (proof, hub_proof) = match answer {
        Ok(answer) => answer,
        Err(err) => {
            refuse(sink, &err).await;
            return None;
        }
    };
    let challenge = ChatServerMessage::Challenge {
        nonce: proof.nonce().to_owned(),
        proof: hub_proof,
    };
    sink.send(Message::Text(challenge.encode().into()))
        .await
        .ok()?;
    match handshake_message(sink, stream, deadline).await? {
        ChatClientMessage::Prove {
            proof: client_proof,
            session_id,
        } if proof.check(key, &client_proof).is_ok() => Some(session_id),
        ChatClientMessage::Prove { .. } => {
            let reason = format!(
                "wrong secret: open the link `{}` prints",
                crate::secret::link_command(sessions.port)
            );
            refuse(sink, &reason).await;
            None
        }
        _ => {
            refuse(sink, "the second message must be prove").await;
            None
        }
    }
}

/// The next handshake message before `deadline`, at most `MAX_HANDSHAKE_BYTES`; `None` after a
/// refusal or when the socket closed.
async fn handshake_message(
    sink: &mut Sink,
    stream: &mut Stream,
    deadline: Instant,
) -> Option<ChatClientMessage> {
    let text = match timeout_at(deadline, next_text(stream)).await {
        Ok(Some(text)) => text,
        Ok(None) => return None,
        Err(_) => {
            refuse(sink, "no handshake within 5 s").await;
            return None;
        }
    };
    if text.len() > MAX_HANDSHAKE_BYTES {
        let reason = format!(
            "a handshake message of {} bytes is over the {MAX_HANDSHAKE_BYTES}-byte limit",
            text.len()
        );
        refuse(sink, &reason).await;
        return None;
    }
    match ChatClientMessage::decode(&text) {
        Ok(message) => Some(message),
        Err(err) => {
            refuse(sink, &err.to_string()).await;
            None
        }
    }
}

/// The socket's first session: the one asked for when it is stored, else a new one.
fn open_first(chat: &Chat, wanted: Option<String>, tx: &ChatSender) -> String {
    match wanted.filter(|id| chat.store.exists(id)) {
        Some(id) => {
            send_resumed(chat, &id, tx);
            id
        }
        None => new_session(chat, tx),
    }
}

fn new_session(chat: &Chat, tx: &ChatSender) -> String {
    let id = new_id();
    if let Err(err) = chat.store.create(&id, crate::host::unix_ms()) {
        tracing::warn!(%err, "cannot store a new chat session");
    }
    let _ = tx.send(ChatServerMessage::Connection {
        state: ConnectionState::Connected,
        message: "new conversation".into(),
        session_id: id.clone(),
    });
    id
}

fn send_resumed(chat: &Chat, id: &str, tx: &ChatSender) {
    let _ = tx.send(ChatServerMessage::Connection {
        state: ConnectionState::Reconnected,
        message: "conversation resumed".into(),
        session_id: id.to_owned(),
    });
    let _ = tx.send(ChatServerMessage::History {
        session_id: id.to_owned(),
        messages: chat.store.messages(id).unwrap_or_default(),
    });
}

fn handle(
    chat: &Arc<Chat>,
    hub: &Arc<Hub>,
    tx: &ChatSender,
    session: &mut String,
    running: &mut Option<Running>,
    message: ChatClientMessage,
) {
    // The session's own flag, not the task: the flag is cleared before `turn_end` is sent, the
    // task only finishes after it.
    let busy_here = chat.is_busy(session);
    match message {
        ChatClientMessage::Hello { .. } | ChatClientMessage::Prove { .. } => {
            let _ = tx.send(error("this socket already proved the secret"));
        }
        ChatClientMessage::Message { text, project } => {
            if text.trim().is_empty() {
                let _ = tx.send(error("the message is empty"));
            } else if text.len() > MAX_MESSAGE_BYTES {
                let _ = tx.send(error(&format!(
                    "the message is longer than {MAX_MESSAGE_BYTES} bytes"
                )));
            } else if !chat.begin(session) {
                let _ = tx.send(error(
                    "a turn is already running in this conversation: wait for it or press Stop",
                ));
            } else {
                if let Some(project) = project.filter(|p| !p.trim().is_empty())
                    && let Err(err) = chat.store.set_project(session, &project)
                {
                    tracing::warn!(%err, "cannot file the conversation under its project");
                }
                *running = Some(start_turn(chat, hub, tx, session.clone(), text));
            }
        }
        ChatClientMessage::Stop {} => {
            if let Some(run) = running.as_ref() {
                run.cancel.cancel();
            }
        }
        ChatClientMessage::NewSession {} => {
            if busy_here {
                let _ = tx.send(error(
                    "stop the running turn before starting a new conversation",
                ));
            } else {
                *session = new_session(chat, tx);
            }
        }
        ChatClientMessage::OpenSession { session_id } => {
            if busy_here {
                let _ = tx.send(error(
                    "stop the running turn before switching conversations",
                ));
            } else if chat.store.exists(&session_id) {
                send_resumed(chat, &session_id, tx);
                *session = session_id;
            } else {
                let _ = tx.send(error(&format!("no stored conversation {session_id}")));
            }
        }
        ChatClientMessage::Describe { node, facts } => describe::start(chat, tx, node, facts),
        ChatClientMessage::Confirmation { id, answer } => {
            if let Err(message) = chat.confirmations.answer(session, &id, answer) {
                let _ = tx.send(error(&message));
            }
        }
        ChatClientMessage::ListSessions { project } => {
            let _ = tx.send(
                match chat.store.sessions(LISTED_SESSIONS, project.as_deref()) {
                    Ok(sessions) => ChatServerMessage::Sessions { sessions },
                    Err(err) => error(&format!("cannot list conversations: {err}")),
                },
            );
        }
    }
}

fn start_turn(
    chat: &Arc<Chat>,
    hub: &Arc<Hub>,
    tx: &ChatSender,
    session: String,
    text: String,
) -> Running {
    let cancel = CancellationToken::new();
    let task = {
        let chat = chat.clone();
        let host = hub
            .hosted()
            .and_then(|hosted| hosted.into_any().downcast::<Host>().ok());
        let tx = tx.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move {
            let started = std::time::Instant::now();
            let (outcome, usage) =
                orchestrator::run_turn(&chat, host, &session, text, &tx, cancel).await;
            chat.end(&session);
            let _ = tx.send(ChatServerMessage::TurnEnd {
                outcome,
                usage,
                session_usage: chat.store.usage(&session),
            });
            tracing::info!(
                session,
                ?outcome,
                ms = started.elapsed().as_millis() as u64,
                "chat turn ended"
            );
        })
    };
    Running { cancel, task }
}

async fn write_loop(
    mut sink: Sink,
    mut rx: mpsc::Receiver<ChatServerMessage>,
    mut control: mpsc::UnboundedReceiver<Control>,
) {
    loop {
        let message = tokio::select! {
            message = rx.recv() => match message {
                Some(message) => Message::Text(message.encode().into()),
                None => break,
            },
            ping = control.recv() => match ping {
                Some(Control::Ping(nonce)) => Message::Ping(nonce.to_be_bytes().to_vec().into()),
                None => break,
            },
        };
        if sink.send(message).await.is_err() {
            break;
        }
    }
    let _ = sink.close().await;
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

/// Says why, then closes with a policy-violation close frame.
async fn refuse(sink: &mut Sink, reason: &str) {
    tracing::info!(reason, "chat socket refused");
    let _ = sink
        .send(Message::Text(error(reason).encode().into()))
        .await;
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code: close_code::POLICY,
            reason: "rejected".into(),
        })))
        .await;
    let _ = sink.close().await;
}

fn error(message: &str) -> ChatServerMessage {
    ChatServerMessage::Error {
        message: message.into(),
    }
}
