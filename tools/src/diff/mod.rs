//! `diff`: the current graph against the snapshot saved before the last indexing of the same
//! project — added, modified and deleted files and symbols; with `base`, see `working`.

mod changes;
mod working;

pub use changes::{ChangedFile, FileStatus, Hunk, WorkingChanges};

use nexus_shared::ToolError;
use nexus_shared::params::{ChangeType, DiffParams, Format};
use serde_json::json;

use super::ToolContext;
use super::budget::Budget;
use nexus_engine::fingerprint::{ChangedSymbol, Fingerprint, diff};

/// Items per section unless `limit` says otherwise.
const DEFAULT_LIMIT: u32 = 50;

pub fn run(ctx: &ToolContext, p: &DiffParams) -> Result<String, ToolError> {
    if let Some(base) = p.base.as_deref() {
        return working::run(ctx, p, base);
    }
    let g = ctx.graph;
    let Some(previous) = ctx.previous else {
        let text = format!(
            "No previous snapshot of `{}`: `diff` compares with the graph saved before the last indexing of the same project. Index it again (after editing files) and call `diff` once more.",
            g.project
        );
        return Ok(if p.format == Some(Format::Json) {
            json!({"project": g.project, "previous": null, "message": text}).to_string()
        } else {
            text
        });
    };
    let current = Fingerprint::of(g, ctx.sources, 0.0);
    let mut d = diff(previous, &current);
    let unchanged = d.is_empty();
    for (change, files, symbols) in [
        (ChangeType::Added, &mut d.files_added, &mut d.symbols_added),
        (
            ChangeType::Modified,
            &mut d.files_modified,
            &mut d.symbols_modified,
        ),
        (
            ChangeType::Deleted,
            &mut d.files_deleted,
            &mut d.symbols_deleted,
        ),
    ] {
        if !wanted(p, change) {
            files.clear();
            symbols.clear();
        }
    }
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT).max(1) as usize;
    if p.format == Some(Format::Json) {
        let ids = |list: &[ChangedSymbol]| {
            list.iter()
                .take(limit)
                .map(|c| json!({"id": c.id, "at": c.location}))
                .collect::<Vec<_>>()
        };
        let paths = |list: &[String]| list.iter().take(limit).cloned().collect::<Vec<_>>();
        return Ok(json!({
            "project": g.project, "previous_saved_ms": previous.saved_ms,
            "files": {"added": paths(&d.files_added), "modified": paths(&d.files_modified), "deleted": paths(&d.files_deleted)},
            "symbols": {"added": ids(&d.symbols_added), "modified": ids(&d.symbols_modified), "deleted": ids(&d.symbols_deleted)},
            "totals": {
                "files_added": d.files_added.len(), "files_modified": d.files_modified.len(), "files_deleted": d.files_deleted.len(),
                "symbols_added": d.symbols_added.len(), "symbols_modified": d.symbols_modified.len(), "symbols_deleted": d.symbols_deleted.len(),
            },
        })
        .to_string());
    }
    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "# diff of `{}` against the previous snapshot ({} files, {} symbols then)",
        g.project,
        previous.file_count(),
        previous.symbol_count()
    ));
    if unchanged {
        out.header("No change: every file and symbol is as it was.");
        return Ok(out.finish());
    }
    if let Some(note) = kept_note(p) {
        out.header(&note);
    }
    out.header(&format!(
        "files: +{} ~{} -{} · symbols: +{} ~{} -{}",
        d.files_added.len(),
        d.files_modified.len(),
        d.files_deleted.len(),
        d.symbols_added.len(),
        d.symbols_modified.len(),
        d.symbols_deleted.len()
    ));
    let file_sections = [
        ("Files added", &d.files_added),
        ("Files modified", &d.files_modified),
        ("Files deleted", &d.files_deleted),
    ];
    for (title, list) in file_sections {
        section(&mut out, title, list.len(), limit);
        for path in list.iter().take(limit) {
            out.item(&format!("- {path}"));
        }
    }
    let symbol_sections = [
        ("Symbols added", &d.symbols_added),
        ("Symbols modified", &d.symbols_modified),
        ("Symbols deleted (last seen at)", &d.symbols_deleted),
    ];
    for (title, list) in symbol_sections {
        section(&mut out, title, list.len(), limit);
        for c in list.iter().take(limit) {
            out.item(&format!("- `{}` — {}", c.id, c.location));
        }
    }
    Ok(out.finish())
}

/// Whether `change_types` (all when absent) keeps changes of this type.
fn wanted(p: &DiffParams, change: ChangeType) -> bool {
    p.change_types
        .as_ref()
        .is_none_or(|types| types.contains(&change))
}

/// The line saying which change types the answer keeps, when `change_types` names some.
fn kept_note(p: &DiffParams) -> Option<String> {
    let types = p.change_types.as_ref()?;
    let names: Vec<&str> = types
        .iter()
        .map(|t| match t {
            ChangeType::Added => "added",
            ChangeType::Modified => "modified",
            ChangeType::Deleted => "deleted",
        })
        .collect();
    Some(format!("Only {} changes (change_types).", names.join(", ")))
}

fn section(out: &mut Budget, title: &str, total: usize, limit: usize) {
    if total == 0 {
        return;
    }
    if total > limit {
        out.header(&format!("## {title} ({total}, first {limit})"));
    } else {
        out.header(&format!("## {title} ({total})"));
    }
}
