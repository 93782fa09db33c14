//! Times the chat agent through the real bridge and prints figures (a benchmark, not a test).
//!
//! `chat-bench real UPSTREAM_V1_URL MODEL [TURNS]` puts a timing pass-through between the bridge
//! and an OpenAI-compatible server (e.g. llama.cpp serving SmolLM2) and reports, per turn, time to
//! first token and tokens/s at the provider and at the `/chat` socket, and the provider → socket
//! delay of the first token. `chat-bench sim [TURNS] [SESSIONS]` uses `llm-sim` (an instant
//! provider) for the orchestrator's overhead per turn and the bridge's memory per idle session.
//! `chat-bench jit` runs the tool compiler's benchmark turns (`jit/bench/tasks.json`, those a
//! Nexus tool answers) through `llm-sim`'s protocol-following `agent` script, with the JIT tool
//! compiler on and off: tool-call errors and tokens per answered question.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures_util::{SinkExt, StreamExt};
use nexus_e2e::{bridge_bin, browser_secret, free_port, runtime_dir, wait_port_open};
use nexus_shared::chat::{ChatClientMessage, ChatServerMessage};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// When the provider's response began and when each content chunk passed the proxy.
#[derive(Default, Clone)]
struct Timing {
    request_at: Option<Instant>,
    chunks: Vec<Instant>,
}

#[derive(Clone)]
struct Proxy {
    upstream: String,
    client: reqwest::Client,
    timing: Arc<Mutex<Timing>>,
}

#[tokio::main]
async fn main() {
    // reqwest's TLS layer (unused on loopback) needs a provider before the first client.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("real") if args.len() >= 3 => {
            let turns = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(3);
            real(&args[1], &args[2], turns).await
        }
        Some("jit") => jit().await,
        Some("sim") => {
            let turns = args.get(1).and_then(|t| t.parse().ok()).unwrap_or(50);
            let sessions = args.get(2).and_then(|t| t.parse().ok()).unwrap_or(200);
            sim(turns, sessions).await
        }
        _ => {
            eprintln!(
                "usage: chat-bench real UPSTREAM_V1_URL MODEL [TURNS] | chat-bench sim [TURNS] [SESSIONS] | chat-bench jit"
            );
            std::process::exit(2);
        }
    }
}

/// A bridge serving `/chat` with the provider at `base_url` (OpenAI-compatible).
async fn bridge(base_url: &str, model: &str, db: &std::path::Path) -> (Child, u16) {
    bridge_with(base_url, model, db, &[]).await
}

async fn bridge_with(
    base_url: &str,
    model: &str,
    db: &std::path::Path,
    env: &[(&str, String)],
) -> (Child, u16) {
    let port = free_port();
    let mut command = Command::new(bridge_bin());
    for (key, value) in env {
        command.env(key, value);
    }
    let child = command
        .args(["serve", "--port", &port.to_string()])
        .env("XDG_RUNTIME_DIR", runtime_dir())
        .env("NEXUS_UI_DIR", "/nonexistent-nexus-ui")
        .env("NEXUS_LOG", "warn")
        .env("NEXUS_CHAT_DB", db)
        .env("NEXUS_LLM_PROVIDER", "openai")
        .env("NEXUS_LLM_BASE_URL", base_url)
        .env("NEXUS_LLM_MODEL", model)
        .env("NEXUS_LLM_NATIVE_TOOLS", "0")
        .env("NEXUS_LLM_MAX_OUTPUT_TOKENS", "64")
        .env("NEXUS_LLM_TIMEOUT_MS", "300000")
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn nexus-bridge serve");
    wait_port_open(port, Duration::from_secs(10)).await;
    (child, port)
}

async fn connect(port: u16) -> Ws {
    let mut request = format!("ws://127.0.0.1:{port}/chat")
        .into_client_request()
        .expect("request");
    request.headers_mut().insert(
        "Origin",
        format!("http://127.0.0.1:{port}").parse().expect("origin"),
    );
    let (mut ws, _) = connect_async(request).await.expect("open /chat");
    nexus_e2e::proof::chat_handshake(&mut ws, port, &browser_secret(), None)
        .await
        .expect("the hub proves the browser secret");
    ws
}

async fn next(ws: &mut Ws) -> ChatServerMessage {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(600), ws.next())
            .await
            .expect("a message within 10 minutes")
            .expect("socket open")
            .expect("readable");
        if let Message::Text(text) = message {
            return ChatServerMessage::decode(text.as_str()).expect("chat message");
        }
    }
}

/// One turn: (sent at, arrival time of each text piece, turn end at, completion tokens).
async fn turn(ws: &mut Ws, text: &str) -> (Instant, Vec<Instant>, Instant, u64) {
    let sent = Instant::now();
    ws.send(Message::Text(
        ChatClientMessage::Message {
            text: text.into(),
            project: None,
        }
        .encode()
        .into(),
    ))
    .await
    .expect("send");
    let mut pieces = Vec::new();
    loop {
        match next(ws).await {
            ChatServerMessage::Text { content } if !content.is_empty() => {
                pieces.push(Instant::now())
            }
            ChatServerMessage::TurnEnd { usage, outcome, .. } => {
                if outcome != nexus_shared::chat::TurnOutcome::Answered {
                    eprintln!("turn ended: {outcome:?}");
                }
                return (sent, pieces, Instant::now(), usage.completion_tokens);
            }
            ChatServerMessage::Error { message } => eprintln!("error: {message}"),
            _ => {}
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn per_second(count: usize, first: Instant, last: Instant) -> f64 {
    let span = last.saturating_duration_since(first).as_secs_f64();
    if count < 2 || span <= 0.0 {
        0.0
    } else {
        (count - 1) as f64 / span
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn percentile(mut values: Vec<f64>, p: f64) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    let index = ((values.len() as f64 - 1.0) * p).round() as usize;
    values.get(index).copied().unwrap_or(0.0)
}

async fn real(upstream: &str, model: &str, turns: usize) {
    let proxy = Proxy {
        upstream: upstream.trim_end_matches('/').to_owned(),
        client: reqwest::Client::new(),
        timing: Arc::new(Mutex::new(Timing::default())),
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind proxy");
    let proxy_port = listener.local_addr().map(|a| a.port()).expect("proxy port");
    let app = Router::new()
        .route("/v1/chat/completions", post(forward))
        .with_state(proxy.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let dir = std::env::temp_dir().join(format!("nexus-chat-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let (_bridge, port) = bridge(
        &format!("http://127.0.0.1:{proxy_port}/v1"),
        model,
        &dir.join("chat.sqlite3"),
    )
    .await;
    let mut ws = connect(port).await;
    let mut delays = Vec::new();
    for k in 0..turns {
        // A new conversation per turn: each prompt has the same size.
        if k > 0 {
            ws.send(Message::Text(
                ChatClientMessage::NewSession {}.encode().into(),
            ))
            .await
            .expect("new session");
        }
        *proxy.timing.lock().expect("timing") = Timing::default();
        let (sent, pieces, ended, tokens) =
            turn(&mut ws, "In one sentence: what is a call graph?").await;
        let timing = proxy.timing.lock().expect("timing").clone();
        let (Some(request_at), Some(&first_chunk), Some(&last_chunk)) = (
            timing.request_at,
            timing.chunks.first(),
            timing.chunks.last(),
        ) else {
            eprintln!("turn {k}: the provider streamed no content");
            continue;
        };
        let (Some(&first_piece), Some(&last_piece)) = (pieces.first(), pieces.last()) else {
            eprintln!("turn {k}: no text reached the socket");
            continue;
        };
        let delay = first_piece.saturating_duration_since(first_chunk);
        delays.push(ms(delay));
        println!(
            "turn {k}: provider ttft {:.0} ms, {:.1} tok/s ({} chunks) | socket ttft {:.0} ms, {:.1} pieces/s ({} pieces, {tokens} tokens reported) | first token provider→socket {:.2} ms | bridge before provider {:.1} ms | turn {:.0} ms",
            ms(first_chunk - request_at),
            per_second(timing.chunks.len(), first_chunk, last_chunk),
            timing.chunks.len(),
            ms(first_piece - sent),
            per_second(pieces.len(), first_piece, last_piece),
            pieces.len(),
            ms(delay),
            ms(request_at.saturating_duration_since(sent)),
            ms(ended - sent),
        );
    }
    println!(
        "first token provider→socket p50 {:.2} ms over {} turns",
        median(delays.clone()),
        delays.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Passes a chat completion through to the upstream, timing each content chunk.
async fn forward(State(proxy): State<Proxy>, body: String) -> Response {
    proxy
        .timing
        .lock()
        .map(|mut t| t.request_at = Some(Instant::now()))
        .ok();
    let upstream = proxy
        .client
        .post(format!("{}/chat/completions", proxy.upstream))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await;
    let response = match upstream {
        Ok(response) => response,
        Err(err) => return (StatusCode::BAD_GATEWAY, err.to_string()).into_response(),
    };
    let status = response.status();
    let timing = proxy.timing.clone();
    let stream = response.bytes_stream().map(move |chunk| {
        if let Ok(bytes) = &chunk {
            let text = String::from_utf8_lossy(bytes);
            // Content deltas with text in them (not the role chunk, not usage).
            let contents = text
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<serde_json::Value>(data.trim()).ok())
                .filter(|v| {
                    v["choices"][0]["delta"]["content"]
                        .as_str()
                        .is_some_and(|c| !c.is_empty())
                })
                .count();
            if contents > 0 {
                let now = Instant::now();
                timing
                    .lock()
                    .map(|mut t| t.chunks.extend(std::iter::repeat_n(now, contents)))
                    .ok();
            }
        }
        chunk
    });
    Response::builder()
        .status(status.as_u16())
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Starts `llm-sim` with `env`: the process and its port.
async fn start_sim(env: &[(&str, &std::path::Path)]) -> (Child, u16) {
    let sim_bin = bridge_bin().with_file_name("llm-sim");
    let mut command = Command::new(&sim_bin);
    for (key, value) in env {
        command.env(key, value);
    }
    let mut sim = command
        .arg("0")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|err| panic!("spawn {}: {err}", sim_bin.display()));
    let mut line = String::new();
    let stdout = sim.stdout.take().expect("llm-sim stdout");
    BufReader::new(stdout)
        .read_line(&mut line)
        .await
        .expect("llm-sim port");
    let sim_port: u16 = line
        .trim()
        .rsplit(' ')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port");
    (sim, sim_port)
}

async fn sim(turns: usize, sessions: usize) {
    let (_sim, sim_port) = start_sim(&[]).await;
    let dir = std::env::temp_dir().join(format!("nexus-chat-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let (bridge, port) = bridge(
        &format!("http://127.0.0.1:{sim_port}/v1"),
        "sim-model",
        &dir.join("chat.sqlite3"),
    )
    .await;
    let pid = bridge.id().unwrap_or(0);
    let mut ws = connect(port).await;
    let mut times = Vec::new();
    for k in 0..turns {
        // Stay under the socket's message rate limit (not timed).
        tokio::time::sleep(Duration::from_millis(120)).await;
        let (sent, _, ended, _) = turn(&mut ws, &format!("[sim:plain] turn {k}")).await;
        times.push(ms(ended - sent));
    }
    println!(
        "orchestrator turn with an instant provider (llm-sim, loopback HTTP included): p50 {:.2} ms, p95 {:.2} ms over {turns} turns",
        median(times.clone()),
        percentile(times, 0.95)
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = rss_kib(pid);
    let mut sockets = Vec::new();
    for _ in 0..sessions {
        let mut ws = connect(port).await;
        // connection + provider: the session exists.
        let _ = next(&mut ws).await;
        let _ = next(&mut ws).await;
        sockets.push(ws);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss_kib(pid);
    println!(
        "memory per idle chat session (open socket, stored session): {:.1} KiB ({} sessions, RSS {} → {} KiB)",
        (after.saturating_sub(before)) as f64 / sessions.max(1) as f64,
        sessions,
        before,
        after
    );
    drop(sockets);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tool compiler's benchmark turns.
const JIT_TASKS: &str = include_str!("../../../jit/bench/tasks.json");

/// Placeholder arguments for `tool`'s required properties, by type.
fn arguments_for(tool: &str) -> serde_json::Value {
    use serde_json::{Map, Value};
    let schema = nexus_shared::ToolName::ALL
        .iter()
        .find(|t| format!("nexus:{}", t.as_str()) == tool)
        .map(|t| Value::Object(t.input_schema()))
        .unwrap_or_default();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut args = Map::new();
    for name in required {
        let prop = &schema["properties"][name];
        let value = match prop["type"].as_str() {
            Some("integer" | "number") => Value::from(1),
            Some("boolean") => Value::Bool(true),
            Some("array") => Value::Array(vec![Value::String("main".into())]),
            _ => prop["enum"][0].clone(),
        };
        let value = if value.is_null() {
            Value::String("main".into())
        } else {
            value
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

/// One mode's totals.
#[derive(Default)]
struct JitRun {
    asked: usize,
    answered: usize,
    calls: usize,
    errors: usize,
    tokens: u64,
    prompt_tokens: u64,
    refused: Vec<String>,
}

async fn jit() {
    let table: serde_json::Value = serde_json::from_str(JIT_TASKS).expect("jit/bench/tasks.json");
    let mut tasks: Vec<(String, String)> = Vec::new();
    for task in table["tasks"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let question = task["question"].as_str().unwrap_or_default();
        let tool = task["needs"][0]
            .as_array()
            .and_then(|alternatives| {
                alternatives
                    .iter()
                    .filter_map(|t| t.as_str())
                    .find(|t| t.starts_with("nexus:"))
            })
            .map(str::to_owned);
        if let Some(tool) = tool {
            tasks.push((format!("[sim:agent] {question}"), tool));
        }
    }
    let dir = std::env::temp_dir().join(format!("nexus-chat-bench-jit-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let plan: serde_json::Map<String, serde_json::Value> = tasks
        .iter()
        .map(|(message, tool)| {
            let call = serde_json::json!([{"tool": tool, "arguments": arguments_for(tool)}]);
            (message.clone(), call)
        })
        .collect();
    let plan_path = dir.join("plan.json");
    std::fs::write(&plan_path, serde_json::Value::Object(plan).to_string()).expect("write plan");
    let (_sim, sim_port) = start_sim(&[("LLM_SIM_PLAN", &plan_path)]).await;
    let model = nexus_e2e::workspace_root().join("model/static-minilm.nxse");
    println!(
        "chat-bench jit: {} of {} benchmark turns need a Nexus tool; llm-sim `agent` (text protocol), embedder: {}",
        tasks.len(),
        table["tasks"].as_array().map_or(0, Vec::len),
        if model.is_file() {
            "the built-in model"
        } else {
            "hashed words (no model/static-minilm.nxse)"
        }
    );
    for mode in ["on", "off"] {
        let db = dir.join(format!("chat-{mode}.sqlite3"));
        let env = [
            ("NEXUS_JIT", mode.to_owned()),
            ("NEXUS_JIT_MODEL_FILE", model.display().to_string()),
        ];
        let (_bridge, port) = bridge_with(
            &format!("http://127.0.0.1:{sim_port}/v1"),
            "sim-model",
            &db,
            &env,
        )
        .await;
        let _tab = nexus_e2e::tab::EchoTab::start(port, nexus_e2e::tab::TabBehaviour::default());
        let mut run = JitRun::default();
        for (message, _) in &tasks {
            let mut ws = connect(port).await;
            run.asked += 1;
            ws.send(Message::Text(
                ChatClientMessage::Message {
                    text: message.clone(),
                    project: None,
                }
                .encode()
                .into(),
            ))
            .await
            .expect("send");
            loop {
                match next(&mut ws).await {
                    ChatServerMessage::Status(status)
                        if status.state == nexus_shared::chat::ToolState::Complete =>
                    {
                        run.calls += 1;
                        if status.is_error {
                            run.errors += 1;
                            run.refused.push(format!(
                                "{}: {}",
                                status.tool.unwrap_or_default(),
                                status.message
                            ));
                        }
                    }
                    ChatServerMessage::TurnEnd { outcome, usage, .. } => {
                        if outcome == nexus_shared::chat::TurnOutcome::Answered {
                            run.answered += 1;
                            run.tokens += usage.total_tokens;
                            run.prompt_tokens += usage.prompt_tokens;
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
        let per = |n: u64| n as f64 / run.answered.max(1) as f64;
        println!(
            "JIT {mode}: {} asked, {} answered, {} tool calls, {} tool-call errors; tokens per answered question {:.0} (prompt {:.0})",
            run.asked,
            run.answered,
            run.calls,
            run.errors,
            per(run.tokens),
            per(run.prompt_tokens)
        );
        for refusal in &run.refused {
            println!("  error: {refusal}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
