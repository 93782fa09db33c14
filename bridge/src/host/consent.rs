//! Asking an MCP client's user before an exposed `server__tool` that needs confirmation runs: MCP
//! elicitation (a yes/no form) when the client supports it, else a refusal naming the setting.
//! Protocol 2026-07-28 and later ask through the call's result (`input_required`, then the
//! client's retry with the answer); older ones send `elicitation/create` during the call, as
//! `ClientUser` does for a hosted server's own questions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use nexus_shared::{ErrorCode, ToolError};
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequests, InputRequiredResult, ProtocolVersion,
};
use rmcp::service::{Peer, RequestContext};
use serde_json::{Map, Value};

use super::HostError;
use super::input::Asker;

/// How long the client's user has to answer before the call counts as declined.
pub const ELICIT_TIMEOUT: Duration = Duration::from_secs(300);
/// Longest arguments shown in the question, in characters.
const SHOWN_ARGS: usize = 2_000;
/// The key of the one input request a confirmation sends.
const CONFIRM_KEY: &str = "confirm";

/// What the client's user is asked about.
pub struct Question<'a> {
    /// `server:tool`.
    pub tool: &'a str,
    pub args: &'a Map<String, Value>,
    /// The policy's reason, in words.
    pub why: &'a str,
    pub destructive: bool,
    /// The setting that lets it run unasked.
    pub allow: &'a str,
}

/// Whether the call may run.
pub enum Consent {
    Granted,
    /// It did not run, and why.
    Refused(ToolError),
    /// Answer the call with this: the client asks its user and calls again with the answer.
    Ask(InputRequiredResult),
}

/// Questions sent in an `input_required` result, by their `requestState`, until the client
/// calls again (once) or `ELICIT_TIMEOUT` passes: the answer counts only for the same tool and
/// arguments.
#[derive(Default)]
pub struct Asked(Mutex<HashMap<String, AskedCall>>);

/// The call a question was asked for: `server:tool`, its arguments, when.
type AskedCall = (String, Map<String, Value>, Instant);

impl Asked {
    fn put(&self, tool: &str, args: &Map<String, Value>) -> String {
        let mut bytes = [0u8; 16];
        if getrandom::fill(&mut bytes).is_err() {
            bytes[..8].copy_from_slice(&fastrand::u64(..).to_be_bytes());
            bytes[8..].copy_from_slice(&super::unix_ms().to_be_bytes());
        }
        let state: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut asked = self.0.lock().unwrap_or_else(|p| p.into_inner());
        asked.retain(|_, (_, _, at)| at.elapsed() < ELICIT_TIMEOUT);
        asked.insert(
            state.clone(),
            (tool.to_owned(), args.clone(), Instant::now()),
        );
        state
    }

    fn take(&self, state: &str) -> Option<(String, Map<String, Value>)> {
        let mut asked = self.0.lock().unwrap_or_else(|p| p.into_inner());
        asked
            .remove(state)
            .filter(|(_, _, at)| at.elapsed() < ELICIT_TIMEOUT)
            .map(|(tool, args, _)| (tool, args))
    }
}

/// Asks (or reads the answer to) `question` for the call `params` of the client behind `context`.
pub async fn consent(
    context: &RequestContext<RoleServer>,
    params: &CallToolRequestParams,
    asked: &Asked,
    question: Question<'_>,
) -> Consent {
    let form = context
        .client_capabilities()
        .and_then(|caps| caps.elicitation)
        .is_some_and(|e| e.form.is_some() || e.url.is_none());
    if !form {
        return Consent::Refused(
            HostError::NeedsConfirmation {
                tool: question.tool.to_owned(),
                why: question.why.to_owned(),
                allow: question.allow.to_owned(),
            }
            .to_tool_error(),
        );
    }
    let declined = || {
        Consent::Refused(
            ToolError::new(
                ErrorCode::NotAllowed,
                format!(
                    "NotAllowed: the user declined `{}`; it did not run",
                    question.tool
                ),
            )
            .with_hint("do not retry unless the user asks for it"),
        )
    };
    let schema = match ElicitationSchema::builder()
        .title("Run this tool?")
        .required_bool("run")
        .build()
    {
        Ok(schema) => schema,
        Err(err) => return Consent::Refused(ToolError::new(ErrorCode::Internal, err)),
    };
    let elicit = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message(&question),
        requested_schema: schema,
    };
    let modern = context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
    if modern {
        let Some(state) = &params.request_state else {
            let state = asked.put(question.tool, question.args);
            let mut requests = InputRequests::new();
            requests.insert(
                CONFIRM_KEY.to_owned(),
                InputRequest::Elicitation(ElicitRequest::new(elicit)),
            );
            return Consent::Ask(InputRequiredResult::new(Some(requests), Some(state)));
        };
        let same_call = asked
            .take(state)
            .is_some_and(|(tool, args)| tool == question.tool && &args == question.args);
        if !same_call {
            return Consent::Refused(ToolError::new(
                ErrorCode::NotAllowed,
                format!(
                    "NotAllowed: the confirmation does not match a question asked for this call of `{}` (or it expired); it did not run",
                    question.tool
                ),
            ).with_hint("call the tool again to be asked afresh"));
        }
        let answer = params
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get(CONFIRM_KEY))
            .and_then(|value| serde_json::from_value::<ElicitResult>(value.clone()).ok());
        return if answer.as_ref().is_some_and(said_yes) {
            Consent::Granted
        } else {
            declined()
        };
    }
    match context
        .peer
        .create_elicitation_with_timeout(elicit, Some(ELICIT_TIMEOUT))
        .await
    {
        Ok(answer) if said_yes(&answer) => Consent::Granted,
        Ok(_) => declined(),
        Err(err) => Consent::Refused(
            ToolError::new(
                ErrorCode::NotAllowed,
                format!(
                    "NotAllowed: could not ask the user to confirm `{}` ({err}); it did not run",
                    question.tool
                ),
            )
            .with_hint(format!("to let agents call it unasked, {}", question.allow)),
        ),
    }
}

/// An agent's MCP client that shows its user a hosted server's question during a call: one that
/// supports form elicitation at a protocol before 2026-07-28 (later ones take no requests
/// during a call; their calls' questions are declined).
#[derive(Debug)]
pub struct ClientUser(Peer<RoleServer>);

impl ClientUser {
    /// The asker of the client behind `context`, if it can ask during a call.
    pub fn of(context: &RequestContext<RoleServer>) -> Option<Arc<dyn Asker>> {
        let form = context
            .client_capabilities()
            .and_then(|caps| caps.elicitation)
            .is_some_and(|e| e.form.is_some() || e.url.is_none());
        let during_call = context
            .protocol_version()
            .is_some_and(|version| version < ProtocolVersion::V_2026_07_28);
        (form && during_call).then(|| Arc::new(ClientUser(context.peer.clone())) as Arc<dyn Asker>)
    }
}

impl Asker for ClientUser {
    fn elicit(&self, request: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, String>> {
        Box::pin(async move {
            self.0
                .create_elicitation_with_timeout(request, Some(ELICIT_TIMEOUT))
                .await
                .map_err(|err| err.to_string())
        })
    }
}

/// Accepted with `run: true`.
fn said_yes(answer: &ElicitResult) -> bool {
    answer.action == ElicitationAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|content| content.get("run"))
            .and_then(Value::as_bool)
            == Some(true)
}

/// The question as the client shows it: the tool, whether it may destroy data, the arguments.
fn message(question: &Question<'_>) -> String {
    let mut args = serde_json::to_string_pretty(question.args).unwrap_or_default();
    if let Some((cut, _)) = args.char_indices().nth(SHOWN_ARGS) {
        args.truncate(cut);
        args.push('…');
    }
    let effect = if question.destructive {
        "it may change or delete data"
    } else {
        "the server says it does not destroy data"
    };
    format!(
        "An agent asks Nexus to run `{}` ({effect}; it needs your confirmation because {}).\nArguments:\n{args}\nRun it once?",
        question.tool, question.why
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_answer_counts_once_for_the_same_call_only() {
        let asked = Asked::default();
        let Value::Object(args) = json!({"path": "/tmp/x"}) else {
            panic!("object");
        };
        let state = asked.put("fs:write_file", &args);
        assert_eq!(state.len(), 32);
        assert_eq!(
            asked.take(&state),
            Some(("fs:write_file".to_owned(), args.clone()))
        );
        assert_eq!(asked.take(&state), None);
        assert_eq!(asked.take("made-up"), None);
        let yes = ElicitResult::new(ElicitationAction::Accept).with_content(json!({"run": true}));
        let no = ElicitResult::new(ElicitationAction::Accept).with_content(json!({"run": false}));
        assert!(said_yes(&yes));
        assert!(!said_yes(&no));
        assert!(!said_yes(&ElicitResult::new(ElicitationAction::Decline)));
    }

    #[test]
    fn the_question_names_tool_effect_reason_and_arguments() {
        let Value::Object(args) = json!({"path": "/tmp/x", "text": "y".repeat(3000)}) else {
            panic!("object");
        };
        let text = message(&Question {
            tool: "fs:write_file",
            args: &args,
            why: "the server does not mark it read-only (readOnlyHint)",
            destructive: true,
            allow: "add …",
        });
        assert!(text.contains("`fs:write_file`"), "{text}");
        assert!(text.contains("it may change or delete data"), "{text}");
        assert!(text.contains("\"path\": \"/tmp/x\""), "{text}");
        assert!(text.contains("readOnlyHint"), "{text}");
        assert!(text.chars().count() < SHOWN_ARGS + 400, "{}", text.len());
    }
}
