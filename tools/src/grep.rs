//! `grep`: a regular expression over the indexed files' text, with a glob filter on paths,
//! case sensitivity and context lines; totals, files searched, and a clear error for bad regex.
//! Bounded: a pattern length cap, a compiled-size cap, and a time budget and the caller's cancel
//! checked between files and between the `SEGMENT_BYTES` pieces of a large file. Files that cannot
//! hold a match (`grep_filter`: they lack what every match starts or ends with) are skipped unread.

use globset::Glob;
use nexus_shared::params::{Format, GrepParams};
use nexus_shared::{ErrorCode, ToolError};
use regex::{Regex, RegexBuilder};
use serde_json::json;

use super::ToolContext;
use super::budget::Budget;
use super::grep_filter::Needs;
use nexus_engine::is_secret;

/// Largest page of matches.
const MAX_LIMIT: u32 = 500;
/// Longest line shown; longer lines are cut with an ellipsis.
const LINE_CHARS: usize = 240;
/// Longest pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 1_000;
/// Largest compiled program and lazy-DFA cache of a pattern, in bytes.
const MAX_COMPILED_BYTES: usize = 1 << 20;
const MAX_DFA_BYTES: usize = 4 << 20;
/// Time a scan may take before it stops and says how far it got (well under any call deadline,
/// so the worker is free for the next call).
pub const TIME_BUDGET_MS: f64 = 2_000.0;
/// A large file is scanned in pieces of about this many bytes (whole lines), with the budget and
/// the cancel flag checked between them, so one huge file cannot hold the worker.
const SEGMENT_BYTES: usize = 64 * 1024;

pub fn run(ctx: &ToolContext, p: &GrepParams) -> Result<String, ToolError> {
    run_within(ctx, p, TIME_BUDGET_MS)
}

fn compile(p: &GrepParams, multi_line: bool) -> Result<Regex, ToolError> {
    RegexBuilder::new(&p.pattern)
        .case_insensitive(!p.case_sensitive)
        .multi_line(multi_line)
        .crlf(true)
        .size_limit(MAX_COMPILED_BYTES)
        .dfa_size_limit(MAX_DFA_BYTES)
        .build()
        .map_err(|e| {
            let hint = if matches!(e, regex::Error::CompiledTooBig(_)) {
                "the pattern compiles too large: use fewer or shorter repetitions"
            } else {
                "escape special characters such as ( [ . * + ? with a backslash"
            };
            ToolError::new(
                ErrorCode::InvalidRegex,
                format!("invalid regular expression: {e}"),
            )
            .with_hint(hint)
        })
}

/// One matching line: its index, the column of the match (1-based, in characters), the line.
type LineHit<'t> = (usize, usize, &'t str);

/// Every line of `text` `line_re` matches. `scan` (the same pattern, multi-line) finds candidate
/// places in the whole text at once (literal prefilters), and each candidate line is checked.
/// Unless `numbered`, lines are not counted and every hit's line index and column are 0: a
/// caller past its page of matches needs only how many there are.
fn matching_lines<'t>(
    scan: &Regex,
    line_re: &Regex,
    text: &'t str,
    numbered: bool,
) -> Vec<LineHit<'t>> {
    let mut hits = Vec::new();
    let (mut pos, mut line_no, mut counted_to) = (0usize, 0usize, 0usize);
    while pos <= text.len() {
        let Some(m) = scan.find_at(text, pos) else {
            break;
        };
        let start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1).max(pos);
        let end = text[m.start()..]
            .find('\n')
            .map_or(text.len(), |i| m.start() + i);
        if numbered {
            line_no += newlines(&text.as_bytes()[counted_to..start]);
            counted_to = start;
        }
        let line = text[start..end]
            .strip_suffix('\r')
            .unwrap_or(&text[start..end]);
        if let Some(found) = line_re.find(line) {
            let column = if numbered {
                line[..found.start()].chars().count() + 1
            } else {
                0
            };
            hits.push((line_no, column, line));
        }
        pos = end + 1;
    }
    hits
}

/// How many line feeds `bytes` holds (word-wide and SIMD counting: a byte-by-byte count took a
/// third of a literal grep's time).
fn newlines(bytes: &[u8]) -> usize {
    bytecount::count(bytes, b'\n')
}

/// `text` in pieces of whole lines, each at least `size` bytes but the last, with the number of
/// lines before each piece (0 for every piece unless `numbered`).
fn segments(text: &str, size: usize, numbered: bool) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text;
    let mut lines_before = 0usize;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = if rest.len() <= size {
            rest.len()
        } else {
            let mut cut = size;
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            rest[cut..].find('\n').map_or(rest.len(), |i| cut + i + 1)
        };
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        let first_line = lines_before;
        if numbered {
            lines_before += newlines(piece.as_bytes());
        }
        Some((first_line, piece))
    })
}

/// Why a scan of one file stopped before its end.
enum Interrupted {
    Cancelled,
    OverBudget,
}

/// Every matching line of one file, scanned in segments with the cancel flag and the budget
/// checked between them (line indexes and columns only when `numbered`).
fn scan_file<'t>(
    ctx: &ToolContext,
    scan: &Regex,
    line_re: &Regex,
    text: &'t str,
    numbered: bool,
    over_budget: impl Fn() -> bool,
) -> Result<Vec<LineHit<'t>>, Interrupted> {
    let mut hits = Vec::new();
    for (k, (first_line, piece)) in segments(text, SEGMENT_BYTES, numbered).enumerate() {
        if k > 0 && (ctx.cancelled)() {
            return Err(Interrupted::Cancelled);
        }
        if k > 0 && over_budget() {
            return Err(Interrupted::OverBudget);
        }
        hits.extend(
            matching_lines(scan, line_re, piece, numbered)
                .into_iter()
                .map(|(line, column, found)| (first_line + line, column, found)),
        );
    }
    Ok(hits)
}

/// `run` with a chosen time budget (tests use 0 to see a cut scan).
pub fn run_within(ctx: &ToolContext, p: &GrepParams, budget_ms: f64) -> Result<String, ToolError> {
    if p.context_lines > 5 {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("context_lines is {}; it must be 0 to 5", p.context_lines),
        ));
    }
    let chars = p.pattern.chars().count();
    if chars > MAX_PATTERN_CHARS {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("the pattern has {chars} characters; at most {MAX_PATTERN_CHARS} are accepted"),
        ));
    }
    let regex = compile(p, false)?;
    let scan = compile(p, true)?;
    // Files that cannot hold a match are skipped unread when the pattern has required literals.
    let needs = Needs::of(&p.pattern, !p.case_sensitive);
    let filter = needs.as_ref().map(|_| ctx.memory.grep_filter(ctx.sources));
    let started = (ctx.clock)();
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
    let mut cut_short = false;
    for (index, path) in ctx.sources.keys().enumerate() {
        if (ctx.cancelled)() {
            return Err(ToolError::new(
                ErrorCode::Cancelled,
                format!("grep was cancelled after {files_searched} files"),
            ));
        }
        if (ctx.clock)() - started > budget_ms {
            cut_short = true;
            break;
        }
        let name_matches = glob.as_ref().is_none_or(|g| {
            g.is_match(path) || g.is_match(path.rsplit('/').next().unwrap_or(path))
        });
        if !name_matches {
            continue;
        }
        if let (Some(filter), Some(needs)) = (filter, &needs)
            && !filter.may_match(index, needs)
        {
            files_searched += 1;
            continue;
        }
        // The texts hold no secret (indexing and a restore refuse them): this guards the read
        // only, after the filter, as it costs an allocation per path.
        if is_secret(path) {
            continue;
        }
        files_searched += 1;
        let Some(text) = ctx.sources.get(path) else {
            continue;
        };
        // Past the page of matches only the count of matching lines is needed.
        let numbered = hits.len() < limit;
        let found = match scan_file(ctx, &scan, &regex, &text, numbered, || {
            (ctx.clock)() - started > budget_ms
        }) {
            Ok(found) => found,
            Err(Interrupted::Cancelled) => {
                return Err(ToolError::new(
                    ErrorCode::Cancelled,
                    format!("grep was cancelled in its file number {files_searched}"),
                ));
            }
            Err(Interrupted::OverBudget) => {
                // The counts cover whole files only.
                files_searched -= 1;
                cut_short = true;
                break;
            }
        };
        if found.is_empty() {
            continue;
        }
        files_matched += 1;
        let first = total;
        total += found.len();
        if total <= p.offset as usize || hits.len() >= limit {
            continue;
        }
        let lines: Vec<&str> = if context > 0 {
            text.lines().collect()
        } else {
            Vec::new()
        };
        for (k, &(i, column, line)) in found.iter().enumerate() {
            if first + k < p.offset as usize || hits.len() >= limit {
                continue;
            }
            let before: Vec<&str> = lines
                .get(i.saturating_sub(context)..i)
                .map(<[&str]>::to_vec)
                .unwrap_or_default();
            let after: Vec<&str> = lines
                .get(i + 1..(i + 1 + context).min(lines.len()))
                .map(<[&str]>::to_vec)
                .unwrap_or_default();
            let before: Vec<String> = before.into_iter().map(str::to_owned).collect();
            let after: Vec<String> = after.into_iter().map(str::to_owned).collect();
            hits.push((path.as_str(), i + 1, column, cut(line), before, after));
        }
    }
    let has_more = (p.offset as usize + hits.len()) < total;
    if p.format == Some(Format::Json) {
        let items: Vec<_> = hits
            .iter()
            .map(|(f, l, c, t, b, a)| json!({"file": f, "line": l, "column": c, "text": t, "before": b, "after": a}))
            .collect();
        return Ok(json!({"pattern": p.pattern, "total_matches": total, "files_searched": files_searched, "files_matched": files_matched, "offset": p.offset, "has_more": has_more, "cut_short": cut_short, "matches": items}).to_string());
    }
    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "# grep /{}/ — {total} matches in {files_matched} files ({files_searched} files searched)",
        p.pattern
    ));
    if cut_short {
        out.header(&format!(
            "Stopped after {budget_ms:.0} ms with {files_searched} files searched: the counts cover those files only. Narrow file_pattern or simplify the pattern."
        ));
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::with_sources;
    use nexus_engine::{Graph, Sources};

    fn params(pattern: &str) -> GrepParams {
        serde_json::from_value(json!({ "pattern": pattern })).unwrap()
    }

    fn sources() -> Sources {
        let mut sources = Sources::new();
        sources.insert("a.py".into(), "x = 1\r\n# TODO one\r\nTODO two\n".into());
        sources.insert("b.py".into(), "first\nsecond todo\n\nlast TODO".into());
        sources.insert("c.py".into(), "nothing here\n".into());
        sources.insert(".PGPASS".into(), "TODO secret\n".into());
        sources
    }

    #[test]
    fn a_literal_in_every_file_decompresses_each_text_page_about_once_per_grep() {
        // Texts that came in out of order, settled as a full index leaves them.
        let text = |n: usize| format!("needle {n}\n{}", "filler line of text\n".repeat(400));
        let mut sources: Sources = (0..600)
            .map(|n| n * 7919 % 600)
            .map(|n| (format!("src/{n:04}.c"), text(n)))
            .collect();
        sources.settle();
        let pages = sources.page_count();
        assert!(pages > 20, "{pages} pages");
        with_sources(Graph::default(), sources, |ctx| {
            run(ctx, &params("needle")).unwrap();
            for _ in 0..3 {
                let before = ctx.sources.pages_decompressed();
                let answer = run(ctx, &params("needle")).unwrap();
                assert!(answer.contains("600 matches in 600 files"), "{answer}");
                let read = ctx.sources.pages_decompressed() - before;
                assert!(
                    read <= pages + pages / 4 + 1,
                    "one grep decompressed {read} of {pages} pages"
                );
            }
        });
    }

    #[test]
    fn lines_columns_anchors_and_crlf_match_a_line_by_line_scan() {
        with_sources(Graph::default(), sources(), |ctx| {
            let answer = run(ctx, &params("todo")).unwrap();
            assert!(
                answer.starts_with("# grep /todo/ — 4 matches in 2 files (3 files searched)"),
                "{answer}"
            );
            for line in [
                "a.py:2:3: # TODO one",
                "a.py:3:1: TODO two",
                "b.py:2:8: second todo",
                "b.py:4:6: last TODO",
            ] {
                assert!(answer.contains(line), "{line} in {answer}");
            }
            let anchored = run(ctx, &params("^TODO.*$")).unwrap();
            assert!(
                anchored.contains("1 matches") && anchored.contains("a.py:3:1: TODO two"),
                "{anchored}"
            );
            // A match across lines is not a line match.
            let across = run(ctx, &params("first\\ssecond")).unwrap();
            assert!(across.contains("0 matches"), "{across}");
        });
    }

    #[test]
    fn files_past_the_page_of_matches_are_counted_and_the_next_page_numbers_them() {
        with_sources(Graph::default(), sources(), |ctx| {
            let page = |offset: u32| {
                let mut p = params("todo");
                (p.limit, p.offset) = (2, offset);
                run(ctx, &p).unwrap()
            };
            let first = page(0);
            assert!(first.contains("4 matches in 2 files"), "{first}");
            assert!(
                first.contains("a.py:2:3: # TODO one") && first.contains("a.py:3:1: TODO two"),
                "{first}"
            );
            assert!(first.contains("offset=2"), "{first}");
            let second = page(2);
            assert!(second.contains("4 matches in 2 files"), "{second}");
            assert!(
                second.contains("b.py:2:8: second todo") && second.contains("b.py:4:6: last TODO"),
                "{second}"
            );
        });
    }

    #[test]
    fn long_or_huge_patterns_are_refused_and_the_budget_cuts_the_scan() {
        with_sources(Graph::default(), sources(), |ctx| {
            let long = run(ctx, &params(&"a".repeat(MAX_PATTERN_CHARS + 1))).unwrap_err();
            assert_eq!(long.code, ErrorCode::InvalidParams);
            let huge = run(ctx, &params("\\w{500}\\w{500}\\w{500}")).unwrap_err();
            assert_eq!(huge.code, ErrorCode::InvalidRegex);
            assert!(huge.hint.unwrap_or_default().contains("too large"));
            let cut = run_within(ctx, &params("TODO"), -1.0).unwrap();
            assert!(
                cut.contains("Stopped after") && cut.contains("0 files searched"),
                "{cut}"
            );
        });
    }

    /// Cancelled from the second question on: the first comes before the file, the second
    /// between its first two segments.
    fn cancelled_after_the_first_check() -> bool {
        use std::sync::atomic::{AtomicU32, Ordering};
        static CHECKS: AtomicU32 = AtomicU32::new(0);
        CHECKS.fetch_add(1, Ordering::Relaxed) >= 1
    }

    #[test]
    fn a_huge_file_is_cancelled_between_its_segments() {
        let mut sources = Sources::new();
        let line = "no match on this line at all\n";
        sources.insert(
            "huge.txt".into(),
            line.repeat(4 * SEGMENT_BYTES / line.len()),
        );
        with_sources(Graph::default(), sources, |ctx| {
            let cancelled = ToolContext {
                session: None,
                cancelled: cancelled_after_the_first_check,
                ..*ctx
            };
            // No required prefix or suffix: the trigram filter cannot skip the file.
            let err = run(&cancelled, &params("[a-z]+TODO[a-z]+")).unwrap_err();
            assert_eq!(err.code, ErrorCode::Cancelled);
            assert!(err.message.contains("file number 1"), "{}", err.message);
        });
    }

    #[test]
    fn a_cancelled_call_stops_before_the_next_file() {
        with_sources(Graph::default(), sources(), |ctx| {
            let cancelled = ToolContext {
                session: None,
                cancelled: || true,
                ..*ctx
            };
            let err = run(&cancelled, &params("TODO")).unwrap_err();
            assert_eq!(err.code, ErrorCode::Cancelled);
            assert!(err.message.contains("after 0 files"), "{}", err.message);
            assert!(run(ctx, &params("TODO")).unwrap().contains("matches"));
        });
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        /// Scanning in segments finds the same lines, columns and line numbers as one scan of
        /// the whole text, wherever the cuts fall.
        #[test]
        fn segments_find_what_a_whole_scan_finds(
            text in "(ab|a\\r\\n|b\\n|\\n|é|x){0,60}",
            size in 1usize..24,
            pattern in proptest::sample::select(vec!["a", "ab", "^b", "a$", "b\\s*a", "é|x"]),
        ) {
            let p = params(pattern);
            let (line_re, scan) = (compile(&p, false).unwrap(), compile(&p, true).unwrap());
            let whole = matching_lines(&scan, &line_re, &text, true);
            let pieces: Vec<_> = segments(&text, size, true)
                .flat_map(|(first, piece)| {
                    matching_lines(&scan, &line_re, piece, true)
                        .into_iter()
                        .map(move |(line, column, found)| (first + line, column, found))
                })
                .collect();
            // Only counted: the same lines, without numbers or columns.
            let counted: Vec<_> = segments(&text, size, false)
                .flat_map(|(_, piece)| matching_lines(&scan, &line_re, piece, false))
                .collect();
            let lines = |hits: &[LineHit<'_>]| hits.iter().map(|h| h.2.to_owned()).collect::<Vec<_>>();
            proptest::prop_assert_eq!(lines(&whole), lines(&counted));
            proptest::prop_assert!(counted.iter().all(|&(line, column, _)| line == 0 && column == 0));
            proptest::prop_assert_eq!(whole, pieces);
            proptest::prop_assert_eq!(segments(&text, size, true).map(|(_, s)| s).collect::<String>(), text);
        }
    }
}
