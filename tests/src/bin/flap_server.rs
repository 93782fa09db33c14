//! A WebSocket server that keeps going away and coming back, for the browser link's reconnect test.
//! Each cycle: listen, prove `FLAP_SECRET` to one tab (and send it a `Call` before any Welcome, as a
//! squatter would), welcome it if it proves the secret too, keep it `UP_MS`, close, stay down `DOWN_MS`.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use nexus_shared::proof::{HubProof, Purpose};
use nexus_shared::{Frame, Outcome};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

/// The secret the server proves; `web/src/link/wasm_tests.rs` holds the same one.
const FLAP_SECRET: &str = "f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9f1a9";
const UP_MS: u64 = 600;
const DOWN_MS: u64 = 1_500;
/// The server stops by itself after this many cycles.
const CYCLES: u32 = 400;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(54398);
    for cycle in 0..CYCLES {
        let listener = match TcpListener::bind(("127.0.0.1", port)).await {
            Ok(listener) => listener,
            Err(err) => {
                eprintln!("flap-server: cannot bind 127.0.0.1:{port}: {err}");
                std::process::exit(1);
            }
        };
        eprintln!("flap-server: up (cycle {cycle})");
        if let Ok((stream, _)) = listener.accept().await
            && let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await
        {
            serve(&mut ws, port, cycle).await;
            tokio::time::sleep(Duration::from_millis(UP_MS)).await;
            let _ = ws.close(None).await;
        }
        drop(listener);
        eprintln!("flap-server: down");
        tokio::time::sleep(Duration::from_millis(DOWN_MS)).await;
    }
}

type Socket = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

async fn next_frame(ws: &mut Socket) -> Option<Frame> {
    match ws.next().await {
        Some(Ok(Message::Text(text))) => Frame::decode(text.as_str()).ok(),
        _ => None,
    }
}

async fn send(ws: &mut Socket, frame: &Frame) {
    let _ = ws.send(Message::Text(frame.encode().into())).await;
}

/// The handshake, with a `Call` slipped in before Welcome: a tab answers it only after Welcome
/// (never, here: its id is never sent again).
async fn serve(ws: &mut Socket, port: u16, cycle: u32) {
    let Some(Frame::Hello { nonce, .. }) = next_frame(ws).await else {
        return;
    };
    let Ok((proof, hub_proof)) =
        HubProof::new(FLAP_SECRET, Purpose::Tab, port, &nonce, fresh(cycle))
    else {
        return;
    };
    send(
        ws,
        &Frame::Challenge {
            nonce: proof.nonce().to_owned(),
            proof: hub_proof,
        },
    )
    .await;
    send(
        ws,
        &Frame::Call {
            id: format!("before-welcome-{cycle}"),
            tool: "context".into(),
            args: serde_json::json!({}),
            deadline_ms: 1_000,
            session: None,
        },
    )
    .await;
    loop {
        match next_frame(ws).await {
            Some(Frame::Prove { proof: answer }) if proof.check(FLAP_SECRET, &answer).is_ok() => {
                let welcome = Frame::Welcome {
                    session: format!("flap-{cycle}"),
                    hub_version: "flap".into(),
                    api_token: None,
                };
                send(ws, &welcome).await;
                return;
            }
            Some(Frame::Result {
                outcome: Outcome::Err(_) | Outcome::Ok(_),
                id,
            }) => eprintln!("flap-server: the tab answered {id} before its Welcome"),
            _ => return,
        }
    }
}

/// Bytes that differ per cycle and run: a test server's nonce (the proof only needs it fresh).
fn fresh(cycle: u32) -> [u8; 32] {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut state = nanos ^ (u128::from(cycle) << 64) ^ u128::from(std::process::id());
    std::array::from_fn(|_| {
        state = state
            .wrapping_mul(0x5851_f42d_4c95_7f2d_1405_7b7e_f767_814f)
            .wrapping_add(0x1442_6950_4089_3fe1);
        (state >> 100) as u8
    })
}
