//! `search`: ranked symbol and file hits (id, kind, file:line, signature, score), optionally
//! grouped by the processes they take part in; paged with `offset`/`limit`, cut to `max_tokens`.
//! Ranked by words, by meaning (embeddings) or both (`mode`), with the search time.

use std::collections::{BTreeMap, HashSet};

use nexus_shared::params::{Format, SearchMode, SearchParams, Verbosity};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::json;

use super::ToolContext;
use super::budget::Budget;
use super::neighbours::{list_ref, place, seen_line};
use super::session::{FOCUS_BOOST, by_default};
use nexus_engine::{EdgeKind, Graph, Hit, Mode, NodeKind, NodeRef};

/// Hits listed when the call sets no limit, without and within a session.
const DEFAULT_LIMIT: u32 = 10;
const SESSION_LIMIT: u32 = 5;
/// Largest page.
const MAX_LIMIT: u32 = 100;
/// Largest page by meaning alone: past it the nearest vectors are rarely relevant.
const MAX_SEMANTIC_LIMIT: u32 = 20;
/// Shorter queries are names (`db`, `io`, `ui`): matched whole or as a prefix of a name, since
/// words that short carry no ranking signal.
const MIN_WORDS_CHARS: usize = 3;

pub fn run(ctx: &ToolContext, p: &SearchParams) -> Result<String, ToolError> {
    let started = (ctx.clock)();
    let query = p.query.trim();
    if query.is_empty() {
        return Err(ToolError::new(ErrorCode::InvalidParams, "`query` is empty")
            .with_hint("pass words or a symbol name, e.g. {\"query\": \"checkout\"}"));
    }
    let by_name = query.chars().count() < MIN_WORDS_CHARS;
    let has_embeddings = ctx.search.embeddings().is_some_and(|e| !e.is_empty());
    let mode = match p.mode {
        Some(SearchMode::Keyword) => Mode::Keyword,
        Some(SearchMode::Semantic) => Mode::Semantic,
        Some(SearchMode::Hybrid) => Mode::Hybrid,
        None if has_embeddings => Mode::Hybrid,
        None => Mode::Keyword,
    };
    if mode == Mode::Semantic && !has_embeddings && !by_name {
        return Err(no_embeddings());
    }
    let kind = match p.kind.as_deref() {
        None => None,
        Some(k) => Some(NodeKind::parse(k).ok_or_else(|| {
            ToolError::new(ErrorCode::InvalidParams, format!("unknown kind `{k}`")).with_hint(
                "one of Class, Interface, Struct, Enum, Trait, Function, Method, Module, File, Folder, Community",
            )
        })?),
    };
    let graph = ctx.graph;
    let filter = |n: u32| {
        graph.node(n).is_some_and(|node| {
            kind.is_none_or(|k| node.kind() == k)
                && p.path
                    .as_deref()
                    .is_none_or(|prefix| node.file().starts_with(prefix))
        })
    };
    let session = ctx.session;
    let max_limit = if mode == Mode::Semantic && !by_name {
        MAX_SEMANTIC_LIMIT
    } else {
        MAX_LIMIT
    };
    let limit = p
        .limit
        .unwrap_or(by_default(session, DEFAULT_LIMIT, SESSION_LIMIT))
        .clamp(1, max_limit) as usize;
    let focus_files = ctx.memory.sessions.borrow().focus_files(session, graph);
    // The head of the ranking this page needs, and one more to tell whether more follow; all of
    // it when a session's focus may lift hits from further down.
    let wanted = if focus_files.is_empty() {
        (p.offset as usize).saturating_add(limit).saturating_add(1)
    } else {
        usize::MAX
    };
    let (mut hits, whole) = if by_name {
        (name_hits(graph, query, &filter), true)
    } else {
        let ranking = ctx
            .search
            .ranked_top(&p.query, mode, &filter, wanted)
            .ok_or_else(no_embeddings)?;
        (ranking.hits, ranking.whole)
    };
    let mode_name = match (by_name, mode, has_embeddings) {
        (true, _, _) => "name",
        (_, Mode::Semantic, _) => "semantic",
        (_, Mode::Hybrid, true) => "hybrid",
        _ => "keyword",
    };
    if !focus_files.is_empty() {
        for hit in &mut hits {
            if graph
                .node(hit.node)
                .is_some_and(|n| focus_files.contains(n.file()))
            {
                hit.score *= FOCUS_BOOST;
            }
        }
        if by_name {
            hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
        } else {
            // A boost never lifts test code above the rest.
            ctx.search.reorder(&p.query, &mut hits);
        }
    }
    // Without every hit ranked, `total` is how many were: fewer than there are.
    let total = hits.len();
    let counted = if whole {
        total.to_string()
    } else {
        format!("more than {}", total.saturating_sub(1))
    };
    let page: Vec<_> = hits.iter().skip(p.offset as usize).take(limit).collect();
    let has_more = (p.offset as usize + page.len()) < total;
    let verbosity = p.verbosity.unwrap_or_default();
    let seen: HashSet<u32> = page
        .iter()
        .map(|h| h.node)
        .filter(|&n| ctx.memory.sessions.borrow().seen(session, n))
        .collect();
    ctx.memory
        .sessions
        .borrow_mut()
        .record(session, page.iter().map(|h| h.node), None);

    let ms = round((ctx.clock)() - started);
    if p.format == Some(Format::Json) {
        let items: Vec<_> = page
            .iter()
            .filter_map(|h| graph.node(h.node).map(|n| (n, h.score)))
            .map(|(n, score)| json!({"id": n.stable_id(), "kind": n.kind().as_str(), "name": n.name(), "location": n.location(), "signature": n.signature(), "score": round(score), "processes": processes_of(graph, &n).iter().map(|x| x.name()).collect::<Vec<_>>()}))
            .collect();
        let mut answer = json!({"query": p.query, "mode": mode_name, "total": total, "ms": ms, "offset": p.offset, "has_more": has_more, "hits": items});
        if !whole {
            answer["total_is_lower_bound"] = json!(true);
        }
        return Ok(answer.to_string());
    }

    let mut out = Budget::new(p.max_tokens);
    let shown_to = p.offset as usize + page.len();
    out.header(&format!(
        "# search \"{}\" — {counted} hits{} · {mode_name} · {ms} ms",
        p.query,
        if total > 0 {
            format!(" (showing {}–{shown_to})", p.offset as usize + 1)
        } else {
            String::new()
        }
    ));
    if total == 0 {
        out.header("No match. Try fewer or different words, a part of the name, or `grep` for text in files.");
        return Ok(out.finish());
    }
    let line = |n: &NodeRef, score: f64| {
        if seen.contains(&n.id) {
            seen_line(ctx, n)
        } else {
            hit_line(ctx, n, score, verbosity)
        }
    };
    if p.group_by_process {
        let mut groups: BTreeMap<(usize, String), Vec<String>> = BTreeMap::new();
        for (rank, hit) in page.iter().enumerate() {
            let Some(n) = graph.node(hit.node) else {
                continue;
            };
            let processes = processes_of(graph, &n);
            let group = processes.first().map_or_else(
                || "Not in a traced process".to_owned(),
                |p| format!("Process: {}", p.name()),
            );
            let key = groups
                .keys()
                .find(|(_, g)| *g == group)
                .cloned()
                .unwrap_or((rank, group));
            groups.entry(key).or_default().push(line(&n, hit.score));
        }
        for ((_, group), lines) in groups {
            out.item(&format!("## {group}\n{}", lines.join("\n")));
        }
    } else {
        for hit in &page {
            if let Some(n) = graph.node(hit.node) {
                out.item(&line(&n, hit.score));
            }
        }
    }
    if has_more {
        out.header(&format!(
            "has_more: true — next page with offset={shown_to}"
        ));
    }
    Ok(out.finish())
}

/// Symbols, files and folders whose name (or a file's name without its extension) is `query`
/// (score 2) or starts with it (score 1), ignoring case; shorter names first within a score.
fn name_hits(graph: &Graph, query: &str, filter: &dyn Fn(u32) -> bool) -> Vec<Hit> {
    let query = query.to_lowercase();
    let mut found: Vec<(Hit, usize)> = graph
        .nodes()
        .filter(|n| n.kind().is_symbol() || matches!(n.kind(), NodeKind::File | NodeKind::Folder))
        .filter_map(|n| {
            let name = n
                .name()
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_lowercase();
            let stem = name.split('.').next().unwrap_or_default();
            let score = if name == query || stem == query {
                2.0
            } else if name.starts_with(&query) {
                1.0
            } else {
                return None;
            };
            Some((Hit { node: n.id, score }, name.len()))
        })
        .filter(|(hit, _)| filter(hit.node))
        .collect();
    found.sort_by(|(a, a_len), (b, b_len)| {
        b.score
            .total_cmp(&a.score)
            .then(a_len.cmp(b_len))
            .then(a.node.cmp(&b.node))
    });
    found.into_iter().map(|(hit, _)| hit).collect()
}

/// Semantic search asked for before embeddings exist.
fn no_embeddings() -> ToolError {
    ToolError::new(
        ErrorCode::InvalidParams,
        "semantic search needs embeddings, and this graph has none yet",
    )
    .with_hint(
        "use mode \"keyword\" or `grep` for exact text; embeddings are computed after indexing \
         when the built-in model is present (scripts/setup.sh writes it to model/), so retry once \
         the tab reports them done",
    )
}

fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn hit_line(ctx: &ToolContext, n: &NodeRef, score: f64, verbosity: Verbosity) -> String {
    let mut line = format!(
        "- {} `{}` — {} · score {:.2}",
        n.kind(),
        list_ref(ctx, n),
        place(ctx, n),
        score
    );
    if verbosity != Verbosity::Summary && !n.signature().is_empty() {
        line.push_str(&format!("\n  `{}`", n.signature()));
    }
    let summarized = matches!(
        n.kind(),
        NodeKind::Folder | NodeKind::File | NodeKind::Community
    );
    let shows_doc = verbosity == Verbosity::Full || (summarized && verbosity != Verbosity::Summary);
    if shows_doc && !n.doc().is_empty() {
        line.push_str(&format!("\n  {}", n.doc()));
    }
    line
}

/// The processes a node is a step of.
pub fn processes_of<'g>(graph: &'g Graph, n: &NodeRef<'g>) -> Vec<NodeRef<'g>> {
    graph
        .outgoing(n.id)
        .filter(|e| e.kind == EdgeKind::StepInProcess)
        .filter_map(|e| graph.node(e.to))
        .collect()
}
