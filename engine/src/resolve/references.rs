//! Reference resolution: every name a file uses without calling it or imports
//! (`FileFacts::refs`) to the symbols it means, with the call resolver's confidences and reasons.

use rustc_hash::FxHashMap as HashMap;

use super::scope::Target;
use super::{Resolver, confidence, dotted_callee};
use crate::graph::{Reason, RefKind, Reference};
use crate::lang::Lang;

/// What a name means, as (target, confidence, reason) each.
type Targets = Vec<(u32, f32, Reason)>;

impl<'a> Resolver<'a> {
    /// References of every file: names used, and names imported (to what the import binds).
    pub(super) fn references(&mut self) {
        let files = self.files.all;
        for (fi, f) in files.iter().enumerate() {
            if self.keep_refs(fi) {
                continue;
            }
            self.begin_file();
            let mut known: HashMap<(Option<u32>, u32), Targets> = HashMap::default();
            let mut found = Vec::new();
            for r in &f.refs {
                // As for calls: a Rust block whose `cfg` does not hold, inside real code.
                if f.lang == Lang::Rust
                    && f.in_test_code(r.line())
                    && !r.scope().is_some_and(|d| f.is_test_def(d))
                {
                    continue;
                }
                let Some(name) = f.ref_names.get(r.name as usize) else {
                    continue;
                };
                // A name in an import statement: what the import binds it to.
                let imported;
                let targets = if r.kind() == RefKind::Import {
                    imported = match self.binding(fi, name) {
                        Some(Target::Node(to)) => {
                            vec![(to, confidence::IMPORT, Reason::ImportResolved)]
                        }
                        _ => Vec::new(),
                    };
                    &imported
                } else {
                    known
                        .entry((r.scope(), r.name))
                        .or_insert_with(|| self.reference_targets(fi, r.scope(), name))
                };
                let from = match r.scope() {
                    Some(d) => self.def_node[fi][d as usize],
                    None => self.file_node[fi],
                };
                for &(to, conf, reason) in targets.iter() {
                    if to != from {
                        self.reads.node(to);
                        found.push(Reference {
                            from,
                            to,
                            line: r.line(),
                            kind: r.kind(),
                            confidence: conf,
                            reason,
                        });
                    }
                }
            }
            self.end_refs(fi, &found);
            found.into_iter().for_each(|r| self.b.add_reference(r));
        }
    }

    /// The symbols a name or chain used in `scope` of file `fi` means. A bare name is looked up
    /// as a called one is (local, file, import, include, package), never guessed project-wide
    /// (a name no scope explains is mostly a local the extractor did not see bound), except in
    /// C where an unseen include may hold it: its one definition project-wide. A chain
    /// (`models.Model`, `self.handle`, `a::b::C`) resolves as a dotted callee does, without
    /// the guesses by member name alone.
    fn reference_targets(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Vec<(u32, f32, Reason)> {
        let f = &self.files[fi];
        if f.lang == Lang::Elixir {
            return self.elixir_reference(fi, scope, name);
        }
        if !name.contains(['.', ':']) {
            if f.lang.is_c_family() && self.c_hidden(fi, scope, name) {
                return Vec::new();
            }
            if let Some((Target::Node(n), conf, reason)) = self.lookup_name(fi, scope, name) {
                return vec![(n, conf, reason)];
            }
            if f.lang.is_c_family() {
                return self
                    .fallback(self.globals.get(name), fi)
                    .into_iter()
                    .filter(|&(_, _, reason)| reason == Reason::UniqueGlobal)
                    .collect();
            }
            return Vec::new();
        }
        let head = name.split(['.', ':']).next().unwrap_or(name);
        let through_import = self.binding(fi, head).is_some();
        self.resolve_call(fi, scope, &dotted_callee(name), 0)
            .into_iter()
            .filter(|&(_, _, reason)| !matches!(reason, Reason::UniqueGlobal | Reason::Ambiguous))
            .map(|(to, conf, reason)| match reason {
                // A type reached as a member: named, not constructed.
                Reason::Constructor if through_import => (to, conf, Reason::ImportResolved),
                Reason::Constructor => (to, conf, Reason::ClassMember),
                _ => (to, conf, reason),
            })
            .collect()
    }
}
