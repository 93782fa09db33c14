//! The one classification of a call's receiver for every language: the instance, its parent
//! class, a plain name, a dotted chain of names, or anything else. Languages differ only in syntax.

use tree_sitter::Node;

use super::{field, text};
use crate::facts::{Callee, Receiver};

/// How a language writes receivers.
pub(crate) struct ReceiverSyntax {
    /// Node kinds that are the instance itself (`this`, Rust's `self`).
    pub self_kinds: &'static [&'static str],
    /// Plain names that mean the instance by convention (Python's `self`, `cls`).
    pub self_names: &'static [&'static str],
    /// Node kinds that are the parent class (`super`).
    pub super_kinds: &'static [&'static str],
    /// Member access kinds, each with the fields that hold the accessed object and the name.
    pub members: &'static [(&'static str, &'static str, &'static str)],
    /// What a dotted chain may start with.
    pub leaves: &'static [&'static str],
}

impl ReceiverSyntax {
    /// What a call's receiver is. A member access is a `Path` only when it is a chain of plain
    /// names down to one of `leaves` (`a.b.c`, `self.cart`); `f().x` or `a[0].x` is `Other`.
    pub(crate) fn receiver(&self, node: Node, src: &[u8]) -> Receiver {
        let kind = node.kind();
        if self.self_kinds.contains(&kind) {
            return Receiver::SelfRef;
        }
        if self.super_kinds.contains(&kind) {
            return Receiver::Super;
        }
        if kind == "identifier" {
            let name = text(node, src);
            return if self.self_names.contains(&name) {
                Receiver::SelfRef
            } else {
                Receiver::Name(name.to_owned())
            };
        }
        if self.object_of(node).is_some() && self.is_dotted(node) {
            return Receiver::Path(text(node, src).to_owned());
        }
        Receiver::Other
    }

    /// True when `node` is one of `leaves` or a chain of member accesses down to one.
    pub(crate) fn is_dotted(&self, node: Node) -> bool {
        let mut current = node;
        loop {
            if self.leaves.contains(&current.kind()) {
                return true;
            }
            match self.object_of(current) {
                Some(object) => current = object,
                None => return false,
            }
        }
    }

    /// What a call's function names: `f` or `recv.f`, the receiver classified by `receiver`
    /// (a language's own kinds first, then [`ReceiverSyntax::receiver`]); `None` otherwise.
    pub(crate) fn callee(
        &self,
        function: Node,
        src: &[u8],
        receiver: impl Fn(Node) -> Receiver,
    ) -> Option<Callee> {
        if function.kind() == "identifier" {
            return Some(Callee::Name(text(function, src).to_owned()));
        }
        let (_, object, name) = self.member_fields(function)?;
        Some(Callee::Member {
            receiver: receiver(field(function, object)?),
            name: text(field(function, name)?, src).to_owned(),
        })
    }

    /// The accessed object when `node` is a member access.
    fn object_of<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        field(node, self.member_fields(node)?.1)
    }

    fn member_fields(&self, node: Node) -> Option<&(&'static str, &'static str, &'static str)> {
        let kind = node.kind();
        self.members.iter().find(|(member, _, _)| *member == kind)
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::facts::{Callee, Receiver};
    use crate::lang::Lang;

    /// The receivers of every member call in a file, in order.
    fn receivers(path: &str, lang: Lang, source: &str) -> Vec<Receiver> {
        Extractor::default()
            .extract(path, lang, source)
            .calls
            .into_iter()
            .filter_map(|c| match c.callee {
                Callee::Member { receiver, .. } => Some(receiver),
                _ => None,
            })
            .collect()
    }

    fn path(p: &str) -> Receiver {
        Receiver::Path(p.into())
    }

    fn name(n: &str) -> Receiver {
        Receiver::Name(n.into())
    }

    #[test]
    fn every_language_classifies_receivers_by_one_rule() {
        use Receiver::{Other, SelfRef};
        let cases: [(&str, Lang, &str, Vec<Receiver>); 5] = [
            (
                "a.py",
                Lang::Python,
                "def f(self):\n    self.m()\n    cls.m()\n    a.m()\n    a.b.c.m()\n    self.b.m()\n    g().b.m()\n    a[0].m()\n",
                vec![
                    SelfRef,
                    SelfRef,
                    name("a"),
                    path("a.b.c"),
                    path("self.b"),
                    Other,
                    Other,
                ],
            ),
            (
                "a.js",
                Lang::JavaScript,
                "function f() {\n  this.m();\n  a.m();\n  a.b.c.m();\n  this.b.m();\n  g().b.m();\n  a[0].m();\n}\n",
                vec![
                    SelfRef,
                    name("a"),
                    path("a.b.c"),
                    path("this.b"),
                    Other,
                    Other,
                ],
            ),
            (
                "a.rs",
                Lang::Rust,
                "fn f(&self) {\n    self.m();\n    a.m();\n    a.b.c.m();\n    self.b.m();\n    g().b.m();\n    a[0].m();\n}\n",
                vec![
                    SelfRef,
                    name("a"),
                    path("a.b.c"),
                    path("self.b"),
                    // Rust follows a call's return type and a collection's element type: a
                    // field of a call's result or an element is a chain.
                    path("g().b"),
                    path("a[]"),
                ],
            ),
            (
                "a.go",
                Lang::Go,
                "package a\n\nfunc f() {\n\ta.M()\n\ta.b.c.M()\n\tg().b.M()\n\ta[0].M()\n}\n",
                vec![name("a"), path("a.b.c"), Other, Other],
            ),
            (
                "A.java",
                Lang::Java,
                "class A {\n  void f() {\n    this.m();\n    super.m();\n    a.m();\n    a.b.c.m();\n    this.b.m();\n    g().b.m();\n    a[0].m();\n  }\n}\n",
                vec![
                    SelfRef,
                    Receiver::Super,
                    name("a"),
                    path("a.b.c"),
                    path("this.b"),
                    Other,
                    Other,
                ],
            ),
        ];
        for (file, lang, source, expected) in cases {
            assert_eq!(receivers(file, lang, source), expected, "{file}");
        }
    }
}
