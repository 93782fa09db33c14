//! A program that takes the hub's port once the hub is gone and speaks its protocol without
//! knowing any secret, for `e2e/squat.rs`. It answers every Hello with a made-up proof and a
//! `Call`, every chat hello with a made-up proof, plain HTTP with 404, and logs all it receives.
//!
//! Usage: `squat-hub PORT LOG_FILE`; each received request or message is one line of the log.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use nexus_e2e::proof::fresh_nonce;
use nexus_shared::Frame;
use nexus_shared::chat::{ChatClientMessage, ChatServerMessage};
use nexus_shared::proof::hex;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;

type Log = Arc<Mutex<std::fs::File>>;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let Some(path) = args.next() else {
        eprintln!("usage: squat-hub PORT LOG_FILE");
        std::process::exit(2);
    };
    let file = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        Ok(file) => file,
        Err(err) => {
            eprintln!("squat-hub: cannot open {path}: {err}");
            std::process::exit(2);
        }
    };
    let log: Log = Arc::new(Mutex::new(file));
    // The hub may still be releasing the port.
    let mut listener = None;
    for _ in 0..200 {
        match TcpListener::bind(("127.0.0.1", port)).await {
            Ok(bound) => {
                listener = Some(bound);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    let Some(listener) = listener else {
        eprintln!("squat-hub: cannot bind 127.0.0.1:{port}");
        std::process::exit(1);
    };
    eprintln!("squat-hub: holding port {port}");
    while let Ok((stream, _)) = listener.accept().await {
        tokio::spawn(serve(stream, log.clone()));
    }
}

fn record(log: &Log, what: &str, text: &str) {
    let line = serde_json::json!({ "what": what, "text": text }).to_string();
    if let Ok(mut file) = log.lock() {
        let _ = writeln!(file, "{line}");
        let _ = file.flush();
    }
}

async fn serve(mut stream: TcpStream, log: Log) {
    let mut head = vec![0u8; 16 * 1024];
    let seen = stream.peek(&mut head).await.unwrap_or(0);
    if seen == 0 {
        // Connected and closed without a word (a check that the port is open).
        return;
    }
    let request = String::from_utf8_lossy(&head[..seen]).into_owned();
    record(&log, "request", &request);
    if !request.to_ascii_lowercase().contains("upgrade: websocket") {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await;
        return;
    }
    let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
        return;
    };
    let chat = request.starts_with("GET /chat");
    while let Some(Ok(message)) = ws.next().await {
        let Message::Text(text) = message else {
            continue;
        };
        record(&log, if chat { "chat" } else { "ws" }, text.as_str());
        let replies = if chat {
            chat_replies(text.as_str())
        } else {
            hub_replies(text.as_str())
        };
        for reply in replies {
            if ws.send(Message::Text(reply.into())).await.is_err() {
                return;
            }
        }
    }
}

/// A Hello gets a made-up proof and a `Call` (would the client answer before any Welcome?).
fn hub_replies(text: &str) -> Vec<String> {
    let Ok(Frame::Hello { .. }) = Frame::decode(text) else {
        return Vec::new();
    };
    let challenge = Frame::Challenge {
        nonce: hex(&fresh_nonce()),
        proof: hex(&fresh_nonce()),
    };
    let call = Frame::Call {
        id: "squat-1".into(),
        tool: "read".into(),
        args: serde_json::json!({ "path": "README.md" }),
        deadline_ms: 5_000,
        session: None,
    };
    vec![challenge.encode(), call.encode()]
}

/// A chat hello gets a made-up proof.
fn chat_replies(text: &str) -> Vec<String> {
    let Ok(ChatClientMessage::Hello { .. }) = ChatClientMessage::decode(text) else {
        return Vec::new();
    };
    let challenge = ChatServerMessage::Challenge {
        nonce: hex(&fresh_nonce()),
        proof: hex(&fresh_nonce()),
    };
    vec![challenge.encode()]
}
