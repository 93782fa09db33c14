//! The chat agent end to end: the real bridge's `/chat` socket, `llm-sim` speaking each provider's
//! wire format, an echo tab answering `nexus:*` and a hosted MCP server (`servers/misbehave.py`).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use nexus_e2e::tab::{EchoTab, TabBehaviour};
use nexus_e2e::{Area, TempDir, bridge_command, browser_secret, free_port, wait_port_open};
use nexus_shared::chat::{
    ChatClientMessage, ChatRole, ChatServerMessage, ConnectionState, ToolSeen, ToolState, ToolTier,
    TurnOutcome,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

/// The simulator, killed on drop.
pub(crate) struct Sim {
    _child: Child,
    pub(crate) port: u16,
}

impl Sim {
    pub(crate) async fn start() -> Sim {
        let mut child = Command::new(env!("CARGO_BIN_EXE_llm-sim"))
            .arg("0")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn llm-sim");
        let stdout = child.stdout.take().expect("llm-sim stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .await
            .expect("llm-sim says its port");
        let port = line
            .trim()
            .rsplit(' ')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("a port");
        Sim {
            _child: child,
            port,
        }
    }

    /// The request bodies the simulator received.
    pub(crate) async fn log(&self) -> Vec<Value> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))
            .await
            .expect("connect llm-sim");
        stream
            .write_all(b"GET /log HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            .await
            .expect("ask llm-sim");
        let mut text = String::new();
        stream.read_to_string(&mut text).await.expect("read log");
        let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
        serde_json::from_str::<Value>(body)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    }
}

/// `nexus-bridge serve` with a chat provider pointed at the simulator; killed on drop.
pub(crate) struct ChatBridge {
    child: Child,
    pub(crate) port: u16,
    db: PathBuf,
    dir: TempDir,
}

/// The test server `py`, its tools allowed to run unasked (they carry no annotations, so by
/// default each call would wait for the user's confirmation).
fn misbehave_config() -> Value {
    let script = nexus_e2e::workspace_root().join("tests/servers/misbehave.py");
    json!({"servers": {"py": {"command": "python3", "args": [script.display().to_string()],
        "allow": ["*"]}}})
}

impl ChatBridge {
    async fn start(provider: &str, sim: &Sim, env: &[(&str, &str)]) -> ChatBridge {
        let dir = TempDir::new("chat");
        let db = dir.0.join("chat.sqlite3");
        Self::start_with_db(provider, sim, env, dir, db).await
    }

    async fn start_with_db(
        provider: &str,
        sim: &Sim,
        env: &[(&str, &str)],
        dir: TempDir,
        db: PathBuf,
    ) -> ChatBridge {
        Self::start_with_config(provider, sim, env, dir, db, misbehave_config()).await
    }

    /// A bridge hosting the servers of `mcp_json`.
    pub(crate) async fn start_with_config(
        provider: &str,
        sim: &Sim,
        env: &[(&str, &str)],
        dir: TempDir,
        db: PathBuf,
        mcp_json: Value,
    ) -> ChatBridge {
        let port = free_port();
        let config = dir.0.join("mcp.json");
        std::fs::write(&config, mcp_json.to_string()).expect("write mcp.json");
        let base = match provider {
            "openai" => format!("http://127.0.0.1:{}/v1", sim.port),
            _ => format!("http://127.0.0.1:{}", sim.port),
        };
        let mut command = bridge_command();
        command
            .args(["serve", "--port", &port.to_string(), "--mcp-config"])
            .arg(&config)
            .env("NEXUS_CHAT_DB", &db)
            .env("NEXUS_LLM_MODEL", "sim-model")
            // Generous, so a loaded machine never turns a slow chunk into a retry; the test of
            // a provider that hangs sets its own short deadline.
            .env("NEXUS_LLM_TIMEOUT_MS", "15000")
            .env("NEXUS_LLM_RETRY_MS", "50")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        if provider.is_empty() {
            command
                .env_remove("NEXUS_LLM_PROVIDER")
                .env_remove("NEXUS_LLM_BASE_URL");
        } else {
            command
                .env("NEXUS_LLM_PROVIDER", provider)
                .env("NEXUS_LLM_BASE_URL", base);
        }
        for (key, value) in env {
            command.env(key, value);
        }
        // Under the usual umask, whose 0644 files others could read: the bridge must not rely on it.
        let mut command = nexus_e2e::under_umask(&command, "022");
        command
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let child = command.spawn().expect("spawn nexus-bridge serve");
        wait_port_open(port, Duration::from_secs(10)).await;
        ChatBridge {
            child,
            port,
            db,
            dir,
        }
    }

    /// Waits until the hosted server's tools are in the hub's registry (`nexus-bridge status`).
    pub(crate) async fn wait_hosted(&self) {
        let started = Instant::now();
        loop {
            let output = bridge_command()
                .args(["status", "--port", &self.port.to_string()])
                .stderr(Stdio::null())
                .output()
                .await
                .expect("run nexus-bridge status");
            if String::from_utf8_lossy(&output.stdout).contains("py:echo") {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the hosted server did not come up"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

pub(crate) struct ChatClient {
    ws: Ws,
}

impl ChatClient {
    /// Opens `/chat` with the UI's origin and says hello with the browser secret.
    pub(crate) async fn connect(port: u16, session: Option<String>) -> ChatClient {
        let mut ws = open(port, &format!("http://127.0.0.1:{port}"), None).await;
        nexus_e2e::proof::chat_handshake(&mut ws, port, &browser_secret(), session)
            .await
            .expect("the hub proves the browser secret");
        ChatClient { ws }
    }

    pub(crate) async fn send(&mut self, message: ChatClientMessage) {
        self.ws
            .send(Message::Text(message.encode().into()))
            .await
            .expect("send to /chat");
    }

    /// The next chat message (pings are answered by the client library).
    pub(crate) async fn next(&mut self) -> ChatServerMessage {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(20), self.ws.next())
                .await
                .expect("a chat message within 20 s")
                .expect("the socket is open")
                .expect("a readable message");
            if let Message::Text(text) = message {
                return ChatServerMessage::decode(text.as_str()).expect("a chat message");
            }
        }
    }

    /// `connection` then `provider`: the session id.
    pub(crate) async fn expect_welcome(&mut self) -> String {
        let ChatServerMessage::Connection {
            state, session_id, ..
        } = self.next().await
        else {
            panic!("expected connection first")
        };
        assert_eq!(state, ConnectionState::Connected);
        let provider = self.next().await;
        assert!(
            matches!(&provider, ChatServerMessage::Provider { configured: true, model, .. } if model == "sim-model"),
            "{provider:?}"
        );
        session_id
    }

    /// Sends a message and collects everything up to its `turn_end`.
    pub(crate) async fn turn(&mut self, text: &str) -> Turn {
        self.send(ChatClientMessage::Message {
            text: text.into(),
            project: None,
        })
        .await;
        self.collect().await
    }

    pub(crate) async fn collect(&mut self) -> Turn {
        let mut turn = Turn::default();
        loop {
            match self.next().await {
                ChatServerMessage::TurnEnd {
                    outcome,
                    usage,
                    session_usage,
                } => {
                    turn.outcome = Some(outcome);
                    turn.tokens = usage.total_tokens;
                    turn.session_tokens = session_usage.total_tokens;
                    return turn;
                }
                ChatServerMessage::Text { content } => turn.text.push_str(&content),
                ChatServerMessage::Status(status) => turn.statuses.push(status),
                ChatServerMessage::Error { message } => turn.errors.push(message),
                ChatServerMessage::ToolsCompiled { tools, .. } => turn.seen.push(tools),
                other => panic!("unexpected during a turn: {other:?}"),
            }
        }
    }
}

#[derive(Default, Debug)]
pub(crate) struct Turn {
    pub(crate) text: String,
    /// The tools the model saw (one `tools_compiled` per turn while the compiler is on).
    seen: Vec<Vec<ToolSeen>>,
    pub(crate) statuses: Vec<nexus_shared::chat::ToolStatus>,
    errors: Vec<String>,
    pub(crate) outcome: Option<TurnOutcome>,
    tokens: u64,
    session_tokens: u64,
}

impl Turn {
    /// (state, tool, is_error) of each status.
    pub(crate) fn chips(&self) -> Vec<(ToolState, String, bool)> {
        self.statuses
            .iter()
            .map(|s| (s.state, s.tool.clone().unwrap_or_default(), s.is_error))
            .collect()
    }
}

async fn open(port: u16, origin: &str, site: Option<&str>) -> Ws {
    try_open(port, origin, site).await.expect("open /chat")
}

async fn try_open(
    port: u16,
    origin: &str,
    site: Option<&str>,
) -> Result<Ws, tokio_tungstenite::tungstenite::Error> {
    let mut request = format!("ws://127.0.0.1:{port}/chat")
        .into_client_request()
        .expect("request");
    request
        .headers_mut()
        .insert("Origin", origin.parse().expect("origin header"));
    if let Some(site) = site {
        request
            .headers_mut()
            .insert("Sec-Fetch-Site", site.parse().expect("site header"));
    }
    connect_async(request).await.map(|(ws, _)| ws)
}

pub(crate) fn calls(list: Value) -> String {
    format!("\ncalls: {list}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_provider_streams_text_tool_blocks_and_native_calls() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    for provider in ["anthropic", "openai", "gemini"] {
        let bridge = ChatBridge::start(provider, &sim, &[]).await;
        let _tab = EchoTab::start(bridge.port, TabBehaviour::default());
        bridge.wait_hosted().await;
        let mut chat = ChatClient::connect(bridge.port, None).await;
        chat.expect_welcome().await;

        let plain = chat.turn(&format!("[sim:plain] hello {provider}")).await;
        assert_eq!(
            plain.text, "Hello from the simulator: all is well.",
            "{provider}"
        );
        assert_eq!(plain.outcome, Some(TurnOutcome::Answered));
        assert!(plain.tokens > 0, "{provider}: usage {plain:?}");

        // Native calling gives the model no key: a block it writes is shown, never run.
        let shown = chat
            .turn(&format!("[sim:text-tools] where is main? {provider}"))
            .await;
        assert_eq!(shown.outcome, Some(TurnOutcome::Answered), "{shown:?}");
        assert!(shown.statuses.is_empty(), "{provider}: {shown:?}");
        assert!(shown.text.contains("```tool\n{"), "{}", shown.text);

        // The text protocol: the block carries the turn's key and runs.
        let text_bridge =
            ChatBridge::start(provider, &sim, &[("NEXUS_LLM_NATIVE_TOOLS", "0")]).await;
        let _text_tab = EchoTab::start(text_bridge.port, TabBehaviour::default());
        let mut text_chat = ChatClient::connect(text_bridge.port, None).await;
        text_chat.expect_welcome().await;
        let blocks = text_chat
            .turn(&format!("[sim:text-tools] where is main? {provider}"))
            .await;
        assert_eq!(
            blocks.outcome,
            Some(TurnOutcome::Answered),
            "{provider}: {blocks:?}"
        );
        assert_eq!(
            blocks.chips(),
            vec![
                (ToolState::Processing, "nexus:search".into(), false),
                (ToolState::Complete, "nexus:search".into(), false),
            ],
            "{provider}"
        );
        assert!(
            blocks.text.starts_with("Let me look.\n"),
            "{provider}: {}",
            blocks.text
        );
        assert!(
            !blocks.text.contains("```"),
            "the block is not shown: {}",
            blocks.text
        );
        assert!(
            blocks.text.contains("echo search"),
            "{provider}: {}",
            blocks.text
        );

        // Native calls: Nexus's own tool through the tab, then a hosted server's tool.
        let question = format!(
            "[sim:native] {provider}{}",
            calls(json!([
                {"tool": "nexus:search", "arguments": {"query": "main"}},
                {"tool": "py:echo", "arguments": {"message": format!("hosted-{provider}")}}
            ]))
        );
        let native = chat.turn(&question).await;
        assert_eq!(
            native.outcome,
            Some(TurnOutcome::Answered),
            "{provider}: {native:?}"
        );
        let tools: Vec<String> = native.chips().into_iter().map(|c| c.1).collect();
        assert_eq!(
            tools,
            ["nexus:search", "nexus:search", "py:echo", "py:echo"],
            "{provider}"
        );
        assert!(
            native.chips().iter().all(|c| !c.2),
            "{provider}: {native:?}"
        );
        // Each call's chip has its own id, even where the provider reuses a call id per round.
        let mut ids: Vec<&str> = native
            .statuses
            .iter()
            .filter(|s| s.state == ToolState::Processing)
            .map(|s| s.call_id.as_str())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 2, "{provider}: {native:?}");
        assert!(
            native.text.contains(&format!("hosted-{provider}")),
            "{provider}: {}",
            native.text
        );
        assert!(native.session_tokens >= native.tokens + plain.tokens);
    }
    // The native requests declared the tools under provider-safe names.
    let log = sim.log().await;
    let declared = log
        .iter()
        .filter(|body| body.to_string().contains("nexus__search"))
        .count();
    assert!(declared >= 3, "{declared} requests declared nexus__search");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_text_protocol_malformed_blocks_and_unknown_tools_are_corrected() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let bridge = ChatBridge::start("openai", &sim, &[("NEXUS_LLM_NATIVE_TOOLS", "0")]).await;
    let _tab = EchoTab::start(bridge.port, TabBehaviour::default());
    let mut chat = ChatClient::connect(bridge.port, None).await;
    chat.expect_welcome().await;

    let malformed = chat.turn("[sim:malformed] find it").await;
    assert_eq!(malformed.outcome, Some(TurnOutcome::Answered));
    assert!(malformed.statuses.is_empty(), "{malformed:?}");
    assert!(
        malformed.text.contains("Corrected after:"),
        "{}",
        malformed.text
    );
    assert!(
        malformed.text.contains("not valid JSON"),
        "{}",
        malformed.text
    );

    let unknown = chat.turn("[sim:unknown] use a tool").await;
    assert_eq!(
        unknown.chips(),
        vec![
            (ToolState::Processing, "nexus:no_such_tool".into(), false),
            (ToolState::Complete, "nexus:no_such_tool".into(), true),
        ]
    );
    assert!(
        unknown.text.contains("There is no tool named"),
        "{}",
        unknown.text
    );

    // With native calling off, the request carries the text protocol and no tool declarations.
    let log = sim.log().await;
    let last = log.last().expect("requests logged");
    assert!(last.get("tools").is_none());
    assert!(
        last["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .contains("```tool")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_turn_reports_the_tools_it_compiled_and_expand_makes_one_callable() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let bridge = ChatBridge::start("openai", &sim, &[("NEXUS_LLM_NATIVE_TOOLS", "0")]).await;
    let _tab = EchoTab::start(bridge.port, TabBehaviour::default());
    bridge.wait_hosted().await;
    let mut chat = ChatClient::connect(bridge.port, None).await;
    chat.expect_welcome().await;

    let question = format!(
        "[sim:text-tools] which value has the environment variable HOME?{}",
        calls(json!([
            {"tool": "expand", "arguments": {"tool": "py:env"}},
            {"tool": "py:env", "arguments": {"name": "HOME"}}
        ]))
    );
    let turn = chat.turn(&question).await;
    assert_eq!(turn.outcome, Some(TurnOutcome::Answered), "{turn:?}");
    assert_eq!(turn.seen.len(), 1, "one tools_compiled per turn: {turn:?}");
    let seen = &turn.seen[0];
    let route = seen.iter().find(|t| t.name == "nexus:route");
    assert!(
        route.is_some_and(|t| t.skeleton && t.tier == ToolTier::Full),
        "{seen:?}"
    );
    // Nexus's tools and the Python server's 6, the tool search aside: not all of them.
    assert!(
        seen.len() < nexus_shared::ToolName::ALL.len() + 6,
        "some tools are left out: {seen:?}"
    );
    assert_eq!(
        turn.chips(),
        vec![
            (ToolState::Processing, "expand".into(), false),
            (ToolState::Complete, "expand".into(), false),
            (ToolState::Processing, "py:env".into(), false),
            (ToolState::Complete, "py:env".into(), false),
        ],
        "{turn:?}"
    );
    // The expansion went back to the model as the tool's full entry, and the prompt held the
    // compiled section rather than every tool's schema.
    let log = sim.log().await;
    let bodies: Vec<String> = log.iter().map(Value::to_string).collect();
    assert!(
        bodies.iter().any(|b| b.contains("### py:env")),
        "{bodies:?}"
    );
    let systems: Vec<&str> = log
        .iter()
        .filter(|b| b.to_string().contains("environment variable HOME"))
        .filter_map(|b| b["messages"][0]["content"].as_str())
        .collect();
    assert!(!systems.is_empty());
    for system in systems {
        assert!(
            system.contains("## Tools") && system.contains("### nexus:route"),
            "{system}"
        );
        assert!(!system.contains("arguments schema:"), "{system}");
    }

    // Off: no tools_compiled, and the prompt lists every tool with its schema.
    let off = ChatBridge::start(
        "openai",
        &sim,
        &[("NEXUS_LLM_NATIVE_TOOLS", "0"), ("NEXUS_JIT", "off")],
    )
    .await;
    let _off_tab = EchoTab::start(off.port, TabBehaviour::default());
    let mut plain = ChatClient::connect(off.port, None).await;
    plain.expect_welcome().await;
    let turn = plain.turn("[sim:plain] hello").await;
    assert!(turn.seen.is_empty(), "{turn:?}");
    let log = sim.log().await;
    let system = log.last().map(|b| b["messages"][0]["content"].to_string());
    assert!(
        system.is_some_and(|s| s.contains("- nexus:impact:") && s.contains("arguments schema:"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_are_retried_and_hangs_and_cuts_fall_back() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    for provider in ["anthropic", "gemini"] {
        let bridge = ChatBridge::start(provider, &sim, &[("NEXUS_LLM_TIMEOUT_MS", "700")]).await;
        let mut chat = ChatClient::connect(bridge.port, None).await;
        chat.expect_welcome().await;
        let retried = chat.turn(&format!("[sim:429] busy? {provider}")).await;
        assert_eq!(
            retried.outcome,
            Some(TurnOutcome::Answered),
            "{provider}: {retried:?}"
        );
        assert_eq!(retried.text, "Hello from the simulator: all is well.");

        let started = Instant::now();
        let hung = chat.turn("[sim:hang] anyone?").await;
        assert_eq!(
            hung.outcome,
            Some(TurnOutcome::Failed),
            "{provider}: {hung:?}"
        );
        assert!(hung.text.contains("could not answer"), "{}", hung.text);
        assert!(
            hung.text.contains("no answer within 700 ms"),
            "{}",
            hung.text
        );
        // Four attempts of 700 ms and three short pauses.
        assert!(
            started.elapsed() >= Duration::from_millis(2800),
            "{:?}",
            started.elapsed()
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );

        let cut = chat.turn("[sim:cut] talk").await;
        assert_eq!(
            cut.outcome,
            Some(TurnOutcome::Failed),
            "{provider}: {cut:?}"
        );
        assert!(cut.text.starts_with("These"), "{}", cut.text);
        assert!(cut.text.contains("could not answer"), "{}", cut.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_ends_a_streaming_turn_and_one_turn_runs_at_a_time() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let bridge = ChatBridge::start("openai", &sim, &[]).await;
    let mut chat = ChatClient::connect(bridge.port, None).await;
    chat.expect_welcome().await;
    chat.send(ChatClientMessage::Message {
        text: "[sim:slow] tell me a long story".into(),
        project: None,
    })
    .await;
    let compiled = chat.next().await;
    assert!(
        matches!(compiled, ChatServerMessage::ToolsCompiled { .. }),
        "{compiled:?}"
    );
    let first = chat.next().await;
    assert!(matches!(first, ChatServerMessage::Text { .. }), "{first:?}");
    chat.send(ChatClientMessage::Message {
        text: "[sim:plain] and another".into(),
        project: None,
    })
    .await;
    chat.send(ChatClientMessage::Stop {}).await;
    let stopped_at = Instant::now();
    let turn = chat.collect().await;
    assert_eq!(turn.outcome, Some(TurnOutcome::Stopped));
    assert!(
        stopped_at.elapsed() < Duration::from_secs(2),
        "{:?}",
        stopped_at.elapsed()
    );
    assert!(
        turn.errors.iter().any(|e| e.contains("already running")),
        "{:?}",
        turn.errors
    );
    // The socket is free again.
    let next = chat.turn("[sim:plain] now").await;
    assert_eq!(next.outcome, Some(TurnOutcome::Answered));

    // A flood is cut to the per-connection rate; each dropped message is answered by an error.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    for _ in 0..25 {
        chat.send(ChatClientMessage::ListSessions { project: None })
            .await;
    }
    let (mut listed, mut limited) = (0, 0);
    while listed + limited < 25 {
        match chat.next().await {
            ChatServerMessage::Sessions { .. } => listed += 1,
            ChatServerMessage::Error { message } if message.contains("too many messages") => {
                limited += 1
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(
        (10..=12).contains(&listed),
        "{listed} answered, {limited} limited"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_bridge_resumes_the_conversation() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let mut bridge = ChatBridge::start("anthropic", &sim, &[]).await;
    let mut chat = ChatClient::connect(bridge.port, None).await;
    let session = chat.expect_welcome().await;
    let answered = chat.turn("[sim:plain] remember me").await;
    assert_eq!(answered.outcome, Some(TurnOutcome::Answered));
    drop(chat);
    let _ = bridge.child.kill().await;
    let dir = std::mem::replace(&mut bridge.dir, TempDir::new("chat-unused"));
    let restarted = ChatBridge::start_with_db("anthropic", &sim, &[], dir, bridge.db.clone()).await;

    let mut chat = ChatClient::connect(restarted.port, Some(session.clone())).await;
    let ChatServerMessage::Connection {
        state, session_id, ..
    } = chat.next().await
    else {
        panic!("expected connection")
    };
    assert_eq!(state, ConnectionState::Reconnected);
    assert_eq!(session_id, session);
    let ChatServerMessage::History { messages, .. } = chat.next().await else {
        panic!("expected history")
    };
    let roles: Vec<ChatRole> = messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [ChatRole::User, ChatRole::Assistant]);
    assert_eq!(
        messages[0].content.as_deref(),
        Some("[sim:plain] remember me")
    );
    assert!(matches!(
        chat.next().await,
        ChatServerMessage::Provider { .. }
    ));
    chat.send(ChatClientMessage::ListSessions { project: None })
        .await;
    let ChatServerMessage::Sessions { sessions } = chat.next().await else {
        panic!("expected sessions")
    };
    assert_eq!(sessions[0].session_id, session);
    assert!(sessions[0].usage.total_tokens > 0);
    // The resumed conversation is sent to the model.
    let next = chat.turn("[sim:plain] still there?").await;
    assert_eq!(next.outcome, Some(TurnOutcome::Answered));
    let log = sim.log().await;
    let last = log.last().expect("requests logged");
    assert_eq!(last["messages"].as_array().map(Vec::len), Some(3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_folder_and_every_database_are_private_after_a_turn() {
    use std::os::unix::fs::PermissionsExt;
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let dir = TempDir::new("chat-private");
    let data = dir.0.join("data");
    let nexus = data.join("nexus");
    // Left readable by an older bridge: tightened when this one starts.
    std::fs::create_dir_all(&nexus).expect("data folder");
    std::fs::write(nexus.join("old.sqlite3"), "").expect("old file");
    let set = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod")
    };
    set(&nexus, 0o755);
    set(&nexus.join("old.sqlite3"), 0o644);
    let data_home = data.display().to_string();
    let embed_url = format!("http://127.0.0.1:{}/v1", sim.port);
    let env = [
        ("XDG_DATA_HOME", data_home.as_str()),
        ("NEXUS_EMBED_URL", embed_url.as_str()),
        ("NEXUS_EMBED_MODEL", "sim-embed"),
    ];
    let db = nexus.join("chat.sqlite3");
    let bridge = ChatBridge::start_with_db("anthropic", &sim, &env, dir, db).await;
    bridge.wait_hosted().await;
    let mut chat = ChatClient::connect(bridge.port, None).await;
    chat.expect_welcome().await;
    let turn = chat.turn("[sim:plain] keep this between us").await;
    assert_eq!(turn.outcome, Some(TurnOutcome::Answered), "{turn:?}");

    let mode = |path: &std::path::Path| {
        std::fs::symlink_metadata(path)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&nexus), 0o700);
    for name in [
        "chat.sqlite3",
        "chat.sqlite3-wal",
        "chat.sqlite3-shm",
        "jit-tools.sqlite3",
        "embeddings.sqlite3",
        "old.sqlite3",
    ] {
        assert_eq!(mode(&nexus.join(name)), 0o600, "{name}");
    }
    assert_eq!(mode(&nexus.join("hosted")), 0o700);
    assert_eq!(mode(&nexus.join("hosted/py")), 0o700);
    let mut others = Vec::new();
    for entry in std::fs::read_dir(&nexus).expect("list") {
        let entry = entry.expect("entry");
        let expected = if entry.path().is_dir() { 0o700 } else { 0o600 };
        if mode(&entry.path()) != expected {
            others.push(entry.path());
        }
    }
    assert!(others.is_empty(), "not private: {others:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_origins_wrong_secrets_and_other_first_messages_are_refused() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let bridge = ChatBridge::start("openai", &sim, &[]).await;
    let port = bridge.port;
    let own = format!("http://127.0.0.1:{port}");
    let cross = try_open(port, &own, Some("cross-site")).await;
    assert!(cross.is_err(), "a cross-site upgrade is refused");

    let hello = || ChatClientMessage::Hello {
        nonce: "ab".repeat(32),
    };
    // (origin, first message, what follows the hub's challenge when it sends one)
    let forged = ChatClientMessage::Prove {
        proof: "00".repeat(32),
        session_id: None,
    };
    for (origin, first, then) in [
        ("http://evil.example".to_owned(), hello(), None),
        (own.clone(), hello(), Some(forged.clone())),
        (
            own.clone(),
            ChatClientMessage::Message {
                text: "hi".into(),
                project: None,
            },
            None,
        ),
        (own.clone(), forged.clone(), None),
    ] {
        let mut ws = open(port, &origin, None).await;
        ws.send(Message::Text(first.encode().into()))
            .await
            .expect("send");
        let mut refused = false;
        let mut closed = false;
        while let Ok(Some(Ok(message))) =
            tokio::time::timeout(Duration::from_secs(5), ws.next()).await
        {
            match message {
                Message::Text(text) => {
                    let message = ChatServerMessage::decode(text.as_str());
                    if let (Ok(ChatServerMessage::Challenge { .. }), Some(then)) = (&message, &then)
                    {
                        // A client without the secret cannot check the proof; it forges its own.
                        ws.send(Message::Text(then.encode().into()))
                            .await
                            .expect("send");
                        continue;
                    }
                    assert!(
                        matches!(message, Ok(ChatServerMessage::Error { .. })),
                        "{message:?}"
                    );
                    refused = true;
                }
                Message::Close(_) => closed = true,
                _ => {}
            }
        }
        assert!(refused && closed, "{origin}: {first:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_learns_provider_and_model_never_the_key() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let key = "sk-ant-never-show-this-0123456789";
    let bridge = ChatBridge::start("anthropic", &sim, &[("ANTHROPIC_API_KEY", key)]).await;
    let mut ws = open(
        bridge.port,
        &format!("http://127.0.0.1:{}", bridge.port),
        None,
    )
    .await;
    nexus_e2e::proof::chat_handshake(&mut ws, bridge.port, &browser_secret(), None)
        .await
        .expect("the hub proves the browser secret");
    let turn = ChatClientMessage::Message {
        text: "[sim:plain] hi".into(),
        project: None,
    };
    ws.send(Message::Text(turn.encode().into()))
        .await
        .expect("message");
    let mut seen = String::new();
    while !seen.contains("turn_end") {
        let Ok(Some(Ok(message))) = tokio::time::timeout(Duration::from_secs(10), ws.next()).await
        else {
            panic!("no turn_end: {seen}")
        };
        if let Message::Text(text) = message {
            seen.push_str(text.as_str());
        }
    }
    assert!(
        seen.contains(r#""provider":"anthropic","model":"sim-model""#),
        "{seen}"
    );
    assert!(!seen.contains("never-show-this"), "{seen}");

    // No provider: the page is told which variables to set, and a message ends its turn at once.
    let unconfigured = ChatBridge::start("", &sim, &[]).await;
    let mut chat = ChatClient::connect(unconfigured.port, None).await;
    assert!(matches!(
        chat.next().await,
        ChatServerMessage::Connection { .. }
    ));
    let ChatServerMessage::Provider {
        configured,
        message,
        ..
    } = chat.next().await
    else {
        panic!("expected provider")
    };
    assert!(!configured);
    assert!(
        message.contains("NEXUS_LLM_PROVIDER") && message.contains("OPENAI_API_KEY"),
        "{message}"
    );
    let turn = chat.turn("hello?").await;
    assert_eq!(turn.outcome, Some(TurnOutcome::Failed));
    assert!(
        turn.errors.iter().any(|e| e.contains("NEXUS_LLM_PROVIDER")),
        "{turn:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_that_stops_answering_pings_is_closed() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let bridge = ChatBridge::start("openai", &sim, &[("NEXUS_HEARTBEAT_MS", "150")]).await;
    let mut ws = open(
        bridge.port,
        &format!("http://127.0.0.1:{}", bridge.port),
        None,
    )
    .await;
    nexus_e2e::proof::chat_handshake(&mut ws, bridge.port, &browser_secret(), None)
        .await
        .expect("the hub proves the browser secret");
    // Not reading means not answering pings (the client answers them as it reads).
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let started = Instant::now();
    let mut closed = false;
    while let Ok(Some(message)) = tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
        match message {
            Ok(Message::Close(_)) | Err(_) => {
                closed = true;
                break;
            }
            Ok(_) => {}
        }
    }
    let closed = closed
        || matches!(
            tokio::time::timeout(Duration::from_secs(1), ws.next()).await,
            Ok(None)
        );
    assert!(closed, "the stale socket was not closed");
    assert!(started.elapsed() < Duration::from_secs(5));

    // A socket that reads (and so answers pings) stays open across many heartbeats.
    let mut live = ChatClient::connect(bridge.port, None).await;
    live.expect_welcome().await;
    let until = Instant::now() + Duration::from_millis(1200);
    while Instant::now() < until {
        let _ = tokio::time::timeout(Duration::from_millis(100), live.ws.next()).await;
    }
    let turn = live.turn("[sim:plain] still here").await;
    assert_eq!(turn.outcome, Some(TurnOutcome::Answered));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_is_described_by_the_llm_outside_the_conversation() {
    let _area = Area::enter(module_path!());
    let sim = Sim::start().await;
    let bridge = ChatBridge::start("anthropic", &sim, &[]).await;
    let mut chat = ChatClient::connect(bridge.port, None).await;
    let session = chat.expect_welcome().await;
    let facts = "Folder shop: 2 files; 1 class · central: charge · called by: api";
    chat.send(ChatClientMessage::Describe {
        node: "Folder:shop".into(),
        facts: facts.into(),
    })
    .await;
    assert_eq!(
        chat.next().await,
        ChatServerMessage::Described {
            node: "Folder:shop".into(),
            text: "Hello from the simulator: all is well.".into()
        }
    );
    let asked = sim.log().await.last().cloned().unwrap_or_default();
    let asked = asked.to_string();
    assert!(
        asked.contains("central: charge") && asked.contains("describe one part of a code"),
        "{asked}"
    );
    assert!(
        !asked.contains("\"tools\""),
        "no tools are offered: {asked}"
    );

    // A provider that breaks off, and facts that say nothing or too much, are answers too.
    chat.send(ChatClientMessage::Describe {
        node: "File:shop/cart.py".into(),
        facts: "[sim:cut] 1 class".into(),
    })
    .await;
    let broken = chat.next().await;
    assert!(
        matches!(&broken, ChatServerMessage::NotDescribed { node, message } if node == "File:shop/cart.py" && !message.is_empty()),
        "{broken:?}"
    );
    for facts in [" ".to_owned(), "x".repeat(17 * 1024)] {
        chat.send(ChatClientMessage::Describe {
            node: "Folder:shop".into(),
            facts,
        })
        .await;
        assert!(matches!(
            chat.next().await,
            ChatServerMessage::NotDescribed { .. }
        ));
    }

    // Nothing of it joined the conversation.
    chat.send(ChatClientMessage::OpenSession {
        session_id: session.clone(),
    })
    .await;
    let _resumed = chat.next().await;
    let ChatServerMessage::History { messages, .. } = chat.next().await else {
        panic!("expected the history")
    };
    assert!(messages.is_empty(), "{messages:?}");

    // Without an LLM the page is told which variables to set.
    let unconfigured = ChatBridge::start("", &sim, &[]).await;
    let mut chat = ChatClient::connect(unconfigured.port, None).await;
    let _connected = chat.next().await;
    let _provider = chat.next().await;
    chat.send(ChatClientMessage::Describe {
        node: "Folder:shop".into(),
        facts: facts.into(),
    })
    .await;
    let refused = chat.next().await;
    assert!(
        matches!(&refused, ChatServerMessage::NotDescribed { message, .. } if message.contains("NEXUS_LLM_PROVIDER")),
        "{refused:?}"
    );
}
