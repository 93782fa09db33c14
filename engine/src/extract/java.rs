//! Java: the package, imports, classes, interfaces, enums and records, methods and constructors,
//! `extends`/`implements`, method invocations, `new`, and typed locals, parameters and fields.

use tree_sitter::Node;

use super::{
    ReceiverSyntax, doc_line, field, header_before_body, line, named_children, new_def, push_call,
    push_children, strip_generics, text,
};
use crate::facts::{Binding, Callee, Def, FileFacts, Import, ImportedName, Receiver};
use crate::graph::NodeKind;

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut cursor = root.walk();
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root, None)];
    while let Some((node, scope)) = stack.pop() {
        if let Some(kind) = definition_kind(node.kind())
            && let Some(idx) = definition(node, kind, scope, src, facts)
        {
            if let Some(body) = field(node, "body") {
                stack.push((body, Some(idx)));
            }
            continue;
        }
        match node.kind() {
            "package_declaration" => {
                facts.package = named_children(node)
                    .into_iter()
                    .next()
                    .map(|n| text(n, src).to_owned());
                continue;
            }
            "import_declaration" => {
                import(node, src, facts);
                continue;
            }
            "local_variable_declaration" | "enhanced_for_statement" | "resource" => {
                typed(node, scope, src, facts);
            }
            "field_declaration" => field_declaration(node, scope, src, facts),
            "method_invocation" => invocation(node, scope, src, facts),
            "explicit_constructor_invocation" => constructor_invocation(node, scope, facts),
            "object_creation_expression" => {
                if let Some(ty) = field(node, "type") {
                    let class = strip_generics(text(ty, src));
                    push_call(facts, scope, Callee::New(class), node);
                }
            }
            _ => {}
        }
        push_children(&mut cursor, node, scope, &mut stack);
    }
}

fn definition_kind(kind: &str) -> Option<NodeKind> {
    match kind {
        "class_declaration" | "record_declaration" => Some(NodeKind::Class),
        "interface_declaration" | "annotation_type_declaration" => Some(NodeKind::Interface),
        "enum_declaration" => Some(NodeKind::Enum),
        "method_declaration" | "constructor_declaration" => Some(NodeKind::Method),
        _ => None,
    }
}

/// A type or method with its parameters' bindings; `None` when it has no name.
fn definition(
    node: Node,
    kind: NodeKind,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<u32> {
    let name = field(node, "name").map(|n| text(n, src))?;
    let mut def = new_def(facts, kind, name, scope, node);
    fill(&mut def, node, src);
    // A method's declared return type (not `void`, a primitive or an array), for calls on its
    // result.
    if let Some(ty) = field(node, "type").filter(|t| {
        matches!(
            t.kind(),
            "type_identifier" | "scoped_type_identifier" | "generic_type"
        )
    }) {
        def.returns = strip_generics(text(ty, src));
    }
    supertypes(&mut def, node, src);
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    if let Some(params) = field(node, "parameters") {
        for param in named_children(params)
            .into_iter()
            .filter(|p| p.kind() == "formal_parameter")
        {
            typed(param, Some(idx), src, facts);
        }
    }
    Some(idx)
}

/// Signature, `public`, annotations and the `/** … */` doc line.
fn fill(def: &mut Def, node: Node, src: &[u8]) {
    def.signature = header_before_body(node, field(node, "body"), src);
    let modifiers = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "modifiers");
    def.exported =
        modifiers.is_some_and(|m| text(m, src).split_whitespace().any(|w| w == "public"));
    if let Some(m) = modifiers {
        def.decorators = named_children(m)
            .into_iter()
            .filter(|a| a.kind().ends_with("annotation"))
            .filter_map(|a| field(a, "name").map(|n| text(n, src).to_owned()))
            .collect();
    }
    if let Some(prev) = node.prev_named_sibling()
        && prev.kind() == "block_comment"
        && text(prev, src).starts_with("/**")
    {
        def.doc = doc_line(text(prev, src));
    }
}

/// `extends` and `implements` clauses.
fn supertypes(def: &mut Def, node: Node, src: &[u8]) {
    if let Some(sup) = field(node, "superclass") {
        def.extends.extend(
            named_children(sup)
                .iter()
                .map(|t| strip_generics(text(*t, src))),
        );
    }
    for clause in named_children(node) {
        let target = match clause.kind() {
            "super_interfaces" if matches!(def.kind, NodeKind::Class | NodeKind::Enum) => {
                &mut def.implements
            }
            "extends_interfaces" => &mut def.extends,
            _ => continue,
        };
        for list in named_children(clause) {
            target.extend(
                named_children(list)
                    .iter()
                    .map(|t| strip_generics(text(*t, src))),
            );
        }
    }
}

/// `import a.b.C;`, `import a.b.*;` and `import static …;` (`reexport` marks the static ones).
fn import(node: Node, src: &[u8], facts: &mut FileFacts) {
    let raw = text(node, src);
    let is_static = raw.contains("static ");
    let wildcard = named_children(node).iter().any(|c| c.kind() == "asterisk");
    let Some(path) = named_children(node)
        .into_iter()
        .find(|c| matches!(c.kind(), "scoped_identifier" | "identifier"))
    else {
        return;
    };
    let path = text(path, src);
    let (module, name) = if wildcard {
        (path, "")
    } else {
        path.rsplit_once('.').unwrap_or(("", path))
    };
    facts.imports.push(Import {
        module: module.to_owned(),
        names: if wildcard {
            Vec::new()
        } else {
            vec![ImportedName {
                name: name.to_owned(),
                alias: None,
            }]
        },
        module_alias: None,
        wildcard,
        reexport: is_static,
        line: line(node),
    });
}

/// A field's declared type, recorded on its class for attribute chains (`this.gateway.charge()`).
fn field_declaration(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let (Some(class), Some(ty)) = (scope, field(node, "type")) else {
        return;
    };
    let ty = strip_generics(text(ty, src));
    let mut cursor = node.walk();
    for decl in node.children_by_field_name("declarator", &mut cursor) {
        if let Some(name) = field(decl, "name") {
            facts
                .attr_bindings
                .push((class, text(name, src).to_owned(), ty.clone()));
        }
    }
}

/// Java's receivers: `this`, `super`, plain names, and `a.b` field accesses or scoped names.
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &["this"],
    self_names: &[],
    super_kinds: &["super"],
    members: &[
        ("field_access", "object", "field"),
        ("scoped_identifier", "scope", "name"),
    ],
    leaves: &["identifier", "this", "super"],
};

/// `m(…)` or `recv.m(…)`.
fn invocation(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(name) = field(node, "name").map(|n| text(n, src).to_owned()) else {
        return;
    };
    let callee = match field(node, "object") {
        None => Callee::Name(name),
        Some(object) => Callee::Member {
            receiver: match object.kind() {
                "method_invocation" | "object_creation_expression" | "parenthesized_expression" => {
                    chain(object, src).map_or(Receiver::Other, Receiver::Call)
                }
                _ => RECEIVERS.receiver(object, src),
            },
            name,
        },
    };
    push_call(facts, scope, callee, node);
    if let Some(call) = facts.calls.last_mut() {
        call.args = field(node, "arguments").map(|list| {
            named_children(list)
                .iter()
                .filter(|a| !a.kind().ends_with("comment"))
                .count() as u32
        });
    }
}

/// A call whose result is a receiver, as a dotted chain with the calls' arguments left out:
/// `a.b(…)` → `a.b`, `new T<A>(…)` → `T`, `new T().b(…)` → `T().b`, a cast `((T) x)` → `T`;
/// `None` when a part is neither a name, `this`, `super`, a field access, a call, an instance
/// creation nor a cast.
fn chain(node: Node, src: &[u8]) -> Option<String> {
    // Whitespace and generic arguments left out; `None` unless a dotted chain of names.
    let dotted = |n: Node| {
        let written: String = strip_generics(text(n, src)).split_whitespace().collect();
        written
            .split('.')
            .all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
            })
            .then_some(written)
    };
    match node.kind() {
        "object_creation_expression" => dotted(field(node, "type")?),
        // `((T) x).m()`: a value of the type it is cast to, as `new T().m()`.
        "parenthesized_expression" => {
            let inner = named_children(node).into_iter().next()?;
            (inner.kind() == "cast_expression")
                .then(|| dotted(field(inner, "type")?))
                .flatten()
        }
        "method_invocation" => {
            let name = text(field(node, "name")?, src);
            match field(node, "object") {
                None => Some(name.to_owned()),
                Some(o)
                    if matches!(o.kind(), "method_invocation" | "object_creation_expression") =>
                {
                    Some(format!("{}().{name}", chain(o, src)?))
                }
                Some(o) if RECEIVERS.is_dotted(o) => Some(format!("{}.{name}", dotted(o)?)),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// `this(…)` calls a constructor of the class around it, `super(…)` one of its superclass.
fn constructor_invocation(node: Node, scope: Option<u32>, facts: &mut FileFacts) {
    let Some(class) = scope
        .and_then(|s| facts.defs.get(s as usize))
        .and_then(|ctor| ctor.parent)
        .and_then(|p| facts.defs.get(p as usize))
    else {
        return;
    };
    let target = match field(node, "constructor").map(|c| c.kind()) {
        Some("this") => Some(class.name.clone()),
        Some("super") if field(node, "object").is_none() => class.extends.first().cloned(),
        _ => None,
    };
    if let Some(target) = target {
        push_call(facts, scope, Callee::New(target), node);
    }
}

/// `Type name [= …]` in a local declaration or a formal parameter.
fn typed(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(ty) = field(node, "type") else {
        return;
    };
    let ty = strip_generics(text(ty, src));
    if ty == "var" {
        return;
    }
    if let Some(name) = field(node, "name") {
        facts.bindings.push(Binding {
            scope,
            var: text(name, src).to_owned(),
            type_name: ty.clone(),
        });
    }
    let mut cursor = node.walk();
    for decl in node.children_by_field_name("declarator", &mut cursor) {
        if let Some(name) = field(decl, "name") {
            facts.bindings.push(Binding {
                scope,
                var: text(name, src).to_owned(),
                type_name: ty.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    const SOURCE: &str = r#"package com.shop;

import java.util.List;
import com.shop.pay.*;

/** A cart. */
public class Cart extends Base<Item> implements Totals, Serializable {
    private Gateway gateway;
    public Cart(Gateway gateway) { this.gateway = gateway; }
    public int total() { return items.size(); }
    public void checkout(Card card) {
        Cart other = new Cart(gateway);
        other.total();
        this.total();
        gateway.charge(total());
        Util.log(card);
        super.save();
    }
}

interface Totals extends Sized { int total(); }
"#;

    #[test]
    fn java_types_methods_imports_and_calls() {
        let f = Extractor::default().extract("src/com/shop/Cart.java", Lang::Java, SOURCE);
        assert_eq!(f.package.as_deref(), Some("com.shop"));
        let defs: Vec<(&str, NodeKind)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind))
            .collect();
        assert_eq!(
            defs,
            [
                ("Cart", NodeKind::Class),
                ("Cart.Cart", NodeKind::Method),
                ("Cart.total", NodeKind::Method),
                ("Cart.checkout", NodeKind::Method),
                ("Totals", NodeKind::Interface),
                ("Totals.total", NodeKind::Method),
            ]
        );
        assert_eq!(f.defs[0].extends, ["Base"]);
        assert_eq!(f.defs[0].implements, ["Totals", "Serializable"]);
        assert_eq!(f.defs[4].extends, ["Sized"]);
        assert_eq!(f.defs[0].doc, "A cart.");
        assert!(f.defs[0].exported && !f.defs[4].exported);
        assert_eq!(
            (
                f.imports[0].module.as_str(),
                f.imports[0].names[0].name.as_str()
            ),
            ("java.util", "List")
        );
        assert!(f.imports[1].wildcard && f.imports[1].module == "com.shop.pay");
        let calls: Vec<Callee> = f
            .calls
            .iter()
            .filter(|c| c.caller == Some(3))
            .map(|c| c.callee.clone())
            .collect();
        let member = |r: Receiver, n: &str| Callee::Member {
            receiver: r,
            name: n.into(),
        };
        for expected in [
            Callee::New("Cart".into()),
            member(Receiver::Name("other".into()), "total"),
            member(Receiver::SelfRef, "total"),
            member(Receiver::Name("gateway".into()), "charge"),
            Callee::Name("total".into()),
            member(Receiver::Name("Util".into()), "log"),
            member(Receiver::Super, "save"),
        ] {
            assert!(
                calls.contains(&expected),
                "missing {expected:?} in {calls:#?}"
            );
        }
        assert!(f.bindings.contains(&Binding {
            scope: Some(3),
            var: "other".into(),
            type_name: "Cart".into()
        }));
        assert!(f.bindings.contains(&Binding {
            scope: Some(3),
            var: "card".into(),
            type_name: "Card".into()
        }));
        assert!(
            f.attr_bindings
                .contains(&(0, "gateway".into(), "Gateway".into()))
        );
    }
}
