//! Scala's bare paren-less names: which identifiers in an expression call a `def` by name
//! (`isDirty`, `!hasFiles`, `name + x`), and which are the names a scope binds around them.

use tree_sitter::Node;

use super::{field, named_children, text};

/// Where an identifier reads a value (parent kind, the field it is in or `None` for any):
/// a statement, an argument, an operand, a condition, a receiver, a result.
const VALUE_PLACES: &[(&str, Option<&str>)] = &[
    ("arguments", None),
    ("block", None),
    ("indented_block", None),
    ("parenthesized_expression", None),
    ("tuple_expression", None),
    ("prefix_expression", None),
    ("return_expression", None),
    ("interpolation", None),
    ("if_expression", None),
    ("while_expression", None),
    ("throw_expression", None),
    ("ascription_expression", None),
    ("infix_expression", Some("left")),
    ("infix_expression", Some("right")),
    ("field_expression", Some("value")),
    ("match_expression", Some("value")),
    ("assignment_expression", Some("right")),
    ("val_definition", Some("value")),
    ("var_definition", Some("value")),
    ("function_definition", Some("body")),
    ("lambda_expression", None),
    ("case_clause", Some("body")),
    ("for_expression", Some("body")),
];

/// The name a bare identifier calls, if it stands where a value is read, is not capitalised
/// (an object, a class or a constant), and is bound by no scope around it (a parameter, a
/// local `val`, a pattern's variable, a lambda's parameter, a `for` generator's).
pub(super) fn bare_call(node: Node, src: &[u8]) -> Option<String> {
    let parent = node.parent()?;
    let is = |f: &str| {
        parent
            .child_by_field_name(f)
            .is_some_and(|c| c.id() == node.id())
    };
    // A `for` generator's source (`x <- xs`, `y = f`), not its pattern (the first child).
    let generator_source = parent.kind() == "enumerator"
        && named_children(parent)
            .first()
            .is_some_and(|pattern| pattern.id() != node.id());
    let in_value_place = generator_source
        || VALUE_PLACES
            .iter()
            .any(|&(kind, f)| parent.kind() == kind && f.is_none_or(is));
    // A lambda's parameters and an argument named `f(x = …)` are no reads.
    if !in_value_place || (parent.kind() == "lambda_expression" && is("parameters")) {
        return None;
    }
    let name = text(node, src);
    if !name.starts_with(|c: char| c.is_lowercase()) || name == "this" || name == "super" {
        return None;
    }
    let mut child = node;
    let mut scope = parent;
    loop {
        if binds(scope, child, name, src) {
            return None;
        }
        child = scope;
        scope = scope.parent()?;
        if scope.kind() == "compilation_unit" {
            return Some(name.to_owned());
        }
    }
}

/// Whether `scope` binds `name` where `child` (one of its children) can see it.
fn binds(scope: Node, child: Node, name: &str, src: &[u8]) -> bool {
    match scope.kind() {
        "function_definition" => named_children(scope)
            .into_iter()
            .filter(|c| c.kind() == "parameters")
            .flat_map(named_children)
            .any(|p| field(p, "name").is_some_and(|n| text(n, src) == name)),
        "class_definition" => named_children(scope)
            .into_iter()
            .filter(|c| c.kind() == "class_parameters")
            .flat_map(named_children)
            .any(|p| field(p, "name").is_some_and(|n| text(n, src) == name)),
        "lambda_expression" => {
            field(scope, "parameters").is_some_and(|p| names_in(p, src).contains(&name))
        }
        "case_clause" => field(scope, "pattern").is_some_and(|p| names_in(p, src).contains(&name)),
        "for_expression" => field(scope, "enumerators").is_some_and(|e| {
            named_children(e)
                .into_iter()
                .flat_map(named_children)
                .filter_map(|enumerator| named_children(enumerator).into_iter().next())
                .any(|pattern| names_in(pattern, src).contains(&name))
        }),
        // A local `val`/`var` written before the statement that reads it.
        "block" | "indented_block" => named_children(scope)
            .into_iter()
            .take_while(|c| c.id() != child.id())
            .filter(|c| {
                matches!(
                    c.kind(),
                    "val_definition" | "var_definition" | "val_declaration" | "var_declaration"
                )
            })
            .filter_map(|c| field(c, "pattern"))
            .any(|p| names_in(p, src).contains(&name)),
        _ => false,
    }
}

/// The identifiers a pattern or a parameter list binds: every identifier in it (the capitalised
/// ones, types and constants, are never asked for).
fn names_in<'s>(node: Node, src: &'s [u8]) -> Vec<&'s str> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" {
            out.push(text(n, src));
        }
        stack.extend(named_children(n));
    }
    out
}
