//! Elixir's resolution rules: modules found by their full names (the extractor expanded aliases),
//! functions by name/arity in the module called, the caller's own module or an imported one.

use super::{Resolver, confidence};
use crate::facts::Callee;
use crate::graph::{NodeKind, Reason};
use crate::lang::Lang;

/// Most default arguments a call may leave out and still reach a function (`def f(a, b \\ 1)`
/// is `f/1` and `f/2`; Nexus names it `f/2`).
const MAX_DEFAULTS: u32 = 4;

fn is_module(kind: NodeKind) -> bool {
    matches!(
        kind,
        NodeKind::Module | NodeKind::Struct | NodeKind::Interface
    )
}

impl<'a> Resolver<'a> {
    /// Lists every Elixir module among the project-wide names under its full name (`A.B`).
    pub(super) fn elixir_structure(&mut self) {
        for (fi, f) in self.files.all.iter().enumerate() {
            if f.lang != Lang::Elixir {
                continue;
            }
            for (di, d) in f.defs.iter().enumerate() {
                if !is_module(d.kind) {
                    continue;
                }
                let node = self.def_node[fi][di];
                let list = self.globals.entry(d.qualified.as_str()).or_default();
                if !list.contains(&node) {
                    list.push(node);
                }
            }
        }
    }

    /// The Elixir module named `name` in full (`Shop.Cart`).
    pub(super) fn elixir_module(&self, name: &str) -> Option<u32> {
        self.globals.get(name)?.iter().copied().find(|&n| {
            self.kind_of(n).is_some_and(is_module)
                && self
                    .node_def
                    .get(&n)
                    .is_some_and(|&(f, _)| self.files[f].lang == Lang::Elixir)
        })
    }

    /// The signature of definition node `node`.
    fn elixir_signature(&self, node: u32) -> Option<&str> {
        let &(f, d) = self.node_def.get(&node)?;
        self.files[f]
            .defs
            .get(d as usize)
            .map(|x| x.signature.as_str())
    }

    /// Function `name` (`f/2`) of module `module`; a call leaving out default arguments reaches
    /// the function of more parameters whose signature has defaults (`\\`), less surely. A
    /// behaviour's `@callback` is never called: it declares what implementations define.
    fn elixir_function(&self, module: u32, name: &str, sure: f32) -> Option<(u32, f32)> {
        let members = self.members.get(&module)?;
        if let Some(&m) = members.get(name)
            && !self
                .elixir_signature(m)
                .is_some_and(|s| s.starts_with("@callback") || s.starts_with("@macrocallback"))
        {
            return Some((m, sure));
        }
        let (base, arity) = name.rsplit_once('/')?;
        let arity: u32 = arity.parse().ok()?;
        (arity + 1..=arity + MAX_DEFAULTS).find_map(|more| {
            let &m = members.get(format!("{base}/{more}").as_str())?;
            self.elixir_signature(m)
                .is_some_and(|s| s.contains("\\\\"))
                .then_some((m, sure.min(confidence::SURE)))
        })
    }

    /// The module around `scope` of file `fi`.
    fn elixir_own_module(&self, fi: usize, scope: Option<u32>) -> Option<u32> {
        let defs = &self.files[fi].defs;
        self.scope_chain(fi, scope)
            .into_iter()
            .find(|&d| defs.get(d as usize).is_some_and(|x| is_module(x.kind)))
            .map(|d| self.def_node[fi][d as usize])
    }

    /// A call written in Elixir: `f(x)` is a function of the caller's module, else of a module
    /// it imports (all of it or `only:` that name); `Mod.f(x)` a function of that module. A
    /// name neither explains is Kernel's or a macro's (no edge); Erlang modules were never
    /// recorded as calls.
    pub(super) fn elixir_call(
        &self,
        fi: usize,
        scope: Option<u32>,
        callee: &Callee,
    ) -> Vec<(u32, f32, Reason)> {
        match callee {
            Callee::Name(name) => self.elixir_local(fi, scope, name).into_iter().collect(),
            Callee::Scoped { path, name } => self
                .elixir_module(path)
                .and_then(|m| self.elixir_function(m, name, confidence::IMPORT))
                .map(|(m, c)| (m, c, Reason::ClassMember))
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    fn elixir_local(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(u32, f32, Reason)> {
        if let Some((m, c)) = self
            .elixir_own_module(fi, scope)
            .and_then(|own| self.elixir_function(own, name, confidence::SELF_METHOD))
        {
            return Some((m, c, Reason::SelfMethod));
        }
        self.reads.file(fi);
        self.files[fi].imports.iter().find_map(|import| {
            let listed = import.names.iter().any(|n| n.name == name);
            if !import.wildcard && !listed {
                return None;
            }
            let module = self.elixir_module(&import.module)?;
            let (m, c) = self.elixir_function(module, name, confidence::IMPORT)?;
            Some((m, c, Reason::ImportResolved))
        })
    }

    /// A reference the Elixir extractor recorded: a module by full name (`Shop.Cart`), a
    /// captured function (`Shop.Cart.add/2`, or `add/2` of the caller's module or imports).
    pub(super) fn elixir_reference(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Vec<(u32, f32, Reason)> {
        if !name.contains('/') {
            return self
                .elixir_module(name)
                .map(|m| (m, confidence::IMPORT, Reason::ImportResolved))
                .into_iter()
                .collect();
        }
        match name.rsplit_once('.') {
            Some((module, function)) if !module.contains('/') => self.elixir_call(
                fi,
                scope,
                &Callee::Scoped {
                    path: module.to_owned(),
                    name: function.to_owned(),
                },
            ),
            _ => self.elixir_local(fi, scope, name).into_iter().collect(),
        }
    }
}
