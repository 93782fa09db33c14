//! `overview`: the codebase map — communities (size, cohesion, main folder, central symbols and
//! neighbours from their structural summary) and processes
//! (execution flows: entry, steps, depth), largest first, cut to `max_tokens`. In a session, an
//! entry given unchanged by an earlier `overview` is named only.

use std::collections::HashMap;

use nexus_shared::params::{Format, OverviewParams};
use serde_json::json;

use super::ToolContext;
use super::budget::Budget;
use super::neighbours::place;
use super::session::by_default;
use super::target::short_ref;

/// Communities and processes listed when the call sets no limit, without and within a session.
const DEFAULT_LIMIT: u32 = 10;
const SESSION_LIMIT: u32 = 5;
use nexus_engine::summary_tail;

pub fn run(ctx: &ToolContext, p: &OverviewParams) -> String {
    let g = ctx.graph;
    let limit = p
        .limit
        .unwrap_or(by_default(ctx.session, DEFAULT_LIMIT, SESSION_LIMIT))
        .clamp(1, 100) as usize;
    let main_folder = |members: &[u32]| {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for node in members.iter().filter_map(|&m| g.node(m)) {
            *counts
                .entry(node.file().rsplit_once('/').map_or(".", |(d, _)| d))
                .or_insert(0) += 1;
        }
        counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
            .map(|(f, _)| f.to_owned())
            .unwrap_or_default()
    };
    let name = |n: u32| g.node(n).map(|x| x.name().to_owned()).unwrap_or_default();
    let id = |n: u32| g.node(n).map(|x| x.stable_id()).unwrap_or_default();
    let loc = |n: u32| g.node(n).map(|x| x.location()).unwrap_or_default();
    let breadcrumb = ctx
        .memory
        .sessions
        .borrow()
        .breadcrumb(ctx.session, |n| g.node(n).map(|x| short_ref(ctx, &x)));

    if p.format == Some(Format::Json) {
        let communities: Vec<_> = g.communities.iter().take(if p.show_clusters { limit } else { 0 })
            .map(|c| json!({"id": id(c.node), "name": name(c.node), "size": c.members.len(), "cohesion": (c.cohesion * 100.0).round() / 100.0, "folder": main_folder(&c.members), "summary": g.node(c.node).map(|n| n.doc())}))
            .collect();
        let processes: Vec<_> = g.processes.iter().take(if p.show_processes { limit } else { 0 })
            .map(|x| json!({"id": id(x.node), "name": name(x.node), "entry": id(x.entry), "steps": x.steps.len(), "depth": x.depth}))
            .collect();
        return json!({"project": g.project, "communities_total": g.communities.len(), "processes_total": g.processes.len(), "communities": communities, "processes": processes, "session": breadcrumb}).to_string();
    }

    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "# {} — {} files, {} communities, {} processes",
        g.project,
        g.file_count(),
        g.communities.len(),
        g.processes.len()
    ));
    if let Some(trail) = &breadcrumb {
        out.header(trail);
    }
    if p.show_clusters {
        out.header(&format!(
            "## Communities (largest {} of {})",
            limit.min(g.communities.len()),
            g.communities.len()
        ));
        let mut known = Vec::new();
        for c in g.communities.iter().take(limit) {
            let tail = g.node(c.node).map_or("", |n| summary_tail(n.doc()));
            let line = format!(
                "- {} — {} symbols · cohesion {:.2} · {}/ · `{}`{}{tail}",
                name(c.node),
                c.members.len(),
                c.cohesion,
                main_folder(&c.members),
                id(c.node),
                if tail.is_empty() { "" } else { "\n  " },
            );
            if given_before(ctx, c.node, &line) {
                known.push(format!("`{}`", name(c.node)));
            } else {
                out.item(&line);
            }
        }
        given_line(&mut out, &known);
    }
    if p.show_processes {
        out.header(&format!(
            "## Processes (first {} of {}, by entry-point score)",
            limit.min(g.processes.len()),
            g.processes.len()
        ));
        let mut known = Vec::new();
        for x in g.processes.iter().take(limit) {
            let line = |entry: String| {
                format!(
                    "- {} — {} steps, depth {} · entry {entry} · `{}`",
                    name(x.node),
                    x.steps.len(),
                    x.depth,
                    id(x.node)
                )
            };
            // Given before means the same entry: its file's alias may differ from call to call.
            if given_before(ctx, x.node, &line(loc(x.entry))) {
                known.push(format!("`{}`", name(x.node)));
            } else {
                let entry = g.node(x.entry).map(|e| place(ctx, &e)).unwrap_or_default();
                out.item(&line(entry));
            }
        }
        given_line(&mut out, &known);
    }
    if g.communities.is_empty() && g.processes.is_empty() {
        out.header("No communities or processes: the graph has too few calls between symbols.");
    }
    out.finish()
}

/// Whether the session was given this line about `node` by an earlier `overview` (remembered
/// now either way); always false without a session.
fn given_before(ctx: &ToolContext, node: u32, line: &str) -> bool {
    ctx.memory
        .sessions
        .borrow_mut()
        .given_before(ctx.session, &format!("overview {node}"), line)
}

/// Ends a list with the names of its entries given before, when there are any.
fn given_line(out: &mut Budget, known: &[String]) {
    if !known.is_empty() {
        out.item(&format!(
            "- as given before: {} (`explore` one for its members or steps)",
            known.join(", ")
        ));
    }
}
