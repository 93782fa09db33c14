//! Ruby's own resolution rules: a class or module reopened anywhere is one (its parts joined),
//! constants found through the lexical nesting, and bare calls as methods of `self` first.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::{Resolver, confidence, dotted_callee};
use crate::extract::ruby::CLASS_VALUE;
use crate::facts::{ArgValue, Callee, MethodParams, Receiver};
use crate::graph::{EdgeKind, NodeKind, Reason};
use crate::lang::Lang;

/// `Kernel` and `Module` methods called without a receiver: never a project method unless the
/// caller's own class (or an ancestor) defines the name.
const KERNEL_METHODS: &[&str] = &[
    "puts",
    "print",
    "p",
    "pp",
    "printf",
    "sprintf",
    "format",
    "raise",
    "fail",
    "loop",
    "lambda",
    "proc",
    "block_given?",
    "catch",
    "throw",
    "warn",
    "sleep",
    "rand",
    "srand",
    "exit",
    "abort",
    "at_exit",
    "binding",
    "caller",
    "eval",
    "instance_eval",
    "instance_exec",
    "class_eval",
    "module_eval",
    "freeze",
    "frozen?",
    "dup",
    "clone",
    "gets",
    "open",
    "system",
    "trap",
    "Integer",
    "Float",
    "String",
    "Array",
    "Hash",
    "Rational",
    "Complex",
    "is_a?",
    "kind_of?",
    "instance_of?",
    "nil?",
    "tap",
    "then",
    "yield_self",
    "object_id",
    "hash",
    "inspect",
    "to_s",
    "class",
    "method",
    "methods",
    "attr",
    "const_get",
    "const_set",
    "const_defined?",
    "instance_variable_defined?",
    "instance_variables",
    "define_singleton_method",
    "singleton_class",
    "extend",
    "private",
    "protected",
    "public",
    "new",
    "allocate",
    "superclass",
    "name",
    "ancestors",
];

/// A call on `self` reaching a method that a subclass defines again: the method found, when
/// `self` may be the subclass (measured 1.00 on Thor and Mustermann against TypeProf, 27 of 27
/// decided, once the oracle saw `attr_*` methods and subclasses redefining the caller stopped
/// counting).
const OVERRIDDEN_SELF: f32 = 0.95;

/// The subclass's method for such a call, when one subclass (or includer) alone defines the name
/// again: a candidate (measured 0.52 against TypeProf, 17 of 33 decided, Thor, Mustermann,
/// TTY::Prompt and Liquid pooled; kept below `FOLLOWED_CONFIDENCE`). When several do, each is
/// right 7 times in 38 (0.18): TypeProf mostly sees `self` of the caller's own class there, as
/// where a registry or a factory builds the subclass, so those make no edge.
const OVERRIDE_CANDIDATE: f32 = 0.48;

/// A bare call in a module reaching a method of the classes that may mix it in, by its name
/// alone (measured 0.33 against TypeProf, 2 of 6 decided, the same corpora pooled).
const MODULE_BARE_CANDIDATE: f32 = 0.33;

/// A method of the class a receiver of unknown type is named after (measured 1.00 against
/// TypeProf, 36 of 36 decided, Thor, Mustermann, TTY::Prompt and Liquid pooled).
const RUBY_NAMED_LIKE_CLASS: f32 = 0.95;

/// The method of the class a receiver is named after, or one a subclass defines again, when
/// subclasses do (the object may be any of them): measured 3 of 5 decided against TypeProf on
/// the seven learning corpora pooled (36 undecided), too few for a band of its own above 0.5;
/// held below it, as the pair band is, so its wrong edges are not followed.
const NAMED_LIKE_OVERRIDDEN: f32 = 0.47;

impl<'a> Resolver<'a> {
    /// Joins the parts of each Ruby class or module (same full name, `A.B` for `A::B`, in one
    /// file or several) in a ring of companions, so a method of one part is a method of every
    /// part; lists each nested type under its full name among the project-wide names, and keeps
    /// only the first part of each there.
    pub(super) fn ruby_structure(&mut self) {
        let mut parts: HashMap<&'a str, Vec<u32>> = HashMap::default();
        let mut order: Vec<&'a str> = Vec::new();
        for (fi, f) in self.files.all.iter().enumerate() {
            if f.lang != Lang::Ruby {
                continue;
            }
            for (di, d) in f.defs.iter().enumerate() {
                if !d.kind.is_type() {
                    continue;
                }
                let node = self.def_node[fi][di];
                let ring = parts.entry(d.qualified.as_str()).or_default();
                if ring.is_empty() {
                    order.push(d.qualified.as_str());
                }
                ring.push(node);
            }
        }
        let mut later_parts: HashSet<u32> = HashSet::default();
        for name in order {
            let Some(ring) = parts.get(name) else {
                continue;
            };
            if name.contains('.') {
                self.globals.entry(name).or_default().extend(ring.first());
            }
            if ring.len() > 1 {
                for (i, &node) in ring.iter().enumerate() {
                    self.companions.insert(node, ring[(i + 1) % ring.len()]);
                }
                later_parts.extend(&ring[1..]);
            }
        }
        if !later_parts.is_empty() {
            for list in self.globals.values_mut() {
                list.retain(|n| !later_parts.contains(n));
            }
        }
    }

    /// Modules mixed into a class by a call naming it (`Base.include(M)`, `Base.prepend(M)`)
    /// are among its ancestors, as an `include` in its body makes them; a prepended module
    /// (also `prepend M` in the body) is recorded on every part of the class, its methods found
    /// before the class's own, though `super` in the class still starts above the class.
    pub(super) fn ruby_mixins(&mut self) {
        for (fi, f) in self.files.all.iter().enumerate() {
            if f.lang != Lang::Ruby {
                continue;
            }
            for (scope, class, module, prepended) in &f.mixins {
                let target = if class.is_empty() {
                    scope.and_then(|d| self.def_node[fi].get(d as usize).copied())
                } else {
                    self.resolve_type(fi, *scope, class).map(|(t, _)| t)
                };
                let Some(target) = target.filter(|&t| self.kind_of(t) == Some(NodeKind::Class))
                else {
                    continue;
                };
                let Some((mixin, conf)) = self.resolve_type(fi, *scope, module) else {
                    continue;
                };
                if mixin == target || self.kind_of(mixin) != Some(NodeKind::Trait) {
                    continue;
                }
                if !class.is_empty() {
                    self.b
                        .add_edge(target, mixin, EdgeKind::Implements, conf, Reason::Heritage);
                }
                if !prepended {
                    // Included after the class body: the last included, looked up first.
                    self.bases.entry(target).or_default().insert(0, mixin);
                    self.ruby_subtypes.entry(mixin).or_default().push(target);
                    continue;
                }
                let mut part = target;
                loop {
                    let list = self.ruby_prepended.entry(part).or_default();
                    if !list.contains(&mixin) {
                        list.insert(0, mixin);
                    }
                    match self.companions.get(&part) {
                        Some(&next) if next != target => part = next,
                        _ => break,
                    }
                }
            }
        }
    }

    /// Method `name` of a module prepended to Ruby class `ty` (the last prepended first), or of
    /// a part of that module.
    pub(super) fn ruby_prepended_member(&self, ty: u32, name: &str) -> Option<u32> {
        self.ruby_prepended.get(&ty)?.iter().find_map(|&module| {
            let mut part = module;
            loop {
                if let Some(&m) = self.members.get(&part).and_then(|m| m.get(name)) {
                    return Some(m);
                }
                match self.companions.get(&part) {
                    Some(&next) if next != module => part = next,
                    _ => return None,
                }
            }
        })
    }

    /// The class or module a Ruby constant path names (`Cart`, `Shop::Cart`, `::Cart`): looked
    /// up inside each class or module the scope is nested in, innermost first, then at the top.
    /// A path written from the top (`::Cart`) names a top-level constant only, never a class
    /// nested elsewhere under that name.
    pub(super) fn ruby_constant(
        &self,
        fi: usize,
        scope: Option<u32>,
        written: &str,
    ) -> Option<(u32, f32)> {
        let dotted = written.replace("::", ".");
        let (absolute, path) = match dotted.strip_prefix('.') {
            Some(rest) => (true, rest),
            None => (false, dotted.as_str()),
        };
        let defs = &self.files[fi].defs;
        let nesting = self
            .scope_chain(fi, scope)
            .into_iter()
            .filter_map(|d| defs.get(d as usize))
            .filter(|d| d.kind.is_type() && !absolute)
            .map(|d| format!("{}.{path}", d.qualified));
        nesting
            .chain(std::iter::once(path.to_owned()))
            .find_map(|full| {
                let node = *self.globals.get(full.as_str())?.first()?;
                let from_top = !absolute
                    || self.node_def.get(&node).is_some_and(|&(file, def)| {
                        self.files[file]
                            .defs
                            .get(def as usize)
                            .is_some_and(|d| d.qualified == full)
                    });
                (from_top && self.kind_of(node).is_some_and(NodeKind::is_type))
                    .then_some((node, confidence::IMPORT))
            })
    }

    /// `x.m` on a local or parameter of unknown type named as a class is written in snake case
    /// (`parse_context` for `ParseContext`, looked up as that constant written here): `m` of
    /// that class or its ancestors, when it has one. The name tells the class's family, not the
    /// class: when subclasses define `m` again, the method found and each override are
    /// candidates only.
    pub(super) fn ruby_class_named_like(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
        name: &str,
    ) -> Option<Vec<(u32, f32, Reason)>> {
        if var.is_empty() || !var.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            return None;
        }
        let mut constant = String::with_capacity(var.len());
        for word in var.split('_').filter(|word| !word.is_empty()) {
            let (head, rest) = word.split_at(1);
            constant.push_str(&head.to_ascii_uppercase());
            constant.push_str(rest);
        }
        let (class, _) = self.ruby_constant(fi, scope, &constant)?;
        if self.kind_of(class) != Some(NodeKind::Class) {
            return None;
        }
        let (method, _) = self.find_member(class, name)?;
        let overrides = self.ruby_overrides(class, method, name);
        Some(match overrides.as_slice() {
            [] => vec![(method, RUBY_NAMED_LIKE_CLASS, Reason::ReceiverType)],
            _ => std::iter::once((method, NAMED_LIKE_OVERRIDDEN, Reason::ReceiverType))
                .chain(
                    overrides
                        .iter()
                        .map(|&m| (m, NAMED_LIKE_OVERRIDDEN, Reason::Ambiguous)),
                )
                .collect(),
        })
    }

    /// The methods named `name` that subclasses of `class` (or classes mixing it in, at any
    /// depth, any part) define again over `found`.
    pub(super) fn ruby_overrides(&self, class: u32, found: u32, name: &str) -> Vec<u32> {
        self.ruby_overrides_below(class, found, name, |_| false)
    }

    /// `ruby_overrides`, not looking into a subclass (nor below it) that `cut` names.
    fn ruby_overrides_below(
        &self,
        class: u32,
        found: u32,
        name: &str,
        cut: impl Fn(Option<&HashMap<&str, u32>>) -> bool,
    ) -> Vec<u32> {
        let mut queue = vec![class];
        let mut seen = HashSet::default();
        let mut overrides: Vec<u32> = Vec::new();
        let mut i = 0;
        while let Some(&t) = queue.get(i) {
            i += 1;
            if !seen.insert(t) || seen.len() > 256 {
                continue;
            }
            let members = self.members.get(&t);
            if t != class && cut(members) {
                continue;
            }
            if t != class
                && let Some(&m) = members.and_then(|m| m.get(name))
                && m != found
                && !overrides.contains(&m)
            {
                overrides.push(m);
            }
            queue.extend(self.companions.get(&t));
            queue.extend(self.ruby_subtypes.get(&t).into_iter().flatten());
        }
        overrides
    }

    /// A Ruby call without a receiver: a method of `self`'s class or its ancestors, else a
    /// method defined at the top level (a private method of every object), else, written in a
    /// module, a method of the classes that mix it in (a candidate only). A capitalised name is
    /// a conversion method or a constant's class.
    pub(super) fn ruby_bare_call(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Vec<(u32, f32, Reason)> {
        let f = &self.files[fi];
        let in_class_method = self
            .scope_chain(fi, scope)
            .into_iter()
            .filter_map(|d| f.defs.get(d as usize))
            .find(|d| d.kind.is_callable())
            .is_some_and(|d| d.name.starts_with("self."));
        // In a class method `self` is the class: its class methods first, then the methods a
        // module gives itself (`extend self`, `module_function`).
        if in_class_method
            && let Some(owner) = self.owner_type(fi, scope)
            && let Some(hit) = self
                .own_member(fi, scope, &format!("self.{name}"))
                .or_else(|| self.ruby_class_methods(owner, name))
        {
            return vec![hit];
        }
        if let Some(hit) = self.own_member(fi, scope, name) {
            return self.ruby_self_dispatch(fi, scope, hit, name);
        }
        if KERNEL_METHODS.contains(&name) {
            return Vec::new();
        }
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            return self
                .ruby_constant(fi, scope, name)
                .map(|(t, conf)| (t, conf, Reason::Constructor))
                .into_iter()
                .collect();
        }
        if let Some(d) = self.top_level[fi]
            .get(name)
            .and_then(|v| f.visible_definition(v))
            .filter(|&d| f.defs.get(d as usize).is_some_and(|x| x.kind.is_callable()))
        {
            return vec![(
                self.def_node[fi][d as usize],
                confidence::SAME_FILE,
                Reason::SameFile,
            )];
        }
        let functions: Vec<u32> = self
            .globals
            .get(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&n| self.kind_of(n) == Some(NodeKind::Function))
            .collect();
        let in_module = self
            .owner_type(fi, scope)
            .is_some_and(|t| self.kind_of(t) == Some(NodeKind::Trait));
        if !functions.is_empty() {
            return self.fallback(Some(&functions), fi);
        }
        if in_module {
            return self
                .fallback(self.methods.get(name), fi)
                .into_iter()
                .map(|(n, c, _)| (n, c.min(MODULE_BARE_CANDIDATE), Reason::Ambiguous))
                .collect();
        }
        Vec::new()
    }

    /// A call on `self` in an instance method found as `hit` on the method's own class: when a
    /// subclass (or a class mixing the module in) defines the name again, `self` may be one of
    /// those, so the method found is no longer sure and a lone override is a candidate (of
    /// several overrides none is: each is rarely the one run). A subclass
    /// that defines the calling method again without calling `super` never runs this one, so
    /// neither it nor its own subclasses are `self` here.
    pub(super) fn ruby_self_dispatch(
        &self,
        fi: usize,
        scope: Option<u32>,
        hit: (u32, f32, Reason),
        name: &str,
    ) -> Vec<(u32, f32, Reason)> {
        let Some(owner) = self.owner_type(fi, scope) else {
            return vec![hit];
        };
        let defs = &self.files[fi].defs;
        let calling = self
            .scope_chain(fi, scope)
            .into_iter()
            .filter_map(|d| Some((d, defs.get(d as usize)?)))
            .find(|(_, d)| d.kind.is_callable())
            .map(|(d, def)| (self.def_node[fi][d as usize], def.name.as_str()));
        let overrides = self.ruby_overrides_below(owner, hit.0, name, |members| {
            calling.is_some_and(|(caller, caller_name)| {
                members
                    .and_then(|m| m.get(caller_name))
                    .is_some_and(|&again| {
                        again != caller && !self.ruby_calls_super(again, caller_name)
                    })
            })
        });
        let (m, conf, reason) = hit;
        match overrides.as_slice() {
            [] => vec![hit],
            [only] => vec![
                (m, conf.min(OVERRIDDEN_SELF), reason),
                (*only, OVERRIDE_CANDIDATE, Reason::Ambiguous),
            ],
            _ => vec![(m, conf.min(OVERRIDDEN_SELF), reason)],
        }
    }

    /// `super` in a method of Ruby class or module `owner`: the method `name` above it, as Ruby
    /// looks it up: the modules any part of it includes (the last included first, with their
    /// own ancestors) before its superclass.
    pub(super) fn ruby_super(&self, owner: u32, name: &str) -> Option<(u32, f32, Reason)> {
        let mut parts = vec![owner];
        while let Some(&next) = parts.last().and_then(|p| self.companions.get(p)) {
            if next == owner || parts.len() > 64 {
                break;
            }
            parts.push(next);
        }
        let bases = |part: &u32| self.bases.get(part).map_or(&[][..], Vec::as_slice);
        let modules = parts.iter().rev().flat_map(|p| {
            bases(p)
                .iter()
                .filter(|&&b| self.kind_of(b) == Some(NodeKind::Trait))
        });
        let classes = parts.iter().flat_map(|p| {
            bases(p)
                .iter()
                .filter(|&&b| self.kind_of(b) != Some(NodeKind::Trait))
        });
        modules.chain(classes).find_map(|&base| {
            let (m, _) = self.find_member(base, name)?;
            Some((m, confidence::INHERITED, Reason::SuperMethod))
        })
    }

    /// Whether the Ruby method `method` (named `name`) calls `super`.
    fn ruby_calls_super(&self, method: u32, name: &str) -> bool {
        let Some(&(file, def)) = self.node_def.get(&method) else {
            return false;
        };
        self.files[file].calls.iter().any(|c| {
            c.caller == Some(def)
                && matches!(&c.callee, Callee::Member { receiver: Receiver::Super, name: n } if n == name)
        })
    }

    /// A class method a class gets from a module it includes through the `ClassMethods`
    /// convention (`def self.included(base) base.extend(ClassMethods) end`): a method of
    /// `M::ClassMethods` for an ancestor module `M`, as an inherited method.
    pub(super) fn ruby_class_methods(&self, ty: u32, name: &str) -> Option<(u32, f32, Reason)> {
        let mut queue = vec![ty];
        let mut seen = HashSet::default();
        let mut i = 0;
        while let Some(&t) = queue.get(i) {
            i += 1;
            if !seen.insert(t) || seen.len() > 64 {
                continue;
            }
            if self.kind_of(t) == Some(NodeKind::Trait)
                && let Some(&(file, def)) = self.node_def.get(&t)
                && let Some(d) = self.files[file].defs.get(def as usize)
                && let Some(&methods) = self
                    .globals
                    .get(format!("{}.ClassMethods", d.qualified).as_str())
                    .and_then(|v| v.first())
                && let Some((m, _)) = self.find_member(methods, name)
            {
                return Some((m, confidence::INHERITED, Reason::SelfMethod));
            }
            queue.extend(self.companions.get(&t));
            queue.extend(self.bases.get(&t).into_iter().flatten());
        }
        None
    }

    /// `Foo.m`, `Foo::m`: a class method (`def self.m`, own or inherited), else one from an
    /// included module's `ClassMethods`, else a method the module gives itself (`extend self`,
    /// `module_function`). `Foo.new` is a `def self.new` when there is one, else the
    /// `initialize` of the class or an ancestor, else the class itself.
    pub(super) fn ruby_class_call(
        &self,
        fi: usize,
        scope: Option<u32>,
        path: &str,
        name: &str,
    ) -> Vec<(u32, f32, Reason)> {
        let Some((ty, conf)) = self.resolve_type(fi, scope, path) else {
            return Vec::new();
        };
        self.ruby_class_member(ty, conf, name)
    }

    /// Method `name` called on class (or module) `ty` itself, found at `conf`.
    fn ruby_class_member(&self, ty: u32, conf: f32, name: &str) -> Vec<(u32, f32, Reason)> {
        let member =
            |name: &str| self.typed_member(ty, conf, name, confidence::IMPORT, Reason::ClassMember);
        let singleton = member(&format!("self.{name}"));
        if name == "new" {
            return vec![singleton.or_else(|| member("initialize")).unwrap_or((
                ty,
                conf,
                Reason::Constructor,
            ))];
        }
        singleton
            .or_else(|| self.ruby_class_methods(ty, name))
            .or_else(|| member(name))
            .into_iter()
            .collect()
    }

    /// `f.m`, `f.new` where the method `f` (a dotted callee, `chain`) surely reached returns a
    /// class itself (its last expression is a constant): `m` called on that class. None when
    /// `f` is not such a method.
    pub(super) fn ruby_class_result_call(
        &self,
        fi: usize,
        scope: Option<u32>,
        chain: &str,
        name: &str,
        depth: u32,
    ) -> Option<Vec<(u32, f32, Reason)>> {
        let (target, conf, _) = self.sure_target(fi, scope, &dotted_callee(chain), depth)?;
        let &(file, def) = self.node_def.get(&target)?;
        let returned = self.files[file]
            .defs
            .get(def as usize)?
            .returns
            .strip_prefix(CLASS_VALUE)?;
        let (ty, found) = self.resolve_type(file, Some(def), returned)?;
        let conf = conf.min(found).min(confidence::RETURN_TYPE);
        Some(
            self.ruby_class_member(ty, conf, name)
                .into_iter()
                .map(|(m, c, reason)| {
                    let reason = if reason == Reason::Constructor {
                        reason
                    } else {
                        Reason::ReturnType
                    };
                    (m, c.min(conf), reason)
                })
                .collect(),
        )
    }

    /// Per Ruby method, the parameters every call reaching it passes one known class
    /// (`MethodParams`' parameters; `ruby_param_types`): calls resolved at 0.9 or more, each
    /// argument a class built or written, a literal's, `self`'s, or a caller's typed local. A
    /// call leaving a parameter's place unknown (no argument there, a splat before it, a value
    /// of unknown class) or passing another class leaves it untyped. Built from every file once
    /// the tables are whole; no parameter type is read while it is built.
    pub(super) fn ruby_param_types(&mut self) {
        let files = self.files.all;
        // Method node → (its file, its parameters), and per parameter the class callers agree on
        // (`None` once one disagrees or leaves it unknown; absent while no call reaches it).
        let mut params: HashMap<u32, (usize, &MethodParams)> = HashMap::default();
        for (fi, f) in files.iter().enumerate() {
            if f.lang != Lang::Ruby {
                continue;
            }
            for p in &f.method_params {
                if let Some(&node) = self.def_node[fi].get(p.method as usize) {
                    params.insert(node, (fi, p));
                }
            }
        }
        if params.is_empty() {
            return;
        }
        let mut agreed: HashMap<(u32, &str), Option<u32>> = HashMap::default();
        for (fi, f) in files.iter().enumerate() {
            if f.lang != Lang::Ruby {
                continue;
            }
            let mut args = f.call_args.iter().peekable();
            for (ci, call) in f.calls.iter().enumerate() {
                let passed = args.next_if(|a| a.call as usize == ci);
                self.resolving.set(Some((fi, call.caller, call.line)));
                let targets = self.resolve_call(fi, call.caller, &call.callee, 0);
                for (to, conf, _) in targets {
                    let Some(&(_, method)) = params.get(&to).filter(|_| conf >= 0.9) else {
                        continue;
                    };
                    let places = method.positional.iter().enumerate().filter_map(|(i, p)| {
                        let value = passed.and_then(|a| {
                            (!a.splat || i < a.positional.len())
                                .then(|| a.positional.get(i))
                                .flatten()
                        });
                        Some((p.as_deref()?, value))
                    });
                    let keywords = method.keywords.iter().map(|k| {
                        let value = passed
                            .and_then(|a| a.keywords.iter().find(|(n, _)| n == k).map(|(_, v)| v));
                        (k.as_str(), value)
                    });
                    for (name, value) in places.chain(keywords).collect::<Vec<_>>() {
                        let ty = value.and_then(|v| self.ruby_argument_type(fi, call.caller, v));
                        let slot = agreed.entry((to, name)).or_insert(ty);
                        if *slot != ty {
                            *slot = None;
                        }
                    }
                }
                self.resolving.set(None);
            }
        }
        self.variable_types.borrow_mut().clear();
        self.alias_types.borrow_mut().clear();
        self.unions.borrow_mut().clear();
        let mut typed: Vec<((u32, &str), u32)> = agreed
            .into_iter()
            .filter_map(|(key, ty)| Some((key, ty?)))
            .collect();
        typed.sort_unstable();
        for ((method, name), ty) in typed {
            self.ruby_param_types
                .entry(method)
                .or_default()
                .push((name.to_owned(), ty));
        }
    }

    /// The class an argument is, when sure (0.9 or more).
    fn ruby_argument_type(&self, fi: usize, scope: Option<u32>, value: &ArgValue) -> Option<u32> {
        let (ty, conf) = match value {
            ArgValue::Type(written) => self.ruby_constant(fi, scope, written)?,
            ArgValue::Local(name) => self.variable_type(fi, scope, name, 0)?,
            ArgValue::SelfRef => (self.ruby_self_class(fi, scope)?, confidence::SELF_METHOD),
            ArgValue::Path(_) | ArgValue::Unknown => return None,
        };
        (conf >= 0.9 && self.kind_of(ty) == Some(NodeKind::Class)).then_some(ty)
    }

    /// The class `self` is an instance of in an instance method written in `scope`: the class
    /// around it, or for a module the one class including it (itself included by no other).
    fn ruby_self_class(&self, fi: usize, scope: Option<u32>) -> Option<u32> {
        let own = self.def_node[fi][self.owner_def(fi, scope)? as usize];
        if self.kind_of(own) == Some(NodeKind::Class) {
            return Some(own);
        }
        let includers: HashSet<u32> = self.ruby_subtypes.get(&own)?.iter().copied().collect();
        let mut only = includers.into_iter();
        let class = only.next().filter(|_| only.next().is_none())?;
        let alone = self.ruby_subtypes.get(&class).is_none_or(Vec::is_empty);
        (alone && self.kind_of(class) == Some(NodeKind::Class)).then_some(class)
    }

    /// The class every caller passes to parameter `var` of the Ruby method around `scope`
    /// (`ruby_param_types`), when the method never assigns it.
    pub(super) fn ruby_parameter_type(
        &self,
        fi: usize,
        scope: Option<u32>,
        var: &str,
    ) -> Option<(u32, f32)> {
        let f = &self.files[fi];
        let method = scope?;
        let declared = f.method_params.iter().find(|p| p.method == method)?;
        if !declared.positional.iter().flatten().any(|p| p == var)
            && !declared.keywords.iter().any(|k| k == var)
        {
            return None;
        }
        self.ruby_method_parameter_type(self.def_node[fi][method as usize], var)
    }

    /// The class every caller passes to parameter `param` of the Ruby method `method` (a node).
    pub(super) fn ruby_method_parameter_type(
        &self,
        method: u32,
        param: &str,
    ) -> Option<(u32, f32)> {
        self.ruby_param_types
            .get(&method)?
            .iter()
            .find(|(p, _)| p == param)
            .map(|&(_, ty)| (ty, confidence::PARAMETER_FROM_CALLERS))
    }
}
