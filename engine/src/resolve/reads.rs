//! What resolving one file's calls and references reads, recorded as it happens: other files
//! (their facts, their definitions' contents, tables keyed by them), names looked up project-wide
//! and the module index. The recording tables shadow the lookups of the maps they wrap.

use std::cell::{Cell, RefCell};
use std::hash::Hash;
use std::ops::{Deref, DerefMut, Index};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::facts::FileFacts;

/// The key of a name looked up project-wide (`globals`, `methods`).
pub(super) fn name_key(name: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(name.as_bytes(), 0x6e61_6d65)
}

/// The key of a file, by its path.
pub(super) fn path_key(path: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(path.as_bytes())
}

/// The key read by any lookup in the module index (which maps module names to files).
pub(super) const MODULES_KEY: u64 = 0x6d6f_6475_6c65_7321;

/// What the file being resolved has read so far, each key once (a C file reads its include
/// closure at every call site: kept raw, one kernel file's reads outgrew wasm32's 4 GB);
/// nothing is recorded while no file is.
#[derive(Debug, Default)]
pub(super) struct Reads {
    active: Cell<bool>,
    files: RefCell<HashSet<u32>>,
    nodes: RefCell<HashSet<u32>>,
    names: RefCell<HashSet<u64>>,
    modules: Cell<bool>,
    /// The file whose whole include closure is recorded already (`files_once`).
    closure_of: Cell<Option<usize>>,
}

/// One file's reads, taken when its resolution ends.
#[derive(Debug, Default)]
pub(super) struct Taken {
    pub files: HashSet<u32>,
    pub nodes: HashSet<u32>,
    pub names: HashSet<u64>,
    pub modules: bool,
}

impl Reads {
    /// Starts recording for a file.
    pub fn start(&self) {
        self.files.borrow_mut().clear();
        self.nodes.borrow_mut().clear();
        self.names.borrow_mut().clear();
        self.modules.set(false);
        self.closure_of.set(None);
        self.active.set(true);
    }

    /// Stops recording and gives what was read.
    pub fn stop(&self) -> Taken {
        self.active.set(false);
        Taken {
            files: std::mem::take(&mut *self.files.borrow_mut()),
            nodes: std::mem::take(&mut *self.nodes.borrow_mut()),
            names: std::mem::take(&mut *self.names.borrow_mut()),
            modules: self.modules.replace(false),
        }
    }

    pub fn file(&self, file: usize) {
        if self.active.get() {
            self.files.borrow_mut().insert(file as u32);
        }
    }

    /// Every file of `files`, the closure of file `of`: recorded at the first call for `of`
    /// while a file is recorded, at no cost after.
    pub fn files_once(&self, of: usize, files: &[usize]) {
        if self.active.get() && self.closure_of.get() != Some(of) {
            self.files
                .borrow_mut()
                .extend(files.iter().map(|&file| file as u32));
            self.closure_of.set(Some(of));
        }
    }

    /// A node's contents or a table keyed by it: the node's file is read.
    pub fn node(&self, node: u32) {
        if self.active.get() {
            self.nodes.borrow_mut().insert(node);
        }
    }

    pub fn name(&self, name: &str) {
        if self.active.get() {
            self.names.borrow_mut().insert(name_key(name));
        }
    }

    pub fn modules(&self) {
        if self.active.get() {
            self.modules.set(true);
        }
    }
}

/// Every file's facts; reading one records its file.
#[derive(Clone, Copy)]
pub(super) struct Facts<'a> {
    /// Every file, for building the tables (nothing is recorded then).
    pub all: &'a [FileFacts],
    reads: &'a Reads,
}

impl<'a> Facts<'a> {
    pub fn new(all: &'a [FileFacts], reads: &'a Reads) -> Self {
        Facts { all, reads }
    }

    pub fn get(&self, file: usize) -> Option<&'a FileFacts> {
        self.reads.file(file);
        self.all.get(file)
    }

    /// File `file`'s facts, for as long as the files live.
    pub fn at(&self, file: usize) -> &'a FileFacts {
        self.reads.file(file);
        &self.all[file]
    }

    pub fn len(&self) -> usize {
        self.all.len()
    }

    /// What records the reads (to record those of making a table, as of resolving a file).
    pub fn reads(&self) -> &'a Reads {
        self.reads
    }
}

impl Index<usize> for Facts<'_> {
    type Output = FileFacts;

    fn index(&self, file: usize) -> &FileFacts {
        self.reads.file(file);
        &self.all[file]
    }
}

/// A map keyed by graph node: a lookup records the node (its file).
pub(super) struct NodeMap<'r, V> {
    map: HashMap<u32, V>,
    reads: &'r Reads,
}

impl<'r, V> NodeMap<'r, V> {
    pub fn new(reads: &'r Reads) -> Self {
        NodeMap {
            map: HashMap::default(),
            reads,
        }
    }

    pub fn get(&self, node: &u32) -> Option<&V> {
        self.reads.node(*node);
        self.map.get(node)
    }

    /// The map itself, read without recording (to compare tables).
    pub fn raw(&self) -> &HashMap<u32, V> {
        &self.map
    }

    pub fn contains_key(&self, node: &u32) -> bool {
        self.reads.node(*node);
        self.map.contains_key(node)
    }
}

impl<V> Deref for NodeMap<'_, V> {
    type Target = HashMap<u32, V>;
    fn deref(&self) -> &Self::Target {
        &self.map
    }
}

impl<V> DerefMut for NodeMap<'_, V> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.map
    }
}

/// A set of graph nodes: asking records the node.
pub(super) struct NodeSet<'r> {
    set: HashSet<u32>,
    reads: &'r Reads,
}

impl<'r> NodeSet<'r> {
    pub fn new(reads: &'r Reads) -> Self {
        NodeSet {
            set: HashSet::default(),
            reads,
        }
    }

    /// The set itself, read without recording (to compare tables).
    pub fn raw(&self) -> &HashSet<u32> {
        &self.set
    }

    pub fn contains(&self, node: &u32) -> bool {
        self.reads.node(*node);
        self.set.contains(node)
    }
}

impl Deref for NodeSet<'_> {
    type Target = HashSet<u32>;
    fn deref(&self) -> &Self::Target {
        &self.set
    }
}

impl DerefMut for NodeSet<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.set
    }
}

/// A map keyed by a name looked up project-wide: a lookup records the name.
pub(super) struct NameMap<'r, K, V> {
    map: HashMap<K, V>,
    reads: &'r Reads,
}

impl<'r, K: Hash + Eq + std::borrow::Borrow<str>, V> NameMap<'r, K, V> {
    pub fn new(reads: &'r Reads) -> Self {
        NameMap {
            map: HashMap::default(),
            reads,
        }
    }

    pub fn get(&self, name: &str) -> Option<&V> {
        self.reads.name(name);
        self.map.get(name)
    }
}

impl<K, V> Deref for NameMap<'_, K, V> {
    type Target = HashMap<K, V>;
    fn deref(&self) -> &Self::Target {
        &self.map
    }
}

impl<K, V> DerefMut for NameMap<'_, K, V> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.map
    }
}

/// A table with one entry per file: reading an entry records the file.
pub(super) struct FileVec<'r, T> {
    items: Vec<T>,
    reads: &'r Reads,
}

impl<'r, T> FileVec<'r, T> {
    pub fn new(items: Vec<T>, reads: &'r Reads) -> Self {
        FileVec { items, reads }
    }

    /// The table itself, read without recording (to compare tables).
    pub fn raw(&self) -> &[T] {
        &self.items
    }

    /// The vector itself, given up.
    pub fn into_raw(self) -> Vec<T> {
        self.items
    }

    pub fn get(&self, file: usize) -> Option<&T> {
        self.reads.file(file);
        self.items.get(file)
    }
}

impl<T> Index<usize> for FileVec<'_, T> {
    type Output = T;
    fn index(&self, file: usize) -> &T {
        self.reads.file(file);
        &self.items[file]
    }
}

impl<T> std::ops::IndexMut<usize> for FileVec<'_, T> {
    fn index_mut(&mut self, file: usize) -> &mut T {
        &mut self.items[file]
    }
}

impl<T> Deref for FileVec<'_, T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Self::Target {
        &self.items
    }
}

impl<T> DerefMut for FileVec<'_, T> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.items
    }
}

/// A set of files: asking records the file.
pub(super) struct FileSet<'r> {
    set: HashSet<usize>,
    reads: &'r Reads,
}

impl<'r> FileSet<'r> {
    pub fn new(set: HashSet<usize>, reads: &'r Reads) -> Self {
        FileSet { set, reads }
    }

    /// The set itself, read without recording (to compare tables).
    pub fn raw(&self) -> &HashSet<usize> {
        &self.set
    }

    pub fn contains(&self, file: &usize) -> bool {
        self.reads.file(*file);
        self.set.contains(file)
    }

    /// The set, let go by the resolution (kept for the next one).
    pub fn into_raw(self) -> HashSet<usize> {
        self.set
    }
}
