//! What a resolution hands the next one of the same project for its nodes: the graph builder's
//! strings and each file's nodes, so an unchanged file's nodes are copied, not interned again.

use rustc_hash::FxHashSet as HashSet;

use super::super::graph::{GraphBuilder, NodeData, STRINGS_ROOM_BYTES, Strings};

/// Room for strings a next build adds (its changed files' new strings) without copying the
/// carried text again.
const ROOM_STRINGS: usize = 4096;
const ROOM_BYTES: usize = STRINGS_ROOM_BYTES;

/// A build's strings and, per file in path order, its nodes (the file's own, then its
/// definitions'), all of them over those strings. Strings of nodes gone since are kept: the
/// carried strings grow, and past an eighth more than when they were last made afresh the next
/// build starts afresh (`Carried::usable`).
#[derive(Debug, Clone)]
pub struct Carried {
    strings: Strings,
    /// The number of strings and their bytes when they were last made afresh.
    fresh: (usize, usize),
    /// Per file in path order: where its nodes are in `nodes` (the first is the file's own,
    /// whose qualified name is its path).
    files: Vec<(u32, u32)>,
    nodes: Vec<NodeData>,
}

impl Carried {
    /// What a build leaves for the next one: its strings so far (a copy: the graph keeps its
    /// own), and the nodes of each file (`file_node` and `def_node` by file index, files in
    /// path order). `earlier` is the size of the strings it started from when they were carried
    /// (`None`: they were made afresh).
    pub(super) fn keep(
        b: &GraphBuilder,
        file_node: &[u32],
        def_node: &[Vec<u32>],
        earlier: Option<(usize, usize)>,
    ) -> Carried {
        let strings = b.strings().copy_with_room(ROOM_STRINGS, ROOM_BYTES);
        let fresh = earlier.unwrap_or_else(|| strings.size());
        let mut files = Vec::with_capacity(file_node.len());
        let mut nodes =
            Vec::with_capacity(file_node.len() + def_node.iter().map(Vec::len).sum::<usize>());
        for (&file, defs) in file_node.iter().zip(def_node) {
            let start = nodes.len() as u32;
            nodes.extend(
                std::iter::once(file)
                    .chain(defs.iter().copied())
                    .filter_map(|id| b.node(id).copied()),
            );
            files.push((start, nodes.len() as u32));
        }
        Carried {
            strings,
            fresh,
            files,
            nodes,
        }
    }

    /// About the bytes [`Carried::keep`] of these would hold: the strings, their ends and
    /// index, and the nodes.
    pub(super) fn bytes(b: &GraphBuilder, file_node: &[u32], def_node: &[Vec<u32>]) -> usize {
        let (count, bytes) = b.strings().size();
        let nodes = file_node.len() + def_node.iter().map(Vec::len).sum::<usize>();
        bytes
            + count * (std::mem::size_of::<usize>() + 5)
            + nodes * std::mem::size_of::<NodeData>()
            + file_node.len() * 8
    }

    /// Whether the next build should start from these strings: they have not grown past an
    /// eighth more (strings or bytes) than when made afresh.
    fn usable(&self) -> bool {
        let (count, bytes) = self.strings.size();
        let (fresh_count, fresh_bytes) = self.fresh;
        count <= fresh_count + fresh_count / 8 && bytes <= fresh_bytes + fresh_bytes / 8
    }

    /// The builder of the next build starting from these strings, with what it reads the
    /// unchanged files' nodes from; `None` when they grew too much (the build starts afresh).
    pub(super) fn start(
        self,
        project: &str,
        nodes: usize,
        edges: usize,
    ) -> Option<(GraphBuilder, CarriedNodes)> {
        if !self.usable() {
            return None;
        }
        let fresh = self.fresh;
        let b = GraphBuilder::with_strings(project, self.strings, nodes, edges);
        Some((
            b,
            CarriedNodes {
                fresh,
                files: self.files,
                nodes: self.nodes,
                at: 0,
            },
        ))
    }
}

/// The nodes of an earlier build's files, over the strings the builder started from; files are
/// asked for in path order.
pub(super) struct CarriedNodes {
    /// The size of the strings when they were last made afresh.
    pub(super) fresh: (usize, usize),
    files: Vec<(u32, u32)>,
    nodes: Vec<NodeData>,
    /// The first file not passed yet.
    at: usize,
}

impl CarriedNodes {
    /// The nodes file `path` had (its own, then its definitions'), when it is not among the
    /// `changed` paths and had `count` nodes; paths are asked for in increasing order, and
    /// `strings` are the builder's (those the nodes were made over).
    pub(super) fn unchanged(
        &mut self,
        path: &str,
        changed: &HashSet<&str>,
        count: usize,
        strings: &Strings,
    ) -> Option<&[NodeData]> {
        let nodes = &self.nodes;
        let path_of = |&(start, _): &(u32, u32)| {
            nodes
                .get(start as usize)
                .map_or("", |n| strings.get(n.qualified))
        };
        while self.files.get(self.at).is_some_and(|f| path_of(f) < path) {
            self.at += 1;
        }
        let file = self.files.get(self.at)?;
        let &(start, end) = file;
        if path_of(file) != path || changed.contains(path) || (end - start) as usize != count {
            return None;
        }
        nodes.get(start as usize..end as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{NewNode, NodeKind};

    fn node<'a>(kind: NodeKind, file: &'a str, qualified: &'a str) -> NewNode<'a> {
        NewNode {
            kind,
            name: qualified,
            qualified,
            file,
            start_line: 1,
            end_line: 2,
            signature: "",
            doc: "",
            exported: true,
        }
    }

    #[test]
    fn only_an_unchanged_file_with_as_many_nodes_is_carried_and_grown_strings_start_afresh() {
        let mut b = GraphBuilder::new("t");
        let a = b.add_node(node(NodeKind::File, "a.py", "a.py"));
        let f = b.add_node(node(NodeKind::Function, "a.py", "f"));
        let c = b.add_node(node(NodeKind::File, "c.py", "c.py"));
        let carried = Carried::keep(&b, &[a, c], &[vec![f], vec![]], None);
        let Some((mut next, mut nodes)) = carried.start("t", 4, 4) else {
            panic!("fresh strings are usable");
        };
        let changed: HashSet<&str> = ["c.py"].into_iter().collect();
        let strings = next.strings().clone();
        assert_eq!(nodes.unchanged("0.py", &changed, 1, &strings), None);
        assert_eq!(nodes.unchanged("a.py", &changed, 1, &strings), None);
        let kept = nodes
            .unchanged("a.py", &changed, 2, &strings)
            .map(<[_]>::to_vec)
            .unwrap_or_default();
        let made: Vec<NodeData> = [a, f].iter().filter_map(|&n| b.node(n).copied()).collect();
        assert_eq!((kept.len(), &kept), (2, &made));
        assert_eq!(nodes.unchanged("b.py", &changed, 1, &strings), None);
        assert_eq!(nodes.unchanged("c.py", &changed, 1, &strings), None);
        assert_eq!(
            nodes.unchanged("d.py", &HashSet::default(), 1, &strings),
            None
        );
        // The carried nodes keep their strings in the next builder, and strings are found again.
        for data in kept {
            next.add_node_data(data);
        }
        let again = next.add_node(node(NodeKind::Function, "a.py", "f"));
        assert_eq!(next.node(again), b.node(f));
        assert_eq!(next.strings().size(), strings.size());
        // Strings grown by more than an eighth: the next build starts afresh.
        for i in 0..16 {
            next.add_node(node(NodeKind::Function, "a.py", &format!("g{i}")));
        }
        let grown = Carried::keep(&next, &[0], &[vec![1]], Some(nodes.fresh));
        assert!(grown.start("t", 4, 4).is_none());
    }
}
