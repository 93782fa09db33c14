//! The one graph walk the tools share: breadth-first from a start set along chosen edge kinds,
//! in one direction, to a depth, skipping edges below a confidence floor and counting them.

use std::collections::{HashSet, VecDeque};

use crate::graph::{Edge, EdgeKind, Graph, NodeRef};

/// Which way edges are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toward {
    /// From an edge's target to its source: what depends on the start (callers, importers).
    Upstream,
    /// From an edge's source to its target: what the start depends on (callees, imports).
    Downstream,
}

/// What to follow and where to stop.
pub struct Walk<'w> {
    /// The direction edges are followed in.
    pub toward: Toward,
    /// The edge kinds followed.
    pub edges: &'w [EdgeKind],
    /// Edges below this confidence are not followed; `Walked::cut` counts them.
    pub min_confidence: f32,
    /// Nodes at this depth are reached but not expanded.
    pub max_depth: u32,
    /// Nodes reached but not expanded further (the start set is always expanded).
    pub stop: &'w dyn Fn(&NodeRef) -> bool,
    /// Nodes never reached (not recorded, not expanded).
    pub skip: &'w dyn Fn(&NodeRef) -> bool,
    /// The walk ends as soon as this node is reached.
    pub until: Option<u32>,
}

/// A node the walk reached: how deep and through which edge (the first found, breadth-first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reached {
    /// The node.
    pub node: u32,
    /// Its distance from the start set, 1 for a start's direct neighbour.
    pub depth: u32,
    /// The edge it was reached through.
    pub via: Edge,
}

/// What a walk found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Walked {
    /// The nodes reached, in breadth-first order.
    pub reached: Vec<Reached>,
    /// Edges to nodes not yet reached that were left out for being below the confidence floor.
    pub cut: usize,
}

impl Graph {
    /// Walks from `start` (each entry expanded once per occurrence) as `walk` says.
    pub fn walk(&self, start: &[u32], walk: &Walk) -> Walked {
        let mut out = Walked::default();
        let mut seen: HashSet<u32> = start.iter().copied().collect();
        let mut queue: VecDeque<(u32, u32)> = start.iter().map(|&n| (n, 0)).collect();
        while let Some((node, depth)) = queue.pop_front() {
            if depth >= walk.max_depth
                || (depth > 0 && self.node(node).is_some_and(|n| (walk.stop)(&n)))
            {
                continue;
            }
            let edges: Vec<&Edge> = match walk.toward {
                Toward::Upstream => self.incoming(node).collect(),
                Toward::Downstream => self.outgoing(node).collect(),
            };
            for edge in edges.into_iter().filter(|e| walk.edges.contains(&e.kind)) {
                let next = match walk.toward {
                    Toward::Upstream => edge.from,
                    Toward::Downstream => edge.to,
                };
                if seen.contains(&next) {
                    continue;
                }
                if edge.confidence < walk.min_confidence {
                    out.cut += 1;
                    continue;
                }
                let Some(n) = self.node(next) else { continue };
                if (walk.skip)(&n) {
                    continue;
                }
                seen.insert(next);
                out.reached.push(Reached {
                    node: next,
                    depth: depth + 1,
                    via: *edge,
                });
                if walk.until == Some(next) {
                    return out;
                }
                queue.push_back((next, depth + 1));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{GraphBuilder, NewNode, NodeKind, Reason};

    fn chain() -> Graph {
        let mut b = GraphBuilder::new("p");
        let ids: Vec<u32> = ["a", "b", "c", "d"]
            .iter()
            .map(|name| {
                b.add_node(NewNode {
                    kind: NodeKind::Function,
                    name,
                    qualified: name,
                    file: "m.py",
                    start_line: 1,
                    end_line: 1,
                    signature: "",
                    doc: "",
                    exported: true,
                })
            })
            .collect();
        b.add_edge(ids[0], ids[1], EdgeKind::Calls, 0.9, Reason::ImportResolved);
        b.add_edge(ids[1], ids[2], EdgeKind::Calls, 0.9, Reason::ImportResolved);
        b.add_edge(ids[0], ids[3], EdgeKind::Calls, 0.3, Reason::Ambiguous);
        b.build()
    }

    fn walk(toward: Toward, max_depth: u32, until: Option<u32>) -> Walk<'static> {
        Walk {
            toward,
            edges: &[EdgeKind::Calls],
            min_confidence: 0.5,
            max_depth,
            stop: &|_| false,
            skip: &|_| false,
            until,
        }
    }

    #[test]
    fn walks_by_depth_and_counts_edges_below_the_floor() {
        let g = chain();
        let down = g.walk(&[0], &walk(Toward::Downstream, 5, None));
        let got: Vec<(u32, u32)> = down.reached.iter().map(|r| (r.node, r.depth)).collect();
        assert_eq!(got, [(1, 1), (2, 2)]);
        assert_eq!(down.cut, 1);
        let shallow = g.walk(&[0], &walk(Toward::Downstream, 1, None));
        assert_eq!(shallow.reached.len(), 1);
        let up = g.walk(&[2], &walk(Toward::Upstream, 5, None));
        let got: Vec<u32> = up.reached.iter().map(|r| r.node).collect();
        assert_eq!(got, [1, 0]);
        assert_eq!(up.reached[1].via.to, 1);
    }

    #[test]
    fn stops_skips_and_ends_at_the_target() {
        let g = chain();
        let stop_b = |n: &NodeRef| n.name() == "b";
        let stopped = g.walk(
            &[0],
            &Walk {
                stop: &stop_b,
                ..walk(Toward::Downstream, 5, None)
            },
        );
        assert_eq!(stopped.reached.len(), 1);
        let skipped = g.walk(
            &[0],
            &Walk {
                skip: &stop_b,
                ..walk(Toward::Downstream, 5, None)
            },
        );
        assert!(skipped.reached.is_empty());
        let until = g.walk(&[0], &walk(Toward::Downstream, 5, Some(1)));
        assert_eq!(until.reached.len(), 1);
    }
}
