//! The LLM service's wire side: one streamed request to the configured provider (Anthropic
//! Messages, OpenAI Chat Completions or Gemini `streamGenerateContent`), decoded into events.

mod anthropic;
mod gemini;
mod openai;

use std::pin::Pin;

use eventsource_stream::Eventsource;
use futures_util::{Stream, StreamExt};
use nexus_shared::chat::{ChatMessage, ChatRole};
use serde_json::{Map, Value};

use super::config::{LlmConfig, ProviderKind};
use super::fence::fence;
use super::prompt::Toolbox;

/// What the provider's stream says, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Text(String),
    /// A native function call (name already mapped back to `server:tool` where it is one).
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
    /// Token counts the provider reported (each field only when reported; later ones replace).
    Usage {
        prompt: Option<u64>,
        completion: Option<u64>,
    },
}

/// Why a request failed; transient ones are retried.
#[derive(Debug, Clone, PartialEq)]
pub enum LlmError {
    Transient(String),
    Fatal(String),
}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LlmError::Transient(m) | LlmError::Fatal(m) => f.write_str(m),
        }
    }
}

/// One request: the compiled system prompt, the (pruned) history and the tools.
pub struct Request<'a> {
    pub system: &'a str,
    pub history: &'a [ChatMessage],
    pub toolbox: &'a Toolbox,
    /// The turn's key for the text protocol's blocks (`None` with native calling).
    pub tool_key: Option<&'a str>,
}

/// The neutral form of the history every provider formats from: alternating turns of parts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    Text(String),
    Call {
        id: String,
        name: String,
        arguments: Value,
    },
    Result {
        id: String,
        name: String,
        content: String,
        is_error: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Turn {
    /// True for the assistant's turns.
    pub assistant: bool,
    pub parts: Vec<Part>,
}

/// Largest tool result sent back to the model, in characters.
const MAX_RESULT_CHARS: usize = 24_000;

/// The history as turns. With `native` off, calls become ```` ```tool KEY ```` blocks (the
/// model's own calls, under this turn's key) and results become the user's text, as the text
/// protocol has them. Every result is fenced as data.
pub(crate) fn turns(history: &[ChatMessage], native: bool, key: Option<&str>) -> Vec<Turn> {
    let mut out: Vec<Turn> = Vec::new();
    for message in history {
        let (assistant, part) = match message.role {
            ChatRole::User => (
                false,
                Part::Text(message.content.clone().unwrap_or_default()),
            ),
            ChatRole::System => (
                false,
                Part::Text(format!(
                    "[Nexus] {}",
                    message.content.as_deref().unwrap_or_default()
                )),
            ),
            ChatRole::Assistant => match (&message.tool_name, &message.data) {
                (Some(name), Some(data)) => {
                    let id = data["call_id"].as_str().unwrap_or_default().to_owned();
                    let arguments = match &data["arguments"] {
                        Value::Object(map) => Value::Object(map.clone()),
                        _ => Value::Object(Map::new()),
                    };
                    if native {
                        (
                            true,
                            Part::Call {
                                id,
                                name: name.clone(),
                                arguments,
                            },
                        )
                    } else {
                        let call = serde_json::json!({"tool": name, "arguments": arguments});
                        let fence = match key {
                            Some(key) => format!("```tool {key}"),
                            None => "```tool".to_owned(),
                        };
                        (true, Part::Text(format!("{fence}\n{call}\n```")))
                    }
                }
                _ => match message.content.as_deref() {
                    Some(text) if !text.is_empty() => (true, Part::Text(text.to_owned())),
                    _ => continue,
                },
            },
            ChatRole::Tool => {
                let data = message.data.clone().unwrap_or(Value::Null);
                let id = data["call_id"].as_str().unwrap_or_default().to_owned();
                let name = message.tool_name.clone().unwrap_or_default();
                let is_error = data["is_error"].as_bool().unwrap_or(false);
                let mut content = match &data["result"] {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                if content.chars().count() > MAX_RESULT_CHARS {
                    content = content.chars().take(MAX_RESULT_CHARS).collect();
                    content.push_str("\n[result cut to its first 24000 characters]");
                }
                let content = fence(&name, &content);
                if native {
                    (
                        false,
                        Part::Result {
                            id,
                            name,
                            content,
                            is_error,
                        },
                    )
                } else {
                    let label = if is_error { "failed" } else { "returned" };
                    (
                        false,
                        Part::Text(format!("Tool {name} {label}:\n{content}")),
                    )
                }
            }
        };
        match out.last_mut() {
            Some(turn) if turn.assistant == assistant => turn.parts.push(part),
            _ => out.push(Turn {
                assistant,
                parts: vec![part],
            }),
        }
    }
    out
}

/// A qualified name as providers accept function names (`[A-Za-z0-9_-]`, ≤ 64): `server__tool`.
pub(crate) fn wire_name(qualified: &str) -> String {
    let name: String = qualified
        .replacen(':', "__", 1)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    name.chars().take(64).collect()
}

/// A function name from the provider back to the toolbox's qualified name (unchanged if unknown).
pub(crate) fn from_wire(toolbox: &Toolbox, name: &str) -> String {
    toolbox
        .tools
        .iter()
        .find(|t| wire_name(&t.name) == name)
        .map(|t| t.name.clone())
        .unwrap_or_else(|| name.to_owned())
}

/// Decodes one provider's server-sent events.
pub(crate) trait Decoder: Send {
    /// One SSE event (`event:` name, `data:`); the events it completes.
    fn event(&mut self, name: &str, data: &str) -> Result<Vec<Event>, LlmError>;
    /// The stream ended; the events still held, or an error when it ended too early.
    fn end(&mut self) -> Result<Vec<Event>, LlmError>;
}

type SseStream = Pin<
    Box<
        dyn Stream<
                Item = Result<
                    eventsource_stream::Event,
                    eventsource_stream::EventStreamError<reqwest::Error>,
                >,
            > + Send,
    >,
>;

/// A response being read.
pub struct Response {
    events: SseStream,
    decoder: Box<dyn Decoder>,
    ended: bool,
}

impl Response {
    /// The next batch of events; `None` once the stream has ended cleanly.
    pub async fn next(&mut self) -> Option<Result<Vec<Event>, LlmError>> {
        if self.ended {
            return None;
        }
        match self.events.next().await {
            Some(Ok(event)) => Some(self.decoder.event(&event.event, &event.data)),
            Some(Err(err)) => {
                self.ended = true;
                Some(Err(LlmError::Transient(format!("the stream broke: {err}"))))
            }
            None => {
                self.ended = true;
                Some(self.decoder.end())
            }
        }
    }
}

/// One question outside any conversation: `question` under the system prompt `system`, no tools,
/// the answer's text whole.
pub async fn complete(
    client: &reqwest::Client,
    config: &LlmConfig,
    system: &str,
    question: String,
) -> Result<String, LlmError> {
    let history = [ChatMessage {
        id: String::new(),
        role: ChatRole::User,
        content: Some(question),
        data: None,
        created_at: 0,
        tool_name: None,
    }];
    let toolbox = Toolbox::default();
    let request = Request {
        system,
        history: &history,
        toolbox: &toolbox,
        tool_key: None,
    };
    let mut config = config.clone();
    config.native_tools = false;
    let mut response = open(client, &config, &request).await?;
    let mut text = String::new();
    while let Some(batch) = response.next().await {
        for event in batch? {
            if let Event::Text(piece) = event {
                text.push_str(&piece);
            }
        }
    }
    Ok(text)
}

/// Sends the request; the response's status decides transient or fatal failures.
pub async fn open(
    client: &reqwest::Client,
    config: &LlmConfig,
    request: &Request<'_>,
) -> Result<Response, LlmError> {
    let (url, body, decoder): (String, Value, Box<dyn Decoder>) = match config.kind {
        ProviderKind::Anthropic => (
            format!("{}/v1/messages", config.base_url),
            anthropic::body(config, request),
            Box::new(anthropic::Decoder::new(request.toolbox.clone())),
        ),
        ProviderKind::OpenAi => (
            format!("{}/chat/completions", config.base_url),
            openai::body(config, request),
            Box::new(openai::Decoder::new(request.toolbox.clone())),
        ),
        ProviderKind::Gemini => (
            format!(
                "{}/v1beta/models/{}:streamGenerateContent?alt=sse",
                config.base_url, config.model
            ),
            gemini::body(config, request),
            Box::new(gemini::Decoder::new(request.toolbox.clone())),
        ),
    };
    let mut builder = client
        .post(&url)
        .json(&body)
        .header("accept", "text/event-stream");
    if !config.key.is_empty() {
        builder = match config.kind {
            ProviderKind::Anthropic => builder.header("x-api-key", config.key.expose()),
            ProviderKind::OpenAi => builder.bearer_auth(config.key.expose()),
            ProviderKind::Gemini => builder.header("x-goog-api-key", config.key.expose()),
        };
    }
    if config.kind == ProviderKind::Anthropic {
        builder = builder.header("anthropic-version", "2023-06-01");
    }
    let response = builder.send().await.map_err(|err| {
        // reqwest's message names the URL, never the headers (the key).
        LlmError::Transient(format!("cannot reach {}: {err}", config.kind.name()))
    })?;
    let status = response.status();
    if !status.is_success() {
        let snippet = crate::provider_http::error_text(response, 300).await;
        let message = format!("{} answered {status}: {snippet}", config.kind.name());
        let transient = status.as_u16() == 429
            || status.as_u16() == 408
            || status.as_u16() == 529
            || status.is_server_error();
        return Err(if transient {
            LlmError::Transient(message)
        } else {
            LlmError::Fatal(message)
        });
    }
    Ok(Response {
        events: Box::pin(response.bytes_stream().eventsource()),
        decoder,
        ended: false,
    })
}

/// Parses a JSON event payload.
pub(crate) fn json(data: &str) -> Result<Value, LlmError> {
    serde_json::from_str(data)
        .map_err(|err| LlmError::Fatal(format!("the provider sent an unreadable event ({err})")))
}

/// A call id for providers that give none (Gemini).
pub(crate) fn local_call_id(n: usize) -> String {
    format!("call_{n}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_redirect_is_an_error_and_the_key_never_reaches_its_target() {
        use crate::provider_http::tests::{redirect_to, serve};
        let (target, target_heard) =
            serve(|_| b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".to_vec()).await;
        let (base_url, heard) = serve(redirect_to(target)).await;
        let client = crate::provider_http::client(None);
        let toolbox = Toolbox::default();
        let history = history();
        let request = Request {
            system: "sys",
            history: &history,
            toolbox: &toolbox,
            tool_key: None,
        };
        for kind in [
            ProviderKind::Anthropic,
            ProviderKind::OpenAi,
            ProviderKind::Gemini,
        ] {
            let config = LlmConfig {
                kind,
                model: "m".into(),
                base_url: base_url.clone(),
                key: crate::chat::config::ApiKey::from("sk-redirected-key".to_owned()),
                native_tools: true,
                max_output_tokens: 100,
                key_source: String::new(),
                temperature: None,
                prompt_addition: None,
            };
            let Err(LlmError::Fatal(message)) = open(&client, &config, &request).await else {
                panic!("{kind:?}: a redirect must fail");
            };
            assert!(
                message.contains("307") && message.contains("not followed"),
                "{message}"
            );
            assert!(!message.contains("sk-redirected-key"), "{message}");
        }
        let heard = heard.lock().unwrap();
        assert_eq!(heard.len(), 3);
        assert!(heard.iter().all(|head| head.contains("sk-redirected-key")));
        assert!(
            target_heard.lock().unwrap().is_empty(),
            "a redirect was followed"
        );
    }

    fn message(
        role: ChatRole,
        content: Option<&str>,
        data: Option<Value>,
        tool: Option<&str>,
    ) -> ChatMessage {
        ChatMessage {
            id: String::new(),
            role,
            content: content.map(str::to_owned),
            data,
            created_at: 0,
            tool_name: tool.map(str::to_owned),
        }
    }

    pub(crate) fn history() -> Vec<ChatMessage> {
        vec![
            message(ChatRole::User, Some("where is main?"), None, None),
            message(ChatRole::Assistant, Some("Looking."), None, None),
            message(
                ChatRole::Assistant,
                None,
                Some(
                    json!({"call_id": "c1", "tool": "nexus:search", "arguments": {"query": "main"}}),
                ),
                Some("nexus:search"),
            ),
            message(
                ChatRole::Tool,
                None,
                Some(json!({"call_id": "c1", "result": "main.rs:1", "is_error": false})),
                Some("nexus:search"),
            ),
        ]
    }

    #[test]
    fn history_becomes_alternating_turns_in_both_protocols() {
        let native = turns(&history(), true, None);
        assert_eq!(native.len(), 3);
        assert!(native[1].assistant);
        assert!(matches!(&native[1].parts[1], Part::Call { name, .. } if name == "nexus:search"));
        let fenced = "⟦data from nexus:search⟧\nmain.rs:1\n⟦/data⟧";
        assert!(matches!(&native[2].parts[0], Part::Result { content, .. } if content == fenced));
        let text = turns(&history(), false, Some("k3y"));
        assert!(
            matches!(&text[1].parts[1], Part::Text(t) if t.starts_with("```tool k3y\n{") && t.contains("\"query\":\"main\""))
        );
        assert!(
            matches!(&text[2].parts[0], Part::Text(t) if t == &format!("Tool nexus:search returned:\n{fenced}"))
        );
    }

    #[test]
    fn tool_names_travel_in_the_providers_alphabet() {
        assert_eq!(wire_name("nexus:search"), "nexus__search");
        assert_eq!(wire_name("my.server:get time"), "my_server__get_time");
        let toolbox = Toolbox {
            tools: vec![super::super::prompt::ToolDef {
                name: "nexus:search".into(),
                description: String::new(),
                schema: json!({}),
            }],
            guidance: vec![],
        };
        assert_eq!(from_wire(&toolbox, "nexus__search"), "nexus:search");
        assert_eq!(from_wire(&toolbox, "made_up"), "made_up");
    }
}
