//! Call resolution: each call site to its targets (local, imported, self, receiver-typed, or by
//! name project-wide), with a confidence and a reason, as CALLS edges.

use super::builtins::{BUILTIN_METHOD_NAMES, PYTHON_BUILTINS};
use super::infer;
use super::scope::{self, Target};
use super::{MAX_AMBIGUOUS, MAX_NARROWED, MAX_RETURN_DEPTH, Resolver, confidence, dotted_callee};
use crate::facts::{Callee, Receiver};
use crate::graph::{EdgeKind, NodeKind, Reason};
use crate::lang::Lang;

impl<'a> Resolver<'a> {
    /// The calls of the files in `order` (indexes into `files`).
    pub(super) fn calls(&mut self, order: &[usize]) {
        let files = self.files.all;
        for &fi in order {
            let Some(f) = files.get(fi) else {
                continue;
            };
            if self.keep_calls(fi) {
                continue;
            }
            self.begin_file();
            let (sites, resolved) = (self.stats.call_sites, self.stats.calls_resolved);
            let mut made = Vec::new();
            for call in &f.calls {
                self.stats.call_sites += 1;
                // A call in a Rust block whose `cfg` does not hold, inside real code, is not
                // compiled: no edge.
                if f.lang == Lang::Rust
                    && f.in_test_code(call.line)
                    && !call.caller.is_some_and(|d| f.is_test_def(d))
                {
                    continue;
                }
                let from = match call.caller {
                    Some(d) => self.def_node[fi][d as usize],
                    None => self.file_node[fi],
                };
                self.resolving.set(Some((fi, call.caller, call.line)));
                let targets = self.resolve_call(fi, call.caller, &call.callee, 0);
                self.resolving.set(None);
                if !targets.is_empty() {
                    self.stats.calls_resolved += 1;
                }
                for (to, conf, reason) in targets {
                    let (to, conf) = match call.args {
                        Some(args) if f.lang.is_java_family() => self.java_overload(to, conf, args),
                        _ => (to, conf),
                    };
                    let to = if f.lang == Lang::CSharp {
                        self.csharp_overridden(to)
                    } else {
                        to
                    };
                    // A C++ overload set split across definitions: which one is called depends
                    // on argument types the resolver does not weigh.
                    let (conf, reason) = if self.cpp_overloads.contains(&to) {
                        (conf.min(confidence::AMBIGUOUS_PAIR), Reason::Ambiguous)
                    } else {
                        (conf, reason)
                    };
                    // Recursion is kept when the receiver is certain (a bare name, `self`/`this`
                    // or a known type); a guessed receiver landing on its own caller is dropped.
                    let certain = matches!(call.callee, Callee::Name(_))
                        || matches!(
                            reason,
                            Reason::SelfMethod | Reason::ReceiverType | Reason::AttributeType
                        )
                        // Ruby's `new(…)` in `def self.new`, `Foo.m` in `Foo.m`: a known class.
                        || (f.lang == Lang::Ruby && reason == Reason::ClassMember);
                    if to != from || certain {
                        // An edge reads its target (kept edges point into unchanged files).
                        self.reads.node(to);
                        self.b.add_edge(from, to, EdgeKind::Calls, conf, reason);
                        made.push((from, to, conf, reason));
                    }
                }
            }
            let (sites, resolved) = (
                self.stats.call_sites - sites,
                self.stats.calls_resolved - resolved,
            );
            self.end_calls(fi, &made, sites, resolved);
        }
    }

    /// A function or class name written in PHP: as [`Self::lookup_name`] finds it, else by a
    /// spelling that differs in case only (PHP's names match without regard to case; a
    /// variable's name is no such name).
    pub(super) fn php_lookup_name(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(Target, f32, Reason)> {
        let found = self.lookup_name(fi, scope, name);
        if found.is_some() {
            return found;
        }
        let last = name.rsplit('\\').next().unwrap_or(name);
        self.php_other_spellings(last)
            .into_iter()
            .find_map(|spelling| {
                let respelled = format!("{}{spelling}", &name[..name.len() - last.len()]);
                self.lookup_name(fi, scope, &respelled)
            })
    }

    /// What a bare name means in a scope: a local definition, a file-level one, an import,
    /// or (Go, Java) a definition elsewhere in the same package.
    pub(super) fn lookup_name(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(Target, f32, Reason)> {
        let f = &self.files[fi];
        if f.lang == Lang::Php
            && let Some(qualified) = name.strip_prefix('\\')
        {
            return self.php_qualified(qualified, false);
        }
        for d in self.scope_chain(fi, scope) {
            // A Zig container is a namespace: its declarations, functions included, are names
            // in scope of everything inside it.
            if f.lang == Lang::Zig
                && f.defs.get(d as usize).is_some_and(|x| x.kind.is_type())
                && let Some(i) = f
                    .defs
                    .iter()
                    .position(|x| x.parent == Some(d) && x.name == name)
            {
                return Some((
                    Target::Node(self.def_node[fi][i]),
                    confidence::SAME_FILE,
                    Reason::SameFile,
                ));
            }
            // A class's members are not in the lexical scope of its methods (`f()` inside a
            // method is not `this.f()`; Java's implicit `this` is handled on its own).
            if f.defs.get(d as usize).is_some_and(|x| x.kind.is_type()) {
                continue;
            }
            // A method here belongs to an object literal: a property, not a name in scope.
            if let Some(i) = f
                .defs
                .iter()
                .position(|x| x.parent == Some(d) && x.name == name && x.kind != NodeKind::Method)
            {
                return Some((
                    Target::Node(self.def_node[fi][i]),
                    confidence::LOCAL,
                    Reason::LocalScope,
                ));
            }
            // A variable or parameter of this scope hides every name outside it.
            if f.lang.is_js_family() && self.var(fi, name, Some(d)).is_some_and(|b| b.declared) {
                return None;
            }
        }
        if let Some(d) = self.top_level[fi]
            .get(name)
            .and_then(|v| f.visible_definition(v))
        {
            // A stand-in definition gives way to an import of the same name; so does a
            // JavaScript or TypeScript one (a module cannot declare an imported name again:
            // the definition sits in a function the index has no definition for), and one in
            // a branch after an import of the name in an earlier branch (`if WIN: from ._win
            // import f` / `else: def f(): …`): of alternatives, the first is meant.
            let imported_before = |def: &crate::facts::Def| {
                def.conditional
                    && f.imports.iter().any(|i| {
                        i.line < def.start_line && i.names.iter().any(|n| n.local() == name)
                    })
            };
            if (f.is_test_def(d)
                || f.lang.is_js_family()
                || f.defs.get(d as usize).is_some_and(imported_before))
                && let Some(t) = self.binding(fi, name)
            {
                return Some((t, confidence::IMPORT, Reason::ImportResolved));
            }
            return Some((
                Target::Node(self.def_node[fi][d as usize]),
                confidence::SAME_FILE,
                Reason::SameFile,
            ));
        }
        if let Some(t) = self.binding(fi, name) {
            return Some((t, confidence::IMPORT, Reason::ImportResolved));
        }
        if f.lang.is_c_family() {
            // A definition in a header the file's includes reach (a `static inline` function).
            return self.c_included_definition(fi, name).map(|(file, d)| {
                (
                    Target::Node(self.def_node[file][d as usize]),
                    confidence::IMPORT,
                    Reason::ImportResolved,
                )
            });
        }
        if let Some(t) = self.scopes.wildcard_lookup(
            fi,
            name,
            &self.files,
            self.modules(),
            &self.top_level,
            &self.def_node,
        ) {
            return Some((t, confidence::IMPORT, Reason::ImportResolved));
        }
        let package_mates: &[usize] = match f.lang {
            Lang::Go => self.modules().same_dir_go(&f.path),
            Lang::Java | Lang::CSharp | Lang::Swift | Lang::Kotlin | Lang::Dart | Lang::Scala => {
                f.package.as_deref().map_or(&[], |p| self.modules().java(p))
            }
            Lang::Php => self.modules().php(f.package.as_deref().unwrap_or_default()),
            _ => &[],
        };
        // A definition in stand-in code (a Go file another platform builds) gives way to a real
        // one in another file of the package.
        let mut stand_in = None;
        for &mate in package_mates {
            if mate != fi
                && let Some(&d) = self.top_level[mate].get(name).and_then(|v| v.first())
            {
                let hit = (
                    Target::Node(self.def_node[mate][d as usize]),
                    confidence::SAME_FILE,
                    Reason::SameFile,
                );
                if !self.files[mate].is_test_def(d) {
                    return Some(hit);
                }
                stand_in.get_or_insert(hit);
            }
        }
        // PHP: a function the namespace does not define is the global namespace's.
        if f.lang == Lang::Php && stand_in.is_none() {
            return self.php_qualified(name, true);
        }
        stand_in
    }

    /// The definition a fully qualified PHP name (`A\B\C`, without its leading `\`) names:
    /// `C` in a file declaring namespace `A\B`; with `functions_only`, a function only (PHP
    /// falls back to the global namespace for functions, never for classes).
    fn php_qualified(&self, name: &str, functions_only: bool) -> Option<(Target, f32, Reason)> {
        let (namespace, last) = name.rsplit_once('\\').unwrap_or(("", name));
        self.modules.php(namespace).iter().find_map(|&file| {
            let d = self.top_level[file]
                .get(last)
                .and_then(|v| self.files[file].visible_definition(v))?;
            let def = self.files[file].defs.get(d as usize)?;
            if functions_only && def.kind != NodeKind::Function {
                return None;
            }
            Some((
                Target::Node(self.def_node[file][d as usize]),
                confidence::IMPORT,
                Reason::ImportResolved,
            ))
        })
    }

    /// The definition of `name` as (file, def) in the nearest of the files C file `fi`'s
    /// includes reach that defines one visibly: the files defining the name are looked up
    /// (`c_definers`) and placed in the include closure, rather than the closure searched.
    /// Every file of the closure counts as read (whether it defines the name or not decides).
    fn c_included_definition(&self, fi: usize, name: &str) -> Option<(usize, u32)> {
        self.reads.file(fi);
        let closure = self.c_include_closure(fi)?;
        let closure = &closure[..];
        self.reads.files_once(fi, closure);
        let visible = |file: usize| {
            let same_name = self.top_level.raw().get(file)?.get(name)?;
            self.files.all.get(file)?.visible_definition(same_name)
        };
        let definers = self.c_definers.get(name)?;
        if definers.len() >= closure.len() {
            return closure
                .iter()
                .find_map(|&file| visible(file).map(|d| (file, d)));
        }
        let mut rank = self.c_rank.borrow_mut();
        if rank.as_ref().is_none_or(|(of, _)| *of != fi) {
            let places = closure
                .iter()
                .enumerate()
                .map(|(place, &file)| (file as u32, place as u32))
                .collect();
            *rank = Some((fi, places));
        }
        let places = &rank.as_ref()?.1;
        definers
            .iter()
            .filter_map(|&file| Some((*places.get(&file)?, file as usize)))
            .filter_map(|(place, file)| Some((place, file, visible(file)?)))
            .min_by_key(|&(place, _, _)| place)
            .map(|(_, file, d)| (file, d))
    }

    /// Whether a C name called in `scope` is no function of the project: a parameter or a
    /// local variable (a function pointer), or a function-like macro the file defines (expanded,
    /// not called).
    pub(super) fn c_hidden(&self, fi: usize, scope: Option<u32>, name: &str) -> bool {
        let declared = |s: Option<u32>| self.var(fi, name, s).is_some_and(|b| b.declared);
        self.scope_chain(fi, scope)
            .into_iter()
            .any(|d| declared(Some(d)))
            || declared(None)
    }

    /// What is known of a bare name no definition explains (JavaScript, TypeScript): a
    /// variable or parameter in scope, or a name imported from a project file or a relative
    /// path, is a value no project-wide guess applies to (`Some(true)`); a name imported from a
    /// package specifier may still be a project definition behind a path alias (`Some(false)`).
    fn imported_or_declared(&self, fi: usize, scope: Option<u32>, name: &str) -> Option<bool> {
        let f = &self.files[fi];
        if !f.lang.is_js_family() {
            return None;
        }
        let declared = |s: Option<u32>| self.var(fi, name, s).is_some_and(|b| b.declared);
        if self
            .scope_chain(fi, scope)
            .into_iter()
            .any(|d| declared(Some(d)))
            || declared(None)
        {
            return Some(true);
        }
        let (at, import) = f
            .imports
            .iter()
            .enumerate()
            .filter(|(_, i)| !i.reexport)
            .find(|(_, i)| {
                i.module_alias.as_deref() == Some(name) || i.names.iter().any(|n| n.local() == name)
            })?;
        let known = import.module.starts_with('.') || !self.import_files(fi, at).is_empty();
        Some(known)
    }

    /// The targets of a call written in `scope` of file `fi`; `depth` counts the return types
    /// followed to find a receiver's type.
    pub(super) fn resolve_call(
        &self,
        fi: usize,
        scope: Option<u32>,
        callee: &Callee,
        depth: u32,
    ) -> Vec<(u32, f32, Reason)> {
        let f = &self.files[fi];
        if f.lang == Lang::Elixir {
            return self.elixir_call(fi, scope, callee);
        }
        match callee {
            Callee::Name(name) if f.lang == Lang::Ruby => self.ruby_bare_call(fi, scope, name),
            Callee::Name(name) => {
                // A C or Zig parameter, local or constant (Zig has no shadowing: a name declared
                // around the call is that value, a function pointer or an alias).
                if (f.lang.is_c_family() || f.lang == Lang::Zig) && self.c_hidden(fi, scope, name) {
                    return Vec::new();
                }
                // In a C++ method (in its class or out of line) a member of its class or of a
                // base hides every other name.
                if f.lang == Lang::Cpp
                    && let Some(hit) = self.own_member(fi, scope, name)
                {
                    return vec![hit];
                }
                // Inside a Kotlin extension function, a member of its receiver type.
                if f.lang == Lang::Kotlin
                    && let Some(hit) = self.kotlin_receiver_member(fi, scope, name)
                {
                    return vec![hit];
                }
                // Inside a Dart extension's member, a member of the extension first, then one
                // of the type it is on.
                if f.lang == Lang::Dart
                    && let Some(hit) = self.dart_extension_member(fi, scope, name)
                {
                    return vec![hit];
                }
                let found = if f.lang == Lang::Php {
                    self.php_lookup_name(fi, scope, name)
                } else {
                    self.lookup_name(fi, scope, name)
                };
                // Scala: a member of the enclosing classes (own or inherited) comes before the
                // file's and the package's names and the imports; only a local `def` hides it.
                if f.lang == Lang::Scala
                    && !matches!(found, Some((_, _, Reason::LocalScope)))
                    && let Some(hit) = self
                        .java_implicit_this(fi, scope, name)
                        .or_else(|| self.scala_value_import(fi, scope, name, true, depth))
                {
                    return self.scala_apply(vec![hit]);
                }
                if let Some((target, conf, reason)) = found {
                    let hits = self.callable(target, conf, reason);
                    // Scala's `Foo(…)`: the companion's `apply`, else the construction.
                    if f.lang == Lang::Scala {
                        return self.scala_apply(hits);
                    }
                    return hits;
                }
                // Scala: a member of a value the file imports from (`import intp._`), else of a
                // base of the package object of an enclosing package.
                if f.lang == Lang::Scala
                    && let Some(hit) = self
                        .scala_value_import(fi, scope, name, false, depth)
                        .or_else(|| self.scala_package_object_member(fi, name))
                {
                    return self.scala_apply(vec![hit]);
                }
                // PHP looks a function up in the namespace, then the global one: nothing else.
                // A Bash command that is no function of the script or of a file it sources is
                // a program or a builtin.
                if matches!(f.lang, Lang::Php | Lang::Bash) {
                    return Vec::new();
                }
                let package_import = match self.imported_or_declared(fi, scope, name) {
                    Some(true) => return Vec::new(),
                    Some(false) => true,
                    None => false,
                };
                if f.lang.is_java_family()
                    && let Some(hit) = self
                        .java_implicit_this(fi, scope, name)
                        .or_else(|| self.java_static_import(fi, name))
                {
                    return vec![hit];
                }
                if f.lang == Lang::Python && PYTHON_BUILTINS.contains(&name.as_str()) {
                    return Vec::new();
                }
                let guesses = self.fallback(self.globals.get(name.as_str()), fi);
                // Swift sees the names of its module and the modules it imports, Dart those of
                // its library and the libraries it imports, which the lookup above searched: a
                // definition elsewhere is a candidate at most. Zig has no implicit names
                // either: what scope, imports and `usingnamespace` do not hold is a guess. A
                // Lua global defined in another file is reached only once that file has run,
                // which nothing in the caller shows.
                if package_import
                    || matches!(f.lang, Lang::Swift | Lang::Dart | Lang::Zig | Lang::Lua)
                {
                    // Most likely the package's own function: a candidate at most.
                    return guesses
                        .into_iter()
                        .map(|(n, c, r)| (n, c.min(confidence::AMBIGUOUS_PAIR), r))
                        .collect();
                }
                guesses
            }
            Callee::New(ty) => match self.resolve_type(fi, scope, ty) {
                Some((t, conf)) if self.union_members(t).is_none() => {
                    vec![(t, conf, Reason::Constructor)]
                }
                _ => Vec::new(),
            },
            Callee::Member { receiver, name } => {
                // A C# value of a keyword type (`"text".M()`, `string.Join(…)`): only an
                // extension method of the project.
                if f.lang == Lang::CSharp
                    && let Receiver::Name(var) = receiver
                    && super::csharp::PREDEFINED_TYPES.contains(&var.as_str())
                {
                    return self
                        .csharp_extension(fi, scope, receiver, name, depth)
                        .into_iter()
                        .collect();
                }
                if f.lang == Lang::Zig && self.zig_package_receiver(fi, scope, receiver) {
                    return Vec::new();
                }
                let mut hits = self.resolve_member(fi, scope, receiver, name, depth);
                // A Zig method found by its name alone (a receiver of unknown type): a candidate.
                if f.lang == Lang::Zig {
                    for hit in &mut hits {
                        if matches!(hit.2, Reason::UniqueGlobal | Reason::ImportedCandidate) {
                            hit.1 = hit.1.min(confidence::AMBIGUOUS_PAIR);
                        }
                    }
                }
                // A Swift protocol's method reached through a value of the protocol's type: the
                // implementations of the conforming types are candidates beside it.
                if f.lang == Lang::Swift
                    && let [
                        (
                            method,
                            _,
                            Reason::ReceiverType | Reason::AttributeType | Reason::ReturnType,
                        ),
                    ] = hits[..]
                {
                    for m in self.swift_implementations(method, name) {
                        hits.push((m, super::swift::IMPLEMENTATION, Reason::Ambiguous));
                    }
                }
                // A C# extension method, Kotlin extension function, Dart extension member or
                // Scala extension method (or implicit class's method), when no member was found
                // through the receiver (only a guess by name, or nothing).
                if matches!(
                    f.lang,
                    Lang::CSharp | Lang::Kotlin | Lang::Dart | Lang::Scala
                ) && hits.iter().all(|&(_, _, reason)| {
                    matches!(
                        reason,
                        Reason::UniqueGlobal | Reason::ImportedCandidate | Reason::Ambiguous
                    )
                }) && let Some(hit) = self.csharp_extension(fi, scope, receiver, name, depth)
                {
                    if f.lang == Lang::Scala {
                        return vec![(hit.0, hit.1.min(super::scala::EXTENSION), hit.2)];
                    }
                    return vec![hit];
                }
                hits
            }
            Callee::Scoped { path, name } if f.lang == Lang::Cpp => {
                self.cpp_scoped(fi, scope, path, name)
            }
            Callee::Scoped { path, name } if f.lang == Lang::Ruby => {
                self.ruby_class_call(fi, scope, path, name)
            }
            // PHP `T::m()`: a member of class `T` (its own, inherited or from a trait used).
            Callee::Scoped { path, name } if f.lang == Lang::Php => self
                .resolve_type(fi, scope, path)
                .and_then(|(ty, conf)| {
                    self.typed_member(ty, conf, name, confidence::IMPORT, Reason::ClassMember)
                })
                .into_iter()
                .collect(),
            Callee::Scoped { path, name } => {
                if let Some((ty, conf)) = self.resolve_type(fi, scope, path)
                    && let Some(hit) = self.typed_member(ty, conf, name, 1.0, Reason::ClassMember)
                {
                    // `Latch::set(&x)` runs the implementation for `x`'s type: when the project
                    // implements the trait's method, its declaration is a candidate only (`L::f()`
                    // through a type parameter bound by the trait stays the declaration).
                    if self.kind_of(ty) == Some(NodeKind::Trait)
                        && self.type_param_bound(fi, scope, path).is_none()
                        && self.implemented(ty, name)
                    {
                        return vec![(hit.0, confidence::AMBIGUOUS_PAIR, Reason::Ambiguous)];
                    }
                    return vec![hit];
                }
                if let Some(file) = self.modules().rust(&f.path, path) {
                    let inline = path.rsplit("::").next().unwrap_or(path);
                    // Of `cfg` alternatives the real one; a `mod name;` is no function.
                    let found = self.top_level[file]
                        .get(name.as_str())
                        .and_then(|v| self.files[file].visible_definition(v))
                        .filter(|&d| {
                            self.files[file]
                                .defs
                                .get(d as usize)
                                .is_some_and(|x| x.kind != NodeKind::Module)
                        })
                        .or_else(|| self.inline_module_member(file, inline, name));
                    if let Some(d) = found {
                        return vec![(
                            self.def_node[file][d as usize],
                            confidence::IMPORT,
                            Reason::ImportResolved,
                        )];
                    }
                }
                // `memchr::memchr()` where `use crate::util::memchr;` names a module file.
                if f.lang == Lang::Rust
                    && let Some(m) = self.imported_module_file(fi, path)
                    && let Some(hit) = self.export_of(&[m], name, confidence::IMPORT)
                {
                    return vec![hit];
                }
                // `context::budget()` where `use crate::runtime::context;` binds the module.
                if f.lang == Lang::Rust
                    && let Some(target) = self.path_target(fi, path)
                    && let Some(hit) = self.module_member(target, name)
                {
                    return vec![hit];
                }
                Vec::new()
            }
        }
    }

    /// C++ `A::f()` or `ns::f()`: a member of the type `A` names (its own or inherited), else,
    /// when the path names no project type, the function `f` of a namespace, found as a plain
    /// name is.
    fn cpp_scoped(
        &self,
        fi: usize,
        scope: Option<u32>,
        path: &str,
        name: &str,
    ) -> Vec<(u32, f32, Reason)> {
        let last = path.rsplit("::").next().unwrap_or(path);
        if let Some((ty, conf)) = self.resolve_type(fi, scope, last) {
            return self
                .typed_member(ty, conf, name, conf, Reason::ClassMember)
                .into_iter()
                .collect();
        }
        if self.c_hidden(fi, scope, name) {
            return Vec::new();
        }
        if let Some((target, conf, reason)) = self.lookup_name(fi, scope, name) {
            return self.callable(target, conf, reason);
        }
        self.fallback(self.globals.get(name), fi)
    }

    /// Whether a C++ receiver is declared (as a local, a parameter or a field of the method's
    /// class) with a type that is no project type.
    fn cpp_outside(&self, fi: usize, scope: Option<u32>, var: &str) -> bool {
        self.cpp_declared(fi, scope, var)
            .is_some_and(|(file, at, ty)| self.resolve_type(file, at, &ty).is_none())
    }

    /// The type a C++ name is declared with, as a local or parameter, else as a field of the
    /// method's class: (the file and scope it is written in, the type).
    fn cpp_declared(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
    ) -> Option<(usize, Option<u32>, String)> {
        if let Some(ty) = self.binding_type(fi, scope, var) {
            return Some((fi, scope, ty));
        }
        let &(file, def) = self
            .owner_type(fi, scope)
            .and_then(|owner| self.node_def.get(&owner))?;
        self.attribute_type(file, def, var)
            .map(|(file, class, ty)| (file, Some(class), ty.to_owned()))
    }

    /// Java's (and C#'s) implicit `this` for a bare `name(…)`: a method of the innermost class around
    /// `scope` that has one by that name (its own or inherited), else of a class further out.
    /// A name of `Object`'s (or C#'s `object`'s) methods, which every class has, never goes further out. Past a
    /// class that inherits from a type outside the project (which may hold that method), only a
    /// name no built-in container has is looked for, and a hit is less sure (`INHERITED`: right
    /// 90 times of 90 on the Java corpora).
    fn java_implicit_this(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(u32, f32, Reason)> {
        const OBJECT_METHODS: &[&str] = &[
            "clone",
            "equals",
            "finalize",
            "getClass",
            "hashCode",
            "notify",
            "notifyAll",
            "toString",
            "wait",
            "Equals",
            "GetHashCode",
            "GetType",
            "MemberwiseClone",
            "ReferenceEquals",
            "ToString",
        ];
        let defs = &self.files[fi].defs;
        let mut cap = confidence::SELF_METHOD;
        for d in self.scope_chain(fi, scope) {
            let node = self.def_node[fi][d as usize];
            // A Swift method of an extension in another file than its type: that type's.
            let ty = if defs.get(d as usize).is_some_and(|x| x.kind.is_type()) {
                node
            } else if let Some(&owner) = self.adopted.get(&node) {
                owner
            } else {
                continue;
            };
            if let Some((m, conf, reason)) =
                self.typed_member(ty, 1.0, name, confidence::SELF_METHOD, Reason::SelfMethod)
            {
                return Some((m, conf.min(cap), reason));
            }
            if OBJECT_METHODS.contains(&name) {
                return None;
            }
            if !self.java_closed(ty) {
                if BUILTIN_METHOD_NAMES.contains(&name) {
                    return None;
                }
                cap = confidence::INHERITED;
            }
        }
        None
    }

    /// Java picks a method among the overloads of its name by the arguments: when no method of
    /// that name in the target's class takes `args` arguments, the one a base class declares
    /// with that many (the nearest) is called. Otherwise, or when no base has one, the target
    /// stays.
    fn java_overload(&self, target: u32, conf: f32, args: u32) -> (u32, f32) {
        let Some(&(file, def)) = self.node_def.get(&target) else {
            return (target, conf);
        };
        let defs = &self.files[file].defs;
        let Some(method) = defs.get(def as usize).filter(|d| d.kind.is_callable()) else {
            return (target, conf);
        };
        let name = method.name.as_str();
        // Whether the type of node `ty` declares a method `name` taking `args` arguments.
        let accepts = |ty: u32| -> Option<Option<u32>> {
            let &(file, class) = self.node_def.get(&ty)?;
            let defs = &self.files[file].defs;
            let mut overloads = defs
                .iter()
                .enumerate()
                .filter(|(_, d)| d.parent == Some(class) && d.name == name && d.kind.is_callable());
            Some(
                overloads
                    .find(|(_, d)| {
                        java_arity(&d.signature, name)
                            .is_none_or(|(min, max)| min <= args && args <= max)
                    })
                    .map(|(i, _)| self.def_node[file][i]),
            )
        };
        let Some(class) = method.parent.map(|p| self.def_node[file][p as usize]) else {
            return (target, conf);
        };
        if accepts(class).flatten().is_some() {
            return (target, conf);
        }
        let mut queue: Vec<u32> = self.bases.get(&class).cloned().unwrap_or_default();
        let mut seen = rustc_hash::FxHashSet::default();
        let mut i = 0;
        while let Some(&ty) = queue.get(i) {
            i += 1;
            if !seen.insert(ty) || seen.len() > 64 {
                continue;
            }
            if let Some(found) = accepts(ty).flatten() {
                return (found, conf.min(confidence::INHERITED));
            }
            queue.extend(self.bases.get(&ty).into_iter().flatten());
        }
        (target, conf)
    }

    /// Whether a Java receiver is of a type outside the project: a variable, parameter or field
    /// declared with a type that is neither a project type nor a type parameter in scope, or
    /// none of those but a capitalized name of no project type (a class such as `String`).
    fn java_outside(&self, fi: usize, scope: Option<u32>, var: &str) -> bool {
        let outside = |file: usize, scope: Option<u32>, ty: &str| {
            self.resolve_type(file, scope, ty).is_none()
                && !self.java_type_parameter(file, scope, ty)
        };
        if let Some(ty) = self.binding_type(fi, scope, var) {
            return outside(fi, scope, &ty);
        }
        // A field of a class around the call (or of its bases), as declared there.
        let defs = &self.files[fi].defs;
        let field = self.scope_chain(fi, scope).into_iter().find_map(|d| {
            defs.get(d as usize)
                .is_some_and(|x| x.kind.is_type())
                .then(|| self.attribute_type(fi, d, var))
                .flatten()
        });
        match field {
            Some((file, class, written)) => outside(file, Some(class), written),
            None => {
                var.starts_with(char::is_uppercase)
                    && var.contains(char::is_lowercase)
                    && outside(fi, scope, var)
            }
        }
    }

    /// Whether `ty` is a type parameter of a method or class around `scope` (`<T>`, `<K, V
    /// extends Comparable<V>>` written before the parameters or after the class name).
    fn java_type_parameter(&self, fi: usize, scope: Option<u32>, ty: &str) -> bool {
        let defs = &self.files[fi].defs;
        self.scope_chain(fi, scope).into_iter().any(|d| {
            let Some(def) = defs.get(d as usize) else {
                return false;
            };
            let header = def.signature.split('(').next().unwrap_or("");
            // The parameters' `<` starts a word (a method's `<T> T f(`) or follows the class's
            // name (`class Box<T>`); other `<`s open a type's arguments (`implements List<E>`).
            let Some(open) = header.match_indices('<').map(|(i, _)| i).find(|&i| {
                let before = &header[..i];
                let word_start = before.is_empty() || before.ends_with(char::is_whitespace);
                word_start
                    || before
                        .strip_suffix(def.name.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.ends_with(char::is_whitespace))
            }) else {
                return false;
            };
            let mut depth = 0usize;
            let mut start = open + 1;
            let mut names = Vec::new();
            for (i, c) in header.char_indices().skip_while(|&(i, _)| i <= open) {
                match c {
                    '<' => depth += 1,
                    '>' if depth == 0 => {
                        names.push(&header[start..i]);
                        break;
                    }
                    '>' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(&header[start..i]);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            names
                .iter()
                .any(|n| n.split_whitespace().next() == Some(ty))
        })
    }

    /// Whether every supertype a Java type names, and theirs in turn, is a project type.
    fn java_closed(&self, ty: u32) -> bool {
        let mut queue = vec![ty];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(t) = queue.pop() {
            if !seen.insert(t) {
                continue;
            }
            let Some(def) = self
                .node_def
                .get(&t)
                .and_then(|&(file, d)| self.files[file].defs.get(d as usize))
            else {
                return false;
            };
            let bases = self.bases.get(&t).map_or(&[][..], Vec::as_slice);
            if seen.len() > 64 || bases.len() < def.extends.len() + def.implements.len() {
                return false;
            }
            queue.extend(bases);
        }
        true
    }

    /// A method a Java file imports statically (`import static a.b.C.m;`, `import static
    /// a.b.C.*;`) from a project class.
    fn java_static_import(&self, fi: usize, name: &str) -> Option<(u32, f32, Reason)> {
        self.files[fi]
            .imports
            .iter()
            .filter(|i| i.reexport && (i.wildcard || i.names.iter().any(|n| n.name == name)))
            .find_map(|i| {
                let (package, class) = i.module.rsplit_once('.')?;
                let ty = self.modules().java(package).iter().find_map(|&file| {
                    let &d = self.top_level[file].get(class)?.first()?;
                    let node = self.def_node[file][d as usize];
                    self.kind_of(node)
                        .is_some_and(NodeKind::is_type)
                        .then_some(node)
                })?;
                let (m, _) = self.find_member(ty, name)?;
                self.kind_of(m)
                    .is_some_and(NodeKind::is_callable)
                    .then_some((m, confidence::IMPORT, Reason::ImportResolved))
            })
    }

    /// A call target: functions as they are; a type means its construction.
    pub(super) fn callable(
        &self,
        target: Target,
        conf: f32,
        reason: Reason,
    ) -> Vec<(u32, f32, Reason)> {
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
    pub(super) fn sure_target(
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

    pub(super) fn resolve_member(
        &self,
        fi: usize,
        scope: Option<u32>,
        receiver: &Receiver,
        name: &str,
        depth: u32,
    ) -> Vec<(u32, f32, Reason)> {
        let f = &self.files[fi];
        // C++ `p->f()`: through what `p->` is bound to (a smart pointer's object), else `p`.
        if f.lang == Lang::Cpp
            && let Receiver::Name(var) = receiver
            && let Some(base) = var.strip_suffix("->")
            && self.cpp_declared(fi, scope, var).is_none()
        {
            return self.resolve_member(fi, scope, &Receiver::Name(base.to_owned()), name, depth);
        }
        // Ruby: `f.m` where `f` returns a class; `x.new` on nothing known to be a class is no
        // method found by its name.
        if f.lang == Lang::Ruby
            && let Receiver::Call(chain) = receiver
        {
            if let Some(hits) = self.ruby_class_result_call(fi, scope, chain, name, depth) {
                return hits;
            }
            if name == "new" {
                return Vec::new();
            }
        }
        match receiver {
            Receiver::SelfRef => {
                if let Some(hit) = self.own_member(fi, scope, name) {
                    if f.lang == Lang::Ruby {
                        return self.ruby_self_dispatch(fi, scope, hit, name);
                    }
                    return vec![hit];
                }
                // A function declaring what `this` is (`function f(this: Annotation)`): through
                // that type only, never a guess by name.
                if f.lang.is_js_family()
                    && self.owner_type(fi, scope).is_none()
                    && let Some(declared) = self.binding_type(fi, scope, "this")
                {
                    return self
                        .resolve_type(fi, scope, &declared)
                        .map(|(t, conf)| {
                            self.typed_members(
                                t,
                                conf,
                                name,
                                confidence::RECEIVER_TYPE,
                                Reason::ReceiverType,
                            )
                        })
                        .unwrap_or_default();
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
                if f.lang == Lang::Ruby
                    && let Some(owner) = self.owner_type(fi, scope)
                {
                    return self.ruby_super(owner, name).into_iter().collect();
                }
                if let Some(owner) = self.owner_type(fi, scope) {
                    for &base in self.bases.get(&owner).map_or(&[][..], Vec::as_slice) {
                        if let Some((m, _)) = self.find_member(base, name) {
                            return vec![(m, confidence::INHERITED, Reason::SuperMethod)];
                        }
                    }
                }
            }
            Receiver::Name(var) => {
                let typed = self.variable_type(fi, scope, var, depth);
                if let Some((t, conf)) = typed {
                    let hits = self.typed_members(
                        t,
                        conf,
                        name,
                        confidence::RECEIVER_TYPE,
                        Reason::ReceiverType,
                    );
                    // A Go type's method set is its methods and those of the types it embeds:
                    // a method it lacks is one of an embedded type outside the project.
                    if !hits.is_empty() || f.lang == Lang::Go {
                        return hits;
                    }
                }
                // A Zig parameter its callers pass several types: each one's method.
                if f.lang == Lang::Zig && typed.is_none() {
                    let hits = self.zig_caller_typed_members(fi, scope, var, name);
                    if !hits.is_empty() {
                        return hits;
                    }
                }
                // A Go variable declared with a type of a package outside the project
                // (`out reflect.Value`) calls none of the project's methods.
                if f.lang == Lang::Go
                    && self
                        .binding_type(fi, scope, var)
                        .is_some_and(|ty| self.go_type_outside(fi, &ty))
                {
                    return Vec::new();
                }
                if let Some((target, conf, _)) = self.lookup_name(fi, scope, var)
                    && let Some(hit) = self.member_of_target(target, name, conf)
                {
                    return vec![hit];
                }
                if f.lang == Lang::Ruby
                    && typed.is_none()
                    && let Some(hits) = self.ruby_class_named_like(fi, scope, var, name)
                {
                    return hits;
                }
                if matches!(
                    f.lang,
                    Lang::Java
                        | Lang::CSharp
                        | Lang::Swift
                        | Lang::Kotlin
                        | Lang::Dart
                        | Lang::Scala
                        | Lang::Cpp
                ) && let Some(hit) = self.field_member(fi, scope, var, name, depth)
                {
                    return vec![hit];
                }
                // A C++ variable, parameter or field of a type outside the project (`std::string
                // s`, `const Slice& key` where no `Slice` is defined) calls none of its methods.
                if f.lang == Lang::Cpp && self.cpp_outside(fi, scope, var) {
                    return Vec::new();
                }
                // `Inner.m()`: a static method of a Java member type in scope or imported.
                if f.lang.is_java_family()
                    && self.binding_type(fi, scope, var).is_none()
                    && let Some((t, conf)) = self.nested_type(fi, scope, var)
                {
                    return self
                        .typed_member(t, conf, name, conf, Reason::ClassMember)
                        .into_iter()
                        .collect();
                }
                // A Java receiver of a type outside the project (`String.valueOf(…)`, or
                // `text.charAt(…)` where `String text`) calls none of the project's methods.
                if f.lang.is_java_family() && self.java_outside(fi, scope, var) {
                    return Vec::new();
                }
            }
            // Java's `Outer.this.m()`: a method of the enclosing class `Outer`.
            Receiver::Path(path) if f.lang == Lang::Java && path.ends_with(".this") => {
                let outer = &path[..path.len() - ".this".len()];
                return self
                    .resolve_type(fi, scope, outer)
                    .and_then(|(t, conf)| {
                        self.typed_member(
                            t,
                            conf,
                            name,
                            confidence::SELF_METHOD,
                            Reason::SelfMethod,
                        )
                    })
                    .into_iter()
                    .collect();
            }
            // A Zig decl literal passed as an argument: a member of the parameter's type.
            Receiver::Path(path) if f.lang == Lang::Zig && path.contains('@') => {
                return self
                    .zig_argument_type(fi, scope, path, depth)
                    .map(|(t, conf)| self.typed_members(t, conf, name, conf, Reason::AttributeType))
                    .unwrap_or_default();
            }
            Receiver::Path(path) => {
                let on_self = path.starts_with("self.") || path.starts_with("this.");
                if !on_self
                    && let Some(target) = self.path_target(fi, path)
                    && let Some(hit) = self.member_of_target(target, name, confidence::IMPORT)
                {
                    return vec![hit];
                }
                if !on_self
                    && f.lang == Lang::Zig
                    && let Some((container, conf)) = self.zig_nested_container(fi, scope, path)
                    && let Some(hit) = self.member_of_target(Target::Node(container), name, conf)
                {
                    return vec![hit];
                }
                let typed = self.path_type(fi, scope, path, depth);
                if let Some((t, conf)) = typed {
                    let hits = self.typed_members(t, conf, name, conf, Reason::AttributeType);
                    if !hits.is_empty() {
                        return hits;
                    }
                }
                // Ruby's `@parse_context.m` of unknown type: as a local named like a class.
                if f.lang == Lang::Ruby
                    && typed.is_none()
                    && let Some(ivar) = path.strip_prefix("self.@")
                    && let Some(hits) = self.ruby_class_named_like(fi, scope, ivar, name)
                {
                    return hits;
                }
                if let Some(hit) = self.dereferenced_field_member(fi, scope, path, name, depth) {
                    return vec![hit];
                }
                // `self.queue.pop_front()` on a field declared as a collection: the standard
                // collection's own method, none of the project's.
                if f.lang == Lang::Rust
                    && infer::is_element_accessor(name)
                    && self.declared_collection(fi, scope, path, depth)
                {
                    return Vec::new();
                }
                // Java's implicit `this`: `parent.root.get()` where `parent` is a field.
                let head = path.split('.').next().unwrap_or(path);
                if matches!(
                    f.lang,
                    Lang::Java
                        | Lang::CSharp
                        | Lang::Swift
                        | Lang::Kotlin
                        | Lang::Dart
                        | Lang::Scala
                        | Lang::Cpp
                ) && !on_self
                    && self.binding_type(fi, scope, head).is_none()
                    && let Some((t, conf)) =
                        self.path_type(fi, scope, &format!("this.{path}"), depth)
                {
                    let hits = self.typed_members(t, conf, name, conf, Reason::AttributeType);
                    if !hits.is_empty() {
                        return hits;
                    }
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
                {
                    let hits = self.typed_members(t, conf, name, conf, Reason::ReturnType);
                    if !hits.is_empty() {
                        return hits;
                    }
                }
                if let Some(hit) = self.open_result_member(fi, scope, callee, name, depth) {
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
        let mut found = self.fallback(self.methods.get(name), fi);
        // A C++ method name on a receiver of unknown type is shared by unrelated classes
        // (`ok`, `Compare`, `NewIterator`): the one near the caller is a candidate only. So is
        // PHP's (measured 0.71: an interface's implementations and the interface share it).
        // Ruby's too (the band of a name's pairs).
        if matches!(f.lang, Lang::Cpp | Lang::Php | Lang::Ruby) {
            let cap = match f.lang {
                Lang::Ruby => confidence::RUBY_PAIR,
                _ => confidence::AMBIGUOUS_PAIR,
            };
            for (_, conf, reason) in &mut found {
                if *reason == Reason::ImportedCandidate {
                    *conf = conf.min(cap);
                }
            }
        }
        // A Swift method found by its name only (no reference measured it; the platform's
        // types share many names with the project's): a candidate at most. Lua's too (any
        // table may hold a function of that name).
        if matches!(f.lang, Lang::Swift | Lang::Lua) {
            for (_, conf, _) in &mut found {
                *conf = conf.min(confidence::AMBIGUOUS_PAIR);
            }
        }
        // Kotlin infers most locals' types: a receiver of unknown type is mostly a value of the
        // standard library or the platform (`first()`, `get()`), so a method found by its name
        // alone is a candidate only (hand-checked on two corpora; no reference measures it).
        // So does Dart's (`var x = f()`, `final y = await g()`), unmeasured too.
        // Scala infers most locals' types alike, but a method name unique project-wide is
        // followed there (measured 1.00 against scalac, 108 of 108 decided, Scaladoc, the REPL
        // and scalap pooled), while the only one of several near the caller is a candidate (9 of
        // 17; with one of two candidates, 46 of 90).
        if matches!(f.lang, Lang::Kotlin | Lang::Dart | Lang::Scala) {
            for (_, conf, reason) in &mut found {
                if *reason == Reason::ImportedCandidate
                    || (*reason == Reason::UniqueGlobal && f.lang != Lang::Scala)
                {
                    *conf = conf.min(confidence::AMBIGUOUS_PAIR);
                }
            }
        }
        // A Rust method name is shared by many types (trait methods, `new`, `poll_*`). The only
        // candidate near the caller is followed (measured 0.93 on tokio) unless it is a method
        // of the caller's own type: a wrapper calling, on what it wraps, the trait method it
        // implements itself (`self.inner.poll_flush(cx)`), right 3 times in 7 — a candidate.
        if f.lang == Lang::Rust {
            for (to, conf, reason) in &mut found {
                if *reason != Reason::ImportedCandidate {
                    continue;
                }
                let to_owner = self
                    .node_def
                    .get(to)
                    .and_then(|&(tf, td)| self.owner_type(tf, Some(td)));
                if to_owner.is_none() || to_owner == self.owner_type(fi, scope) {
                    *conf = confidence::AMBIGUOUS_PAIR;
                }
            }
        }
        found
    }

    /// Member `name` of a receiver of type `ty` (as `typed_member`). A union of types
    /// (TypeScript `type A = B | C`) dispatches to the member of each type, when every one of
    /// them has it (else something narrowed the union); one inherited method is one target.
    pub(super) fn typed_members(
        &self,
        ty: u32,
        reached: f32,
        name: &str,
        direct: f32,
        reason: Reason,
    ) -> Vec<(u32, f32, Reason)> {
        let Some(types) = self.union_members(ty) else {
            return self
                .typed_member(ty, reached, name, direct, reason)
                .into_iter()
                .collect();
        };
        let mut hits: Vec<(u32, f32, Reason)> = Vec::with_capacity(types.len());
        for t in types {
            let Some(hit) = self.typed_member(t, reached, name, direct, reason) else {
                return Vec::new();
            };
            if !hits.iter().any(|h| h.0 == hit.0) {
                hits.push(hit);
            }
        }
        hits
    }

    /// `x.f` where `x` resolved to a module, a package or a type.
    pub(super) fn member_of_target(
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

    pub(super) fn export_of(
        &self,
        files: &[usize],
        name: &str,
        conf: f32,
    ) -> Option<(u32, f32, Reason)> {
        // A package's files: an export in stand-in code gives way to a real one.
        let mut stand_in = None;
        for &file in files {
            if let Some(t) = scope::export(
                file,
                name,
                &self.files,
                self.modules(),
                &self.top_level,
                &self.def_node,
                0,
            ) && let Some(hit) = self
                .callable(t, conf, Reason::ImportResolved)
                .into_iter()
                .next()
            {
                if !self.is_test_node(hit.0) {
                    return Some(hit);
                }
                stand_in.get_or_insert(hit);
            }
        }
        stand_in
    }

    /// A name no scope explains: one candidate project-wide is a guess (0.5); of two to eight,
    /// the only one in the caller's file or a file it imports is taken (0.4); else two or three
    /// are kept as ambiguous (0.3 each); more give no edge.
    pub(super) fn fallback(
        &self,
        candidates: Option<&Vec<u32>>,
        fi: usize,
    ) -> Vec<(u32, f32, Reason)> {
        let lang = self.files[fi].lang;
        let same_lang = |n: &u32| {
            self.reads.node(*n);
            let file = self.b.node(*n).map(|d| d.file);
            self.file_lang(file).is_some_and(|l| {
                l == lang
                    || (l.is_js_family() && lang.is_js_family())
                    || (l.is_c_family() && lang.is_c_family())
            })
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
        // Code compiled for tests only (mocks, test doubles) never wins over the real thing.
        let found = if found.iter().any(|&n| self.is_test_node(n)) {
            let real: Vec<u32> = found
                .iter()
                .copied()
                .filter(|&n| !self.is_test_node(n))
                .collect();
            if real.is_empty() { found } else { real }
        } else {
            found
        };
        if (2..=MAX_NARROWED).contains(&found.len()) {
            let imported = self.imported.get(fi);
            let mut near = found.iter().copied().filter(|n| {
                self.node_def.get(n).is_some_and(|&(f, d)| {
                    f == fi
                        || (imported.is_some_and(|i| i.contains(&f))
                            && self.declaring_type_in_reach(fi, f, d))
                })
            });
            if let (Some(only), None) = (near.next(), near.next()) {
                return vec![(
                    only,
                    confidence::IMPORTED_CANDIDATE,
                    Reason::ImportedCandidate,
                )];
            }
        }
        // Of two candidates one is right about half the time, of three about a third.
        let shared = match found.len() {
            2 if lang == Lang::Ruby => confidence::RUBY_PAIR,
            _ if lang == Lang::Ruby => confidence::RUBY_SEVERAL,
            2 => confidence::AMBIGUOUS_PAIR,
            _ if lang == Lang::Zig => confidence::ZIG_AMBIGUOUS,
            _ => confidence::AMBIGUOUS,
        };
        match found.len() {
            1 => vec![(found[0], confidence::UNIQUE_GLOBAL, Reason::UniqueGlobal)],
            2..=MAX_AMBIGUOUS => found
                .into_iter()
                .map(|n| (n, shared, Reason::Ambiguous))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A method an interface or trait of file `f` declares (def `d`) is called through that type
    /// only: it is near file `fi` when `fi` imports the type by name or `f` whole, not when it
    /// imports other names of `f` (an interface file imported for its other types).
    fn declaring_type_in_reach(&self, fi: usize, f: usize, d: u32) -> bool {
        let defs = &self.files[f].defs;
        let Some(owner) = defs
            .get(d as usize)
            .and_then(|x| x.parent)
            .and_then(|p| defs.get(p as usize))
        else {
            return true;
        };
        if !matches!(owner.kind, NodeKind::Interface | NodeKind::Trait) {
            return true;
        }
        self.imported_whole.get(fi).is_some_and(|w| w.contains(&f))
            || self.files[fi]
                .imports
                .iter()
                .any(|i| i.names.iter().any(|n| n.name == owner.name))
    }

    /// Whether a type of the project implements method `name` of trait `t`.
    fn implemented(&self, t: u32, name: &str) -> bool {
        self.methods.get(name).is_some_and(|methods| {
            methods.iter().any(|m| {
                self.node_def
                    .get(m)
                    .and_then(|&(f, d)| self.owner_type(f, Some(d)))
                    .is_some_and(|owner| {
                        owner != t && self.bases.get(&owner).is_some_and(|b| b.contains(&t))
                    })
            })
        })
    }

    pub(super) fn owner_def(&self, fi: usize, scope: Option<u32>) -> Option<u32> {
        let defs = &self.files[fi].defs;
        self.scope_chain(fi, scope)
            .into_iter()
            .find(|&d| defs.get(d as usize).is_some_and(|x| x.kind.is_type()))
    }

    /// A function `name` of the inline module `module` (`mod module { … }`) written at the top
    /// level of a Rust file: its def index there.
    pub(super) fn inline_module_member(
        &self,
        file: usize,
        module: &str,
        name: &str,
    ) -> Option<u32> {
        let defs = &self.files[file].defs;
        let modules: Vec<u32> = self.top_level[file]
            .get(module)?
            .iter()
            .copied()
            .filter(|&d| {
                defs.get(d as usize)
                    .is_some_and(|x| x.kind == NodeKind::Module)
            })
            .collect();
        // Of `cfg` alternatives of the module, the real one.
        let m = self.files[file].visible_definition(&modules)?;
        defs.iter()
            .position(|x| x.parent == Some(m) && x.name == name && x.kind.is_callable())
            .map(|i| i as u32)
    }

    /// Function `name` of a Rust module a path resolved to: a module file, or a `mod m;`
    /// declaration (its file) or `mod m { … }` (its items) that an import bound.
    pub(super) fn module_member(&self, target: Target, name: &str) -> Option<(u32, f32, Reason)> {
        let Target::Node(n) = target else {
            return self.member_of_target(target, name, confidence::IMPORT);
        };
        if self.kind_of(n) != Some(NodeKind::Module) {
            return None;
        }
        let &(file, def) = self.node_def.get(&n)?;
        let module = &self.files[file].defs.get(def as usize)?.name;
        if let Some(m) = self
            .modules
            .rust_exact(&self.files[file].path, &format!("self::{module}"))
        {
            return self.export_of(&[m], name, confidence::IMPORT);
        }
        let d = self.inline_module_member(file, module, name)?;
        Some((
            self.def_node[file][d as usize],
            confidence::IMPORT,
            Reason::ImportResolved,
        ))
    }

    /// The module file a Rust `use` of `name` names, when it is a module of its own (`use
    /// crate::util::memchr;` → `util/memchr.rs`), not an item of the module the path names.
    pub(super) fn imported_module_file(&self, fi: usize, name: &str) -> Option<usize> {
        let f = &self.files[fi];
        let import = f
            .imports
            .iter()
            .find(|i| i.names.iter().any(|n| n.local() == name))?;
        let written = &import.names.iter().find(|n| n.local() == name)?.name;
        let file = self
            .modules
            .rust_exact(&f.path, &format!("{}::{written}", import.module))?;
        (self.modules().rust(&f.path, &import.module) != Some(file)).then_some(file)
    }
}

/// How many arguments a Java method `name`'s declaration (its signature) takes, as (least,
/// most); `None` when the signature does not show its whole parameter list.
fn java_arity(signature: &str, name: &str) -> Option<(u32, u32)> {
    // The parameters' parenthesis follows the name (an annotation before it may have its own).
    let open = signature.match_indices(name).find_map(|(at, _)| {
        let before = signature[..at].chars().next_back();
        let rest = &signature[at + name.len()..];
        let gap = rest.len() - rest.trim_start().len();
        (!before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
            && rest.trim_start().starts_with('('))
        .then_some(at + name.len() + gap)
    })?;
    let mut depth = 0usize;
    let mut params = 0u32;
    let mut empty = true;
    for c in signature[open + 1..].chars() {
        match c {
            '(' | '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ')' if depth == 0 => {
                let count = if empty { 0 } else { params + 1 };
                let variadic = signature[open..].contains("...");
                return Some(if variadic {
                    (count.saturating_sub(1), u32::MAX)
                } else {
                    (count, count)
                });
            }
            ')' => depth -= 1,
            ',' if depth == 0 => params += 1,
            c if !c.is_whitespace() => empty = false,
            _ => {}
        }
    }
    None
}
