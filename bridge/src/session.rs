//! One WebSocket session on the hub: the Hello handshake, then the read and write loops of a tab.
//! Bad frames get an `Error` frame back and the session goes on; only the socket's end stops it.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use nexus_shared::limits::{HEARTBEAT_INTERVAL_MS, HELLO_TIMEOUT_MS, PROTOCOL_VERSION};
use nexus_shared::{Frame, RejectCode, Role};
use tokio::sync::mpsc;
use tokio::time::{Instant, interval, timeout};

use crate::hub::Hub;

/// Runs a socket from upgrade to close. `origin_allowed` is the result of the Origin check.
pub async fn run(socket: WebSocket, hub: Arc<Hub>, origin_allowed: bool) {
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
            let _ = send(
                &mut sink,
                &reject(RejectCode::BadHello, "no Hello within 5 s"),
            )
            .await;
            return;
        }
    };
    let refusal = match hello {
        Ok(Frame::Hello { protocol, .. }) if protocol != PROTOCOL_VERSION => Some(reject(
            RejectCode::Protocol,
            &format!("protocol {protocol} is not supported; this hub speaks {PROTOCOL_VERSION}"),
        )),
        Ok(Frame::Hello {
            role: Role::Browser,
            ..
        }) if !origin_allowed => Some(reject(
            RejectCode::Origin,
            "this page's origin may not connect to the Nexus hub",
        )),
        Ok(Frame::Hello {
            role: Role::Browser,
            ..
        }) => None,
        Ok(Frame::Hello {
            role: Role::Peer, ..
        }) => Some(reject(
            RejectCode::BadHello,
            "this hub does not accept peer bridges yet",
        )),
        Ok(other) => Some(reject(
            RejectCode::BadHello,
            &format!("expected a hello frame first, got {}", other.kind()),
        )),
        Err(err) => Some(reject(RejectCode::BadHello, &err.to_string())),
    };
    if let Some(frame) = refusal {
        tracing::info!(?frame, "socket refused");
        let _ = send(&mut sink, &frame).await;
        let _ = sink.close().await;
        return;
    }

    let (tx, mut rx) = mpsc::unbounded_channel::<Frame>();
    let tab = hub.attach_tab(tx.clone());
    tracing::info!(tab, "browser tab connected");
    let welcome = Frame::Welcome {
        session: format!("tab-{tab}"),
        hub_version: env!("CARGO_PKG_VERSION").into(),
    };
    if send(&mut sink, &welcome).await.is_err() {
        hub.detach_tab(tab);
        return;
    }

    let writer = tokio::spawn(async move {
        while let Some(frame) = rx.recv().await {
            let last = matches!(frame, Frame::Reject { .. });
            if send(&mut sink, &frame).await.is_err() || last {
                break;
            }
        }
        let _ = sink.close().await;
    });

    let heartbeat = Duration::from_millis(HEARTBEAT_INTERVAL_MS);
    let mut ticker = interval(heartbeat);
    let mut last_heard = Instant::now();
    let mut nonce = 0u64;
    loop {
        tokio::select! {
            message = stream.next() => {
                let Some(Ok(message)) = message else { break };
                last_heard = Instant::now();
                match message {
                    Message::Text(text) => handle_frame(&hub, tab, &tx, text.as_str()),
                    Message::Binary(_) => {
                        let _ = tx.send(error("binary frames are not supported; send JSON text"));
                    }
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => {}
                }
            }
            _ = ticker.tick() => {
                if last_heard.elapsed() > heartbeat * 2 {
                    tracing::warn!(tab, "tab silent for two heartbeats; closing");
                    break;
                }
                nonce += 1;
                if tx.send(Frame::Ping { nonce }).is_err() {
                    break;
                }
            }
        }
        if writer.is_finished() {
            break;
        }
    }
    hub.detach_tab(tab);
    writer.abort();
    tracing::info!(tab, "browser tab disconnected");
}

fn handle_frame(hub: &Hub, tab: u64, tx: &mpsc::UnboundedSender<Frame>, text: &str) {
    match Frame::decode(text) {
        Ok(Frame::Result { id, outcome }) => hub.deliver(tab, &id, outcome),
        Ok(Frame::Context { project, stats, .. }) => {
            tracing::info!(
                tab,
                ?project,
                files = stats.files,
                nodes = stats.nodes,
                "tab context"
            );
        }
        Ok(Frame::Ping { nonce }) => {
            let _ = tx.send(Frame::Pong { nonce });
        }
        Ok(Frame::Pong { .. }) | Ok(Frame::Progress { .. }) => {}
        Ok(Frame::Error { message }) => tracing::warn!(tab, message, "tab reported an error"),
        Ok(other) => {
            let _ = tx.send(error(&format!(
                "a tab may not send {} frames",
                other.kind()
            )));
        }
        Err(err) => {
            tracing::warn!(tab, %err, "bad frame from tab");
            let _ = tx.send(error(&err.to_string()));
        }
    }
}

async fn next_text(stream: &mut futures_util::stream::SplitStream<WebSocket>) -> Option<String> {
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

async fn send(
    sink: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    frame: &Frame,
) -> Result<(), axum::Error> {
    sink.send(Message::Text(frame.encode().into())).await
}

fn reject(code: RejectCode, reason: &str) -> Frame {
    Frame::Reject {
        code,
        reason: reason.into(),
    }
}

fn error(message: &str) -> Frame {
    Frame::Error {
        message: message.into(),
    }
}
