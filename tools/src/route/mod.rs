//! `route`: a question in plain words becomes a plan of tool calls (`mode: plan`) or their
//! answers in one reply (`mode: execute`), with answers cached across calls.

mod cache;
mod execute;
mod plan;
mod planner;
mod symbols;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod fuzz_tests;
#[cfg(test)]
mod tests;

use nexus_shared::params::{RouteMode, RouteParams};
use nexus_shared::{ErrorCode, ToolError};

pub use cache::RouteCache;

use crate::ToolContext;

pub use nexus_shared::wording::intents;

/// What `route` would search by meaning when run with `args`: the query of each planned `search`
/// step not limited to words (so a caller holding a provider's vectors embeds them first).
/// Nothing for a plan-only call or arguments that are not a route's.
pub fn meaning_queries(ctx: &ToolContext, args: &serde_json::Value) -> Vec<String> {
    let Ok(p) = serde_json::from_value::<RouteParams>(args.clone()) else {
        return Vec::new();
    };
    if p.mode != RouteMode::Execute || p.query.trim().is_empty() {
        return Vec::new();
    }
    planner::plan(ctx, &p.query)
        .steps
        .iter()
        .filter(|s| s.tool == "search")
        .filter(|s| s.args.get("mode").and_then(|m| m.as_str()) != Some("keyword"))
        .filter_map(|s| s.args.get("query")?.as_str().map(str::to_owned))
        .collect()
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
