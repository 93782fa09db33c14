//! The MCP conformance suite's fixtures (`--features conformance-fixtures`, debug builds only): the
//! tools, prompts and resources its server scenarios call, served beside Nexus's own on `/mcp`.
//!
//! Each fixture answers what the suite's reference server (`examples/servers/typescript/
//! everything-server.ts` in the suite's repository) answers; everything else goes to Nexus's
//! handler unchanged, so the suite also checks Nexus's own tools, resources and wire.

#![expect(
    deprecated,
    reason = "the suite still checks logging, which SEP-2577 deprecates; the fixtures serve it"
)]

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientResult,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequest, InputRequests,
    InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, LoggingMessageNotificationParam, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerConfig, ServerRequest, SetLevelRequestParams, SubscribeRequestParams,
    SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::mcp::NexusMcp;

/// A 1×1 red PNG, as the suite's reference server sends it.
const IMAGE: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV file.
const AUDIO: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
/// How long a fixture waits between its notifications (the suite checks their order).
const STEP: Duration = Duration::from_millis(50);
/// The prefix of the template resource's URIs (`test://template/{id}/data`).
const TEMPLATE_PREFIX: &str = "test://template/";

/// Nexus's handler with the fixtures in front.
pub struct Fixtures(NexusMcp);

impl From<NexusMcp> for Fixtures {
    fn from(nexus: NexusMcp) -> Self {
        Self(nexus)
    }
}

/// A fixture's JSON as the rmcp type the handler returns.
fn typed<T: DeserializeOwned>(value: Value) -> Result<T, McpError> {
    serde_json::from_value(value)
        .map_err(|err| McpError::internal_error(format!("conformance fixture: {err}"), None))
}

/// `requestState`s handed out by the multi-round fixtures, with what each stands for: a state the
/// bridge did not hand out (a tampered one) is refused.
fn states() -> &'static Mutex<HashMap<String, Value>> {
    static STATES: OnceLock<Mutex<HashMap<String, Value>>> = OnceLock::new();
    STATES.get_or_init(Mutex::default)
}

fn issue_state(meaning: Value) -> String {
    let state = format!("{:032x}", fastrand::u128(..));
    states()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .insert(state.clone(), meaning);
    state
}

fn redeem_state(state: Option<&str>) -> Option<Value> {
    let state = state?;
    states()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .remove(state)
}

/// Whether `test_trigger_tool_change` has run (it adds `test_dynamic_tool`); every change wakes
/// the open `subscriptions/listen` streams.
fn tool_changes() -> &'static tokio::sync::watch::Sender<bool> {
    static CHANGES: OnceLock<tokio::sync::watch::Sender<bool>> = OnceLock::new();
    CHANGES.get_or_init(|| tokio::sync::watch::channel(false).0)
}

fn elicit(message: &str, field: &str, kind: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": { field: { "type": kind } },
                "required": [field]
            }
        }
    })
}

fn sample(prompt: &str, max_tokens: u32) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
            "maxTokens": max_tokens
        }
    })
}

fn list_roots() -> Value {
    json!({ "method": "roots/list", "params": {} })
}

/// An `input_required` result asking `requests` (key → request JSON), with an optional state.
fn ask(requests: &[(&str, Value)], state: Option<String>) -> Result<InputRequiredResult, McpError> {
    let mut asked = InputRequests::new();
    for (key, request) in requests {
        asked.insert((*key).to_owned(), typed::<InputRequest>(request.clone())?);
    }
    Ok(InputRequiredResult::new(Some(asked), state))
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![rmcp::model::ContentBlock::text(text.into())])
}

/// A field of an elicitation answer's `content`.
fn answered(response: Option<&Value>, field: &str) -> String {
    response
        .and_then(|r| r.pointer(&format!("/content/{field}")))
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_owned()
}

fn empty_schema() -> Value {
    json!({ "type": "object", "properties": {} })
}

/// The fixture tools as `tools/list` shows them.
fn tools() -> Value {
    let plain = [
        ("test_simple_text", "Tests simple text content response"),
        ("test_image_content", "Tests image content response"),
        ("test_audio_content", "Tests audio content response"),
        (
            "test_embedded_resource",
            "Tests embedded resource content response",
        ),
        (
            "test_multiple_content_types",
            "Tests response with multiple content types (text, image, resource)",
        ),
        (
            "test_tool_with_logging",
            "Tests tool that emits log messages during execution",
        ),
        (
            "test_tool_with_progress",
            "Tests tool that reports progress notifications",
        ),
        ("test_error_handling", "Tests error response handling"),
        (
            "test_elicitation_sep1034_defaults",
            "Tests elicitation with default values per SEP-1034",
        ),
        (
            "test_elicitation_sep1330_enums",
            "Tests elicitation with enum schema improvements per SEP-1330",
        ),
        (
            "test_input_required_result_elicitation",
            "MRTR: returns InputRequiredResult with elicitation request",
        ),
        (
            "test_input_required_result_sampling",
            "MRTR: returns InputRequiredResult with sampling request",
        ),
        (
            "test_input_required_result_list_roots",
            "MRTR: returns InputRequiredResult with roots/list request",
        ),
        (
            "test_input_required_result_request_state",
            "MRTR: returns InputRequiredResult with requestState",
        ),
        (
            "test_input_required_result_multiple_inputs",
            "MRTR: returns InputRequiredResult with multiple input requests",
        ),
        (
            "test_input_required_result_multi_round",
            "MRTR: multi-round InputRequiredResult workflow",
        ),
        (
            "test_input_required_result_tampered_state",
            "MRTR: server-held requestState integrity test",
        ),
        (
            "test_input_required_result_capabilities",
            "MRTR: respects client capabilities in inputRequests",
        ),
        ("test_missing_capability", "Test tool requiring sampling"),
        (
            "test_trigger_tool_change",
            "Adds test_dynamic_tool to this list and announces the change",
        ),
    ];
    let dynamic = (
        "test_dynamic_tool",
        "Listed once test_trigger_tool_change has run",
    );
    let mut tools: Vec<Value> = plain
        .iter()
        .chain((*tool_changes().borrow()).then_some(&dynamic))
        .map(|(name, description)| {
            json!({ "name": name, "description": description, "inputSchema": empty_schema() })
        })
        .collect();
    let with_string = |name: &str, description: &str, field: &str, about: &str| {
        json!({
            "name": name,
            "description": description,
            "inputSchema": {
                "type": "object",
                "properties": { field: { "type": "string", "description": about } },
                "required": [field]
            }
        })
    };
    tools.push(with_string(
        "test_sampling",
        "Tests server-initiated sampling (LLM completion request)",
        "prompt",
        "The prompt to send to the LLM",
    ));
    tools.push(with_string(
        "test_elicitation",
        "Tests server-initiated elicitation (user input request)",
        "message",
        "The message to show the user",
    ));
    tools.push(json!({
        "name": "json_schema_2020_12_tool",
        "description": "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
                }
            },
            "properties": {
                "name": { "type": "string" },
                "address": { "$ref": "#/$defs/address" },
                "contactMethod": { "type": "string", "enum": ["phone", "email"] },
                "phone": { "type": "string" },
                "email": { "type": "string" }
            },
            "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
            "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
            "then": { "required": ["phone"] },
            "else": { "required": ["email"] },
            "additionalProperties": false
        }
    }));
    Value::Array(tools)
}

fn resources() -> Value {
    json!([
        { "uri": "test://static-text", "name": "static-text", "title": "Static Text Resource",
          "description": "A static text resource for testing", "mimeType": "text/plain" },
        { "uri": "test://static-binary", "name": "static-binary", "title": "Static Binary Resource",
          "description": "A static binary resource (image) for testing", "mimeType": "image/png" },
        { "uri": "test://watched-resource", "name": "watched-resource", "title": "Watched Resource",
          "description": "A resource clients may subscribe to", "mimeType": "text/plain" }
    ])
}

fn prompts() -> Value {
    json!([
        { "name": "test_simple_prompt", "title": "Simple Test Prompt",
          "description": "A simple prompt without arguments" },
        { "name": "test_prompt_with_arguments", "title": "Prompt With Arguments",
          "description": "A prompt with required arguments",
          "arguments": [
              { "name": "arg1", "description": "First test argument", "required": true },
              { "name": "arg2", "description": "Second test argument", "required": true }
          ] },
        { "name": "test_prompt_with_embedded_resource", "title": "Prompt With Embedded Resource",
          "description": "A prompt that includes an embedded resource",
          "arguments": [ { "name": "resourceUri", "description": "URI of the resource to embed", "required": true } ] },
        { "name": "test_prompt_with_image", "title": "Prompt With Image",
          "description": "A prompt that includes image content" },
        { "name": "test_input_required_result_prompt",
          "description": "MRTR: prompt that requires elicitation input" }
    ])
}

/// The contents of a fixture resource, `None` for another URI.
fn resource(uri: &str) -> Option<Value> {
    let contents = match uri {
        "test://static-text" => json!({ "uri": uri, "mimeType": "text/plain",
            "text": "This is the content of the static text resource." }),
        "test://static-binary" => json!({ "uri": uri, "mimeType": "image/png", "blob": IMAGE }),
        "test://watched-resource" => json!({ "uri": uri, "mimeType": "text/plain",
            "text": "Watched resource content" }),
        _ => {
            let id = uri.strip_prefix(TEMPLATE_PREFIX)?.strip_suffix("/data")?;
            if id.is_empty() || id.contains('/') {
                return None;
            }
            json!({ "uri": uri, "mimeType": "application/json",
                "text": json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string() })
        }
    };
    Some(
        json!({ "resultType": "complete", "contents": [contents], "ttlMs": 300000, "cacheScope": "private" }),
    )
}

impl Fixtures {
    /// A fixture tool's answer, `None` when `request` names none.
    async fn call(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CallToolResponse, McpError>> {
        let responses = request.input_responses.as_ref();
        let response = |key: &str| responses.and_then(|r| r.get(key));
        let content = |blocks: Value| {
            typed::<CallToolResult>(json!({ "resultType": "complete", "content": blocks }))
        };
        let name = request.name.as_ref();
        let malformed = responses.and_then(|r| r.iter().find(|(_, answer)| !answer.is_object()));
        if let Some((key, _)) = malformed.filter(|_| name.starts_with("test_input_required_result"))
        {
            return Some(Err(McpError::invalid_params(
                format!("inputResponses `{key}` is not a result object"),
                None,
            )));
        }
        let answer = match name {
            "test_simple_text" => Ok(text("This is a simple text response for testing.")),
            "test_image_content" => {
                content(json!([{ "type": "image", "data": IMAGE, "mimeType": "image/png" }]))
            }
            "test_audio_content" => {
                content(json!([{ "type": "audio", "data": AUDIO, "mimeType": "audio/wav" }]))
            }
            "test_embedded_resource" => content(json!([{ "type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain",
                "text": "This is an embedded resource content." } }])),
            "test_multiple_content_types" => content(json!([
                { "type": "text", "text": "Multiple content types test:" },
                { "type": "image", "data": IMAGE, "mimeType": "image/png" },
                { "type": "resource", "resource": { "uri": "test://mixed-content-resource",
                  "mimeType": "application/json", "text": json!({ "test": "data", "value": 123 }).to_string() } }
            ])),
            "test_error_handling" => Ok(CallToolResult::error(vec![
                rmcp::model::ContentBlock::text(
                    "This tool intentionally returns an error for testing",
                ),
            ])),
            "json_schema_2020_12_tool" => Ok(text(format!(
                "JSON Schema 2020-12 tool called with: {}",
                Value::Object(request.arguments.clone().unwrap_or_default())
            ))),
            "test_missing_capability" => {
                if context
                    .client_capabilities()
                    .is_some_and(|caps| caps.sampling.is_some())
                {
                    Ok(text("Success"))
                } else {
                    return Some(
                        typed::<ClientCapabilities>(json!({ "sampling": {} })).and_then(|caps| {
                            Err(McpError::missing_required_client_capability(caps))
                        }),
                    );
                }
            }
            "test_trigger_tool_change" => {
                tool_changes().send_replace(true);
                Ok(text("test_dynamic_tool added"))
            }
            "test_dynamic_tool" if *tool_changes().borrow() => Ok(text("dynamic tool called")),
            "test_tool_with_logging" => Ok(self.logging(context).await),
            "test_tool_with_progress" => Ok(progress(context).await),
            "test_sampling" => {
                let prompt = argument(request, "prompt");
                Ok(ask_client(context, sample(&prompt, 100), |result| {
                    let said = result
                        .pointer("/content/text")
                        .and_then(Value::as_str)
                        .unwrap_or("No response");
                    format!("LLM response: {said}")
                })
                .await)
            }
            "test_elicitation" => {
                let message = argument(request, "message");
                let mut form = elicit(&message, "response", "string");
                form["params"]["requestedSchema"]["properties"]["response"]["description"] =
                    json!("User's response");
                Ok(ask_client(context, form, |result| {
                    format!(
                        "User response: action={}, content={}",
                        result["action"].as_str().unwrap_or_default(),
                        result.get("content").cloned().unwrap_or(json!({}))
                    )
                })
                .await)
            }
            "test_elicitation_sep1034_defaults" => {
                Ok(ask_client(context, defaults_form(), elicitation_completed).await)
            }
            "test_elicitation_sep1330_enums" => {
                Ok(ask_client(context, enums_form(), elicitation_completed).await)
            }
            "test_input_required_result_elicitation" => match response("user_name") {
                Some(answer) => Ok(text(format!("Hello, {}!", answered(Some(answer), "name")))),
                None => {
                    return Some(
                        ask(
                            &[("user_name", elicit("What is your name?", "name", "string"))],
                            None,
                        )
                        .map(Into::into),
                    );
                }
            },
            "test_input_required_result_sampling" => match response("sample_request") {
                Some(answer) => Ok(text(format!(
                    "Sampling result: {}",
                    answer
                        .pointer("/content/text")
                        .and_then(Value::as_str)
                        .unwrap_or("no response")
                ))),
                None => {
                    return Some(
                        ask(
                            &[(
                                "sample_request",
                                sample("What is the capital of France?", 100),
                            )],
                            None,
                        )
                        .map(Into::into),
                    );
                }
            },
            "test_input_required_result_list_roots" => match response("roots_request") {
                Some(answer) => Ok(text(format!(
                    "Found {} root(s)",
                    answer["roots"].as_array().map_or(0, Vec::len)
                ))),
                None => {
                    return Some(ask(&[("roots_request", list_roots())], None).map(Into::into));
                }
            },
            "test_input_required_result_request_state" => {
                let state = redeem_state(request.request_state.as_deref());
                let confirmed = response("confirm")
                    .and_then(|r| r.pointer("/content/ok"))
                    .and_then(Value::as_bool)
                    == Some(true);
                if state.is_some_and(|s| s == json!("request-state")) && confirmed {
                    Ok(text("state-ok: requestState validated"))
                } else {
                    let state = issue_state(json!("request-state"));
                    return Some(
                        ask(
                            &[("confirm", elicit("Please confirm", "ok", "boolean"))],
                            Some(state),
                        )
                        .map(Into::into),
                    );
                }
            }
            "test_input_required_result_multiple_inputs" => {
                let state = redeem_state(request.request_state.as_deref());
                match (
                    state,
                    response("user_name"),
                    response("greeting"),
                    response("client_roots"),
                ) {
                    (Some(state), Some(name), Some(greeting), Some(roots))
                        if state == json!("multiple-inputs") =>
                    {
                        Ok(text(format!(
                            "Name: {}; Greeting: {}; Roots: {}",
                            answered(Some(name), "name"),
                            greeting
                                .pointer("/content/text")
                                .and_then(Value::as_str)
                                .unwrap_or("Hello there!"),
                            roots["roots"].as_array().map_or(0, Vec::len)
                        )))
                    }
                    _ => {
                        let state = issue_state(json!("multiple-inputs"));
                        return Some(
                            ask(
                                &[
                                    ("user_name", elicit("What is your name?", "name", "string")),
                                    ("greeting", sample("Generate a greeting", 50)),
                                    ("client_roots", list_roots()),
                                ],
                                Some(state),
                            )
                            .map(Into::into),
                        );
                    }
                }
            }
            "test_input_required_result_multi_round" => {
                let state = redeem_state(request.request_state.as_deref());
                let round = state.as_ref().and_then(|s| s["round"].as_u64());
                match (round, response("step1"), response("step2")) {
                    (Some(1), Some(step1), _) => {
                        let name = answered(Some(step1), "name");
                        let state = issue_state(json!({ "round": 2, "name": name }));
                        return Some(
                            ask(
                                &[(
                                    "step2",
                                    elicit(
                                        "Step 2: What is your favorite color?",
                                        "color",
                                        "string",
                                    ),
                                )],
                                Some(state),
                            )
                            .map(Into::into),
                        );
                    }
                    (Some(2), _, Some(step2)) => {
                        let name = state
                            .as_ref()
                            .and_then(|s| s["name"].as_str())
                            .unwrap_or("friend")
                            .to_owned();
                        Ok(text(format!(
                            "Multi-round complete for {name} who likes {}",
                            answered(Some(step2), "color")
                        )))
                    }
                    _ => {
                        let state = issue_state(json!({ "round": 1 }));
                        return Some(
                            ask(
                                &[(
                                    "step1",
                                    elicit("Step 1: What is your name?", "name", "string"),
                                )],
                                Some(state),
                            )
                            .map(Into::into),
                        );
                    }
                }
            }
            "test_input_required_result_tampered_state" => {
                if let Some(given) = request.request_state.as_deref() {
                    return Some(match redeem_state(Some(given)) {
                        Some(state)
                            if state == json!("tamper-test") && response("confirm").is_some() =>
                        {
                            Ok(text("integrity-ok: state verified").into())
                        }
                        Some(_) => Err(McpError::invalid_params(
                            "requestState does not match this call",
                            None,
                        )),
                        None => Err(McpError::invalid_params(
                            "requestState integrity check failed",
                            None,
                        )),
                    });
                }
                let state = issue_state(json!("tamper-test"));
                return Some(
                    ask(
                        &[("confirm", elicit("Please confirm", "ok", "boolean"))],
                        Some(state),
                    )
                    .map(Into::into),
                );
            }
            "test_input_required_result_capabilities" => {
                if let Some(responses) = responses.filter(|r| !r.is_empty()) {
                    let keys: Vec<&str> = responses.keys().map(String::as_str).collect();
                    Ok(text(format!(
                        "capabilities-ok: received {}",
                        keys.join(",")
                    )))
                } else {
                    let caps = context.client_capabilities();
                    let mut requests = Vec::new();
                    if caps.as_ref().is_some_and(|c| c.elicitation.is_some()) {
                        requests.push((
                            "elicit_input",
                            elicit("Elicitation input", "value", "string"),
                        ));
                    }
                    if caps.as_ref().is_some_and(|c| c.sampling.is_some()) {
                        requests.push(("sample_input", sample("Sample request", 50)));
                    }
                    if requests.is_empty() {
                        Ok(text("No supported capabilities declared"))
                    } else {
                        return Some(ask(&requests, None).map(Into::into));
                    }
                }
            }
            _ => return None,
        };
        Some(answer.map(Into::into))
    }

    /// `test_tool_with_logging`: three `info` log messages, then the answer.
    async fn logging(&self, context: &RequestContext<RoleServer>) -> CallToolResult {
        for (i, message) in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ]
        .iter()
        .enumerate()
        {
            if i > 0 {
                tokio::time::sleep(STEP).await;
            }
            if let Ok(param) = typed::<LoggingMessageNotificationParam>(
                json!({ "level": "info", "data": message }),
            ) {
                let _ = context.peer.notify_logging_message(param).await;
            }
        }
        text("Tool with logging executed successfully")
    }
}

/// `test_tool_with_progress`: progress 0, 50 and 100 of 100 when the call asked for progress.
async fn progress(context: &RequestContext<RoleServer>) -> CallToolResult {
    let token = context.meta.get_progress_token();
    for (i, done) in [0u32, 50, 100].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        if let Some(token) = &token {
            let param = ProgressNotificationParam::new(token.clone(), f64::from(done))
                .with_total(100.0)
                .with_message(format!("Completed step {done} of 100"));
            let _ = context.peer.notify_progress(param).await;
        }
    }
    let shown = token
        .and_then(|t| serde_json::to_value(t).ok())
        .map(|t| match t {
            Value::String(s) => s,
            other => other.to_string(),
        })
        .unwrap_or_else(|| "0".into());
    text(shown)
}

fn argument(request: &CallToolRequestParams, name: &str) -> String {
    request
        .arguments
        .as_ref()
        .and_then(|args| args.get(name))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Sends `request` to the client during the call (protocols before 2026-07-28) and words its
/// answer with `say`; an error result when the client cannot be asked.
async fn ask_client(
    context: &RequestContext<RoleServer>,
    request: Value,
    say: impl FnOnce(&Value) -> String,
) -> CallToolResult {
    if context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
    {
        return CallToolResult::error(vec![rmcp::model::ContentBlock::text(
            "protocol 2026-07-28 has no server-to-client requests: the test_input_required_result_* tools ask through their results",
        )]);
    }
    let request = match typed::<ServerRequest>(request) {
        Ok(request) => request,
        Err(err) => {
            return CallToolResult::error(vec![rmcp::model::ContentBlock::text(err.message)]);
        }
    };
    match context.peer.send_request(request).await {
        Ok(result) => {
            let result = match result {
                ClientResult::CreateMessageResult(result) => serde_json::to_value(result),
                ClientResult::ElicitResult(result) => serde_json::to_value(result),
                other => serde_json::to_value(other),
            }
            .unwrap_or_default();
            text(say(&result))
        }
        Err(err) => CallToolResult::error(vec![rmcp::model::ContentBlock::text(format!(
            "the client could not be asked: {err}"
        ))]),
    }
}

fn elicitation_completed(result: &Value) -> String {
    format!(
        "Elicitation completed: action={}, content={}",
        result["action"].as_str().unwrap_or_default(),
        result.get("content").cloned().unwrap_or(json!({}))
    )
}

/// SEP-1034: a form whose every primitive field has a default.
fn defaults_form() -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": "Please review and update the form fields with defaults",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "name": { "type": "string", "description": "User name", "default": "John Doe" },
                    "age": { "type": "integer", "description": "User age", "default": 30 },
                    "score": { "type": "number", "description": "User score", "default": 95.5 },
                    "status": { "type": "string", "description": "User status",
                                "enum": ["active", "inactive", "pending"], "default": "active" },
                    "verified": { "type": "boolean", "description": "Verification status", "default": true }
                },
                "required": []
            }
        }
    })
}

/// SEP-1330: the five enum forms.
fn enums_form() -> Value {
    let titled = |titles: [&str; 3]| {
        json!([
            { "const": "value1", "title": titles[0] },
            { "const": "value2", "title": titles[1] },
            { "const": "value3", "title": titles[2] }
        ])
    };
    json!({
        "method": "elicitation/create",
        "params": {
            "message": "Please select options from the enum fields",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "untitledSingle": { "type": "string", "description": "Select one option",
                                        "enum": ["option1", "option2", "option3"] },
                    "titledSingle": { "type": "string", "description": "Select one option with titles",
                                      "oneOf": titled(["First Option", "Second Option", "Third Option"]) },
                    "legacyEnum": { "type": "string", "description": "Select one option (legacy)",
                                    "enum": ["opt1", "opt2", "opt3"],
                                    "enumNames": ["Option One", "Option Two", "Option Three"] },
                    "untitledMulti": { "type": "array", "description": "Select multiple options",
                                       "minItems": 1, "maxItems": 3,
                                       "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
                    "titledMulti": { "type": "array", "description": "Select multiple options with titles",
                                     "minItems": 1, "maxItems": 3,
                                     "items": { "anyOf": titled(["First Choice", "Second Choice", "Third Choice"]) } }
                },
                "required": []
            }
        }
    })
}

/// A prompt's messages, `None` for another name.
fn prompt(request: &GetPromptRequestParams) -> Option<Result<GetPromptResponse, McpError>> {
    let argument = |name: &str| {
        request
            .arguments
            .as_ref()
            .and_then(|args| args.get(name))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let messages = match request.name.as_str() {
        "test_simple_prompt" => json!([
            { "role": "user", "content": { "type": "text", "text": "This is a simple prompt for testing." } }
        ]),
        "test_prompt_with_arguments" => json!([
            { "role": "user", "content": { "type": "text",
              "text": format!("Prompt with arguments: arg1='{}', arg2='{}'", argument("arg1"), argument("arg2")) } }
        ]),
        "test_prompt_with_embedded_resource" => json!([
            { "role": "user", "content": { "type": "resource", "resource": {
                "uri": argument("resourceUri"), "mimeType": "text/plain",
                "text": "Embedded resource content for testing." } } },
            { "role": "user", "content": { "type": "text", "text": "Please process the embedded resource above." } }
        ]),
        "test_prompt_with_image" => json!([
            { "role": "user", "content": { "type": "image", "data": IMAGE, "mimeType": "image/png" } },
            { "role": "user", "content": { "type": "text", "text": "Please analyze the image above." } }
        ]),
        "test_input_required_result_prompt" => {
            let context = request
                .input_responses
                .as_ref()
                .and_then(|r| r.get("user_context"));
            let Some(context) = context else {
                return Some(
                    ask(
                        &[(
                            "user_context",
                            elicit("What context should the prompt use?", "context", "string"),
                        )],
                        None,
                    )
                    .map(Into::into),
                );
            };
            json!([
                { "role": "user", "content": { "type": "text",
                  "text": format!("Prompt with context: {}", answered(Some(context), "context")) } }
            ])
        }
        _ => return None,
    };
    Some(
        typed::<GetPromptResult>(json!({ "resultType": "complete", "messages": messages }))
            .map(Into::into),
    )
}

/// `items` of a list result with the suite's caching hints.
fn listed<T: DeserializeOwned>(key: &str, items: Value) -> Result<T, McpError> {
    typed(json!({ "resultType": "complete", key: items, "ttlMs": 300000, "cacheScope": "public" }))
}

impl ServerHandler for Fixtures {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.0.get_info();
        let caps = &mut info.capabilities;
        caps.logging = Some(Map::new());
        caps.completions = Some(Map::new());
        caps.resources
            .get_or_insert_with(Default::default)
            .subscribe = Some(true);
        info
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let mut result = self.0.list_tools(request, context).await?;
        result.tools.extend(typed::<Vec<Tool>>(tools())?);
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        match self.call(&request, &context).await {
            Some(answer) => answer,
            None => self.0.call_tool(request, context).await,
        }
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.0.accepted_subscription_filter(requested)
    }

    /// Nexus's stream, plus `tools/list_changed` when `test_trigger_tool_change` runs.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let sink = context.sink().clone();
        let wants_tools = context.accepted().tools_list_changed == Some(true);
        let mut changes = tool_changes().subscribe();
        let announce = async move {
            while wants_tools && changes.changed().await.is_ok() {
                if sink.notify_tool_list_changed().await.is_err() {
                    break;
                }
            }
            std::future::pending::<()>().await
        };
        tokio::select! {
            done = self.0.listen(context) => done,
            () = announce => Ok(()),
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let mut result = self.0.list_resources(request, context).await?;
        let fixtures: ListResourcesResult = listed("resources", resources())?;
        result.resources.extend(fixtures.resources);
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        listed(
            "resourceTemplates",
            json!([{ "uriTemplate": "test://template/{id}/data", "name": "template",
                     "title": "Resource Template",
                     "description": "A resource template with parameter substitution",
                     "mimeType": "application/json" }]),
        )
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        match resource(&request.uri) {
            Some(contents) => typed::<ReadResourceResult>(contents).map(Into::into),
            None => self.0.read_resource(request, context).await,
        }
    }

    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Ok(())
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Ok(())
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let level = serde_json::to_value(request.level).unwrap_or_default();
        if let Ok(param) = typed::<LoggingMessageNotificationParam>(json!({
            "level": "info",
            "logger": "conformance-fixtures",
            "data": format!("Log level set to: {}", level.as_str().unwrap_or_default())
        })) {
            let _ = context.peer.notify_logging_message(param).await;
        }
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        listed("prompts", prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        prompt(&request).unwrap_or_else(|| {
            Err(McpError::invalid_params(
                format!("no prompt named `{}`", request.name),
                None,
            ))
        })
    }
}
