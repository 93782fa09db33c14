//! `read`: a file's numbered lines (optionally a range), its language, size and line count, and
//! on request its level-1 dependencies (imported files with their definitions, and importers).
//! In a session, runs of lines it was shown before become one line each.

use nexus_shared::params::{Format, ReadParams};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::json;

use super::budget::Budget;
use super::neighbours::{hint_once, path_ref};
use super::{ToolContext, paths};
use nexus_engine::Lang;
use nexus_engine::{EdgeKind, NodeRef};

pub fn run(ctx: &ToolContext, p: &ReadParams) -> Result<String, ToolError> {
    if p.max_depth > 1 {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("`max_depth` is 0 or 1, not {}", p.max_depth),
        )
        .with_hint(
            "0 lists the imported files, 1 adds their definitions; read a dependency to go further",
        ));
    }
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
    let language = language_of(path);
    let (imports, importers) = if p.include_deps {
        deps(ctx, path)
    } else {
        (Vec::new(), Vec::new())
    };
    let g = ctx.graph;
    if let Some(file) = g.find_id(&format!("File:{path}")) {
        let defined = definitions(ctx, path).into_iter().map(|d| d.id);
        ctx.memory.sessions.borrow_mut().record(
            ctx.session,
            std::iter::once(file).chain(defined),
            Some(file),
        );
    }
    let with_definitions = p.include_deps && p.max_depth >= 1;
    if p.format == Some(Format::Json) {
        let body: Vec<&str> = lines
            .iter()
            .skip(start as usize - 1)
            .take((end + 1 - start) as usize)
            .copied()
            .collect();
        let dependencies: Vec<_> = imports
            .iter()
            .map(|dep| {
                let mut entry = json!({"path": dep, "type": "import", "level": 1, "language": language_of(dep), "size": ctx.sources.len_of(dep.as_str()), "lines": ctx.sources.get(dep.as_str()).map(|t| t.lines().count())});
                if with_definitions {
                    entry["definitions"] = definitions(ctx, dep).iter().map(|d| json!({"id": d.stable_id(), "kind": d.kind().as_str(), "line": d.start_line(), "signature": d.signature()})).collect();
                }
                entry
            })
            .collect();
        return Ok(json!({"path": path, "language": language, "size": text.len(), "lines": count, "start_line": start, "end_line": end, "content": body.join("\n"), "dependencies": dependencies, "imported_by": importers}).to_string());
    }
    let indent = common_indent(
        ctx,
        lines
            .iter()
            .skip(start as usize - 1)
            .take((end + 1 - start) as usize)
            .copied(),
    );
    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "# {} ({language}, {count} lines, {}) — lines {start}–{end}{}",
        path_ref(ctx, path),
        size(text.len()),
        indent_note(indent)
    ));
    if p.include_deps {
        dep_lines(&mut out, &imports, &importers);
    }
    if with_definitions {
        for dep in &imports {
            out.item(&dependency(ctx, dep));
        }
        if !imports.is_empty() {
            out.header(&format!("## {path}"));
        }
    }
    let width = end.to_string().len();
    let sessions = &ctx.memory.sessions;
    let known = sessions.borrow().shown_lines(ctx.session, path, start, end);
    // Asking again for exactly what was shown is asking to see it again: only a wider read
    // leaves out what the session was shown.
    let skipped: Vec<(u32, u32)> = if known == [(start, end)] {
        Vec::new()
    } else {
        known
            .into_iter()
            .filter(|(a, b)| b - a + 1 >= MIN_SKIPPED_LINES)
            .collect()
    };
    let mut last_shown = None;
    let mut number = start;
    while number <= end && (number as usize) <= lines.len() {
        let fits = if let Some(&(a, b)) = skipped.iter().find(|(a, _)| *a == number) {
            let advice = if hint_once(ctx, READ_AGAIN) {
                format!(" ({READ_AGAIN})")
            } else {
                String::new()
            };
            let fits = out.item(&format!("{a}–{b} | … shown before{advice}"));
            number = b + 1;
            fits
        } else {
            let line = lines[number as usize - 1];
            number += 1;
            let line = line.get(indent..).unwrap_or_default();
            out.item(&format!("{:>width$} | {line}", number - 1))
        };
        if !fits {
            break;
        }
        last_shown = Some(number - 1);
    }
    if let Some(last) = last_shown {
        sessions
            .borrow_mut()
            .mark_lines(ctx.session, path, start, last);
    }
    Ok(out.finish())
}

/// The spaces every non-blank line of `lines` starts with, which a session's answer leaves out
/// (saying so once): 0 when a line starts with a tab or without a session.
pub fn common_indent<'l>(ctx: &ToolContext, lines: impl IntoIterator<Item = &'l str>) -> usize {
    if ctx.session.is_none() {
        return 0;
    }
    lines
        .into_iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let spaces = l.len() - l.trim_start_matches(' ').len();
            if l[spaces..].starts_with('\t') {
                0
            } else {
                spaces
            }
        })
        .min()
        .unwrap_or(0)
}

/// The note that says how much indentation an answer left out.
pub fn indent_note(indent: usize) -> String {
    if indent == 0 {
        String::new()
    } else {
        format!(" (indent {indent} removed)")
    }
}

/// Shorter runs of lines already shown are shown again: a reference would save little.
const MIN_SKIPPED_LINES: u32 = 3;
/// How to see lines left out as shown before, said once per session.
const READ_AGAIN: &str = "read exactly those lines to see them again";

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

/// A file's language by its extension, `text` when no grammar reads it.
fn language_of(path: &str) -> &'static str {
    Lang::of_path(path).map_or("text", Lang::as_str)
}

/// A size in bytes as a person reads it.
fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}

/// The symbols a file defines, in line order.
fn definitions<'g>(ctx: &'g ToolContext, path: &str) -> Vec<NodeRef<'g>> {
    let g = ctx.graph;
    let Some(file) = g.find_id(&format!("File:{path}")) else {
        return Vec::new();
    };
    let mut defined: Vec<NodeRef> = g
        .outgoing(file)
        .filter(|e| e.kind == EdgeKind::Defines)
        .filter_map(|e| g.node(e.to))
        .collect();
    defined.sort_by_key(|n| (n.start_line(), n.id));
    defined
}

/// One imported file as an item: its path, language, size, and each definition's line and
/// signature (its name when it has none).
fn dependency(ctx: &ToolContext, path: &str) -> String {
    let text = ctx.sources.get(path);
    let text = text.as_deref().unwrap_or("");
    let mut item = format!(
        "## {path} ({}, {} lines, {})",
        language_of(path),
        text.lines().count(),
        size(text.len())
    );
    for d in definitions(ctx, path) {
        let shown = if d.signature().is_empty() {
            d.name()
        } else {
            d.signature()
        };
        item.push_str(&format!("\n{:>5} | {shown}", d.start_line()));
    }
    item
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

#[cfg(test)]
mod tests {
    use crate::dispatch;
    use crate::test_support::{indexed, text, with_fixture_sources, with_sources};
    use nexus_engine::SourceFile;
    use serde_json::json;

    #[test]
    fn a_session_skips_lines_it_was_shown_unless_asked_for_exactly_them() {
        with_fixture_sources(|ctx| {
            let session = crate::ToolContext {
                session: Some("r"),
                ..*ctx
            };
            let read = |ctx, args| text(dispatch(Some(ctx), "read", args));
            let plain = read(ctx, json!({"path": "shop/cart.py"}));
            dispatch(
                Some(&session),
                "deep_dive",
                json!({"name": "Cart.checkout"}),
            );
            let wider = read(&session, json!({"path": "shop/cart.py"}));
            assert!(
                wider.contains(
                    "\n7–10 | … shown before (read exactly those lines to see them again)\n11 | \n"
                ) && !wider.contains("charge(self.total())")
                    && wider.contains("15 | def main():"),
                "{wider}"
            );
            let exactly = read(
                &session,
                json!({"path": "shop/cart.py", "start_line": 7, "end_line": 10}),
            );
            assert!(
                exactly.starts_with(
                    "# f1 (python, 17 lines, 276 B) — lines 7–10 (indent 4 removed)\n"
                ) && exactly.contains(" 9 |     charge(self.total())"),
                "the file is named by the alias the deep dive defined: {exactly}"
            );
            let whole_again = read(&session, json!({"path": "f1"}));
            assert!(
                whole_again.starts_with("# f1 (python")
                    && whole_again.lines().skip(1).eq(plain.lines().skip(1)),
                "the same range again, asked for by the file's alias, is shown in full: {whole_again}"
            );
            assert_eq!(read(ctx, json!({"path": "shop/cart.py"})), plain);
        });
    }

    #[test]
    fn c_files_and_headers_read_as_c_with_their_includes() {
        let file = |path: &str, code: &str| SourceFile {
            path: path.into(),
            bytes: code.as_bytes().to_vec(),
        };
        let (graph, sources) = indexed(vec![
            file("lib/util.h", "int add(int a, int b);\n"),
            file(
                "lib/util.c",
                "#include \"util.h\"\nint add(int a, int b) { return a + b; }\n",
            ),
        ]);
        with_sources(graph, sources, |ctx| {
            let source = text(dispatch(
                Some(ctx),
                "read",
                json!({"path": "lib/util.c", "include_deps": true, "max_depth": 0}),
            ));
            assert!(source.starts_with("# lib/util.c (c, 2 lines"), "{source}");
            assert!(source.contains("imports: lib/util.h"), "{source}");
            let header = text(dispatch(
                Some(ctx),
                "read",
                json!({"path": "lib/util.h", "include_deps": true, "max_depth": 0}),
            ));
            assert!(header.starts_with("# lib/util.h (c, "), "{header}");
            assert!(header.contains("imported by: lib/util.c"), "{header}");
        });
    }
}
