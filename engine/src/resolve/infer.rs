//! Receiver-type inference: a name's type from a declared or constructed binding, an attribute
//! chain, a call's return type, a typed collection's element or a callback's declared parameter.

use rustc_hash::FxHashSet as HashSet;

use super::scope::Target;
use super::vars::Bound;
use super::{
    MAX_ALIAS_HOPS, MAX_RETURN_DEPTH, Resolver, UNION_IDS, confidence, dotted_callee, is_getter,
};
use crate::facts::{Callee, ClosureBinding, Import, Receiver};
use crate::graph::{NodeKind, Reason};
use crate::lang::Lang;

/// Scala accessors giving one element of a collection or `Option` (`opt.get`, `xs.head`).
const SCALA_ELEMENT_ACCESSORS: &[&str] = &["get", "head", "last"];

impl<'a> Resolver<'a> {
    /// What `path` names as seen from file `fi` (a module or a definition), through its scopes.
    pub(super) fn path_target(&self, fi: usize, path: &str) -> Option<Target> {
        self.scopes.resolve_path(
            fi,
            path,
            &self.files,
            self.modules(),
            &self.top_level,
            &self.def_node,
        )
    }

    /// A type named `name` as seen from a scope in file `fi`.
    pub(super) fn resolve_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(u32, f32)> {
        // `Self.raw`, `Self.a.slots[]`: what that field (or element of one) of the method's
        // own value holds.
        if self.files[fi].lang == Lang::Rust
            && let Some(fields) = name.strip_prefix("Self.")
        {
            return self.path_type(fi, scope, &format!("self.{fields}"), 0);
        }
        // `Enum::Variant.0`: what the first field of that variant of the enum holds.
        if self.files[fi].lang == Lang::Rust
            && let Some((variant, index)) = name.rsplit_once('.')
        {
            let (owner, variant) = variant.rsplit_once("::")?;
            let (ty, c) = self.resolve_type(fi, scope, owner)?;
            let &(file, def) = self.node_def.get(&ty)?;
            let (file, class, written) =
                self.attribute_type(file, def, &format!("{variant}.{index}"))?;
            let (t, held) = self.resolve_type(file, Some(class), written)?;
            return Some((t, c.min(held).min(confidence::ATTRIBUTE_TYPE)));
        }
        let name = name.trim_start_matches("Self::");
        // A type parameter hides every type of its name: it stands for its one trait bound.
        if self.files[fi].lang == Lang::Rust
            && let Some(bound) = self.type_param_bound(fi, scope, name)
        {
            return match bound {
                "" => None,
                // Written where the item is; read at file level, where no parameter hides it.
                _ => self.resolve_type(fi, None, bound),
            };
        }
        if self.files[fi].lang == Lang::Ruby {
            return self.ruby_constant(fi, scope, name);
        }
        if self.files[fi].lang == Lang::Elixir {
            return self.elixir_module(name).map(|m| (m, confidence::IMPORT));
        }
        if name == "Self" {
            return self
                .owner_type(fi, scope)
                .map(|t| (t, confidence::SELF_METHOD));
        }
        let lang = self.files[fi].lang;
        if (lang.is_java_family() || lang == Lang::Cpp)
            && let Some(found) = self.nested_type(fi, scope, name)
        {
            return Some(found);
        }
        let target = if name.contains('.') || name.contains("::") {
            self.path_target(fi, name).or_else(|| {
                (lang == Lang::Scala)
                    .then(|| self.scala_package_type(fi, name))
                    .flatten()
            })
        } else if lang == Lang::Php {
            self.php_lookup_name(fi, scope, name).map(|(t, _, _)| t)
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
        // A Rust type alias of the file or of one it imports (`type List = Sharded<T>;`).
        if target.is_none()
            && self.files[fi].lang == Lang::Rust
            && !name.contains("::")
            && let Some(found) = self.alias_type(fi, name)
        {
            return Some(found);
        }
        // A Zig file-level `const Array = list.Managed(Value);`: the type function's type.
        if target.is_none()
            && self.files[fi].lang == Lang::Zig
            && let Some(found) = self.alias_type(fi, name)
        {
            return Some(found);
        }
        match target {
            Some(Target::Node(n)) if self.kind_of(n).is_some_and(NodeKind::is_type) => {
                Some((n, confidence::IMPORT))
            }
            // A Rust name the file imports (`use std::cell::UnsafeCell`) or a path its scope
            // does not explain (`std::cell::UnsafeCell`) is no project type of that name.
            _ if self.files[fi].lang == Lang::Rust && self.rust_names_outside(fi, name) => None,
            // A Go type of a package outside the project (`io.Writer`, `reflect.Value`).
            _ if self.files[fi].lang == Lang::Go && self.go_type_outside(fi, name) => None,
            // A PHP class name means one class by the file's namespace and `use` lines: one
            // they do not find is no project class.
            _ if self.files[fi].lang == Lang::Php => None,
            // A Zig type is a name in lexical scope or a path through imports: one they do not
            // find (a `comptime T: type` parameter, a package's type) is no project type.
            _ if self.files[fi].lang == Lang::Zig => None,
            _ => {
                if self.files[fi].lang.is_js_family()
                    && let Some(found) = self.alias_type(fi, name)
                {
                    return Some(found);
                }
                if self.files[fi].lang == Lang::Swift
                    && let Some(found) = self.swift_alias(fi, name)
                {
                    return Some(found);
                }
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

    /// A Java, C# or C++ member type: a simple name declared in (or inherited by) a class around
    /// `scope` (for C++, the class a method defined out of line belongs to), which hides every
    /// other type of that name, else (Java, C#) imported from a project class by a single-type
    /// import; or `Outer.Inner` for a member of `Outer`.
    pub(super) fn nested_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(u32, f32)> {
        let member_type = |ty: u32, name: &str| {
            self.find_member(ty, name)
                .filter(|&(m, _)| self.kind_of(m).is_some_and(NodeKind::is_type))
        };
        let level = |inherited: bool| {
            if inherited {
                confidence::INHERITED
            } else {
                confidence::SAME_FILE
            }
        };
        if let Some((outer, inner)) = name.rsplit_once('.') {
            let (ty, conf) = self.resolve_type(fi, scope, outer)?;
            let (t, inherited) = member_type(ty, inner)?;
            return Some((t, conf.min(level(inherited))));
        }
        let defs = &self.files[fi].defs;
        let enclosing = self.scope_chain(fi, scope).into_iter().find_map(|d| {
            let node = self.def_node[fi][d as usize];
            let ty = if defs.get(d as usize).is_some_and(|x| x.kind.is_type()) {
                node
            } else {
                *self.adopted.get(&node)?
            };
            let (t, inherited) = member_type(ty, name)?;
            Some((t, level(inherited)))
        });
        if !self.files[fi].lang.is_java_family() {
            return enclosing;
        }
        // `import a.b.Outer.Inner;`: a member type of a project class, imported by its name.
        enclosing.or_else(|| {
            self.files[fi]
                .imports
                .iter()
                .filter(|i| !i.reexport && i.names.iter().any(|n| n.name == name))
                .find_map(|i| {
                    let (package, outer) = i.module.rsplit_once('.')?;
                    let ty = self.modules().java(package).iter().find_map(|&file| {
                        let &d = self.top_level[file].get(outer)?.first()?;
                        Some(self.def_node[file][d as usize])
                    })?;
                    let (t, inherited) = member_type(ty, name)?;
                    Some((t, confidence::IMPORT.min(level(inherited))))
                })
        })
    }

    /// A TypeScript type alias named `name` as seen from file `fi` (its own, imported, or
    /// `ns.Alias` through a namespace import): the type it names, or a union id.
    fn alias_type(&self, fi: usize, name: &str) -> Option<(u32, f32)> {
        let (file, alias, own) = match name.rsplit_once('.') {
            Some((prefix, last)) => match self.path_target(fi, prefix)? {
                Target::Module(m) => (m, last, false),
                _ => return None,
            },
            None => (fi, name, true),
        };
        let (at, alias) = self.alias_source(file, alias, own, 0)?;
        self.resolved_alias(at, &alias)
    }

    /// The file defining alias `name` as `file` sees it: its own, or followed through its
    /// imports (`own`: the file's own imports; else only its re-exports).
    pub(super) fn alias_source(
        &self,
        file: usize,
        name: &str,
        own: bool,
        hops: u32,
    ) -> Option<(usize, String)> {
        if hops > MAX_ALIAS_HOPS {
            return None;
        }
        let f = &self.files[file];
        if self.alias_members(file, name).is_some() {
            return Some((file, name.to_owned()));
        }
        // A private Rust `use` is seen by the module's descendants, the only ones that can
        // name it.
        let visible = |i: &Import| own || i.reexport || f.lang == Lang::Rust;
        for (at, import) in f.imports.iter().enumerate().filter(|(_, i)| visible(i)) {
            if let Some(imported) = import.names.iter().find(|n| n.local() == name) {
                for &source in self.import_files(file, at).iter() {
                    if let Some(found) = self.alias_source(source, &imported.name, false, hops + 1)
                    {
                        return Some(found);
                    }
                }
            }
        }
        let reexported = f.imports.iter().enumerate();
        for (at, _) in reexported.filter(|(_, i)| i.wildcard && i.reexport) {
            for &source in self.import_files(file, at).iter() {
                if source != file
                    && let Some(found) = self.alias_source(source, name, false, hops + 1)
                {
                    return Some(found);
                }
            }
        }
        None
    }

    /// What alias `name` of file `file` stands for: its one type, or a union id for several;
    /// `None` when a member type is unknown.
    pub(super) fn resolved_alias(&self, file: usize, name: &str) -> Option<(u32, f32)> {
        let key = (file, name.to_owned());
        if let Some(known) = self.alias_types.borrow().get(&key).copied() {
            return known;
        }
        // Written first, so that an alias reached again while resolving it has no type.
        self.alias_types.borrow_mut().insert(key.clone(), None);
        let members = self.alias_members(file, name)?;
        let mut types = Vec::new();
        let mut conf = confidence::IMPORT;
        for member in members {
            let (t, c) = self.resolve_type(file, None, member)?;
            conf = conf.min(c);
            match self.union_members(t) {
                Some(inner) => types.extend(inner),
                None => types.push(t),
            }
        }
        types.sort_unstable();
        types.dedup();
        let found = match types.as_slice() {
            [] => None,
            [one] => Some((*one, conf)),
            _ => {
                let mut unions = self.unions.borrow_mut();
                (unions.len() < UNION_IDS as usize).then(|| {
                    unions.push(types);
                    (u32::MAX - (unions.len() as u32 - 1), conf)
                })
            }
        };
        self.alias_types.borrow_mut().insert(key, found);
        found
    }

    /// The members of type alias `name` of file `file`: of Rust `cfg` alternatives, the one
    /// that is compiled.
    fn alias_members(&self, file: usize, name: &str) -> Option<&'a Vec<String>> {
        let f = self.files.at(file);
        let mut named = f
            .type_aliases
            .iter()
            .enumerate()
            .filter(|(_, (a, _))| a == name);
        let (_, (_, first)) = named.clone().next()?;
        let real = named.find(|&(i, _)| {
            f.type_alias_lines
                .get(i)
                .is_some_and(|&line| !f.in_test_code(line))
        });
        Some(real.map_or(first, |(_, (_, members))| members))
    }

    /// The member types of a union id; `None` for a type node.
    pub(super) fn union_members(&self, ty: u32) -> Option<Vec<u32>> {
        let index = u32::MAX.checked_sub(ty)?;
        if index >= UNION_IDS {
            return None;
        }
        self.unions.borrow().get(index as usize).cloned()
    }

    /// The type of what a call returns, when the call resolves surely to one target: a type
    /// (the call constructs it) or a function whose return type is known. `Self` is the type of
    /// the receiver when the receiver's type is known, else the class that defines the function.
    pub(super) fn call_result_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        callee: &Callee,
        depth: u32,
    ) -> Option<(u32, f32)> {
        // `this.make()` where the attribute holds a function (`make: () => Widget`).
        if let Callee::Member {
            receiver: Receiver::SelfRef,
            name,
        } = callee
            && self.files[fi].lang.is_js_family()
            && let Some(owner) = self.owner_def(fi, scope)
            && let Some((file, class, written)) = self.attribute_type(fi, owner, name)
            && let Some(returned) = written.strip_prefix("=> ")
        {
            let (t, c) = self.resolve_type(file, Some(class), returned)?;
            return Some((t, c.min(confidence::ATTRIBUTE_TYPE)));
        }
        let Some((target, conf, reason)) = self.sure_target(fi, scope, callee, depth) else {
            return self.unwrapped_type(fi, scope, callee, depth);
        };
        if reason == Reason::Constructor {
            return Some((target, conf));
        }
        let &(file, def) = self.node_def.get(&target)?;
        let function = self.files[file].defs.get(def as usize)?;
        // A Ruby method called on `self` that a subclass of the caller's class defines again
        // returns what that subclass's method returns when `self` is one: no sure type.
        if self.files[fi].lang == Lang::Ruby
            && matches!(
                callee,
                Callee::Name(_)
                    | Callee::Member {
                        receiver: Receiver::SelfRef,
                        ..
                    }
            )
            && let Some(owner) = self.owner_type(fi, scope)
            && !self
                .ruby_overrides(owner, target, &function.name)
                .is_empty()
        {
            return None;
        }
        let returns = function.returns.as_str();
        if returns.is_empty() {
            // A Ruby `attr_reader`/`attr_accessor` whose `@x` holds a call's result.
            if self.files[file].lang == Lang::Ruby
                && (function.signature.starts_with("attr_reader")
                    || function.signature.starts_with("attr_accessor"))
                && let Some(class) = function.parent
            {
                let ivar = format!("@{}", function.name);
                let (t, c) = self.attribute_call_type(file, class, &ivar, depth + 1)?;
                return Some((t, conf.min(c).min(confidence::RETURN_TYPE)));
            }
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
        if let Some((t, c)) = self.argument_result_type(fi, scope, callee, (file, def), depth) {
            return Some((t, conf.min(c).min(confidence::RETURN_TYPE)));
        }
        let (t, c) = self.resolve_type(file, Some(def), returns)?;
        Some((t, conf.min(c).min(confidence::RETURN_TYPE)))
    }

    /// The type of a receiver, when it is known: `self`, a variable with a declared, constructed
    /// or returned type, or a call's result.
    pub(super) fn receiver_type(
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
    /// an attribute with a known type or a getter (`@property`, `get x()`) with a return type;
    /// or where `a.b` is a call (`a.b().c`, Rust): through the type the call returns.
    pub(super) fn path_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        path: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        self.path_type_as_written(fi, scope, path, depth)
            .or_else(|| {
                // Scala: `x.tpl.get`, `x.items.head`: an element of the collection or `Option`
                // member before the accessor (read `tpl[]`), when nothing else typed the path.
                if self.files[fi].lang != Lang::Scala {
                    return None;
                }
                let mut elements = String::with_capacity(path.len());
                for (i, part) in path.split('.').enumerate() {
                    if i > 1 && SCALA_ELEMENT_ACCESSORS.contains(&part) && !elements.ends_with("[]")
                    {
                        elements.push_str("[]");
                    } else {
                        if i > 0 {
                            elements.push('.');
                        }
                        elements.push_str(part);
                    }
                }
                (elements != path)
                    .then(|| self.path_type_as_written(fi, scope, &elements, depth))
                    .flatten()
            })
    }

    fn path_type_as_written(
        &self,
        fi: usize,
        scope: Option<u32>,
        path: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let (mut current, parts) = match path.rsplit_once("().") {
            Some((call, fields)) => (
                self.call_result_type(fi, scope, &dotted_callee(call), depth)?,
                fields.split('.'),
            ),
            None => {
                let mut parts = path.split('.');
                let head = parts.next()?;
                let current = match head {
                    "self" | "this" | "cls" => self
                        .owner_type(fi, scope)
                        .map(|t| (t, confidence::SELF_METHOD))?,
                    _ => match self.variable_type(fi, scope, head, depth) {
                        Some(found) => found,
                        None => return self.module_instance_type(fi, path, depth),
                    },
                };
                (current, parts)
            }
        };
        for part in parts {
            let (t, conf) = match part.strip_suffix("[]") {
                Some(collection) => self.element_field_type(current.0, collection)?,
                None => self
                    .member_type(current.0, part, depth)
                    .or_else(|| self.parameter_field_type(fi, scope, current.0, part))?,
            };
            current = (t, current.1.min(conf));
        }
        Some(current)
    }

    /// The elements' type of Rust field `attr` of type `ty`, declared as a collection (`T[]`
    /// in facts): what `x.attr[i]` gives.
    fn element_field_type(&self, ty: u32, attr: &str) -> Option<(u32, f32)> {
        let &(file, def) = self.node_def.get(&ty)?;
        let (at_file, class, written) = self.attribute_type(file, def, attr)?;
        let element = written.strip_suffix("[]")?;
        let (t, conf) = self.resolve_type(at_file, Some(class), element)?;
        Some((t, conf.min(confidence::ATTRIBUTE_TYPE)))
    }

    /// The trait bound of Rust type parameter `name` as the scope sees it: declared by the
    /// innermost enclosing function, `impl` block or type (empty when it has no one bound);
    /// `None` when no enclosing item declares such a parameter.
    pub(super) fn type_param_bound(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<&'a str> {
        let params = &self.files.at(fi).type_params;
        self.scope_chain(fi, scope).into_iter().find_map(|d| {
            // In source order of their items, so in order of `d`.
            let from = params.partition_point(|(at, _, _)| *at < d);
            params[from..]
                .iter()
                .take_while(|(at, _, _)| *at == d)
                .find(|(_, n, _)| n == name)
                .map(|(_, _, bound)| bound.as_str())
        })
    }

    /// Field `attr` of a Rust type `ty` written as one of the type's parameters (`inner: R`),
    /// read inside a method of that type: the trait the method or its `impl` block bounds
    /// that parameter by (`impl<R: AsyncRead> … for Reader<R>`). Read inside a method of
    /// another type (`self.chan.semaphore` where `chan: Chan<T, S>`), the parameter of the same
    /// name the method's scope bounds: generic code hands its parameters on under their names.
    fn parameter_field_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        ty: u32,
        attr: &str,
    ) -> Option<(u32, f32)> {
        if self.files[fi].lang != Lang::Rust {
            return None;
        }
        let &(file, def) = self.node_def.get(&ty)?;
        let (at_file, class, written) = self.attribute_type(file, def, attr)?;
        self.type_param_bound(at_file, Some(class), written)?;
        let (t, conf) = self.caller_parameter_type(fi, scope, written)?;
        Some((t, conf.min(confidence::ATTRIBUTE_TYPE)))
    }

    /// `f().m()` in Rust where `f` returns one of its own type parameters (`fn get_mut(&mut
    /// self) -> &mut R` in `impl<R: Read> Reader<R>`) whose bound there has no `m`: the
    /// parameter of the same name in the caller's scope (`impl<R: Read + Write> Write for
    /// Reader<R>`), by the one of its traits that has `m`.
    pub(super) fn open_result_member(
        &self,
        fi: usize,
        scope: Option<u32>,
        callee: &str,
        name: &str,
        depth: u32,
    ) -> Option<(u32, f32, Reason)> {
        if self.files[fi].lang != Lang::Rust {
            return None;
        }
        let (target, conf, _) = self.sure_target(fi, scope, &dotted_callee(callee), depth)?;
        let &(file, def) = self.node_def.get(&target)?;
        let returns = self.files[file].defs.get(def as usize)?.returns.as_str();
        self.type_param_bound(file, Some(def), returns)?;
        let traits: Vec<&str> = match self.type_param_bound(fi, scope, returns)? {
            "" => self.type_param_traits(fi, scope, returns)?,
            one => vec![one],
        };
        let mut hits = traits.into_iter().filter_map(|t| {
            let (ty, c) = self.resolve_type(fi, None, t)?;
            self.typed_member(
                ty,
                conf.min(c),
                name,
                confidence::RETURN_TYPE,
                Reason::ReturnType,
            )
        });
        let first = hits.next()?;
        hits.next().is_none().then_some(first)
    }

    /// `a.field.m()` in Rust where the field's type has no `m` but dereferences (`impl<T> Deref
    /// for Padded<T> { type Target = T; }`) to a type that has it: its type argument as the
    /// field is written (`field: Padded<Waker>`), or the type it names as its target.
    pub(super) fn dereferenced_field_member(
        &self,
        fi: usize,
        scope: Option<u32>,
        path: &str,
        name: &str,
        depth: u32,
    ) -> Option<(u32, f32, Reason)> {
        if self.files[fi].lang != Lang::Rust {
            return None;
        }
        let (head, attr) = path.rsplit_once('.')?;
        let (owner, reached) = self.path_type(fi, scope, head, depth)?;
        let &(file, def) = self.node_def.get(&owner)?;
        let (at_file, class, written) = self.attribute_type(file, def, attr)?;
        let (wrapper, wrapped) = self.resolve_type(at_file, Some(class), written)?;
        let &(w_file, w_def) = self.node_def.get(&wrapper)?;
        let wrapper_name = &self.files[w_file].defs.get(w_def as usize)?.name;
        let (_, position, target) = self.files[w_file]
            .deref_targets
            .iter()
            .find(|(ty, _, _)| ty == wrapper_name)?;
        let (t, c) = match position {
            Some(at) => self.field_argument_type(at_file, class, attr, *at as usize)?,
            None => self.resolve_type(w_file, None, target)?,
        };
        self.typed_member(
            t,
            reached.min(wrapped).min(c),
            name,
            confidence::ATTRIBUTE_TYPE,
            Reason::AttributeType,
        )
    }

    /// `a.field.f()` in Rust where `f` returns a type parameter of its `impl` block's type
    /// (`impl<T, S> Tx<T, S> { fn semaphore(&self) -> &S }`, `Mutex<T>::lock` returning a
    /// `MutexGuard<'_, T>`): the type argument at that place as the field is written (`chan:
    /// Tx<T, Bounded>`, `waiters: Mutex<Waiters>`).
    fn argument_result_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        callee: &Callee,
        (file, def): (usize, u32),
        depth: u32,
    ) -> Option<(u32, f32)> {
        let Callee::Member {
            receiver: Receiver::Path(path),
            ..
        } = callee
        else {
            return None;
        };
        let f = &self.files[file];
        let returns = f.defs.get(def as usize)?.returns.as_str();
        let (_, arguments) = f.impl_arguments.iter().find(|(d, _)| *d == def)?;
        let position = arguments.iter().position(|a| a == returns)?;
        self.type_param_bound(file, Some(def), returns)?;
        let (head, attr) = path.rsplit_once('.')?;
        let (owner, reached) = self.path_type(fi, scope, head, depth)?;
        let &(owner_file, owner_def) = self.node_def.get(&owner)?;
        let (at_file, class, _) = self.attribute_type(owner_file, owner_def, attr)?;
        let (t, c) = self.field_argument_type(at_file, class, attr, position)?;
        Some((t, reached.min(c)))
    }

    /// The type argument at `position` of field `attr` of type `class` of file `file` as the
    /// field is written (`chan: Tx<T, Bounded>`, 1 → `Bounded`).
    fn field_argument_type(
        &self,
        file: usize,
        class: u32,
        attr: &str,
        position: usize,
    ) -> Option<(u32, f32)> {
        let (_, _, arguments) = self.files[file]
            .attr_type_args
            .iter()
            .find(|(c, a, _)| *c == class && a == attr)?;
        let argument = arguments.get(position).filter(|a| !a.is_empty())?;
        let (t, c) = self.resolve_type(file, Some(class), argument)?;
        Some((t, c.min(confidence::ATTRIBUTE_TYPE)))
    }

    /// Whether Rust path `a.b.field` is a field declared as a collection (an array, a slice, a
    /// `Vec`, a `VecDeque`: `T[]` in facts).
    pub(super) fn declared_collection(
        &self,
        fi: usize,
        scope: Option<u32>,
        path: &str,
        depth: u32,
    ) -> bool {
        let Some((head, attr)) = path.rsplit_once('.') else {
            return false;
        };
        let Some((owner, _)) = self.path_type(fi, scope, head, depth) else {
            return false;
        };
        self.node_def
            .get(&owner)
            .and_then(|&(file, def)| self.attribute_type(file, def, attr))
            .is_some_and(|(_, _, written)| written.ends_with("[]"))
    }

    /// The traits of Rust type parameter `name` as the scope sees it, when several bound it.
    fn type_param_traits(&self, fi: usize, scope: Option<u32>, name: &str) -> Option<Vec<&'a str>> {
        let f = self.files.at(fi);
        let declared = self
            .scope_chain(fi, scope)
            .into_iter()
            .find(|&d| f.type_params.iter().any(|(at, n, _)| *at == d && n == name))?;
        let (_, _, traits) = f
            .type_param_traits
            .iter()
            .find(|(at, n, _)| *at == declared && n == name)?;
        Some(traits.iter().map(String::as_str).collect())
    }

    /// The one trait bound of the Rust type parameter `name` of the scope (its function's,
    /// `impl` block's or type's), as a type.
    fn caller_parameter_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(u32, f32)> {
        let bound = self
            .type_param_bound(fi, scope, name)
            .filter(|b| !b.is_empty())?;
        self.resolve_type(fi, None, bound)
    }

    /// `signals.request_started` where `signals` is a module and `request_started = Signal()`
    /// at its top level (then through attributes, as `path_type`): the instance's type.
    pub(super) fn module_instance_type(
        &self,
        fi: usize,
        path: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let parts: Vec<&str> = path.split('.').collect();
        for split in (1..parts.len()).rev() {
            let prefix = parts[..split].join(".");
            let Some(Target::Module(m)) = self.path_target(fi, &prefix) else {
                continue;
            };
            let &i = self.var(m, parts[split], None)?.types.last()?;
            let written = &self.files[m].bindings.get(i as usize)?.type_name;
            let (t, conf) = self.resolve_type(m, None, written)?;
            let mut current = (t, conf.min(confidence::IMPORT));
            for part in &parts[split + 1..] {
                let (t, c) = self.member_type(current.0, part, depth)?;
                current = (t, current.1.min(c));
            }
            return Some(current);
        }
        None
    }

    /// The type of attribute `attr` on an instance of type `ty`: its declared or assigned type,
    /// else the return type of a getter of that name.
    pub(super) fn member_type(&self, ty: u32, attr: &str, depth: u32) -> Option<(u32, f32)> {
        let &(file, def) = self.node_def.get(&ty)?;
        if let Some((at_file, class, written)) = self.attribute_type(file, def, attr) {
            let (t, conf) = self.resolve_type(at_file, Some(class), written)?;
            return Some((t, conf.min(confidence::ATTRIBUTE_TYPE)));
        }
        if let Some(found) = self.attribute_call_type(file, def, attr, depth) {
            return Some(found);
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
    pub(super) fn variable_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let key = (fi, scope, self.line_at(fi, scope).unwrap_or(0));
        let known = self
            .variable_types
            .borrow()
            .get(&key)
            .and_then(|names| names.get(var).copied());
        if let Some(known) = known {
            return known;
        }
        let found = self.find_variable_type(fi, scope, var, depth);
        // A deeper lookup may stop short at the depth limit; only a full one is kept.
        if depth == 0 {
            self.variable_types
                .borrow_mut()
                .entry(key)
                .or_default()
                .insert(var.into(), found);
        }
        found
    }

    pub(super) fn find_variable_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        if let Some(decided) = self.closure_parameter_type(fi, scope, var, depth) {
            return decided;
        }
        if let Some((file, file_scope, ty)) = self
            .binding_type(fi, scope, var)
            .map(|ty| (fi, scope, ty))
            .or_else(|| self.imported_binding(fi, var).map(|(f, ty)| (f, None, ty)))
            && let Some(found) = self.resolve_type(file, file_scope, &ty)
        {
            return Some(found);
        }
        if let Some(found) = self.package_variable_type(fi, scope, var, depth) {
            return Some(found);
        }
        let f = &self.files[fi];
        let mut chain: Vec<Option<u32>> =
            self.scope_chain(fi, scope).into_iter().map(Some).collect();
        chain.push(None);
        let result_of = |s: Option<u32>, at: u32| {
            let bound = f.call_bindings.get(at as usize)?;
            // Read where the binding is written, just before it holds: `let x = x.next();`
            // asks for the `x` before it.
            let written = self
                .line_at(fi, scope)
                .and(f.call_binding_spans.get(at as usize))
                .map(|&(from, _)| from.saturating_sub(1));
            if let Some(line) = written {
                let resolving = self.resolving.replace(Some((fi, scope, line)));
                let found = self.call_result_type(fi, s, &bound.callee, depth);
                self.resolving.set(resolving);
                return found;
            }
            // Elsewhere `x = x.next()` would ask for itself.
            let own = matches!(&bound.callee, Callee::Member { receiver: Receiver::Name(r), .. } if r == var);
            (!own)
                .then(|| self.call_result_type(fi, s, &bound.callee, depth))
                .flatten()
        };
        chain
            .iter()
            .copied()
            .find_map(|s| {
                let (_, calls) = self.in_effect(fi, scope, self.var(fi, var, s)?);
                let found = result_of(s, *calls.last()?);
                // Rust binds one name afresh in each arm, `if let` and `let`, and Go in each
                // block (`x := f()`): when those of a scope that can be typed disagree, the name
                // has no one type there.
                if matches!(f.lang, Lang::Rust | Lang::Go) && calls.len() > 1 {
                    let mut types = calls.iter().filter_map(|&at| result_of(s, at));
                    let first = types.next()?;
                    return types.all(|(t, _)| t == first.0).then_some(found).flatten();
                }
                found
            })
            .or_else(|| {
                chain.iter().copied().find_map(|s| {
                    let elements = &self.var(fi, var, s)?.elements;
                    // The innermost loop around the call, else the last one.
                    let line = self
                        .line_at(fi, scope)
                        .filter(|_| f.element_binding_spans.len() == f.element_bindings.len());
                    let last = match line {
                        Some(line) => *elements
                            .iter()
                            .filter(|&&i| {
                                f.element_binding_spans
                                    .get(i as usize)
                                    .is_some_and(|&(from, to)| from <= line && line <= to)
                            })
                            .max_by_key(|&&i| f.element_binding_spans.get(i as usize))?,
                        None => *elements.last()?,
                    };
                    let bound = f.element_bindings.get(last as usize)?;
                    self.element_type(fi, s, &bound.of, depth)
                })
            })
            .or_else(|| {
                chain
                    .iter()
                    .copied()
                    .find_map(|s| self.path_binding_type(fi, s, var, depth))
            })
            .or_else(|| {
                // A closure parameter where bindings hold in their whole scope (TypeScript).
                if !f.closure_binding_spans.is_empty() {
                    return None;
                }
                chain.iter().copied().find_map(|s| {
                    let at = *self.var(fi, var, s)?.closures.last()?;
                    self.closure_argument_type(fi, s, f.closure_bindings.get(at as usize)?, depth)
                })
            })
            .or_else(|| {
                // A Ruby parameter: the class every caller passes.
                (f.lang == Lang::Ruby)
                    .then(|| self.ruby_parameter_type(fi, scope, var))
                    .flatten()
            })
            .or_else(|| {
                // A Zig `anytype` or `type` parameter: the one type its callers pass.
                (f.lang == Lang::Zig)
                    .then(|| self.zig_parameter_type(fi, scope, var))
                    .flatten()
            })
    }

    /// A Rust closure's parameter, where the call being resolved sits in the closure (and no
    /// `let` in it shadows the name): what the function the closure is passed to gives it, by
    /// the closure's bound in that function's signature (`f: impl FnOnce(&mut T) -> R`, `F:
    /// Fn(A, B)`). `None` when no closure binds the name there; `Some(None)` when one does but
    /// its type is unknown: the names outside are hidden.
    fn closure_parameter_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
        depth: u32,
    ) -> Option<Option<(u32, f32)>> {
        let f = &self.files[fi];
        let line = self.line_at(fi, scope)?;
        let bound = self.var(fi, var, scope)?;
        let (at, from) = bound
            .closures
            .iter()
            .filter_map(|&i| {
                let &(from, to) = f.closure_binding_spans.get(i as usize)?;
                (from <= line && line <= to).then_some((i, from))
            })
            .max_by_key(|&(_, from)| from)?;
        let binding = f.closure_bindings.get(at as usize)?;
        // `x.with(|x| …)`: on the closure's first line the call's own `x` is the outer one.
        if matches!(&binding.callee, Callee::Member { receiver: Receiver::Name(r), .. } if r == var)
        {
            return None;
        }
        let (types, calls) = self.in_effect(fi, scope, bound);
        let shadowed = types
            .iter()
            .filter_map(|&i| f.binding_spans.get(i as usize))
            .chain(
                calls
                    .iter()
                    .filter_map(|&i| f.call_binding_spans.get(i as usize)),
            )
            .any(|&(start, _)| start > from);
        if shadowed {
            return None;
        }
        Some(self.closure_argument_type(fi, scope, binding, depth))
    }

    /// The type a closure's parameter is given by the function the closure is passed to (a
    /// class's constructor for `new C((x) => …)`).
    fn closure_argument_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        binding: &ClosureBinding,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let (target, conf, reason) = self.sure_target(fi, scope, &binding.callee, depth)?;
        let function = match reason {
            Reason::Constructor => self.find_member(target, "constructor")?.0,
            _ => target,
        };
        let &(file, def) = self.node_def.get(&function)?;
        // `T::f(x, |a| …)` passes `self` as its first argument.
        let method_call = matches!(binding.callee, Callee::Member { .. });
        let param = self.files[file].closure_params.iter().find(|p| {
            let position = match p.takes_self && !method_call {
                true => binding.argument.checked_sub(1),
                false => Some(binding.argument),
            };
            p.def == def && Some(p.position) == position
        })?;
        let written = param
            .types
            .get(binding.parameter as usize)
            .filter(|t| !t.is_empty())?;
        // A parameter the function leaves open (`impl<T> Inner<T>`, `f: impl FnOnce(&mut T)`)
        // is the caller's of the same name, as with fields.
        let open = self.type_param_bound(file, Some(def), written) == Some("");
        let (t, c) = match open {
            true => self.caller_parameter_type(fi, scope, written)?,
            false => self.resolve_type(file, Some(def), written)?,
        };
        Some((t, conf.min(c).min(confidence::RETURN_TYPE)))
    }

    /// `x := n.first` (Go): what the chain holds, when every such binding of the scope agrees
    /// and the scope binds no call's result to the name.
    fn path_binding_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let bound = self.var(fi, var, scope)?;
        if depth >= MAX_RETURN_DEPTH || bound.paths.is_empty() || !bound.calls.is_empty() {
            return None;
        }
        let mut found: Option<(u32, f32)> = None;
        for &at in &bound.paths {
            let (_, _, path) = self.files[fi].path_bindings.get(at as usize)?;
            // `x := x.next` would ask for itself.
            if path.split('.').next() == Some(var) {
                return None;
            }
            let (t, c) = self.path_type(fi, scope, path, depth + 1)?;
            found = match found {
                Some((known, _)) if known != t => return None,
                Some((known, kc)) => Some((known, kc.min(c))),
                None => Some((t, c)),
            };
        }
        found
    }

    /// The element type of a collection: a variable, a `this.x`/`self.x` attribute (in Go any
    /// field, `o.value`) or a call result whose declared type is written `T[]` in facts.
    pub(super) fn element_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        of: &Receiver,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let (file, written_in, written): (usize, Option<u32>, String) = match of {
            Receiver::Name(var) => (fi, scope, self.binding_type(fi, scope, var)?),
            // `o.value` in Go: a field of what the chain before it holds.
            Receiver::Path(path) if self.files[fi].lang == Lang::Go => {
                let (before, attr) = path.rsplit_once('.')?;
                let (ty, _) = self.path_type(fi, scope, before, depth + 1)?;
                let &(file, def) = self.node_def.get(&ty)?;
                let (file, class, written) = self.attribute_type(file, def, attr)?;
                (file, Some(class), written.to_owned())
            }
            // `self.a.items` in Rust and Zig: field `items` of the type of `self.a`.
            Receiver::Path(path) if matches!(self.files[fi].lang, Lang::Rust | Lang::Zig) => {
                // `for x in x.children` would ask for itself again and again.
                if depth >= MAX_RETURN_DEPTH {
                    return None;
                }
                let (head, attr) = path.rsplit_once('.')?;
                let (ty, reached) = self.path_type(fi, scope, head, depth + 1)?;
                let (t, conf) = self.element_field_type(ty, attr)?;
                return Some((t, reached.min(conf)));
            }
            Receiver::Path(path) => {
                let attr = path
                    .strip_prefix("this.")
                    .or_else(|| path.strip_prefix("self."))
                    .filter(|a| !a.contains('.'))?;
                let owner = self.owner_def(fi, scope)?;
                match self.attribute_type(fi, owner, attr) {
                    Some((file, class, ty)) => (file, Some(class), ty.to_owned()),
                    // A getter (`get items(): readonly Item[]`) holds what it returns.
                    None => {
                        let (member, _) =
                            self.find_member(self.def_node[fi][owner as usize], attr)?;
                        let &(file, def) = self.node_def.get(&member)?;
                        let getter = self.files[file].defs.get(def as usize)?;
                        if !is_getter(getter) {
                            return None;
                        }
                        (file, Some(def), getter.returns.clone())
                    }
                }
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

    /// The declared or assigned type of attribute `attr` of class `class` in file `fi`, else of
    /// its nearest base that has one: (file and class where it is written, the type as written).
    pub(super) fn attribute_type(
        &self,
        fi: usize,
        class: u32,
        attr: &str,
    ) -> Option<(usize, u32, &'a str)> {
        let files = self.files;
        let mut queue = vec![(fi, class)];
        let mut seen = HashSet::default();
        let mut i = 0;
        while let Some(&(file, def)) = queue.get(i) {
            i += 1;
            if !seen.insert((file, def)) || seen.len() > 64 {
                continue;
            }
            if let Some((_, _, ty)) = files
                .at(file)
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

    /// The type of attribute `attr` of class `class` in file `fi` (else of its nearest base)
    /// when a method assigns it a call's result (`self.builder = self.create_builder()`): the
    /// type the call returns, when every such assignment of the class agrees.
    pub(super) fn attribute_call_type(
        &self,
        fi: usize,
        class: u32,
        attr: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let files = self.files;
        let mut queue = vec![(fi, class)];
        let mut seen = HashSet::default();
        let mut i = 0;
        while let Some(&(file, def)) = queue.get(i) {
            i += 1;
            if !seen.insert((file, def)) || seen.len() > 64 {
                continue;
            }
            let mut found: Option<(u32, f32)> = None;
            for call in files[file]
                .attr_calls
                .iter()
                .filter(|c| c.class == def && c.attr == attr)
            {
                // `self.x = self.x.copy()` would ask for itself.
                let own = matches!(&call.callee, Callee::Member { receiver: Receiver::Path(p), .. } if p.strip_prefix("self.") == Some(attr));
                let typed = (!own)
                    .then(|| self.call_result_type(file, Some(call.scope), &call.callee, depth + 1))
                    .flatten()?;
                match found {
                    Some((t, _)) if t != typed.0 => return None,
                    Some((t, c)) => found = Some((t, c.min(typed.1))),
                    None => found = Some(typed),
                }
            }
            if let Some((t, c)) = found {
                return Some((t, c.min(confidence::ATTRIBUTE_TYPE)));
            }
            // A Ruby `@x` set to a parameter (`@x = x` in `initialize(x)`): what callers pass.
            if let Some((_, _, method, param)) = files[file]
                .param_ivars
                .iter()
                .find(|(c, a, _, _)| *c == def && a == attr)
                && let Some(&node) = self.def_node[file].get(*method as usize)
            {
                return self.ruby_method_parameter_type(node, param);
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

    /// The declared or constructed type of a variable, searched outward from the scope.
    pub(super) fn binding_type(&self, fi: usize, scope: Option<u32>, var: &str) -> Option<String> {
        let f = &self.files[fi];
        let mut chain: Vec<Option<u32>> =
            self.scope_chain(fi, scope).into_iter().map(Some).collect();
        chain.push(None);
        // The innermost scope that binds the name decides; bindings there that disagree (one
        // type in each branch) leave the type unknown.
        for s in chain {
            let Some(bound) = self.var(fi, var, s) else {
                continue;
            };
            let (types, _) = self.in_effect(fi, scope, bound);
            let mut types = types
                .iter()
                .filter_map(|&i| f.bindings.get(i as usize))
                .map(|b| b.type_name.as_str());
            if let Some(first) = types.next() {
                return types.all(|t| t == first).then(|| first.to_owned());
            }
        }
        None
    }

    /// The line of the call being resolved, when it is written in `scope` of file `fi`.
    fn line_at(&self, fi: usize, scope: Option<u32>) -> Option<u32> {
        self.resolving
            .get()
            .filter(|&(file, s, _)| file == fi && s == scope)
            .map(|(_, _, line)| line)
    }

    /// Of a name's bindings in one scope (indexes into `bindings`, `call_bindings`), those that
    /// hold where the call being resolved is written, when it is in the scope asked about
    /// (`start`): the innermost, the latest to begin. All of them elsewhere.
    fn in_effect(&self, fi: usize, start: Option<u32>, bound: &Bound) -> (Vec<u32>, Vec<u32>) {
        let f = &self.files[fi];
        let spanned = f.binding_spans.len() == f.bindings.len()
            && f.call_binding_spans.len() == f.call_bindings.len();
        let Some(line) = self.line_at(fi, start).filter(|_| spanned) else {
            return (bound.types.clone(), bound.calls.clone());
        };
        let holding = |indexes: &[u32], spans: &[(u32, u32)]| -> Vec<(u32, u32)> {
            indexes
                .iter()
                .filter_map(|&i| {
                    let &(from, to) = spans.get(i as usize)?;
                    (from <= line && line <= to).then_some((i, from))
                })
                .collect()
        };
        let types = holding(&bound.types, &f.binding_spans);
        let calls = holding(&bound.calls, &f.call_binding_spans);
        let latest = types.iter().chain(&calls).map(|&(_, from)| from).max();
        let keep = |found: Vec<(u32, u32)>| -> Vec<u32> {
            found
                .into_iter()
                .filter(|&(_, from)| Some(from) == latest)
                .map(|(i, _)| i)
                .collect()
        };
        (keep(types), keep(calls))
    }

    /// An imported name bound at module level in the file it comes from (`engines =
    /// EngineHandler()` in one file, `from m import engines` in another): that file and the type.
    pub(super) fn imported_binding(&self, fi: usize, var: &str) -> Option<(usize, String)> {
        let f = &self.files[fi];
        f.imports.iter().enumerate().find_map(|(at, import)| {
            let name = import.names.iter().find(|n| n.local() == var)?;
            self.import_files(fi, at).iter().find_map(|&source| {
                let last = *self.var(source, &name.name, None)?.types.last()?;
                let b = self.files[source].bindings.get(last as usize)?;
                Some((source, b.type_name.clone()))
            })
        })
    }

    /// A Go package-level variable of another file of the package (`var Table = &table{}`,
    /// `var std = New()`), when nothing in the file binds the name: its declared, constructed or
    /// returned type.
    fn package_variable_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let f = &self.files[fi];
        if f.lang != Lang::Go {
            return None;
        }
        let mut chain: Vec<Option<u32>> =
            self.scope_chain(fi, scope).into_iter().map(Some).collect();
        chain.push(None);
        if chain.iter().any(|&s| self.var(fi, var, s).is_some()) {
            return None;
        }
        let mate = self
            .modules
            .same_dir_go(&f.path)
            .iter()
            .copied()
            .filter(|&m| m != fi && self.var(m, var, None).is_some())
            .min_by_key(|&m| self.files[m].in_test_code(1))?;
        let bound = self.var(mate, var, None)?;
        if let Some(&at) = bound.types.last() {
            let written = &self.files[mate].bindings.get(at as usize)?.type_name;
            return self.resolve_type(mate, None, written);
        }
        let &at = bound.calls.last()?;
        let callee = &self.files[mate].call_bindings.get(at as usize)?.callee;
        self.call_result_type(mate, None, callee, depth + 1)
    }

    /// Member `name` of the type whose method holds `scope` (`self.m()`, `this->m()`, a C++
    /// method's bare call), as sure as a self-method.
    pub(super) fn own_member(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(u32, f32, Reason)> {
        let owner = self.owner_type(fi, scope)?;
        self.typed_member(
            owner,
            1.0,
            name,
            confidence::SELF_METHOD,
            Reason::SelfMethod,
        )
    }

    /// Member `name` of type `ty`, reached with confidence `reached`: a member found on the type
    /// itself is as sure as `direct`; one inherited from a base is capped at `INHERITED`.
    pub(super) fn typed_member(
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

    /// `self.attr.name()` (or Java's implicit `attr.name()`) through the attribute's declared type.
    pub(super) fn field_member(
        &self,
        fi: usize,
        scope: Option<u32>,
        attr: &str,
        name: &str,
        depth: u32,
    ) -> Option<(u32, f32, Reason)> {
        let (t, conf) = self.member_type(self.owner_type(fi, scope)?, attr, depth)?;
        self.typed_member(t, conf, name, conf, Reason::AttributeType)
    }

    /// Whether a Rust type name as written in file `fi` is bound outside the project: its first
    /// segment is imported by name (the import did not resolve in the project) or the path
    /// starts at another crate (neither `crate`, `self`, `super` nor `Self`).
    pub(super) fn rust_names_outside(&self, fi: usize, name: &str) -> bool {
        let head = name.split("::").next().unwrap_or(name);
        if name.contains("::") {
            return !matches!(head, "crate" | "self" | "super" | "Self")
                && self.lookup_name(fi, None, head).is_none();
        }
        self.files[fi]
            .imports
            .iter()
            .any(|i| i.names.iter().any(|n| n.local() == head))
    }

    /// Whether a Go type name is qualified by an imported package the project does not hold
    /// (`io.Writer` where `io` is the standard library's).
    pub(super) fn go_type_outside(&self, fi: usize, name: &str) -> bool {
        let Some((package, _)) = name.trim_start_matches('*').split_once('.') else {
            return false;
        };
        self.files[fi].imports.iter().any(|i| {
            i.module_alias.as_deref() == Some(package) && self.modules().go(&i.module).is_empty()
        })
    }

    /// `f().unwrap()`, `f().expect(…)`, `f()?` (read as `.unwrap()`) in Rust: the `T` of the
    /// `Option<T>` or `Result<T, E>` that `f` is declared to return (`T?` in facts). And the
    /// standard methods that give back the same value behind another pointer (`x.as_mut()`,
    /// `x.as_ref()`, `x.clone()`, `x.borrow()`, an `Option`'s `x.take()`, a `Pin`'s
    /// `x.get_mut()`, `x.get_ref()`, `x.get_unchecked_mut()`), and the projections
    /// pin-projection macros generate (`x.project()`, `x.project_ref()`: the same fields,
    /// pinned or not), when the project defines none of that name for the receiver: `x`'s
    /// type. `x.unwrap()` of a variable or field typed by what its `Option` holds: that type.
    pub(super) fn unwrapped_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        callee: &Callee,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let Callee::Member { receiver, name } = callee else {
            return None;
        };
        if self.files[fi].lang != Lang::Rust {
            return None;
        }
        if matches!(
            name.as_str(),
            "as_mut"
                | "as_ref"
                | "clone"
                | "borrow"
                | "borrow_mut"
                | "project"
                | "project_ref"
                | "take"
                | "get_mut"
                | "get_ref"
                | "get_unchecked_mut"
        ) {
            let (t, c) = self.receiver_type(fi, scope, receiver, depth + 1)?;
            return Some((t, c.min(confidence::RETURN_TYPE)));
        }
        // `self.queue.pop_front()` of a field declared as a collection (`VecDeque<Task>`): one
        // of its elements, as the standard collections' accessors give them.
        if is_element_accessor(name) && matches!(receiver, Receiver::Name(_) | Receiver::Path(_)) {
            let (t, c) = self.element_type(fi, scope, receiver, depth + 1)?;
            return Some((t, c.min(confidence::RETURN_TYPE)));
        }
        // `let (a, b) = f()`: element `0`, `1`, … of the tuple `f` returns.
        if let Ok(element) = name.parse::<usize>() {
            let Receiver::Call(inner) = receiver else {
                return None;
            };
            let (target, conf, _) = self.sure_target(fi, scope, &dotted_callee(inner), depth)?;
            let &(file, def) = self.node_def.get(&target)?;
            let (_, types) = self.files[file]
                .tuple_returns
                .iter()
                .find(|(d, _)| *d == def)?;
            let written = types.get(element).filter(|t| !t.is_empty())?;
            let (t, c) = self.resolve_type(file, Some(def), written)?;
            return Some((t, conf.min(c).min(confidence::RETURN_TYPE)));
        }
        if !matches!(name.as_str(), "unwrap" | "expect") {
            return None;
        }
        if let Receiver::Call(inner) = receiver
            && let Some((target, conf, _)) =
                self.sure_target(fi, scope, &dotted_callee(inner), depth)
        {
            let &(file, def) = self.node_def.get(&target)?;
            let returns = self.files[file].defs.get(def as usize)?.returns.as_str();
            let held = returns.strip_suffix('?')?;
            let (t, c) = self.resolve_type(file, Some(def), held)?;
            return Some((t, conf.min(c).min(confidence::RETURN_TYPE)));
        }
        // A variable, field or standard call typed by what its `Option` holds.
        let (t, c) = self.receiver_type(fi, scope, receiver, depth + 1)?;
        Some((t, c.min(confidence::RETURN_TYPE)))
    }
}

/// The standard collections' methods that give one of their elements (wrapped in an `Option`
/// but for `swap_remove`): inherent methods, which no trait method of the same name overrides.
pub(super) fn is_element_accessor(name: &str) -> bool {
    matches!(
        name,
        "pop"
            | "pop_front"
            | "pop_back"
            | "first"
            | "last"
            | "front"
            | "back"
            | "first_mut"
            | "last_mut"
            | "front_mut"
            | "back_mut"
            | "get"
            | "get_mut"
            | "swap_remove"
    )
}
