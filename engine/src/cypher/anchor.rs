//! Where a pattern starts: candidate sources for one node (all, labels, names, files, stable
//! ids) taken from its pattern and WHERE conditions, sized and listed through the graph lookups.

use super::ast::BinaryOp;
use super::ir::{CExpr, Candidates};
use super::schema::{KindSet, NodeProp};
use super::value::Value;
use crate::graph::{Graph, NodeKind};

/// Where a scan takes its candidates from.
pub(super) enum Source {
    All,
    Kinds(KindSet),
    Names(Vec<String>),
    Files(Vec<String>),
    Ids(Vec<String>),
}

impl Source {
    /// How many candidates the source yields (ids: one each, as expected).
    pub fn size(&self, graph: &Graph) -> usize {
        match self {
            Source::All => graph.node_count(),
            Source::Kinds(kinds) => kinds.kinds().map(|k| graph.nodes_of_kind(k).len()).sum(),
            Source::Names(names) => names.iter().map(|n| graph.nodes_named(n).len()).sum(),
            Source::Files(files) => files.iter().map(|f| graph.nodes_in_file(f).len()).sum(),
            Source::Ids(ids) => ids.len(),
        }
    }

    pub fn candidates(self, graph: &Graph) -> Candidates<'_> {
        match self {
            Source::All => Candidates::All,
            Source::Kinds(kinds) => merge(kinds.kinds().map(|k| graph.nodes_of_kind(k)).collect()),
            Source::Names(names) => merge(names.iter().map(|n| graph.nodes_named(n)).collect()),
            Source::Files(files) => merge(files.iter().map(|f| graph.nodes_in_file(f)).collect()),
            Source::Ids(ids) => {
                let mut nodes: Vec<u32> =
                    ids.iter().flat_map(|id| nodes_with_id(graph, id)).collect();
                nodes.sort_unstable();
                nodes.dedup();
                Candidates::Owned(nodes)
            }
        }
    }
}

/// The union of sorted id lists, borrowed when there is just one.
fn merge(lists: Vec<&[u32]>) -> Candidates<'_> {
    match lists.as_slice() {
        [one] => Candidates::Ids(one),
        _ => {
            let mut nodes = lists.concat();
            nodes.sort_unstable();
            nodes.dedup();
            Candidates::Owned(nodes)
        }
    }
}

/// Nodes whose stable id is `id`, looked up through the file part of the id.
fn nodes_with_id(graph: &Graph, id: &str) -> Vec<u32> {
    let Some((kind, rest)) = id.split_once(':') else {
        return Vec::new();
    };
    let file = match NodeKind::parse(kind) {
        Some(NodeKind::Folder | NodeKind::File) => rest,
        _ => rest.rsplit_once(':').map_or(rest, |(file, _)| file),
    };
    graph
        .nodes_in_file(file)
        .iter()
        .copied()
        .filter(|&n| graph.node(n).is_some_and(|node| node.stable_id() == id))
        .collect()
}

/// A candidate source for `slot` implied by a condition such as `a.name = 'x'` or
/// `a.id IN $ids`.
pub(super) fn hint(conjunct: &CExpr, slot: usize) -> Option<Source> {
    let (prop, values): (NodeProp, Vec<&Value>) = match conjunct {
        CExpr::Binary(BinaryOp::Eq, a, b) => match (a.as_ref(), b.as_ref()) {
            (CExpr::NodeProp(s, p), CExpr::Const(v)) | (CExpr::Const(v), CExpr::NodeProp(s, p))
                if *s == slot =>
            {
                (*p, vec![v])
            }
            _ => return None,
        },
        CExpr::Binary(BinaryOp::In, a, b) => match (a.as_ref(), b.as_ref()) {
            (CExpr::NodeProp(s, p), CExpr::Const(Value::List(vs))) if *s == slot => {
                (*p, vs.iter().collect())
            }
            _ => return None,
        },
        _ => return None,
    };
    let strings: Vec<String> = values
        .into_iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    match prop {
        NodeProp::Name => Some(Source::Names(strings)),
        NodeProp::File => Some(Source::Files(strings)),
        NodeProp::Id => Some(Source::Ids(strings)),
        NodeProp::Kind => {
            let kinds: Vec<NodeKind> = strings.iter().filter_map(|s| NodeKind::parse(s)).collect();
            Some(Source::Kinds(KindSet::of(&kinds)))
        }
        _ => None,
    }
}
