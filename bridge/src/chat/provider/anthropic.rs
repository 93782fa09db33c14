//! Anthropic Messages: the streamed request body, and its SSE events decoded (`text_delta`,
//! `tool_use` blocks with `input_json_delta`, usage from `message_start`/`message_delta`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Event, LlmError, Part, Request, from_wire, json as parse, turns, wire_name};
use crate::chat::config::LlmConfig;
use crate::chat::prompt::Toolbox;

pub fn body(config: &LlmConfig, request: &Request<'_>) -> Value {
    let messages: Vec<Value> = turns(request.history, config.native_tools, request.tool_key)
        .into_iter()
        .map(|turn| {
            let content: Vec<Value> = turn
                .parts
                .into_iter()
                .filter_map(|part| match part {
                    Part::Text(text) if text.is_empty() => None,
                    Part::Text(text) => Some(json!({"type": "text", "text": text})),
                    Part::Call {
                        id,
                        name,
                        arguments,
                    } => Some(json!({
                        "type": "tool_use", "id": id, "name": wire_name(&name), "input": arguments
                    })),
                    Part::Result {
                        id,
                        content,
                        is_error,
                        ..
                    } => Some(json!({
                        "type": "tool_result", "tool_use_id": id, "content": content,
                        "is_error": is_error
                    })),
                })
                .collect();
            json!({"role": if turn.assistant { "assistant" } else { "user" }, "content": content})
        })
        .collect();
    let mut body = json!({
        "model": config.model,
        "system": request.system,
        "messages": messages,
        "max_tokens": config.max_output_tokens,
        "stream": true,
    });
    if let Some(t) = config.temperature {
        body["temperature"] = json!(t);
    }
    if config.native_tools && !request.toolbox.tools.is_empty() {
        body["tools"] = request
            .toolbox
            .tools
            .iter()
            .map(|t| json!({"name": wire_name(&t.name), "description": t.description, "input_schema": t.schema}))
            .collect();
    }
    body
}

struct Block {
    id: String,
    name: String,
    input: String,
}

pub struct Decoder {
    toolbox: Toolbox,
    blocks: BTreeMap<u64, Block>,
    done: bool,
}

impl Decoder {
    pub fn new(toolbox: Toolbox) -> Self {
        Self {
            toolbox,
            blocks: BTreeMap::new(),
            done: false,
        }
    }
}

impl super::Decoder for Decoder {
    fn event(&mut self, name: &str, data: &str) -> Result<Vec<Event>, LlmError> {
        if name == "ping" {
            return Ok(Vec::new());
        }
        let event = parse(data)?;
        let kind = event["type"].as_str().unwrap_or(name);
        let index = event["index"].as_u64().unwrap_or(0);
        Ok(match kind {
            "message_start" => vec![Event::Usage {
                prompt: event["message"]["usage"]["input_tokens"].as_u64(),
                completion: event["message"]["usage"]["output_tokens"].as_u64(),
            }],
            "content_block_start" => {
                let block = &event["content_block"];
                if block["type"] == "tool_use" {
                    self.blocks.insert(
                        index,
                        Block {
                            id: block["id"].as_str().unwrap_or_default().to_owned(),
                            name: block["name"].as_str().unwrap_or_default().to_owned(),
                            input: String::new(),
                        },
                    );
                }
                Vec::new()
            }
            "content_block_delta" => {
                let delta = &event["delta"];
                match delta["type"].as_str() {
                    Some("text_delta") => delta["text"]
                        .as_str()
                        .filter(|t| !t.is_empty())
                        .map(|t| vec![Event::Text(t.to_owned())])
                        .unwrap_or_default(),
                    Some("input_json_delta") => {
                        if let (Some(block), Some(part)) =
                            (self.blocks.get_mut(&index), delta["partial_json"].as_str())
                        {
                            block.input.push_str(part);
                        }
                        Vec::new()
                    }
                    _ => Vec::new(),
                }
            }
            "content_block_stop" => match self.blocks.remove(&index) {
                Some(block) => {
                    let input = if block.input.trim().is_empty() {
                        "{}"
                    } else {
                        &block.input
                    };
                    vec![Event::ToolCall {
                        id: block.id,
                        name: from_wire(&self.toolbox, &block.name),
                        arguments: serde_json::from_str(input)
                            .unwrap_or_else(|_| Value::String(block.input.clone())),
                    }]
                }
                None => Vec::new(),
            },
            "message_delta" => vec![Event::Usage {
                prompt: event["usage"]["input_tokens"].as_u64(),
                completion: event["usage"]["output_tokens"].as_u64(),
            }],
            "message_stop" => {
                self.done = true;
                Vec::new()
            }
            "error" => {
                let error = &event["error"];
                let message = format!(
                    "anthropic reported {}: {}",
                    error["type"].as_str().unwrap_or("an error"),
                    error["message"].as_str().unwrap_or_default()
                );
                return Err(match error["type"].as_str() {
                    Some("overloaded_error" | "rate_limit_error" | "api_error") => {
                        LlmError::Transient(message)
                    }
                    _ => LlmError::Fatal(message),
                });
            }
            _ => Vec::new(),
        })
    }

    fn end(&mut self) -> Result<Vec<Event>, LlmError> {
        if self.done {
            Ok(Vec::new())
        } else {
            Err(LlmError::Transient(
                "the stream ended before message_stop".into(),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Decoder as _;
    use super::*;
    use crate::chat::config::{ApiKey, ProviderKind};
    use crate::chat::prompt::ToolDef;

    fn toolbox() -> Toolbox {
        Toolbox {
            tools: vec![ToolDef {
                name: "nexus:search".into(),
                description: "Find".into(),
                schema: json!({"type": "object"}),
            }],
            guidance: vec![],
        }
    }

    #[test]
    fn text_tool_use_and_usage_decode() {
        let mut decoder = Decoder::new(toolbox());
        let mut events = Vec::new();
        for (name, data) in [
            (
                "message_start",
                r#"{"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ),
            ("ping", r#"{"type": "ping"}"#),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"nexus__search","input":{}}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"ma"}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"in\"}"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":1}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":15}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ] {
            events.extend(decoder.event(name, data).unwrap());
        }
        assert_eq!(decoder.end(), Ok(vec![]));
        assert_eq!(
            events,
            vec![
                Event::Usage {
                    prompt: Some(25),
                    completion: Some(1)
                },
                Event::Text("Hello".into()),
                Event::ToolCall {
                    id: "toolu_1".into(),
                    name: "nexus:search".into(),
                    arguments: json!({"query": "main"})
                },
                Event::Usage {
                    prompt: None,
                    completion: Some(15)
                },
            ]
        );
        let overloaded = Decoder::new(toolbox()).event(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert!(matches!(overloaded, Err(LlmError::Transient(_))));
    }

    #[test]
    fn the_body_has_tool_use_and_tool_result_blocks() {
        let config = LlmConfig {
            kind: ProviderKind::Anthropic,
            model: "m".into(),
            base_url: String::new(),
            key: ApiKey::default(),
            native_tools: true,
            max_output_tokens: 100,
            key_source: String::new(),
            temperature: None,
            prompt_addition: None,
        };
        let history = super::super::tests::history();
        let toolbox = toolbox();
        let body = body(
            &config,
            &Request {
                system: "sys",
                history: &history,
                toolbox: &toolbox,
                tool_key: None,
            },
        );
        assert_eq!(body["system"], "sys");
        assert_eq!(body["messages"][1]["content"][1]["type"], "tool_use");
        assert_eq!(body["messages"][2]["content"][0]["type"], "tool_result");
        assert_eq!(body["tools"][0]["name"], "nexus__search");
    }
}
