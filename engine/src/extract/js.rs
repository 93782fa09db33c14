//! JavaScript, TypeScript and TSX: classes, interfaces, enums, functions (incl. `const f = () =>`),
//! methods, ES imports and re-exports, `require`, calls, `new`, and typed bindings.

use tree_sitter::Node;

use super::{ReceiverSyntax, push_call, push_children};

use super::{
    doc_line, field, header_before_body, line, named_children, new_def, split_outside_brackets,
    strip_generics, text,
};
use crate::facts::{
    Binding, CallBinding, Callee, ClosureBinding, ClosureParam, ElementBinding, FileFacts, Import,
    ImportedName, Receiver,
};
use crate::graph::NodeKind;

/// A node on the walk stack with its scope and whether an `export` wraps it.
type Walk<'t> = (Node<'t>, (Option<u32>, bool));

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut cursor = root.walk();
    let mut stack: Vec<Walk> = vec![(root, (None, false))];
    while let Some((node, (scope, exported))) = stack.pop() {
        let kind = node.kind();
        let def_kind = match kind {
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                Some(NodeKind::Function)
            }
            "class_declaration" | "abstract_class_declaration" | "class" => Some(NodeKind::Class),
            "interface_declaration" => Some(NodeKind::Interface),
            "enum_declaration" => Some(NodeKind::Enum),
            "internal_module" | "module" => Some(NodeKind::Module),
            "method_definition" | "method_signature" | "abstract_method_signature" => {
                Some(NodeKind::Method)
            }
            _ => None,
        };
        if def_kind.is_some() && is_overload_signature(node, src) {
            continue;
        }
        if let Some(def_kind) = def_kind
            && let Some(name) = field(node, "name")
        {
            let idx = define(node, def_kind, text(name, src), scope, exported, src, facts);
            push_children(&mut cursor, node, (Some(idx), false), &mut stack);
            continue;
        }
        match kind {
            "export_statement" => {
                if let Some(source) = field(node, "source") {
                    reexport(node, source, src, facts);
                    continue;
                }
                push_children(&mut cursor, node, (scope, true), &mut stack);
                continue;
            }
            "import_statement" => {
                import(node, src, facts);
                continue;
            }
            "type_alias_declaration" => {
                if scope.is_none() {
                    type_alias(node, src, facts);
                }
                continue;
            }
            "variable_declarator" => {
                if variable(node, scope, exported, src, facts, &mut cursor, &mut stack) {
                    continue;
                }
                let required = field(node, "value").is_some_and(|v| {
                    v.kind() == "call_expression" && require_target(v, src).is_some()
                });
                if let (Some(name), false) = (field(node, "name"), required) {
                    declare(name, scope, src, facts);
                }
            }
            "public_field_definition" | "field_definition" => {
                if let Some(idx) = field_function(node, scope, src, facts) {
                    if let Some(value) = field(node, "value") {
                        push_children(&mut cursor, value, (Some(idx), false), &mut stack);
                    }
                    continue;
                }
                field_definition(node, scope, src, facts)
            }
            "required_parameter" | "optional_parameter" => {
                parameter(node, scope, src, facts);
                if let Some(pattern) = field(node, "pattern") {
                    declare(pattern, scope, src, facts);
                }
            }
            // JavaScript writes parameters without a wrapping node.
            "formal_parameters" => {
                for param in named_children(node) {
                    declare(param, scope, src, facts);
                }
            }
            "arrow_function" | "catch_clause" => {
                if let Some(param) = field(node, "parameter") {
                    declare(param, scope, src, facts);
                }
            }
            "call_expression" => call(node, scope, src, facts),
            "new_expression" => {
                if let Some(ctor) = field(node, "constructor") {
                    let callee = Callee::New(text(ctor, src).to_owned());
                    callback_bindings(&callee, node, scope, src, facts);
                    push_call(facts, scope, callee, node);
                }
            }
            "assignment_expression" => this_assignment(node, scope, src, facts),
            "for_in_statement" => {
                if let (Some(_), Some(left)) = (field(node, "kind"), field(node, "left")) {
                    declare(left, scope, src, facts);
                }
                for_of(node, scope, src, facts);
            }
            _ => {}
        }
        push_children(&mut cursor, node, (scope, false), &mut stack);
    }
}

fn define(
    node: Node,
    kind: NodeKind,
    name: &str,
    scope: Option<u32>,
    exported: bool,
    src: &[u8],
    facts: &mut FileFacts,
) -> u32 {
    let parent_is_type = scope
        .and_then(|s| facts.defs.get(s as usize))
        .is_some_and(|d| matches!(d.kind, NodeKind::Class | NodeKind::Interface));
    let kind = if kind == NodeKind::Function && parent_is_type {
        NodeKind::Method
    } else {
        kind
    };
    let mut def = new_def(facts, kind, name, scope, node);
    def.signature = header_before_body(node, field(node, "body"), src);
    def.doc = doc_before(node, src);
    def.returns = returns(node, src);
    def.exported = if kind == NodeKind::Method {
        !name.starts_with('#') && !text(node, src).trim_start().starts_with("private")
    } else {
        exported || scope.is_some_and(|s| facts.defs.get(s as usize).is_some_and(|d| d.exported))
    };
    for child in named_children(node) {
        match child.kind() {
            "class_heritage" => heritage(child, src, &mut def.extends, &mut def.implements),
            "extends_type_clause" => {
                for ty in named_children(child) {
                    def.extends.push(strip_generics(text(ty, src)));
                }
            }
            _ => {}
        }
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    closure_params(idx, node, src, facts);
    idx
}

/// An overload signature (`f(a: A): R;`) followed by another declaration of the same name: the
/// last of the run (the implementation, or an interface's last signature) stands for them all.
fn is_overload_signature<'t>(node: Node<'t>, src: &[u8]) -> bool {
    if !matches!(node.kind(), "function_signature" | "method_signature") {
        return false;
    }
    let Some(name) = field(node, "name").map(|n| text(n, src)) else {
        return false;
    };
    let declaration = |n: Node<'t>| match n.kind() {
        "export_statement" => field(n, "declaration"),
        _ => Some(n),
    };
    let anchor = match node.parent() {
        Some(p) if p.kind() == "export_statement" => p,
        _ => node,
    };
    let mut next = anchor.next_named_sibling();
    while let Some(sibling) = next {
        match declaration(sibling) {
            Some(d) if matches!(d.kind(), "decorator" | "comment") => {}
            Some(d) if field(d, "name").map(|n| text(n, src)) == Some(name) => {
                return matches!(
                    d.kind(),
                    "function_signature"
                        | "method_signature"
                        | "function_declaration"
                        | "method_definition"
                );
            }
            _ => return false,
        }
        next = sibling.next_named_sibling();
    }
    false
}

fn heritage(node: Node, src: &[u8], extends: &mut Vec<String>, implements: &mut Vec<String>) {
    for clause in named_children(node) {
        match clause.kind() {
            "extends_clause" => {
                for value in named_children(clause) {
                    if value.kind() != "type_arguments" {
                        extends.push(strip_generics(text(value, src)));
                    }
                }
            }
            "implements_clause" => {
                for ty in named_children(clause) {
                    implements.push(strip_generics(text(ty, src)));
                }
            }
            // JavaScript: `class A extends B` has the expression directly under the heritage.
            _ => extends.push(strip_generics(text(clause, src))),
        }
    }
}

/// `/** … */` or `//` comment right before the declaration (or before its `export`).
fn doc_before(node: Node, src: &[u8]) -> String {
    let anchor = match node.parent() {
        Some(p) if p.kind() == "export_statement" => p,
        _ => node,
    };
    match anchor.prev_named_sibling() {
        Some(c)
            if c.kind() == "comment" && c.end_position().row + 1 >= anchor.start_position().row =>
        {
            doc_line(text(c, src))
        }
        _ => String::new(),
    }
}

/// `const f = () => …`, `const x = new C()`, `const m = require('./m')`. True when handled whole.
fn variable<'t>(
    node: Node<'t>,
    scope: Option<u32>,
    exported: bool,
    src: &[u8],
    facts: &mut FileFacts,
    cursor: &mut tree_sitter::TreeCursor<'t>,
    stack: &mut Vec<Walk<'t>>,
) -> bool {
    let (Some(name), Some(value)) = (field(node, "name"), field(node, "value")) else {
        return false;
    };
    if name.kind() != "identifier" {
        return false;
    }
    let var = text(name, src);
    let exported = exported
        || node
            .parent()
            .and_then(|p| p.parent())
            .is_some_and(|g| g.kind() == "export_statement");
    // `function () {…} as any`, `(() => …)`: the function inside.
    let mut function = value;
    while matches!(
        function.kind(),
        "as_expression" | "satisfies_expression" | "parenthesized_expression"
    ) && let Some(inner) = named_children(function).into_iter().next()
    {
        function = inner;
    }
    if matches!(
        function.kind(),
        "arrow_function" | "function_expression" | "function" | "generator_function"
    ) {
        let value = function;
        let mut def = new_def(facts, NodeKind::Function, var, scope, node);
        def.signature = header_before_body(node, field(value, "body"), src);
        def.doc = doc_before(node.parent().unwrap_or(node), src);
        def.returns = returns(value, src);
        def.exported = exported;
        let idx = facts.defs.len() as u32;
        facts.defs.push(def);
        closure_params(idx, value, src, facts);
        if let Some(param) = field(value, "parameter") {
            declare(param, Some(idx), src, facts);
        }
        push_children(cursor, value, (Some(idx), false), stack);
        return true;
    }
    match value.kind() {
        "new_expression" => {
            if let Some(ctor) = field(value, "constructor") {
                facts.bindings.push(Binding {
                    scope,
                    var: var.to_owned(),
                    type_name: text(ctor, src).to_owned(),
                });
            }
            false
        }
        "call_expression" if field(node, "type").is_none() => {
            if let Some(module) = require_target(value, src) {
                facts.imports.push(Import {
                    module,
                    names: Vec::new(),
                    module_alias: Some(var.to_owned()),
                    wildcard: false,
                    reexport: false,
                    line: line(node),
                });
            } else if let Some(callee) = callee_of(value, src) {
                facts.call_bindings.push(CallBinding {
                    scope,
                    var: var.to_owned(),
                    callee,
                });
            }
            false
        }
        "await_expression" if field(node, "type").is_none() => {
            let awaited = named_children(value)
                .into_iter()
                .next()
                .filter(|v| v.kind() == "call_expression");
            if let Some(callee) = awaited.and_then(|c| callee_of(c, src)) {
                facts.call_bindings.push(CallBinding {
                    scope,
                    var: var.to_owned(),
                    callee,
                });
            }
            false
        }
        _ => {
            // `const x: T = …`, else `const x = y as T`.
            let ty = field(node, "type")
                .and_then(|t| annotation(t, src))
                .or_else(|| {
                    (value.kind() == "as_expression")
                        .then(|| named_children(value).into_iter().nth(1))
                        .flatten()
                        .and_then(|t| annotation(t, src))
                });
            if let Some(ty) = ty {
                facts.bindings.push(Binding {
                    scope,
                    var: var.to_owned(),
                    type_name: ty,
                });
            }
            false
        }
    }
}

/// `type A = B`, `type A<T> = B<T> | C | undefined`: an alias of named types (any other
/// member — a literal, an object or function type — leaves the alias out).
fn type_alias(node: Node, src: &[u8], facts: &mut FileFacts) {
    let (Some(name), Some(value)) = (field(node, "name"), field(node, "value")) else {
        return;
    };
    let mut members = Vec::new();
    let mut stack = vec![value];
    while let Some(member) = stack.pop() {
        match member.kind() {
            "union_type" => stack.extend(named_children(member).into_iter().rev()),
            "comment" => {}
            _ => match text(member, src).trim() {
                "undefined" | "null" | "void" | "never" => {}
                written => match single_type(written) {
                    Some(ty) => members.push(ty),
                    None => return,
                },
            },
        }
    }
    if !members.is_empty() {
        facts
            .type_aliases
            .push((text(name, src).to_owned(), members));
    }
}

/// The names a declaration or parameter pattern binds (`x`, `{ a, b: c }`, `[d, ...e]`, `f = 1`)
/// are variables of the scope.
fn declare(pattern: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let mut stack = vec![pattern];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                facts.locals.push((scope, text(n, src).to_owned()));
            }
            "object_pattern" | "array_pattern" | "rest_pattern" => {
                stack.extend(named_children(n));
            }
            "pair_pattern" => stack.extend(field(n, "value")),
            "assignment_pattern" | "object_assignment_pattern" => stack.extend(field(n, "left")),
            _ => {}
        }
    }
}

/// A function's declared return type as a class name; `Promise<T>` gives `T`, since what is
/// called on the result is almost always called on the awaited value.
fn returns(function: Node, src: &[u8]) -> String {
    let Some(ty) = field(function, "return_type") else {
        return String::new();
    };
    let raw = text(ty, src).trim_start_matches(':').trim();
    let inner = raw
        .strip_prefix("Promise<")
        .and_then(|r| r.strip_suffix('>'))
        .unwrap_or(raw);
    plain_type(inner).unwrap_or_default()
}

/// The positional parameters of a parameter list: `this: T` declares the receiver, not one.
fn positional_params<'t>(params: Node<'t>, src: &[u8]) -> Vec<Node<'t>> {
    named_children(params)
        .into_iter()
        .filter(|p| {
            matches!(
                p.kind(),
                "required_parameter" | "optional_parameter" | "identifier"
            )
        })
        .filter(|p| field(*p, "pattern").is_none_or(|pattern| text(pattern, src) != "this"))
        .collect()
}

/// The parameters of `function` (definition `def`) declared as functions: the plain type each
/// parameter of that function type is declared as, empty where it is none.
fn closure_params(def: u32, function: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(params) = field(function, "parameters") else {
        return;
    };
    for (at, param) in positional_params(params, src).into_iter().enumerate() {
        let Some(callback_params) = field(param, "type")
            .and_then(function_type_in)
            .and_then(|callback| field(callback, "parameters"))
        else {
            continue;
        };
        let declared: Vec<String> = positional_params(callback_params, src)
            .into_iter()
            .map(|p| {
                field(p, "type")
                    .and_then(|t| annotation(t, src))
                    .unwrap_or_default()
            })
            .collect();
        if declared.iter().any(|t| !t.is_empty()) {
            facts.closure_params.push(ClosureParam {
                def,
                position: at as u32,
                takes_self: false,
                types: declared,
            });
        }
    }
}

/// `f(a, (x, y) => …)`, `new C(function (x) { … })`: each untyped parameter of a function
/// written as an argument is bound to what the callee declares for it.
fn callback_bindings(
    callee: &Callee,
    call: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) {
    let Some(args) = field(call, "arguments") else {
        return;
    };
    let args = named_children(args)
        .into_iter()
        .filter(|a| a.kind() != "comment");
    for (arg, function) in args.enumerate() {
        if !matches!(
            function.kind(),
            "arrow_function" | "function_expression" | "function"
        ) {
            continue;
        }
        let params: Vec<Node> = match field(function, "parameter") {
            Some(one) => vec![one],
            None => field(function, "parameters")
                .map(|p| positional_params(p, src))
                .unwrap_or_default(),
        };
        for (param, node) in params.into_iter().enumerate() {
            let name = match node.kind() {
                "identifier" => Some(node),
                "required_parameter" | "optional_parameter" if field(node, "type").is_none() => {
                    field(node, "pattern").filter(|p| p.kind() == "identifier")
                }
                _ => None,
            };
            if let Some(name) = name {
                facts.closure_bindings.push(ClosureBinding {
                    scope,
                    var: text(name, src).to_owned(),
                    callee: callee.clone(),
                    argument: arg as u32,
                    parameter: param as u32,
                });
            }
        }
    }
}

fn require_target(call: Node, src: &[u8]) -> Option<String> {
    let function = field(call, "function")?;
    if text(function, src) != "require" {
        return None;
    }
    let args = field(call, "arguments")?;
    let first = named_children(args).into_iter().next()?;
    (first.kind() == "string").then(|| unquote(text(first, src)))
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_owned()
}

/// A class name from a `: Type` annotation, if it is a plain (possibly dotted/generic) name,
/// or a union of one such name with `undefined`/`null` (`Disposable | undefined`).
fn annotation(node: Node, src: &[u8]) -> Option<String> {
    plain_type(text(node, src).trim_start_matches(':').trim())
}

/// A `: (…) => R` annotation of an attribute, as `=> R` (what calling the attribute returns),
/// when `R` is a plain type.
fn function_type_returns(annotation: Node, src: &[u8]) -> Option<String> {
    let function = function_type_in(annotation)?;
    let returned = plain_type(text(field(function, "return_type")?, src))?;
    Some(format!("=> {returned}"))
}

/// The function type an annotation declares, also in a union with `undefined` or in
/// parentheses (the grammar reads `() => A | undefined` as a union holding the function type).
fn function_type_in(ty: Node) -> Option<Node> {
    match ty.kind() {
        "function_type" => Some(ty),
        "type_annotation" | "union_type" | "parenthesized_type" => {
            named_children(ty).into_iter().find_map(function_type_in)
        }
        _ => None,
    }
}

/// Collections whose elements `for … of` and the array callbacks visit.
const COLLECTIONS: &[&str] = &[
    "Array",
    "ReadonlyArray",
    "Set",
    "ReadonlySet",
    "Iterable",
    "IterableIterator",
];

/// Array methods whose first callback receives each element.
const ELEMENT_CALLBACKS: &[&str] = &[
    "forEach",
    "map",
    "filter",
    "some",
    "every",
    "find",
    "findIndex",
    "flatMap",
];

/// `Name`, `a.Name`, `Name<T>` or `Name | undefined` as a class name, and a collection of such
/// (`T[]`, `readonly T[]`, `Array<T>`, `Set<T>` …) as `T[]`; `None` for other types.
fn plain_type(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let raw = raw.strip_prefix("readonly ").map_or(raw, str::trim_start);
    if let Some(element) = raw.strip_suffix("[]") {
        return element_name(element);
    }
    if let Some((outer, rest)) = raw.split_once('<')
        && COLLECTIONS.contains(&outer.trim())
        && let Some(element) = rest.strip_suffix('>')
    {
        return element_name(element);
    }
    single_type(raw)
}

/// The element of a collection type, as `T[]`.
fn element_name(element: &str) -> Option<String> {
    let element = element.trim();
    let element = element
        .strip_prefix('(')
        .and_then(|e| e.strip_suffix(')'))
        .unwrap_or(element);
    single_type(element).map(|t| format!("{t}[]"))
}

/// `Name`, `a.Name`, `Name<T>` or `Name | undefined` as a class name.
fn single_type(raw: &str) -> Option<String> {
    let mut kept = split_outside_brackets(raw, '|')
        .into_iter()
        .filter(|m| !matches!(*m, "undefined" | "null" | "void"));
    let (Some(single), None) = (kept.next(), kept.next()) else {
        return None;
    };
    let name = strip_generics(single);
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '$');
    valid.then_some(name)
}

/// A typed parameter binds its name in the function; a constructor's parameter property
/// (`private readonly shell: Shell`) is also an attribute of the class.
fn parameter(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let (Some(pattern), Some(ty)) = (field(node, "pattern"), field(node, "type")) else {
        return;
    };
    // `function f(this: Annotation)`: what `this` is, even when the project cannot name it.
    if pattern.kind() == "this" {
        let written = text(ty, src).trim_start_matches(':').trim();
        facts.bindings.push(Binding {
            scope,
            var: "this".to_owned(),
            type_name: annotation(ty, src).unwrap_or_else(|| written.to_owned()),
        });
        return;
    }
    if pattern.kind() != "identifier" {
        return;
    }
    let mut cursor = node.walk();
    let property = node
        .children(&mut cursor)
        .any(|c| matches!(c.kind(), "accessibility_modifier" | "readonly"));
    let Some(type_name) = annotation(ty, src) else {
        if property
            && let Some(class) = scope.and_then(|method| facts.owner_class(method))
            && let Some(returned) = function_type_returns(ty, src)
        {
            facts
                .attr_bindings
                .push((class, text(pattern, src).to_owned(), returned));
        }
        return;
    };
    if property && let Some(class) = scope.and_then(|method| facts.owner_class(method)) {
        facts
            .attr_bindings
            .push((class, text(pattern, src).to_owned(), type_name.clone()));
    }
    facts.bindings.push(Binding {
        scope,
        var: text(pattern, src).to_owned(),
        type_name,
    });
}

/// A class field holding a function (`handle = (e) => …`, `static make = function () …`): a
/// method of the class. Its index, when it is one.
fn field_function(
    node: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<u32> {
    let class = scope.filter(|s| {
        facts
            .defs
            .get(*s as usize)
            .is_some_and(|d| d.kind == NodeKind::Class)
    })?;
    let name = field(node, "name").or_else(|| field(node, "property"))?;
    let value = field(node, "value").filter(|v| {
        matches!(
            v.kind(),
            "arrow_function" | "function_expression" | "function" | "generator_function"
        )
    })?;
    let mut def = new_def(facts, NodeKind::Method, text(name, src), Some(class), node);
    def.signature = header_before_body(node, field(value, "body"), src);
    def.doc = doc_before(node, src);
    def.returns = returns(value, src);
    def.exported =
        !text(name, src).starts_with('#') && !text(node, src).trim_start().starts_with("private");
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    closure_params(idx, value, src, facts);
    if let Some(param) = field(value, "parameter") {
        declare(param, Some(idx), src, facts);
    }
    Some(idx)
}

fn field_definition(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(class) = scope.filter(|s| {
        facts
            .defs
            .get(*s as usize)
            .is_some_and(|d| d.kind == NodeKind::Class)
    }) else {
        return;
    };
    let Some(name) = field(node, "name").or_else(|| field(node, "property")) else {
        return;
    };
    let ty = field(node, "type")
        .and_then(|t| annotation(t, src).or_else(|| function_type_returns(t, src)))
        .or_else(|| {
            let value = field(node, "value")?;
            (value.kind() == "new_expression")
                .then(|| field(value, "constructor").map(|c| text(c, src).to_owned()))?
        });
    if let Some(ty) = ty {
        facts
            .attr_bindings
            .push((class, text(name, src).to_owned(), ty));
    }
}

fn this_assignment(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let (Some(left), Some(right)) = (field(node, "left"), field(node, "right")) else {
        return;
    };
    if left.kind() != "member_expression" || right.kind() != "new_expression" {
        return;
    }
    let is_this = field(left, "object").is_some_and(|o| o.kind() == "this");
    let (Some(prop), Some(ctor), Some(method)) =
        (field(left, "property"), field(right, "constructor"), scope)
    else {
        return;
    };
    if is_this && let Some(class) = facts.owner_class(method) {
        facts.attr_bindings.push((
            class,
            text(prop, src).to_owned(),
            text(ctor, src).to_owned(),
        ));
    }
}

/// JavaScript's and TypeScript's receivers: `this`, `super`, `a.b` member expressions.
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &["this"],
    self_names: &[],
    super_kinds: &["super"],
    members: &[("member_expression", "object", "property")],
    leaves: &["identifier", "this"],
};

/// The shared classification, plus what a call or `new` makes: `new C().m()`, `f().m()`.
fn receiver(object: Node, src: &[u8]) -> Receiver {
    match object.kind() {
        "new_expression" => field(object, "constructor")
            .filter(|c| is_dotted(*c))
            .map_or(Receiver::Other, |c| Receiver::Call(text(c, src).to_owned())),
        "call_expression" => field(object, "function")
            .filter(|f| is_dotted(*f))
            .map_or(Receiver::Other, |f| Receiver::Call(text(f, src).to_owned())),
        _ => RECEIVERS.receiver(object, src),
    }
}

fn is_dotted(node: Node) -> bool {
    RECEIVERS.is_dotted(node)
}

/// What a call expression calls: `f(…)`, `recv.f(…)`, `super(…)`.
fn callee_of(call: Node, src: &[u8]) -> Option<Callee> {
    let function = field(call, "function")?;
    if function.kind() == "super" {
        return Some(Callee::Member {
            receiver: Receiver::Super,
            name: "constructor".into(),
        });
    }
    RECEIVERS.callee(function, src, |object| receiver(object, src))
}

/// `for (const x of xs)`: `x` is an element of `xs`.
fn for_of(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let is_of = field(node, "operator").is_some_and(|o| text(o, src) == "of");
    if let (true, Some(left), Some(right)) = (is_of, field(node, "left"), field(node, "right"))
        && left.kind() == "identifier"
    {
        facts.element_bindings.push(ElementBinding {
            scope,
            var: text(left, src).to_owned(),
            of: receiver(right, src),
        });
    }
}

/// `xs.forEach(x => …)` and the like: the callback's untyped first parameter is an element of
/// `xs` (a typed one is bound by its annotation).
fn element_callback(
    callee: &Callee,
    call: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) {
    let Callee::Member { receiver, name } = callee else {
        return;
    };
    if !ELEMENT_CALLBACKS.contains(&name.as_str()) {
        return;
    }
    let Some(callback) = field(call, "arguments")
        .and_then(|a| named_children(a).into_iter().next())
        .filter(|c| c.kind() == "arrow_function")
    else {
        return;
    };
    let param = field(callback, "parameter").or_else(|| {
        let first = named_children(field(callback, "parameters")?)
            .into_iter()
            .next()?;
        let untyped = first.kind() == "required_parameter" && field(first, "type").is_none();
        field(first, "pattern").filter(|p| untyped && p.kind() == "identifier")
    });
    if let Some(param) = param {
        facts.element_bindings.push(ElementBinding {
            scope,
            var: text(param, src).to_owned(),
            of: receiver.clone(),
        });
    }
}

fn call(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(callee) = callee_of(node, src) else {
        return;
    };
    element_callback(&callee, node, scope, src, facts);
    callback_bindings(&callee, node, scope, src, facts);
    push_call(facts, scope, callee, node);
}

fn import(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(source) = field(node, "source") else {
        return;
    };
    let mut import = Import {
        module: unquote(text(source, src)),
        names: Vec::new(),
        module_alias: None,
        wildcard: false,
        reexport: false,
        line: line(node),
    };
    for clause in named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "import_clause")
    {
        for part in named_children(clause) {
            match part.kind() {
                "identifier" => import.names.push(ImportedName {
                    name: "default".into(),
                    alias: Some(text(part, src).to_owned()),
                }),
                "namespace_import" => {
                    import.module_alias = named_children(part)
                        .into_iter()
                        .next()
                        .map(|n| text(n, src).to_owned());
                }
                "named_imports" => import.names.extend(specifiers(part, src)),
                _ => {}
            }
        }
    }
    facts.imports.push(import);
}

fn specifiers(list: Node, src: &[u8]) -> Vec<ImportedName> {
    named_children(list)
        .into_iter()
        .filter(|s| matches!(s.kind(), "import_specifier" | "export_specifier"))
        .filter_map(|s| {
            let name = field(s, "name")?;
            Some(ImportedName {
                name: unquote(text(name, src)),
                alias: field(s, "alias").map(|a| unquote(text(a, src))),
            })
        })
        .collect()
}

fn reexport(node: Node, source: Node, src: &[u8], facts: &mut FileFacts) {
    let clause = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "export_clause");
    let namespace = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "namespace_export");
    facts.imports.push(Import {
        module: unquote(text(source, src)),
        names: clause.map(|c| specifiers(c, src)).unwrap_or_default(),
        module_alias: namespace
            .and_then(|n| named_children(n).into_iter().next())
            .map(|n| text(n, src).to_owned()),
        wildcard: clause.is_none() && namespace.is_none(),
        reexport: true,
        line: line(node),
    });
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    const SOURCE: &str = r#"
import Default, { helper, other as alias } from './utils';
import * as api from "../api";
export { charge as pay } from './payment';
export * from './types';
const legacy = require('./legacy');

/** A shopping cart. */
export class Cart extends Base<Item> implements Totals, Serializable {
    private gateway: Gateway;
    constructor(owner: User) {
        super(owner);
        this.store = new Store();
    }
    total(): number { return this.items.length; }
    checkout(gateway: Gateway) {
        const cart = new Cart(this.owner);
        cart.total();
        this.gateway.charge(this.total());
        helper(api.fetchAll());
        legacy.run();
    }
}

export interface Totals extends Base { total(): number; }

export const validate = (card: Card): boolean => check(card);
function internal() { return validate(null); }
"#;

    fn facts() -> FileFacts {
        Extractor::default().extract("src/cart.ts", Lang::TypeScript, SOURCE)
    }

    #[test]
    fn definitions_heritage_and_exports() {
        let f = facts();
        let defs: Vec<(&str, NodeKind, bool)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind, d.exported))
            .collect();
        assert_eq!(
            defs,
            [
                ("Cart", NodeKind::Class, true),
                ("Cart.constructor", NodeKind::Method, true),
                ("Cart.total", NodeKind::Method, true),
                ("Cart.checkout", NodeKind::Method, true),
                ("Totals", NodeKind::Interface, true),
                ("Totals.total", NodeKind::Method, true),
                ("validate", NodeKind::Function, true),
                ("internal", NodeKind::Function, false),
            ]
        );
        assert_eq!(f.defs[0].extends, ["Base"]);
        assert_eq!(f.defs[0].implements, ["Totals", "Serializable"]);
        assert_eq!(f.defs[0].doc, "A shopping cart.");
        assert_eq!(f.defs[4].extends, ["Base"]);
        assert_eq!(f.syntax_errors, 0);
    }

    #[test]
    fn imports_reexports_and_require() {
        let f = facts();
        assert_eq!(f.imports.len(), 5);
        assert_eq!(f.imports[0].module, "./utils");
        let locals: Vec<&str> = f.imports[0].names.iter().map(|n| n.local()).collect();
        assert_eq!(locals, ["Default", "helper", "alias"]);
        assert_eq!(f.imports[1].module_alias.as_deref(), Some("api"));
        assert!(f.imports[2].reexport && f.imports[2].names[0].local() == "pay");
        assert!(f.imports[3].reexport && f.imports[3].wildcard);
        assert_eq!(
            (
                f.imports[4].module.as_str(),
                f.imports[4].module_alias.as_deref()
            ),
            ("./legacy", Some("legacy"))
        );
    }

    #[test]
    fn calls_constructors_and_bindings() {
        let f = facts();
        let calls: Vec<(Option<u32>, Callee)> = f
            .calls
            .iter()
            .map(|c| (c.caller, c.callee.clone()))
            .collect();
        let member = |r: Receiver, n: &str| Callee::Member {
            receiver: r,
            name: n.into(),
        };
        for expected in [
            (Some(1), member(Receiver::Super, "constructor")),
            (Some(1), Callee::New("Store".into())),
            (Some(3), Callee::New("Cart".into())),
            (Some(3), member(Receiver::Name("cart".into()), "total")),
            (
                Some(3),
                member(Receiver::Path("this.gateway".into()), "charge"),
            ),
            (Some(3), member(Receiver::SelfRef, "total")),
            (Some(3), Callee::Name("helper".into())),
            (Some(3), member(Receiver::Name("api".into()), "fetchAll")),
            (Some(6), Callee::Name("check".into())),
            (Some(7), Callee::Name("validate".into())),
        ] {
            assert!(
                calls.contains(&expected),
                "missing {expected:?} in {calls:#?}"
            );
        }
        assert!(f.bindings.contains(&Binding {
            scope: Some(3),
            var: "cart".into(),
            type_name: "Cart".into()
        }));
        assert!(f.bindings.contains(&Binding {
            scope: Some(3),
            var: "gateway".into(),
            type_name: "Gateway".into()
        }));
        assert!(
            f.attr_bindings
                .contains(&(0, "gateway".into(), "Gateway".into()))
        );
        assert!(
            f.attr_bindings
                .contains(&(0, "store".into(), "Store".into()))
        );
    }

    #[test]
    fn syntax_newer_than_the_grammar_does_not_hide_later_definitions() {
        let source = r#"
export interface Nil<in out A> { readonly _tag: "Nil" }
type Hint<S extends string> = `use \`${S}\` here`
export const dual: {
  <A>(arity: number, body: A): A
  <A>(isDataFirst: (args: IArguments) => boolean, body: A): A
} = function(arity, body) { return body }
export const unsafeTail = <A>(self: Nil<A>): Nil<A> => dual(2, self)
"#;
        let f = Extractor::default().extract("src/list.ts", Lang::TypeScript, source);
        assert_eq!(f.syntax_errors, 0);
        let names: Vec<&str> = f.defs.iter().map(|d| d.qualified.as_str()).collect();
        assert_eq!(names, ["Nil", "dual", "unsafeTail"]);
        assert_eq!(f.defs[0].signature, "interface Nil<in out A>");
        assert!(
            f.calls
                .iter()
                .any(|c| c.caller == Some(2) && c.callee == Callee::Name("dual".into()))
        );
    }
}
