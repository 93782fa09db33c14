//! Asking an MCP client's user before an exposed `server__tool` that needs confirmation runs: MCP
//! elicitation (a yes/no form) when the client supports it, else a refusal naming the setting.
//! Protocol 2026-07-28 and later ask through the call's result (`input_required`, then the
//! client's retry with the answer); older ones send `elicitation/create` during the call, as
//! `ClientUser` does for a hosted server's own questions.

use std::sync::Arc;
use std::time::Duration;

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
use super::pending::{self, Pending};

/// How long the client's user has to answer before the call counts as declined.
pub const ELICIT_TIMEOUT: Duration = pending::ANSWER_TIMEOUT;
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

/// Asks (or reads the answer to) `question` for the call `params` of the client behind `context`.
pub async fn consent(
    context: &RequestContext<RoleServer>,
    params: &CallToolRequestParams,
    pending: &Pending,
    question: Question<'_>,
) -> Consent {
    if !asks_forms(context) {
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
    if answers_in_rounds(context) {
        let Some(state) = &params.request_state else {
            let state = pending.confirmation(question.tool, question.args);
            let mut requests = InputRequests::new();
            requests.insert(
                CONFIRM_KEY.to_owned(),
                InputRequest::Elicitation(ElicitRequest::new(elicit)),
            );
            return Consent::Ask(InputRequiredResult::new(Some(requests), Some(state)));
        };
        let same_call = pending
            .take_confirmation(state, question.tool, question.args)
            .is_ok();
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
/// during a call: their calls' questions go through `input_required` rounds, `pending.rs`).
#[derive(Debug)]
pub struct ClientUser(Peer<RoleServer>);

impl ClientUser {
    /// The asker of the client behind `context`, if it can ask during a call.
    pub fn of(context: &RequestContext<RoleServer>) -> Option<Arc<dyn Asker>> {
        (asks_forms(context) && !answers_in_rounds(context))
            .then(|| Arc::new(ClientUser(context.peer.clone())) as Arc<dyn Asker>)
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

/// Whether the client behind `context` shows its user forms (MCP form elicitation).
pub fn asks_forms(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|caps| caps.elicitation)
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// Whether the client takes questions only through a call's result (`input_required` and a
/// retry, protocol 2026-07-28 and later) rather than as requests during the call.
pub fn answers_in_rounds(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
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
    fn only_an_accepted_run_true_says_yes() {
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
