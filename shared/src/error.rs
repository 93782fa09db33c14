//! Error codes and the error payload every failed tool call carries.
//! An error always says what went wrong, what to do about it, and whether retrying can help.

use serde::{Deserialize, Serialize};

/// Machine-readable error codes, serialized as `SCREAMING_SNAKE_CASE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// No browser tab is connected to the hub.
    NoBrowser,
    /// The tab is connected but has no graph loaded.
    NoGraph,
    /// The tool exists in the catalog but its handler is not built yet.
    NotImplemented,
    /// The arguments do not match the tool's schema.
    InvalidParams,
    /// No tool of that name exists.
    UnknownTool,
    /// The call did not finish before its deadline.
    Timeout,
    /// The caller cancelled the call.
    Cancelled,
    /// The link to the browser dropped while the call was in flight.
    LinkLost,
    /// The tool failed repeatedly and is paused by the circuit breaker.
    CircuitOpen,
    /// Too many calls or frames in a short time.
    RateLimited,
    /// A frame, file or result is over a size limit.
    TooLarge,
    /// The path is outside the repository or names a secret.
    PathRefused,
    /// The named symbol, file, cluster or process does not exist.
    NotFound,
    /// A name matches several things; candidates are listed.
    Ambiguous,
    /// The regular expression does not compile.
    InvalidRegex,
    /// The Cypher query is malformed or uses unsupported syntax.
    InvalidQuery,
    /// A bug or an unexpected state inside Nexus.
    Internal,
    /// The tool is denied, or needs the user's confirmation and did not get it (mcp.json's
    /// `allow` / `confirm` / `deny`).
    NotAllowed,
}

/// The error payload of a failed call: a code, a message for people and agents, a hint, and
/// whether the same call may succeed if retried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(default)]
    pub retryable: bool,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            hint: None,
            retryable: matches!(
                code,
                ErrorCode::NoBrowser
                    | ErrorCode::Timeout
                    | ErrorCode::LinkLost
                    | ErrorCode::CircuitOpen
                    | ErrorCode::RateLimited
            ),
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// One-paragraph rendering for an MCP `isError` result.
    pub fn render(&self) -> String {
        let code = serde_json::to_value(self.code)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let mut text = format!("Error {code}: {}", self.message);
        if let Some(hint) = &self.hint {
            text.push_str("\nHint: ");
            text.push_str(hint);
        }
        if self.retryable {
            text.push_str("\n(retryable)");
        }
        text
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for ToolError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_screaming_snake_case() {
        let text = serde_json::to_string(&ErrorCode::CircuitOpen).unwrap();
        assert_eq!(text, "\"CIRCUIT_OPEN\"");
    }

    #[test]
    fn transient_failures_are_retryable_by_default() {
        assert!(ToolError::new(ErrorCode::LinkLost, "x").retryable);
        assert!(!ToolError::new(ErrorCode::InvalidParams, "x").retryable);
    }

    #[test]
    fn render_names_code_message_and_hint() {
        let err = ToolError::new(ErrorCode::NoBrowser, "no tab").with_hint("open the UI");
        assert_eq!(
            err.render(),
            "Error NO_BROWSER: no tab\nHint: open the UI\n(retryable)"
        );
    }
}
