//! OpenAI Chat Completions (and every server compatible with it): the streamed request body, and
//! the SSE chunks decoded (`delta.content`, `delta.tool_calls` assembled by index, usage, `[DONE]`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Event, LlmError, Part, Request, from_wire, json as parse, turns, wire_name};
use crate::chat::config::LlmConfig;
use crate::chat::prompt::Toolbox;

pub fn body(config: &LlmConfig, request: &Request<'_>) -> Value {
    let mut messages = vec![json!({"role": "system", "content": request.system})];
    for turn in turns(request.history, config.native_tools, request.tool_key) {
        if turn.assistant {
            let mut text = String::new();
            let mut calls = Vec::new();
            for part in turn.parts {
                match part {
                    Part::Text(t) => text.push_str(&t),
                    Part::Call {
                        id,
                        name,
                        arguments,
                    } => calls.push(json!({
                        "id": id, "type": "function",
                        "function": {"name": wire_name(&name), "arguments": arguments.to_string()}
                    })),
                    Part::Result { .. } => {}
                }
            }
            let mut message = json!({"role": "assistant", "content": text});
            if !calls.is_empty() {
                message["tool_calls"] = Value::Array(calls);
            }
            messages.push(message);
        } else {
            let mut text = String::new();
            for part in turn.parts {
                match part {
                    Part::Result { id, content, .. } => messages.push(json!({
                        "role": "tool", "tool_call_id": id, "content": content
                    })),
                    Part::Text(t) => {
                        if !text.is_empty() {
                            text.push_str("\n\n");
                        }
                        text.push_str(&t);
                    }
                    Part::Call { .. } => {}
                }
            }
            if !text.is_empty() {
                messages.push(json!({"role": "user", "content": text}));
            }
        }
    }
    let mut body = json!({
        "model": config.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
        "max_tokens": config.max_output_tokens,
    });
    if let Some(t) = config.temperature {
        body["temperature"] = json!(t);
    }
    if config.native_tools && !request.toolbox.tools.is_empty() {
        body["tools"] = request
            .toolbox
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": wire_name(&t.name), "description": t.description, "parameters": t.schema
                }})
            })
            .collect();
    }
    body
}

#[derive(Default)]
struct Pending {
    id: String,
    name: String,
    arguments: String,
}

pub struct Decoder {
    toolbox: Toolbox,
    calls: BTreeMap<u64, Pending>,
    done: bool,
}

impl Decoder {
    pub fn new(toolbox: Toolbox) -> Self {
        Self {
            toolbox,
            calls: BTreeMap::new(),
            done: false,
        }
    }

    fn flush(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.calls)
            .into_values()
            .enumerate()
            .map(|(n, call)| Event::ToolCall {
                id: if call.id.is_empty() {
                    super::local_call_id(n)
                } else {
                    call.id
                },
                name: from_wire(&self.toolbox, &call.name),
                // Unreadable arguments stay a string: the host's validation reports them.
                arguments: serde_json::from_str(if call.arguments.trim().is_empty() {
                    "{}"
                } else {
                    &call.arguments
                })
                .unwrap_or(Value::String(call.arguments)),
            })
            .collect()
    }
}

impl super::Decoder for Decoder {
    fn event(&mut self, _name: &str, data: &str) -> Result<Vec<Event>, LlmError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(self.flush());
        }
        let chunk = parse(data)?;
        if let Some(error) = chunk.get("error") {
            return Err(LlmError::Fatal(format!(
                "the provider reported an error: {error}"
            )));
        }
        let mut out = Vec::new();
        if let Some(choice) = chunk["choices"].get(0) {
            let delta = &choice["delta"];
            if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
                out.push(Event::Text(text.to_owned()));
            }
            for call in delta["tool_calls"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
            {
                let index = call["index"].as_u64().unwrap_or(0);
                let pending = self.calls.entry(index).or_default();
                if let Some(id) = call["id"].as_str() {
                    pending.id = id.to_owned();
                }
                if let Some(name) = call["function"]["name"].as_str() {
                    pending.name.push_str(name);
                }
                if let Some(arguments) = call["function"]["arguments"].as_str() {
                    pending.arguments.push_str(arguments);
                }
            }
            if choice["finish_reason"].is_string() {
                out.extend(self.flush());
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            out.push(Event::Usage {
                prompt: usage["prompt_tokens"].as_u64(),
                completion: usage["completion_tokens"].as_u64(),
            });
        }
        Ok(out)
    }

    fn end(&mut self) -> Result<Vec<Event>, LlmError> {
        if self.done {
            Ok(Vec::new())
        } else {
            Err(LlmError::Transient("the stream ended before [DONE]".into()))
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
    fn text_tool_call_deltas_and_usage_decode() {
        let mut decoder = Decoder::new(toolbox());
        let mut events = Vec::new();
        for data in [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"nexus__search","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"query\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"main\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}"#,
            "[DONE]",
        ] {
            events.extend(decoder.event("", data).unwrap());
        }
        assert_eq!(decoder.end(), Ok(vec![]));
        assert_eq!(
            events,
            vec![
                Event::Text("Hi".into()),
                Event::ToolCall {
                    id: "call_1".into(),
                    name: "nexus:search".into(),
                    arguments: json!({"query": "main"})
                },
                Event::Usage {
                    prompt: Some(12),
                    completion: Some(7)
                },
            ]
        );
        let mut cut = Decoder::new(toolbox());
        cut.event("", r#"{"choices":[{"delta":{"content":"Hi"}}]}"#)
            .unwrap();
        assert!(matches!(cut.end(), Err(LlmError::Transient(_))));
    }

    #[test]
    fn the_body_carries_tools_and_the_tool_messages() {
        let config = LlmConfig {
            kind: ProviderKind::OpenAi,
            model: "m".into(),
            base_url: String::new(),
            key: ApiKey::default(),
            native_tools: true,
            max_output_tokens: 100,
            key_source: String::new(),
            temperature: Some(0.25),
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
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(
            body["temperature"], 0.25,
            "the configured temperature is sent"
        );
        assert_eq!(
            body["messages"][2]["tool_calls"][0]["function"]["name"],
            "nexus__search"
        );
        assert_eq!(body["messages"][3]["role"], "tool");
        assert_eq!(body["messages"][3]["tool_call_id"], "c1");
        assert_eq!(body["tools"][0]["function"]["name"], "nexus__search");
        assert_eq!(body["stream"], true);
    }
}
