//! Kotlin's own resolution rules beside Java's: extension functions (`fun T.f()`) found as
//! members of `T` (`x.f()`), and a bare call inside one reaching a member of `T` first.

use super::{Resolver, confidence};
use crate::extract::kotlin_extension_receiver;
use crate::graph::{NodeKind, Reason};
use crate::lang::Lang;

impl<'a> Resolver<'a> {
    /// Indexes Kotlin extension functions by name, beside C#'s extension methods.
    pub(super) fn kotlin_structure(&mut self) {
        for (fi, f) in self.files.all.iter().enumerate() {
            if f.lang != Lang::Kotlin {
                continue;
            }
            for (di, d) in f.defs.iter().enumerate() {
                if d.kind == NodeKind::Function
                    && kotlin_extension_receiver(&d.signature, &d.name).is_some()
                {
                    self.extensions
                        .entry(d.name.as_str())
                        .or_default()
                        .push(self.def_node[fi][di]);
                }
            }
        }
    }

    /// A bare call `f()` inside an extension function `fun T.g()`: `f` of `T` (its own or
    /// inherited), the extension's implicit receiver.
    pub(super) fn kotlin_receiver_member(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
    ) -> Option<(u32, f32, Reason)> {
        let defs = &self.files[fi].defs;
        let (def, receiver) = self.scope_chain(fi, scope).into_iter().find_map(|d| {
            let x = defs.get(d as usize)?;
            Some((d, kotlin_extension_receiver(&x.signature, &x.name)?))
        })?;
        let (ty, conf) = self.resolve_type(fi, Some(def), &receiver)?;
        self.typed_member(ty, conf, name, confidence::SELF_METHOD, Reason::SelfMethod)
    }
}
