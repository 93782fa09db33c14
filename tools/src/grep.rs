//! `grep`: a regular expression over the indexed files' text, with a glob filter on paths,
//! case sensitivity and context lines; totals, files searched, and a clear error for bad regex.

use globset::Glob;
use nexus_shared::params::{Format, GrepParams};
use nexus_shared::{ErrorCode, ToolError};
use regex_lite::RegexBuilder;
use serde_json::json;

use super::ToolContext;
use super::budget::Budget;
use nexus_engine::is_secret;

/// Largest page of matches.
const MAX_LIMIT: u32 = 500;
/// Longest line shown; longer lines are cut with an ellipsis.
const LINE_CHARS: usize = 240;

pub fn run(ctx: &ToolContext, p: &GrepParams) -> Result<String, ToolError> {
    if p.context_lines > 5 {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("context_lines is {}; it must be 0 to 5", p.context_lines),
        ));
    }
    let regex = RegexBuilder::new(&p.pattern)
        .case_insensitive(!p.case_sensitive)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| {
            ToolError::new(
                ErrorCode::InvalidRegex,
                format!("invalid regular expression: {e}"),
            )
            .with_hint("escape special characters such as ( [ . * + ? with a backslash")
        })?;
    let glob = match &p.file_pattern {
        None => None,
        Some(pattern) => Some(
            Glob::new(pattern)
                .map_err(|e| {
                    ToolError::new(
                        ErrorCode::InvalidParams,
                        format!("invalid file_pattern: {e}"),
                    )
                })?
                .compile_matcher(),
        ),
    };
    let context = p.context_lines as usize;
    let limit = p.limit.clamp(1, MAX_LIMIT) as usize;
    let mut total = 0usize;
    let mut files_searched = 0usize;
    let mut files_matched = 0usize;
    let mut hits = Vec::new();
    for (path, text) in ctx.sources.iter() {
        let name_matches = glob.as_ref().is_none_or(|g| {
            g.is_match(path) || g.is_match(path.rsplit('/').next().unwrap_or(path))
        });
        if !name_matches || is_secret(path) {
            continue;
        }
        files_searched += 1;
        let lines: Vec<&str> = text.lines().collect();
        let mut matched_here = false;
        for (i, line) in lines.iter().enumerate() {
            let Some(m) = regex.find(line) else { continue };
            total += 1;
            matched_here = true;
            if total > p.offset as usize && hits.len() < limit {
                let before: Vec<&str> = lines[i.saturating_sub(context)..i].to_vec();
                let after: Vec<&str> = lines
                    .get(i + 1..(i + 1 + context).min(lines.len()))
                    .map(<[&str]>::to_vec)
                    .unwrap_or_default();
                let column = line[..m.start()].chars().count() + 1;
                hits.push((path.as_str(), i + 1, column, cut(line), before, after));
            }
        }
        if matched_here {
            files_matched += 1;
        }
    }
    let has_more = (p.offset as usize + hits.len()) < total;
    if p.format == Some(Format::Json) {
        let items: Vec<_> = hits
            .iter()
            .map(|(f, l, c, t, b, a)| json!({"file": f, "line": l, "column": c, "text": t, "before": b, "after": a}))
            .collect();
        return Ok(json!({"pattern": p.pattern, "total_matches": total, "files_searched": files_searched, "files_matched": files_matched, "offset": p.offset, "has_more": has_more, "matches": items}).to_string());
    }
    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "# grep /{}/ — {total} matches in {files_matched} files ({files_searched} files searched)",
        p.pattern
    ));
    if total == 0 {
        out.header(
            "No match. Check the pattern (it is a regular expression) or widen file_pattern.",
        );
        return Ok(out.finish());
    }
    for (file, line, column, text, before, after) in &hits {
        let mut item = String::new();
        if context > 0 {
            item.push_str("--\n");
        }
        for (k, b) in before.iter().enumerate() {
            item.push_str(&format!("  {}- {}\n", line - before.len() + k, cut(b)));
        }
        item.push_str(&format!("{file}:{line}:{column}: {text}"));
        for (k, a) in after.iter().enumerate() {
            item.push_str(&format!("\n  {}+ {}", line + 1 + k, cut(a)));
        }
        out.item(&item);
    }
    if has_more {
        out.header(&format!(
            "has_more: true — next page with offset={}",
            p.offset as usize + hits.len()
        ));
    }
    Ok(out.finish())
}

fn cut(line: &str) -> String {
    if line.chars().count() <= LINE_CHARS {
        line.to_owned()
    } else {
        format!("{}…", line.chars().take(LINE_CHARS).collect::<String>())
    }
}
