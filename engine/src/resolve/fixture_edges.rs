//! What the C and C++ resolution fixtures compare: a graph's edges of one kind as
//! (from id, to id, confidence to two places, reason), and an expected list in that shape.

use std::collections::BTreeSet;

use crate::graph::{EdgeKind, Graph};

/// Every edge of one kind as (from id, to id, confidence, reason).
pub fn edges(g: &Graph, kind: EdgeKind) -> BTreeSet<(String, String, String, &'static str)> {
    g.edges()
        .iter()
        .filter(|e| e.kind == kind)
        .filter_map(|e| {
            Some((
                g.node(e.from)?.stable_id(),
                g.node(e.to)?.stable_id(),
                format!("{:.2}", e.confidence),
                e.reason.as_str(),
            ))
        })
        .collect()
}

/// The expected edges, written as string slices, in the shape `edges` returns.
pub fn owned(
    expected: &[(&str, &str, &str, &'static str)],
) -> BTreeSet<(String, String, String, &'static str)> {
    expected
        .iter()
        .map(|(a, b, c, r)| (a.to_string(), b.to_string(), c.to_string(), *r))
        .collect()
}
