//! A scripted LLM provider for the chat tests, speaking each provider's real streaming wire format:
//! Anthropic Messages SSE, OpenAI Chat Completions SSE (`[DONE]`), Gemini `streamGenerateContent`.
//!
//! `llm-sim [PORT]` (0 or none: any free port) prints `llm-sim listening on PORT` on stdout and
//! serves `POST /v1/messages`, `POST /v1/chat/completions` and
//! `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`; `GET /log` returns the request
//! bodies received, in order. The script is chosen by a marker in the conversation's latest user
//! message that has one: `[sim:NAME]`, with an optional line `calls: [{"tool":..,"arguments":..},..]`
//! naming the tool calls of the tool scripts (default: one `nexus:search` for "main").
//! Each round's script step is the number of tool results / notes the bridge sent after that
//! message. Scripts:
//! - `plain` — a short answer in several chunks;
//! - `text-tools` — each call as a ```` ```tool KEY ```` block streamed three characters at a time
//!   (fences split across chunks), then an answer quoting the last result; every script's blocks
//!   carry the turn's key the system prompt gives (none without one);
//! - `quote` — the first call, then the first ```` ```tool ```` block of the result quoted as
//!   written (as a model quoting a file does), then an answer quoting the last result;
//! - `native` — each call as the provider's native function call, then the answer;
//! - `malformed` — a block of broken JSON, then (after the bridge's correction) an answer quoting it;
//! - `unknown` — a block calling `nexus:no_such_tool`, then an answer quoting the correction;
//! - `429` — the first request for this message gets HTTP 429, later ones the plain answer;
//! - `hang` — headers, then nothing, ever;
//! - `slow` — one word every 100 ms for 30 s (for Stop);
//! - `cut` — a few words, then the connection is dropped mid-stream;
//! - `agent` — a model that follows the text protocol: each call whose tool the system prompt
//!   lists by name only is preceded by an `expand` call; a tool listed in full or condensed, or
//!   not at all, is called as it is; then the answer. Its calls may also come from the file
//!   `$LLM_SIM_PLAN` (JSON: the marker message's first line → calls), so that the question the
//!   bridge reads names no tool.
//!
//! `POST /v1/embeddings` speaks OpenAI's embeddings wire format (`input` a string or a list):
//! each text's vector counts its lowercased words (identifiers split at `_` and case changes)
//! hashed into `EMBED_DIMS` buckets, so texts sharing words are near. The model name picks a
//! failure instead: `sim-hang` (headers never come), `sim-500` (HTTP 500), `sim-garbage` (HTML
//! with status 200), `sim-short` (one vector fewer than texts). `GET /embeddings-log` lists how
//! many texts each embeddings request carried.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::stream;
use serde_json::{Value, json};

#[derive(Clone, Copy, PartialEq)]
enum Wire {
    Anthropic,
    OpenAi,
    Gemini,
}

#[derive(Default)]
struct Sim {
    log: Mutex<Vec<Value>>,
    /// Requests seen per marker message (for `429`).
    seen: Mutex<HashMap<String, u32>>,
    /// Texts per embeddings request, in order.
    embedded: Mutex<Vec<usize>>,
}

/// Width of the simulated embeddings.
const EMBED_DIMS: usize = 64;

/// What one response holds.
enum Step {
    Text(String),
    Call { tool: String, arguments: Value },
}

struct Plan {
    steps: Vec<Step>,
    /// Characters per text chunk.
    chunk: usize,
    pause: Duration,
    ending: Ending,
}

enum Ending {
    Complete,
    Hang,
    Cut,
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
        Ok(listener) => listener,
        Err(err) => {
            eprintln!("llm-sim: cannot bind 127.0.0.1:{port}: {err}");
            std::process::exit(1);
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
    println!("llm-sim listening on {port}");
    let sim = Arc::new(Sim::default());
    let app = Router::new()
        .route("/v1/messages", post(anthropic))
        .route("/v1/chat/completions", post(openai))
        .route("/v1beta/models/{action}", post(gemini))
        .route("/log", get(log))
        .route("/v1/embeddings", post(embeddings))
        .route("/embeddings-log", get(embeddings_log))
        .with_state(sim);
    // Stops by itself after an hour at most (tests kill it long before).
    let serve = axum::serve(listener, app);
    let _ = tokio::time::timeout(Duration::from_secs(3600), serve).await;
}

async fn log(State(sim): State<Arc<Sim>>) -> impl IntoResponse {
    let log = sim.log.lock().map(|l| l.clone()).unwrap_or_default();
    axum::Json(Value::Array(log))
}

async fn embeddings_log(State(sim): State<Arc<Sim>>) -> impl IntoResponse {
    let log = sim.embedded.lock().map(|l| l.clone()).unwrap_or_default();
    axum::Json(json!(log))
}

/// OpenAI `POST /v1/embeddings` (see the header for the failure models).
async fn embeddings(State(sim): State<Arc<Sim>>, body: String) -> Response {
    let Ok(body) = serde_json::from_str::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let texts: Vec<String> = match &body["input"] {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect(),
        _ => return (StatusCode::BAD_REQUEST, "no input").into_response(),
    };
    if let Ok(mut log) = sim.embedded.lock() {
        log.push(texts.len());
    }
    let model = body["model"].as_str().unwrap_or_default().to_owned();
    match model.as_str() {
        "sim-hang" => std::future::pending::<Response>().await,
        "sim-500" => (StatusCode::INTERNAL_SERVER_ERROR, "overloaded").into_response(),
        "sim-garbage" => "<html>not an API</html>".into_response(),
        _ => {
            let keep = if model == "sim-short" {
                texts.len().saturating_sub(1)
            } else {
                texts.len()
            };
            let data: Vec<Value> = texts
                .iter()
                .take(keep)
                .enumerate()
                .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": hashed_words(text)}))
                .collect();
            let tokens: usize = texts.iter().map(|t| t.split_whitespace().count()).sum();
            axum::Json(json!({
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }))
            .into_response()
        }
    }
}

/// Word counts hashed into `EMBED_DIMS` buckets (FNV-1a), words split at non-alphanumerics,
/// `_` and lower→upper case changes, lowercased.
fn hashed_words(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; EMBED_DIMS];
    let mut word = String::new();
    let mut add = |word: &mut String| {
        if !word.is_empty() {
            let hash = word.bytes().fold(0xcbf29ce484222325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x100000001b3)
            });
            v[(hash % EMBED_DIMS as u64) as usize] += 1.0;
            word.clear();
        }
    };
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            add(&mut word);
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            add(&mut word);
        }
        previous_lower = c.is_lowercase();
        word.extend(c.to_lowercase());
    }
    add(&mut word);
    v
}

async fn anthropic(State(sim): State<Arc<Sim>>, body: String) -> Response {
    respond(&sim, Wire::Anthropic, body)
}

async fn openai(State(sim): State<Arc<Sim>>, body: String) -> Response {
    respond(&sim, Wire::OpenAi, body)
}

async fn gemini(State(sim): State<Arc<Sim>>, Path(action): Path<String>, body: String) -> Response {
    if !action.ends_with(":streamGenerateContent") {
        return (
            StatusCode::NOT_FOUND,
            "only streamGenerateContent is simulated",
        )
            .into_response();
    }
    respond(&sim, Wire::Gemini, body)
}

/// (is the user's side, text) for each message of the request, in order.
fn conversation(wire: Wire, body: &Value) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let list = match wire {
        Wire::Gemini => &body["contents"],
        _ => &body["messages"],
    };
    for message in list.as_array().map(Vec::as_slice).unwrap_or_default() {
        let role = message["role"].as_str().unwrap_or_default();
        if role == "system" {
            continue;
        }
        let user_side = matches!(role, "user" | "tool");
        let text = match wire {
            Wire::Gemini => message["parts"]
                .as_array()
                .map(|parts| {
                    parts
                        .iter()
                        .map(|p| match p.get("text") {
                            Some(Value::String(t)) => t.clone(),
                            _ => p
                                .get("functionResponse")
                                .map(Value::to_string)
                                .unwrap_or_default(),
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default(),
            _ => match &message["content"] {
                Value::String(text) => text.clone(),
                Value::Array(blocks) => blocks
                    .iter()
                    .map(|b| match b["type"].as_str() {
                        Some("text") => b["text"].as_str().unwrap_or_default().to_owned(),
                        Some("tool_result") => b["content"].to_string(),
                        _ => String::new(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            },
        };
        out.push((user_side, text));
    }
    out
}

fn respond(sim: &Sim, wire: Wire, body: String) -> Response {
    let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    if let Ok(mut log) = sim.log.lock() {
        log.push(request.clone());
    }
    let messages = conversation(wire, &request);
    let marker = messages
        .iter()
        .rposition(|(user, text)| *user && text.contains("[sim:"));
    let (script, calls, question, feedback) = match marker {
        Some(at) => {
            let text = &messages[at].1;
            let name = text
                .split("[sim:")
                .nth(1)
                .and_then(|rest| rest.split(']').next())
                .unwrap_or("plain")
                .to_owned();
            let calls: Vec<(String, Value)> = text
                .lines()
                .find_map(|line| line.trim().strip_prefix("calls:"))
                .and_then(|json| serde_json::from_str::<Value>(json.trim()).ok())
                .and_then(|v| v.as_array().cloned())
                .map(|list| {
                    list.iter()
                        .map(|c| {
                            (
                                c["tool"].as_str().unwrap_or_default().to_owned(),
                                c["arguments"].clone(),
                            )
                        })
                        .collect()
                })
                .or_else(|| planned(text))
                .unwrap_or_else(|| vec![("nexus:search".to_owned(), json!({"query": "main"}))]);
            let after: Vec<&String> = messages[at + 1..]
                .iter()
                .filter(|(user, _)| *user)
                .map(|(_, t)| t)
                .collect();
            let feedback = after.last().map(|t| t.to_string()).unwrap_or_default();
            (name, calls, text.clone(), (after.len(), feedback))
        }
        None => (
            "plain".to_owned(),
            Vec::new(),
            String::new(),
            (0, String::new()),
        ),
    };
    let (round, feedback) = feedback;
    let fence = match block_key(&system_text(wire, &request)) {
        Some(key) => format!("```tool {key}"),
        None => "```tool".to_owned(),
    };
    let answer = |prefix: &str| {
        // Backticks are left out: a quoted fence would read as a new tool block.
        let quoted: String = feedback.chars().filter(|&c| c != '`').take(300).collect();
        Step::Text(format!("{prefix} {quoted}"))
    };
    let plain = || Plan {
        steps: vec![Step::Text("Hello from the simulator: all is well.".into())],
        chunk: 7,
        pause: Duration::ZERO,
        ending: Ending::Complete,
    };
    let plan = match script.as_str() {
        "text-tools" | "native" => {
            let steps = match calls.get(round) {
                Some((tool, arguments)) if script == "native" => vec![
                    Step::Text(format!("Calling {tool}.")),
                    Step::Call {
                        tool: tool.clone(),
                        arguments: arguments.clone(),
                    },
                ],
                Some((tool, arguments)) => {
                    let call = json!({"tool": tool, "arguments": arguments});
                    vec![Step::Text(format!("Let me look.\n{fence}\n{call}\n```"))]
                }
                None => vec![answer("Answer from the tools:")],
            };
            Plan {
                steps,
                chunk: 3,
                pause: Duration::ZERO,
                ending: Ending::Complete,
            }
        }
        "agent" => {
            let system = system_text(wire, &request);
            let steps: Vec<(String, Value)> = calls
                .iter()
                .flat_map(|(tool, arguments)| {
                    let expand = name_only(&system, tool)
                        .then(|| ("expand".to_owned(), json!({"tool": tool})));
                    expand
                        .into_iter()
                        .chain([(tool.clone(), arguments.clone())])
                })
                .collect();
            let steps = match steps.get(round) {
                Some((tool, arguments)) => {
                    let call = json!({"tool": tool, "arguments": arguments});
                    vec![Step::Text(format!("{fence}\n{call}\n```"))]
                }
                None => vec![answer("Answer from the tools:")],
            };
            Plan {
                steps,
                chunk: 16,
                pause: Duration::ZERO,
                ending: Ending::Complete,
            }
        }
        "quote" => {
            let quoted = feedback.find("```tool").and_then(|start| {
                let rest = &feedback[start..];
                let end = rest[3..].find("```")? + 6;
                Some(rest[..end].to_owned())
            });
            let steps = match (round, calls.first(), quoted) {
                (0, Some((tool, arguments)), _) => {
                    let call = json!({"tool": tool, "arguments": arguments});
                    vec![Step::Text(format!("Reading.\n{fence}\n{call}\n```"))]
                }
                (_, _, Some(block)) => vec![Step::Text(format!("The file says:\n{block}\n"))],
                _ => vec![answer("Answer from the tools:")],
            };
            Plan { steps, ..plain() }
        }
        "malformed" if round == 0 => Plan {
            steps: vec![Step::Text(format!(
                "Trying.\n{fence}\n{{\"tool\": \"nexus:search\", \"arguments\": {{\"query\": \n```"
            ))],
            chunk: 5,
            pause: Duration::ZERO,
            ending: Ending::Complete,
        },
        "malformed" => Plan {
            steps: vec![answer("Corrected after:")],
            ..plain()
        },
        "unknown" if round == 0 => Plan {
            steps: vec![Step::Text(format!(
                "{fence}\n{{\"tool\": \"nexus:no_such_tool\", \"arguments\": {{}}}}\n```"
            ))],
            ..plain()
        },
        "unknown" => Plan {
            steps: vec![answer("Told:")],
            ..plain()
        },
        "429" => {
            let count = sim
                .seen
                .lock()
                .map(|mut seen| {
                    let n = seen.entry(question.clone()).or_insert(0);
                    *n += 1;
                    *n
                })
                .unwrap_or(1);
            if count == 1 {
                return too_many(wire);
            }
            plain()
        }
        "hang" => Plan {
            steps: Vec::new(),
            chunk: 1,
            pause: Duration::ZERO,
            ending: Ending::Hang,
        },
        "slow" => Plan {
            steps: vec![Step::Text("word ".repeat(300))],
            chunk: 5,
            pause: Duration::from_millis(100),
            ending: Ending::Complete,
        },
        "cut" => Plan {
            steps: vec![Step::Text("These words arrive and then the line".into())],
            chunk: 6,
            pause: Duration::from_millis(20),
            ending: Ending::Cut,
        },
        _ => plain(),
    };
    stream_plan(wire, plan, (body.len() / 4) as u64)
}

/// The calls `$LLM_SIM_PLAN` names for the message whose first line is that of `text`.
fn planned(text: &str) -> Option<Vec<(String, Value)>> {
    let path = std::env::var_os("LLM_SIM_PLAN")?;
    let plan: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let key = text.lines().next().unwrap_or_default().trim();
    let list = plan.get(key)?.as_array()?;
    Some(
        list.iter()
            .map(|c| {
                (
                    c["tool"].as_str().unwrap_or_default().to_owned(),
                    c["arguments"].clone(),
                )
            })
            .collect(),
    )
}

/// The turn's key for tool blocks, as the system prompt's example fence shows it.
fn block_key(system: &str) -> Option<String> {
    let after = &system[system.find("```tool ")? + "```tool ".len()..];
    let key = after.split_whitespace().next()?;
    key.chars()
        .all(|c| c.is_ascii_alphanumeric())
        .then(|| key.to_owned())
}

/// The request's system prompt, in each wire's place for it.
fn system_text(wire: Wire, request: &Value) -> String {
    let text = match wire {
        Wire::Anthropic => request["system"].clone(),
        Wire::OpenAi => request["messages"][0]["content"].clone(),
        Wire::Gemini => request["systemInstruction"]["parts"][0]["text"].clone(),
    };
    match text {
        Value::String(text) => text,
        other => other.to_string(),
    }
}

/// True when the tool list of `system` shows `tool` by name only (`- tool` alone on its line,
/// offline mark allowed), as the JIT tool compiler renders name-only entries.
fn name_only(system: &str, tool: &str) -> bool {
    system.lines().any(|line| {
        line.strip_prefix("- ")
            .and_then(|rest| rest.strip_prefix(tool))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(" (offline"))
            && !line.contains(" — ")
    })
}

fn too_many(wire: Wire) -> Response {
    let body = match wire {
        Wire::Anthropic => {
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}})
        }
        Wire::OpenAi => {
            json!({"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}})
        }
        Wire::Gemini => {
            json!({"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}})
        }
    };
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, "0")],
        axum::Json(body),
    )
        .into_response()
}

fn chunks(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size.max(1))
        .map(|c| c.iter().collect())
        .collect()
}

/// The plan as the wire's events, each a complete SSE event.
fn events(wire: Wire, plan: &Plan, prompt_tokens: u64) -> Vec<String> {
    let mut out = Vec::new();
    let mut completion = 0u64;
    let sse = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let data = |data: Value| format!("data: {data}\n\n");
    // Gemini's stream separates events with CRLF pairs.
    let gemini = |data: Value| format!("data: {data}\r\n\r\n");
    match wire {
        Wire::Anthropic => out.push(sse(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_sim", "type": "message", "role": "assistant",
                "model": "sim", "content": [], "stop_reason": null,
                "usage": {"input_tokens": prompt_tokens, "output_tokens": 1}}}),
        )),
        Wire::OpenAi => out.push(data(json!({"id": "chatcmpl-sim", "object": "chat.completion.chunk",
            "model": "sim", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]}))),
        Wire::Gemini => {}
    }
    let mut has_calls = false;
    for (index, step) in plan.steps.iter().enumerate() {
        match step {
            Step::Text(text) => {
                if wire == Wire::Anthropic {
                    out.push(sse(
                        "content_block_start",
                        json!({"type": "content_block_start", "index": index,
                        "content_block": {"type": "text", "text": ""}}),
                    ));
                }
                for piece in chunks(text, plan.chunk) {
                    completion += 1;
                    out.push(match wire {
                        Wire::Anthropic => sse("content_block_delta", json!({"type": "content_block_delta",
                            "index": index, "delta": {"type": "text_delta", "text": piece}})),
                        Wire::OpenAi => data(json!({"id": "chatcmpl-sim", "object": "chat.completion.chunk",
                            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]})),
                        Wire::Gemini => gemini(json!({"candidates": [{"content": {"parts": [{"text": piece}],
                            "role": "model"}, "index": 0}], "modelVersion": "sim"})),
                    });
                }
                if wire == Wire::Anthropic {
                    out.push(sse(
                        "content_block_stop",
                        json!({"type": "content_block_stop", "index": index}),
                    ));
                }
            }
            Step::Call { tool, arguments } => {
                has_calls = true;
                completion += 10;
                let name = tool.replacen(':', "__", 1);
                let args = arguments.to_string();
                let (first, second) = args.split_at(args.len() / 2);
                match wire {
                    Wire::Anthropic => {
                        out.push(sse("content_block_start", json!({"type": "content_block_start", "index": index,
                            "content_block": {"type": "tool_use", "id": format!("toolu_sim_{index}"), "name": name, "input": {}}})));
                        for part in [first, second] {
                            out.push(sse("content_block_delta", json!({"type": "content_block_delta", "index": index,
                                "delta": {"type": "input_json_delta", "partial_json": part}})));
                        }
                        out.push(sse("content_block_stop", json!({"type": "content_block_stop", "index": index})));
                    }
                    Wire::OpenAi => {
                        out.push(data(json!({"id": "chatcmpl-sim", "object": "chat.completion.chunk",
                            "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": format!("call_sim_{index}"),
                            "type": "function", "function": {"name": name, "arguments": ""}}]}, "finish_reason": null}]})));
                        for part in [first, second] {
                            out.push(data(json!({"id": "chatcmpl-sim", "object": "chat.completion.chunk",
                                "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
                                "function": {"arguments": part}}]}, "finish_reason": null}]})));
                        }
                    }
                    Wire::Gemini => out.push(gemini(json!({"candidates": [{"content": {"parts": [
                        {"functionCall": {"name": name, "args": arguments}}], "role": "model"}, "index": 0}]}))),
                }
            }
        }
    }
    let stop = if has_calls { "tool_use" } else { "end_turn" };
    match wire {
        Wire::Anthropic => {
            out.push(sse("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": stop},
                "usage": {"output_tokens": completion}})));
            out.push(sse("message_stop", json!({"type": "message_stop"})));
        }
        Wire::OpenAi => {
            let reason = if has_calls { "tool_calls" } else { "stop" };
            out.push(data(json!({"id": "chatcmpl-sim", "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})));
            out.push(data(json!({"id": "chatcmpl-sim", "object": "chat.completion.chunk", "choices": [],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                "total_tokens": prompt_tokens + completion}})));
            out.push("data: [DONE]\n\n".to_owned());
        }
        Wire::Gemini => out.push(gemini(json!({"candidates": [{"content": {"parts": [{"text": ""}], "role": "model"},
            "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": prompt_tokens,
            "candidatesTokenCount": completion, "totalTokenCount": prompt_tokens + completion}}))),
    }
    out
}

fn stream_plan(wire: Wire, plan: Plan, prompt_tokens: u64) -> Response {
    let mut events = events(wire, &plan, prompt_tokens);
    match plan.ending {
        Ending::Complete => {}
        Ending::Hang => events.clear(),
        // Drop the terminating events: the connection breaks after the text.
        Ending::Cut => events.truncate(events.len().saturating_sub(3)),
    }
    let pause = plan.pause;
    let hang = matches!(plan.ending, Ending::Hang);
    let cut = matches!(plan.ending, Ending::Cut);
    let queue: std::collections::VecDeque<String> = events.into();
    let body = stream::unfold((queue, false), move |(mut queue, first)| async move {
        if first && !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        match queue.pop_front() {
            Some(event) => Some((Ok::<String, std::io::Error>(event), (queue, true))),
            None if hang => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                None
            }
            None if cut => Some((Err(std::io::Error::other("cut mid-stream")), (queue, true))),
            None => None,
        }
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
