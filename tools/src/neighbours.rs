//! Shared views of one node's surroundings: its callers and callees (with confidence and
//! reason), its community and processes, each one line — or its id alone once the session saw it.

use std::collections::HashSet;

use nexus_engine::{Edge, EdgeKind, Graph, NodeKind, NodeRef};

use super::ToolContext;

/// A symbol the session returned before, as a one-line reference in its place in a list.
pub fn seen_line(node: &NodeRef) -> String {
    format!("- `{}` (seen)", node.stable_id())
}

/// The nodes of `nodes` that `ctx`'s session returned before.
pub fn seen_in(ctx: &ToolContext, nodes: impl IntoIterator<Item = u32>) -> HashSet<u32> {
    let sessions = ctx.memory.sessions.borrow();
    nodes
        .into_iter()
        .filter(|&n| sessions.seen(ctx.session, n))
        .collect()
}

/// `- Kind `id` — file:line · 0.90 reason`.
pub fn edge_line(node: &NodeRef, edge: &Edge) -> String {
    format!(
        "- {} `{}` — {} · {:.2} {}",
        node.kind(),
        node.stable_id(),
        node.location(),
        edge.confidence,
        edge.reason.as_str()
    )
}

/// Callers (incoming CALLS) or callees (outgoing CALLS), most certain first.
pub fn calls<'g>(graph: &'g Graph, node: u32, incoming: bool) -> Vec<(NodeRef<'g>, Edge)> {
    let edges: Vec<Edge> = if incoming {
        graph
            .incoming(node)
            .filter(|e| e.kind == EdgeKind::Calls)
            .copied()
            .collect()
    } else {
        graph
            .outgoing(node)
            .filter(|e| e.kind == EdgeKind::Calls)
            .copied()
            .collect()
    };
    let mut out: Vec<(NodeRef, Edge)> = edges
        .into_iter()
        .filter_map(|e| {
            graph
                .node(if incoming { e.from } else { e.to })
                .map(|n| (n, e))
        })
        .collect();
    out.sort_by(|a, b| {
        b.1.confidence
            .total_cmp(&a.1.confidence)
            .then(a.0.id.cmp(&b.0.id))
    });
    out
}

/// The community a symbol belongs to.
pub fn community<'g>(graph: &'g Graph, node: u32) -> Option<NodeRef<'g>> {
    graph
        .outgoing(node)
        .filter(|e| e.kind == EdgeKind::MemberOf)
        .filter_map(|e| graph.node(e.to))
        .find(|n| n.kind() == NodeKind::Community)
}

/// The processes a node is a step of.
pub fn processes<'g>(graph: &'g Graph, node: u32) -> Vec<NodeRef<'g>> {
    graph
        .outgoing(node)
        .filter(|e| e.kind == EdgeKind::StepInProcess)
        .filter_map(|e| graph.node(e.to))
        .collect()
}

/// The type a method belongs to.
pub fn owner<'g>(graph: &'g Graph, node: u32) -> Option<NodeRef<'g>> {
    graph
        .outgoing(node)
        .filter(|e| e.kind == EdgeKind::MemberOf)
        .filter_map(|e| graph.node(e.to))
        .find(|n| n.kind().is_type())
}
