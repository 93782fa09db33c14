//! The graph model: nodes with dense `u32` ids and interned strings, typed edges with confidence
//! and reason, and CSR adjacency in both directions. Built once by `GraphBuilder`, then read-only.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// What a node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum NodeKind {
    /// A folder of the project.
    Folder,
    /// A source file.
    File,
    /// A module or package declared in code.
    Module,
    /// A class.
    Class,
    /// An interface.
    Interface,
    /// A struct.
    Struct,
    /// An enum.
    Enum,
    /// A trait.
    Trait,
    /// A free function.
    Function,
    /// A function defined in a type.
    Method,
    /// A detected community of symbols.
    Community,
    /// A detected execution flow.
    Process,
}

impl NodeKind {
    /// Every kind, in display order.
    pub const ALL: [NodeKind; 12] = [
        NodeKind::Folder,
        NodeKind::File,
        NodeKind::Module,
        NodeKind::Class,
        NodeKind::Interface,
        NodeKind::Struct,
        NodeKind::Enum,
        NodeKind::Trait,
        NodeKind::Function,
        NodeKind::Method,
        NodeKind::Community,
        NodeKind::Process,
    ];

    /// The kind's name, as agents write it.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Folder => "Folder",
            NodeKind::File => "File",
            NodeKind::Module => "Module",
            NodeKind::Class => "Class",
            NodeKind::Interface => "Interface",
            NodeKind::Struct => "Struct",
            NodeKind::Enum => "Enum",
            NodeKind::Trait => "Trait",
            NodeKind::Function => "Function",
            NodeKind::Method => "Method",
            NodeKind::Community => "Community",
            NodeKind::Process => "Process",
        }
    }

    /// The kind named `name` (case-sensitive), if any.
    pub fn parse(name: &str) -> Option<NodeKind> {
        NodeKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(name))
    }

    /// Kinds that stand for code a caller can depend on.
    pub fn is_symbol(self) -> bool {
        !matches!(
            self,
            NodeKind::Folder | NodeKind::File | NodeKind::Community | NodeKind::Process
        )
    }

    /// Kinds that own methods.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            NodeKind::Class
                | NodeKind::Interface
                | NodeKind::Struct
                | NodeKind::Enum
                | NodeKind::Trait
        )
    }

    /// True for functions and methods.
    pub fn is_callable(self) -> bool {
        matches!(self, NodeKind::Function | NodeKind::Method)
    }
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an edge says about its ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EdgeKind {
    /// A folder or file contains a file or folder.
    Contains,
    /// A file or type defines a symbol.
    Defines,
    /// A file imports another.
    Imports,
    /// A callable calls another.
    Calls,
    /// A type extends another.
    Extends,
    /// A type implements an interface or trait.
    Implements,
    /// A symbol belongs to a community.
    MemberOf,
    /// A symbol is a step of a process.
    StepInProcess,
}

impl EdgeKind {
    /// Every kind, in display order.
    pub const ALL: [EdgeKind; 8] = [
        EdgeKind::Contains,
        EdgeKind::Defines,
        EdgeKind::Imports,
        EdgeKind::Calls,
        EdgeKind::Extends,
        EdgeKind::Implements,
        EdgeKind::MemberOf,
        EdgeKind::StepInProcess,
    ];

    /// The kind's name, as agents write it.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Contains => "CONTAINS",
            EdgeKind::Defines => "DEFINES",
            EdgeKind::Imports => "IMPORTS",
            EdgeKind::Calls => "CALLS",
            EdgeKind::Extends => "EXTENDS",
            EdgeKind::Implements => "IMPLEMENTS",
            EdgeKind::MemberOf => "MEMBER_OF",
            EdgeKind::StepInProcess => "STEP_IN_PROCESS",
        }
    }

    /// The kind named `name` (case-sensitive), if any.
    pub fn parse(name: &str) -> Option<EdgeKind> {
        EdgeKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a reference uses what it names (calls are CALLS edges, not references).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RefKind {
    /// Named by an import.
    Import,
    /// Named as a type: an annotation, a parameter, field or return type, a type argument.
    Type,
    /// Named as a base class, an implemented interface or trait.
    Inherit,
    /// Passed as a value: an argument (`sorted(xs, key=rank)`, `map(f, xs)`).
    Value,
    /// Read (`isinstance(v, Model)`, `x = Cart`, `Cart.objects`, `fn_ptr = f`).
    Read,
    /// Assigned to (`Cart.registry = …`).
    Write,
}

impl RefKind {
    /// Every kind, in display order.
    pub const ALL: [RefKind; 6] = [
        RefKind::Import,
        RefKind::Type,
        RefKind::Inherit,
        RefKind::Value,
        RefKind::Read,
        RefKind::Write,
    ];

    /// The kind's name, as agents write it.
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Import => "import",
            RefKind::Type => "type",
            RefKind::Inherit => "inherit",
            RefKind::Value => "value",
            RefKind::Read => "read",
            RefKind::Write => "write",
        }
    }

    /// The kind named `name` (case-insensitive), if any.
    pub fn parse(name: &str) -> Option<RefKind> {
        RefKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(name))
    }
}

/// One use of a symbol that is not a call, at a line. Kept in one table sorted by target, not
/// as edges: walks, communities and processes never follow them, and a use costs 20 bytes
/// with no adjacency (the graph's edges cost 24 with theirs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// The symbol (or file, at top level) whose code holds the reference.
    pub from: u32,
    /// The symbol referred to.
    pub to: u32,
    /// The line of the reference in `from`'s file.
    pub line: u32,
    /// How the reference uses the symbol.
    pub kind: RefKind,
    /// How sure the resolver is, in 0..=1 (the same bands as calls).
    pub confidence: f32,
    /// Why the resolver took the name for this symbol.
    pub reason: Reason,
}

/// Why an edge exists. Call reasons order from most to least certain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Reason {
    Structure,
    Definition,
    Member,
    ImportResolved,
    SameFile,
    LocalScope,
    SelfMethod,
    SuperMethod,
    ReceiverType,
    AttributeType,
    Constructor,
    ClassMember,
    Heritage,
    ImportedCandidate,
    UniqueGlobal,
    Ambiguous,
    ProcessStep,
    Community,
    ReturnType,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Structure => "structure",
            Reason::Definition => "definition",
            Reason::Member => "member",
            Reason::ImportResolved => "import-resolved",
            Reason::SameFile => "same-file",
            Reason::LocalScope => "local-scope",
            Reason::SelfMethod => "self-method",
            Reason::SuperMethod => "super-method",
            Reason::ReceiverType => "receiver-type",
            Reason::AttributeType => "attribute-type",
            Reason::Constructor => "constructor",
            Reason::ClassMember => "class-member",
            Reason::Heritage => "heritage",
            Reason::ImportedCandidate => "imported-candidate",
            Reason::UniqueGlobal => "unique-global-name",
            Reason::Ambiguous => "ambiguous",
            Reason::ProcessStep => "process-step",
            Reason::Community => "community",
            Reason::ReturnType => "return-type",
        }
    }
}

/// An interned string.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct Sym(u32);

/// String interner: each distinct string stored once, all of them one after another in one
/// buffer (a graph holds ≈ 100 k strings: one allocation each cost an update as much to make and
/// to drop as the rest of the structure); its index holds ids, not copies.
#[derive(Debug, Clone, Default)]
pub struct Strings {
    /// Every string, one after another.
    text: String,
    /// Where each string ends in `text` (it starts where the one before ends).
    ends: Vec<usize>,
    /// Ids into `ends`, found by their string's hash.
    index: hashbrown::HashTable<u32>,
}

pub(crate) fn string_hash(s: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(s)
}

/// String `id` of `text` as `ends` delimit it ("" past the end).
fn stored<'s>(text: &'s str, ends: &[usize], id: u32) -> &'s str {
    let id = id as usize;
    let Some(&end) = ends.get(id) else {
        return "";
    };
    let start = id
        .checked_sub(1)
        .and_then(|i| ends.get(i))
        .copied()
        .unwrap_or(0);
    text.get(start..end).unwrap_or("")
}

/// The spare room a graph's strings keep: the room a carried build starts with for new
/// strings, so a build is not ended by a copy of the whole text to give it back.
pub(crate) const STRINGS_ROOM_BYTES: usize = 256 * 1024;

impl Strings {
    /// The interner of strings stored in this order (a string stored twice is found as its
    /// first).
    #[cfg(test)]
    fn from_all<S: AsRef<str>>(all: &[S]) -> Strings {
        let mut strings = Strings::default();
        strings.reserve(all.len(), all.iter().map(|s| s.as_ref().len()).sum());
        for s in all {
            strings.push_stored(s.as_ref());
        }
        strings
    }

    /// Adds `s` as the next string (as stored: the same string may come twice; it is then
    /// found as its first).
    fn push_stored(&mut self, s: &str) {
        let hash = string_hash(s);
        let Strings { text, ends, index } = self;
        let id = ends.len() as u32;
        text.push_str(s);
        ends.push(text.len());
        if index
            .find(hash, |&other| stored(text, ends, other) == s)
            .is_none()
        {
            index.insert_unique(hash, id, |&i| string_hash(stored(text, ends, i)));
        }
    }

    pub fn intern(&mut self, s: &str) -> Sym {
        // The empty string (signatures and docs of most nodes) is string 0 of every graph.
        if s.is_empty() && self.ends.first() == Some(&0) {
            return Sym(0);
        }
        let Strings { text, ends, index } = self;
        let hash = string_hash(s);
        if let Some(&id) = index.find(hash, |&id| stored(text, ends, id) == s) {
            return Sym(id);
        }
        let id = ends.len() as u32;
        text.push_str(s);
        ends.push(text.len());
        index.insert_unique(hash, id, |&i| string_hash(stored(text, ends, i)));
        Sym(id)
    }

    pub fn get(&self, sym: Sym) -> &str {
        stored(&self.text, &self.ends, sym.0)
    }

    /// Every string, in id order.
    fn iter(&self) -> impl ExactSizeIterator<Item = &str> {
        (0..self.ends.len() as u32).map(|id| stored(&self.text, &self.ends, id))
    }

    /// Room for `more` strings of about `bytes` bytes in all, so the tables are not grown step
    /// by step.
    fn reserve(&mut self, more: usize, bytes: usize) {
        let Strings { text, ends, index } = self;
        text.reserve(bytes);
        ends.reserve(more);
        index.reserve(more, |&i| string_hash(stored(text, ends, i)));
    }

    /// Room for exactly `more` strings of `bytes` bytes in all: a full buffer grown by one more
    /// string would double (a kernel's text of 100 MB and more, for a few summaries).
    fn reserve_exact(&mut self, more: usize, bytes: usize) {
        let Strings { text, ends, index } = self;
        text.reserve_exact(bytes);
        ends.reserve_exact(more);
        index.reserve(more, |&i| string_hash(stored(text, ends, i)));
    }

    /// Gives back the room to spare, but for up to [`STRINGS_ROOM_BYTES`] of each buffer (a
    /// carried build's room for new strings: giving it back copied the whole text).
    fn shrink_to_fit(&mut self) {
        let Strings { text, ends, index } = self;
        if text.capacity() - text.len() > STRINGS_ROOM_BYTES {
            text.shrink_to_fit();
        }
        if (ends.capacity() - ends.len()) * size_of::<usize>() > STRINGS_ROOM_BYTES {
            ends.shrink_to_fit();
        }
        index.shrink_to_fit(|&i| string_hash(stored(text, ends, i)));
    }

    /// How many strings there are and their bytes in all.
    pub(crate) fn size(&self) -> (usize, usize) {
        (self.ends.len(), self.text.len())
    }

    /// A copy with room for `more` strings of `bytes` bytes in all beyond these (a plain clone
    /// is exactly full: the first string added to it would copy the whole text again).
    pub(crate) fn copy_with_room(&self, more: usize, bytes: usize) -> Strings {
        let mut text = String::with_capacity(self.text.len() + bytes);
        text.push_str(&self.text);
        let mut ends = Vec::with_capacity(self.ends.len() + more);
        ends.extend_from_slice(&self.ends);
        let mut index = self.index.clone();
        index.reserve(more, |&i| string_hash(stored(&text, &ends, i)));
        Strings { text, ends, index }
    }

    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.index
            .find(string_hash(s), |&id| self.get(Sym(id)) == s)
            .map(|&id| Sym(id))
    }

    fn heap_bytes(&self) -> usize {
        self.text.capacity()
            + self.ends.capacity() * std::mem::size_of::<usize>()
            + self.index.capacity() * (4 + 1)
    }
}

/// The strings of a graph as stored: a sequence of strings (the snapshot's format, whatever the
/// interner holds them in).
struct StoredStrings<'g>(&'g Strings);

/// Reads stored strings straight into an interner, one at a time: no string of the sequence is
/// allocated on its own (a kernel's graph holds millions).
impl<'de> Deserialize<'de> for Strings {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Strings, D::Error> {
        struct Each;
        impl<'de> serde::de::Visitor<'de> for Each {
            type Value = Strings;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence of strings")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Strings, A::Error> {
                let mut strings = Strings::default();
                while seq.next_element_seed(Into(&mut strings))?.is_some() {}
                strings.shrink_to_fit();
                Ok(strings)
            }
        }
        /// Reads one string into the interner.
        struct Into<'s>(&'s mut Strings);
        impl<'de> serde::de::DeserializeSeed<'de> for Into<'_> {
            type Value = ();
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
                d.deserialize_string(self)
            }
        }
        impl<'de> serde::de::Visitor<'de> for Into<'_> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<(), E> {
                self.0.push_stored(s);
                Ok(())
            }
        }
        deserializer.deserialize_seq(Each)
    }
}

impl Serialize for StoredStrings<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter())
    }
}

/// One node, with its strings interned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeData {
    pub kind: NodeKind,
    pub name: Sym,
    /// Dotted path inside the file (`Cart.add`); the path itself for files and folders.
    pub qualified: Sym,
    pub file: Sym,
    pub start_line: u32,
    pub end_line: u32,
    pub signature: Sym,
    pub doc: Sym,
    pub exported: bool,
}

/// A directed, typed edge with its confidence and the reason it exists.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// The source node.
    pub from: u32,
    /// The target node.
    pub to: u32,
    /// What the edge says.
    pub kind: EdgeKind,
    /// How sure the resolver is, in 0..=1.
    pub confidence: f32,
    /// Why the resolver drew it.
    pub reason: Reason,
}

/// Compressed adjacency: the edges of node `n` are `edges[offsets[n]..offsets[n+1]]`.
#[derive(Debug, Clone, Default)]
struct Csr {
    offsets: Vec<u32>,
    edges: Vec<u32>,
}

impl Csr {
    fn build(nodes: usize, edges: &[Edge], key: impl Fn(&Edge) -> u32) -> Csr {
        let mut offsets = vec![0u32; nodes + 1];
        for edge in edges {
            offsets[key(edge) as usize + 1] += 1;
        }
        for i in 0..nodes {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut list = vec![0u32; edges.len()];
        for (i, edge) in edges.iter().enumerate() {
            let slot = &mut fill[key(edge) as usize];
            list[*slot as usize] = i as u32;
            *slot += 1;
        }
        Csr {
            offsets,
            edges: list,
        }
    }

    /// [`Csr::build`] of edges already sorted by `key` (each below `nodes`): each node's edges
    /// are a run, in order, so the offsets are where the runs end and the list is every edge in
    /// turn (no count, no scatter).
    fn of_sorted(nodes: usize, edges: &[Edge], key: impl Fn(&Edge) -> u32) -> Csr {
        let mut offsets = Vec::with_capacity(nodes + 1);
        offsets.push(0u32);
        let mut at = 0usize;
        for node in 0..nodes as u32 {
            while edges.get(at).is_some_and(|e| key(e) <= node) {
                at += 1;
            }
            offsets.push(at as u32);
        }
        Csr {
            offsets,
            edges: (0..edges.len() as u32).collect(),
        }
    }

    fn of(&self, node: u32) -> &[u32] {
        let start = self.offsets.get(node as usize).copied().unwrap_or(0) as usize;
        let end = self.offsets.get(node as usize + 1).copied().unwrap_or(0) as usize;
        self.edges.get(start..end).unwrap_or_default()
    }
}

/// A detected community of symbols.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommunityInfo {
    pub node: u32,
    pub members: Vec<u32>,
    /// Share of the members' edges that stay inside the community, 0..=1.
    pub cohesion: f32,
}

/// An execution flow: an entry point and the calls reached from it, in visiting order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessInfo {
    pub node: u32,
    pub entry: u32,
    pub terminal: u32,
    pub steps: Vec<u32>,
    pub depth: u32,
}

/// A read-only code graph for one project.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// The project's name.
    pub project: String,
    /// The interned strings every node refers to.
    pub strings: Strings,
    nodes: Vec<NodeData>,
    edges: Vec<Edge>,
    /// References that are not calls, sorted by (target, source, line, kind).
    references: Vec<Reference>,
    outgoing: Csr,
    incoming: Csr,
    by_location: HashMap<(Sym, Sym), u32>,
    /// Detected communities.
    pub communities: Vec<CommunityInfo>,
    /// Detected processes.
    pub processes: Vec<ProcessInfo>,
    lookup: OnceLock<NodeLookup>,
    tally: OnceLock<GraphTally>,
}

/// Figures about a whole graph that answers reuse: counts per kind, the most-called symbols and
/// files per folder. Computed on first use, once per graph.
#[derive(Debug, Clone, Default)]
pub struct GraphTally {
    node_counts: [usize; NodeKind::ALL.len()],
    edge_counts: [usize; EdgeKind::ALL.len()],
    /// (symbol, callers) for the most-called symbols, most callers first, ties by id.
    pub most_called: Vec<(u32, usize)>,
    /// Folder path (`.` for the root) → number of files directly in it.
    pub folders: std::collections::BTreeMap<String, usize>,
}

/// Symbols kept in `GraphTally::most_called`.
const MOST_CALLED: usize = 50;

impl GraphTally {
    fn build(graph: &Graph) -> GraphTally {
        let mut tally = GraphTally::default();
        let mut callers = vec![0usize; graph.nodes.len()];
        for e in &graph.edges {
            tally.edge_counts[e.kind as usize] += 1;
            if e.kind == EdgeKind::Calls
                && let Some(c) = callers.get_mut(e.to as usize)
            {
                *c += 1;
            }
        }
        for node in graph.nodes() {
            tally.node_counts[node.kind() as usize] += 1;
            if node.kind() == NodeKind::File {
                let folder = node.file().rsplit_once('/').map_or(".", |(dir, _)| dir);
                *tally.folders.entry(folder.to_owned()).or_insert(0) += 1;
            }
        }
        let mut ranked: Vec<(u32, usize)> = callers
            .into_iter()
            .enumerate()
            .filter(|&(n, c)| c > 0 && graph.nodes.get(n).is_some_and(|d| d.kind.is_symbol()))
            .map(|(n, c)| (n as u32, c))
            .collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(MOST_CALLED);
        tally.most_called = ranked;
        tally
    }

    pub fn nodes(&self, kind: NodeKind) -> usize {
        self.node_counts[kind as usize]
    }

    pub fn edges(&self, kind: EdgeKind) -> usize {
        self.edge_counts[kind as usize]
    }
}

/// Node ids sorted by name, by file and by kind, for lookups by value; built on first use.
#[derive(Debug, Clone)]
struct NodeLookup {
    by_name: Vec<u32>,
    by_file: Vec<u32>,
    by_kind: Vec<u32>,
}

impl NodeLookup {
    fn build(nodes: &[NodeData]) -> NodeLookup {
        let sorted_by = |key: fn(&NodeData) -> u32| {
            let mut ids: Vec<u32> = (0..nodes.len() as u32).collect();
            ids.sort_by_key(|&n| (nodes.get(n as usize).map_or(0, key), n));
            ids
        };
        NodeLookup {
            by_name: sorted_by(|d| d.name.0),
            by_file: sorted_by(|d| d.file.0),
            by_kind: sorted_by(|d| d.kind as u32),
        }
    }

    /// The ids in `sorted` (ordered by `key`) whose key equals `value`.
    fn range<'a>(
        sorted: &'a [u32],
        nodes: &[NodeData],
        key: fn(&NodeData) -> u32,
        value: u32,
    ) -> &'a [u32] {
        let key_of = |n: &u32| nodes.get(*n as usize).map_or(0, key);
        let start = sorted.partition_point(|n| key_of(n) < value);
        let end = sorted.partition_point(|n| key_of(n) <= value);
        sorted.get(start..end).unwrap_or_default()
    }

    fn heap_bytes(&self) -> usize {
        (self.by_name.capacity() + self.by_file.capacity() + self.by_kind.capacity()) * 4
    }
}

/// A node with its graph, for reading strings.
#[derive(Clone, Copy)]
pub struct NodeRef<'g> {
    /// The node's id.
    pub id: u32,
    /// The node's interned fields.
    pub data: &'g NodeData,
    graph: &'g Graph,
}

impl<'g> NodeRef<'g> {
    /// The node's kind.
    pub fn kind(&self) -> NodeKind {
        self.data.kind
    }
    /// Its short name.
    pub fn name(&self) -> &'g str {
        self.graph.strings.get(self.data.name)
    }
    /// Its dotted path inside the file (the path itself for files and folders).
    pub fn qualified(&self) -> &'g str {
        self.graph.strings.get(self.data.qualified)
    }
    /// The file it is in (its own path for files and folders).
    pub fn file(&self) -> &'g str {
        self.graph.strings.get(self.data.file)
    }
    /// Its signature line, empty when it has none.
    pub fn signature(&self) -> &'g str {
        self.graph.strings.get(self.data.signature)
    }
    /// Its doc comment or docstring, empty when it has none.
    pub fn doc(&self) -> &'g str {
        self.graph.strings.get(self.data.doc)
    }
    /// Its first line, 1-based.
    pub fn start_line(&self) -> u32 {
        self.data.start_line
    }
    /// Its last line, 1-based.
    pub fn end_line(&self) -> u32 {
        self.data.end_line
    }
    /// The stable id agents use: `Kind:path:qualified.name` (`Kind:path` for files and folders).
    pub fn stable_id(&self) -> String {
        match self.data.kind {
            NodeKind::Folder | NodeKind::File => format!("{}:{}", self.data.kind, self.file()),
            _ => format!("{}:{}:{}", self.data.kind, self.file(), self.qualified()),
        }
    }
    /// `path:line`, for agents and people.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file(), self.data.start_line)
    }
}

impl Graph {
    /// How many nodes the graph has.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// How many edges the graph has.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// The node with id `id`, if any.
    pub fn node(&self, id: u32) -> Option<NodeRef<'_>> {
        self.nodes.get(id as usize).map(|data| NodeRef {
            id,
            data,
            graph: self,
        })
    }

    /// Every node, by id.
    pub fn nodes(&self) -> impl Iterator<Item = NodeRef<'_>> {
        self.nodes.iter().enumerate().map(|(i, data)| NodeRef {
            id: i as u32,
            data,
            graph: self,
        })
    }

    /// Every edge.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Every reference that is not a call, sorted by target.
    pub fn references(&self) -> &[Reference] {
        &self.references
    }

    /// References to `node` (not its calls), by source then line.
    pub fn references_to(&self, node: u32) -> &[Reference] {
        let start = self.references.partition_point(|r| r.to < node);
        let end = self.references.partition_point(|r| r.to <= node);
        self.references.get(start..end).unwrap_or_default()
    }

    /// Edges leaving `node`.
    pub fn outgoing(&self, node: u32) -> impl Iterator<Item = &Edge> {
        self.outgoing
            .of(node)
            .iter()
            .filter_map(|&i| self.edges.get(i as usize))
    }

    /// Edges arriving at `node`.
    pub fn incoming(&self, node: u32) -> impl Iterator<Item = &Edge> {
        self.incoming
            .of(node)
            .iter()
            .filter_map(|&i| self.edges.get(i as usize))
    }

    /// Counts, hotspots and folders, computed once.
    pub fn tally(&self) -> &GraphTally {
        self.tally.get_or_init(|| GraphTally::build(self))
    }

    /// How many nodes of `kind` there are.
    pub fn count_nodes(&self, kind: NodeKind) -> usize {
        self.tally().nodes(kind)
    }

    /// How many edges of `kind` there are.
    pub fn count_edges(&self, kind: EdgeKind) -> usize {
        self.tally().edges(kind)
    }

    /// How many files there are.
    pub fn file_count(&self) -> usize {
        self.count_nodes(NodeKind::File)
    }

    /// Finds a node by its stable id.
    pub fn find_id(&self, id: &str) -> Option<u32> {
        let (kind, rest) = id.split_once(':')?;
        let kind = NodeKind::parse(kind)?;
        let (file, qualified) = match kind {
            NodeKind::Folder | NodeKind::File => (rest, rest),
            _ => rest.rsplit_once(':')?,
        };
        self.find_at(kind, file, qualified)
    }

    /// The node of `kind` at (file, qualified name); a folder's or file's qualified name is its
    /// path. [`Graph::find_id`] without making or parsing a stable id.
    pub fn find_at(&self, kind: NodeKind, file: &str, qualified: &str) -> Option<u32> {
        let key = (self.strings.lookup(file)?, self.strings.lookup(qualified)?);
        self.by_location
            .get(&key)
            .copied()
            .filter(|&n| self.nodes.get(n as usize).is_some_and(|d| d.kind == kind))
    }

    fn lookup(&self) -> &NodeLookup {
        self.lookup.get_or_init(|| NodeLookup::build(&self.nodes))
    }

    /// Room for exactly `more` new strings of `bytes` bytes in all (docs about to be set), so a
    /// built graph's exactly sized strings do not double for them.
    pub fn reserve_strings(&mut self, more: usize, bytes: usize) {
        self.strings.reserve_exact(more, bytes);
    }

    /// Replaces a node's doc; nothing is indexed by docs, so the graph stays built.
    pub fn set_doc(&mut self, id: u32, doc: &str) {
        let sym = self.strings.intern(doc);
        if let Some(node) = self.nodes.get_mut(id as usize) {
            node.doc = sym;
        }
    }

    /// Nodes whose name is exactly `name`, in id order (index built on first use).
    pub fn nodes_named(&self, name: &str) -> &[u32] {
        let Some(sym) = self.strings.lookup(name) else {
            return &[];
        };
        NodeLookup::range(&self.lookup().by_name, &self.nodes, |d| d.name.0, sym.0)
    }

    /// Nodes whose file is exactly `file` (the file or folder itself and its symbols), in id order.
    pub fn nodes_in_file(&self, file: &str) -> &[u32] {
        let Some(sym) = self.strings.lookup(file) else {
            return &[];
        };
        NodeLookup::range(&self.lookup().by_file, &self.nodes, |d| d.file.0, sym.0)
    }

    /// Nodes of one kind, in id order.
    pub fn nodes_of_kind(&self, kind: NodeKind) -> &[u32] {
        NodeLookup::range(
            &self.lookup().by_kind,
            &self.nodes,
            |d| d.kind as u32,
            kind as u32,
        )
    }

    /// Every node (all its fields), edge (with confidence and reason), community and process as
    /// one line each, by stable ids, in the graph's order: two graphs are the same graph when
    /// their dumps are equal (how an incremental update is checked against a full index).
    pub fn canonical_dump(&self) -> Vec<String> {
        let id = |n: u32| {
            self.node(n)
                .map_or_else(|| format!("#{n}"), |n| n.stable_id())
        };
        let mut out: Vec<String> = self
            .nodes()
            .map(|n| {
                format!(
                    "node {} {}-{} exported={} sig={:?} doc={:?}",
                    n.stable_id(),
                    n.start_line(),
                    n.end_line(),
                    n.data.exported,
                    n.signature(),
                    n.doc()
                )
            })
            .collect();
        out.extend(self.edges().iter().map(|e| {
            format!(
                "edge {} -{}-> {} {:.3} {:?}",
                id(e.from),
                e.kind.as_str(),
                id(e.to),
                e.confidence,
                e.reason
            )
        }));
        out.extend(self.references.iter().map(|r| {
            format!(
                "ref {} -{}:{}-> {} {:.3} {:?}",
                id(r.from),
                r.kind.as_str(),
                r.line,
                id(r.to),
                r.confidence,
                r.reason
            )
        }));
        out.extend(self.communities.iter().map(|c| {
            let members: Vec<String> = c.members.iter().map(|&m| id(m)).collect();
            format!("community {} {:.3} {members:?}", id(c.node), c.cohesion)
        }));
        out.extend(self.processes.iter().map(|p| {
            let steps: Vec<String> = p.steps.iter().map(|&s| id(s)).collect();
            format!(
                "process {} {} {} {} {steps:?}",
                id(p.node),
                id(p.entry),
                id(p.terminal),
                p.depth
            )
        }));
        out
    }

    /// Approximate heap bytes held by the graph, for benchmarks.
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<NodeData>()
            + self.edges.capacity() * std::mem::size_of::<Edge>()
            + self.references.capacity() * std::mem::size_of::<Reference>()
            + (self.outgoing.edges.capacity() + self.outgoing.offsets.capacity()) * 4
            + (self.incoming.edges.capacity() + self.incoming.offsets.capacity()) * 4
            + self.by_location.capacity() * 16
            + self.strings.heap_bytes()
            + self.lookup.get().map_or(0, NodeLookup::heap_bytes)
    }
}

/// The stored fields of a graph, borrowed for saving; indexes are rebuilt on loading.
#[derive(Serialize)]
pub struct GraphPartsRef<'g> {
    project: &'g str,
    strings: StoredStrings<'g>,
    nodes: &'g [NodeData],
    edges: &'g [Edge],
    references: &'g [Reference],
    communities: &'g [CommunityInfo],
    processes: &'g [ProcessInfo],
}

/// The stored fields of a graph, owned, as read back (same field order as `GraphPartsRef`).
#[derive(Deserialize)]
pub struct GraphParts {
    project: String,
    strings: Strings,
    nodes: Vec<NodeData>,
    edges: Vec<Edge>,
    references: Vec<Reference>,
    communities: Vec<CommunityInfo>,
    processes: Vec<ProcessInfo>,
}

impl Graph {
    /// The graph's stored parts, borrowed, for the snapshot encoder.
    pub fn parts(&self) -> GraphPartsRef<'_> {
        GraphPartsRef {
            project: &self.project,
            strings: StoredStrings(&self.strings),
            nodes: &self.nodes,
            edges: &self.edges,
            references: &self.references,
            communities: &self.communities,
            processes: &self.processes,
        }
    }

    /// Rebuilds a graph from stored parts, checking every id so that a damaged snapshot is an
    /// error rather than a panic later.
    pub fn from_parts(parts: GraphParts) -> Result<Graph, String> {
        let GraphParts {
            project,
            strings,
            mut nodes,
            mut edges,
            mut references,
            communities,
            processes,
        } = parts;
        // Read back in steps that double, the long lists hold up to twice their length.
        nodes.shrink_to_fit();
        edges.shrink_to_fit();
        references.shrink_to_fit();
        let string_count = strings.ends.len() as u32;
        let node_count = nodes.len() as u32;
        let sym_ok = |s: Sym| s.0 < string_count;
        if let Some(bad) = nodes.iter().position(|n| {
            ![n.name, n.qualified, n.file, n.signature, n.doc]
                .into_iter()
                .all(sym_ok)
        }) {
            return Err(format!("node {bad} names a string that is not stored"));
        }
        if let Some(bad) = edges
            .iter()
            .position(|e| e.from >= node_count || e.to >= node_count || !e.confidence.is_finite())
        {
            return Err(format!("edge {bad} joins nodes that are not stored"));
        }
        if let Some(bad) = references
            .iter()
            .position(|r| r.from >= node_count || r.to >= node_count || !r.confidence.is_finite())
        {
            return Err(format!("reference {bad} joins nodes that are not stored"));
        }
        if !references.is_sorted_by_key(|r| r.to) {
            return Err("references are not sorted by target".to_owned());
        }
        let ids_ok = |ids: &[u32]| ids.iter().all(|&n| n < node_count);
        if !communities
            .iter()
            .all(|c| c.node < node_count && ids_ok(&c.members))
            || !processes.iter().all(|p| {
                p.node < node_count
                    && p.entry < node_count
                    && p.terminal < node_count
                    && ids_ok(&p.steps)
            })
        {
            return Err("a community or process names a node that is not stored".into());
        }
        let mut by_location = HashMap::with_capacity_and_hasher(nodes.len(), Default::default());
        for (i, n) in nodes.iter().enumerate() {
            by_location.entry((n.file, n.qualified)).or_insert(i as u32);
        }
        let outgoing = Csr::build(nodes.len(), &edges, |e| e.from);
        let incoming = Csr::build(nodes.len(), &edges, |e| e.to);
        Ok(Graph {
            project,
            strings,
            nodes,
            edges,
            references,
            outgoing,
            incoming,
            by_location,
            communities,
            processes,
            lookup: OnceLock::new(),
            tally: OnceLock::new(),
        })
    }
}

/// An edge's place in a built graph as one number: by source, target and kind, then the
/// surest first (confidences in `f32::total_cmp` order, reversed).
fn edge_order(edge: &Edge) -> u128 {
    let bits = edge.confidence.to_bits();
    // Flips the bits of negative numbers so the unsigned order is `total_cmp`'s.
    let total = bits ^ ((((bits as i32) >> 31) as u32) >> 1) ^ (1 << 31);
    (u128::from(edge.from) << 96)
        | (u128::from(edge.to) << 64)
        | ((edge.kind as u128) << 32)
        | u128::from(!total)
}

/// Past this many bytes of items, a bucket sort moves them in place rather than into a second
/// list (a kernel's millions of edges are sorted at its resolution's peak of memory).
const SORT_COPY_BYTES: usize = 32 << 20;

/// Sorts `items` stably by (`bucket`, then `within`), as `sort_by` on both would: a counting
/// sort by the bucket (a node id: one pass, no comparisons), then a stable sort of each
/// bucket's few items. A live update builds a graph on every change, and its 200 k edges
/// sorted whole by comparisons were a large part of the builder's time. The items go to their
/// places in a second list up to [`SORT_COPY_BYTES`], else in place.
fn sort_by_bucket<T: Copy>(
    items: &mut Vec<T>,
    bucket: impl Fn(&T) -> u32,
    within: impl Fn(&T, &T) -> std::cmp::Ordering,
) {
    sort_by_bucket_copying_up_to(items, SORT_COPY_BYTES, bucket, within);
}

/// [`sort_by_bucket`], making a second list only when the items take at most `copy_bytes`.
fn sort_by_bucket_copying_up_to<T: Copy>(
    items: &mut Vec<T>,
    copy_bytes: usize,
    bucket: impl Fn(&T) -> u32,
    within: impl Fn(&T, &T) -> std::cmp::Ordering,
) {
    let Some(last) = items.iter().map(|i| bucket(i) as usize).max() else {
        return;
    };
    let mut starts = vec![0usize; last + 2];
    for item in items.iter() {
        starts[bucket(item) as usize + 1] += 1;
    }
    for i in 0..=last {
        starts[i + 1] += starts[i];
    }
    let mut fill = starts.clone();
    if items.len() * size_of::<T>() <= copy_bytes {
        // Each item written straight to its place: one pass, no chain of dependent moves (the
        // in-place moves below wait on a cache miss each: most of the builder's time).
        let mut sorted = items.clone();
        for item in items.iter() {
            let slot = &mut fill[bucket(item) as usize];
            sorted[*slot] = *item;
            *slot += 1;
        }
        *items = sorted;
    } else {
        // Each item's place, then the items moved there in place (each swap puts one item where
        // it belongs): no second list of items beside the first.
        let mut place = vec![0u32; items.len()];
        for (item, to) in items.iter().zip(place.iter_mut()) {
            let slot = &mut fill[bucket(item) as usize];
            *to = *slot as u32;
            *slot += 1;
        }
        drop(fill);
        for i in 0..items.len() {
            loop {
                let to = place[i] as usize;
                if to == i {
                    break;
                }
                items.swap(i, to);
                place.swap(i, to);
            }
        }
    }
    for pair in starts.windows(2) {
        if let Some(run) = items.get_mut(pair[0]..pair[1])
            && run.len() > 1
        {
            run.sort_by(&within);
        }
    }
}

/// Collects nodes and edges, then freezes them into a `Graph`.
#[derive(Debug, Default)]
pub struct GraphBuilder {
    graph: Graph,
}

/// The text fields of a new node.
pub struct NewNode<'a> {
    pub kind: NodeKind,
    pub name: &'a str,
    pub qualified: &'a str,
    pub file: &'a str,
    pub start_line: u32,
    pub end_line: u32,
    pub signature: &'a str,
    pub doc: &'a str,
    pub exported: bool,
}

impl GraphBuilder {
    pub fn new(project: &str) -> Self {
        let mut graph = Graph {
            project: project.to_owned(),
            ..Graph::default()
        };
        graph.strings.intern("");
        GraphBuilder { graph }
    }

    /// [`GraphBuilder::new`] with room for about `nodes` nodes (and twice as many strings) and
    /// `edges` edges, so its tables do not grow step by step.
    pub fn with_capacity(project: &str, nodes: usize, edges: usize) -> Self {
        let mut b = GraphBuilder::new(project);
        b.graph.nodes.reserve(nodes);
        b.graph.edges.reserve(edges);
        b.graph.by_location.reserve(nodes);
        b.graph.strings.reserve(nodes * 2, nodes * 64);
        b
    }

    /// [`GraphBuilder::with_capacity`] starting from the strings of an earlier build (string 0
    /// the empty one): nodes that build made can be added again as they were
    /// ([`GraphBuilder::add_node_data`]).
    pub(crate) fn with_strings(
        project: &str,
        strings: Strings,
        nodes: usize,
        edges: usize,
    ) -> Self {
        let mut b = GraphBuilder {
            graph: Graph {
                project: project.to_owned(),
                strings,
                ..Graph::default()
            },
        };
        b.graph.nodes.reserve(nodes);
        b.graph.edges.reserve(edges);
        b.graph.by_location.reserve(nodes);
        b
    }

    /// The strings so far.
    pub(crate) fn strings(&self) -> &Strings {
        &self.graph.strings
    }

    /// Reopens a built graph to add nodes and edges; `build` recomputes the adjacency (the old
    /// one and the lookups made from it are let go now, before the tables grow).
    pub fn extend(mut graph: Graph) -> Self {
        graph.outgoing = Csr::default();
        graph.incoming = Csr::default();
        graph.lookup = OnceLock::new();
        graph.tally = OnceLock::new();
        GraphBuilder { graph }
    }

    /// Room for exactly `nodes` more nodes, `edges` more edges and `strings` more strings of
    /// `bytes` bytes in all. A reopened graph's tables are exactly sized: grown by pushing, a
    /// few layer nodes and edges would double each of them (a kernel's edges, nodes and texts:
    /// hundreds of megabytes for a moment, and wasm memory keeps its high-water mark).
    pub fn reserve_exact(&mut self, nodes: usize, edges: usize, strings: usize, bytes: usize) {
        let g = &mut self.graph;
        g.nodes.reserve_exact(nodes);
        g.edges.reserve_exact(edges);
        g.by_location.reserve(nodes);
        g.strings.reserve_exact(strings, bytes);
    }

    pub fn set_communities(&mut self, communities: Vec<CommunityInfo>) {
        self.graph.communities = communities;
    }

    pub fn set_processes(&mut self, processes: Vec<ProcessInfo>) {
        self.graph.processes = processes;
    }

    /// Adds a node. Nodes come file by file, so the previous node's file is the likeliest (no
    /// hash for it), and a string equal to the one before it is interned once (the strings are
    /// interned in the same order as ever, so they keep their ids).
    pub fn add_node(&mut self, node: NewNode) -> u32 {
        let previous_file = self.graph.nodes.last().map(|n| n.file);
        let s = &mut self.graph.strings;
        let name = s.intern(node.name);
        let qualified = if node.qualified == node.name {
            name
        } else {
            s.intern(node.qualified)
        };
        let file = match previous_file {
            _ if node.file == node.qualified => qualified,
            Some(sym) if s.get(sym) == node.file => sym,
            _ => s.intern(node.file),
        };
        let data = NodeData {
            kind: node.kind,
            name,
            qualified,
            file,
            start_line: node.start_line,
            end_line: node.end_line,
            signature: s.intern(node.signature),
            doc: s.intern(node.doc),
            exported: node.exported,
        };
        self.add_node_data(data)
    }

    /// Adds a node whose strings are this builder's already (a node of an earlier build this
    /// one started from the strings of, [`GraphBuilder::with_strings`]).
    pub(crate) fn add_node_data(&mut self, data: NodeData) -> u32 {
        let id = self.graph.nodes.len() as u32;
        self.graph
            .by_location
            .entry((data.file, data.qualified))
            .or_insert(id);
        self.graph.nodes.push(data);
        id
    }

    pub fn add_edge(
        &mut self,
        from: u32,
        to: u32,
        kind: EdgeKind,
        confidence: f32,
        reason: Reason,
    ) {
        self.graph.edges.push(Edge {
            from,
            to,
            kind,
            confidence: confidence.clamp(0.0, 1.0),
            reason,
        });
    }

    pub fn node(&self, id: u32) -> Option<&NodeData> {
        self.graph.nodes.get(id as usize)
    }

    /// The first node added at node `id`'s location (file, qualified name): the one
    /// [`Graph::find_id`] finds there.
    pub fn first_at(&self, id: u32) -> Option<u32> {
        let node = self.graph.nodes.get(id as usize)?;
        self.graph
            .by_location
            .get(&(node.file, node.qualified))
            .copied()
    }

    pub fn string(&self, sym: Sym) -> &str {
        self.graph.strings.get(sym)
    }

    /// Records a use of `to` that is not a call, written at `line` in `from`'s code.
    pub fn add_reference(&mut self, reference: Reference) {
        self.graph.references.push(Reference {
            confidence: reference.confidence.clamp(0.0, 1.0),
            ..reference
        });
    }

    /// Builds the adjacency. Duplicate edges (same ends and kind) keep the most certain one;
    /// duplicate references (same ends, line and kind) too.
    pub fn build(mut self) -> Graph {
        let g = &mut self.graph;
        // The adjacency is made again below: the old one goes before the sorts need room.
        g.outgoing = Csr::default();
        g.incoming = Csr::default();
        sort_by_bucket(
            &mut g.references,
            |r| r.to,
            |a, b| {
                (a.from, a.line, a.kind)
                    .cmp(&(b.from, b.line, b.kind))
                    .then(b.confidence.total_cmp(&a.confidence))
            },
        );
        g.references.dedup_by(|later, kept| {
            (later.to, later.from, later.line, later.kind)
                == (kept.to, kept.from, kept.line, kept.kind)
        });
        g.references.shrink_to_fit();
        // By (from, to, kind), the surest first: by source in one pass, then each source's few
        // edges by one number.
        sort_by_bucket(
            &mut g.edges,
            |e| e.from,
            |a, b| edge_order(a).cmp(&edge_order(b)),
        );
        g.edges.dedup_by(|later, kept| {
            (later.from, later.to, later.kind) == (kept.from, kept.to, kept.kind)
        });
        g.edges.shrink_to_fit();
        g.nodes.shrink_to_fit();
        g.strings.shrink_to_fit();
        // Sorted by source above: the outgoing adjacency is the edges' runs.
        g.outgoing = Csr::of_sorted(g.nodes.len(), &g.edges, |e| e.from);
        g.incoming = Csr::build(g.nodes.len(), &g.edges, |e| e.to);
        g.lookup = OnceLock::new();
        g.tally = OnceLock::new();
        self.graph
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node<'a>(kind: NodeKind, file: &'a str, qualified: &'a str) -> NewNode<'a> {
        NewNode {
            kind,
            name: qualified.rsplit('.').next().unwrap_or(qualified),
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
    fn stable_ids_round_trip() {
        let mut b = GraphBuilder::new("t");
        let file = b.add_node(node(NodeKind::File, "shop/cart.py", "shop/cart.py"));
        let method = b.add_node(node(NodeKind::Method, "shop/cart.py", "Cart.add"));
        let g = b.build();
        assert_eq!(
            g.node(method).unwrap().stable_id(),
            "Method:shop/cart.py:Cart.add"
        );
        assert_eq!(g.node(file).unwrap().stable_id(), "File:shop/cart.py");
        assert_eq!(g.find_id("Method:shop/cart.py:Cart.add"), Some(method));
        assert_eq!(g.find_id("File:shop/cart.py"), Some(file));
        assert_eq!(g.find_id("Function:shop/cart.py:Cart.add"), None);
        assert_eq!(g.find_id("garbage"), None);
    }

    #[test]
    fn the_adjacency_of_sorted_edges_is_their_runs() {
        let edge = |from, to| Edge {
            from,
            to,
            kind: EdgeKind::Calls,
            confidence: 1.0,
            reason: Reason::Structure,
        };
        let mut edges: Vec<Edge> = [(0, 3), (0, 1), (2, 2), (2, 0), (2, 2), (5, 1), (5, 4)]
            .into_iter()
            .map(|(from, to)| edge(from, to))
            .collect();
        edges.sort_by_key(|e| e.from);
        for nodes in [6, 7, 9] {
            let sorted = Csr::of_sorted(nodes, &edges, |e| e.from);
            let built = Csr::build(nodes, &edges, |e| e.from);
            assert_eq!(
                (&sorted.offsets, &sorted.edges),
                (&built.offsets, &built.edges)
            );
            for node in 0..nodes as u32 {
                assert!(
                    sorted
                        .of(node)
                        .iter()
                        .all(|&i| edges[i as usize].from == node)
                );
            }
        }
        let none = Csr::of_sorted(3, &[], |e| e.from);
        assert_eq!((none.offsets, none.edges), (vec![0; 4], vec![]));
    }

    #[test]
    fn an_edges_order_number_sorts_as_its_fields_do() {
        let confidences = [
            f32::NAN,
            -f32::NAN,
            f32::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            0.3,
            0.97,
            1.0,
            f32::INFINITY,
        ];
        let mut edges = Vec::new();
        for (from, to) in [(0, 0), (0, 1), (1, 0), (u32::MAX, 7), (7, u32::MAX)] {
            for kind in [EdgeKind::Contains, EdgeKind::Calls, EdgeKind::StepInProcess] {
                for &confidence in &confidences {
                    edges.push(Edge {
                        from,
                        to,
                        kind,
                        confidence,
                        reason: Reason::Structure,
                    });
                }
            }
        }
        let by_fields = |a: &Edge, b: &Edge| {
            (a.from, a.to, a.kind)
                .cmp(&(b.from, b.to, b.kind))
                .then(b.confidence.total_cmp(&a.confidence))
        };
        for a in &edges {
            for b in &edges {
                assert_eq!(
                    edge_order(a).cmp(&edge_order(b)),
                    by_fields(a, b),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    #[test]
    fn sorting_by_bucket_orders_as_a_stable_sort_on_all_fields() {
        // (bucket, key, arrival): equal (bucket, key) pairs must keep their arrival order.
        let mut seed = 0x9e37_79b9_u32;
        let mut next = |m: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % m
        };
        for len in [0, 1, 2, 7, 100, 2_000] {
            let items: Vec<(u32, u32, u32)> = (0..len).map(|i| (next(40), next(4), i)).collect();
            let mut stable = items.clone();
            stable.sort_by_key(|a| (a.0, a.1));
            // In a second list and in place alike.
            for copy_bytes in [usize::MAX, 0] {
                let mut by_bucket = items.clone();
                sort_by_bucket_copying_up_to(
                    &mut by_bucket,
                    copy_bytes,
                    |i| i.0,
                    |a, b| a.1.cmp(&b.1),
                );
                assert_eq!(
                    by_bucket, stable,
                    "{len} items, copied up to {copy_bytes} bytes"
                );
            }
        }
    }

    #[test]
    fn strings_in_one_buffer_keep_their_ids_through_storing() {
        let mut strings = Strings::from_all(&["", "a", "bc", "a", "é"]);
        assert_eq!(strings.lookup("a"), Some(Sym(1)));
        assert_eq!(strings.get(Sym(3)), "a");
        assert_eq!(strings.get(Sym(4)), "é");
        assert_eq!(strings.get(Sym(99)), "");
        assert_eq!(strings.intern("bc"), Sym(2));
        assert_eq!(strings.intern("d"), Sym(5));
        strings.shrink_to_fit();
        let stored: Vec<&str> = strings.iter().collect();
        assert_eq!(stored, ["", "a", "bc", "a", "é", "d"]);
        assert_eq!(Strings::from_all(&stored).lookup("d"), Some(Sym(5)));
    }

    #[test]
    fn adjacency_in_both_directions_and_dedup_keeps_best() {
        let mut b = GraphBuilder::new("t");
        let a = b.add_node(node(NodeKind::Function, "x.py", "a"));
        let c = b.add_node(node(NodeKind::Function, "x.py", "c"));
        let d = b.add_node(node(NodeKind::Function, "x.py", "d"));
        b.add_edge(a, c, EdgeKind::Calls, 0.5, Reason::UniqueGlobal);
        b.add_edge(a, c, EdgeKind::Calls, 0.9, Reason::SameFile);
        b.add_edge(a, d, EdgeKind::Calls, 0.9, Reason::SameFile);
        b.add_edge(d, c, EdgeKind::Calls, 0.9, Reason::SameFile);
        let g = b.build();
        assert_eq!(g.edge_count(), 3);
        let out: Vec<u32> = g.outgoing(a).map(|e| e.to).collect();
        assert_eq!(out, [c, d]);
        let callers: Vec<(u32, f32)> = g.incoming(c).map(|e| (e.from, e.confidence)).collect();
        assert_eq!(callers, [(a, 0.9), (d, 0.9)]);
        assert_eq!(g.outgoing(99).count(), 0);
    }

    #[test]
    fn a_reopened_graph_grows_by_exactly_the_room_reserved() {
        let mut b = GraphBuilder::new("t");
        let a = b.add_node(node(NodeKind::Function, "x.py", "a"));
        let c = b.add_node(node(NodeKind::Function, "x.py", "c"));
        b.add_edge(a, c, EdgeKind::Calls, 0.9, Reason::SameFile);
        let mut b = GraphBuilder::extend(b.build());
        b.reserve_exact(1, 2, 2, "group".len() + "2 symbols".len());
        let group = b.add_node(NewNode {
            kind: NodeKind::Community,
            name: "group",
            qualified: "group",
            file: "",
            start_line: 0,
            end_line: 0,
            signature: "",
            doc: "2 symbols",
            exported: true,
        });
        b.add_edge(a, group, EdgeKind::MemberOf, 1.0, Reason::Community);
        b.add_edge(c, group, EdgeKind::MemberOf, 1.0, Reason::Community);
        let g = &b.graph;
        assert_eq!(g.nodes.capacity(), g.nodes.len());
        assert_eq!(g.edges.capacity(), g.edges.len());
        assert_eq!(g.strings.text.capacity(), g.strings.text.len());
        assert_eq!(g.strings.ends.capacity(), g.strings.ends.len());
        let mut g = b.build();
        let out: Vec<u32> = g.outgoing(a).map(|e| e.to).collect();
        assert_eq!(out, [c, group]);
        assert_eq!(g.incoming(group).count(), 2);
        assert_eq!(g.nodes_of_kind(NodeKind::Community), [group]);
        // Docs set on a built graph take the room reserved for them, no more.
        g.reserve_strings(1, "calls c".len());
        g.set_doc(a, "calls c");
        assert_eq!(g.strings.text.capacity(), g.strings.text.len());
        assert_eq!(g.node(a).unwrap().doc(), "calls c");
    }

    #[test]
    fn lookups_by_name_file_and_kind() {
        let mut b = GraphBuilder::new("t");
        let file = b.add_node(node(NodeKind::File, "x.py", "x.py"));
        let f = b.add_node(node(NodeKind::Function, "x.py", "run"));
        let m = b.add_node(node(NodeKind::Method, "y.py", "A.run"));
        let g = b.build();
        assert_eq!(g.nodes_named("run"), [f, m]);
        assert_eq!(g.nodes_named("missing"), [] as [u32; 0]);
        assert_eq!(g.nodes_in_file("x.py"), [file, f]);
        assert_eq!(g.nodes_of_kind(NodeKind::Method), [m]);
        assert_eq!(g.nodes_of_kind(NodeKind::Class), [] as [u32; 0]);
    }
}
