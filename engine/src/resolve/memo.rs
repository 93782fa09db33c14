//! Incremental resolution: per file, what its calls and references read and the edges and
//! references they gave, kept between resolutions; a file whose reads changed is resolved again.
//!
//! A file's reads are keys: a file's path (its facts, its definitions' contents, the tables keyed
//! by it or by its nodes: scopes, imports, includes, members, bases, adoption), a name looked up
//! project-wide (`globals`, `methods`) and the module index. After a change, a key changed when
//! its file changed, when the tables keyed by its file differ (compared by stable node keys,
//! (path, definition index)), when the definitions of its name differ, or (module index) when
//! the files' paths or packages differ. Every edge a file gives records its target's file, so
//! kept edges only point into unchanged files, where (path, definition index) is stable.
//! What a resolution keeps has a budget ([`MEMO_BUDGET_BYTES`]): a project whose memo outgrows
//! it, or is projected to outgrow it well before it does, keeps none (no reads recorded from
//! then on), and its next change resolves every file.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::{Deserialize, Serialize};

use super::Resolver;
use super::reads::{MODULES_KEY, Taken, path_key};
use super::scope::Target;
use crate::graph::{EdgeKind, Reason, RefKind, Reference};

/// At most this many bytes of reads, calls and references are kept for the next resolution;
/// past it nothing is. The whole Linux kernel's memo (86 k files: every C file reads its include
/// closure) pushed resolution past wasm32's 4 GB in a tab; Django's (2.8 k files) adds ≈ 5 MB to
/// its snapshot.
pub(super) const MEMO_BUDGET_BYTES: usize = 192 << 20;

/// A memo is projected from the calls of the files seen so far once at least this share of the
/// files (1/n) has been seen, and of at least [`PROJECTION_MIN_FILES`] files.
const PROJECTION_SHARE: usize = 32;

/// The fewest files a projection is made from.
const PROJECTION_MIN_FILES: usize = 64;

/// A memo whose calls alone are projected to pass this many times its budget is let go at
/// once, rather than built to the budget and then let go (the references' part is not in the
/// projection, so it errs toward keeping).
const PROJECTION_MARGIN: usize = 2;

/// The definition index standing for a file's own node.
const FILE_NODE: u32 = u32::MAX;

/// A node by what stays the same across resolutions of unchanged files: its file's path key
/// and its definition's index there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct NodeKey {
    file: u64,
    def: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct KeptCall {
    from: NodeKey,
    to: NodeKey,
    confidence: f32,
    reason: Reason,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct KeptRef {
    from: NodeKey,
    to: NodeKey,
    line: u32,
    kind: RefKind,
    confidence: f32,
    reason: Reason,
}

/// One file's resolution: the keys it read (sorted), its CALLS edges and references in the
/// order they were made, and its counts.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct FileMemo {
    reads: Vec<u64>,
    calls: Vec<KeptCall>,
    refs: Vec<KeptRef>,
    call_sites: usize,
    calls_resolved: usize,
    /// Every edge's ends had a stable key (else the file is always resolved again).
    keepable: bool,
}

impl FileMemo {
    /// The heap bytes it holds.
    fn heap_bytes(&self) -> usize {
        self.reads.capacity() * size_of::<u64>()
            + self.calls.capacity() * size_of::<KeptCall>()
            + self.refs.capacity() * size_of::<KeptRef>()
    }
}

/// What a resolution keeps for the next one of the same project (also in a full snapshot, so a
/// restored project stays incremental).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ResolveMemo {
    /// By path key.
    files: HashMap<u64, FileMemo>,
    /// Per path key, a fingerprint of the tables keyed by the file or its nodes.
    tables: HashMap<u64, u64>,
    /// Per name key, a fingerprint of the project-wide definitions of the name.
    names: HashMap<u64, u64>,
    modules: u64,
    /// The graph builder's strings and each file's nodes (not in a snapshot: the first change
    /// after a restore interns every file's strings).
    #[serde(skip)]
    pub(super) carried: Option<super::carry::Carried>,
    /// The module index and test-file set (not in a snapshot: made again after a restore).
    #[serde(skip)]
    pub(super) modules_kept: Option<super::carry::KeptModules>,
    /// Every file's import scope (not in a snapshot: made again after a restore).
    #[serde(skip)]
    pub(super) scopes_kept: Option<super::scope::KeptScopes>,
}

/// This resolution's use of an earlier one, and what it keeps for the next.
#[derive(Debug, Default)]
pub(super) struct Plan {
    earlier: HashMap<u64, FileMemo>,
    /// Per file index: resolved again (else its earlier resolution is kept).
    dirty: Vec<bool>,
    path_keys: Vec<u64>,
    file_by_key: HashMap<u64, usize>,
    file_of_node: HashMap<u32, usize>,
    /// Per node id, its stable key's hash ([`Resolver::node_hash`]), made once for the plan's
    /// fingerprints (which hash most nodes, some many times) rather than looked up per use.
    node_hashes: Vec<u64>,
    next: Vec<FileMemo>,
    tables: HashMap<u64, u64>,
    names: HashMap<u64, u64>,
    modules: u64,
    /// How many files were resolved (not kept).
    pub resolved: usize,
    /// The bytes `next` may hold ([`MEMO_BUDGET_BYTES`] but in tests).
    budget: usize,
    /// The bytes `next` holds.
    pub kept_bytes: usize,
    /// `next` outgrew the budget: nothing is kept for the next resolution.
    pub over_budget: bool,
    /// The most bytes `next` held.
    pub most_bytes: usize,
    /// Files whose calls were resolved or kept so far.
    calls_seen: usize,
}

impl Plan {
    /// Counts a file's memo against the budget; past it, nothing is kept.
    fn count(&mut self, bytes: usize) {
        self.kept_bytes += bytes;
        self.most_bytes = self.most_bytes.max(self.kept_bytes);
        if self.kept_bytes > self.budget {
            self.go_over_budget();
        }
    }

    /// Counts one more file's calls (resolved or kept, with its memo's `bytes`); when enough
    /// files were seen, projects the calls' memo of every file from theirs and lets the memo go
    /// when the projection passes the budget by the margin.
    fn count_calls(&mut self, bytes: usize) {
        self.calls_seen += 1;
        self.count(bytes);
        let files = self.next.len();
        let sample = (files / PROJECTION_SHARE).max(PROJECTION_MIN_FILES);
        if self.calls_seen >= sample
            && self.kept_bytes.saturating_mul(files)
                > self
                    .budget
                    .saturating_mul(PROJECTION_MARGIN)
                    .saturating_mul(self.calls_seen)
        {
            self.go_over_budget();
        }
    }

    /// Nothing is kept from now on: drops what the files resolved so far keep (the kept files'
    /// earlier memos stay until their references are added back).
    fn go_over_budget(&mut self) {
        if self.over_budget {
            return;
        }
        self.over_budget = true;
        for (memo, _) in self.next.iter_mut().zip(&self.dirty).filter(|(_, d)| **d) {
            *memo = FileMemo::default();
        }
    }
}

fn mix(h: u64, x: u64) -> u64 {
    (h.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95)
}

/// Whether the sorted `reads` hold any of `changed` (`sorted`: the same keys, sorted): the
/// few changed keys looked up in the reads when they are few, else each read in the keys.
fn intersect(reads: &[u64], sorted: &[u64], changed: &HashSet<u64>) -> bool {
    if sorted
        .len()
        .saturating_mul(reads.len().max(1).ilog2() as usize + 1)
        < reads.len()
    {
        sorted.iter().any(|k| reads.binary_search(k).is_ok())
    } else {
        reads.iter().any(|k| changed.contains(k))
    }
}

fn str_hash(s: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(s.as_bytes())
}

impl<'a> Resolver<'a> {
    /// Decides which files to resolve again, from an earlier resolution of these files before
    /// the `changed` paths changed (`None`: every file). Called once the tables are built.
    /// The memo kept for the next resolution holds at most `budget` bytes (else none).
    pub(super) fn plan(&mut self, earlier: Option<ResolveMemo>, changed: &[String], budget: usize) {
        let n = self.files.len();
        let mut plan = Plan {
            path_keys: self.files.all.iter().map(|f| path_key(&f.path)).collect(),
            next: vec![FileMemo::default(); n],
            budget,
            ..Plan::default()
        };
        plan.file_by_key = plan
            .path_keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, i))
            .collect();
        plan.file_of_node = self
            .file_node
            .iter()
            .enumerate()
            .map(|(i, &node)| (node, i))
            .collect();
        self.plan = plan;
        self.plan.node_hashes = self.node_hashes();
        let nodes = self.node_tables_fingerprints();
        let tables: HashMap<u64, u64> = (0..n)
            .map(|fi| (self.plan.path_keys[fi], self.tables_fingerprint(fi, &nodes)))
            .collect();
        let names = self.names_fingerprints();
        let modules = self.modules_fingerprint();
        self.plan.dirty = match earlier {
            None => vec![true; n],
            Some(earlier) => {
                let mut keys: HashSet<u64> = changed.iter().map(|p| path_key(p)).collect();
                let differ =
                    |new: &HashMap<u64, u64>, old: &HashMap<u64, u64>, keys: &mut HashSet<u64>| {
                        keys.extend(
                            new.iter()
                                .filter(|(k, v)| old.get(k) != Some(v))
                                .map(|(k, _)| *k),
                        );
                        keys.extend(old.keys().filter(|k| !new.contains_key(k)));
                    };
                differ(&tables, &earlier.tables, &mut keys);
                differ(&names, &earlier.names, &mut keys);
                if modules != earlier.modules {
                    keys.insert(MODULES_KEY);
                }
                self.plan.earlier = earlier.files;
                let plan = &self.plan;
                let mut sorted: Vec<u64> = keys.iter().copied().collect();
                sorted.sort_unstable();
                (0..n)
                    .map(|fi| {
                        let own = plan.path_keys[fi];
                        keys.contains(&own)
                            || plan
                                .earlier
                                .get(&own)
                                .is_none_or(|m| !m.keepable || intersect(&m.reads, &sorted, &keys))
                    })
                    .collect()
            }
        };
        self.plan.resolved = self.plan.dirty.iter().filter(|&&d| d).count();
        self.plan.node_hashes = Vec::new();
        self.plan.tables = tables;
        self.plan.names = names;
        self.plan.modules = modules;
    }

    /// Whether file `fi`'s calls and references are resolved again.
    pub(super) fn is_dirty(&self, fi: usize) -> bool {
        self.plan.dirty.get(fi).copied().unwrap_or(true)
    }

    fn node_key(&self, node: u32) -> Option<NodeKey> {
        let (file, def) = match self.node_def.get(&node) {
            Some(&(file, def)) => (file, def),
            None => (*self.plan.file_of_node.get(&node)?, FILE_NODE),
        };
        Some(NodeKey {
            file: *self.plan.path_keys.get(file)?,
            def,
        })
    }

    fn node_of(&self, key: NodeKey) -> Option<u32> {
        let &file = self.plan.file_by_key.get(&key.file)?;
        if key.def == FILE_NODE {
            self.file_node.get(file).copied()
        } else {
            self.def_node.get(file)?.get(key.def as usize).copied()
        }
    }

    /// A kept reference between today's nodes, if both ends still exist.
    fn reference_of(&self, r: &KeptRef) -> Option<Reference> {
        Some(Reference {
            from: self.node_of(r.from)?,
            to: self.node_of(r.to)?,
            line: r.line,
            kind: r.kind,
            confidence: r.confidence,
            reason: r.reason,
        })
    }

    /// Adds the CALLS edges an earlier resolution of file `fi` gave, when it is kept and every
    /// edge still maps to nodes; `false` when the file is to be resolved.
    pub(super) fn keep_calls(&mut self, fi: usize) -> bool {
        if self.is_dirty(fi) {
            return false;
        }
        let Some(&key) = self.plan.path_keys.get(fi) else {
            return false;
        };
        let Some(memo) = self.plan.earlier.remove(&key) else {
            return false;
        };
        let edges: Option<Vec<(u32, u32, f32, Reason)>> = memo
            .calls
            .iter()
            .map(|c| {
                Some((
                    self.node_of(c.from)?,
                    self.node_of(c.to)?,
                    c.confidence,
                    c.reason,
                ))
            })
            .collect();
        let refs: Option<Vec<Reference>> = memo.refs.iter().map(|r| self.reference_of(r)).collect();
        let (Some(edges), Some(_)) = (edges, refs) else {
            self.plan.dirty[fi] = true;
            self.plan.resolved += 1;
            return false;
        };
        for (from, to, confidence, reason) in edges {
            self.b
                .add_edge(from, to, EdgeKind::Calls, confidence, reason);
        }
        self.stats.call_sites += memo.call_sites;
        self.stats.calls_resolved += memo.calls_resolved;
        self.plan.count_calls(memo.heap_bytes());
        self.plan.next[fi] = memo;
        true
    }

    /// Adds the references an earlier resolution of file `fi` gave, when its calls were kept.
    pub(super) fn keep_refs(&mut self, fi: usize) -> bool {
        if self.is_dirty(fi) {
            return false;
        }
        let refs: Vec<Reference> = self.plan.next[fi]
            .refs
            .iter()
            .filter_map(|r| self.reference_of(r))
            .collect();
        refs.into_iter().for_each(|r| self.b.add_reference(r));
        true
    }

    /// Starts resolving one file: per-file caches emptied, variables' tables let go past their
    /// budget, reads recorded (while the memo is within its budget).
    pub(super) fn begin_file(&mut self) {
        self.vars.forget_if_over_budget();
        self.variable_types.borrow_mut().clear();
        self.alias_types.borrow_mut().clear();
        self.unions.borrow_mut().clear();
        if !self.plan.over_budget {
            self.reads.start();
        }
    }

    /// The distinct keys of what one file's resolution read, sorted: every file's keys wait in
    /// the plan from its calls until its references, so they are kept as small as they go.
    fn read_keys(&self, taken: Taken) -> Vec<u64> {
        let mut keys: Vec<u64> = taken
            .files
            .iter()
            .filter_map(|&f| self.plan.path_keys.get(f as usize).copied())
            .chain(
                taken
                    .nodes
                    .iter()
                    .filter_map(|&n| self.node_key(n).map(|k| k.file)),
            )
            .chain(taken.names)
            .collect();
        if taken.modules {
            keys.push(MODULES_KEY);
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// Ends resolving file `fi`'s calls: what they read and gave, for the next resolution.
    pub(super) fn end_calls(
        &mut self,
        fi: usize,
        made: &[(u32, u32, f32, Reason)],
        call_sites: usize,
        calls_resolved: usize,
    ) {
        let taken = self.reads.stop();
        if self.plan.over_budget {
            return;
        }
        let reads = self.read_keys(taken);
        let calls: Option<Vec<KeptCall>> = made
            .iter()
            .map(|&(from, to, confidence, reason)| {
                Some(KeptCall {
                    from: self.node_key(from)?,
                    to: self.node_key(to)?,
                    confidence,
                    reason,
                })
            })
            .collect();
        let memo = FileMemo {
            reads,
            keepable: calls.is_some(),
            calls: calls.unwrap_or_default(),
            refs: Vec::new(),
            call_sites,
            calls_resolved,
        };
        let bytes = memo.heap_bytes();
        if let Some(slot) = self.plan.next.get_mut(fi) {
            *slot = memo;
            self.plan.count_calls(bytes);
        }
    }

    /// Ends resolving file `fi`'s references.
    pub(super) fn end_refs(&mut self, fi: usize, made: &[Reference]) {
        let taken = self.reads.stop();
        if self.plan.over_budget {
            return;
        }
        let reads = self.read_keys(taken);
        let refs: Option<Vec<KeptRef>> = made
            .iter()
            .map(|r| {
                Some(KeptRef {
                    from: self.node_key(r.from)?,
                    to: self.node_key(r.to)?,
                    line: r.line,
                    kind: r.kind,
                    confidence: r.confidence,
                    reason: r.reason,
                })
            })
            .collect();
        let Some(memo) = self.plan.next.get_mut(fi) else {
            return;
        };
        let before = memo.heap_bytes();
        memo.reads.extend(reads);
        memo.reads.sort_unstable();
        memo.reads.dedup();
        memo.keepable &= refs.is_some();
        memo.refs = refs.unwrap_or_default();
        let grown = memo.heap_bytes().saturating_sub(before);
        self.plan.count(grown);
    }

    /// What this resolution keeps for the next: nothing when it outgrew its budget (the next
    /// resolves every file).
    pub(super) fn memo(&mut self) -> ResolveMemo {
        let plan = std::mem::take(&mut self.plan);
        if plan.over_budget {
            return ResolveMemo::default();
        }
        ResolveMemo {
            files: plan.path_keys.into_iter().zip(plan.next).collect(),
            tables: plan.tables,
            names: plan.names,
            modules: plan.modules,
            carried: None,
            modules_kept: None,
            scopes_kept: None,
        }
    }

    /// A hash of `node`'s stable key (`u64::MAX` when it has none).
    fn node_hash(&self, node: u32) -> u64 {
        match self.plan.node_hashes.get(node as usize) {
            Some(&h) => h,
            None => self.key_hash(node),
        }
    }

    fn key_hash(&self, node: u32) -> u64 {
        self.node_key(node)
            .map_or(u64::MAX, |k| mix(k.file, u64::from(k.def)))
    }

    /// [`Resolver::node_hash`] of every node the files define (their own and their
    /// definitions'), by node id.
    fn node_hashes(&self) -> Vec<u64> {
        let nodes = self
            .file_node
            .iter()
            .chain(self.def_node.iter().flatten())
            .map(|&n| n as usize + 1)
            .max()
            .unwrap_or(0)
            .max(self.node_def.0.len());
        (0..nodes as u32).map(|n| self.key_hash(n)).collect()
    }

    fn file_hash(&self, file: usize) -> u64 {
        self.plan.path_keys.get(file).copied().unwrap_or(u64::MAX)
    }

    fn target_hash(&self, target: &Target) -> u64 {
        match target {
            Target::Node(n) => mix(1, self.node_hash(*n)),
            Target::Module(f) => mix(2, self.file_hash(*f)),
            Target::Package(files) => files.iter().fold(3, |h, &f| mix(h, self.file_hash(f))),
        }
    }

    /// The tables keyed by file `fi` or by its nodes, by stable keys: import scopes, imported
    /// files, import targets, includes, test status, and (`nodes`, per file: from
    /// [`Resolver::node_tables_fingerprints`]) its nodes' members, bases, Ruby subtypes,
    /// companions, adoption and overloads.
    fn tables_fingerprint(&self, fi: usize, nodes: &[u64]) -> u64 {
        let unordered =
            |items: &mut dyn Iterator<Item = u64>| items.fold(0u64, |h, x| h ^ mix(7, x));
        let mut h = mix(0, self.test_files.raw().contains(&fi) as u64);
        h = mix(
            h,
            unordered(
                &mut self
                    .imported
                    .raw()
                    .get(fi)
                    .into_iter()
                    .flatten()
                    .map(|&f| self.file_hash(f)),
            ),
        );
        h = mix(
            h,
            unordered(
                &mut self
                    .imported_whole
                    .raw()
                    .get(fi)
                    .into_iter()
                    .flatten()
                    .map(|&f| self.file_hash(f)),
            ),
        );
        for targets in self.import_targets.raw().get(fi).into_iter().flatten() {
            h = mix(
                h,
                targets.iter().fold(11, |h, &f| mix(h, self.file_hash(f))),
            );
        }
        for &f in self.c_include_closure(fi).iter().flat_map(|c| c.iter()) {
            h = mix(h, self.file_hash(f));
        }
        if let Some(bindings) = self.scopes.bindings_of(fi) {
            h = mix(
                h,
                unordered(
                    &mut bindings
                        .iter()
                        .map(|(name, t)| mix(str_hash(name), self.target_hash(t))),
                ),
            );
        }
        mix(h, nodes.get(fi).copied().unwrap_or(0))
    }

    /// Per file, the tables keyed by its definitions' nodes: members, bases, Ruby subtypes,
    /// prepended modules and parameters typed by callers, Zig parameters typed by callers,
    /// companions, adoption and overloads.
    /// Each table is walked once (most nodes are in none of them: looked up per node, the
    /// lookups were most of the plan); each entry is hashed with its table and its node's stable
    /// key, and a file's entries combined in any order.
    fn node_tables_fingerprints(&self) -> Vec<u64> {
        let mut out = vec![0u64; self.files.len()];
        let unordered =
            |items: &mut dyn Iterator<Item = u64>| items.fold(0u64, |h, x| h ^ mix(7, x));
        let mut add = |node: u32, salt: u64, value: u64| {
            if let Some(&(file, _)) = self.node_def.get(&node)
                && let Some(h) = out.get_mut(file)
            {
                *h ^= mix(mix(mix(salt, self.node_hash(node)), value), 7);
            }
        };
        for (&node, members) in self.members.raw() {
            let value = unordered(
                &mut members
                    .iter()
                    .map(|(name, &m)| mix(str_hash(name), self.node_hash(m))),
            );
            add(node, 11, value);
        }
        for (&node, bases) in self.bases.raw() {
            add(
                node,
                13,
                bases.iter().fold(13, |h, &b| mix(h, self.node_hash(b))),
            );
        }
        for (&node, subtypes) in self.ruby_subtypes.raw() {
            add(
                node,
                41,
                unordered(&mut subtypes.iter().map(|&s| self.node_hash(s))),
            );
        }
        for (&node, params) in self.ruby_param_types.raw() {
            add(
                node,
                47,
                params.iter().fold(47, |h, (name, t)| {
                    mix(h, mix(str_hash(name), self.node_hash(*t)))
                }),
            );
        }
        for (&node, params) in self.zig_param_types.raw() {
            add(
                node,
                53,
                params.iter().fold(53, |h, (name, types, whole)| {
                    let types = types
                        .iter()
                        .fold(*whole as u64, |h, &t| mix(h, self.node_hash(t)));
                    mix(h, mix(str_hash(name), types))
                }),
            );
        }
        for (&node, prepended) in self.ruby_prepended.raw() {
            add(
                node,
                43,
                prepended.iter().fold(43, |h, &p| mix(h, self.node_hash(p))),
            );
        }
        for (&node, &c) in self.companions.raw() {
            add(node, 17, self.node_hash(c));
        }
        for (&node, &t) in self.adopted.raw() {
            add(node, 19, self.node_hash(t));
        }
        for &node in self.cpp_overloads.raw() {
            add(node, 23, 23);
        }
        out
    }

    /// Per name, its project-wide definitions (`globals`, `methods`, C#'s `extensions`) by
    /// stable keys, and PHP's spellings of it by its lowercase.
    fn names_fingerprints(&self) -> HashMap<u64, u64> {
        // Sized for the largest table at once (grown step by step, its rehashes were a share of
        // every change's plan); names in several tables are one entry, so it grows once at most.
        let mut out: HashMap<u64, u64> = HashMap::with_capacity_and_hasher(
            self.globals.len().max(self.methods.len()),
            Default::default(),
        );
        for (salt, table) in [
            (29, &*self.globals),
            (31, &*self.methods),
            (37, &*self.extensions),
        ] {
            for (name, nodes) in table {
                let h = nodes.iter().fold(salt, |h, &n| mix(h, self.node_hash(n)));
                *out.entry(super::reads::name_key(name)).or_default() ^= h;
            }
        }
        for (lowercase, spellings) in self.php_spellings.iter() {
            let h = spellings.iter().fold(41, |h, s| mix(h, str_hash(s)));
            *out.entry(super::reads::name_key(lowercase)).or_default() ^= h;
        }
        out
    }

    /// What the module index is built from: every file's path, language, package and module
    /// paths; and the imports that hold project-wide (C#'s `global using`), which every lookup
    /// through a file's imports reads with the module index.
    fn modules_fingerprint(&self) -> u64 {
        self.files.all.iter().fold(0, |mut h, f| {
            h = mix(h, str_hash(&f.path));
            h = mix(h, f.lang as u64);
            h = mix(h, f.package.as_deref().map_or(1, str_hash));
            for (name, path, line) in &f.module_paths {
                h = mix(h, str_hash(name));
                h = mix(h, str_hash(path));
                h = mix(h, u64::from(f.in_test_code(*line)));
            }
            for import in f
                .global_imports
                .iter()
                .filter_map(|&at| f.imports.get(at as usize))
            {
                h = mix(h, str_hash(&import.module));
                h = mix(h, u64::from(import.wildcard));
            }
            h
        })
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::{FileMemo, ResolveMemo, intersect};
    use crate::facts::FileFacts;
    use crate::graph::Graph;
    use crate::ingest::{parse_files, source_files};
    use crate::lang::Lang;
    use crate::resolve::{build_graph_kept, build_graph_within};

    fn c_facts(files: &[(&str, &str)]) -> Vec<FileFacts> {
        let batch = source_files(files)
            .into_iter()
            .map(|f| (Lang::C, f))
            .collect();
        parse_files(batch).into_iter().map(|p| p.facts).collect()
    }

    /// Every edge and reference as (from, to, kind), by stable ids.
    fn edges(g: &Graph) -> Vec<(String, String, String)> {
        let id = |n: u32| g.node(n).map(|n| n.stable_id()).unwrap_or_default();
        let mut out: Vec<_> = g
            .edges()
            .iter()
            .map(|e| (id(e.from), id(e.to), format!("{:?}", e.kind)))
            .chain(
                g.references()
                    .iter()
                    .map(|r| (id(r.from), id(r.to), format!("{:?}", r.kind))),
            )
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_project_over_the_memo_budget_keeps_none_and_its_next_change_resolves_every_file() {
        let header = ("util.h", "int helper(int x);\nint other(int x);\n");
        let util = (
            "util.c",
            "#include \"util.h\"\nint helper(int x) { return x; }\nint other(int x) { return helper(x); }\n",
        );
        let before = c_facts(&[
            header,
            util,
            (
                "main.c",
                "#include \"util.h\"\nint main(void) { return helper(1); }\n",
            ),
        ]);
        // Within the budget a memo is kept; over it (a budget of one byte) none is.
        let (_, stats, kept, ..) = build_graph_kept("fixture", &before, None, &[], &|| 0.0);
        assert!(!stats.memo_over_budget && !kept.files.is_empty());
        let (full, stats, memo, resolved, ..) =
            build_graph_within("fixture", &before, None, &[], 1, &|| 0.0);
        assert!(stats.memo_over_budget && memo.files.is_empty() && memo.tables.is_empty());
        assert!(kept.carried.is_some() && memo.carried.is_none());
        assert_eq!(resolved, 3);
        assert_eq!(
            edges(&full),
            edges(&build_graph_kept("fixture", &before, None, &[], &|| 0.0).0)
        );
        // A change after it: every file resolved again, the graph a full index of it gives.
        let after = c_facts(&[
            header,
            util,
            (
                "main.c",
                "#include \"util.h\"\nint main(void) { return other(helper(1)); }\n",
            ),
        ]);
        let changed = ["main.c".to_owned()];
        let (graph, stats, _, resolved, ..) =
            build_graph_within("fixture", &after, Some(memo), &changed, 1, &|| 0.0);
        assert!(stats.memo_over_budget);
        assert_eq!(resolved, 3);
        let (fresh, ..) = build_graph_kept("fixture", &after, None, &[], &|| 0.0);
        assert_eq!(edges(&graph), edges(&fresh));
        assert!(
            edges(&graph)
                .iter()
                .any(|(from, to, _)| from.contains("main") && to.contains("other"))
        );
    }

    /// `n` C files calling into one header's functions: the first `heavy` call two of them,
    /// the others one.
    fn many_callers(n: usize, heavy: usize) -> Vec<FileFacts> {
        let mut files = vec![
            (
                "util.h".to_owned(),
                "int helper(int x);\nint other(int x);\n".to_owned(),
            ),
            (
                "util.c".to_owned(),
                "#include \"util.h\"\nint helper(int x) { return x; }\nint other(int x) { return x; }\n"
                    .to_owned(),
            ),
        ];
        files.extend((0..n).map(|i| {
            let body = if i < heavy {
                "helper(1) + other(2)"
            } else {
                "helper(1)"
            };
            (
                format!("caller{i:04}.c"),
                format!("#include \"util.h\"\nint caller{i}(void) {{ return {body}; }}\n"),
            )
        }));
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        c_facts(&refs)
    }

    /// The bytes a memo holds.
    fn memo_bytes(memo: &ResolveMemo) -> usize {
        memo.files.values().map(FileMemo::heap_bytes).sum()
    }

    #[test]
    fn a_project_whose_memo_fits_keeps_it_however_close_to_the_budget_and_heavy_its_first_files() {
        for heavy in [0, 320] {
            let facts = many_callers(640, heavy);
            let (_, stats, unbounded, ..) =
                build_graph_within("fixture", &facts, None, &[], usize::MAX, &|| 0.0);
            let bytes = memo_bytes(&unbounded);
            assert!(!stats.memo_over_budget && bytes > 0);
            assert_eq!(stats.memo_most_bytes, bytes);
            // A budget of exactly what it keeps: kept, file for file.
            let (_, stats, memo, ..) =
                build_graph_within("fixture", &facts, None, &[], bytes, &|| 0.0);
            assert!(!stats.memo_over_budget, "{heavy} heavy files");
            assert_eq!(memo.files.len(), unbounded.files.len());
            assert_eq!(memo_bytes(&memo), bytes);
            // Its strings and nodes are not carried beside it: they would pass the budget.
            assert!(unbounded.carried.is_some() && memo.carried.is_none());
            for (key, kept) in &memo.files {
                let other = &unbounded.files[key];
                assert_eq!(kept.reads, other.reads);
                assert_eq!(kept.calls.len(), other.calls.len());
                assert_eq!(kept.refs.len(), other.refs.len());
            }
            // One byte less: over it, none kept.
            let (_, stats, memo, ..) =
                build_graph_within("fixture", &facts, None, &[], bytes - 1, &|| 0.0);
            assert!(stats.memo_over_budget && memo.files.is_empty());
        }
    }

    #[test]
    fn a_memo_projected_far_past_its_budget_is_let_go_before_it_reaches_it() {
        let facts = many_callers(640, 0);
        let (full, _, unbounded, ..) =
            build_graph_within("fixture", &facts, None, &[], usize::MAX, &|| 0.0);
        let budget = memo_bytes(&unbounded) / 8;
        let (graph, stats, memo, resolved, ..) =
            build_graph_within("fixture", &facts, None, &[], budget, &|| 0.0);
        assert!(stats.memo_over_budget && memo.files.is_empty());
        assert!(
            stats.memo_most_bytes < budget,
            "let go at {} of {budget} bytes",
            stats.memo_most_bytes
        );
        assert_eq!(resolved, facts.len());
        assert_eq!(edges(&graph), edges(&full));
    }

    #[test]
    fn a_files_kept_reads_are_distinct_keys_however_often_it_reads_one() {
        // Two hundred functions calling one (a C function's repeated call is kept once).
        let callers: String = (0..200)
            .map(|i| format!("int f{i}(void) {{ return helper({i}); }}\n"))
            .collect();
        let main = format!("#include \"util.h\"\n{callers}");
        let files = source_files(&[
            ("util.h", "int helper(int x);\n"),
            (
                "util.c",
                "#include \"util.h\"\nint helper(int x) { return x; }\n",
            ),
            ("main.c", &main),
        ]);
        let batch = files.into_iter().map(|f| (Lang::C, f)).collect();
        let facts: Vec<_> = parse_files(batch).into_iter().map(|p| p.facts).collect();
        let (_, stats, memo, ..) = build_graph_kept("fixture", &facts, None, &[], &|| 0.0);
        assert!(stats.calls_resolved >= 200, "{stats:?}");
        for (file, kept) in &memo.files {
            assert!(
                kept.reads.windows(2).all(|w| w[0] < w[1]),
                "file {file:x}: reads not sorted and distinct: {:?}",
                kept.reads
            );
            assert!(kept.reads.len() < 20, "file {file:x}: {:?}", kept.reads);
        }
    }

    #[test]
    fn reads_meet_the_changed_keys_whichever_side_is_searched() {
        let reads: Vec<u64> = (0..1000).map(|k| k * 3).collect();
        for changed in [
            vec![],
            vec![1],
            vec![2997],
            vec![4, 7, 2998],
            vec![5, 300],
            (0..500).map(|k| k * 3 + 1).collect(),
            (0..500).map(|k| k * 5).collect(),
        ] {
            let set = changed.iter().copied().collect();
            let mut sorted = changed.clone();
            sorted.sort_unstable();
            let expected = changed.iter().any(|k| reads.contains(k));
            assert_eq!(intersect(&reads, &sorted, &set), expected, "{changed:?}");
            assert_eq!(intersect(&reads[..1], &sorted, &set), changed.contains(&0));
            assert!(!intersect(&[], &sorted, &set));
        }
    }
}
