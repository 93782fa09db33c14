//! The test clients' side of the mutual proof (`nexus_shared::proof`): a Hello with a fresh
//! nonce, and the `Prove` frame once the hub's `Challenge` proved the key.

use nexus_shared::limits::PROTOCOL_VERSION;
use nexus_shared::proof::{ClientProof, NONCE_BYTES, Purpose};
use nexus_shared::{Frame, Role};

/// Bytes that differ per call and run: a test client's nonce (the proof needs it fresh only).
pub fn fresh_nonce() -> [u8; NONCE_BYTES] {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut state = nanos
        ^ (u128::from(COUNTER.fetch_add(1, Ordering::Relaxed)) << 64)
        ^ u128::from(std::process::id());
    std::array::from_fn(|_| {
        state = state
            .wrapping_mul(0x5851_f42d_4c95_7f2d_1405_7b7e_f767_814f)
            .wrapping_add(0x1442_6950_4089_3fe1);
        (state >> 100) as u8
    })
}

/// What a proof for `role` opens on `/ws`.
pub fn purpose(role: Role) -> Purpose {
    match role {
        Role::Browser => Purpose::Tab,
        Role::Peer => Purpose::Peer,
        Role::Monitor => Purpose::Monitor,
    }
}

/// A Hello as `role` to the hub on `port`, and the proof state that answers its Challenge.
pub fn hello(role: Role, port: u16, agent: &str) -> (Frame, ClientProof) {
    let proof = ClientProof::new(purpose(role), port, fresh_nonce());
    let hello = Frame::Hello {
        role,
        protocol: PROTOCOL_VERSION,
        agent: agent.to_owned(),
        nonce: proof.nonce().to_owned(),
    };
    (hello, proof)
}

/// The `Prove` frame for the hub's `Challenge`, or why the hub's proof did not hold with `key`.
pub fn prove(proof: &ClientProof, challenge: &Frame, key: &str) -> Result<Frame, String> {
    let Frame::Challenge { nonce, proof: hub } = challenge else {
        return Err(format!("expected a challenge, got {challenge:?}"));
    };
    proof
        .answer(&[key], nonce, hub)
        .map(|(_, proof)| Frame::Prove { proof })
        .map_err(|err| err.to_string())
}

/// A client's socket in the tests.
pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// `/chat`'s handshake as the page does it: `hello` with a fresh nonce, the hub's `challenge`
/// checked with `key`, then `prove` asking for `session_id`. `Err` names what the hub sent
/// instead, or that its proof did not hold (then nothing was proved to it).
pub async fn chat_handshake(
    ws: &mut Ws,
    port: u16,
    key: &str,
    session_id: Option<String>,
) -> Result<(), String> {
    use futures_util::{SinkExt, StreamExt};
    use nexus_shared::chat::{ChatClientMessage, ChatServerMessage};
    use tokio_tungstenite::tungstenite::Message;
    let proof = ClientProof::new(Purpose::Chat, port, fresh_nonce());
    let hello = ChatClientMessage::Hello {
        nonce: proof.nonce().to_owned(),
    };
    ws.send(Message::Text(hello.encode().into()))
        .await
        .map_err(|err| err.to_string())?;
    let challenge = loop {
        match ws.next().await {
            Some(Ok(Message::Text(text))) => break ChatServerMessage::decode(text.as_str()),
            Some(Ok(_)) => continue,
            other => return Err(format!("the socket ended: {other:?}")),
        }
    };
    let Ok(ChatServerMessage::Challenge { nonce, proof: hub }) = challenge else {
        return Err(format!("expected a challenge, got {challenge:?}"));
    };
    let (_, answer) = proof
        .answer(&[key], &nonce, &hub)
        .map_err(|err| err.to_string())?;
    let prove = ChatClientMessage::Prove {
        proof: answer,
        session_id,
    };
    ws.send(Message::Text(prove.encode().into()))
        .await
        .map_err(|err| err.to_string())
}

/// This hub run's api token for `/api/*`, as the page gets it: a tab's handshake with the
/// browser secret (the socket closes after; it briefly was the active tab).
pub async fn api_token(port: u16) -> String {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = format!("ws://127.0.0.1:{port}/ws")
        .into_client_request()
        .expect("request");
    let origin = format!("http://127.0.0.1:{port}").parse().expect("origin");
    request.headers_mut().insert("Origin", origin);
    let (mut ws, _) = tokio_tungstenite::connect_async(request)
        .await
        .expect("open /ws");
    let (hello, proof) = self::hello(Role::Browser, port, "api-token");
    let secret = crate::browser_secret();
    let mut replied = None;
    ws.send(Message::Text(hello.encode().into()))
        .await
        .expect("hello");
    while let Some(Ok(message)) = ws.next().await {
        let Message::Text(text) = message else {
            continue;
        };
        match Frame::decode(text.as_str()).expect("a frame") {
            challenge @ Frame::Challenge { .. } => {
                let prove = prove(&proof, &challenge, &secret).expect("the hub proves the secret");
                ws.send(Message::Text(prove.encode().into()))
                    .await
                    .expect("prove");
            }
            Frame::Welcome { api_token, .. } => {
                replied = api_token;
                break;
            }
            other => panic!("expected the handshake, got {other:?}"),
        }
    }
    let _ = ws.close(None).await;
    replied.expect("a tab's Welcome carries the api token").0
}
