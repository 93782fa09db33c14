//! Zig's own resolution rules beside the shared ones: a receiver reached through a package
//! (`std.debug.print`, `mem.eql` where `const mem = std.mem`) calls nothing of the project, a
//! path through nested containers (`Clock.Timestamp.now()`) reaches the innermost one, a
//! decl literal passed as an argument (`g(.init(…))`) is typed by the parameter it fills, and
//! `anytype` and `comptime T: type` parameters are of the types their callers pass.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::{Resolver, confidence, dotted_callee};
use crate::extract::zig::OPEN_TYPES;
use crate::facts::{ArgValue, Callee, Receiver};
use crate::graph::Reason;
use crate::lang::Lang;

/// Each edge to a method of one of the types an `anytype` or `type` parameter's callers pass,
/// when callers pass several types or some pass a value of unknown type (each instantiation
/// is one function of the compiler: one edge per type). Measured 0.40 on Zig's standard
/// library (29 of 72 decided: the compiler judges only the instantiations its tests reach), so
/// a candidate below `FOLLOWED_CONFIDENCE`.
pub(super) const CALLER_TYPES: f32 = 0.4;

/// A parameter's callers' types as the compiler instantiates them: a value forwarded from
/// one generic function to another (`mem.sortContext` → `sort.insertionContext`) is typed
/// once its caller's parameter is; this many rounds follow such chains.
const CALLER_ROUNDS: usize = 4;

/// A parameter typed by its callers: its name, the types they pass (sorted), and whether every
/// call reaching its function passes a type known there.
pub(super) type CallerTypes = (String, Vec<u32>, bool);

/// A function's open parameters: its parameter count, and per `anytype` or `type` parameter
/// its place, its name and whether it is a `type`.
type OpenParams<'f> = (usize, Vec<(usize, &'f str, bool)>);

/// The types passed at one parameter of one function (node, name) and whether every call did.
type Passed<'f> = ((u32, &'f str), (Vec<u32>, bool));

impl<'a> Resolver<'a> {
    /// Whether a receiver starts at a name the file imports from a package (an `@import` of no
    /// project file: `std`, a module a build script maps), with no variable of `scope` hiding it.
    pub(super) fn zig_package_receiver(
        &self,
        fi: usize,
        scope: Option<u32>,
        receiver: &Receiver,
    ) -> bool {
        let chain = match receiver {
            Receiver::Name(name) | Receiver::Path(name) | Receiver::Call(name) => name,
            _ => return false,
        };
        let head = chain.split(['.', '(']).next().unwrap_or(chain);
        if self.binding_type(fi, scope, head).is_some() {
            return false;
        }
        let Some(at) = self.files[fi].imports.iter().position(|i| {
            i.module_alias.as_deref() == Some(head) || i.names.iter().any(|n| n.local() == head)
        }) else {
            return false;
        };
        self.import_files(fi, at).is_empty()
    }

    /// The container a receiver path names through containers declared inside containers
    /// (`Clock.Timestamp` where `Timestamp` is declared in `Clock`), with the confidence of its
    /// first part: the longest prefix that names a type from `scope` (the whole path too: an
    /// alias `m.Bytes` of a type function's instance), then each further part a container
    /// declared in the one before (a field or function on the way names no container).
    pub(super) fn zig_nested_container(
        &self,
        fi: usize,
        scope: Option<u32>,
        path: &str,
    ) -> Option<(u32, f32)> {
        let parts: Vec<&str> = path.split('.').collect();
        (1..=parts.len()).rev().find_map(|split| {
            let (start, conf) = self.resolve_type(fi, scope, &parts[..split].join("."))?;
            let inner = parts[split..].iter().try_fold(start, |container, part| {
                let (member, inherited) = self.find_member(container, part)?;
                let is_type = self.kind_of(member).is_some_and(|k| k.is_type());
                (is_type && !inherited).then_some(member)
            })?;
            Some((inner, conf))
        })
    }

    /// The type of an argument place `g@i/n` (written by `extract/zig.rs` for a decl literal
    /// passed as argument `i` of `n` to `g`), then of the fields written after it (`g@0/1.f`):
    /// the declared type of the parameter at that place of what `g` surely calls (a path
    /// through nested containers too: `std.Io.Limit`). A method called on a value takes it
    /// first (one parameter more than the arguments).
    pub(super) fn zig_argument_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        path: &str,
        depth: u32,
    ) -> Option<(u32, f32)> {
        let (callee, place) = path.split_once('@')?;
        let (at, rest) = place.split_once('/')?;
        let (count, fields) = rest.split_once('.').map_or((rest, ""), |(c, f)| (c, f));
        let (at, count): (usize, usize) = (at.parse().ok()?, count.parse().ok()?);
        let (target, reached, _) = self.sure_target(fi, scope, &dotted_callee(callee), depth)?;
        let &(file, def) = self.node_def.get(&target)?;
        let params = self.files[file]
            .method_params
            .iter()
            .find(|p| p.method == def)?;
        let at = match params.positional.len().checked_sub(count)? {
            0 => at,
            1 => at + 1,
            _ => return None,
        };
        let name = params.positional.get(at)?.as_deref()?;
        let bound = self.var(file, name, Some(def))?;
        let written = &self.files[file]
            .bindings
            .get(*bound.types.first()? as usize)?
            .type_name;
        let (mut ty, mut conf) = self
            .resolve_type(file, Some(def), written)
            .or_else(|| self.zig_nested_container(file, Some(def), written))?;
        conf = conf.min(reached);
        for field in fields.split('.').filter(|f| !f.is_empty()) {
            let (t, c) = self.member_type(ty, field, depth)?;
            (ty, conf) = (t, conf.min(c));
        }
        Some((ty, conf))
    }

    /// Per Zig function (or type function), its `anytype` and `comptime T: type` parameters with
    /// the types the calls reaching it (at 0.9 or more) pass at their place (`zig_param_types`):
    /// a value's type (a typed local or field chain, a struct literal `Ctx{ … }`, a parameter
    /// itself typed by its callers), or the type an argument names for a `type` parameter. A
    /// method called on a value takes it first. Rounds follow values forwarded from one such
    /// function to another until nothing changes. Built from every file once the tables are
    /// whole.
    pub(super) fn zig_param_types(&mut self) {
        let files = self.files.all;
        // Function node → (its parameter count, its open parameters: place, name, a type).
        let mut open: HashMap<u32, OpenParams> = HashMap::default();
        let mut names: HashSet<&str> = HashSet::default();
        for (fi, f) in files.iter().enumerate() {
            if f.lang != Lang::Zig {
                continue;
            }
            for p in &f.method_params {
                let places: Vec<(usize, &str, bool)> = p
                    .positional
                    .iter()
                    .enumerate()
                    .filter_map(|(at, name)| {
                        let name = name.as_deref()?;
                        let written = f.bindings.iter().find(|b| {
                            b.scope == Some(p.method)
                                && b.var == name
                                && OPEN_TYPES.contains(&b.type_name.as_str())
                        })?;
                        Some((at, name, written.type_name == "type"))
                    })
                    .collect();
                if places.is_empty() {
                    continue;
                }
                let (Some(&node), Some(def)) = (
                    self.def_node[fi].get(p.method as usize),
                    f.defs.get(p.method as usize),
                ) else {
                    continue;
                };
                open.insert(node, (p.positional.len(), places));
                names.insert(def.name.as_str());
            }
        }
        for _ in 0..CALLER_ROUNDS {
            let mut found: HashMap<(u32, &str), (Vec<u32>, bool)> = HashMap::default();
            for (fi, f) in files.iter().enumerate() {
                if f.lang != Lang::Zig {
                    continue;
                }
                for args in &f.call_args {
                    let Some(call) = f.calls.get(args.call as usize) else {
                        continue;
                    };
                    let called = match &call.callee {
                        Callee::Name(name) | Callee::Member { name, .. } => name,
                        _ => continue,
                    };
                    if !names.contains(called.as_str()) {
                        continue;
                    }
                    self.resolving.set(Some((fi, call.caller, call.line)));
                    for (to, conf, _) in self.resolve_call(fi, call.caller, &call.callee, 0) {
                        let Some((count, places)) = open.get(&to).filter(|_| conf >= 0.9) else {
                            continue;
                        };
                        let offset = match count.checked_sub(args.positional.len()) {
                            Some(offset @ (0 | 1)) => offset,
                            _ => continue,
                        };
                        for &(at, name, is_type) in places {
                            let passed = at
                                .checked_sub(offset)
                                .and_then(|i| args.positional.get(i))
                                .and_then(|v| self.zig_argument_types(fi, call.caller, v, is_type));
                            let slot = found.entry((to, name)).or_insert((Vec::new(), true));
                            match passed {
                                Some((types, whole)) => {
                                    slot.0.extend(types);
                                    slot.1 &= whole;
                                }
                                None => slot.1 = false,
                            }
                        }
                    }
                    self.resolving.set(None);
                }
            }
            self.variable_types.borrow_mut().clear();
            self.alias_types.borrow_mut().clear();
            self.unions.borrow_mut().clear();
            let mut typed: Vec<Passed> = found
                .into_iter()
                .filter(|(_, (types, _))| !types.is_empty())
                .map(|(key, (mut types, whole))| {
                    types.sort_unstable();
                    types.dedup();
                    (key, (types, whole))
                })
                .collect();
            typed.sort_unstable();
            let mut table: HashMap<u32, Vec<CallerTypes>> = HashMap::default();
            for ((function, name), (types, whole)) in typed {
                table
                    .entry(function)
                    .or_default()
                    .push((name.to_owned(), types, whole));
            }
            if table == *self.zig_param_types.raw() {
                break;
            }
            *self.zig_param_types = table;
        }
    }

    /// The types an argument passes (each a type node, sure: 0.9 or more) and whether they are
    /// all it may be: a type it names for a `type` parameter, else its value's type; a
    /// parameter of the caller typed by its own callers passes theirs.
    fn zig_argument_types(
        &self,
        fi: usize,
        scope: Option<u32>,
        value: &ArgValue,
        is_type: bool,
    ) -> Option<(Vec<u32>, bool)> {
        if let ArgValue::Local(name) = value
            && let Some((types, whole)) = self.zig_caller_types(fi, scope, name)
        {
            return Some((types.to_vec(), whole));
        }
        let (ty, conf) = match value {
            ArgValue::Local(name) | ArgValue::Path(name) if is_type => self
                .resolve_type(fi, scope, name)
                .or_else(|| self.zig_nested_container(fi, scope, name))?,
            ArgValue::Type(written) if !is_type => self.resolve_type(fi, scope, written)?,
            ArgValue::Local(name) => self.variable_type(fi, scope, name, 0)?,
            ArgValue::Path(path) => self.path_type(fi, scope, path, 0)?,
            _ => return None,
        };
        let is_container = self.kind_of(ty).is_some_and(|k| k.is_type());
        (conf >= 0.9 && is_container).then(|| (vec![ty], true))
    }

    /// The types callers pass to parameter `var` of the function around `scope` that declares
    /// it `anytype` or `type`, or to the `type` parameter its declared type names (`x: T`
    /// where `comptime T: type`), and whether those are all it may be.
    fn zig_caller_types(&self, fi: usize, scope: Option<u32>, var: &str) -> Option<(&[u32], bool)> {
        let f = &self.files[fi];
        let written = self.binding_type(fi, scope, var)?;
        let param = if OPEN_TYPES.contains(&written.as_str()) {
            var.to_owned()
        } else if self.binding_type(fi, scope, &written).as_deref() == Some("type") {
            written
        } else {
            return None;
        };
        self.scope_chain(fi, scope).into_iter().find_map(|d| {
            let declared = f.method_params.iter().find(|p| p.method == d)?;
            if !declared.positional.iter().flatten().any(|p| *p == param) {
                return None;
            }
            let node = *self.def_node[fi].get(d as usize)?;
            let (_, types, whole) = self
                .zig_param_types
                .get(&node)?
                .iter()
                .find(|(p, _, _)| *p == param)?;
            Some((types.as_slice(), *whole))
        })
    }

    /// The one type callers pass to parameter `var` (as `zig_caller_types`): every caller's,
    /// at `PARAMETER_FROM_CALLERS`, else (some callers' type unknown) at `CALLER_TYPES`.
    pub(super) fn zig_parameter_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
    ) -> Option<(u32, f32)> {
        match self.zig_caller_types(fi, scope, var)? {
            (&[one], true) => Some((one, confidence::PARAMETER_FROM_CALLERS)),
            (&[one], false) => Some((one, CALLER_TYPES)),
            _ => None,
        }
    }

    /// Method `name` called on parameter `var` its callers pass several types: the method of
    /// each type that has one (an instantiation of another type does not reach this call, or
    /// reaches it under a compile-time test), at `CALLER_TYPES`.
    pub(super) fn zig_caller_typed_members(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
        name: &str,
    ) -> Vec<(u32, f32, Reason)> {
        let Some((types, _)) = self.zig_caller_types(fi, scope, var) else {
            return Vec::new();
        };
        let mut hits: Vec<(u32, f32, Reason)> = Vec::new();
        for &t in types {
            if let Some(hit) =
                self.typed_member(t, CALLER_TYPES, name, CALLER_TYPES, Reason::ReceiverType)
                && !hits.iter().any(|h| h.0 == hit.0)
            {
                hits.push(hit);
            }
        }
        hits
    }
}
