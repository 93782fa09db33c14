//! Dart's own resolution rules beside Java's: an extension's members (`extension E on T`)
//! found as members of `T` (`x.f()`), and a bare call inside one reaching the extension or `T`.

use super::{Resolver, confidence};
use crate::extract::dart_extension_on;
use crate::graph::{NodeKind, Reason};
use crate::lang::Lang;

impl<'a> Resolver<'a> {
    /// Indexes the methods of Dart extensions by name, beside C#'s extension methods.
    pub(super) fn dart_structure(&mut self) {
        for (fi, f) in self.files.all.iter().enumerate() {
            if f.lang != Lang::Dart {
                continue;
            }
            for (di, d) in f.defs.iter().enumerate() {
                let in_extension = d
                    .parent
                    .and_then(|p| f.defs.get(p as usize))
                    .is_some_and(|e| dart_extension_on(&e.signature).is_some());
                if d.kind == NodeKind::Method && in_extension {
                    self.extensions
                        .entry(d.name.as_str())
                        .or_default()
                        .push(self.def_node[fi][di]);
                }
            }
        }
    }

    /// A bare call `f()` in a member of `extension E on T`: `f` of `E` itself, else of `T` (its
    /// own or inherited), the extension's implicit `this`.
    pub(super) fn dart_extension_member(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(u32, f32, Reason)> {
        let defs = &self.files[fi].defs;
        let (extension, on) = self.scope_chain(fi, scope).into_iter().find_map(|d| {
            let x = defs.get(d as usize)?;
            Some((d, dart_extension_on(&x.signature)?))
        })?;
        let own = self.def_node[fi][extension as usize];
        self.typed_member(own, 1.0, name, confidence::SELF_METHOD, Reason::SelfMethod)
            .or_else(|| {
                let (ty, conf) = self.resolve_type(fi, Some(extension), &on)?;
                self.typed_member(ty, conf, name, confidence::SELF_METHOD, Reason::SelfMethod)
            })
    }
}
