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
use tokio_util::sync::CancellationToken;

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
/// cancels the call first), else a task in `tasks` that carries on with it (past the call: the
/// call's cancellation no longer reaches it, `tasks/cancel` does). `progress` reports, while the
/// task runs, become its `statusMessage`.
pub async fn answer_or_task(
    tasks: &TaskManager,
    cancelled: &CancellationToken,
    work: impl Future<Output = CallToolResult> + Send + 'static,
    progress: Option<mpsc::UnboundedReceiver<Progress>>,
) -> Result<CallToolResponse, McpError> {
    let mut running = tokio::spawn(work);
    tokio::select! {
        joined = &mut running => return joined.map(Into::into).map_err(crashed),
        () = cancelled.cancelled() => {
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
        for tool in [
            ToolName::Grep,
            ToolName::Cypher,
            ToolName::Impact,
            ToolName::Diff,
        ] {
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

    fn done(text: &str) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(text)])
    }

    async fn settled(tasks: &TaskManager, id: &str) -> rmcp::model::DetailedTask {
        for _ in 0..200 {
            match tasks.get_task(id) {
                Ok(task) if task.status().is_terminal() => return task,
                Ok(_) => tokio::time::sleep(Duration::from_millis(10)).await,
                Err(err) => panic!("task {id} vanished: {err:?}"),
            }
        }
        panic!("task {id} did not settle");
    }

    #[tokio::test]
    async fn a_fast_call_answers_in_the_call_and_a_slow_one_becomes_a_task() {
        let tasks = TaskManager::new();
        let cancelled = CancellationToken::new();
        let fast = answer_or_task(&tasks, &cancelled, async { done("quick") }, None).await;
        assert!(matches!(fast, Ok(CallToolResponse::Complete(_))));
        assert_eq!(tasks.running_task_count(), 0);

        let (tx, rx) = mpsc::unbounded_channel();
        let slow = async move {
            tokio::time::sleep(SHORTCUT + Duration::from_millis(100)).await;
            let _ = tx.send(Progress {
                done: 1,
                total: 2,
                message: Some("halfway".into()),
            });
            tokio::time::sleep(Duration::from_millis(200)).await;
            done("slow")
        };
        let Ok(CallToolResponse::Task(created)) =
            answer_or_task(&tasks, &cancelled, slow, Some(rx)).await
        else {
            panic!("a call past SHORTCUT becomes a task");
        };
        assert_eq!(created.task.ttl_ms, Some(TTL_MS));
        assert_eq!(created.task.poll_interval_ms, Some(POLL_INTERVAL_MS));
        // The call's own cancellation no longer reaches the task.
        cancelled.cancel();
        tokio::time::sleep(Duration::from_millis(150)).await;
        let working = tasks.get_task(&created.task.task_id).expect("task");
        assert!(!working.status().is_terminal());
        assert_eq!(working.task.status_message.as_deref(), Some("1/2: halfway"));
        let finished = settled(&tasks, &created.task.task_id).await;
        let wire = serde_json::to_value(&finished).expect("task json");
        assert_eq!(wire["status"], "completed");
        assert_eq!(wire["result"]["content"][0]["text"], "slow");
    }

    #[tokio::test]
    async fn tasks_cancel_stops_the_call_and_a_cancelled_call_answers_an_error() {
        let tasks = TaskManager::new();
        let cancelled = CancellationToken::new();
        let endless = async {
            tokio::time::sleep(Duration::from_secs(600)).await;
            done("never")
        };
        let Ok(CallToolResponse::Task(created)) =
            answer_or_task(&tasks, &cancelled, endless, None).await
        else {
            panic!("a task");
        };
        tasks.cancel_task(&created.task.task_id).expect("cancel");
        let stopped = settled(&tasks, &created.task.task_id).await;
        assert_eq!(
            serde_json::to_value(&stopped).expect("json")["status"],
            "cancelled"
        );

        let gone = CancellationToken::new();
        gone.cancel();
        let endless = async {
            tokio::time::sleep(Duration::from_secs(600)).await;
            done("never")
        };
        let Ok(CallToolResponse::Complete(result)) =
            answer_or_task(&tasks, &gone, endless, None).await
        else {
            panic!("the client cancelled before SHORTCUT: no task");
        };
        assert_eq!(result.is_error, Some(true));
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
