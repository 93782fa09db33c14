//! A WebSocket server that keeps going away and coming back, for the browser link's reconnect test.
//! Each cycle: listen, welcome one tab, keep it `UP_MS`, close it and the listener, stay down `DOWN_MS`.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use nexus_shared::Frame;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

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
            if let Some(Ok(Message::Text(text))) = ws.next().await
                && matches!(Frame::decode(text.as_str()), Ok(Frame::Hello { .. }))
            {
                let welcome = Frame::Welcome {
                    session: format!("flap-{cycle}"),
                    hub_version: "flap".into(),
                };
                let _ = ws.send(Message::Text(welcome.encode().into())).await;
            }
            tokio::time::sleep(Duration::from_millis(UP_MS)).await;
            let _ = ws.close(None).await;
        }
        drop(listener);
        eprintln!("flap-server: down");
        tokio::time::sleep(Duration::from_millis(DOWN_MS)).await;
    }
}
