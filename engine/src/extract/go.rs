//! Go: package, imports, defined types (embedded types as bases, typed fields), functions, methods
//! (owner from the receiver, first result type), calls and typed bindings. Exported = capitalised.

use tree_sitter::Node;

use super::{ReceiverSyntax, push_call, push_children};

use super::{doc_line, field, header_before_body, line, named_children, new_def, text};
use crate::facts::{Binding, CallBinding, Callee, ElementBinding, FileFacts, Import, Receiver};
use crate::graph::NodeKind;

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    // A file `go build` leaves out (a test file, another platform's) is stand-in code: its
    // definitions give way to the real ones of their names.
    if !super::go_build::builds(&facts.path, std::str::from_utf8(src).unwrap_or("")) {
        facts.test_spans.push((1, facts.lines.max(1)));
    }
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
                // Every other defined type (`type Key []string`, `type Kind int`) is a concrete
                // named type with methods, as a struct is.
                let kind = match field(node, "type").map(|t| t.kind()) {
                    Some("interface_type") => NodeKind::Interface,
                    Some(_) => NodeKind::Struct,
                    None => continue,
                };
                if let Some(name) = field(node, "name").map(|n| text(n, src)) {
                    let mut def = new_def(facts, kind, name, scope, node);
                    fill(&mut def, node.parent().unwrap_or(node), node, src);
                    if kind == NodeKind::Struct
                        && let Some(ty) = field(node, "type")
                    {
                        struct_fields(ty, &mut def, facts.defs.len() as u32, src, facts);
                    }
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
                    def.returns = field(node, "result")
                        .and_then(|r| first_result(r, src))
                        .unwrap_or_default();
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
                def.returns = field(node, "result")
                    .and_then(|r| first_result(r, src))
                    .unwrap_or_default();
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
            "range_clause" => range_clause(node, scope, src, facts),
            // A function literal's parameters are names of the function around it.
            "func_literal" => {
                if let (Some(def), Some(params)) = (scope, field(node, "parameters")) {
                    parameters(params, def, src, facts);
                }
            }
            "short_var_declaration" => short_var(node, scope, src, facts),
            "var_spec" => var_spec(node, scope, src, facts),
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

/// Parameters' types (`opts ...Option` is a slice of `Option`), bound in `def`'s scope.
fn parameters(params: Node, def: u32, src: &[u8], facts: &mut FileFacts) {
    for param in named_children(params) {
        let variadic = match param.kind() {
            "parameter_declaration" => false,
            "variadic_parameter_declaration" => true,
            _ => continue,
        };
        let Some(ty) = field(param, "type") else {
            continue;
        };
        let ty = match (type_name(ty, src), variadic) {
            (Some(name), true) => format!("{name}[]"),
            (None, true) => continue,
            (Some(name), false) => name,
            (None, false) => text(ty, src).trim_start_matches('*').to_owned(),
        };
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

/// `for _, x := range xs`: `x` is an element of `xs` (a slice whose type is known).
fn range_clause(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let (Some(left), Some(right)) = (field(node, "left"), field(node, "right")) else {
        return;
    };
    declare(&named_children(left), scope, src, facts);
    let Some(var) = named_children(left).get(1).map(|v| text(*v, src)) else {
        return;
    };
    if var == "_" {
        return;
    }
    let of = match call_chain(right, src) {
        Some(chain) => Receiver::Call(chain),
        None => RECEIVERS.receiver(right, src),
    };
    facts.element_bindings.push(ElementBinding {
        scope,
        var: var.to_owned(),
        of,
    });
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
    if let Some(callee) = callee_of(node, src) {
        push_call(facts, scope, callee, node);
    }
}

/// What a call expression calls; a receiver that is itself a call (`a.b().c()`) is that call's
/// chain (`Receiver::Call("a.b")`), typed through what it returns, and a type assertion
/// (`v.(pkg.T).m()`) is a value of that type, as a conversion `pkg.T(v)` is.
fn callee_of(call: Node, src: &[u8]) -> Option<Callee> {
    field(call, "function").and_then(|f| {
        RECEIVERS.callee(f, src, |object| {
            let asserted = (object.kind() == "type_assertion_expression")
                .then(|| field(object, "type").and_then(|t| type_name(t, src)))
                .flatten();
            match asserted.or_else(|| call_chain(object, src)) {
                Some(chain) => Receiver::Call(chain),
                None => RECEIVERS.receiver(object, src),
            }
        })
    })
}

/// `a.b(x).c(y)` → `a.b().c`: the dotted chain a call expression calls, calls written `()`;
/// `None` when it is not a call or not such a chain.
fn call_chain(node: Node, src: &[u8]) -> Option<String> {
    if node.kind() != "call_expression" {
        return None;
    }
    let mut parts: Vec<String> = Vec::new();
    let mut at = field(node, "function")?;
    loop {
        match at.kind() {
            "identifier" => {
                parts.push(text(at, src).to_owned());
                break;
            }
            "selector_expression" => {
                parts.push(format!(".{}", text(field(at, "field")?, src)));
                at = field(at, "operand")?;
            }
            "call_expression" => {
                parts.push("()".to_owned());
                at = field(at, "function")?;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.concat())
}

/// A type as a name the resolver can look up: `T`, `pkg.T`, `*T`, `T[K]` → `T`, a slice
/// `[]*T` → `T[]` (its elements' type); `None` for maps, channels, functions and literal types.
fn type_name(node: Node, src: &[u8]) -> Option<String> {
    match node.kind() {
        "type_identifier" | "qualified_type" => Some(text(node, src).to_owned()),
        "pointer_type" => type_name(*named_children(node).first()?, src),
        "generic_type" => type_name(field(node, "type")?, src),
        "slice_type" => type_name(field(node, "element")?, src)
            .filter(|t| !t.ends_with("[]"))
            .map(|t| format!("{t}[]")),
        _ => None,
    }
}

/// The first result type of a function (`(T, error)` → `T`), as `type_name` reads it.
fn first_result(result: Node, src: &[u8]) -> Option<String> {
    if result.kind() != "parameter_list" {
        return type_name(result, src);
    }
    let first = named_children(result)
        .into_iter()
        .find(|p| p.kind() == "parameter_declaration")?;
    type_name(field(first, "type")?, src)
}

/// A struct's fields: an embedded type is a base (its methods are promoted) and a field named
/// as the type; a named field's type is an attribute binding of the struct (`def_idx`).
fn struct_fields(
    ty: Node,
    def: &mut crate::facts::Def,
    def_idx: u32,
    src: &[u8],
    facts: &mut FileFacts,
) {
    let Some(list) = named_children(ty)
        .into_iter()
        .find(|n| n.kind() == "field_declaration_list")
    else {
        return;
    };
    for decl in named_children(list)
        .into_iter()
        .filter(|n| n.kind() == "field_declaration")
    {
        let Some(written) = field(decl, "type").and_then(|t| type_name(t, src)) else {
            continue;
        };
        let mut cursor = decl.walk();
        let names: Vec<String> = decl
            .children_by_field_name("name", &mut cursor)
            .map(|n| text(n, src).to_owned())
            .collect();
        // An embedded type is also a field named as the type (`c.Config` for `html.Config`).
        if names.is_empty() {
            let field_name = written.rsplit('.').next().unwrap_or(&written).to_owned();
            facts
                .attr_bindings
                .push((def_idx, field_name, written.clone()));
            def.extends.push(written);
            continue;
        }
        for name in names {
            facts.attr_bindings.push((def_idx, name, written.clone()));
        }
    }
}

fn short_var(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let (Some(left), Some(right)) = (field(node, "left"), field(node, "right")) else {
        return;
    };
    declare(&named_children(left), scope, src, facts);
    bind_values(
        named_children(left),
        named_children(right),
        scope,
        src,
        facts,
    );
}

/// Names a function declares (`x := …`, `var x …`, `for k, v := range …`): they hide package
/// variables of other files.
fn declare(names: &[Node], scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    if scope.is_none() {
        return;
    }
    for name in names.iter().filter(|n| n.kind() == "identifier") {
        let name = text(*name, src);
        if name != "_" {
            facts.locals.push((scope, name.to_owned()));
        }
    }
}

/// `var x T`, `var x = T{}`, `var x, err = f()`.
fn var_spec(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let mut cursor = node.walk();
    let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
    declare(&names, scope, src, facts);
    if let Some(ty) = field(node, "type") {
        if let Some(written) = type_name(ty, src) {
            for name in names {
                facts.bindings.push(Binding {
                    scope,
                    var: text(name, src).to_owned(),
                    type_name: written.clone(),
                });
            }
        }
        return;
    }
    if let Some(values) = field(node, "value") {
        bind_values(names, named_children(values), scope, src, facts);
    }
}

/// Binds each name to its value: a composite literal's type (`T{}`, `&T{}`), an asserted type
/// (`v.(T)`), a call's result or what a chain of fields holds (`n.first`). One call or assertion giving several values (`x, err := f()`,
/// `x, ok := v.(T)`) binds the first name to its first.
fn bind_values(
    names: Vec<Node>,
    values: Vec<Node>,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) {
    let pairs: Vec<(Node, Node)> = match values[..] {
        [one] if matches!(one.kind(), "call_expression" | "type_assertion_expression") => {
            names.into_iter().take(1).map(|n| (n, one)).collect()
        }
        _ => names.into_iter().zip(values).collect(),
    };
    for (var, value) in pairs {
        let var = text(var, src);
        if var == "_" {
            continue;
        }
        let value = if value.kind() == "unary_expression" {
            field(value, "operand").unwrap_or(value)
        } else {
            value
        };
        let written = match value.kind() {
            "composite_literal" => field(value, "type").map(|t| text(t, src).to_owned()),
            "type_assertion_expression" => field(value, "type").and_then(|t| type_name(t, src)),
            _ => None,
        };
        if let Some(type_name) = written {
            facts.bindings.push(Binding {
                scope,
                var: var.to_owned(),
                type_name,
            });
        } else if value.kind() == "call_expression"
            && let Some(callee) = callee_of(value, src)
        {
            facts.call_bindings.push(CallBinding {
                scope,
                var: var.to_owned(),
                callee,
            });
        } else if value.kind() == "selector_expression"
            && let Receiver::Path(path) = RECEIVERS.receiver(value, src)
        {
            facts.path_bindings.push((scope, var.to_owned(), path));
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
