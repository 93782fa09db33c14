//! Shared views of one node's surroundings: its callers and callees (with confidence and
//! reason), its community and processes, each one line — or its id alone once the session saw it.

use std::collections::HashSet;

use nexus_engine::{Edge, EdgeKind, Graph, NodeKind, NodeRef};

use super::ToolContext;
use super::budget::Budget;
use super::target::short_ref;

/// A symbol the session returned before, as a one-line reference in its place in a list.
pub fn seen_line(ctx: &ToolContext, node: &NodeRef) -> String {
    format!("- `{}` (seen)", short_ref(ctx, node))
}

/// The nodes of `nodes` that `ctx`'s session returned before.
pub fn seen_in(ctx: &ToolContext, nodes: impl IntoIterator<Item = u32>) -> HashSet<u32> {
    let sessions = ctx.memory.sessions.borrow();
    nodes
        .into_iter()
        .filter(|&n| sessions.seen(ctx.session, n))
        .collect()
}

/// The symbols of one list that the session returned before, gathered into a single line at
/// the list's end so that a list the agent mostly knows costs one line, not one per symbol.
#[derive(Default)]
pub struct SeenRefs(Vec<String>);

impl SeenRefs {
    /// Notes `node` as seen in the list being written.
    pub fn push(&mut self, ctx: &ToolContext, node: &NodeRef) {
        self.0.push(format!("`{}`", short_ref(ctx, node)));
    }

    /// Ends the list: `- seen before: `a`, `b`` when it held seen symbols.
    pub fn flush(&mut self, out: &mut Budget) {
        if !self.0.is_empty() {
            out.item(&format!("- seen before: {}", self.0.join(", ")));
            self.0.clear();
        }
    }
}

/// Whether to give the advice `hint` in this answer (see `Sessions::hint_once`).
pub fn hint_once(ctx: &ToolContext, hint: &'static str) -> bool {
    ctx.memory
        .sessions
        .borrow_mut()
        .hint_once(ctx.session, hint)
}

/// `→ MEMBER_OF ×1, → STEP_IN_PROCESS ×6`: how many of each relation, in first-seen order.
pub fn tally(relations: &[&str]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for r in relations {
        match counts.iter_mut().find(|(x, _)| x == r) {
            Some((_, n)) => *n += 1,
            None => counts.push((r, 1)),
        }
    }
    counts
        .iter()
        .map(|(r, n)| format!("{r} ×{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `- Kind `id` — file:line · 0.90 reason` (in a session `- Kind `Name` — f2:line · …`, see
/// [`list_ref`] and [`place`]).
pub fn edge_line(ctx: &ToolContext, node: &NodeRef, edge: &Edge) -> String {
    format!(
        "- {} `{}` — {} · {:.2} {}",
        node.kind(),
        list_ref(ctx, node),
        place(ctx, node),
        edge.confidence,
        edge.reason.as_str()
    )
}

/// How a list names a symbol it shows in full: its stable id without a session; in a session
/// its short reference (the qualified name when that finds it alone), since the kind and the
/// location beside it already say what the id would repeat.
pub fn list_ref(ctx: &ToolContext, node: &NodeRef) -> String {
    if ctx.session.is_some() {
        short_ref(ctx, node)
    } else {
        node.stable_id()
    }
}

/// A node's `file:line`, its file named by [`path_ref`].
pub fn place(ctx: &ToolContext, node: &NodeRef) -> String {
    format!("{}:{}", path_ref(ctx, node.file()), node.start_line())
}

/// A file path as this answer names it (see `Sessions::path_ref`): in a session, an alias
/// defined at its first mention.
pub fn path_ref(ctx: &ToolContext, path: &str) -> String {
    ctx.memory.sessions.borrow_mut().path_ref(ctx.session, path)
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
