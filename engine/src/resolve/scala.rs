//! Scala's own resolution rules beside Java's: `Foo(…)` reaching the companion's `apply`,
//! extension methods and implicit classes' methods found as members of their receiver type,
//! and imports relative to the enclosing packages.

use super::scope::Target;
use super::{MAX_RETURN_DEPTH, Resolver, confidence};
use crate::extract::scala_extension_receiver;
use crate::graph::{NodeKind, Reason};
use crate::lang::Lang;

/// An extension method or an implicit class's method reached through a value of its receiver
/// type: it applies only where the extension is in scope (imported or in an enclosing
/// scope), which is not checked, so it stays below the members found by type.
pub(super) const EXTENSION: f32 = confidence::IMPORTED_CANDIDATE;

impl<'a> Resolver<'a> {
    /// Indexes Scala 3 extension methods and the methods of Scala 2 implicit classes by name,
    /// beside C#'s extension methods.
    pub(super) fn scala_structure(&mut self) {
        for (fi, f) in self.files.all.iter().enumerate() {
            if f.lang != Lang::Scala {
                continue;
            }
            for (di, d) in f.defs.iter().enumerate() {
                if d.kind.is_callable() && scala_extension_receiver(&f.defs, di as u32).is_some() {
                    self.extensions
                        .entry(d.name.as_str())
                        .or_default()
                        .push(self.def_node[fi][di]);
                }
            }
        }
    }

    /// Self types (`self: A with B =>`): the members of `A` and `B` are the type's own as far as
    /// lookups go (inherited ones), with no heritage edge: the type extends neither.
    pub(super) fn scala_self_types(&mut self) {
        for (fi, f) in self.files.all.iter().enumerate() {
            for (owner, written) in &f.self_types {
                let node = self.def_node[fi][*owner as usize];
                if let Some((base, _)) = self.resolve_type(fi, Some(*owner), written)
                    && base != node
                {
                    self.bases.entry(node).or_default().push(base);
                }
            }
        }
    }

    /// A type named through a package relative to the file's enclosing packages (`doc.Index`
    /// in package `a.doc.html` is `a.doc.Index`): the package's top-level definition of that
    /// name.
    pub(super) fn scala_package_type(&self, fi: usize, name: &str) -> Option<Target> {
        let (package, last) = name.rsplit_once('.')?;
        let own = self.files[fi].package.as_deref().unwrap_or_default();
        relative_import_modules(own, package)
            .iter()
            .find_map(|module| {
                self.modules().java(module).iter().find_map(|&file| {
                    let &def = self.top_level.get(file)?.get(last)?.first()?;
                    Some(Target::Node(self.def_node[file][def as usize]))
                })
            })
    }

    /// A bare name a value's import brings (`import intp._`, `import intp.{f}`, `import
    /// intp.global._` where `intp` is a parameter, a local or a member of the enclosing class
    /// with a known type): that type's member, own or inherited. `explicit`: only imports
    /// naming it (which hide the package's names; a wildcard's do not).
    pub(super) fn scala_value_import(
        &self,
        fi: usize,
        scope: Option<u32>,
        name: &str,
        explicit: bool,
        depth: u32,
    ) -> Option<(u32, f32, Reason)> {
        if depth >= MAX_RETURN_DEPTH {
            return None;
        }
        self.files[fi].imports.iter().find_map(|import| {
            let member = if import.wildcard {
                if explicit {
                    return None;
                }
                name
            } else {
                import
                    .names
                    .iter()
                    .find(|n| n.local() == name)?
                    .name
                    .as_str()
            };
            let head = import.module.split('.').next()?;
            if !head.starts_with(|c: char| c.is_lowercase()) {
                return None;
            }
            let (ty, conf) = self
                .variable_type(fi, scope, head, depth + 1)
                .and_then(|_| self.path_type(fi, scope, &import.module, depth + 1))
                .or_else(|| {
                    let path = format!("this.{}", import.module);
                    self.path_type(fi, scope, &path, depth + 1)
                })?;
            let (hit, inherited) = self.find_member(ty, member)?;
            let conf = if inherited {
                conf.min(confidence::INHERITED)
            } else {
                conf
            };
            Some((
                hit,
                conf.min(confidence::ATTRIBUTE_TYPE),
                Reason::ReceiverType,
            ))
        })
    }

    /// A bare name that is a member of a base of the package object of the file's package or
    /// an enclosing one (`package object p extends Config`: `Config`'s members are `p`'s
    /// names), innermost first.
    pub(super) fn scala_package_object_member(
        &self,
        fi: usize,
        name: &str,
    ) -> Option<(u32, f32, Reason)> {
        let mut package = self.files[fi].package.as_deref().unwrap_or_default();
        while !package.is_empty() {
            for &file in self.modules().java(package) {
                let objects = self.files[file].defs.iter().enumerate().filter(|(_, d)| {
                    d.kind == NodeKind::Module && d.parent.is_none() && d.name == package
                });
                for (di, _) in objects {
                    if let Some((hit, _)) = self.find_member(self.def_node[file][di], name) {
                        return Some((hit, confidence::INHERITED, Reason::ImportResolved));
                    }
                }
            }
            package = package.rsplit_once('.').map_or("", |(outer, _)| outer);
        }
        None
    }

    /// `Foo(…)` where `Foo` is a type: its `apply` (the companion object's, own or inherited),
    /// else the class's construction (a case class's, or `new`).
    pub(super) fn scala_apply(&self, hits: Vec<(u32, f32, Reason)>) -> Vec<(u32, f32, Reason)> {
        hits.into_iter()
            .map(|(node, conf, reason)| {
                let is_type = self.kind_of(node).is_some_and(NodeKind::is_type);
                match self.find_member(node, "apply") {
                    Some((apply, inherited)) if is_type => {
                        let conf = if inherited {
                            conf.min(confidence::INHERITED)
                        } else {
                            conf
                        };
                        (apply, conf, Reason::ReceiverType)
                    }
                    _ => (node, conf, reason),
                }
            })
            .collect()
    }
}

/// The packages an import's path may start from, innermost first: `import b.C` in package
/// `a.x` is `a.x.b.C`, `a.b.C` or `b.C`, whichever exists.
pub(super) fn relative_import_modules(package: &str, module: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut prefix = package;
    while !prefix.is_empty() {
        out.push(format!("{prefix}.{module}"));
        prefix = prefix.rsplit_once('.').map_or("", |(outer, _)| outer);
    }
    out.push(module.to_owned());
    out
}
