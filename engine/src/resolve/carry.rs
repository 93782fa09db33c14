//! What a resolution hands the next one of the same project: the graph builder's strings and
//! each file's nodes (an unchanged file's nodes are copied, not interned again), and the module
//! index with the test-file set (used again while the files they are made from are alike).

use rustc_hash::FxHashSet as HashSet;

use super::super::facts::FileFacts;
use super::super::graph::{GraphBuilder, NodeData, STRINGS_ROOM_BYTES, Strings};
use super::modules::ModuleIndex;

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

/// A resolution's module index and its files compiled for tests only (`super::test_files`),
/// with the fingerprint of what both are made from (`ModuleIndex::inputs_fingerprint`): an edit
/// inside a file changes neither, and the next resolution takes them as they are.
#[derive(Debug, Clone)]
pub struct KeptModules {
    pub(super) inputs: u64,
    pub(super) index: ModuleIndex,
    pub(super) test_files: HashSet<usize>,
}

impl KeptModules {
    /// The module index and test-file set of `files`: those `kept` when they were made from
    /// files alike in all the index reads, else made afresh. Debug builds make them afresh as
    /// well and check both are equal.
    pub(super) fn of(files: &[FileFacts], kept: Option<KeptModules>) -> KeptModules {
        let inputs = ModuleIndex::inputs_fingerprint(files);
        let fresh = || {
            let index = ModuleIndex::build(files);
            let test_files = super::test_files(files, &index);
            KeptModules::new(inputs, index, test_files)
        };
        match kept.filter(|k| k.inputs == inputs) {
            Some(kept) => {
                if cfg!(debug_assertions) {
                    let made = fresh();
                    assert_eq!(kept.index, made.index, "the kept module index differs");
                    assert_eq!(
                        kept.test_files, made.test_files,
                        "the kept test files differ"
                    );
                }
                kept
            }
            None => fresh(),
        }
    }

    /// What a resolution keeps: its module index and test-file set, made from files whose
    /// fingerprint is `inputs`.
    pub(super) fn new(inputs: u64, index: ModuleIndex, test_files: HashSet<usize>) -> Self {
        KeptModules {
            inputs,
            index,
            test_files,
        }
    }

    /// About the bytes keeping these would hold (counted against the memo's budget).
    pub(super) fn bytes_of(index: &ModuleIndex, test_files: &HashSet<usize>) -> usize {
        index.heap_bytes() + test_files.capacity() * (size_of::<usize>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{NewNode, NodeKind};
    use crate::ingest::parsed_facts;

    /// A project, an edit (file, new text) that leaves its module index and test files alike,
    /// and one that does not (none for Python, whose modules are found by their paths alone).
    type Project = (
        Vec<(&'static str, &'static str)>,
        (usize, &'static str),
        Option<(usize, &'static str)>,
    );

    fn projects() -> Vec<Project> {
        vec![
            (
                vec![
                    ("pkg/__init__.py", ""),
                    ("pkg/a.py", "def f():\n    pass\n"),
                    ("pkg/sub/b.py", "from pkg.a import f\n"),
                ],
                (1, "def f():\n    pass\n\ndef g():\n    pass\n"),
                None,
            ),
            (
                vec![
                    ("src/lib.rs", "mod a;\n#[cfg(test)]\nmod tests;\n"),
                    ("src/a.rs", "pub fn f() {}\n"),
                    ("src/tests.rs", "fn t() {}\n"),
                    ("src/unix/imp.rs", "pub fn g() {}\n"),
                ],
                (1, "pub fn f() {}\npub fn g() {}\n"),
                Some((
                    0,
                    "mod a;\nmod tests;\n#[path = \"unix/imp.rs\"]\nmod imp;\n",
                )),
            ),
            (
                vec![
                    ("app/A.java", "package app;\nclass A { void f() {} }\n"),
                    ("app/B.java", "package app;\nclass B {}\n"),
                ],
                (0, "package app;\nclass A { void f() {} void g() {} }\n"),
                Some((1, "package other;\nclass B {}\n")),
            ),
            (
                vec![
                    (
                        "lib/shop/cart.ex",
                        "defmodule Shop.Cart do\n  def f, do: 1\nend\n",
                    ),
                    ("lib/shop.ex", "defmodule Shop do\nend\n"),
                ],
                (
                    0,
                    "defmodule Shop.Cart do\n  def f, do: 1\n  def g, do: 2\nend\n",
                ),
                Some((1, "defmodule Shop.Store do\nend\n")),
            ),
        ]
    }

    #[test]
    fn a_kept_module_index_is_taken_only_while_it_equals_one_made_afresh() {
        for (files, (same_at, same), other) in projects() {
            let before = parsed_facts(&files);
            let kept = KeptModules::of(&before, None);
            let edited = |at: usize, text: &'static str| {
                let mut files = files.clone();
                files[at].1 = text;
                parsed_facts(&files)
            };
            // An edit inside a file: the kept index and test files are taken, equal to fresh ones.
            let after = edited(same_at, same);
            let taken = KeptModules::of(&after, Some(kept.clone()));
            let fresh = KeptModules::of(&after, None);
            assert_eq!(taken.inputs, kept.inputs, "{files:?}");
            assert_eq!(taken.index, fresh.index);
            assert_eq!(taken.test_files, fresh.test_files);
            // An edit the index reads (a package, a module path, a module's name): made afresh.
            if let Some((at, text)) = other {
                let after = edited(at, text);
                let made = KeptModules::of(&after, Some(kept.clone()));
                assert_ne!(made.inputs, kept.inputs, "{files:?}");
                assert_eq!(made.index, ModuleIndex::build(&after));
            }
            // A file added or removed changes what the index is made from.
            let fewer = parsed_facts(&files[1..]);
            assert_ne!(
                KeptModules::of(&fewer, Some(kept.clone())).inputs,
                kept.inputs
            );
        }
        // The Rust project's test module is a test file, kept as such.
        let rust = &projects()[1].0;
        let kept = KeptModules::of(&parsed_facts(rust), None);
        assert_eq!(kept.test_files.into_iter().collect::<Vec<_>>(), [2]);
    }

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
