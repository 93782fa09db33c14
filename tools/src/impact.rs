//! `impact`: what depends on a symbol (upstream) or what it depends on (downstream), by depth —
//! 1 WILL BREAK, 2 LIKELY AFFECTED, 3+ MAY NEED TESTING — with a risk summary, and an explicit
//! note when the answer is a lower bound because low-confidence edges were not followed.

use std::collections::BTreeSet;

use nexus_shared::ToolError;
use nexus_shared::params::{Direction, Format, ImpactParams};
use serde_json::json;

use super::budget::Budget;
use super::filters::{node_kinds, relation_kinds};
use super::neighbours::{SeenRefs, hint_once, list_ref, place, seen_in};
use super::session::by_default;
use super::{ToolContext, target};
use nexus_engine::is_test;
use nexus_engine::{EdgeKind, NodeRef, Reached, Toward, Walk};

/// Dependents listed when the call sets no limit, without and within a session.
const DEFAULT_LIMIT: u32 = 50;
const SESSION_LIMIT: u32 = 10;

/// Deepest walk allowed whatever is asked.
const MAX_DEPTH: u32 = 10;

/// The advice that ends a lower-bound note, given once per session.
pub const LOWER_IT: &str = "; lower it to see guessed dependents.";

/// `note` as this answer gives it: with its advice the first time, as a plain fact after.
pub fn advised(ctx: &ToolContext, note: &str) -> String {
    match note.strip_suffix(LOWER_IT) {
        Some(fact) if !hint_once(ctx, LOWER_IT) => format!("{fact}."),
        _ => note.to_owned(),
    }
}

pub fn run(ctx: &ToolContext, p: &ImpactParams) -> Result<String, ToolError> {
    let g = ctx.graph;
    let start_node = target::resolve(ctx, &p.target)?;
    let start = start_node.id;
    let start_ref = list_ref(ctx, &start_node);
    ctx.memory
        .sessions
        .borrow_mut()
        .record(ctx.session, [start], Some(start));
    let relations = relation_kinds(
        &p.relation_types,
        &[
            EdgeKind::Calls,
            EdgeKind::Imports,
            EdgeKind::Extends,
            EdgeKind::Implements,
        ],
    )?;
    let (stop_at, exclude) = (node_kinds(&p.stop_at_kinds)?, node_kinds(&p.exclude_kinds)?);
    let severity = p.severity_threshold.unwrap_or_default();
    let max_depth = p.max_depth.clamp(1, MAX_DEPTH).min(severity.max_depth());
    let min_confidence = p.min_confidence.clamp(0.0, 1.0) as f32;

    let walked = g.walk(
        &[start],
        &Walk {
            toward: match p.direction {
                Direction::Upstream => Toward::Upstream,
                Direction::Downstream => Toward::Downstream,
            },
            edges: &relations,
            min_confidence,
            max_depth,
            stop: &|n: &NodeRef| stop_at.contains(&n.kind()),
            skip: &|n: &NodeRef| exclude.contains(&n.kind()) || (!p.include_tests && is_test(n)),
            until: None,
        },
    );
    let (reached, cut_edges) = (walked.reached, walked.cut);

    let by_depth = |d: u32| {
        reached
            .iter()
            .filter(|r| if d >= 3 { r.depth >= 3 } else { r.depth == d })
            .count()
    };
    let processes: BTreeSet<String> = reached
        .iter()
        .map(|r| r.node)
        .chain([start])
        .flat_map(|n| {
            g.outgoing(n)
                .filter(|e| e.kind == EdgeKind::StepInProcess)
                .map(|e| e.to)
                .collect::<Vec<_>>()
        })
        .filter_map(|n| g.node(n).map(|x| x.name().to_owned()))
        .collect();
    let files: BTreeSet<&str> = reached
        .iter()
        .filter_map(|r| g.node(r.node).map(|n| n.file()))
        .collect();
    let (d1, total) = (by_depth(1), reached.len());
    let risk = match (d1, total) {
        (0, 0) => "NONE",
        (d, t) if d >= 20 || t >= 100 => "CRITICAL",
        (d, t) if d >= 8 || t >= 30 => "HIGH",
        (d, t) if d >= 3 || t >= 10 => "MEDIUM",
        _ => "LOW",
    };
    let lower_bound = (cut_edges > 0).then(|| {
        format!("Lower bound: {cut_edges} edges below min_confidence {min_confidence:.2} were not followed{LOWER_IT}")
    });
    let label = |d: u32| match d {
        1 => "WILL BREAK",
        2 => "LIKELY AFFECTED",
        _ => "MAY NEED TESTING",
    };
    let limit = p
        .limit
        .unwrap_or(by_default(ctx.session, DEFAULT_LIMIT, SESSION_LIMIT))
        .clamp(1, 500) as usize;
    let page: Vec<&Reached> = reached.iter().skip(p.offset as usize).take(limit).collect();
    let has_more = p.offset as usize + page.len() < total;

    if p.format == Some(Format::Json) {
        let items: Vec<_> = if p.summary_only {
            Vec::new()
        } else {
            page.iter().filter_map(|r| g.node(r.node).map(|n| json!({
                "id": n.stable_id(), "kind": n.kind().as_str(), "location": n.location(), "depth": r.depth, "label": label(r.depth),
                "via": r.via.kind.as_str(), "confidence": r.via.confidence, "reason": r.via.reason.as_str(),
            }))).collect()
        };
        return Ok(json!({
            "target": start_node.stable_id(), "direction": p.direction, "risk": risk, "total": total,
            "by_depth": {"1": d1, "2": by_depth(2), "3+": by_depth(3)}, "files": files.len(), "processes": processes,
            "lower_bound": lower_bound, "offset": p.offset, "has_more": has_more, "items": items,
        }).to_string());
    }

    let mut out = Budget::new(p.max_tokens);
    let noun = if p.direction == Direction::Upstream {
        "dependents"
    } else {
        "dependencies"
    };
    out.header(&format!(
        "# impact of `{}` ({}) — risk {risk}",
        start_ref,
        place(ctx, &start_node)
    ));
    out.header(&format!(
        "{total} {noun} within depth {max_depth}: {d1} WILL BREAK, {} LIKELY AFFECTED, {} MAY NEED TESTING · {} files · {} processes{}",
        by_depth(2),
        by_depth(3),
        files.len(),
        processes.len(),
        if processes.is_empty() { String::new() } else { format!(" ({})", processes.iter().take(5).cloned().collect::<Vec<_>>().join("; ")) }
    ));
    if let Some(note) = &lower_bound {
        out.header(&advised(ctx, note));
    }
    if !p.summary_only {
        let mut current = 0;
        let seen = seen_in(ctx, page.iter().map(|r| r.node));
        let mut seen_refs = SeenRefs::default();
        for r in &page {
            let Some(n) = g.node(r.node) else { continue };
            let group = r.depth.min(3);
            if group != current {
                seen_refs.flush(&mut out);
                current = group;
                out.header(&format!(
                    "## depth {}{} — {}",
                    group,
                    if group == 3 { "+" } else { "" },
                    label(group)
                ));
            }
            if seen.contains(&n.id) {
                seen_refs.push(ctx, &n);
                continue;
            }
            out.item(&format!(
                "- {} `{}` — {} · via {} {:.2} {}",
                n.kind(),
                list_ref(ctx, &n),
                place(ctx, &n),
                r.via.kind,
                r.via.confidence,
                r.via.reason.as_str()
            ));
        }
        seen_refs.flush(&mut out);
        ctx.memory
            .sessions
            .borrow_mut()
            .record(ctx.session, page.iter().map(|r| r.node), None);
        if has_more {
            out.header(&format!(
                "has_more: true — next page with offset={}",
                p.offset as usize + limit
            ));
        }
    }
    if total == 0 {
        out.header(if p.direction == Direction::Upstream {
            "Nothing in the graph depends on it (dynamic calls such as callbacks or getattr are not seen)."
        } else {
            "It depends on nothing in the graph."
        });
    }
    Ok(out.finish())
}
