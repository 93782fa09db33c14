//! The suite's tasks-extension fixtures (SEP-2663: `greet`, `slow_compute`, `failing_job`, ...)
//! run in Nexus's task table, and `test_mcp_param_header`, a tool with an `x-mcp-header` argument.
//!
//! Tools whose task support is `required` refuse a client without the extension with `-32021`;
//! `optional` ones run in the call for such a client.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    CreateTaskResult, InputRequest,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskContext, TaskExit, TaskFuture, TaskManager};
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::{answered, argument, ask, elicit, issue_state, redeem_state, text, typed};
use crate::mcp_tasks;

/// How long `failing_job` and the other short jobs work before they settle.
const JOB: Duration = Duration::from_millis(200);
/// The longest `slow_compute` sleeps, whatever it is asked.
const LONGEST: u64 = 120;
/// What `test_tool_with_task`'s first round hands out as its `requestState`.
const COMPOSITION_STATE: &str = "tool-with-task";

/// The fixtures as `tools/list` shows them.
pub fn tools() -> Vec<Value> {
    let object = |properties: Value, required: &[&str]| json!({ "type": "object", "properties": properties, "required": required });
    vec![
        json!({ "name": "greet", "description": "Says hello (never a task)",
                "inputSchema": object(json!({ "name": { "type": "string" } }), &["name"]) }),
        json!({ "name": "slow_compute",
                "description": "Sleeps `seconds` then answers; a task for clients with the tasks extension",
                "inputSchema": object(json!({ "seconds": { "type": "number" },
                                               "label": { "type": "string" } }), &["seconds"]) }),
        json!({ "name": "failing_job", "description": "A task (required) that ends in a tool error",
                "inputSchema": object(json!({}), &[]) }),
        json!({ "name": "protocol_error_job",
                "description": "A task that ends in a protocol error",
                "inputSchema": object(json!({}), &[]) }),
        json!({ "name": "confirm_delete",
                "description": "A task (required) that asks the client to confirm, then answers",
                "inputSchema": object(json!({ "filename": { "type": "string" } }), &["filename"]) }),
        json!({ "name": "multi_input",
                "description": "A task (required) that asks two questions at once",
                "inputSchema": object(json!({}), &[]) }),
        json!({ "name": "test_tool_with_task",
                "description": "Asks a name through input_required, then answers as a task (required)",
                "inputSchema": object(json!({}), &[]) }),
        json!({ "name": "test_mcp_param_header",
                "description": "Echoes `region`, which HTTP clients also send as Mcp-Param-Region",
                "inputSchema": object(json!({ "region": { "type": "string", "x-mcp-header": "Region",
                    "description": "The region to echo" } }), &["region"]) }),
    ]
}

/// A fixture's answer, `None` when `request` names none of these.
pub async fn call(
    tasks: &TaskManager,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, McpError>> {
    let declared = mcp_tasks::client_declares_tasks(context);
    let name = request.name.as_ref();
    let required = matches!(
        name,
        "failing_job" | "confirm_delete" | "multi_input" | "test_tool_with_task"
    );
    if required && !declared {
        return Some(Err(McpError::missing_required_client_capability(
            ClientCapabilities::builder().enable_tasks().build(),
        )));
    }
    let task = |work: fn(TaskContext, CallToolRequestParams) -> TaskFuture| {
        let request = request.clone();
        let created = tasks.spawn(mcp_tasks::options(), move |context| work(context, request));
        Ok(CallToolResponse::Task(CreateTaskResult::new(created)))
    };
    Some(match name {
        "greet" => Ok(text(format!("Hello, {}!", argument(request, "name"))).into()),
        "test_mcp_param_header" => {
            Ok(text(format!("region: {}", argument(request, "region"))).into())
        }
        "slow_compute" if declared => task(|context, request| {
            Box::pin(async move {
                tokio::select! {
                    () = tokio::time::sleep(seconds(&request)) => Ok(computed(&request)),
                    () = context.cancelled() => Err(TaskExit::Cancelled),
                }
            })
        }),
        "slow_compute" => tokio::select! {
            () = tokio::time::sleep(seconds(request)) => Ok(computed(request).into()),
            () = context.ct.cancelled() => Err(McpError::internal_error("the client cancelled the call", None)),
        },
        "failing_job" => task(|_, _| {
            Box::pin(async {
                tokio::time::sleep(JOB).await;
                Ok(CallToolResult::error(vec![ContentBlock::text(
                    "failing_job failed, as it always does",
                )]))
            })
        }),
        "protocol_error_job" if declared => task(|_, _| {
            Box::pin(async {
                tokio::time::sleep(JOB).await;
                Err(TaskExit::Error(protocol_error()))
            })
        }),
        "protocol_error_job" => Err(protocol_error()),
        "confirm_delete" => task(|context, request| {
            Box::pin(async move {
                let file = argument(&request, "filename");
                let question = input(elicit(&format!("Delete {file}?"), "confirm", "boolean"))?;
                let answer = context.request_input("confirm", question).await?;
                let confirmed = answer.get("action") == Some(&json!("accept"))
                    && answer.pointer("/content/confirm") == Some(&json!(true));
                Ok(text(if confirmed {
                    format!("Deleted {file}")
                } else {
                    format!("Kept {file}")
                }))
            })
        }),
        "multi_input" => task(|context, _| {
            Box::pin(async move {
                let name = input(elicit("Your name?", "name", "string"))?;
                let confirm = input(elicit("Go ahead?", "confirm", "boolean"))?;
                let (name, confirm) = tokio::join!(
                    context.request_input("name", name),
                    context.request_input("confirm", confirm)
                );
                let (name, _) = (name?, confirm?);
                Ok(text(format!(
                    "Both answered; name: {}",
                    answered(Some(&name), "name")
                )))
            })
        }),
        "test_tool_with_task" => {
            let answer = request
                .input_responses
                .as_ref()
                .and_then(|r| r.get("user_name"));
            match (answer, redeem_state(request.request_state.as_deref())) {
                (None, _) => ask(
                    &[("user_name", elicit("What is your name?", "name", "string"))],
                    Some(issue_state(json!(COMPOSITION_STATE))),
                )
                .map(Into::into),
                (Some(_), Some(state)) if state == json!(COMPOSITION_STATE) => {
                    task(|context, request| {
                        Box::pin(async move {
                            let name = request
                                .input_responses
                                .as_ref()
                                .and_then(|r| r.get("user_name"));
                            let name = answered(name, "name");
                            tokio::select! {
                                () = tokio::time::sleep(JOB) => Ok(text(format!("Hello, {name}!"))),
                                () = context.cancelled() => Err(TaskExit::Cancelled),
                            }
                        })
                    })
                }
                (Some(_), _) => Err(McpError::invalid_params(
                    "requestState is missing or was not handed out for this call",
                    None,
                )),
            }
        }
        _ => return None,
    })
}

fn seconds(request: &CallToolRequestParams) -> Duration {
    let asked = request
        .arguments
        .as_ref()
        .and_then(|args| args.get("seconds"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    Duration::from_secs_f64(asked.clamp(0.0, LONGEST as f64))
}

fn computed(request: &CallToolRequestParams) -> CallToolResult {
    text(format!(
        "computed `{}` after {} s",
        argument(request, "label"),
        seconds(request).as_secs_f64()
    ))
}

fn protocol_error() -> McpError {
    McpError::internal_error("protocol_error_job failed, as it always does", None)
}

fn input(request: Value) -> Result<InputRequest, TaskExit> {
    typed::<InputRequest>(request).map_err(TaskExit::Error)
}
