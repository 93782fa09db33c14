//! Resolution: turns every file's facts into one graph — folders, files, symbols, imports,
//! heritage and calls — giving each edge a confidence and a reason. Unresolvable calls get no edge.
//! One `Resolver`, its jobs as `impl` blocks: `definitions` (the index of definitions), `infer`
//! (receiver types), `calls` (call resolution), with `builtins` (built-in names) beside them.

mod builtins;
mod calls;
mod carry;
mod dart;
mod definitions;
mod infer;
mod kotlin;
mod memo;
mod modules;
mod reads;
mod references;
mod scala;
mod scope;
mod vars;
mod zig;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use self::carry::{Carried, KeptModules};
pub use self::memo::ResolveMemo;
use self::modules::ModuleIndex;
use self::reads::{Facts, FileSet, FileVec, NameMap, NodeMap, NodeSet, Reads};
use self::scope::{KeptScopes, Scopes};
use self::vars::VarIndex;
use super::facts::{Callee, FileFacts, Receiver};
use super::graph::{Graph, GraphBuilder, NodeKind};
use super::ingest::Clock;
use super::lang::Lang;

/// Confidence of each kind of call resolution: the share of such edges a type checker confirms,
/// measured with `scripts/accuracy.sh` over its corpora (Python, TypeScript, Rust and Go; decided
/// edges pooled per band), so that a confidence reads as a probability.
pub mod confidence {
    /// Measured 0.9999: a nested definition or a method of the caller's own class.
    pub const LOCAL: f32 = 0.98;
    pub const SELF_METHOD: f32 = 0.98;
    /// Measured 0.999: an import, a definition in the same file, a receiver of a known type.
    pub const IMPORT: f32 = 0.97;
    pub const SAME_FILE: f32 = 0.97;
    pub const RECEIVER_TYPE: f32 = 0.97;
    /// Measured 0.997 (with the unique global name): a type found through an attribute, a
    /// return type or a base class.
    pub const INHERITED: f32 = 0.95;
    pub const ATTRIBUTE_TYPE: f32 = 0.95;
    /// A Ruby parameter of the one class every call reaching its method passes.
    pub const PARAMETER_FROM_CALLERS: f32 = 0.95;
    pub const RETURN_TYPE: f32 = 0.95;
    /// A call result's type is trusted only when the call itself resolved at least this surely:
    /// a unique global name is, an imported candidate and the ambiguous bands are not.
    pub const SURE: f32 = 0.92;
    /// The only definition of the name project-wide (in the 0.95 band above).
    pub const UNIQUE_GLOBAL: f32 = 0.95;
    /// Measured 0.944 (0.949 Python and TypeScript, 0.933 Rust): of several, the only one in the
    /// caller's file or a file it imports.
    pub const IMPORTED_CANDIDATE: f32 = 0.9;
    /// Measured 0.505: one of exactly two candidates, or a Rust method of the caller's own type
    /// called on another value (kept below `FOLLOWED_CONFIDENCE`: a candidate, not a call tools
    /// follow).
    pub const AMBIGUOUS_PAIR: f32 = 0.48;
    /// Measured 0.329: one of three candidates.
    pub const AMBIGUOUS: f32 = 0.3;
    /// Measured 0.11 on Zig's standard library: one of three candidates for a Zig name (what
    /// scope, imports and types left unexplained there is mostly a duck-typed `anytype` or a
    /// declaration chosen at compile time).
    pub const ZIG_AMBIGUOUS: f32 = 0.11;
    /// A Ruby method found by its name alone, one of exactly two candidates or the only one near
    /// the caller for a receiver of unknown type. Measured 0.70 against TypeProf (21 of 31 and 9
    /// of 12 decided, Thor, Mustermann, TTY::Prompt, Liquid and Addressable pooled), kept below
    /// `FOLLOWED_CONFIDENCE`: above it, its wrong edges would count among the followed ones
    /// (four of the five corpora would fall below 0.995 precision at 0.5).
    pub const RUBY_PAIR: f32 = 0.49;
    /// A Ruby method found by its name alone, one of three or more candidates. Measured 0.40
    /// against TypeProf (14 of 35 decided, the same corpora pooled).
    pub const RUBY_SEVERAL: f32 = 0.4;
}

/// How many calls deep a receiver's type is followed through return types (`a().b().c()`,
/// `x = f()` where `f` returns a variable holding `g()`'s result …).
const MAX_RETURN_DEPTH: u32 = 6;

/// Ids above graph node ids stand for unions of types (TypeScript `type A = B | C`): at most
/// this many unions, counted down from `u32::MAX`.
const UNION_IDS: u32 = 1 << 20;

/// Re-export chains longer than this are not followed to a type alias.
const MAX_ALIAS_HOPS: u32 = 5;

/// At most this many candidates are kept for an ambiguous name; more means no edge at all.
const MAX_AMBIGUOUS: usize = 3;

/// Among at most this many candidates for a name no scope explains, the only one defined in the
/// caller's file or a file it imports is taken (`imported-candidate`).
const MAX_NARROWED: usize = 8;

/// Counts from resolution, for stats and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResolveStats {
    pub call_sites: usize,
    pub calls_resolved: usize,
    pub imports: usize,
    pub imports_resolved: usize,
    /// What this resolution read and made outgrew the memo's budget (`memo::MEMO_BUDGET_BYTES`):
    /// nothing is kept, and the next change resolves every file.
    pub memo_over_budget: bool,
    /// The most bytes the memo held during this resolution (when over its budget, where it
    /// stopped).
    pub memo_most_bytes: usize,
    /// Files whose import scope was taken as the resolution before kept it (`scope::KeptScopes`).
    pub scopes_kept: usize,
}

/// The variables of one scope as (file, scope, line of the call being resolved when the
/// variable's bindings hold on some lines only, else 0); their names are the inner keys, so a
/// lookup allocates nothing.
type VariableKey = (usize, Option<u32>, u32);

/// A type found with its confidence, or `None` when it is unknown.
type FoundType = Option<(u32, f32)>;

/// A type alias as (file, name).
type AliasKey = (usize, String);

/// Definition node → its file and its index there, by node id: ids are dense, so a vector
/// (a node that is no definition, or an id past the last, has none).
struct NodeDefs(Vec<Option<(usize, u32)>>);

impl NodeDefs {
    fn get(&self, node: &u32) -> Option<&(usize, u32)> {
        self.0.get(*node as usize)?.as_ref()
    }

    fn insert(&mut self, node: u32, def: (usize, u32)) {
        let at = node as usize;
        if self.0.len() <= at {
            self.0.resize(at + 1, None);
        }
        if let Some(slot) = self.0.get_mut(at) {
            *slot = Some(def);
        }
    }
}

struct Resolver<'a> {
    files: Facts<'a>,
    /// What the file being resolved reads.
    reads: &'a Reads,
    /// What an earlier resolution of these files kept, and what changed since.
    plan: memo::Plan,
    modules: ModuleIndex,
    b: GraphBuilder,
    file_node: Vec<u32>,
    def_node: Vec<Vec<u32>>,
    /// Per file: top-level definition name → def indexes.
    top_level: FileVec<'a, HashMap<&'a str, Vec<u32>>>,
    /// Type node → member name → method node.
    members: NodeMap<'a, HashMap<&'a str, u32>>,
    /// Type node → base type nodes.
    bases: NodeMap<'a, Vec<u32>>,
    /// A TypeScript namespace and the type of the same name in its file (declaration merging),
    /// both ways: members of one are members of the other.
    companions: NodeMap<'a, u32>,
    /// Per Ruby class or module, the Ruby types that name it as a base (`class S < T`,
    /// `include T`): where a call on `self` may land on an override.
    ruby_subtypes: NodeMap<'a, Vec<u32>>,
    /// Per Ruby class (each part of a reopened one), the modules prepended to it
    /// (`Base.prepend(M)`, `prepend M`): their methods come before the class's own.
    ruby_prepended: NodeMap<'a, Vec<u32>>,
    /// Per Ruby method, its parameters every call reaching it passes one known class (by
    /// name, sorted): `ruby.rs::ruby_param_types`.
    ruby_param_types: NodeMap<'a, Vec<(String, u32)>>,
    /// Per Zig function, its `anytype` and `type` parameters' callers' types (by name, sorted):
    /// `zig.rs::zig_param_types`.
    zig_param_types: NodeMap<'a, Vec<zig::CallerTypes>>,
    /// C# extension methods by name.
    extensions: NameMap<'a, &'a str, Vec<u32>>,
    /// Top-level callables and types by name, project-wide.
    globals: NameMap<'a, &'a str, Vec<u32>>,
    /// Methods by name, project-wide.
    methods: NameMap<'a, &'a str, Vec<u32>>,
    /// PHP names by their lowercase: each spelling definitions and `use` lines give them.
    php_spellings: NameMap<'a, String, Vec<&'a str>>,
    /// Definition node → its file and its index there.
    node_def: NodeDefs,
    /// Per file: the files its imports resolve to.
    imported: FileVec<'a, HashSet<usize>>,
    /// Per file: the files it imports whole (a module import, a wildcard), not name by name.
    imported_whole: FileVec<'a, HashSet<usize>>,
    /// The include closure of the C file asked for last (`Resolver::c_include_closure`), made
    /// when asked: every file's held at once was a thousand files each on a kernel.
    c_closure: RefCell<Option<(usize, Rc<[usize]>)>>,
    /// The files' imports are resolved: their include closures can be made.
    c_includes_known: bool,
    /// Per top-level name, the C and C++ files defining one of that name, in file order: a
    /// name looked up through a file's includes is checked in those files only, not in every
    /// header the includes reach (a kernel file's includes reach a thousand).
    c_definers: HashMap<&'a str, Vec<u32>>,
    /// The include closure of the file being resolved, as file → its place in it
    /// (nearest first); built at its first lookup through the includes.
    c_rank: RefCell<Option<(usize, HashMap<u32, u32>)>>,
    /// Per file, per import statement: the files it refers to (`Scopes::import_files`, asked
    /// once: receiver types ask again for every imported name).
    import_targets: FileVec<'a, Vec<Vec<usize>>>,
    scopes: Scopes,
    vars: VarIndex<'a>,
    /// The call being resolved: (file, scope, line). Rust bindings that hold on some lines only
    /// (`match` arms, `if let` bodies, shadowing `let`s) are read at that line.
    resolving: Cell<Option<(usize, Option<u32>, u32)>>,
    /// Variables' types by (file, scope, line) and name, once found by a full-depth lookup;
    /// emptied before each file, so a file's resolution never depends on the files before it.
    variable_types: RefCell<HashMap<VariableKey, HashMap<Box<str>, FoundType>>>,
    /// TypeScript type aliases by (file, alias), once resolved: a type node, a union id (see
    /// `UNION_IDS`) with its confidence, or `None` when a member is unknown.
    alias_types: RefCell<HashMap<AliasKey, Option<(u32, f32)>>>,
    /// The member types of each union alias; union id `u32::MAX - i` is entry `i`.
    unions: RefCell<Vec<Vec<u32>>>,
    /// Files compiled for tests only (declared `#[cfg(test)] mod x;`).
    test_files: FileSet<'a>,
    /// Rust methods (file, def) of `impl` blocks whose type is in another file.
    foreign_methods: Vec<(usize, u32)>,
    /// Such a method's node → the node of the type it was adopted by.
    adopted: NodeMap<'a, u32>,
    /// C++ methods with another definition of their name in their class (overloads).
    cpp_overloads: NodeSet<'a>,
    /// Definitions carrying a framework decorator (process entry points), by node id.
    decorated: std::collections::HashSet<u32>,
    stats: ResolveStats,
}

/// A resolution's graph, what the next resolution keeps, how many files were resolved, the
/// definitions carrying a framework decorator (process entry points) by node id, and the time
/// each part took.
pub type Resolved = (
    Graph,
    ResolveStats,
    ResolveMemo,
    usize,
    std::collections::HashSet<u32>,
    ResolveParts,
);

/// The time each part of one resolution took, in its order: (part, milliseconds by the clock it
/// was given). Live updates report them (the tab's `Applied`, the live bench).
pub type ResolveParts = Vec<(&'static str, f64)>;

/// Times the parts of a resolution one after another.
struct Laps<'c> {
    clock: Clock<'c>,
    last: f64,
    parts: ResolveParts,
}

impl<'c> Laps<'c> {
    fn new(clock: Clock<'c>) -> Laps<'c> {
        Laps {
            clock,
            last: clock(),
            parts: Vec::new(),
        }
    }

    /// Ends the part `name` now.
    fn lap(&mut self, name: &'static str) {
        let now = (self.clock)();
        self.parts.push((name, now - self.last));
        self.last = now;
    }
}

/// Builds the graph of a project from its files' facts; from an earlier resolution of the same
/// project before the `changed` paths changed (written, added or removed), only the files whose
/// calls and references read something that changed are resolved again, the others keep their
/// edges (see `memo`); `None` resolves every file, and both give the same graph. Also gives what
/// the next resolution keeps, how many files were resolved and the decorated entry points.
pub fn build_graph_kept(
    project: &str,
    files: &[FileFacts],
    earlier: Option<ResolveMemo>,
    changed: &[String],
    clock: Clock,
) -> Resolved {
    build_graph_within(
        project,
        files,
        earlier,
        changed,
        memo::MEMO_BUDGET_BYTES,
        clock,
    )
}

/// [`build_graph_kept`] keeping at most `budget` bytes for the next resolution.
fn build_graph_within(
    project: &str,
    files: &[FileFacts],
    earlier: Option<ResolveMemo>,
    changed: &[String],
    budget: usize,
    clock: Clock,
) -> Resolved {
    let order: Vec<usize> = (0..files.len()).collect();
    let (graph, stats, (memo, resolved, decorated), parts) =
        resolve_in(project, files, &order, earlier, changed, budget, clock);
    (graph, stats, memo, resolved, decorated, parts)
}

/// [`build_graph_kept`] of every file, resolving the calls of the files in `order` (indexes into `files`; a file
/// left out has no CALLS edges). Resolving one file's calls must not depend on which files came
/// before it (what re-resolving only some files needs): a test resolves them shuffled.
#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) fn build_graph_calls_in(
    project: &str,
    files: &[FileFacts],
    order: &[usize],
) -> (Graph, ResolveStats) {
    let (graph, stats, ..) = resolve_in(
        project,
        files,
        order,
        None,
        &[],
        memo::MEMO_BUDGET_BYTES,
        &|| 0.0,
    );
    (graph, stats)
}

fn resolve_in(
    project: &str,
    files: &[FileFacts],
    order: &[usize],
    earlier: Option<ResolveMemo>,
    changed: &[String],
    budget: usize,
    clock: Clock,
) -> (
    Graph,
    ResolveStats,
    (ResolveMemo, usize, std::collections::HashSet<u32>),
    ResolveParts,
) {
    let mut laps = Laps::new(clock);
    let mut earlier = earlier;
    let carried = earlier.as_mut().and_then(|m| m.carried.take());
    let reads = Reads::default();
    let kept = KeptModules::of(files, earlier.as_mut().and_then(|m| m.modules_kept.take()));
    let scopes_kept = earlier.as_mut().and_then(|m| m.scopes_kept.take());
    let (modules, test_files, modules_inputs) = (kept.index, kept.test_files, kept.inputs);
    let defs: usize = files.iter().map(|f| f.defs.len()).sum();
    // Files, their folders (at most as many) and definitions; each definition is defined by its
    // file and most are members of a type.
    let (nodes, edges) = (2 * files.len() + defs, 2 * (files.len() + defs));
    let (b, mut carried) = match carried.and_then(|c| c.start(project, nodes, edges)) {
        Some((b, c)) => (b, Some(c)),
        None => (GraphBuilder::with_capacity(project, nodes, edges), None),
    };
    let mut r = Resolver {
        files: Facts::new(files, &reads),
        reads: &reads,
        plan: memo::Plan::default(),
        modules,
        b,
        file_node: Vec::with_capacity(files.len()),
        def_node: Vec::with_capacity(files.len()),
        top_level: FileVec::new(Vec::with_capacity(files.len()), &reads),
        members: NodeMap::new(&reads),
        bases: NodeMap::new(&reads),
        companions: NodeMap::new(&reads),
        ruby_subtypes: NodeMap::new(&reads),
        ruby_prepended: NodeMap::new(&reads),
        ruby_param_types: NodeMap::new(&reads),
        zig_param_types: NodeMap::new(&reads),
        globals: NameMap::new(&reads),
        extensions: NameMap::new(&reads),
        methods: NameMap::new(&reads),
        php_spellings: NameMap::new(&reads),
        node_def: NodeDefs(Vec::with_capacity(2 * files.len() + defs)),
        imported: FileVec::new(Vec::with_capacity(files.len()), &reads),
        imported_whole: FileVec::new(Vec::with_capacity(files.len()), &reads),
        import_targets: FileVec::new(Vec::with_capacity(files.len()), &reads),
        c_closure: RefCell::default(),
        c_includes_known: false,
        c_definers: HashMap::default(),
        c_rank: RefCell::default(),
        scopes: Scopes::default(),
        vars: VarIndex::build(files),
        resolving: Cell::new(None),
        variable_types: RefCell::default(),
        alias_types: RefCell::default(),
        unions: RefCell::default(),
        test_files: FileSet::new(test_files, &reads),
        foreign_methods: Vec::new(),
        adopted: NodeMap::new(&reads),
        cpp_overloads: NodeSet::new(&reads),
        decorated: Default::default(),
        stats: ResolveStats::default(),
    };
    // Most definitions are a global or a method, most methods a member: the project-wide
    // tables sized at once rather than grown step by step.
    r.globals.reserve(defs / 2);
    r.methods.reserve(defs / 2);
    r.members.reserve(defs / 8);
    laps.lap("indexes");
    let changed_paths: HashSet<&str> = changed.iter().map(String::as_str).collect();
    r.structure(carried.as_mut(), &changed_paths);
    // The carried nodes are let go: only the size their strings had afresh is needed now.
    let carried_fresh = carried.map(|c| c.fresh);
    // A language's own pass walks every file for its files: passed over when there are none.
    let present = files.iter().fold(0u64, |set, f| set | lang_bit(f.lang));
    let passes: [(Lang, fn(&mut _)); 7] = [
        (Lang::CSharp, Resolver::csharp_structure),
        (Lang::Php, Resolver::php_structure),
        (Lang::Ruby, Resolver::ruby_structure),
        (Lang::Elixir, Resolver::elixir_structure),
        (Lang::Kotlin, Resolver::kotlin_structure),
        (Lang::Dart, Resolver::dart_structure),
        (Lang::Scala, Resolver::scala_structure),
    ];
    for (lang, pass) in passes {
        if present & lang_bit(lang) != 0 {
            pass(&mut r);
        }
    }
    laps.lap("structure");
    let changed_files: Vec<bool> = files
        .iter()
        .map(|f| changed_paths.contains(f.path.as_str()))
        .collect();
    r.scopes = Scopes::build(
        &r.files,
        &r.modules,
        &r.top_level,
        &r.def_node,
        scopes_kept,
        (modules_inputs, &changed_files),
    );
    laps.lap("scopes");
    r.adopt_foreign_methods();
    r.imports();
    r.c_includes_known = true;
    r.c_definers = r.c_definers_by_name();
    // C++ methods defined out of line find their class through the includes.
    r.adopt_foreign_methods();
    laps.lap("imports");
    r.heritage();
    r.ruby_mixins();
    r.scala_self_types();
    r.swift_conformances();
    r.ruby_param_types();
    if present & lang_bit(Lang::Zig) != 0 {
        r.zig_param_types();
    }
    laps.lap("heritage");
    r.plan(earlier, changed, budget);
    laps.lap("plan");
    r.calls(order);
    laps.lap("calls");
    r.references();
    laps.lap("references");
    let stats = ResolveStats {
        memo_over_budget: r.plan.over_budget,
        memo_most_bytes: r.plan.most_bytes,
        scopes_kept: r.scopes.taken(),
        ..r.stats
    };
    let resolved = r.plan.resolved;
    // The next build starts from this one's strings and nodes when they fit in the memo's
    // budget beside what it keeps.
    let carry = !r.plan.over_budget
        && r.plan.kept_bytes
            + Carried::bytes(&r.b, &r.file_node, &r.def_node)
            + KeptModules::bytes_of(&r.modules, r.test_files.raw())
            + KeptScopes::bytes_of(&r.scopes)
            <= budget;
    let mut memo = r.memo();
    memo.carried = carry.then(|| Carried::keep(&r.b, &r.file_node, &r.def_node, carried_fresh));
    laps.lap("memo");
    // The resolver's tables are dropped before the graph is built: its sorts and indexes then
    // reuse their room rather than add to it (the peak of a kernel's resolve).
    let (builder, decorated) = {
        let r = r;
        if carry {
            memo.modules_kept = Some(KeptModules::new(
                modules_inputs,
                r.modules,
                r.test_files.into_raw(),
            ));
            memo.scopes_kept = KeptScopes::keep(
                r.scopes,
                modules_inputs,
                &r.def_node,
                r.import_targets.into_raw(),
            );
        }
        (r.b, r.decorated)
    };
    let graph = builder.build();
    laps.lap("graph");
    (graph, stats, (memo, resolved, decorated), laps.parts)
}

/// A language as one bit of a set of languages.
fn lang_bit(lang: Lang) -> u64 {
    1 << (lang as u32 % 64)
}

/// Marks the items of invocations of stand-in macros (macros defined anywhere in the project
/// that put their items under a stand-in `cfg`) as stand-in code of their files, handing each
/// file to `before` just before it is marked (so a caller can keep the facts as extracted).
pub fn mark_stand_ins(files: &mut [FileFacts], before: &mut dyn FnMut(&FileFacts)) {
    let macros: HashSet<String> = files
        .iter()
        .flat_map(|f| f.stand_in_macros.iter().cloned())
        .collect();
    if macros.is_empty() {
        return;
    }
    for f in files.iter_mut() {
        let spans: Vec<(u32, u32)> = f
            .item_macros
            .iter()
            .filter(|(name, _, _)| macros.contains(name))
            .map(|&(_, start, end)| (start, end))
            .collect();
        if !spans.is_empty() {
            before(f);
            f.test_spans.extend(spans);
            f.adopt_by_compiled_alternatives();
        }
    }
}

/// The files of modules declared for tests only (`#[cfg(test)] mod tests;`).
fn test_files(files: &[FileFacts], modules: &ModuleIndex) -> HashSet<usize> {
    let mut out = HashSet::default();
    for f in files.iter().filter(|f| f.lang == Lang::Rust) {
        // Also `mod x;` declared inside the invocation of a stand-in macro only (a module
        // declared by both alternatives is real).
        let declared = |real: bool| {
            f.defs.iter().enumerate().filter(move |&(i, d)| {
                d.kind == NodeKind::Module && d.parent.is_none() && f.is_test_def(i as u32) != real
            })
        };
        let real: HashSet<&str> = declared(true).map(|(_, d)| d.name.as_str()).collect();
        let stand_in_modules = declared(false).filter(|(_, d)| !real.contains(d.name.as_str()));
        let names = f
            .test_modules
            .iter()
            .map(String::as_str)
            .chain(stand_in_modules.map(|(_, d)| d.name.as_str()));
        for name in names {
            if let Some(file) = modules.rust_exact(&f.path, &format!("self::{name}")) {
                out.insert(file);
            }
        }
    }
    out
}

impl<'a> Resolver<'a> {
    /// Whether a definition node is code compiled for tests only: under `#[cfg(test)]`, a test
    /// function, or in a test module's file.
    fn is_test_node(&self, node: u32) -> bool {
        self.node_def.get(&node).is_some_and(|&(file, def)| {
            self.test_files.contains(&file) || self.files[file].is_test_def(def)
        })
    }

    /// The files import `at` of file `fi` refers to: as `imports` found them, else asked anew.
    fn import_files(&self, fi: usize, at: usize) -> std::borrow::Cow<'_, [usize]> {
        match self.import_targets.get(fi).and_then(|t| t.get(at)) {
            Some(known) => std::borrow::Cow::Borrowed(known),
            None => std::borrow::Cow::Owned(
                self.files[fi]
                    .imports
                    .get(at)
                    .map(|i| self.scopes.import_files(fi, i, &self.files, self.modules()))
                    .unwrap_or_default(),
            ),
        }
    }

    fn kind_of(&self, node: u32) -> Option<NodeKind> {
        self.reads.node(node);
        self.b.node(node).map(|n| n.kind)
    }

    /// The module index (every lookup in it is a read of it).
    fn modules(&self) -> &ModuleIndex {
        self.reads.modules();
        &self.modules
    }

    /// What `var` is bound to directly in `scope` of file `fi`.
    fn var(&self, fi: usize, var: &str, scope: Option<u32>) -> Option<&vars::Bound> {
        self.reads.file(fi);
        self.vars.get(fi, var, scope)
    }

    /// What an import of file `fi` binds `name` to.
    fn binding(&self, fi: usize, name: &str) -> Option<scope::Target> {
        self.reads.file(fi);
        self.scopes.binding(fi, name)
    }

    /// The chain of enclosing definitions of `def`, innermost first.
    fn scope_chain(&self, fi: usize, def: Option<u32>) -> Vec<u32> {
        let defs = &self.files[fi].defs;
        let mut chain = Vec::new();
        let mut current = def;
        while let Some(d) = current {
            chain.push(d);
            current = defs.get(d as usize).and_then(|x| x.parent);
        }
        chain
    }

    /// The type a method belongs to (walking out of nested functions), in its file or, for a
    /// Rust `impl` elsewhere, the type that adopted it.
    fn owner_type(&self, fi: usize, def: Option<u32>) -> Option<u32> {
        let defs = &self.files[fi].defs;
        self.scope_chain(fi, def).into_iter().find_map(|d| {
            let node = self.def_node[fi][d as usize];
            if defs.get(d as usize).is_some_and(|x| x.kind.is_type()) {
                Some(node)
            } else {
                self.adopted.get(&node).copied()
            }
        })
    }

    /// Finds a member by name on a type or its bases (breadth first); on a PHP type, a member
    /// whose name differs in case only when none is spelled alike.
    fn find_member(&self, ty: u32, name: &str) -> Option<(u32, bool)> {
        self.find_member_as_written(ty, name).or_else(|| {
            let php = self
                .node_def
                .get(&ty)
                .is_some_and(|&(file, _)| self.files[file].lang == Lang::Php);
            php.then(|| self.php_other_spellings(name))?
                .into_iter()
                .find_map(|spelling| self.find_member_as_written(ty, spelling))
        })
    }

    fn find_member_as_written(&self, ty: u32, name: &str) -> Option<(u32, bool)> {
        // Most lookups end at the type itself: no queue for them.
        let prepends = self.ruby_prepended.contains_key(&ty);
        if !prepends && let Some(&m) = self.members.get(&ty).and_then(|m| m.get(name)) {
            return Some((m, false));
        }
        if !prepends && !self.bases.contains_key(&ty) && !self.companions.contains_key(&ty) {
            return None;
        }
        let mut queue = vec![(ty, false)];
        let mut seen = HashSet::default();
        let mut i = 0;
        while let Some(&(t, inherited)) = queue.get(i) {
            i += 1;
            if !seen.insert(t) || seen.len() > 64 {
                continue;
            }
            // A Ruby module prepended to the class answers before the class itself.
            if let Some(m) = self.ruby_prepended_member(t, name) {
                return Some((m, true));
            }
            if let Some(&m) = self.members.get(&t).and_then(|m| m.get(name)) {
                return Some((m, inherited));
            }
            if let Some(&companion) = self.companions.get(&t) {
                queue.push((companion, inherited));
            }
            for &base in self.bases.get(&t).map_or(&[][..], Vec::as_slice) {
                queue.push((base, true));
            }
        }
        None
    }

    fn file_lang(&self, file: Option<super::graph::Sym>) -> Option<Lang> {
        file.and_then(|sym| Lang::of_path(self.b.string(sym)))
    }
}

/// A method read like an attribute: Python's `@property` / `@cached_property`, a TypeScript or
/// JavaScript `get x()`.
fn is_getter(def: &super::facts::Def) -> bool {
    def.decorators
        .iter()
        .any(|d| matches!(d.rsplit('.').next(), Some("property" | "cached_property")))
        || def
            .signature
            .split_whitespace()
            .take_while(|w| !w.contains('('))
            .any(|w| w == "get")
}

/// A callee written as a dotted chain (`f`, `self.get_form`, `a.b.c`): a name, or the last
/// part as a member of what stands before it.
/// A chain may hold calls with their arguments left out (`Builder::new().name`: a member of
/// what `Builder::new()` returns) and start with a path (`a::b::f`).
pub(crate) fn dotted_callee(chain: &str) -> Callee {
    match chain.rsplit_once('.') {
        None => match chain.rsplit_once("::") {
            Some((path, name)) => Callee::Scoped {
                path: path.to_owned(),
                name: name.to_owned(),
            },
            None => Callee::Name(chain.to_owned()),
        },
        Some((before, name)) => Callee::Member {
            receiver: match before {
                "self" | "this" | "cls" => Receiver::SelfRef,
                // Java's `super.f().g()`: `f` of the parent class.
                "super" => Receiver::Super,
                _ if before.ends_with("()") => {
                    Receiver::Call(before[..before.len() - 2].to_owned())
                }
                _ if before.contains('.') => Receiver::Path(before.to_owned()),
                _ => Receiver::Name(before.to_owned()),
            },
            name: name.to_owned(),
        },
    }
}

#[cfg(test)]
mod bash_tests;
#[cfg(test)]
mod c_tests;
#[cfg(test)]
mod cpp_tests;
mod csharp;
#[cfg(test)]
mod csharp_tests;
#[cfg(test)]
mod dart_tests;
mod elixir;
#[cfg(test)]
mod elixir_tests;
#[cfg(test)]
mod fixture_edges;
#[cfg(test)]
mod kotlin_tests;
#[cfg(test)]
mod lua_tests;
mod php;
#[cfg(test)]
mod php_tests;
#[cfg(test)]
mod ref_tests;
mod ruby;
#[cfg(test)]
mod ruby_tests;
#[cfg(test)]
mod scala_tests;
mod swift;
#[cfg(test)]
mod swift_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod ts_tests;
#[cfg(test)]
mod zig_tests;
