//! The hub against raw WebSocket clients speaking the browser's and the peers' protocol: bad
//! input, origins, the proof of the secret, limits before and after it, the `Host` on every
//! route, heartbeats, two tabs, and calls answered out of order.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use nexus_e2e::{
    McpBridge, ServeProcess, bridge_command, browser_secret, free_port, hub_token, text_of,
};
use nexus_shared::limits::{
    MAX_FRAME_BYTES, MAX_FRAMES_PER_SECOND, MAX_HANDSHAKE_BYTES, MAX_PENDING_CALLS_PER_PEER,
    MAX_UNAUTHENTICATED_SOCKETS, PROTOCOL_VERSION,
};
use nexus_shared::{ErrorCode, Frame, Outcome, RejectCode, Role, ToolOutput};
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

/// Hello as `role` (a fresh nonce, no secret); then, when the hub answers with its Challenge, a
/// Prove made with `key` when the hub's proof holds with it, else a forged one (as a client
/// without the secret would send). Returns the hub's reply to the Hello, or to the Prove.
async fn handshake(socket: &mut Socket, port: u16, role: Role, key: Option<&str>) -> Option<Frame> {
    let (hello, proof) = nexus_e2e::proof::hello(role, port, "test");
    send(socket, &hello).await;
    let challenge = next_frame(socket).await?;
    if !matches!(challenge, Frame::Challenge { .. }) {
        return Some(challenge);
    }
    let prove = key
        .and_then(|key| nexus_e2e::proof::prove(&proof, &challenge, key).ok())
        .unwrap_or(Frame::Prove {
            proof: "00".repeat(32),
        });
    send(socket, &prove).await;
    next_frame(socket).await
}

/// A raw tab with the UI's own origin, welcomed by the hub after both proved the secret.
async fn tab(port: u16) -> Socket {
    let mut socket = open(port, Some(&format!("http://127.0.0.1:{port}"))).await;
    let secret = browser_secret();
    let reply = handshake(&mut socket, port, Role::Browser, Some(&secret)).await;
    assert!(
        matches!(
            reply,
            Some(Frame::Welcome {
                api_token: Some(_),
                ..
            })
        ),
        "{reply:?}"
    );
    socket
}

#[tokio::test]
async fn garbage_gets_error_frames_and_the_hub_keeps_serving() {
    let _area = nexus_e2e::Area::enter(module_path!());
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

    // An oversized frame ends that socket only, with an error frame that says why.
    let huge = format!(
        r#"{{"type":"error","message":"{}"}}"#,
        "x".repeat(MAX_FRAME_BYTES + 4096)
    );
    let _ = socket.send(Message::Text(huge.into())).await;
    let Some(Frame::Error { message }) = next_frame(&mut socket).await else {
        panic!("expected an error frame before the close")
    };
    assert!(message.contains("too long"), "{message}");
    assert_eq!(next_frame(&mut socket).await, None);
    assert!(hub.alive());
    let _ = tab(port).await;
}

#[tokio::test]
async fn foreign_origins_and_wrong_protocols_are_rejected() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let mut hub = ServeProcess::start(free_port()).await;
    let port = hub.port;
    for origin in [Some("http://evil.example"), None] {
        let mut socket = open(port, origin).await;
        send(
            &mut socket,
            &nexus_e2e::proof::hello(Role::Browser, port, "test").0,
        )
        .await;
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
            agent: "future".into(),
            nonce: "ab".repeat(32),
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
    // A protocol-1 Hello (it carried the secret itself) is told the version, not just "bad".
    let mut socket = open(port, Some(&format!("http://localhost:{port}"))).await;
    let old = r#"{"type":"hello","role":"browser","protocol":1,"token":"x","agent":"old"}"#;
    socket.send(Message::Text(old.into())).await.unwrap();
    let Some(Frame::Reject { code, reason }) = next_frame(&mut socket).await else {
        panic!("a protocol-1 hello was not refused")
    };
    assert_eq!(code, RejectCode::Protocol);
    assert!(reason.contains("protocol 1"), "{reason}");
    assert!(hub.alive());
}

#[tokio::test]
async fn a_forged_origin_without_the_secret_is_not_a_tab() {
    let mut hub = ServeProcess::start(free_port()).await;
    let port = hub.port;
    let own = format!("http://127.0.0.1:{port}");
    // Any local program can send the hub's own Origin; without the secret it is refused.
    let hub_token = hub_token(port);
    for key in [None, Some("0".repeat(64)), Some(hub_token)] {
        let mut socket = open(port, Some(&own)).await;
        let reply = handshake(&mut socket, port, Role::Browser, key.as_deref()).await;
        let Some(Frame::Reject { code, reason }) = reply else {
            panic!("a tab without the secret ({key:?}) was not refused: {reply:?}")
        };
        assert_eq!(code, RejectCode::Token);
        assert!(reason.contains("nexus-bridge status --link"), "{reason}");
    }
    // A socket a browser marks as opened by another site is refused before any Hello.
    let mut request = format!("ws://127.0.0.1:{port}/ws")
        .into_client_request()
        .expect("request");
    request.headers_mut().insert("Origin", own.parse().unwrap());
    request
        .headers_mut()
        .insert("Sec-Fetch-Site", "cross-site".parse().unwrap());
    assert!(connect_async(request).await.is_err());
    let _ = tab(port).await;
    assert!(hub.alive());
}

#[tokio::test]
async fn the_newest_tab_is_active_and_the_older_one_is_told_so() {
    let _area = nexus_e2e::Area::enter(module_path!());
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
    let _area = nexus_e2e::Area::enter(module_path!());
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

/// A raw peer with the hub's token, welcomed; its first `Status` frame is consumed.
async fn peer(port: u16) -> Socket {
    let mut socket = open(port, None).await;
    let token = hub_token(port);
    assert!(matches!(
        handshake(&mut socket, port, Role::Peer, Some(&token)).await,
        Some(Frame::Welcome {
            api_token: None,
            ..
        })
    ));
    assert!(matches!(
        next_frame(&mut socket).await,
        Some(Frame::Status { .. })
    ));
    socket
}

/// The next frame that is not a `Status` broadcast (other peers come and go).
async fn next_reply(socket: &mut Socket) -> Option<Frame> {
    loop {
        match next_frame(socket).await? {
            Frame::Status { .. } => continue,
            frame => return Some(frame),
        }
    }
}

fn call(id: String) -> Frame {
    Frame::Call {
        id,
        tool: "search".into(),
        args: json!({"query": "x"}),
        deadline_ms: 30_000,
        session: None,
    }
}

#[tokio::test]
async fn peers_need_the_hubs_token_and_no_foreign_origin() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let mut hub = ServeProcess::start(free_port()).await;
    let port = hub.port;
    let token = hub_token(port);
    assert_eq!(token.len(), 64);
    let cases = [
        (None, None, RejectCode::Token),
        (None, Some("0".repeat(64)), RejectCode::Token),
        (None, Some(token[..63].to_owned()), RejectCode::Token),
        (None, Some(String::new()), RejectCode::Token),
        (
            Some("http://evil.example"),
            Some(token.clone()),
            RejectCode::Origin,
        ),
    ];
    for (origin, presented, expected) in cases {
        for role in [Role::Peer, Role::Monitor] {
            let mut socket = open(port, origin).await;
            let reply = handshake(&mut socket, port, role, presented.as_deref()).await;
            let Some(Frame::Reject { code, reason }) = reply else {
                panic!("{role:?} with {presented:?} from {origin:?} was not rejected")
            };
            assert_eq!(code, expected, "{reason}");
            assert!(!reason.contains(&token), "the reason shows the token");
            assert_eq!(next_frame(&mut socket).await, None);
        }
    }
    // The right token is welcomed, and a monitor gets the hub's status.
    let mut socket = open(port, None).await;
    assert!(matches!(
        handshake(&mut socket, port, Role::Monitor, Some(&token)).await,
        Some(Frame::Welcome { .. })
    ));
    assert_eq!(
        next_frame(&mut socket).await,
        Some(Frame::Status {
            browser: false,
            peers: 0,
            project: None,
            stats: None,
            repo: None,
        })
    );
    assert!(hub.alive());
}

#[tokio::test]
async fn a_flood_of_calls_is_rate_limited_and_the_hub_survives() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let mut hub = ServeProcess::start(free_port()).await;
    let port = hub.port;
    let flood = peer(port).await;
    let total = 3 * MAX_FRAMES_PER_SECOND as usize;
    // The flooder reads its answers as it sends, as a peer bridge does: a socket that stops
    // reading is dropped once `MAX_QUEUED_FRAMES` wait for it (`outbox.rs` tests).
    let (mut sink, mut stream) = flood.split();
    let sender = tokio::spawn(async move {
        let started = Instant::now();
        for i in 0..total {
            sink.feed(Message::Text(call(format!("f-{i}")).encode().into()))
                .await
                .unwrap();
        }
        sink.flush().await.unwrap();
        (sink, started.elapsed())
    });
    let (mut no_browser, mut limited) = (0, 0);
    let flood_started = Instant::now();
    while no_browser + limited < total {
        let message = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("an answer within 10 s");
        let Some(Ok(Message::Text(text))) = message else {
            panic!("the flooder's socket ended: {message:?}")
        };
        let err = match Frame::decode(text.as_str()).expect("a frame") {
            Frame::Result {
                outcome: Outcome::Err(err),
                ..
            } => err,
            Frame::Ping { .. } | Frame::Activity { .. } | Frame::Status { .. } => continue,
            other => panic!("expected an error result, got {other:?}"),
        };
        match err.code {
            ErrorCode::NoBrowser => no_browser += 1,
            ErrorCode::RateLimited => {
                assert!(err.message.contains("frames per second"), "{}", err.message);
                limited += 1;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    let answered_in = flood_started.elapsed();
    let (sink, sent_in) = sender.await.unwrap();
    let mut flood = sink.reunite(stream).expect("one socket");
    eprintln!(
        "{total} calls sent in {sent_in:?}, answered in {answered_in:?}: {no_browser} relayed, {limited} rate limited"
    );
    // The burst of one second's worth passes; what came faster than the rate was refused. A hub
    // that read the flood more slowly than the rate (a loaded machine: the frames wait in the
    // socket's buffers) saw no frame over it: 3 seconds' worth read in 2 s or more all pass.
    assert!(no_browser >= MAX_FRAMES_PER_SECOND as usize, "{no_browser}");
    assert!(
        limited > 0 || answered_in >= Duration::from_secs(2),
        "nothing was rate limited though the hub answered {total} calls in {answered_in:?}"
    );
    // Other sockets are not affected, and the flooder recovers after a second.
    let mut other = peer(port).await;
    send(&mut other, &call("o-1".into())).await;
    assert!(matches!(
        next_reply(&mut other).await,
        Some(Frame::Result { outcome: Outcome::Err(e), .. }) if e.code == ErrorCode::NoBrowser
    ));
    tokio::time::sleep(Duration::from_millis(1100)).await;
    send(&mut flood, &call("after".into())).await;
    let after = next_reply(&mut flood).await;
    assert!(
        matches!(
            &after,
            Some(Frame::Result { outcome: Outcome::Err(e), .. }) if e.code == ErrorCode::NoBrowser
        ),
        "{after:?}"
    );
    assert!(hub.alive());
}

#[tokio::test]
async fn pending_calls_per_peer_are_limited() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let mut hub = ServeProcess::start(free_port()).await;
    let port = hub.port;
    // A tab that receives calls and never answers.
    let mut silent_tab = tab(port).await;
    let mut caller = peer(port).await;
    let extra = 5;
    for i in 0..MAX_PENDING_CALLS_PER_PEER + extra {
        send(&mut caller, &call(format!("p-{i}"))).await;
    }
    for i in 0..extra {
        let Some(Frame::Result {
            id,
            outcome: Outcome::Err(err),
        }) = next_reply(&mut caller).await
        else {
            panic!("expected a refusal")
        };
        assert_eq!(id, format!("p-{}", MAX_PENDING_CALLS_PER_PEER + i));
        assert_eq!(err.code, ErrorCode::RateLimited);
        assert!(err.message.contains("in flight"), "{}", err.message);
    }
    let mut relayed = 0;
    while relayed < MAX_PENDING_CALLS_PER_PEER {
        if let Some(Frame::Call { .. }) = next_frame(&mut silent_tab).await {
            relayed += 1;
        }
    }
    // A duplicate id is refused with an error frame, not relayed twice.
    send(&mut caller, &call("p-0".into())).await;
    let Some(Frame::Error { message }) = next_reply(&mut caller).await else {
        panic!("expected an error frame")
    };
    assert!(message.contains("already in flight"), "{message}");
    assert!(hub.alive());
}

/// `nexus-bridge status --port PORT`: (exit success, stdout).
async fn status(port: u16) -> (bool, String) {
    let output = bridge_command()
        .args(["status", "--port", &port.to_string()])
        .output()
        .await
        .expect("run nexus-bridge status");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

async fn browser_connected(port: u16) -> bool {
    let (ok, out) = status(port).await;
    assert!(ok, "status failed: {out}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("status prints JSON");
    report["browser_connected"] == true
}

#[tokio::test]
async fn a_tab_that_stops_reading_is_dropped_by_the_heartbeat() {
    let _area = nexus_e2e::Area::enter(module_path!());
    // Long enough that `nexus-bridge status` (a process started per check) answers before a
    // silent tab misses its pongs, even on a loaded machine (at 200 ms it did not, under load 9).
    const HEARTBEAT_MS: u64 = 1_500;
    let mut hub =
        ServeProcess::start_with(free_port(), &["--heartbeat-ms", &HEARTBEAT_MS.to_string()]).await;
    let port = hub.port;
    // Silent: welcomed, then never reads nor writes again.
    let silent = tab(port).await;
    assert!(browser_connected(port).await);
    let started = Instant::now();
    while browser_connected(port).await {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the silent tab is still connected"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let detected = started.elapsed();
    eprintln!("silent tab dropped after {detected:?}");
    assert!(
        detected >= Duration::from_millis(HEARTBEAT_MS),
        "{detected:?}"
    );
    drop(silent);

    // Chatty: keeps sending frames but never reads, so it never answers a ping.
    let mut chatty = tab(port).await;
    let writer = tokio::spawn(async move {
        for _ in 0..400 {
            let context = Frame::Context {
                project: Some("chatty".into()),
                stats: Default::default(),
                indexed_at: 0,
            };
            if chatty
                .send(Message::Text(context.encode().into()))
                .await
                .is_err()
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(browser_connected(port).await);
    let started = Instant::now();
    while browser_connected(port).await {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the chatty tab that never reads is still connected"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!("chatty tab dropped after {:?}", started.elapsed());
    writer.abort();

    // A tab that answers pings stays.
    let mut good = tab(port).await;
    let keep = tokio::spawn(async move {
        while let Some(Ok(Message::Text(text))) = good.next().await {
            if let Ok(Frame::Ping { nonce }) = Frame::decode(text.as_str()) {
                let pong = Frame::Pong { nonce };
                if good
                    .send(Message::Text(pong.encode().into()))
                    .await
                    .is_err()
                {
                    break;
                }
            }
        }
    });
    tokio::time::sleep(Duration::from_millis(HEARTBEAT_MS * 3)).await;
    assert!(browser_connected(port).await, "a live tab was dropped");
    keep.abort();
    assert!(hub.alive());
}

/// The status line of a raw `GET path` with `host` as its `Host` header.
async fn status_for_host(port: u16, path: &str, host: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer);
    answer.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn before_the_proof_sockets_are_few_and_small_and_every_route_checks_the_host() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let mut hub = ServeProcess::start(free_port()).await;
    let port = hub.port;
    let own = format!("http://127.0.0.1:{port}");

    // A handshake message over the small limit ends the socket at once.
    let mut socket = open(port, Some(&own)).await;
    let big = format!(
        r#"{{"type":"hello","role":"browser","protocol":{PROTOCOL_VERSION},"agent":"{}","nonce":"00"}}"#,
        "a".repeat(MAX_HANDSHAKE_BYTES)
    );
    socket.send(Message::Text(big.into())).await.unwrap();
    let Some(Frame::Reject { code, reason }) = next_frame(&mut socket).await else {
        panic!("an oversized hello was not refused")
    };
    assert_eq!(code, RejectCode::BadHello);
    assert!(reason.contains("4096-byte limit"), "{reason}");

    // Sockets that have not proved the secret take the places; one more is refused before the
    // upgrade, and the places come back once they close.
    let mut silent = Vec::new();
    for _ in 0..MAX_UNAUTHENTICATED_SOCKETS {
        silent.push(open(port, Some(&own)).await);
    }
    let request = format!("ws://127.0.0.1:{port}/chat")
        .into_client_request()
        .unwrap();
    let refused = connect_async(request).await;
    assert!(
        refused.is_err(),
        "socket {} was accepted",
        MAX_UNAUTHENTICATED_SOCKETS + 1
    );
    drop(silent);
    let started = Instant::now();
    let _tab = loop {
        let mut socket = open(port, Some(&own)).await;
        let secret = browser_secret();
        match handshake(&mut socket, port, Role::Browser, Some(&secret)).await {
            Some(Frame::Welcome { .. }) => break socket,
            other if started.elapsed() > Duration::from_secs(8) => {
                panic!("the places did not come back: {other:?}")
            }
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    };

    // Every route, not only /api/*, answers only the hub's own host and port.
    for path in ["/", "/index.html", "/ws", "/chat", "/api/repo"] {
        for host in [
            "evil.example:1",
            &format!("evil.example:{port}"),
            "127.0.0.1:1",
        ] {
            let status = status_for_host(port, path, host).await;
            assert!(status.contains(" 403 "), "{path} for {host}: {status}");
        }
    }
    let status = status_for_host(port, "/", &format!("localhost:{port}")).await;
    assert!(status.contains(" 200 "), "{status}");
    assert!(hub.alive());
}
