//! The working tree's changes against a git commit, from the bridge (`/api/repo/git-diff`), for
//! `diff` with `base`: the worker fetches them before the tool answers.

use nexus_shared::{ErrorCode, ToolError};
use nexus_tools::WorkingChanges;

use super::provider::{bridge_request, to_json};

/// The git commit a `diff` call compares with, when it names one.
pub fn base_of(tool: &str, args: &serde_json::Value) -> Option<String> {
    (tool == "diff")
        .then(|| args.get("base")?.as_str().map(str::to_owned))
        .flatten()
        .filter(|b| !b.trim().is_empty())
}

/// Asks the bridge for the working tree's changes against `base`; its refusal (not a git
/// repository, an unknown commit, no repository served) is the tool's error.
pub async fn working_changes(base: &str) -> Result<WorkingChanges, ToolError> {
    let route = format!(
        "/api/repo/git-diff?base={}",
        String::from(js_sys::encode_uri_component(base))
    );
    let (status, body) = bridge_request(&route, None)
        .await
        .map_err(|err| ToolError::new(ErrorCode::Internal, err).retryable(true))?;
    let body = to_json(&body);
    match status {
        200 => serde_json::from_value(body).map_err(|err| {
            ToolError::new(
                ErrorCode::Internal,
                format!("the bridge's changes against `{base}` are malformed: {err}"),
            )
        }),
        404 => Err(ToolError::new(
            ErrorCode::InvalidParams,
            "comparing with git needs the repository the bridge serves",
        )
        .with_hint(
            "start the bridge with `nexus-bridge serve --repo DIR`, or call diff without base",
        )),
        _ => Err(ToolError::new(
            ErrorCode::InvalidParams,
            body["error"]
                .as_str()
                .map_or_else(|| format!("the bridge answered {status}"), str::to_owned),
        )
        .with_hint("name a commit of the served repository, e.g. HEAD or main")),
    }
}
