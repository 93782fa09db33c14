//! `review_file`: one file in one call — capped content, the symbols it defines, what it imports
//! and who imports it, and the communities and processes its symbols belong to.

use std::collections::BTreeSet;

use nexus_shared::params::{Format, ReviewFileParams};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::json;

use super::budget::Budget;
use super::neighbours::{community, processes};
use super::read::{dep_lines, deps};
use super::{ToolContext, paths};
use nexus_engine::EdgeKind;

/// Lines of content shown before the structural summary is preferred.
const CONTENT_LINES: usize = 60;

pub fn run(ctx: &ToolContext, p: &ReviewFileParams) -> Result<String, ToolError> {
    let g = ctx.graph;
    let (path, text) = paths::open(ctx, &p.path)?;
    let file = g.find_id(&format!("File:{path}"));
    let symbols: Vec<_> = file
        .map(|f| {
            g.outgoing(f)
                .filter(|e| e.kind == EdgeKind::Defines)
                .filter_map(|e| g.node(e.to))
                .collect()
        })
        .unwrap_or_default();
    let (imports, importers) = deps(ctx, path);
    let communities: BTreeSet<String> = symbols
        .iter()
        .filter_map(|s| community(g, s.id))
        .map(|c| c.name().to_owned())
        .collect();
    let flows: BTreeSet<String> = symbols
        .iter()
        .flat_map(|s| processes(g, s.id))
        .map(|x| x.name().to_owned())
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    if p.format == Some(Format::Json) {
        return Ok(json!({
            "path": path, "lines": lines.len(),
            "symbols": symbols.iter().map(|s| json!({"id": s.stable_id(), "line": s.start_line(), "signature": s.signature()})).collect::<Vec<_>>(),
            "imports": imports, "imported_by": importers, "communities": communities, "processes": flows,
            "content": lines.iter().take(CONTENT_LINES).copied().collect::<Vec<_>>().join("\n"),
        }).to_string());
    }
    if file.is_none() && lines.is_empty() {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!("`{path}` is empty"),
        ));
    }
    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "# {path} — {} lines, {} symbols",
        lines.len(),
        symbols.len()
    ));
    dep_lines(&mut out, &imports, &importers);
    if !communities.is_empty() {
        out.header(&format!(
            "communities: {}",
            communities.into_iter().collect::<Vec<_>>().join("; ")
        ));
    }
    if !flows.is_empty() {
        out.header(&format!(
            "processes: {}",
            flows.into_iter().take(8).collect::<Vec<_>>().join("; ")
        ));
    }
    out.header("## Symbols");
    for s in &symbols {
        out.item(&format!(
            "- {} `{}` — line {} · `{}`",
            s.kind(),
            s.stable_id(),
            s.start_line(),
            s.signature()
        ));
    }
    out.header(&format!(
        "## Content (first {} lines)",
        CONTENT_LINES.min(lines.len())
    ));
    for (i, line) in lines.iter().take(CONTENT_LINES).enumerate() {
        out.item(&format!("{:>4} | {line}", i + 1));
    }
    Ok(out.finish())
}
