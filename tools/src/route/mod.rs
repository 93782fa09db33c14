//! `route`: a question in plain words becomes a plan of tool calls (`mode: plan`) or their
//! answers in one reply (`mode: execute`), with answers cached across calls.

mod cache;
mod execute;
mod intent;
mod plan;
mod planner;
mod symbols;
mod words;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod fuzz_tests;
#[cfg(test)]
mod tests;

use nexus_shared::params::{RouteMode, RouteParams};
use nexus_shared::{ErrorCode, ToolError};

pub use cache::RouteCache;

use crate::ToolContext;

/// The router's reading of each clause of `question` by wording alone, without a graph:
/// `grep`, `read_file`, `review_file`, `test_impact`, `trace`, `similar`, `cluster`,
/// `process`, `calls`, `impact`, `stats`, `overview`, `explain`, `find`; or `cypher` for a
/// Cypher query. The chat side hands these to the tool compiler as `intent` facts.
pub fn intents(question: &str) -> Vec<&'static str> {
    match planner::clause_intents(question) {
        Some(intents) => intents.into_iter().map(intent::Intent::name).collect(),
        None => vec!["cypher"],
    }
}

pub fn run(ctx: &ToolContext, p: &RouteParams) -> Result<String, ToolError> {
    if p.query.trim().is_empty() {
        return Err(
            ToolError::new(ErrorCode::InvalidParams, "`query` is empty").with_hint(
                "ask in plain words, e.g. {\"query\": \"what breaks if I change checkout\"}",
            ),
        );
    }
    let plan = planner::plan(ctx, &p.query);
    match p.mode {
        RouteMode::Plan => Ok(plan.render(p.format.unwrap_or_default())),
        RouteMode::Execute => execute::run(ctx, &plan, p),
    }
}
