//! Resolution: turns every file's facts into one graph — folders, files, symbols, imports,
//! heritage and calls — giving each edge a confidence and a reason. Unresolvable calls get no edge.

mod modules;
mod scope;
mod vars;

use std::cell::RefCell;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use self::modules::ModuleIndex;
use self::scope::{Scopes, Target};
use self::vars::VarIndex;
use super::facts::{Callee, FileFacts, Receiver};
use super::graph::{EdgeKind, Graph, GraphBuilder, NewNode, NodeKind, Reason};
use super::lang::Lang;

/// Confidence of each kind of call resolution.
pub mod confidence {
    pub const LOCAL: f32 = 0.95;
    pub const SELF_METHOD: f32 = 0.95;
    pub const IMPORT: f32 = 0.9;
    pub const SAME_FILE: f32 = 0.9;
    pub const RECEIVER_TYPE: f32 = 0.9;
    pub const INHERITED: f32 = 0.85;
    pub const ATTRIBUTE_TYPE: f32 = 0.85;
    pub const RETURN_TYPE: f32 = 0.85;
    /// A call result's type is trusted only when the call itself resolved at least this surely.
    pub const SURE: f32 = 0.8;
    pub const IMPORTED_CANDIDATE: f32 = 0.4;
    pub const UNIQUE_GLOBAL: f32 = 0.5;
    pub const AMBIGUOUS: f32 = 0.3;
}

/// How many calls deep a receiver's type is followed through return types (`a().b().c()`,
/// `x = f()` where `f` returns a variable holding `g()`'s result …).
const MAX_RETURN_DEPTH: u32 = 6;

/// At most this many candidates are kept for an ambiguous name; more means no edge at all.
const MAX_AMBIGUOUS: usize = 3;

/// Among at most this many candidates for a name no scope explains, the only one defined in the
/// caller's file or a file it imports is taken (`imported-candidate`).
const MAX_NARROWED: usize = 8;

/// Method names so common on built-in containers and strings that a unique project method of
/// that name says nothing about an unresolved receiver.
const BUILTIN_METHOD_NAMES: &[&str] = &[
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "copy",
    "get",
    "items",
    "keys",
    "values",
    "update",
    "setdefault",
    "add",
    "discard",
    "join",
    "split",
    "rsplit",
    "strip",
    "lstrip",
    "rstrip",
    "replace",
    "format",
    "startswith",
    "endswith",
    "lower",
    "upper",
    "encode",
    "decode",
    "read",
    "write",
    "close",
    "open",
    "find",
    "index",
    "count",
    "sort",
    "reverse",
    "push",
    "shift",
    "map",
    "filter",
    "reduce",
    "forEach",
    "then",
    "catch",
    "toString",
    "length",
    "slice",
    "splice",
    "concat",
    "includes",
    "has",
    "set",
    "delete",
    "next",
    "send",
    "call",
    "apply",
    "bind",
    "unwrap",
    "expect",
    "clone",
    "iter",
    "into",
    "len",
    "is_empty",
    "to_string",
    "as_str",
    "collect",
    "Println",
    "Printf",
    "Sprintf",
    "Errorf",
    "equals",
    "hashCode",
    "size",
    "isEmpty",
    "put",
    "contains",
];

/// Python built-ins: a bare call to one of these names is not a project call unless defined locally.
const PYTHON_BUILTINS: &[&str] = &[
    "print",
    "len",
    "isinstance",
    "issubclass",
    "str",
    "int",
    "float",
    "bool",
    "list",
    "dict",
    "set",
    "tuple",
    "range",
    "enumerate",
    "zip",
    "map",
    "filter",
    "sorted",
    "reversed",
    "min",
    "max",
    "sum",
    "any",
    "all",
    "open",
    "repr",
    "hash",
    "id",
    "type",
    "super",
    "getattr",
    "setattr",
    "hasattr",
    "delattr",
    "iter",
    "next",
    "callable",
    "format",
    "vars",
    "dir",
    "abs",
    "round",
    "divmod",
    "pow",
    "chr",
    "ord",
    "hex",
    "oct",
    "bin",
    "bytes",
    "bytearray",
    "memoryview",
    "frozenset",
    "object",
    "property",
    "staticmethod",
    "classmethod",
    "compile",
    "eval",
    "exec",
    "globals",
    "locals",
    "input",
    "slice",
    "complex",
    "ascii",
    "breakpoint",
];

/// Counts from resolution, for stats and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResolveStats {
    pub call_sites: usize,
    pub calls_resolved: usize,
    pub imports: usize,
    pub imports_resolved: usize,
}

/// A variable as (file, scope, name).
type VariableKey = (usize, Option<u32>, String);

struct Resolver<'a> {
    files: &'a [FileFacts],
    modules: ModuleIndex,
    b: GraphBuilder,
    file_node: Vec<u32>,
    def_node: Vec<Vec<u32>>,
    /// Per file: top-level definition name → def indexes.
    top_level: Vec<HashMap<&'a str, Vec<u32>>>,
    /// Type node → member name → method node.
    members: HashMap<u32, HashMap<&'a str, u32>>,
    /// Type node → base type nodes.
    bases: HashMap<u32, Vec<u32>>,
    /// A TypeScript namespace and the type of the same name in its file (declaration merging),
    /// both ways: members of one are members of the other.
    companions: HashMap<u32, u32>,
    /// Top-level callables and types by name, project-wide.
    globals: HashMap<&'a str, Vec<u32>>,
    /// Methods by name, project-wide.
    methods: HashMap<&'a str, Vec<u32>>,
    /// Definition node → its file and its index there.
    node_def: HashMap<u32, (usize, u32)>,
    /// Per file: the files its imports resolve to.
    imported: Vec<HashSet<usize>>,
    scopes: Scopes,
    vars: VarIndex<'a>,
    /// Variables' types by (file, scope, name), once found by a full-depth lookup.
    variable_types: RefCell<HashMap<VariableKey, Option<(u32, f32)>>>,
    stats: ResolveStats,
}

/// Builds the graph of a project from its files' facts.
pub fn build_graph(project: &str, files: &[FileFacts]) -> (Graph, ResolveStats) {
    let mut r = Resolver {
        files,
        modules: ModuleIndex::build(files),
        b: GraphBuilder::new(project),
        file_node: Vec::with_capacity(files.len()),
        def_node: Vec::with_capacity(files.len()),
        top_level: Vec::with_capacity(files.len()),
        members: HashMap::default(),
        bases: HashMap::default(),
        companions: HashMap::default(),
        globals: HashMap::default(),
        methods: HashMap::default(),
        node_def: HashMap::default(),
        imported: Vec::with_capacity(files.len()),
        scopes: Scopes::default(),
        vars: VarIndex::build(files),
        variable_types: RefCell::default(),
        stats: ResolveStats::default(),
    };
    r.structure();
    r.scopes = Scopes::build(files, &r.modules, &r.top_level, &r.def_node);
    r.imports();
    r.heritage();
    r.calls();
    let stats = r.stats;
    (r.b.build(), stats)
}

impl<'a> Resolver<'a> {
    /// Folders, files and definitions, with CONTAINS, DEFINES and MEMBER_OF edges.
    fn structure(&mut self) {
        let mut folders: HashMap<String, u32> = HashMap::default();
        for f in self.files {
            let file = self.b.add_node(NewNode {
                kind: NodeKind::File,
                name: f.path.rsplit('/').next().unwrap_or(&f.path),
                qualified: &f.path,
                file: &f.path,
                start_line: 1,
                end_line: f.lines.max(1),
                signature: "",
                doc: "",
                exported: true,
            });
            self.file_node.push(file);
            let mut child = file;
            let mut dir = f.path.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                dir = parent;
                let (folder, new) = match folders.get(dir) {
                    Some(&id) => (id, false),
                    None => {
                        let id = self.b.add_node(NewNode {
                            kind: NodeKind::Folder,
                            name: dir.rsplit('/').next().unwrap_or(dir),
                            qualified: dir,
                            file: dir,
                            start_line: 0,
                            end_line: 0,
                            signature: "",
                            doc: "",
                            exported: true,
                        });
                        folders.insert(dir.to_owned(), id);
                        (id, true)
                    }
                };
                self.b
                    .add_edge(folder, child, EdgeKind::Contains, 1.0, Reason::Structure);
                if !new {
                    break;
                }
                child = folder;
            }
            let mut nodes = Vec::with_capacity(f.defs.len());
            let mut top: HashMap<&'a str, Vec<u32>> = HashMap::default();
            for (i, d) in f.defs.iter().enumerate() {
                let id = self.b.add_node(NewNode {
                    kind: d.kind,
                    name: &d.name,
                    qualified: &d.qualified,
                    file: &f.path,
                    start_line: d.start_line,
                    end_line: d.end_line,
                    signature: &d.signature,
                    doc: &d.doc,
                    exported: d.exported,
                });
                nodes.push(id);
                self.node_def
                    .insert(id, (self.file_node.len() - 1, i as u32));
                self.b
                    .add_edge(file, id, EdgeKind::Defines, 1.0, Reason::Definition);
                let parent_kind = d
                    .parent
                    .and_then(|p| f.defs.get(p as usize))
                    .map(|p| p.kind);
                match parent_kind {
                    None => {
                        top.entry(d.name.as_str()).or_default().push(i as u32);
                        if d.kind.is_callable() || d.kind.is_type() {
                            self.globals.entry(d.name.as_str()).or_default().push(id);
                        }
                    }
                    Some(k) if k.is_type() => {
                        if let Some(p) = d.parent.and_then(|p| nodes.get(p as usize)).copied() {
                            self.b
                                .add_edge(id, p, EdgeKind::MemberOf, 1.0, Reason::Member);
                            self.members
                                .entry(p)
                                .or_default()
                                .entry(d.name.as_str())
                                .or_insert(id);
                        }
                        if d.kind.is_callable() {
                            self.methods.entry(d.name.as_str()).or_default().push(id);
                        }
                    }
                    Some(NodeKind::Module) if f.lang.is_js_family() => {
                        if let Some(p) = d.parent.and_then(|p| nodes.get(p as usize)).copied() {
                            self.members
                                .entry(p)
                                .or_default()
                                .entry(d.name.as_str())
                                .or_insert(id);
                        }
                        // A namespace's functions are called like static methods (`Ns.is(x)`).
                        if d.kind.is_callable() {
                            self.methods.entry(d.name.as_str()).or_default().push(id);
                        }
                    }
                    Some(_) => {}
                }
            }
            for (i, d) in f.defs.iter().enumerate() {
                if d.kind != NodeKind::Module || d.parent.is_some() || !f.lang.is_js_family() {
                    continue;
                }
                let same_name_type = top
                    .get(d.name.as_str())
                    .into_iter()
                    .flatten()
                    .find(|&&t| f.defs.get(t as usize).is_some_and(|x| x.kind.is_type()));
                if let Some(&t) = same_name_type {
                    self.companions.insert(nodes[i], nodes[t as usize]);
                    self.companions.insert(nodes[t as usize], nodes[i]);
                }
            }
            // Methods adopted after their type (Rust impls, Go receivers) point back at it.
            self.def_node.push(nodes);
            self.top_level.push(top);
        }
    }

    fn imports(&mut self) {
        for (fi, f) in self.files.iter().enumerate() {
            let mut seen = HashSet::default();
            for import in &f.imports {
                self.stats.imports += 1;
                let targets = self
                    .scopes
                    .import_files(fi, import, self.files, &self.modules);
                if !targets.is_empty() {
                    self.stats.imports_resolved += 1;
                }
                for target in targets {
                    if target != fi && seen.insert(target) {
                        self.b.add_edge(
                            self.file_node[fi],
                            self.file_node[target],
                            EdgeKind::Imports,
                            1.0,
                            Reason::ImportResolved,
                        );
                    }
                }
            }
            self.imported.push(seen);
        }
    }

    fn heritage(&mut self) {
        for (fi, f) in self.files.iter().enumerate() {
            for (di, d) in f.defs.iter().enumerate() {
                let node = self.def_node[fi][di];
                for (names, kind) in [
                    (&d.extends, EdgeKind::Extends),
                    (&d.implements, EdgeKind::Implements),
                ] {
                    for name in names {
                        if let Some((base, conf)) = self.resolve_type(fi, Some(di as u32), name)
                            && base != node
                        {
                            self.b.add_edge(node, base, kind, conf, Reason::Heritage);
                            self.bases.entry(node).or_default().push(base);
                        }
                    }
                }
            }
        }
    }

    fn calls(&mut self) {
        for (fi, f) in self.files.iter().enumerate() {
            for call in &f.calls {
                self.stats.call_sites += 1;
                let from = match call.caller {
                    Some(d) => self.def_node[fi][d as usize],
                    None => self.file_node[fi],
                };
                let targets = self.resolve_call(fi, call.caller, &call.callee, 0);
                if !targets.is_empty() {
                    self.stats.calls_resolved += 1;
                }
                for (to, conf, reason) in targets {
                    // Recursion is kept when the receiver is certain (a bare name, `self`/`this`
                    // or a known type); a guessed receiver landing on its own caller is dropped.
                    let certain = matches!(call.callee, Callee::Name(_))
                        || matches!(
                            reason,
                            Reason::SelfMethod | Reason::ReceiverType | Reason::AttributeType
                        );
                    if to != from || certain {
                        self.b.add_edge(from, to, EdgeKind::Calls, conf, reason);
                    }
                }
            }
        }
    }

    fn kind_of(&self, node: u32) -> Option<NodeKind> {
        self.b.node(node).map(|n| n.kind)
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

    /// The type a method belongs to (walking out of nested functions).
    fn owner_type(&self, fi: usize, def: Option<u32>) -> Option<u32> {
        let defs = &self.files[fi].defs;
        self.scope_chain(fi, def)
            .into_iter()
            .find(|&d| defs.get(d as usize).is_some_and(|x| x.kind.is_type()))
            .map(|d| self.def_node[fi][d as usize])
    }

    /// Finds a member by name on a type or its bases (breadth first).
    fn find_member(&self, ty: u32, name: &str) -> Option<(u32, bool)> {
        let mut queue = vec![(ty, false)];
        let mut seen = HashSet::default();
        let mut i = 0;
        while let Some(&(t, inherited)) = queue.get(i) {
            i += 1;
            if !seen.insert(t) || seen.len() > 64 {
                continue;
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

    /// Member `name` of type `ty`, reached with confidence `reached`: a member found on the type
    /// itself is as sure as `direct`; one inherited from a base is capped at `INHERITED`.
    fn typed_member(
        &self,
        ty: u32,
        reached: f32,
        name: &str,
        direct: f32,
        reason: Reason,
    ) -> Option<(u32, f32, Reason)> {
        let (m, inherited) = self.find_member(ty, name)?;
        let cap = if inherited {
            confidence::INHERITED
        } else {
            direct
        };
        Some((m, reached.min(cap), reason))
    }

    /// A type named `name` as seen from a scope in file `fi`.
    fn resolve_type(&self, fi: usize, scope: Option<u32>, name: &str) -> Option<(u32, f32)> {
        let name = name.trim_start_matches("Self::");
        if name == "Self" {
            return self
                .owner_type(fi, scope)
                .map(|t| (t, confidence::SELF_METHOD));
        }
        let target = if name.contains('.') || name.contains("::") {
            self.scopes.resolve_path(
                fi,
                name,
                self.files,
                &self.modules,
                &self.top_level,
                &self.def_node,
            )
        } else {
            self.lookup_name(fi, scope, name).map(|(t, _, _)| t)
        };
        // A TypeScript namespace merged with a type of the same name stands for that type.
        let target = match target {
            Some(Target::Node(n)) if self.kind_of(n) == Some(NodeKind::Module) => {
                Some(Target::Node(self.companions.get(&n).copied().unwrap_or(n)))
            }
            other => other,
        };
        match target {
            Some(Target::Node(n)) if self.kind_of(n).is_some_and(NodeKind::is_type) => {
                Some((n, confidence::IMPORT))
            }
            _ => {
                let last = name.rsplit(['.', ':']).next().unwrap_or(name);
                let candidates: Vec<u32> = self
                    .globals
                    .get(last)
                    .map(|v| {
                        v.iter()
                            .copied()
                            .filter(|&n| self.kind_of(n).is_some_and(NodeKind::is_type))
                            .collect()
                    })
                    .unwrap_or_default();
                (candidates.len() == 1).then(|| (candidates[0], confidence::UNIQUE_GLOBAL))
            }
        }
    }

    /// What a bare name means in a scope: a local definition, a file-level one, an import,
    /// or (Go, Java) a definition elsewhere in the same package.
    fn lookup_name(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(Target, f32, Reason)> {
        let f = &self.files[fi];
        for d in self.scope_chain(fi, scope) {
            // A class's members are not in the lexical scope of its methods (`f()` inside a
            // method is not `this.f()`; Java's implicit `this` is handled on its own).
            if f.defs.get(d as usize).is_some_and(|x| x.kind.is_type()) {
                continue;
            }
            if let Some(i) = f
                .defs
                .iter()
                .position(|x| x.parent == Some(d) && x.name == name)
            {
                return Some((
                    Target::Node(self.def_node[fi][i]),
                    confidence::LOCAL,
                    Reason::LocalScope,
                ));
            }
        }
        if let Some(d) = self.top_level[fi]
            .get(name)
            .and_then(|v| f.visible_definition(v))
        {
            return Some((
                Target::Node(self.def_node[fi][d as usize]),
                confidence::SAME_FILE,
                Reason::SameFile,
            ));
        }
        if let Some(t) = self.scopes.binding(fi, name) {
            return Some((t, confidence::IMPORT, Reason::ImportResolved));
        }
        if let Some(t) = self.scopes.wildcard_lookup(
            fi,
            name,
            self.files,
            &self.modules,
            &self.top_level,
            &self.def_node,
        ) {
            return Some((t, confidence::IMPORT, Reason::ImportResolved));
        }
        let package_mates: &[usize] = match f.lang {
            Lang::Go => self.modules.same_dir_go(&f.path),
            Lang::Java => f.package.as_deref().map_or(&[], |p| self.modules.java(p)),
            _ => &[],
        };
        for &mate in package_mates {
            if mate != fi
                && let Some(&d) = self.top_level[mate].get(name).and_then(|v| v.first())
            {
                return Some((
                    Target::Node(self.def_node[mate][d as usize]),
                    confidence::SAME_FILE,
                    Reason::SameFile,
                ));
            }
        }
        None
    }

    /// The targets of a call written in `scope` of file `fi`; `depth` counts the return types
    /// followed to find a receiver's type.
    fn resolve_call(
        &self,
        fi: usize,
        scope: Option<u32>,
        callee: &Callee,
        depth: u32,
    ) -> Vec<(u32, f32, Reason)> {
        let f = &self.files[fi];
        match callee {
            Callee::Name(name) => {
                if let Some((target, conf, reason)) = self.lookup_name(fi, scope, name) {
                    return self.callable(target, conf, reason);
                }
                if f.lang == Lang::Java
                    && let Some(owner) = self.owner_type(fi, scope)
                    && let Some(hit) = self.typed_member(
                        owner,
                        1.0,
                        name,
                        confidence::SELF_METHOD,
                        Reason::SelfMethod,
                    )
                {
                    return vec![hit];
                }
                if f.lang == Lang::Python && PYTHON_BUILTINS.contains(&name.as_str()) {
                    return Vec::new();
                }
                self.fallback(self.globals.get(name.as_str()), fi)
            }
            Callee::New(ty) => match self.resolve_type(fi, scope, ty) {
                Some((t, conf)) => vec![(t, conf, Reason::Constructor)],
                None => Vec::new(),
            },
            Callee::Member { receiver, name } => {
                self.resolve_member(fi, scope, receiver, name, depth)
            }
            Callee::Scoped { path, name } => {
                if let Some((ty, conf)) = self.resolve_type(fi, scope, path)
                    && let Some(hit) = self.typed_member(ty, conf, name, 1.0, Reason::ClassMember)
                {
                    return vec![hit];
                }
                if let Some(file) = self.modules.rust(&f.path, path)
                    && let Some(&d) = self.top_level[file]
                        .get(name.as_str())
                        .and_then(|v| v.first())
                {
                    return vec![(
                        self.def_node[file][d as usize],
                        confidence::IMPORT,
                        Reason::ImportResolved,
                    )];
                }
                Vec::new()
            }
        }
    }

    /// A call target: functions as they are; a type means its construction.
    fn callable(&self, target: Target, conf: f32, reason: Reason) -> Vec<(u32, f32, Reason)> {
        match target {
            Target::Node(n) => match self.kind_of(n) {
                Some(k) if k.is_type() => vec![(n, conf, Reason::Constructor)],
                Some(k) if k.is_callable() => vec![(n, conf, reason)],
                _ => Vec::new(),
            },
            Target::Module(_) | Target::Package(_) => Vec::new(),
        }
    }

    /// The one target of a call, when the call resolves to it surely (not through a guess) and
    /// the chain of calls that led here is not too deep.
    fn sure_target(
        &self,
        fi: usize,
        scope: Option<u32>,
        callee: &Callee,
        depth: u32,
    ) -> Option<(u32, f32, Reason)> {
        if depth >= MAX_RETURN_DEPTH {
            return None;
        }
        match self.resolve_call(fi, scope, callee, depth + 1).as_slice() {
            [(target, conf, reason)] if *conf >= confidence::SURE => {
                Some((*target, *conf, *reason))
            }
            _ => None,
        }
    }

    /// The type of what a call returns, when the call resolves surely to one target: a type
    /// (the call constructs it) or a function whose return type is known. `Self` is the type of
    /// the receiver when the receiver's type is known, else the class that defines the function.
    fn call_result_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        callee: &Callee,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let (target, conf, reason) = self.sure_target(fi, scope, callee, depth)?;
        if reason == Reason::Constructor {
            return Some((target, conf));
        }
        let &(file, def) = self.node_def.get(&target)?;
        let function = self.files[file].defs.get(def as usize)?;
        let returns = function.returns.as_str();
        if returns.is_empty() {
            if function.returns_variable.is_empty() {
                return None;
            }
            let (t, c) =
                self.variable_type(file, Some(def), &function.returns_variable, depth + 1)?;
            return Some((t, conf.min(c).min(confidence::RETURN_TYPE)));
        }
        if returns == "Self"
            && let Callee::Member { receiver, .. } = callee
            && let Some((t, c)) = self.receiver_type(fi, scope, receiver, depth + 1)
        {
            return Some((t, conf.min(c).min(confidence::RETURN_TYPE)));
        }
        let (t, c) = self.resolve_type(file, Some(def), returns)?;
        Some((t, conf.min(c).min(confidence::RETURN_TYPE)))
    }

    /// The type of a receiver, when it is known: `self`, a variable with a declared, constructed
    /// or returned type, or a call's result.
    fn receiver_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        receiver: &Receiver,
        depth: u32,
    ) -> Option<(u32, f32)> {
        match receiver {
            Receiver::SelfRef => self
                .owner_type(fi, scope)
                .map(|t| (t, confidence::SELF_METHOD)),
            Receiver::Name(var) => self.variable_type(fi, scope, var, depth),
            Receiver::Path(path) => self.path_type(fi, scope, path, depth),
            Receiver::Call(callee) => {
                self.call_result_type(fi, scope, &dotted_callee(callee), depth)
            }
            _ => None,
        }
    }

    /// The type of `a.b.c` where `a` is `self`/`this` or a typed variable and each later part is
    /// an attribute with a known type or a getter (`@property`, `get x()`) with a return type.
    fn path_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        path: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let mut parts = path.split('.');
        let head = parts.next()?;
        let mut current = match head {
            "self" | "this" | "cls" => self
                .owner_type(fi, scope)
                .map(|t| (t, confidence::SELF_METHOD))?,
            _ => match self.variable_type(fi, scope, head, depth) {
                Some(found) => found,
                None => return self.module_instance_type(fi, path),
            },
        };
        for part in parts {
            let (t, conf) = self.member_type(current.0, part)?;
            current = (t, current.1.min(conf));
        }
        Some(current)
    }

    /// `signals.request_started` where `signals` is a module and `request_started = Signal()`
    /// at its top level (then through attributes, as `path_type`): the instance's type.
    fn module_instance_type(&self, fi: usize, path: &str) -> Option<(u32, f32)> {
        let parts: Vec<&str> = path.split('.').collect();
        for split in (1..parts.len()).rev() {
            let prefix = parts[..split].join(".");
            let Some(Target::Module(m)) = self.scopes.resolve_path(
                fi,
                &prefix,
                self.files,
                &self.modules,
                &self.top_level,
                &self.def_node,
            ) else {
                continue;
            };
            let &i = self.vars.get(m, parts[split], None)?.types.last()?;
            let written = &self.files[m].bindings.get(i as usize)?.type_name;
            let (t, conf) = self.resolve_type(m, None, written)?;
            let mut current = (t, conf.min(confidence::IMPORT));
            for part in &parts[split + 1..] {
                let (t, c) = self.member_type(current.0, part)?;
                current = (t, current.1.min(c));
            }
            return Some(current);
        }
        None
    }

    /// The type of attribute `attr` on an instance of type `ty`: its declared or assigned type,
    /// else the return type of a getter of that name.
    fn member_type(&self, ty: u32, attr: &str) -> Option<(u32, f32)> {
        let &(file, def) = self.node_def.get(&ty)?;
        if let Some((at_file, class, written)) = self.attribute_type(file, def, attr) {
            let (t, conf) = self.resolve_type(at_file, Some(class), written)?;
            return Some((t, conf.min(confidence::ATTRIBUTE_TYPE)));
        }
        let (member, _) = self.find_member(ty, attr)?;
        let &(m_file, m_def) = self.node_def.get(&member)?;
        let getter = self.files[m_file].defs.get(m_def as usize)?;
        if !is_getter(getter) || getter.returns.is_empty() {
            return None;
        }
        if getter.returns == "Self" {
            return Some((ty, confidence::RETURN_TYPE));
        }
        let (t, conf) = self.resolve_type(m_file, Some(m_def), &getter.returns)?;
        Some((t, conf.min(confidence::RETURN_TYPE)))
    }

    /// A variable's type: declared or constructed in its scope or an enclosing one, bound at
    /// module level in the file it is imported from, or returned by the call assigned to it.
    fn variable_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let key = (fi, scope, var.to_owned());
        if let Some(&known) = self.variable_types.borrow().get(&key) {
            return known;
        }
        let found = self.find_variable_type(fi, scope, var, depth);
        // A deeper lookup may stop short at the depth limit; only a full one is kept.
        if depth == 0 {
            self.variable_types.borrow_mut().insert(key, found);
        }
        found
    }

    fn find_variable_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        if let Some((file, file_scope, ty)) = self
            .binding_type(fi, scope, var)
            .map(|ty| (fi, scope, ty))
            .or_else(|| self.imported_binding(fi, var).map(|(f, ty)| (f, None, ty)))
            && let Some(found) = self.resolve_type(file, file_scope, &ty)
        {
            return Some(found);
        }
        let f = &self.files[fi];
        let mut chain: Vec<Option<u32>> =
            self.scope_chain(fi, scope).into_iter().map(Some).collect();
        chain.push(None);
        chain
            .iter()
            .copied()
            .find_map(|s| {
                let last = *self.vars.get(fi, var, s)?.calls.last()?;
                let bound = f.call_bindings.get(last as usize)?;
                // `x = x.next()` would ask for itself.
                let own = matches!(&bound.callee, Callee::Member { receiver: Receiver::Name(r), .. } if r == var);
                (!own)
                    .then(|| self.call_result_type(fi, s, &bound.callee, depth))
                    .flatten()
            })
            .or_else(|| {
                chain.iter().copied().find_map(|s| {
                    let last = *self.vars.get(fi, var, s)?.elements.last()?;
                    let bound = f.element_bindings.get(last as usize)?;
                    self.element_type(fi, s, &bound.of, depth)
                })
            })
    }

    /// The element type of a collection: a variable, a `this.x`/`self.x` attribute or a call
    /// result whose declared type is written `T[]` in facts.
    fn element_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        of: &Receiver,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let (file, written_in, written): (usize, Option<u32>, String) = match of {
            Receiver::Name(var) => (fi, scope, self.binding_type(fi, scope, var)?),
            Receiver::Path(path) => {
                let attr = path
                    .strip_prefix("this.")
                    .or_else(|| path.strip_prefix("self."))
                    .filter(|a| !a.contains('.'))?;
                let (file, class, ty) =
                    self.attribute_type(fi, self.owner_def(fi, scope)?, attr)?;
                (file, Some(class), ty.to_owned())
            }
            Receiver::Call(chain) => {
                let (target, _, _) = self.sure_target(fi, scope, &dotted_callee(chain), depth)?;
                let &(file, def) = self.node_def.get(&target)?;
                let returns = &self.files[file].defs.get(def as usize)?.returns;
                (file, Some(def), returns.clone())
            }
            _ => return None,
        };
        let element = written.strip_suffix("[]")?;
        let (t, conf) = self.resolve_type(file, written_in, element)?;
        Some((t, conf.min(confidence::RETURN_TYPE)))
    }

    fn resolve_member(
        &self,
        fi: usize,
        scope: Option<u32>,
        receiver: &Receiver,
        name: &str,
        depth: u32,
    ) -> Vec<(u32, f32, Reason)> {
        let f = &self.files[fi];
        match receiver {
            Receiver::SelfRef => {
                if let Some(owner) = self.owner_type(fi, scope)
                    && let Some(hit) = self.typed_member(
                        owner,
                        1.0,
                        name,
                        confidence::SELF_METHOD,
                        Reason::SelfMethod,
                    )
                {
                    return vec![hit];
                }
                // `self.form_class(…)` where the attribute holds a class: a construction.
                if let Some(owner_def) = self.owner_def(fi, scope)
                    && let Some((file, class, written)) = self.attribute_type(fi, owner_def, name)
                    && let Some(held) = written
                        .strip_prefix("type[")
                        .and_then(|w| w.strip_suffix(']'))
                    && let Some((t, conf)) = self.resolve_type(file, Some(class), held)
                {
                    return vec![(t, conf.min(confidence::ATTRIBUTE_TYPE), Reason::Constructor)];
                }
            }
            Receiver::Super => {
                if let Some(owner) = self.owner_type(fi, scope) {
                    for &base in self.bases.get(&owner).map_or(&[][..], Vec::as_slice) {
                        if let Some((m, _)) = self.find_member(base, name) {
                            return vec![(m, confidence::INHERITED, Reason::SuperMethod)];
                        }
                    }
                }
            }
            Receiver::Name(var) => {
                if let Some((t, conf)) = self.variable_type(fi, scope, var, depth)
                    && let Some(hit) = self.typed_member(
                        t,
                        conf,
                        name,
                        confidence::RECEIVER_TYPE,
                        Reason::ReceiverType,
                    )
                {
                    return vec![hit];
                }
                if let Some((target, conf, _)) = self.lookup_name(fi, scope, var)
                    && let Some(hit) = self.member_of_target(target, name, conf)
                {
                    return vec![hit];
                }
                if f.lang == Lang::Java
                    && let Some(hit) = self.field_member(fi, scope, var, name)
                {
                    return vec![hit];
                }
            }
            Receiver::Path(path) => {
                let on_self = path.starts_with("self.") || path.starts_with("this.");
                if !on_self
                    && let Some(target) = self.scopes.resolve_path(
                        fi,
                        path,
                        self.files,
                        &self.modules,
                        &self.top_level,
                        &self.def_node,
                    )
                    && let Some(hit) = self.member_of_target(target, name, confidence::IMPORT)
                {
                    return vec![hit];
                }
                if let Some((t, conf)) = self.path_type(fi, scope, path, depth)
                    && let Some(hit) = self.typed_member(t, conf, name, conf, Reason::AttributeType)
                {
                    return vec![hit];
                }
            }
            Receiver::Call(callee) => {
                // `C().m()`: when `C` is a type, the receiver is an instance of it.
                if let Some((t, conf)) = self.resolve_type(fi, scope, callee)
                    && let Some(hit) = self.typed_member(
                        t,
                        conf,
                        name,
                        confidence::RECEIVER_TYPE,
                        Reason::ReceiverType,
                    )
                {
                    return vec![hit];
                }
                // `f().m()`: through the type `f` returns.
                if let Some((t, conf)) =
                    self.call_result_type(fi, scope, &dotted_callee(callee), depth)
                    && let Some(hit) = self.typed_member(t, conf, name, conf, Reason::ReturnType)
                {
                    return vec![hit];
                }
            }
            Receiver::SuperOf(base) => {
                if let Some((start, _)) = self.resolve_type(fi, scope, base) {
                    for &above in self.bases.get(&start).map_or(&[][..], Vec::as_slice) {
                        if let Some((m, _)) = self.find_member(above, name) {
                            return vec![(m, confidence::INHERITED, Reason::SuperMethod)];
                        }
                    }
                }
            }
            Receiver::Other => {}
        }
        if BUILTIN_METHOD_NAMES.contains(&name) || name.starts_with("__") {
            return Vec::new();
        }
        self.fallback(self.methods.get(name), fi)
    }

    /// `self.attr.name()` (or Java's implicit `attr.name()`) through the attribute's declared type.
    fn field_member(
        &self,
        fi: usize,
        scope: Option<u32>,
        attr: &str,
        name: &str,
    ) -> Option<(u32, f32, Reason)> {
        let (t, conf) = self.member_type(self.owner_type(fi, scope)?, attr)?;
        self.typed_member(t, conf, name, conf, Reason::AttributeType)
    }

    /// The declared or assigned type of attribute `attr` of class `class` in file `fi`, else of
    /// its nearest base that has one: (file and class where it is written, the type as written).
    fn attribute_type(&self, fi: usize, class: u32, attr: &str) -> Option<(usize, u32, &'a str)> {
        let files = self.files;
        let mut queue = vec![(fi, class)];
        let mut seen = HashSet::default();
        let mut i = 0;
        while let Some(&(file, def)) = queue.get(i) {
            i += 1;
            if !seen.insert((file, def)) || seen.len() > 64 {
                continue;
            }
            if let Some((_, _, ty)) = files[file]
                .attr_bindings
                .iter()
                .find(|(c, a, _)| *c == def && a == attr)
            {
                return Some((file, def, ty.as_str()));
            }
            let node = self.def_node[file][def as usize];
            for base in self.bases.get(&node).map_or(&[][..], Vec::as_slice) {
                if let Some(&at) = self.node_def.get(base) {
                    queue.push(at);
                }
            }
        }
        None
    }

    fn owner_def(&self, fi: usize, scope: Option<u32>) -> Option<u32> {
        let defs = &self.files[fi].defs;
        self.scope_chain(fi, scope)
            .into_iter()
            .find(|&d| defs.get(d as usize).is_some_and(|x| x.kind.is_type()))
    }

    /// `x.f` where `x` resolved to a module, a package or a type.
    fn member_of_target(
        &self,
        target: Target,
        name: &str,
        conf: f32,
    ) -> Option<(u32, f32, Reason)> {
        match target {
            Target::Node(n)
                if self
                    .kind_of(n)
                    .is_some_and(|k| k.is_type() || k == NodeKind::Module) =>
            {
                self.find_member(n, name)
                    .map(|(m, _)| (m, conf, Reason::ClassMember))
            }
            Target::Module(m) => self.export_of(&[m], name, conf),
            Target::Package(ref files) => self.export_of(files, name, conf),
            Target::Node(_) => None,
        }
    }

    fn export_of(&self, files: &[usize], name: &str, conf: f32) -> Option<(u32, f32, Reason)> {
        for &file in files {
            if let Some(t) = scope::export(
                file,
                name,
                self.files,
                &self.modules,
                &self.top_level,
                &self.def_node,
                0,
            ) && let Some(hit) = self
                .callable(t, conf, Reason::ImportResolved)
                .into_iter()
                .next()
            {
                return Some(hit);
            }
        }
        None
    }

    /// The declared or constructed type of a variable, searched outward from the scope.
    fn binding_type(&self, fi: usize, scope: Option<u32>, var: &str) -> Option<String> {
        let f = &self.files[fi];
        let mut chain: Vec<Option<u32>> =
            self.scope_chain(fi, scope).into_iter().map(Some).collect();
        chain.push(None);
        // The innermost scope that binds the name decides; bindings there that disagree (one
        // type in each branch) leave the type unknown.
        for s in chain {
            let Some(bound) = self.vars.get(fi, var, s) else {
                continue;
            };
            let mut types = bound
                .types
                .iter()
                .filter_map(|&i| f.bindings.get(i as usize))
                .map(|b| b.type_name.as_str());
            if let Some(first) = types.next() {
                return types.all(|t| t == first).then(|| first.to_owned());
            }
        }
        None
    }

    /// An imported name bound at module level in the file it comes from (`engines =
    /// EngineHandler()` in one file, `from m import engines` in another): that file and the type.
    fn imported_binding(&self, fi: usize, var: &str) -> Option<(usize, String)> {
        let f = &self.files[fi];
        f.imports.iter().find_map(|import| {
            let name = import.names.iter().find(|n| n.local() == var)?;
            self.scopes
                .import_files(fi, import, self.files, &self.modules)
                .into_iter()
                .find_map(|source| {
                    let last = *self.vars.get(source, &name.name, None)?.types.last()?;
                    let b = self.files[source].bindings.get(last as usize)?;
                    Some((source, b.type_name.clone()))
                })
        })
    }

    /// A name no scope explains: one candidate project-wide is a guess (0.5); of two to eight,
    /// the only one in the caller's file or a file it imports is taken (0.4); else two or three
    /// are kept as ambiguous (0.3 each); more give no edge.
    fn fallback(&self, candidates: Option<&Vec<u32>>, fi: usize) -> Vec<(u32, f32, Reason)> {
        let lang = self.files[fi].lang;
        let same_lang = |n: &u32| {
            let file = self.b.node(*n).map(|d| d.file);
            self.file_lang(file)
                .is_some_and(|l| l == lang || (l.is_js_family() && lang.is_js_family()))
        };
        // Stop counting as soon as there are too many: common names must not cost a full scan.
        let found: Vec<u32> = candidates
            .map(|c| {
                c.iter()
                    .copied()
                    .filter(same_lang)
                    .take(MAX_NARROWED + 1)
                    .collect()
            })
            .unwrap_or_default();
        if (2..=MAX_NARROWED).contains(&found.len()) {
            let imported = self.imported.get(fi);
            let mut near = found.iter().copied().filter(|n| {
                self.node_def
                    .get(n)
                    .is_some_and(|&(f, _)| f == fi || imported.is_some_and(|i| i.contains(&f)))
            });
            if let (Some(only), None) = (near.next(), near.next()) {
                return vec![(
                    only,
                    confidence::IMPORTED_CANDIDATE,
                    Reason::ImportedCandidate,
                )];
            }
        }
        match found.len() {
            1 => vec![(found[0], confidence::UNIQUE_GLOBAL, Reason::UniqueGlobal)],
            2..=MAX_AMBIGUOUS => found
                .into_iter()
                .map(|n| (n, confidence::AMBIGUOUS, Reason::Ambiguous))
                .collect(),
            _ => Vec::new(),
        }
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
fn dotted_callee(chain: &str) -> Callee {
    match chain.rsplit_once('.') {
        None => Callee::Name(chain.to_owned()),
        Some((before, name)) => Callee::Member {
            receiver: match before {
                "self" | "this" | "cls" => Receiver::SelfRef,
                _ if before.contains('.') => Receiver::Path(before.to_owned()),
                _ => Receiver::Name(before.to_owned()),
            },
            name: name.to_owned(),
        },
    }
}

#[cfg(test)]
mod tests;
