//! Zig's own resolution rule beside the shared ones: a receiver reached through a package
//! (`std.debug.print`, `mem.eql` where `const mem = std.mem`) calls nothing of the project.

use super::Resolver;
use crate::facts::Receiver;

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
}
