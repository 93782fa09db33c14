//! Gemini `streamGenerateContent?alt=sse`: the request body (contents, systemInstruction,
//! functionDeclarations), and each streamed response decoded (text and functionCall parts, usage).

use serde_json::{Map, Value, json};

use super::{
    Event, LlmError, Part, Request, from_wire, json as parse, local_call_id, turns, wire_name,
};
use crate::chat::config::LlmConfig;
use crate::chat::prompt::Toolbox;

/// JSON Schema keywords Gemini's OpenAPI subset refuses.
const UNSUPPORTED: &[&str] = &[
    "$schema",
    "additionalProperties",
    "$defs",
    "definitions",
    "$ref",
    "default",
    "examples",
    "title",
];

fn schema_for_gemini(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !UNSUPPORTED.contains(&k.as_str()))
                .map(|(k, v)| {
                    // `properties` holds names, not keywords: clean each property's schema only.
                    let v = if k == "properties" {
                        match v {
                            Value::Object(props) => Value::Object(
                                props
                                    .iter()
                                    .map(|(p, s)| (p.clone(), schema_for_gemini(s)))
                                    .collect(),
                            ),
                            other => other.clone(),
                        }
                    } else {
                        schema_for_gemini(v)
                    };
                    (k.clone(), v)
                })
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(schema_for_gemini).collect()),
        other => other.clone(),
    }
}

pub fn body(config: &LlmConfig, request: &Request<'_>) -> Value {
    let contents: Vec<Value> = turns(request.history, config.native_tools, request.tool_key)
        .into_iter()
        .map(|turn| {
            let parts: Vec<Value> = turn
                .parts
                .into_iter()
                .map(|part| match part {
                    Part::Text(text) => json!({"text": text}),
                    Part::Call { name, arguments, .. } => {
                        json!({"functionCall": {"name": wire_name(&name), "args": arguments}})
                    }
                    Part::Result { name, content, is_error, .. } => json!({"functionResponse": {
                        "name": wire_name(&name),
                        "response": if is_error { json!({"error": content}) } else { json!({"result": content}) }
                    }}),
                })
                .collect();
            json!({"role": if turn.assistant { "model" } else { "user" }, "parts": parts})
        })
        .collect();
    let mut body = json!({
        "contents": contents,
        "systemInstruction": {"parts": [{"text": request.system}]},
        "generationConfig": {"maxOutputTokens": config.max_output_tokens},
    });
    if let Some(t) = config.temperature {
        body["generationConfig"]["temperature"] = json!(t);
    }
    if config.native_tools && !request.toolbox.tools.is_empty() {
        let declarations: Vec<Value> = request
            .toolbox
            .tools
            .iter()
            .map(|t| json!({"name": wire_name(&t.name), "description": t.description, "parameters": schema_for_gemini(&t.schema)}))
            .collect();
        body["tools"] = json!([{"functionDeclarations": declarations}]);
    }
    body
}

pub struct Decoder {
    toolbox: Toolbox,
    calls: usize,
    finished: bool,
}

impl Decoder {
    pub fn new(toolbox: Toolbox) -> Self {
        Self {
            toolbox,
            calls: 0,
            finished: false,
        }
    }
}

impl super::Decoder for Decoder {
    fn event(&mut self, _name: &str, data: &str) -> Result<Vec<Event>, LlmError> {
        let response = parse(data)?;
        if let Some(error) = response.get("error") {
            return Err(LlmError::Fatal(format!(
                "gemini reported an error: {error}"
            )));
        }
        let mut out = Vec::new();
        if let Some(candidate) = response["candidates"].get(0) {
            for part in candidate["content"]["parts"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
            {
                if let Some(text) = part["text"].as_str().filter(|t| !t.is_empty())
                    && part["thought"].as_bool() != Some(true)
                {
                    out.push(Event::Text(text.to_owned()));
                }
                if let Some(call) = part.get("functionCall") {
                    self.calls += 1;
                    out.push(Event::ToolCall {
                        id: call["id"]
                            .as_str()
                            .map(str::to_owned)
                            .unwrap_or_else(|| local_call_id(self.calls)),
                        name: from_wire(&self.toolbox, call["name"].as_str().unwrap_or_default()),
                        arguments: match &call["args"] {
                            Value::Null => Value::Object(Map::new()),
                            args => args.clone(),
                        },
                    });
                }
            }
            if candidate["finishReason"].is_string() {
                self.finished = true;
            }
        }
        if let Some(usage) = response.get("usageMetadata") {
            out.push(Event::Usage {
                prompt: usage["promptTokenCount"].as_u64(),
                completion: usage["candidatesTokenCount"].as_u64(),
            });
        }
        Ok(out)
    }

    fn end(&mut self) -> Result<Vec<Event>, LlmError> {
        if self.finished {
            Ok(Vec::new())
        } else {
            Err(LlmError::Transient(
                "the stream ended before a finishReason".into(),
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
                schema: json!({"type": "object", "additionalProperties": false,
                    "properties": {"title": {"type": "string", "default": "x"}}}),
            }],
            guidance: vec![],
        }
    }

    #[test]
    fn text_function_calls_and_usage_decode() {
        let mut decoder = Decoder::new(toolbox());
        let mut events = Vec::new();
        for data in [
            r#"{"candidates":[{"content":{"parts":[{"text":"Let me"}],"role":"model"}}],"usageMetadata":{"promptTokenCount":9}}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"nexus__search","args":{"query":"main"}}}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":4,"totalTokenCount":13}}"#,
        ] {
            events.extend(decoder.event("", data).unwrap());
        }
        assert_eq!(decoder.end(), Ok(vec![]));
        assert_eq!(events[0], Event::Text("Let me".into()));
        assert_eq!(
            events[2],
            Event::ToolCall {
                id: "call_1".into(),
                name: "nexus:search".into(),
                arguments: json!({"query": "main"})
            }
        );
        assert_eq!(
            events[3],
            Event::Usage {
                prompt: Some(9),
                completion: Some(4)
            }
        );
        let mut cut = Decoder::new(toolbox());
        cut.event(
            "",
            r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}"#,
        )
        .unwrap();
        assert!(cut.end().is_err());
    }

    #[test]
    fn the_body_uses_model_turns_and_cleaned_declarations() {
        let config = LlmConfig {
            kind: ProviderKind::Gemini,
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
        assert_eq!(body["contents"][1]["role"], "model");
        assert_eq!(
            body["contents"][1]["parts"][1]["functionCall"]["name"],
            "nexus__search"
        );
        assert_eq!(
            body["contents"][2]["parts"][0]["functionResponse"]["response"]["result"],
            "⟦data from nexus:search⟧\nmain.rs:1\n⟦/data⟧"
        );
        let parameters = &body["tools"][0]["functionDeclarations"][0]["parameters"];
        assert!(parameters.get("additionalProperties").is_none());
        assert!(parameters["properties"]["title"].get("default").is_none());
        assert_eq!(parameters["properties"]["title"]["type"], "string");
    }
}
