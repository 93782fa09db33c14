//! Zig's own resolution rules beside the shared ones: a receiver reached through a package
//! (`std.debug.print`, `mem.eql` where `const mem = std.mem`) calls nothing of the project, a
//! path through nested containers (`Clock.Timestamp.now()`) reaches the innermost one, and a
//! decl literal passed as an argument (`g(.init(…))`) is typed by the parameter it fills.

use super::{Resolver, dotted_callee};
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
}
