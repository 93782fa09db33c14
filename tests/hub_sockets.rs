//! The hub against raw WebSocket clients speaking the browser's protocol: bad input, origins,
//! two tabs, and many concurrent calls answered out of order, each reaching its own caller.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use nexus_e2e::{McpBridge, ServeProcess, free_port, text_of};
use nexus_shared::limits::{MAX_FRAME_BYTES, PROTOCOL_VERSION};
use nexus_shared::{Frame, Outcome, RejectCode, Role, ToolOutput};
use serde_json::json;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

async fn open(port: u16, origin: Option<&str>) -> Socket {
    let mut request = format!("ws://127.0.0.1:{port}/ws")
        .into_client_request()
        .expect("request");
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("Origin", origin.parse().expect("origin header"));
    }
    connect_async(request).await.expect("connect").0
}

async fn send(socket: &mut Socket, frame: &Frame) {
    socket
        .send(Message::Text(frame.encode().into()))
        .await
        .expect("send");
}

/// The next frame, skipping heartbeats; `None` when the socket closed.
async fn next_frame(socket: &mut Socket) -> Option<Frame> {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("no frame within 10 s")?;
        match message {
            Ok(Message::Text(text)) => {
                match Frame::decode(text.as_str()).expect("hub sent a bad frame") {
                    Frame::Ping { .. } | Frame::Activity { .. } => continue,
                    frame => return Some(frame),
                }
            }
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => continue,
        }
    }
}

fn hello(role: Role) -> Frame {
    Frame::Hello {
        role,
        protocol: PROTOCOL_VERSION,
        token: None,
        agent: "test".into(),
    }
}

/// A raw tab with the UI's own origin, welcomed by the hub.
async fn tab(port: u16) -> Socket {
    let mut socket = open(port, Some(&format!("http://127.0.0.1:{port}"))).await;
    send(&mut socket, &hello(Role::Browser)).await;
    assert!(matches!(
        next_frame(&mut socket).await,
        Some(Frame::Welcome { .. })
    ));
    socket
}

#[tokio::test]
async fn garbage_gets_error_frames_and_the_hub_keeps_serving() {
    let mut hub = ServeProcess::start(free_port()).await;
    let port = hub.port;

    // Garbage instead of Hello: a clear reject, then close.
    let mut socket = open(port, Some(&format!("http://127.0.0.1:{port}"))).await;
    socket
        .send(Message::Text("{{{ not json".into()))
        .await
        .unwrap();
    assert!(matches!(
        next_frame(&mut socket).await,
        Some(Frame::Reject {
            code: RejectCode::BadHello,
            ..
        })
    ));

    // Garbage after a good Hello: an error frame per bad message, and the session lives on.
    let mut socket = tab(port).await;
    for bad in [
        "nope",
        r#"{"type":"teleport"}"#,
        r#"{"type":"result","id":1}"#,
        "[]",
    ] {
        socket.send(Message::Text(bad.into())).await.unwrap();
        let Some(Frame::Error { message }) = next_frame(&mut socket).await else {
            panic!("expected an error frame for {bad}")
        };
        assert!(!message.is_empty());
    }
    socket
        .send(Message::Binary(vec![0, 159, 146, 150].into()))
        .await
        .unwrap();
    assert!(matches!(
        next_frame(&mut socket).await,
        Some(Frame::Error { .. })
    ));
    send(&mut socket, &Frame::Ping { nonce: 41 }).await;
    assert_eq!(
        next_frame(&mut socket).await,
        Some(Frame::Pong { nonce: 41 })
    );

    // An oversized frame ends that socket only.
    let huge = format!(
        r#"{{"type":"error","message":"{}"}}"#,
        "x".repeat(MAX_FRAME_BYTES + 4096)
    );
    let _ = socket.send(Message::Text(huge.into())).await;
    assert_eq!(next_frame(&mut socket).await, None);
    assert!(hub.alive());
    let _ = tab(port).await;
}

#[tokio::test]
async fn foreign_origins_and_wrong_protocols_are_rejected() {
    let mut hub = ServeProcess::start(free_port()).await;
    let port = hub.port;
    for origin in [Some("http://evil.example"), None] {
        let mut socket = open(port, origin).await;
        send(&mut socket, &hello(Role::Browser)).await;
        assert!(
            matches!(
                next_frame(&mut socket).await,
                Some(Frame::Reject {
                    code: RejectCode::Origin,
                    ..
                })
            ),
            "origin {origin:?}"
        );
    }
    let mut socket = open(port, Some(&format!("http://localhost:{port}"))).await;
    send(
        &mut socket,
        &Frame::Hello {
            role: Role::Browser,
            protocol: PROTOCOL_VERSION + 1,
            token: None,
            agent: "future".into(),
        },
    )
    .await;
    assert!(matches!(
        next_frame(&mut socket).await,
        Some(Frame::Reject {
            code: RejectCode::Protocol,
            ..
        })
    ));
    assert!(hub.alive());
}

#[tokio::test]
async fn the_newest_tab_is_active_and_the_older_one_is_told_so() {
    let port = free_port();
    let bridge = McpBridge::start(port).await;
    let mut old = tab(port).await;
    let mut new = tab(port).await;
    let Some(Frame::Reject { code, reason }) = next_frame(&mut old).await else {
        panic!("the old tab was not told")
    };
    assert_eq!(code, RejectCode::Replaced);
    assert!(reason.contains("another Nexus tab"), "{reason}");
    assert_eq!(next_frame(&mut old).await, None);

    // Calls go to the new tab only.
    let call = tokio::spawn(async move {
        let result = bridge.call("context", json!({})).await;
        (bridge, result)
    });
    let Some(Frame::Call { id, tool, .. }) = next_frame(&mut new).await else {
        panic!("the new tab got no call")
    };
    assert_eq!(tool, "context");
    send(
        &mut new,
        &Frame::Result {
            id,
            outcome: Outcome::Ok(ToolOutput {
                text: "from the new tab".into(),
            }),
        },
    )
    .await;
    let (bridge, result) = call.await.unwrap();
    assert_eq!(text_of(&result), "from the new tab");
    bridge.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_answered_out_of_order_reach_their_callers() {
    const CALLS: usize = 200;
    let port = free_port();
    let bridge = std::sync::Arc::new(McpBridge::start(port).await);
    let mut socket = tab(port).await;

    let callers: Vec<_> = (0..CALLS)
        .map(|i| {
            let bridge = bridge.clone();
            tokio::spawn(async move {
                let result = bridge
                    .call("context", json!({"focus": "stats", "format": "json"}))
                    .await;
                (i, result)
            })
        })
        .collect();

    let mut calls = Vec::new();
    while calls.len() < CALLS {
        match next_frame(&mut socket).await {
            Some(Frame::Call { id, args, .. }) => calls.push((id, args)),
            other => panic!("unexpected {other:?}"),
        }
    }
    // Answer in reverse order, echoing each call's own id in its text.
    for (id, _) in calls.iter().rev() {
        send(
            &mut socket,
            &Frame::Result {
                id: id.clone(),
                outcome: Outcome::Ok(ToolOutput {
                    text: format!("answer:{id}"),
                }),
            },
        )
        .await;
    }
    let ids: std::collections::HashSet<&String> = calls.iter().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), CALLS, "call ids are unique");
    let mut answers = std::collections::HashSet::new();
    for caller in callers {
        let (i, result) = caller.await.unwrap();
        let text = text_of(&result);
        assert_ne!(result.is_error, Some(true), "call {i}: {text}");
        let id = text
            .strip_prefix("answer:")
            .expect("answer text")
            .to_owned();
        assert!(ids.contains(&id));
        assert!(answers.insert(id), "two callers got the same answer");
    }
    assert_eq!(answers.len(), CALLS);
}
