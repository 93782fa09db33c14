//! Typed failures of hosted calls (ToolNotFound, ToolValidation, CircuitOpen, RateLimited, NotAllowed,
//! ToolExecution), worded so a model can correct itself, and their `ToolError` wire form.

use std::time::Duration;

use nexus_shared::{ErrorCode, ToolError};

#[derive(Debug, Clone, PartialEq)]
pub enum HostError {
    /// No tool of that name; `candidates` are similar names.
    ToolNotFound {
        name: String,
        candidates: Vec<String>,
    },
    /// An unqualified name that several servers offer.
    Ambiguous {
        name: String,
        candidates: Vec<String>,
    },
    /// The arguments fail the tool's JSON Schema; one `path: problem` per failure.
    ToolValidation { tool: String, errors: Vec<String> },
    /// The tool's circuit is open.
    CircuitOpen {
        tool: String,
        failures: u32,
        last_failure_ms: Option<u64>,
        retry_in: Duration,
    },
    /// mcp.json denies the tool (`why` names the setting).
    Denied { tool: String, why: String },
    /// The tool needs the user's confirmation and the caller has not obtained it; `allow` is the
    /// setting that would let it run unasked.
    NeedsConfirmation {
        tool: String,
        why: String,
        allow: String,
    },
    /// The tool ran its configured number of calls this minute (`rate_limits` in nexus.toml).
    RateLimited {
        tool: String,
        pattern: String,
        per_minute: u32,
        retry_in: Duration,
    },
    /// The server failed, dropped, timed out or gave an unusable answer.
    ToolExecution {
        server: String,
        tool: String,
        request_id: String,
        message: String,
    },
}

impl HostError {
    /// The error's type name, as the spec names it.
    pub fn kind(&self) -> &'static str {
        match self {
            HostError::ToolNotFound { .. } | HostError::Ambiguous { .. } => "ToolNotFound",
            HostError::ToolValidation { .. } => "ToolValidation",
            HostError::CircuitOpen { .. } => "CircuitOpen",
            HostError::RateLimited { .. } => "RateLimited",
            HostError::ToolExecution { .. } => "ToolExecution",
            HostError::Denied { .. } | HostError::NeedsConfirmation { .. } => "NotAllowed",
        }
    }

    /// The wire form: a code, a message listing what is wrong, a hint, and retryability.
    pub fn to_tool_error(&self) -> ToolError {
        let kind = self.kind();
        match self {
            HostError::ToolNotFound { name, candidates } => {
                let mut err = ToolError::new(
                    ErrorCode::UnknownTool,
                    format!("{kind}: no tool `{name}` in the registry"),
                );
                err = if candidates.is_empty() {
                    err.with_hint("list the tools (qualified `server:tool` names) and retry")
                } else {
                    err.with_hint(format!("did you mean {}?", candidates.join(", ")))
                };
                err
            }
            HostError::Ambiguous { name, candidates } => ToolError::new(
                ErrorCode::Ambiguous,
                format!(
                    "{kind}: `{name}` is offered by several servers: {}",
                    candidates.join(", ")
                ),
            )
            .with_hint("call it by one of these qualified names"),
            HostError::ToolValidation { tool, errors } => ToolError::new(
                ErrorCode::InvalidParams,
                format!(
                    "{kind}: invalid arguments for `{tool}`:\n- {}",
                    errors.join("\n- ")
                ),
            )
            .with_hint("fix the arguments at these paths (see the tool's input schema) and retry"),
            HostError::CircuitOpen {
                tool,
                failures,
                retry_in,
                ..
            } => ToolError::new(
                ErrorCode::CircuitOpen,
                format!("{kind}: `{tool}` failed {failures} times recently, so it is paused"),
            )
            .with_hint(format!(
                "retry in about {} s, or use another tool",
                retry_in.as_secs().max(1)
            )),
            HostError::RateLimited {
                tool,
                pattern,
                per_minute,
                retry_in,
            } => ToolError::new(
                ErrorCode::RateLimited,
                format!(
                    "{kind}: `{tool}` may run at most {per_minute} times a minute (rate_limits `{pattern}` in nexus.toml); it did not run"
                ),
            )
            .with_hint(format!(
                "retry in about {} s, or use another tool",
                retry_in.as_secs().max(1)
            ))
            .retryable(true),
            HostError::Denied { tool, why } => ToolError::new(
                ErrorCode::NotAllowed,
                format!("{kind}: `{tool}` is denied ({why}); it did not run"),
            )
            .with_hint("use another tool; only the user can change mcp.json"),
            HostError::NeedsConfirmation { tool, why, allow } => ToolError::new(
                ErrorCode::NotAllowed,
                format!(
                    "{kind}: `{tool}` needs the user's confirmation ({why}), and this client cannot ask the user (no MCP elicitation); it did not run"
                ),
            )
            .with_hint(format!("to let agents call it unasked, {allow}")),
            HostError::ToolExecution {
                server,
                tool,
                request_id,
                message,
            } => ToolError::new(
                if message.starts_with("timed out") {
                    ErrorCode::Timeout
                } else if message.contains("bytes, over the") {
                    ErrorCode::TooLarge
                } else {
                    ErrorCode::LinkLost
                },
                format!("{kind}: `{server}:{tool}` (request {request_id}) failed: {message}"),
            )
            .retryable(!message.contains("bytes, over the")),
        }
    }
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_tool_error().render())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_names_its_kind_and_what_to_do() {
        let validation = HostError::ToolValidation {
            tool: "s:t".into(),
            errors: vec!["/message: 5 is not of type \"string\"".into()],
        }
        .to_tool_error();
        assert_eq!(validation.code, ErrorCode::InvalidParams);
        assert!(validation.message.contains("ToolValidation"));
        assert!(validation.message.contains("/message: 5 is not"));
        let execution = HostError::ToolExecution {
            server: "s".into(),
            tool: "t".into(),
            request_id: "h1-2".into(),
            message: "timed out after 10 ms".into(),
        }
        .to_tool_error();
        assert_eq!(execution.code, ErrorCode::Timeout);
        assert!(execution.retryable);
        assert!(execution.message.contains("`s:t` (request h1-2)"));
        let ambiguous = HostError::Ambiguous {
            name: "echo".into(),
            candidates: vec!["a:echo".into(), "b:echo".into()],
        };
        assert!(ambiguous.to_string().contains("a:echo, b:echo"));
        assert_eq!(ambiguous.kind(), "ToolNotFound");
        let limited = HostError::RateLimited {
            tool: "fs:write".into(),
            pattern: "fs:*".into(),
            per_minute: 3,
            retry_in: Duration::from_secs(12),
        }
        .to_tool_error();
        assert_eq!(limited.code, ErrorCode::RateLimited);
        assert!(limited.retryable);
        assert!(
            limited.message.contains("at most 3 times a minute"),
            "{}",
            limited.message
        );
        assert!(limited.hint.as_deref().is_some_and(|h| h.contains("12 s")));
    }
}
