//! Asking an MCP client's user before an exposed `server__tool` that needs confirmation runs:
//! MCP elicitation (a yes/no form) when the client supports it, else a refusal naming the setting.

use std::time::Duration;

use nexus_shared::{ErrorCode, ToolError};
use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, Peer};
use serde_json::{Map, Value};

use super::HostError;

/// How long the client's user has to answer before the call counts as declined.
pub const ELICIT_TIMEOUT: Duration = Duration::from_secs(300);
/// Longest arguments shown in the question, in characters.
const SHOWN_ARGS: usize = 2_000;

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

/// `Ok` when the user said yes; the error says why the call did not run.
pub async fn ask(peer: &Peer<RoleServer>, question: Question<'_>) -> Result<(), ToolError> {
    if !peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
    {
        return Err(HostError::NeedsConfirmation {
            tool: question.tool.to_owned(),
            why: question.why.to_owned(),
            allow: question.allow.to_owned(),
        }
        .to_tool_error());
    }
    let schema = ElicitationSchema::builder()
        .title("Run this tool?")
        .required_bool("run")
        .build()
        .map_err(|err| ToolError::new(ErrorCode::Internal, err))?;
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message(&question),
        requested_schema: schema,
    };
    let declined = || {
        ToolError::new(
            ErrorCode::NotAllowed,
            format!(
                "NotAllowed: the user declined `{}`; it did not run",
                question.tool
            ),
        )
        .with_hint("do not retry unless the user asks for it")
    };
    match peer
        .create_elicitation_with_timeout(params, Some(ELICIT_TIMEOUT))
        .await
    {
        Ok(answer) => {
            let yes = answer.action == ElicitationAction::Accept
                && answer
                    .content
                    .as_ref()
                    .and_then(|c| c.get("run"))
                    .and_then(Value::as_bool)
                    == Some(true);
            if yes { Ok(()) } else { Err(declined()) }
        }
        Err(err) => Err(ToolError::new(
            ErrorCode::NotAllowed,
            format!(
                "NotAllowed: could not ask the user to confirm `{}` ({err}); it did not run",
                question.tool
            ),
        )
        .with_hint(format!("to let agents call it unasked, {}", question.allow))),
    }
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
