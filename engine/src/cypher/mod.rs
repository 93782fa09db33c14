//! Read-only Cypher over the code graph: `run` parses, plans and executes one query.
//! Own lexer and parser: `cypher-parser` 0.8 lacks relationship property maps, `$parameters` and
//! float literals, which `-[:CodeRelation {type: 'CALLS'}]->` and `r.confidence >= 0.8` need.
//!
//! Pipeline: `lexer` → `parser` (`ast`) → `plan` (names resolved by `scope` against `schema`,
//! each pattern started at its most selective node as `anchor` finds it through the graph's
//! name/file/kind lookups) → `exec` (depth-first matching under a work budget) → `project`
//! (RETURN), with `eval` for expressions. The types the stages hand each other (compiled
//! expressions, the plan, a row's bindings) live in `ir`, below them all, so no stage imports a
//! later one.

mod anchor;
mod ast;
mod error;
mod eval;
mod exec;
mod ir;
mod lexer;
mod parser;
mod plan;
mod project;
mod schema;
mod scope;
mod value;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod fuzz_tests;
#[cfg(test)]
mod tests;

use serde_json::Map;

pub use error::CypherError;
pub use value::Value;

use crate::graph::Graph;

/// Most relationships a variable-length pattern may span.
pub const MAX_HOPS: u32 = 10;
/// Units of work (candidates scanned, relationships followed, rows produced) one query may spend.
pub const WORK_BUDGET: u64 = 1_000_000;
/// Longest query text accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 64 * 1024;

/// The answer to one query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryResult {
    /// The RETURN items' names, in order.
    pub columns: Vec<String>,
    /// At most `row_limit` rows.
    pub rows: Vec<Vec<Value>>,
    /// Rows the query produced (after SKIP and LIMIT), before the `row_limit` cut.
    pub total_rows: usize,
    /// Whether rows were cut to `row_limit`.
    pub truncated: bool,
    /// Caveats to pass on, e.g. that an unbounded `*` was searched only `MAX_HOPS` deep.
    pub notes: Vec<String>,
}

/// Runs one read-only query. `params` supplies `$name` values; at most `row_limit` rows are
/// returned. Errors name what is wrong or unsupported and list what would work.
pub fn run(
    graph: &Graph,
    query: &str,
    params: &Map<String, serde_json::Value>,
    row_limit: usize,
) -> Result<QueryResult, CypherError> {
    run_with_budget(graph, query, params, row_limit, WORK_BUDGET, &|| false)
}

/// `run` with a chosen work budget, stopping early once `stop` returns true (the caller
/// cancelled; it is asked every few thousand units of work).
pub fn run_with_budget(
    graph: &Graph,
    query: &str,
    params: &Map<String, serde_json::Value>,
    row_limit: usize,
    budget: u64,
    stop: &dyn Fn() -> bool,
) -> Result<QueryResult, CypherError> {
    execute(graph, query, params, row_limit, budget, stop).map_err(|e| e.in_characters(query))
}

fn execute(
    graph: &Graph,
    query: &str,
    params: &Map<String, serde_json::Value>,
    row_limit: usize,
    budget: u64,
    stop: &dyn Fn() -> bool,
) -> Result<QueryResult, CypherError> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(CypherError::new(format!(
            "the query is longer than {MAX_QUERY_BYTES} bytes"
        )));
    }
    let ast = parser::parse(query)?;
    let plan = plan::plan(graph, &ast, params)?;
    let mut collector = project::Collector::new(graph, &plan.ret, row_limit);
    exec::run(graph, &plan, budget, stop, &mut collector)?;
    let (rows, total_rows) = collector.finish();
    Ok(QueryResult {
        columns: plan.ret.columns.clone(),
        truncated: total_rows > rows.len(),
        rows,
        total_rows,
        notes: plan.notes,
    })
}
