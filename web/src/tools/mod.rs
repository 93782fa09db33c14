//! The MCP tool handlers, answered from the graph held in this tab.
//! `dispatch` is the one entry point the link uses; every tool in the catalog has a row here.

mod context;

use nexus_shared::params::ContextParams;
use nexus_shared::{ErrorCode, Outcome, ToolError, ToolName, ToolOutput};
use serde::de::DeserializeOwned;

use crate::engine::Graph;

/// Answers one call. Unknown tools, bad arguments and tools not built yet are clear errors.
pub fn dispatch(graph: Option<&Graph>, tool: &str, args: serde_json::Value) -> Outcome {
    match run(graph, tool, args) {
        Ok(text) => Outcome::Ok(ToolOutput { text }),
        Err(err) => Outcome::Err(err),
    }
}

fn run(graph: Option<&Graph>, tool: &str, args: serde_json::Value) -> Result<String, ToolError> {
    let Some(name) = ToolName::parse(tool) else {
        return Err(
            ToolError::new(ErrorCode::UnknownTool, format!("no tool named `{tool}`"))
                .with_hint("tools/list names the 16 Nexus tools"),
        );
    };
    let graph = graph.ok_or_else(|| {
        ToolError::new(ErrorCode::NoGraph, "no graph is loaded in the Nexus tab")
            .with_hint("load a repository in the Nexus UI (drop a folder or a ZIP), then retry")
    })?;
    match name {
        ToolName::Context => Ok(context::run(graph, &params::<ContextParams>(name, args)?)),
        other => Err(ToolError::new(
            ErrorCode::NotImplemented,
            format!(
                "`{}` is not implemented yet in this build of Nexus",
                other.as_str()
            ),
        )
        .with_hint("`context` works today; the other tools arrive with the graph engine")),
    }
}

/// Parses a tool's arguments into its typed parameters; `null` counts as no arguments.
fn params<T: DeserializeOwned>(tool: ToolName, args: serde_json::Value) -> Result<T, ToolError> {
    let args = if args.is_null() {
        serde_json::json!({})
    } else {
        args
    };
    serde_json::from_value(args).map_err(|err| {
        ToolError::new(
            ErrorCode::InvalidParams,
            format!("invalid arguments for `{}`: {err}", tool.as_str()),
        )
        .with_hint("see the tool's input schema in tools/list")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sample::sample_graph;
    use serde_json::json;

    fn error_code(outcome: Outcome) -> ErrorCode {
        match outcome {
            Outcome::Err(err) => err.code,
            Outcome::Ok(out) => panic!("expected an error, got {}", out.text),
        }
    }

    #[test]
    fn every_catalog_tool_has_a_defined_answer() {
        let g = sample_graph();
        for tool in ToolName::ALL {
            match dispatch(Some(&g), tool.as_str(), json!({})) {
                Outcome::Ok(_) => assert_eq!(*tool, ToolName::Context),
                Outcome::Err(err) => assert!(
                    matches!(
                        err.code,
                        ErrorCode::NotImplemented | ErrorCode::InvalidParams
                    ),
                    "{}: {err}",
                    tool.as_str()
                ),
            }
        }
    }

    #[test]
    fn unknown_tool_and_bad_params_are_errors() {
        let g = sample_graph();
        assert_eq!(
            error_code(dispatch(Some(&g), "teleport", json!({}))),
            ErrorCode::UnknownTool
        );
        assert_eq!(
            error_code(dispatch(
                Some(&g),
                "context",
                json!({"focus": "everything"})
            )),
            ErrorCode::InvalidParams
        );
        assert_eq!(
            error_code(dispatch(Some(&g), "context", json!({"fokus": "stats"}))),
            ErrorCode::InvalidParams
        );
        assert_eq!(
            error_code(dispatch(Some(&g), "context", json!([1]))),
            ErrorCode::InvalidParams
        );
    }

    #[test]
    fn no_graph_is_a_clear_error() {
        assert_eq!(
            error_code(dispatch(None, "context", json!({}))),
            ErrorCode::NoGraph
        );
    }

    #[test]
    fn null_arguments_mean_defaults() {
        let g = sample_graph();
        assert!(matches!(
            dispatch(Some(&g), "context", serde_json::Value::Null),
            Outcome::Ok(_)
        ));
    }
}
