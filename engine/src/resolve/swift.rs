//! Swift's own resolution rules beside Java's: a base of `: A, B` is a superclass or a protocol by
//! what it names, extensions add conformances, and calls through a protocol reach its implementers.

use super::{Resolver, confidence};
use crate::graph::{EdgeKind, NodeKind, Reason, RefKind, Reference};
use crate::lang::Lang;

impl<'a> Resolver<'a> {
    /// The edge a Swift type's base gets: a protocol conformed to by a class, struct, enum or
    /// actor is implemented; a superclass, or a protocol a protocol refines, is extended.
    /// Scala's alike with traits: a trait mixed into a class or object is implemented, one a
    /// trait extends is extended.
    pub(super) fn swift_heritage_kind(&self, def_kind: NodeKind, base: u32) -> EdgeKind {
        let is_protocol = |k: NodeKind| matches!(k, NodeKind::Interface | NodeKind::Trait);
        if !is_protocol(def_kind) && self.kind_of(base).is_some_and(is_protocol) {
            EdgeKind::Implements
        } else {
            EdgeKind::Extends
        }
    }

    /// Conformances written on extensions (`extension T: P`): `T` implements `P` (extends it
    /// when `T` is a protocol), wherever `T` is declared.
    pub(super) fn swift_conformances(&mut self) {
        for (fi, f) in self.files.all.iter().enumerate() {
            if f.lang != Lang::Swift {
                continue;
            }
            for (ty, protocols, line) in &f.conformances {
                let Some((node, _)) = self.resolve_type(fi, None, ty) else {
                    continue;
                };
                let Some(kind) = self.kind_of(node) else {
                    continue;
                };
                for protocol in protocols {
                    let Some((base, conf)) = self.resolve_type(fi, None, protocol) else {
                        continue;
                    };
                    if base == node {
                        continue;
                    }
                    let edge = self.swift_heritage_kind(kind, base);
                    self.b.add_edge(node, base, edge, conf, Reason::Heritage);
                    self.b.add_reference(Reference {
                        from: node,
                        to: base,
                        line: *line,
                        kind: RefKind::Inherit,
                        confidence: conf,
                        reason: Reason::Heritage,
                    });
                    self.bases.entry(node).or_default().push(base);
                }
            }
        }
    }

    /// A call reaching a protocol's method (`p.f()` where `p: P`) runs the implementation of
    /// the value's type: each type of the project conforming to `P` (directly, through an
    /// extension or a refined protocol) and declaring `f` is a candidate.
    pub(super) fn swift_implementations(&self, method: u32, name: &str) -> Vec<u32> {
        let Some(protocol) = self
            .node_def
            .get(&method)
            .and_then(|&(f, d)| self.owner_type(f, Some(d)))
            .filter(|&p| self.kind_of(p) == Some(NodeKind::Interface))
        else {
            return Vec::new();
        };
        let mut found: Vec<u32> = self
            .methods
            .get(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&m| m != method)
            .filter(|m| {
                self.node_def
                    .get(m)
                    .and_then(|&(f, d)| self.owner_type(f, Some(d)))
                    .is_some_and(|owner| {
                        owner != protocol
                            && self.kind_of(owner) != Some(NodeKind::Interface)
                            && self.conforms(owner, protocol)
                    })
            })
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// A `typealias` of the file or of another file of its module: the type it names.
    pub(super) fn swift_alias(&self, fi: usize, name: &str) -> Option<(u32, f32)> {
        let module = self.files[fi].package.as_deref()?;
        std::iter::once(fi)
            .chain(self.modules().java(module).iter().copied())
            .find_map(|file| {
                let (at, alias) = self.alias_source(file, name, true, 0)?;
                self.resolved_alias(at, &alias)
            })
    }

    /// Whether type `ty` has `protocol` among its bases, at any depth.
    fn conforms(&self, ty: u32, protocol: u32) -> bool {
        let mut queue = vec![ty];
        let mut seen = Vec::new();
        while let Some(t) = queue.pop() {
            if seen.contains(&t) || seen.len() > 64 {
                continue;
            }
            seen.push(t);
            for &base in self.bases.get(&t).map_or(&[][..], Vec::as_slice) {
                if base == protocol {
                    return true;
                }
                queue.push(base);
            }
        }
        false
    }
}

/// The confidence of an implementation reached through its protocol: one of possibly several
/// conforming types, decided at run time.
pub(super) const IMPLEMENTATION: f32 = confidence::AMBIGUOUS_PAIR;
