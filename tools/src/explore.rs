//! `explore`: a symbol (or a file or folder, with its structural summary) with its connections, a
//! cluster (community) with its summary and members, or a process with its steps in order.

use nexus_shared::params::{ExploreKind, ExploreParams, Format, Verbosity};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::json;

use super::budget::Budget;
use super::neighbours::{SeenRefs, calls, edge_line, hint_once, list_ref, place, seen_in, tally};
use super::session::by_default;
use super::{ToolContext, target};
use nexus_engine::{Edge, NodeKind, NodeRef, summary_tail};

/// The advice under a list cut by `limit`.
const RAISE_LIMIT: &str = "raise limit";

/// Callers and callees listed in summary verbosity unless `limit` says otherwise.
const SUMMARY_LISTED: u32 = 5;
/// Listed in standard verbosity, without and within a session, unless `limit` says otherwise.
const STANDARD_LISTED: u32 = 30;
const SESSION_LISTED: u32 = 8;

pub fn run(ctx: &ToolContext, p: &ExploreParams) -> Result<String, ToolError> {
    let g = ctx.graph;
    let wanted = p.id.as_deref().or(p.name.as_deref()).ok_or_else(|| {
        ToolError::new(ErrorCode::InvalidParams, "pass `name` or `id`")
            .with_hint("e.g. {\"name\": \"checkout\", \"type\": \"symbol\"}")
    })?;
    let verbosity = p.verbosity.unwrap_or_default();
    let limit = match verbosity {
        Verbosity::Summary => p.limit.unwrap_or(SUMMARY_LISTED).clamp(1, 200),
        Verbosity::Standard => p
            .limit
            .unwrap_or(by_default(ctx.session, STANDARD_LISTED, SESSION_LISTED))
            .clamp(1, 200),
        Verbosity::Full => p.limit.unwrap_or(200).clamp(1, 200),
    } as usize;
    let mut out = Budget::new(p.max_tokens);
    match p.kind {
        ExploreKind::Symbol => {
            let node = target::resolve(ctx, wanted)?;
            let id = node.id;
            let callers = calls(g, id, true);
            let callees = calls(g, id, false);
            if p.format == Some(Format::Json) {
                let ids = |v: &[(nexus_engine::NodeRef, nexus_engine::Edge)]| {
                    v.iter()
                        .take(limit)
                        .map(|(n, _)| n.stable_id())
                        .collect::<Vec<_>>()
                };
                let mut answer = json!({"id": node.stable_id(), "location": node.location(), "callers": ids(&callers), "callees": ids(&callees)});
                if let Some(summary) = summary_of(&node) {
                    answer["summary"] = json!(summary);
                }
                return Ok(answer.to_string());
            }
            out.header(&format!(
                "# {} `{}` — {}",
                node.kind(),
                list_ref(ctx, &node),
                place(ctx, &node)
            ));
            if let Some(summary) = summary_of(&node) {
                out.header(&format!("> {summary}"));
            }
            if verbosity == Verbosity::Full {
                if !node.signature().is_empty() {
                    out.header(&format!("`{}`", node.signature()));
                }
                if !node.doc().is_empty() && summary_of(&node).is_none() {
                    out.header(&format!("> {}", node.doc()));
                }
            }
            let listed = |items: &[(NodeRef, Edge)]| -> Vec<u32> {
                items.iter().take(limit).map(|(n, _)| n.id).collect()
            };
            let seen = seen_in(ctx, listed(&callers).into_iter().chain(listed(&callees)));
            let connections: Vec<(NodeRef, String)> = g
                .outgoing(id)
                .chain(g.incoming(id))
                .filter(|e| !matches!(e.kind, nexus_engine::EdgeKind::Calls))
                .filter_map(|e| {
                    let other = if e.from == id { e.to } else { e.from };
                    let dir = if e.from == id { "→" } else { "←" };
                    g.node(other).map(|n| (n, format!("{dir} {}", e.kind)))
                })
                .take(limit)
                .collect();
            let connections_seen = seen_in(ctx, connections.iter().map(|(n, _)| n.id));
            let mut seen_refs = SeenRefs::default();
            for (title, items) in [("Callers", &callers), ("Callees", &callees)] {
                out.header(&format!("## {title} ({})", items.len()));
                for (n, e) in items.iter().take(limit) {
                    if seen.contains(&n.id) {
                        seen_refs.push(ctx, n);
                    } else if verbosity == Verbosity::Summary {
                        out.item(&format!("- `{}`", list_ref(ctx, n)));
                    } else {
                        out.item(&edge_line(ctx, n, e));
                    }
                }
                seen_refs.flush(&mut out);
                if items.len() > limit {
                    let more = items.len() - limit;
                    out.header(&if hint_once(ctx, RAISE_LIMIT) {
                        format!("… {more} more ({RAISE_LIMIT})")
                    } else {
                        format!("… {more} more")
                    });
                }
            }
            let shown_connections = verbosity != Verbosity::Summary;
            ctx.memory.sessions.borrow_mut().record(
                ctx.session,
                std::iter::once(id)
                    .chain(listed(&callers))
                    .chain(listed(&callees))
                    .chain(
                        connections
                            .iter()
                            .filter(|_| shown_connections)
                            .map(|(n, _)| n.id),
                    ),
                Some(id),
            );
            if shown_connections {
                out.header("## Other connections");
                let mut known: Vec<&str> = Vec::new();
                for (n, relation) in &connections {
                    if connections_seen.contains(&n.id) {
                        known.push(relation);
                    } else {
                        out.item(&format!("- {relation} `{}`", list_ref(ctx, n)));
                    }
                }
                if !known.is_empty() {
                    out.item(&format!("- seen before: {}", tally(&known)));
                }
            }
        }
        ExploreKind::Cluster => {
            let c = find(ctx, wanted, NodeKind::Community)?;
            let info = g.communities.iter().find(|x| x.node == c).ok_or_else(|| {
                ToolError::new(
                    ErrorCode::NotFound,
                    format!("`{wanted}` is not a community"),
                )
            })?;
            let name = g.node(c).map(|n| n.name().to_owned()).unwrap_or_default();
            if p.format == Some(Format::Json) {
                return Ok(json!({
                    "id": g.node(c).map(|n| n.stable_id()),
                    "name": name,
                    "cohesion": info.cohesion,
                    "summary": g.node(c).map(|n| n.doc().to_owned()),
                    "size": info.members.len(),
                    "members": listed(g, &info.members, limit),
                })
                .to_string());
            }
            out.header(&format!(
                "# community {name} — {} members · cohesion {:.2}",
                info.members.len(),
                info.cohesion
            ));
            if let Some(tail) = g
                .node(c)
                .map(|n| summary_tail(n.doc()))
                .filter(|t| !t.is_empty())
            {
                out.header(&format!("> {tail}"));
            }
            for n in info.members.iter().take(limit).filter_map(|&m| g.node(m)) {
                out.item(&format!(
                    "- {} `{}` — {}",
                    n.kind(),
                    n.stable_id(),
                    n.location()
                ));
            }
            if info.members.len() > limit {
                out.header(&format!(
                    "… {} more (raise limit)",
                    info.members.len() - limit
                ));
            }
        }
        ExploreKind::Process => {
            let x = find(ctx, wanted, NodeKind::Process)?;
            let info = g.processes.iter().find(|p| p.node == x).ok_or_else(|| {
                ToolError::new(ErrorCode::NotFound, format!("`{wanted}` is not a process"))
            })?;
            let name = g.node(x).map(|n| n.name().to_owned()).unwrap_or_default();
            if p.format == Some(Format::Json) {
                return Ok(json!({
                    "id": g.node(x).map(|n| n.stable_id()),
                    "name": name,
                    "depth": info.depth,
                    "size": info.steps.len(),
                    "steps": listed(g, &info.steps, limit),
                })
                .to_string());
            }
            out.header(&format!(
                "# process {name} — {} steps, depth {}",
                info.steps.len(),
                info.depth
            ));
            for (i, n) in info
                .steps
                .iter()
                .take(limit)
                .filter_map(|&s| g.node(s))
                .enumerate()
            {
                out.item(&format!(
                    "{}. {} `{}` — {}",
                    i + 1,
                    n.kind(),
                    n.stable_id(),
                    n.location()
                ));
            }
        }
    }
    Ok(out.finish())
}

/// The structural summary of a folder or file (symbols' docs are their own comments).
fn summary_of<'g>(node: &nexus_engine::NodeRef<'g>) -> Option<&'g str> {
    matches!(node.kind(), NodeKind::Folder | NodeKind::File)
        .then(|| node.doc())
        .filter(|d| !d.is_empty())
}

/// Members or steps for a JSON answer: id, kind and location of the first `limit`.
fn listed(g: &nexus_engine::Graph, nodes: &[u32], limit: usize) -> Vec<serde_json::Value> {
    nodes
        .iter()
        .take(limit)
        .filter_map(|&m| g.node(m))
        .map(|n| json!({"id": n.stable_id(), "kind": n.kind().as_str(), "location": n.location()}))
        .collect()
}

/// A community or process by id or (case-insensitive) name.
fn find(ctx: &ToolContext, wanted: &str, kind: NodeKind) -> Result<u32, ToolError> {
    if let Some(id) = ctx
        .graph
        .find_id(wanted)
        .filter(|&id| ctx.graph.node(id).is_some_and(|n| n.kind() == kind))
    {
        return Ok(id);
    }
    let lower = wanted.to_lowercase();
    let matches: Vec<u32> = ctx
        .graph
        .nodes()
        .filter(|n| n.kind() == kind && n.name().to_lowercase().contains(&lower))
        .map(|n| n.id)
        .collect();
    match matches.as_slice() {
        [one] => Ok(*one),
        [] => Err(ToolError::new(
            ErrorCode::NotFound,
            format!("no {} matches `{wanted}`", kind.as_str().to_lowercase()),
        )
        .with_hint("`overview` lists them")),
        many => Err(ToolError::new(
            ErrorCode::Ambiguous,
            format!(
                "`{wanted}` matches {} {}s",
                many.len(),
                kind.as_str().to_lowercase()
            ),
        )
        .with_hint(format!(
            "pass one of: {}",
            many.iter()
                .take(8)
                .filter_map(|&m| ctx.graph.node(m).map(|n| format!("`{}`", n.stable_id())))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}
