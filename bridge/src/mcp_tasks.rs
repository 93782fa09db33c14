//! The MCP tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) on the bridge's server:
//! which calls may become a task, and how a slow call turns into one that `tasks/get` reads.
//!
//! A Nexus tool that can run long (the heavy class of `deadline.rs`, and `diff`) starts like any
//! call; when the client declared the extension and the call has not settled within `SHORTCUT`,
//! the rest of it runs as a task in the handler's `TaskManager` (rmcp's: `tasks/get` inlines the
//! result, `tasks/update` routes answers, `tasks/cancel` stops it, TTLs expire it) and the client
//! gets a `CreateTaskResult`. A fast call answers in the call, as the extension allows.

use std::future::Future;
use std::time::Duration;

use nexus_shared::ToolName;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, CreateTaskResult};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::mpsc;

use crate::call::Progress;
use crate::deadline;

/// How long a task-eligible call may take before it becomes a task.
pub const SHORTCUT: Duration = Duration::from_millis(500);
/// The poll interval suggested to clients (integer milliseconds on the wire).
pub const POLL_INTERVAL_MS: u64 = 500;
/// How long a task stays readable: from creation while it runs, and after it ends.
pub const TTL_MS: u64 = 600_000;

/// Whether Nexus's `tool` may run as a task: the graph walks, queries and plans (which get the
/// long deadline) and `diff` (a whole working tree against a revision).
pub fn runs_as_task(tool: ToolName) -> bool {
    deadline::is_heavy(tool) || tool == ToolName::Diff
}

/// Whether the request declared the tasks extension (per request on 2026-07-28, at `initialize`
/// for older sessions).
pub fn client_declares_tasks(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .is_some_and(|caps| caps.supports_tasks())
}

/// The options every Nexus task gets.
pub fn options() -> TaskOptions {
    TaskOptions::new()
        .with_ttl_ms(TTL_MS)
        .with_poll_interval_ms(POLL_INTERVAL_MS)
}

/// Runs `work`; its result if it settles within `SHORTCUT` (or an error result when the client
/// cancels first), else a task in `tasks` that carries on with it. `progress` reports, while the
/// task runs, become its `statusMessage`.
pub async fn answer_or_task(
    tasks: &TaskManager,
    context: &RequestContext<RoleServer>,
    work: impl Future<Output = CallToolResult> + Send + 'static,
    progress: Option<mpsc::UnboundedReceiver<Progress>>,
) -> Result<CallToolResponse, McpError> {
    let mut running = tokio::spawn(work);
    tokio::select! {
        joined = &mut running => return joined.map(Into::into).map_err(crashed),
        () = context.ct.cancelled() => {
            running.abort();
            return Ok(CallToolResult::error(vec![ContentBlock::text("Cancelled: the client cancelled the call")]).into());
        }
        () = tokio::time::sleep(SHORTCUT) => {}
    }
    let task = tasks.spawn(options(), move |task| {
        Box::pin(async move {
            let mut progress = progress;
            loop {
                tokio::select! {
                    joined = &mut running => return joined.map_err(|err| TaskExit::Error(crashed(err))),
                    () = task.cancelled() => {
                        running.abort();
                        return Err(TaskExit::Cancelled);
                    }
                    report = next_report(&mut progress) => match report {
                        Some(report) => task.set_status_message(status_message(&report)),
                        None => progress = None,
                    },
                }
            }
        })
    });
    Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
}

/// A task's status line from a progress report: `12/40` and its message when it has one.
fn status_message(report: &Progress) -> String {
    match &report.message {
        Some(message) => format!("{}/{}: {message}", report.done, report.total),
        None => format!("{}/{}", report.done, report.total),
    }
}

async fn next_report(rx: &mut Option<mpsc::UnboundedReceiver<Progress>>) -> Option<Progress> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// A call that panicked or was aborted: a protocol error (a task's `failed` status).
fn crashed(err: tokio::task::JoinError) -> McpError {
    McpError::internal_error(format!("the tool call stopped unexpectedly: {err}"), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_tools_and_diff_run_as_tasks_and_quick_lookups_do_not() {
        for tool in [ToolName::Grep, ToolName::Cypher, ToolName::Impact, ToolName::Diff] {
            assert!(runs_as_task(tool), "{}", tool.as_str());
        }
        let quick: Vec<&str> = ToolName::ALL
            .iter()
            .filter(|tool| !runs_as_task(**tool))
            .map(|tool| tool.as_str())
            .collect();
        assert!(quick.contains(&"context"), "{quick:?}");
        assert!(quick.contains(&"search"), "{quick:?}");
    }

    #[test]
    fn a_progress_report_reads_as_a_status_line() {
        let report = Progress {
            done: 3,
            total: 9,
            message: Some("walking callers".into()),
        };
        assert_eq!(status_message(&report), "3/9: walking callers");
        let bare = Progress {
            message: None,
            ..report
        };
        assert_eq!(status_message(&bare), "3/9");
    }
}
