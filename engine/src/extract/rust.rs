//! Rust: structs, enums, traits, modules, functions and methods (owners from `impl` blocks,
//! trait impls as IMPLEMENTS), `use` trees (`pub use` re-exports), calls and `let` bindings.

use tree_sitter::Node;

use super::{
    ReceiverSyntax, doc_line, field, header_before_body, line, named_children, new_def, push_call,
    push_children, strip_generics, text,
};
use crate::facts::{Binding, Callee, FileFacts, Import, ImportedName};
use crate::graph::NodeKind;

/// The `impl` block a method sits in: (type name, trait name).
type ImplOf = Option<(String, Option<String>)>;

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut owners: Vec<(u32, String)> = Vec::new();
    let mut trait_impls: Vec<(String, String)> = Vec::new();
    let mut cursor = root.walk();
    // Each node with the definition it sits in and the `impl` block around it.
    let mut stack: Vec<(Node, (Option<u32>, ImplOf))> = vec![(root, (None, None))];
    while let Some((node, (scope, impl_of))) = stack.pop() {
        match node.kind() {
            "impl_item" => {
                let ty = field(node, "type").map(|t| strip_generics(text(t, src)));
                let tr = field(node, "trait").map(|t| strip_generics(text(t, src)));
                if let (Some(ty), Some(tr)) = (&ty, &tr) {
                    trait_impls.push((ty.clone(), tr.clone()));
                }
                if let Some(body) = field(node, "body") {
                    let impl_of = ty.map(|t| (t, tr));
                    push_children(&mut cursor, body, (scope, impl_of), &mut stack);
                }
                continue;
            }
            "function_item" | "function_signature_item" => {
                let Some(name) = field(node, "name").map(|n| text(n, src)) else {
                    continue;
                };
                let in_trait = scope
                    .and_then(|s| facts.defs.get(s as usize))
                    .is_some_and(|d| d.kind == NodeKind::Trait);
                let kind = if impl_of.is_some() || in_trait {
                    NodeKind::Method
                } else {
                    NodeKind::Function
                };
                let mut def = new_def(facts, kind, name, scope, node);
                if let Some((ty, _)) = &impl_of {
                    def.qualified = format!("{ty}.{name}");
                }
                fill(&mut def, node, src);
                let idx = facts.defs.len() as u32;
                facts.defs.push(def);
                if let Some((ty, _)) = &impl_of {
                    owners.push((idx, ty.clone()));
                }
                if let Some(params) = field(node, "parameters") {
                    parameters(params, idx, src, facts);
                }
                if let Some(body) = field(node, "body") {
                    stack.push((body, (Some(idx), None)));
                }
                continue;
            }
            kind @ ("struct_item" | "enum_item" | "trait_item" | "mod_item" | "union_item") => {
                let Some(name) = field(node, "name").map(|n| text(n, src)) else {
                    continue;
                };
                let def_kind = match kind {
                    "enum_item" => NodeKind::Enum,
                    "trait_item" => NodeKind::Trait,
                    "mod_item" => NodeKind::Module,
                    _ => NodeKind::Struct,
                };
                let mut def = new_def(facts, def_kind, name, scope, node);
                fill(&mut def, node, src);
                if def_kind == NodeKind::Trait
                    && let Some(bounds) = field(node, "bounds")
                {
                    def.extends = named_children(bounds)
                        .iter()
                        .map(|b| strip_generics(text(*b, src)))
                        .collect();
                }
                let idx = facts.defs.len() as u32;
                facts.defs.push(def);
                if let Some(body) = field(node, "body") {
                    push_children(&mut cursor, body, (Some(idx), None), &mut stack);
                }
                continue;
            }
            "use_declaration" => {
                let reexport = named_children(node)
                    .iter()
                    .any(|c| c.kind() == "visibility_modifier");
                if let Some(arg) = field(node, "argument") {
                    use_tree(arg, "", reexport, line(node), src, facts);
                }
                continue;
            }
            "call_expression" => call(node, scope, src, facts),
            "let_declaration" => binding(node, scope, src, facts),
            _ => {}
        }
        push_children(&mut cursor, node, (scope, impl_of), &mut stack);
    }
    facts.adopt_methods(&owners);
    for (ty, tr) in trait_impls {
        if let Some(def) = facts
            .defs
            .iter_mut()
            .find(|d| d.name == ty && matches!(d.kind, NodeKind::Struct | NodeKind::Enum))
        {
            def.implements.push(tr);
        }
    }
}

fn fill(def: &mut crate::facts::Def, node: Node, src: &[u8]) {
    def.signature = header_before_body(node, field(node, "body"), src);
    def.exported = named_children(node)
        .iter()
        .any(|c| c.kind() == "visibility_modifier");
    let mut docs = Vec::new();
    let mut prev = node.prev_sibling();
    while let Some(p) = prev {
        match p.kind() {
            "line_comment" | "block_comment"
                if text(p, src).starts_with("///") || text(p, src).starts_with("/**") =>
            {
                docs.push(p)
            }
            "attribute_item" => {}
            _ => break,
        }
        prev = p.prev_sibling();
    }
    if let Some(first) = docs.last() {
        def.doc = doc_line(text(*first, src));
    }
}

fn parameters(params: Node, def: u32, src: &[u8], facts: &mut FileFacts) {
    for param in named_children(params) {
        if param.kind() != "parameter" {
            continue;
        }
        if let (Some(pattern), Some(ty)) = (field(param, "pattern"), field(param, "type"))
            && pattern.kind() == "identifier"
        {
            let ty = strip_generics(
                text(ty, src)
                    .trim_start_matches('&')
                    .trim_start_matches("mut ")
                    .trim(),
            );
            facts.bindings.push(Binding {
                scope: Some(def),
                var: text(pattern, src).to_owned(),
                type_name: ty,
            });
        }
    }
}

fn use_tree(node: Node, prefix: &str, reexport: bool, at: u32, src: &[u8], facts: &mut FileFacts) {
    let join = |p: &str, rest: &str| {
        if p.is_empty() {
            rest.to_owned()
        } else {
            format!("{p}::{rest}")
        }
    };
    match node.kind() {
        "scoped_identifier" | "identifier" | "crate" | "self" | "super" => {
            let full = join(prefix, text(node, src));
            let (module, name) = full.rsplit_once("::").unwrap_or(("", &full));
            push_use(facts, module, name, None, reexport, at);
        }
        "use_as_clause" => {
            let (Some(path), Some(alias)) = (field(node, "path"), field(node, "alias")) else {
                return;
            };
            let full = join(prefix, text(path, src));
            let (module, name) = full.rsplit_once("::").unwrap_or(("", &full));
            push_use(facts, module, name, Some(text(alias, src)), reexport, at);
        }
        "scoped_use_list" => {
            let path = field(node, "path")
                .map(|p| join(prefix, text(p, src)))
                .unwrap_or_else(|| prefix.to_owned());
            if let Some(list) = field(node, "list") {
                for item in named_children(list) {
                    use_tree(item, &path, reexport, at, src, facts);
                }
            }
        }
        "use_list" => {
            for item in named_children(node) {
                use_tree(item, prefix, reexport, at, src, facts);
            }
        }
        "use_wildcard" => {
            let path = named_children(node)
                .into_iter()
                .next()
                .map(|p| join(prefix, text(p, src)))
                .unwrap_or_else(|| prefix.to_owned());
            facts.imports.push(Import {
                module: path,
                names: Vec::new(),
                module_alias: None,
                wildcard: true,
                reexport,
                line: at,
            });
        }
        _ => {}
    }
}

fn push_use(
    facts: &mut FileFacts,
    module: &str,
    name: &str,
    alias: Option<&str>,
    reexport: bool,
    at: u32,
) {
    facts.imports.push(Import {
        module: module.to_owned(),
        names: vec![ImportedName {
            name: name.to_owned(),
            alias: alias.map(str::to_owned),
        }],
        module_alias: None,
        wildcard: false,
        reexport,
        line: at,
    });
}

/// Rust's receivers: `self`, plain names and `a.b` field expressions.
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &["self"],
    self_names: &[],
    super_kinds: &[],
    members: &[("field_expression", "value", "field")],
    leaves: &["identifier", "self"],
};

fn call(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(mut function) = field(node, "function") else {
        return;
    };
    if function.kind() == "generic_function"
        && let Some(inner) = field(function, "function")
    {
        function = inner;
    }
    let callee = if function.kind() == "scoped_identifier" {
        field(function, "name").map(|name| Callee::Scoped {
            path: field(function, "path")
                .map(|p| strip_generics(text(p, src)))
                .unwrap_or_default(),
            name: text(name, src).to_owned(),
        })
    } else {
        RECEIVERS.callee(function, src, |object| RECEIVERS.receiver(object, src))
    };
    if let Some(callee) = callee {
        push_call(facts, scope, callee, node);
    }
}

fn binding(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(pattern) = field(node, "pattern").filter(|p| p.kind() == "identifier") else {
        return;
    };
    let declared =
        field(node, "type").map(|t| strip_generics(text(t, src).trim_start_matches('&')));
    let constructed = field(node, "value").and_then(|v| match v.kind() {
        "struct_expression" => field(v, "name").map(|n| strip_generics(text(n, src))),
        "call_expression" => field(v, "function")
            .filter(|f| f.kind() == "scoped_identifier")
            .and_then(|f| field(f, "path"))
            .map(|p| strip_generics(text(p, src)))
            .filter(|p| {
                p.rsplit("::")
                    .next()
                    .is_some_and(|l| l.starts_with(|c: char| c.is_uppercase()))
            }),
        _ => None,
    });
    if let Some(type_name) = declared.or(constructed) {
        facts.bindings.push(Binding {
            scope,
            var: text(pattern, src).to_owned(),
            type_name,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    const SOURCE: &str = r#"
use crate::payment::{charge, Gateway as Gw};
pub use self::types::*;
use std::collections::HashMap;

/// A cart.
pub struct Cart { items: Vec<u32> }

pub trait Totals: Display { fn total(&self) -> u32; }

impl Totals for Cart {
    fn total(&self) -> u32 { self.items.len() as u32 }
}

impl Cart {
    pub fn new() -> Self { Cart { items: Vec::new() } }
    pub fn checkout(&self, gw: &Gw) {
        let cart = Cart::new();
        cart.total();
        self.total();
        charge(gw);
        gw.pay(HashMap::new());
        helpers::log::info("x");
    }
}

mod inner { fn hidden() {} }
"#;

    #[test]
    fn rust_items_impls_uses_and_calls() {
        let f = Extractor::default().extract("src/cart.rs", Lang::Rust, SOURCE);
        let defs: Vec<(&str, NodeKind, Option<u32>)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind, d.parent))
            .collect();
        assert_eq!(
            defs,
            [
                ("Cart", NodeKind::Struct, None),
                ("Totals", NodeKind::Trait, None),
                ("Totals.total", NodeKind::Method, Some(1)),
                ("Cart.total", NodeKind::Method, Some(0)),
                ("Cart.new", NodeKind::Method, Some(0)),
                ("Cart.checkout", NodeKind::Method, Some(0)),
                ("inner", NodeKind::Module, None),
                ("inner.hidden", NodeKind::Function, Some(6)),
            ]
        );
        assert_eq!(f.defs[0].doc, "A cart.");
        assert_eq!(f.defs[0].implements, ["Totals"]);
        assert_eq!(f.defs[1].extends, ["Display"]);
        assert!(f.defs[0].exported && !f.defs[7].exported);
        let imports: Vec<(String, Vec<String>, bool, bool)> = f
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.clone(),
                    i.names.iter().map(|n| n.local().to_owned()).collect(),
                    i.wildcard,
                    i.reexport,
                )
            })
            .collect();
        assert_eq!(
            imports,
            [
                ("crate::payment".into(), vec!["charge".into()], false, false),
                ("crate::payment".into(), vec!["Gw".into()], false, false),
                ("self::types".into(), vec![], true, true),
                (
                    "std::collections".into(),
                    vec!["HashMap".into()],
                    false,
                    false
                ),
            ]
        );
        let calls: Vec<Callee> = f
            .calls
            .iter()
            .filter(|c| c.caller == Some(5))
            .map(|c| c.callee.clone())
            .collect();
        let member = |r: Receiver, n: &str| Callee::Member {
            receiver: r,
            name: n.into(),
        };
        for expected in [
            Callee::Scoped {
                path: "Cart".into(),
                name: "new".into(),
            },
            member(Receiver::Name("cart".into()), "total"),
            member(Receiver::SelfRef, "total"),
            Callee::Name("charge".into()),
            member(Receiver::Name("gw".into()), "pay"),
            Callee::Scoped {
                path: "helpers::log".into(),
                name: "info".into(),
            },
        ] {
            assert!(
                calls.contains(&expected),
                "missing {expected:?} in {calls:#?}"
            );
        }
        assert!(f.bindings.contains(&Binding {
            scope: Some(5),
            var: "cart".into(),
            type_name: "Cart".into()
        }));
        assert!(f.bindings.contains(&Binding {
            scope: Some(5),
            var: "gw".into(),
            type_name: "Gw".into()
        }));
    }
}
