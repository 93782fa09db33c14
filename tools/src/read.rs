//! `read`: a file's numbered lines (optionally a range), its language and line count, and on
//! request its level-1 dependencies (files it imports and files importing it).

use nexus_shared::params::{Format, ReadParams};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::json;

use super::budget::Budget;
use super::{ToolContext, paths};
use nexus_engine::EdgeKind;
use nexus_engine::Lang;

pub fn run(ctx: &ToolContext, p: &ReadParams) -> Result<String, ToolError> {
    let (path, text) = paths::open(ctx, &p.path)?;
    let lines: Vec<&str> = text.lines().collect();
    let count = lines.len() as u32;
    let start = p.start_line.unwrap_or(1).max(1);
    let end = p.end_line.unwrap_or(count).min(count.max(1));
    if start > end.max(1) || (count > 0 && start > count) {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("line range {start}–{end} is outside 1–{count}"),
        ));
    }
    let language = Lang::of_path(path).map_or("text", Lang::as_str);
    let (imports, importers) = if p.include_deps {
        deps(ctx, path)
    } else {
        (Vec::new(), Vec::new())
    };
    if p.format == Some(Format::Json) {
        let body: Vec<&str> = lines
            .iter()
            .skip(start as usize - 1)
            .take((end + 1 - start) as usize)
            .copied()
            .collect();
        return Ok(json!({"path": path, "language": language, "lines": count, "start_line": start, "end_line": end, "content": body.join("\n"), "imports": imports, "imported_by": importers}).to_string());
    }
    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "# {path} ({language}, {count} lines) — lines {start}–{end}"
    ));
    if p.include_deps {
        dep_lines(&mut out, &imports, &importers);
    }
    let width = end.to_string().len();
    for (i, line) in lines
        .iter()
        .enumerate()
        .skip(start as usize - 1)
        .take((end + 1 - start) as usize)
    {
        out.item(&format!("{:>width$} | {line}", i + 1));
    }
    Ok(out.finish())
}

/// The `imports:` and `imported by:` header lines.
pub fn dep_lines(out: &mut Budget, imports: &[String], importers: &[String]) {
    let list = |files: &[String]| {
        if files.is_empty() {
            "none".to_owned()
        } else {
            files.join(", ")
        }
    };
    out.header(&format!("imports: {}", list(imports)));
    out.header(&format!("imported by: {}", list(importers)));
}

/// Files this file imports, and files importing it.
pub fn deps(ctx: &ToolContext, path: &str) -> (Vec<String>, Vec<String>) {
    let g = ctx.graph;
    let Some(file) = g.find_id(&format!("File:{path}")) else {
        return (Vec::new(), Vec::new());
    };
    let name = |n: u32| g.node(n).map(|x| x.file().to_owned());
    let imports = g
        .outgoing(file)
        .filter(|e| e.kind == EdgeKind::Imports)
        .filter_map(|e| name(e.to))
        .collect();
    let importers = g
        .incoming(file)
        .filter(|e| e.kind == EdgeKind::Imports)
        .filter_map(|e| name(e.from))
        .collect();
    (imports, importers)
}
