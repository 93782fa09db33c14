//! Per file, what each (variable, scope) is bound to (types, call results, elements, attribute
//! chains, declarations), so looking up a receiver is a hash probe, not a file scan. A file's
//! table is made when it is first asked (a live update resolves a few files, not all), and the
//! tables are let go between files once they hold more than a budget.

use std::cell::{Cell, OnceCell};

use rustc_hash::FxHashMap as HashMap;

use crate::facts::FileFacts;

/// Indexes into one file's `bindings`, `call_bindings`, `element_bindings` and the others, in
/// source order.
#[derive(Debug, Default)]
pub struct Bound {
    pub types: Vec<u32>,
    pub calls: Vec<u32>,
    pub elements: Vec<u32>,
    /// Indexes into `path_bindings`.
    pub paths: Vec<u32>,
    /// Indexes into `closure_bindings`.
    pub closures: Vec<u32>,
    /// Declared as a variable or parameter of the scope (`FileFacts::locals`).
    pub declared: bool,
}

/// One file's variables, each with the scopes that bind it and what they bind it to.
type FileVars<'a> = HashMap<&'a str, Vec<(Option<u32>, Bound)>>;

/// The tables kept at most hold about this many bytes between two files' resolutions; past it
/// they are all let go (and made again when asked). Every file's kept at once held hundreds of
/// megabytes on the Linux kernel (a C file's locals, its headers' function-like macros), all
/// through the peak of its resolution.
const KEPT_BUDGET_BYTES: usize = 32 << 20;

#[derive(Debug, Default)]
pub struct VarIndex<'a> {
    facts: &'a [FileFacts],
    /// Per file, its table once asked (until let go).
    files: Vec<OnceCell<FileVars<'a>>>,
    /// About how many heap bytes the tables made since they were last let go hold.
    held: Cell<usize>,
    /// Past this many bytes held, the tables are let go between files.
    budget: usize,
}

fn entry<'m>(map: &'m mut FileVars<'_>, var: &str, scope: Option<u32>) -> Option<&'m mut Bound> {
    let scopes = map.get_mut(var)?;
    let at = match scopes.iter().position(|(s, _)| *s == scope) {
        Some(at) => at,
        None => {
            scopes.push((scope, Bound::default()));
            scopes.len() - 1
        }
    };
    scopes.get_mut(at).map(|(_, b)| b)
}

impl<'a> VarIndex<'a> {
    /// The index of `facts`, each file's table made on its first lookup.
    pub fn build(facts: &'a [FileFacts]) -> Self {
        Self {
            facts,
            files: facts.iter().map(|_| OnceCell::new()).collect(),
            held: Cell::new(0),
            budget: KEPT_BUDGET_BYTES,
        }
    }

    /// Lets every table go when they hold more than the budget; called between two files'
    /// resolutions (a table is the same whenever it is made, so no answer depends on it).
    pub fn forget_if_over_budget(&mut self) {
        if self.held.get() <= self.budget {
            return;
        }
        self.files.iter_mut().for_each(|table| drop(table.take()));
        self.held.set(0);
    }

    /// About how many heap bytes one file's table holds.
    fn heap_bytes(map: &FileVars<'_>) -> usize {
        let lists = |b: &Bound| {
            b.types.capacity()
                + b.calls.capacity()
                + b.elements.capacity()
                + b.paths.capacity()
                + b.closures.capacity()
        };
        map.capacity() * (size_of::<&str>() + size_of::<Vec<(Option<u32>, Bound)>>() + 1)
            + map
                .values()
                .map(|scopes| {
                    scopes.capacity() * size_of::<(Option<u32>, Bound)>()
                        + scopes.iter().map(|(_, b)| lists(b)).sum::<usize>() * size_of::<u32>()
                })
                .sum::<usize>()
    }

    /// One file's variables.
    fn file_vars(f: &'a FileFacts) -> FileVars<'a> {
        let mut map: FileVars<'a> = HashMap::default();
        let vars = f
            .bindings
            .iter()
            .map(|b| b.var.as_str())
            .chain(f.call_bindings.iter().map(|b| b.var.as_str()))
            .chain(f.element_bindings.iter().map(|b| b.var.as_str()))
            .chain(f.path_bindings.iter().map(|(_, var, _)| var.as_str()))
            .chain(f.closure_bindings.iter().map(|b| b.var.as_str()))
            .chain(f.locals.iter().map(|(_, var)| var.as_str()));
        for var in vars {
            map.entry(var).or_default();
        }
        for (i, b) in f.bindings.iter().enumerate() {
            if let Some(bound) = entry(&mut map, &b.var, b.scope) {
                bound.types.push(i as u32);
            }
        }
        for (i, b) in f.call_bindings.iter().enumerate() {
            if let Some(bound) = entry(&mut map, &b.var, b.scope) {
                bound.calls.push(i as u32);
            }
        }
        for (i, b) in f.element_bindings.iter().enumerate() {
            if let Some(bound) = entry(&mut map, &b.var, b.scope) {
                bound.elements.push(i as u32);
            }
        }
        for (i, (scope, var, _)) in f.path_bindings.iter().enumerate() {
            if let Some(bound) = entry(&mut map, var, *scope) {
                bound.paths.push(i as u32);
            }
        }
        for (i, b) in f.closure_bindings.iter().enumerate() {
            if let Some(bound) = entry(&mut map, &b.var, b.scope) {
                bound.closures.push(i as u32);
            }
        }
        for (scope, var) in &f.locals {
            if let Some(bound) = entry(&mut map, var, *scope) {
                bound.declared = true;
            }
        }
        map
    }

    /// What `var` is bound to directly in `scope` of file `file`.
    pub fn get(&self, file: usize, var: &str, scope: Option<u32>) -> Option<&Bound> {
        let facts = self.facts.get(file)?;
        self.files
            .get(file)?
            .get_or_init(|| {
                let map = Self::file_vars(facts);
                self.held.set(self.held.get() + Self::heap_bytes(&map));
                map
            })
            .get(var)?
            .iter()
            .find(|(s, _)| *s == scope)
            .map(|(_, b)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{Binding, CallBinding, Callee};
    use crate::lang::Lang;

    #[test]
    fn bindings_are_found_by_variable_and_scope_in_source_order() {
        let mut f = FileFacts::new("m.py", Lang::Python);
        for (scope, ty) in [(Some(0), "A"), (None, "B"), (Some(0), "C")] {
            f.bindings.push(Binding {
                scope,
                var: "x".into(),
                type_name: ty.into(),
            });
        }
        f.call_bindings.push(CallBinding {
            scope: Some(0),
            var: "x".into(),
            callee: Callee::Name("make".into()),
        });
        let files = [f];
        let index = VarIndex::build(&files);
        let bound = index.get(0, "x", Some(0));
        assert_eq!(bound.map(|b| b.types.clone()), Some(vec![0, 2]));
        assert_eq!(bound.map(|b| b.calls.clone()), Some(vec![0]));
        assert_eq!(
            index.get(0, "x", None).map(|b| b.types.clone()),
            Some(vec![1])
        );
        assert!(index.get(0, "y", Some(0)).is_none());
        assert!(index.get(1, "x", None).is_none());
    }

    #[test]
    fn tables_past_the_budget_are_let_go_and_made_again_alike() {
        let mut f = FileFacts::new("m.c", Lang::C);
        f.locals.push((Some(0), "n".into()));
        f.bindings.push(Binding {
            scope: None,
            var: "x".into(),
            type_name: "A".into(),
        });
        let files = [f];
        let seen = |index: &VarIndex| {
            (
                index.get(0, "n", Some(0)).map(|b| b.declared),
                index.get(0, "x", None).map(|b| b.types.clone()),
            )
        };
        // Within the budget the table stays.
        let mut index = VarIndex::build(&files);
        let first = seen(&index);
        assert_eq!(first, (Some(true), Some(vec![0])));
        assert!(index.held.get() > 0);
        index.forget_if_over_budget();
        assert!(index.files[0].get().is_some());
        // Past it, it is let go and made again when asked, with the same answers.
        index.budget = 0;
        index.forget_if_over_budget();
        assert!(index.files[0].get().is_none() && index.held.get() == 0);
        assert_eq!(seen(&index), first);
    }
}
