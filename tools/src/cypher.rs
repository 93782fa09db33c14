//! `cypher`: a read-only Cypher query over the graph, answered as a compact Markdown table (or
//! JSON), with a row cap that says how many rows the query really produced.

use nexus_shared::params::{CypherParams, Format};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::json;

use super::ToolContext;
use super::budget::Budget;
use nexus_engine::cypher;

/// Rows returned when the caller sets no limit, and the most ever returned.
const DEFAULT_ROWS: u32 = 50;
const MAX_ROWS: u32 = 1_000;

pub fn run(ctx: &ToolContext, p: &CypherParams) -> Result<String, ToolError> {
    let params = p.params.clone().unwrap_or_default();
    let row_limit = p.limit.unwrap_or(DEFAULT_ROWS).clamp(1, MAX_ROWS) as usize;
    let result = cypher::run_with_budget(
        ctx.graph,
        &p.query,
        &params,
        row_limit,
        cypher::WORK_BUDGET,
        &ctx.cancelled,
    )
    .map_err(|err| {
        let at = err
            .position
            .map(|pos| format!(" (at character {pos})"))
            .unwrap_or_default();
        ToolError::new(ErrorCode::InvalidQuery, format!("{}{at}", err.message)).with_hint(
            "`context` with focus=schema lists labels, relationship types and example queries",
        )
    })?;
    let has_more = result.truncated;
    if p.format == Some(Format::Json) {
        let rows: Vec<Vec<serde_json::Value>> = result
            .rows
            .iter()
            .map(|r| r.iter().map(|v| v.to_json()).collect())
            .collect();
        return Ok(json!({"columns": result.columns, "rows": rows, "total_rows": result.total_rows, "has_more": has_more, "notes": result.notes}).to_string());
    }
    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "{} rows{}",
        result.total_rows,
        if has_more {
            format!(" (showing {})", result.rows.len())
        } else {
            String::new()
        }
    ));
    for note in &result.notes {
        out.header(&format!("note: {note}"));
    }
    if result.columns.is_empty() {
        return Ok(out.finish());
    }
    out.header(&format!("| {} |", result.columns.join(" | ")));
    out.header(&format!(
        "|{}|",
        vec!["---"; result.columns.len()].join("|")
    ));
    for row in &result.rows {
        let cells: Vec<String> = row
            .iter()
            .map(|v| v.to_string().replace('|', "\\|").replace('\n', " "))
            .collect();
        out.item(&format!("| {} |", cells.join(" | ")));
    }
    if has_more {
        out.header(&format!(
            "has_more: true — {} rows in all; raise limit (max {MAX_ROWS}) or add LIMIT/SKIP",
            result.total_rows
        ));
    }
    Ok(out.finish())
}
