//! The index of definitions: folders, files and symbols as nodes (CONTAINS, DEFINES, MEMBER_OF),
//! the lookups resolution uses (top level, members, bases, globals), IMPORTS and heritage edges.

use std::rc::Rc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::carry::CarriedNodes;
use super::{Resolver, confidence};
use crate::graph::{EdgeKind, NewNode, NodeKind, Reason, RefKind, Reference};
use crate::lang::Lang;

impl<'a> Resolver<'a> {
    /// Folders, files and definitions, with CONTAINS, DEFINES and MEMBER_OF edges.
    /// Notes a definition carrying a framework decorator (a process entry point) as the first
    /// node of its kind at its location, the one its id names (`Graph::find_id`).
    fn note_decorated(&mut self, id: u32) {
        let Some(first) = self.b.first_at(id) else {
            return;
        };
        let kind = |n: u32| self.b.node(n).map(|x| x.kind);
        if kind(first) == kind(id) {
            self.decorated.insert(first);
        }
    }

    /// The nodes of a file not among the `changed` paths are `carried` from the build before
    /// (this builder started from its strings), the same nodes without reading their strings.
    pub(super) fn structure(
        &mut self,
        mut carried: Option<&mut CarriedNodes>,
        changed: &HashSet<&str>,
    ) {
        let mut folders: HashMap<String, u32> = HashMap::default();
        for f in self.files.all {
            // An unchanged file's nodes as the build before made them, over the same strings.
            let kept = carried
                .as_deref_mut()
                .and_then(|c| c.unchanged(&f.path, changed, 1 + f.defs.len(), self.b.strings()));
            let (kept_file, kept_defs) = match kept {
                Some([file, defs @ ..]) => (Some(*file), defs),
                _ => (None, &[][..]),
            };
            let file = match kept_file {
                Some(data) => self.b.add_node_data(data),
                None => self.b.add_node(NewNode {
                    kind: NodeKind::File,
                    name: f.path.rsplit('/').next().unwrap_or(&f.path),
                    qualified: &f.path,
                    file: &f.path,
                    start_line: 1,
                    end_line: f.lines.max(1),
                    signature: "",
                    doc: "",
                    exported: true,
                }),
            };
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
            let mut later: Vec<(usize, u32)> = Vec::new();
            // Sized at once: grown step by step, the tables of every file cost more than filling.
            let mut top: HashMap<&'a str, Vec<u32>> = HashMap::with_capacity_and_hasher(
                f.defs.iter().filter(|d| d.parent.is_none()).count(),
                Default::default(),
            );
            for (i, d) in f.defs.iter().enumerate() {
                let id = match kept_defs.get(i) {
                    Some(&data) => self.b.add_node_data(data),
                    None => self.b.add_node(NewNode {
                        kind: d.kind,
                        name: &d.name,
                        qualified: &d.qualified,
                        file: &f.path,
                        start_line: d.start_line,
                        end_line: d.end_line,
                        signature: &d.signature,
                        doc: &d.doc,
                        exported: d.exported,
                    }),
                };
                nodes.push(id);
                self.node_def
                    .insert(id, (self.file_node.len() - 1, i as u32));
                if d.decorators
                    .iter()
                    .any(|dec| crate::process::is_entry_decorator(dec))
                {
                    self.note_decorated(id);
                }
                self.b
                    .add_edge(file, id, EdgeKind::Defines, 1.0, Reason::Definition);
                let parent_kind = d
                    .parent
                    .and_then(|p| f.defs.get(p as usize))
                    .map(|p| p.kind);
                // A Rust method of an `impl` whose type is not in this file, or a Go method whose
                // type is declared in another file of its package, joins that type once imports
                // are known (`adopt_foreign_methods`).
                let foreign = match f.lang {
                    Lang::Rust => matches!(parent_kind, None | Some(NodeKind::Module)),
                    // A C++ method defined outside its class (`void A::f() {…}`).
                    // A Swift method of an `extension` of a type declared in another file.
                    Lang::Go | Lang::Cpp | Lang::Swift => parent_kind.is_none(),
                    _ => false,
                } && d.kind == NodeKind::Method;
                if foreign {
                    self.foreign_methods
                        .push((self.file_node.len() - 1, i as u32));
                    continue;
                }
                match parent_kind {
                    // A method outside any type (an object literal's `pipe() {…}`): a property
                    // of its object, never a name in the file's scope.
                    None if d.kind == NodeKind::Method && f.lang.is_js_family() => {}
                    None => {
                        top.entry(d.name.as_str()).or_default().push(i as u32);
                        // A `static` C function is seen by its own file only.
                        let file_local = f.lang.is_c_family() && !d.exported;
                        if (d.kind.is_callable() || d.kind.is_type()) && !file_local {
                            self.globals.entry(d.name.as_str()).or_default().push(id);
                        }
                    }
                    Some(k) if k.is_type() => {
                        match d.parent.and_then(|p| nodes.get(p as usize)).copied() {
                            Some(p) => self.add_member(f, i, id, p),
                            // A Rust `impl` written before its type: once the type has a node.
                            None => later.push((i, id)),
                        }
                        if d.kind.is_callable() {
                            self.methods.entry(d.name.as_str()).or_default().push(id);
                        }
                    }
                    // An Elixir module's functions are its members (called `Mod.f(x)`).
                    Some(NodeKind::Module) if f.lang == Lang::Elixir => {
                        if let Some(p) = d.parent.and_then(|p| nodes.get(p as usize)).copied() {
                            self.add_member(f, i, id, p);
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
            for (i, id) in later {
                let parent = f.defs[i]
                    .parent
                    .and_then(|p| nodes.get(p as usize))
                    .copied();
                if let Some(p) = parent {
                    self.add_member(f, i, id, p);
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

    /// Definition `i` of file `f` (node `id`) as a member of the type of node `p`.
    fn add_member(&mut self, f: &'a crate::facts::FileFacts, i: usize, id: u32, p: u32) {
        self.b
            .add_edge(id, p, EdgeKind::MemberOf, 1.0, Reason::Member);
        let slot = self
            .members
            .entry(p)
            .or_default()
            .entry(f.defs[i].name.as_str())
            .or_insert(id);
        // A method for tests only gives way to a real one of its name.
        if self
            .node_def
            .get(slot)
            .is_some_and(|&(_, old)| f.is_test_def(old) && !f.is_test_def(i as u32))
        {
            *slot = id;
        }
    }

    pub(super) fn imports(&mut self) {
        for (fi, f) in self.files.all.iter().enumerate() {
            let mut seen = HashSet::default();
            let mut whole = HashSet::default();
            let mut per_import = Vec::with_capacity(f.imports.len());
            // The scopes found each import's files while binding its names.
            let mut found = self.scopes.take_import_files(fi).into_iter();
            for import in &f.imports {
                self.stats.imports += 1;
                let targets = found.next().unwrap_or_else(|| {
                    self.scopes
                        .import_files(fi, import, &self.files, &self.modules)
                });
                if !targets.is_empty() {
                    self.stats.imports_resolved += 1;
                }
                for &target in &targets {
                    if import.names.is_empty() || import.wildcard {
                        whole.insert(target);
                    }
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
                per_import.push(targets);
            }
            self.imported.push(seen);
            self.imported_whole.push(whole);
            self.import_targets.push(per_import);
        }
    }

    /// The files C file `fi`'s `#include`s reach, directly or through other headers, nearest
    /// first (what the preprocessor pastes in; empty for other languages, and until the imports
    /// are resolved); `None` past the files. Made at the first ask for `fi` and kept until
    /// another file's is asked for: a file's lookups come one after another.
    pub(super) fn c_include_closure(&self, fi: usize) -> Option<Rc<[usize]>> {
        let f = self.files.all.get(fi)?;
        if !f.lang.is_c_family() || !self.c_includes_known {
            return Some(Rc::from([]));
        }
        if let Some((of, closure)) = self.c_closure.borrow().as_ref()
            && *of == fi
        {
            return Some(closure.clone());
        }
        let mut seen: HashSet<usize> = HashSet::default();
        seen.insert(fi);
        let mut order = Vec::new();
        let mut i = 0;
        let mut current = fi;
        loop {
            for targets in self.import_targets.raw().get(current).into_iter().flatten() {
                for &t in targets {
                    if seen.insert(t) {
                        order.push(t);
                    }
                }
            }
            match order.get(i) {
                Some(&next) => current = next,
                None => break,
            }
            i += 1;
        }
        let closure: Rc<[usize]> = Rc::from(order);
        *self.c_closure.borrow_mut() = Some((fi, closure.clone()));
        Some(closure)
    }

    /// Per top-level name, the C and C++ files defining one (see `Resolver::c_definers`).
    pub(super) fn c_definers_by_name(&self) -> HashMap<&'a str, Vec<u32>> {
        let mut by_name: HashMap<&'a str, Vec<u32>> = HashMap::default();
        for (fi, top) in self.top_level.raw().iter().enumerate() {
            if !self.files.all.get(fi).is_some_and(|f| f.lang.is_c_family()) {
                continue;
            }
            for &name in top.keys() {
                by_name.entry(name).or_default().push(fi as u32);
            }
        }
        by_name
    }

    pub(super) fn heritage(&mut self) {
        for (fi, f) in self.files.all.iter().enumerate() {
            for (di, d) in f.defs.iter().enumerate() {
                let node = self.def_node[fi][di];
                let extends = d.extends.iter().map(|n| (n, EdgeKind::Extends));
                let implements = d.implements.iter().map(|n| (n, EdgeKind::Implements));
                // Ruby looks a method up in the modules a class includes, the last included
                // first, before its superclass: its bases are listed in that order.
                let heritage: Vec<(&String, EdgeKind)> = if f.lang == Lang::Ruby {
                    implements.rev().chain(extends).collect()
                } else {
                    extends.chain(implements).collect()
                };
                for (name, kind) in heritage {
                    if let Some((base, conf)) = self.resolve_type(fi, Some(di as u32), name)
                        && base != node
                        && self.union_members(base).is_none()
                    {
                        let kind = if matches!(f.lang, Lang::Swift | Lang::Scala) {
                            self.swift_heritage_kind(d.kind, base)
                        } else {
                            kind
                        };
                        self.b.add_edge(node, base, kind, conf, Reason::Heritage);
                        self.b.add_reference(Reference {
                            from: node,
                            to: base,
                            line: d.start_line,
                            kind: RefKind::Inherit,
                            confidence: conf,
                            reason: Reason::Heritage,
                        });
                        self.bases.entry(node).or_default().push(base);
                        if f.lang == Lang::Ruby {
                            self.ruby_subtypes.entry(base).or_default().push(node);
                        }
                    }
                }
            }
        }
    }

    /// Rust methods of `impl` blocks written in another file than their type (`impl Handle`
    /// where `Handle` is imported) become members of that type: the type as the file's scope
    /// resolves it, else the only type of that name project-wide when the file imports no
    /// such name. Go methods join their type in another file of their package. Methods for
    /// tests only give way to real ones of the same name.
    pub(super) fn adopt_foreign_methods(&mut self) {
        for (fi, di) in std::mem::take(&mut self.foreign_methods) {
            let f = self.files.at(fi);
            // A C++ class is found through the file's includes: once they are known.
            if f.lang == Lang::Cpp && !self.c_includes_known {
                self.foreign_methods.push((fi, di));
                continue;
            }
            let Some(def) = f.defs.get(di as usize) else {
                continue;
            };
            let Some((ty, _)) = def.qualified.rsplit_once('.') else {
                continue;
            };
            let imported = f
                .imports
                .iter()
                .any(|i| i.names.iter().any(|n| n.local() == ty));
            let id = self.def_node[fi][di as usize];
            // A C++ `Outer::Inner::f` names its class by a path whose first segments may be
            // namespaces rather than types: the longest path that is a type is the owner.
            let owner = type_paths(ty).find_map(|ty| {
                // A Go method's type is in its own package: found by the file's scope, surely.
                self.resolve_type(fi, def.parent, ty)
                    .filter(|&(_, conf)| {
                        conf >= confidence::IMPORT
                            || !(imported || ty.contains("::") || f.lang == Lang::Go)
                    })
                    .map(|(owner, _)| owner)
            });
            let Some(owner) = owner else {
                // A Go method (Swift: a method of an extension) of a type the project does not
                // show is still a method of its name: a candidate for calls on receivers of
                // unknown type.
                if matches!(f.lang, Lang::Go | Lang::Swift) {
                    self.methods.entry(def.name.as_str()).or_default().push(id);
                }
                // A C++ `ns::f` of no project type is a function of a namespace: a name of the
                // file like any other function.
                if f.lang == Lang::Cpp {
                    self.top_level[fi]
                        .entry(def.name.as_str())
                        .or_default()
                        .push(di);
                    if def.exported {
                        self.globals.entry(def.name.as_str()).or_default().push(id);
                    }
                }
                continue;
            };
            self.b
                .add_edge(id, owner, EdgeKind::MemberOf, 1.0, Reason::Member);
            self.adopted.insert(id, owner);
            self.methods.entry(def.name.as_str()).or_default().push(id);
            let slot = self
                .members
                .get(&owner)
                .and_then(|m| m.get(def.name.as_str()))
                .copied();
            // Two C++ definitions of one name in a class, in different files, are overloads that
            // are different symbols (in one file they are one: `Method:FILE:A.f`).
            if f.lang == Lang::Cpp
                && let Some(other) = slot
                && self
                    .node_def
                    .get(&other)
                    .is_some_and(|&(file, _)| file != fi)
            {
                self.cpp_overloads.extend([other, id]);
            }
            if slot.is_none_or(|s| self.is_test_node(s) && !self.is_test_node(id)) {
                self.members
                    .entry(owner)
                    .or_default()
                    .insert(def.name.as_str(), id);
            }
        }
    }
}

/// `a.b.C`, `b.C`, `C`: a written type path, then the same without its first segments.
fn type_paths(path: &str) -> impl Iterator<Item = &str> {
    std::iter::once(path).chain(path.match_indices('.').map(move |(at, _)| &path[at + 1..]))
}
