//! Go: the package clause, imports, struct and interface types, functions, methods (owner from
//! the receiver), calls and `x := T{}` / typed parameter bindings. Exported = capitalised.

use tree_sitter::Node;

use super::{ReceiverSyntax, push_call, push_children};

use super::{doc_line, field, header_before_body, line, named_children, new_def, text};
use crate::facts::{Binding, FileFacts, Import};
use crate::graph::NodeKind;

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut owners = Vec::new();
    let mut cursor = root.walk();
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root, None)];
    while let Some((node, scope)) = stack.pop() {
        match node.kind() {
            "package_clause" => {
                facts.package = named_children(node)
                    .into_iter()
                    .next()
                    .map(|n| text(n, src).to_owned());
                continue;
            }
            "import_spec" => {
                let path = field(node, "path").map(|p| text(p, src).trim_matches('"').to_owned());
                if let Some(path) = path {
                    let alias = field(node, "name").map(|n| text(n, src).to_owned());
                    let wildcard = alias.as_deref() == Some(".");
                    let default_alias = path.rsplit('/').next().unwrap_or(&path).to_owned();
                    facts.imports.push(Import {
                        module: path.clone(),
                        names: Vec::new(),
                        module_alias: if wildcard {
                            None
                        } else {
                            Some(alias.unwrap_or(default_alias))
                        },
                        wildcard,
                        reexport: false,
                        line: line(node),
                    });
                }
                continue;
            }
            "type_spec" => {
                let kind = match field(node, "type").map(|t| t.kind()) {
                    Some("struct_type") => NodeKind::Struct,
                    Some("interface_type") => NodeKind::Interface,
                    _ => {
                        continue;
                    }
                };
                if let Some(name) = field(node, "name").map(|n| text(n, src)) {
                    let mut def = new_def(facts, kind, name, scope, node);
                    fill(&mut def, node.parent().unwrap_or(node), node, src);
                    if kind == NodeKind::Interface
                        && let Some(ty) = field(node, "type")
                    {
                        for elem in named_children(ty) {
                            if elem.kind() == "type_elem" || elem.kind() == "constraint_elem" {
                                def.extends.push(text(elem, src).to_owned());
                            }
                        }
                    }
                    let idx = facts.defs.len() as u32;
                    facts.defs.push(def);
                    if let Some(ty) = field(node, "type") {
                        stack.push((ty, Some(idx)));
                    }
                }
                continue;
            }
            "method_elem" => {
                if let Some(name) = field(node, "name").map(|n| text(n, src)) {
                    let mut def = new_def(facts, NodeKind::Method, name, scope, node);
                    fill(&mut def, node, node, src);
                    facts.defs.push(def);
                }
                continue;
            }
            kind @ ("function_declaration" | "method_declaration") => {
                let Some(name) = field(node, "name").map(|n| text(n, src)) else {
                    continue;
                };
                let receiver = field(node, "receiver").and_then(|r| receiver_type(r, src));
                let def_kind = if kind == "method_declaration" {
                    NodeKind::Method
                } else {
                    NodeKind::Function
                };
                let mut def = new_def(facts, def_kind, name, scope, node);
                if let Some((_, ty)) = &receiver {
                    def.qualified = format!("{ty}.{name}");
                }
                fill(&mut def, node, node, src);
                let idx = facts.defs.len() as u32;
                facts.defs.push(def);
                if let Some((var, ty)) = receiver {
                    owners.push((idx, ty.clone()));
                    if let Some(var) = var {
                        facts.bindings.push(Binding {
                            scope: Some(idx),
                            var,
                            type_name: ty,
                        });
                    }
                }
                if let Some(params) = field(node, "parameters") {
                    parameters(params, idx, src, facts);
                }
                if let Some(body) = field(node, "body") {
                    stack.push((body, Some(idx)));
                }
                continue;
            }
            "call_expression" => call(node, scope, src, facts),
            "short_var_declaration" => short_var(node, scope, src, facts),
            _ => {}
        }
        push_children(&mut cursor, node, scope, &mut stack);
    }
    facts.adopt_methods(&owners);
}

fn fill(def: &mut crate::facts::Def, doc_anchor: Node, node: Node, src: &[u8]) {
    def.signature = header_before_body(node, field(node, "body"), src);
    def.exported = def.name.starts_with(|c: char| c.is_uppercase());
    if let Some(prev) = doc_anchor.prev_named_sibling()
        && prev.kind() == "comment"
        && prev.end_position().row + 1 == doc_anchor.start_position().row
    {
        def.doc = doc_line(text(prev, src));
    }
}

/// `(s *Server)` → (Some("s"), "Server").
fn receiver_type(list: Node, src: &[u8]) -> Option<(Option<String>, String)> {
    let param = named_children(list)
        .into_iter()
        .find(|p| p.kind() == "parameter_declaration")?;
    let ty = field(param, "type")?;
    let name = text(ty, src).trim_start_matches('*');
    let name = name.split('[').next().unwrap_or(name).to_owned();
    Some((field(param, "name").map(|n| text(n, src).to_owned()), name))
}

fn parameters(params: Node, def: u32, src: &[u8], facts: &mut FileFacts) {
    for param in named_children(params)
        .into_iter()
        .filter(|p| p.kind() == "parameter_declaration")
    {
        let Some(ty) = field(param, "type") else {
            continue;
        };
        let ty = text(ty, src).trim_start_matches('*').to_owned();
        let mut cursor = param.walk();
        for name in param.children_by_field_name("name", &mut cursor) {
            facts.bindings.push(Binding {
                scope: Some(def),
                var: text(name, src).to_owned(),
                type_name: ty.clone(),
            });
        }
    }
}

/// Go's receivers: plain names and `a.b` selectors (a method's receiver is a named variable).
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &[],
    self_names: &[],
    super_kinds: &[],
    members: &[("selector_expression", "operand", "field")],
    leaves: &["identifier"],
};

fn call(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let callee = field(node, "function")
        .and_then(|f| RECEIVERS.callee(f, src, |object| RECEIVERS.receiver(object, src)));
    if let Some(callee) = callee {
        push_call(facts, scope, callee, node);
    }
}

fn short_var(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let (Some(left), Some(right)) = (field(node, "left"), field(node, "right")) else {
        return;
    };
    for (var, value) in named_children(left).into_iter().zip(named_children(right)) {
        let value = if value.kind() == "unary_expression" {
            field(value, "operand").unwrap_or(value)
        } else {
            value
        };
        if value.kind() == "composite_literal"
            && let Some(ty) = field(value, "type")
        {
            facts.bindings.push(Binding {
                scope,
                var: text(var, src).to_owned(),
                type_name: text(ty, src).to_owned(),
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

    const SOURCE: &str = r#"package shop

import (
	"fmt"
	pay "example.com/shop/payment"
)

// Cart holds items.
type Cart struct { items []int }

type Totaler interface { Total() int }

func NewCart() *Cart { return &Cart{} }

func (c *Cart) Checkout(g pay.Gateway) {
	other := &Cart{}
	other.Total()
	c.Total()
	g.Charge(c.Total())
	fmt.Println(NewCart())
}

func (c *Cart) Total() int { return len(c.items) }
"#;

    #[test]
    fn go_package_types_methods_and_calls() {
        let f = Extractor::default().extract("shop/cart.go", Lang::Go, SOURCE);
        assert_eq!(f.package.as_deref(), Some("shop"));
        let defs: Vec<(&str, NodeKind, Option<u32>)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind, d.parent))
            .collect();
        assert_eq!(
            defs,
            [
                ("Cart", NodeKind::Struct, None),
                ("Totaler", NodeKind::Interface, None),
                ("Totaler.Total", NodeKind::Method, Some(1)),
                ("NewCart", NodeKind::Function, None),
                ("Cart.Checkout", NodeKind::Method, Some(0)),
                ("Cart.Total", NodeKind::Method, Some(0)),
            ]
        );
        assert_eq!(f.defs[0].doc, "Cart holds items.");
        let aliases: Vec<Option<&str>> = f
            .imports
            .iter()
            .map(|i| i.module_alias.as_deref())
            .collect();
        assert_eq!(aliases, [Some("fmt"), Some("pay")]);
        let calls: Vec<Callee> = f
            .calls
            .iter()
            .filter(|c| c.caller == Some(4))
            .map(|c| c.callee.clone())
            .collect();
        let member = |r: &str, n: &str| Callee::Member {
            receiver: Receiver::Name(r.into()),
            name: n.into(),
        };
        for expected in [
            member("other", "Total"),
            member("c", "Total"),
            member("g", "Charge"),
            member("fmt", "Println"),
            Callee::Name("NewCart".into()),
        ] {
            assert!(
                calls.contains(&expected),
                "missing {expected:?} in {calls:#?}"
            );
        }
        for (var, ty) in [("c", "Cart"), ("other", "Cart"), ("g", "pay.Gateway")] {
            assert!(
                f.bindings.contains(&Binding {
                    scope: Some(4),
                    var: var.into(),
                    type_name: ty.into()
                }),
                "{var}"
            );
        }
    }
}
