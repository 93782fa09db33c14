//! Swift: classes, structs, enums, actors, protocols and extensions with their members, `import`,
//! the module a file belongs to, calls with their receivers, and typed names for receivers.

use tree_sitter::Node;

use super::{
    doc_line, field, header_before_body, line, named_children, new_def, push_call, push_children,
    split_outside_brackets, strip_generics, text,
};
use crate::facts::{CallBinding, Callee, Def, FileFacts, Import, Receiver};
use crate::graph::NodeKind;

/// Where a node sits: the definition around it, and the extended type's name when it is in the
/// body of an `extension` (an index into the walk's list of extended names).
type Place = (Option<u32>, Option<usize>);

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    facts.package = Some(module_of(&facts.path));
    let mut extended: Vec<String> = Vec::new();
    let mut owners: Vec<(u32, String)> = Vec::new();
    let mut cursor = root.walk();
    let mut stack: Vec<(Node, Place)> = vec![(root, (None, None))];
    while let Some((node, (scope, extension))) = stack.pop() {
        match node.kind() {
            "import_declaration" => {
                import(node, src, facts);
                continue;
            }
            "class_declaration" if declaration_kind(node, src) == "extension" => {
                let Some(ty) = field(node, "name").map(|n| type_name(text(n, src))) else {
                    continue;
                };
                let conformances = inherited(node, src);
                if !conformances.is_empty() {
                    facts
                        .conformances
                        .push((ty.clone(), conformances, line(node)));
                }
                if let Some(body) = field(node, "body") {
                    extended.push(ty);
                    push_children(
                        &mut cursor,
                        body,
                        (scope, Some(extended.len() - 1)),
                        &mut stack,
                    );
                }
                continue;
            }
            "class_declaration" | "protocol_declaration" => {
                type_declaration(node, scope, extension, &extended, src, facts, &mut stack);
                continue;
            }
            "function_declaration"
            | "protocol_function_declaration"
            | "init_declaration"
            | "deinit_declaration"
            | "subscript_declaration" => {
                let in_type = member_context(scope, extension, facts);
                let Some(idx) = function(node, scope, in_type, src, facts) else {
                    continue;
                };
                if let Some(ty) = extension.and_then(|e| extended.get(e)) {
                    owners.push((idx, ty.clone()));
                    if let Some(def) = facts.defs.get_mut(idx as usize) {
                        def.qualified = format!("{ty}.{}", def.name);
                    }
                }
                for child in named_children(node) {
                    if matches!(
                        child.kind(),
                        "function_body" | "computed_property" | "statements"
                    ) {
                        stack.push((child, (Some(idx), None)));
                    }
                }
                continue;
            }
            "property_declaration" | "protocol_property_declaration" => {
                if member_context(scope, extension, facts) {
                    let owner = extension.and_then(|e| extended.get(e)).map(String::as_str);
                    property(node, scope, owner, &mut owners, src, facts, &mut stack);
                    continue;
                }
                local(node, scope, src, facts);
            }
            "typealias_declaration" => {
                if let (Some(name), Some(value)) = (field(node, "name"), field(node, "value")) {
                    facts.type_aliases.push((
                        text(name, src).to_owned(),
                        vec![type_name(text(value, src))],
                    ));
                }
                continue;
            }
            "if_statement" | "guard_statement" => conditional_bindings(node, scope, src, facts),
            "call_expression" => call(node, scope, src, facts),
            _ => {}
        }
        push_children(&mut cursor, node, (scope, extension), &mut stack);
    }
    facts.adopt_methods(&owners);
}

/// The module a Swift file belongs to: a Swift package's target (`Sources/<Target>/…`,
/// `Tests/<Target>/…`), else the whole project (the empty name).
fn module_of(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    parts
        .windows(3)
        .rev()
        .find(|w| matches!(w[0], "Sources" | "Tests"))
        .map_or_else(String::new, |w| w[1].to_owned())
}

/// `class`, `struct`, `enum`, `actor`, `extension` of a `class_declaration`.
fn declaration_kind<'s>(node: Node, src: &'s [u8]) -> &'s str {
    field(node, "declaration_kind").map_or("", |k| text(k, src))
}

/// Whether a declaration at this place is a member of a type (in its body or an extension's).
fn member_context(scope: Option<u32>, extension: Option<usize>, facts: &FileFacts) -> bool {
    extension.is_some()
        || scope
            .and_then(|s| facts.defs.get(s as usize))
            .is_some_and(|d| d.kind.is_type())
}

/// A type name as the resolver reads it: generic arguments, optional marks and a module
/// prefix's brackets left out (`Box<T>?` → `Box`, `[Item]` → `Item`'s array is no type of the
/// project: empty).
fn type_name(written: &str) -> String {
    let written = written
        .trim()
        .trim_start_matches("any ")
        .trim_start_matches("some ")
        .trim_end_matches(['?', '!'])
        .trim();
    if written.starts_with(['[', '(']) || written.contains("->") {
        return String::new();
    }
    strip_generics(written)
}

/// The names after `:` of a type or extension, as written.
fn inherited(node: Node, src: &[u8]) -> Vec<String> {
    named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "inheritance_specifier")
        .filter_map(|c| field(c, "inherits_from"))
        .flat_map(|t| {
            split_outside_brackets(text(t, src), '&')
                .into_iter()
                .map(type_name)
                .collect::<Vec<_>>()
        })
        .filter(|n| !n.is_empty())
        .collect()
}

/// Signature, `public`/`open`, attributes and the `///` doc line.
fn fill(def: &mut Def, node: Node, body: Option<Node>, src: &[u8]) {
    def.signature = header_before_body(node, body, src);
    let modifiers: Vec<Node> = named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "modifiers")
        .collect();
    let modifier_text: Vec<&str> = modifiers
        .iter()
        .flat_map(|m| named_children(*m))
        .map(|m| text(m, src))
        .collect();
    def.exported = !modifier_text
        .iter()
        .any(|m| matches!(*m, "private" | "fileprivate"));
    def.decorators = modifiers
        .iter()
        .flat_map(|m| named_children(*m))
        .filter(|m| m.kind() == "attribute")
        .map(|a| {
            text(a, src)
                .trim_start_matches('@')
                .split(['(', ' '])
                .next()
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    let mut doc = Vec::new();
    let mut prev = node.prev_sibling();
    while let Some(p) = prev.filter(|p| p.kind() == "comment" && text(*p, src).starts_with("///")) {
        doc.push(text(p, src));
        prev = p.prev_sibling();
    }
    if let Some(first) = doc.last() {
        def.doc = doc_line(first);
    } else if let Some(p) = node
        .prev_sibling()
        .filter(|p| p.kind() == "multiline_comment" && text(*p, src).starts_with("/**"))
    {
        def.doc = doc_line(text(p, src));
    }
}

/// A class, struct, enum, actor or protocol, its heritage, and its body pushed for the walk.
fn type_declaration<'t>(
    node: Node<'t>,
    scope: Option<u32>,
    extension: Option<usize>,
    extended: &[String],
    src: &[u8],
    facts: &mut FileFacts,
    stack: &mut Vec<(Node<'t>, Place)>,
) {
    let kind = match (node.kind(), declaration_kind(node, src)) {
        ("protocol_declaration", _) => NodeKind::Interface,
        (_, "struct") => NodeKind::Struct,
        (_, "enum") => NodeKind::Enum,
        _ => NodeKind::Class,
    };
    let Some(name) = field(node, "name").map(|n| type_name(text(n, src))) else {
        return;
    };
    if name.is_empty() {
        return;
    }
    let mut def = new_def(facts, kind, &name, scope, node);
    // A type nested in an extension's body is a member of the extended type.
    if scope.is_none()
        && let Some(ty) = extension.and_then(|e| extended.get(e))
    {
        def.qualified = format!("{ty}.{name}");
    }
    let body = field(node, "body");
    fill(&mut def, node, body, src);
    // The first name of a class's list may be its superclass; the resolver decides by what it
    // names. A protocol refines all of its list; a struct's, enum's or actor's are conformances.
    let mut bases = inherited(node, src);
    match kind {
        NodeKind::Interface => def.extends = bases,
        NodeKind::Class if declaration_kind(node, src) == "class" && !bases.is_empty() => {
            let rest = bases.split_off(1);
            def.extends = bases;
            def.implements = rest;
        }
        _ => def.implements = bases,
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    if let Some(body) = body {
        for child in named_children(body).into_iter().rev() {
            stack.push((child, (Some(idx), None)));
        }
    }
}

/// A function, method, initializer, deinitializer or subscript with its parameters' bindings.
fn function(
    node: Node,
    scope: Option<u32>,
    in_type: bool,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<u32> {
    let name = match node.kind() {
        "init_declaration" => "init".to_owned(),
        "deinit_declaration" => "deinit".to_owned(),
        "subscript_declaration" => "subscript".to_owned(),
        _ => text(field(node, "name")?, src).to_owned(),
    };
    let kind = if in_type {
        NodeKind::Method
    } else {
        NodeKind::Function
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    let body = field(node, "body").or_else(|| {
        named_children(node)
            .into_iter()
            .find(|c| c.kind() == "computed_property")
    });
    fill(&mut def, node, body, src);
    if let Some(ty) = field(node, "return_type") {
        def.returns = returned(text(ty, src));
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    for param in named_children(node)
        .into_iter()
        .filter(|p| p.kind() == "parameter")
    {
        if let (Some(name), Some(ty)) = (field(param, "name"), field(param, "type")) {
            bind(facts, Some(idx), text(name, src), text(ty, src));
        }
    }
    Some(idx)
}

/// The type a function's result is for calls on it: `Self`, a named type, optional or not.
fn returned(written: &str) -> String {
    type_name(written)
}

/// A property of a type (stored or computed): a member whose type, when written, types chains
/// through it (`self.store.save()`); its accessors and initial value run in it.
fn property<'t>(
    node: Node<'t>,
    scope: Option<u32>,
    owner: Option<&str>,
    owners: &mut Vec<(u32, String)>,
    src: &[u8],
    facts: &mut FileFacts,
    stack: &mut Vec<(Node<'t>, Place)>,
) {
    let Some(name) = property_name(node, src) else {
        return;
    };
    let mut def = new_def(facts, NodeKind::Method, &name, scope, node);
    let body = field(node, "computed_value");
    fill(&mut def, node, body, src);
    let annotated = annotation(node, src);
    let value = field(node, "value");
    def.returns = annotated
        .clone()
        .or_else(|| value.and_then(|v| constructed(v, src)))
        .unwrap_or_default();
    let idx = facts.defs.len() as u32;
    if let Some(ty) = owner {
        owners.push((idx, ty.to_owned()));
        def.qualified = format!("{ty}.{name}");
    }
    if let (Some(class), false) = (scope, def.returns.is_empty()) {
        facts
            .attr_bindings
            .push((class, name.clone(), def.returns.clone()));
    }
    facts.defs.push(def);
    if let (Some(ty), Some(value)) = (annotated.as_deref(), value) {
        implicit_member(value, ty, Some(idx), src, facts);
    }
    for child in named_children(node) {
        if matches!(
            child.kind(),
            "computed_property" | "willset_didset_block" | "protocol_property_requirements"
        ) || Some(child) == value
        {
            stack.push((child, (Some(idx), None)));
        }
    }
}

/// The name a `let`/`var` declares (its first pattern's name).
fn property_name(node: Node, src: &[u8]) -> Option<String> {
    let pattern = field(node, "name")?;
    let name = field(pattern, "bound_identifier").unwrap_or(pattern);
    let name = text(name, src).trim_matches('`');
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| name.to_owned())
}

/// The type a declaration writes after `:`.
fn annotation(node: Node, src: &[u8]) -> Option<String> {
    let ty = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "type_annotation")?;
    let ty = field(ty, "type").unwrap_or(ty);
    let name = type_name(text(ty, src).trim_start_matches(':'));
    (!name.is_empty()).then_some(name)
}

/// `Type(…)`, `Type.init(…)`: the type a value constructs, when the callee is a capitalised
/// name (the Swift convention for types); `x as T`, `x as! T`: `T`.
fn constructed(value: Node, src: &[u8]) -> Option<String> {
    match value.kind() {
        "call_expression" => match callee_of(value, src)? {
            Callee::New(ty) => Some(ty),
            Callee::Name(name) if name.starts_with(char::is_uppercase) => Some(name),
            _ => None,
        },
        "as_expression" => {
            let ty = field(value, "type")?;
            let name = type_name(text(ty, src));
            (!name.is_empty()).then_some(name)
        }
        "try_expression" | "await_expression" => {
            constructed(named_children(value).into_iter().last()?, src)
        }
        _ => None,
    }
}

/// `let x: T = .init(…)` / `.make(…)`: an implicit member of the declared type is called.
fn implicit_member(value: Node, ty: &str, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    if value.kind() != "call_expression" {
        return;
    }
    let Some(callee) = named_children(value).into_iter().next() else {
        return;
    };
    let Some(name) = implicit_name(callee, src) else {
        return;
    };
    let call = if name == "init" {
        Callee::New(ty.to_owned())
    } else {
        Callee::Member {
            receiver: Receiver::Name(ty.to_owned()),
            name,
        }
    };
    push_call(facts, scope, call, value);
}

/// `.name` written without a type before the dot.
fn implicit_name(node: Node, src: &[u8]) -> Option<String> {
    if node.kind() != "prefix_expression" || !text(node, src).starts_with('.') {
        return None;
    }
    let target = field(node, "target")?;
    (target.kind() == "simple_identifier").then(|| text(target, src).to_owned())
}

/// A local `let`/`var` (in a function or at the top level): typed by its annotation, by the
/// type it constructs, or holding what a call returns.
fn local(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(name) = property_name(node, src) else {
        return;
    };
    let value = field(node, "value");
    if let Some(ty) = annotation(node, src) {
        if let Some(value) = value {
            implicit_member(value, &ty, scope, src, facts);
        }
        bind(facts, scope, &name, &ty);
        return;
    }
    let Some(value) = value else {
        return;
    };
    value_binding(value, scope, &name, src, facts);
}

/// `name` holds `value`: a constructed or cast type, or a call's result.
fn value_binding(value: Node, scope: Option<u32>, name: &str, src: &[u8], facts: &mut FileFacts) {
    let value = unwrapped(value);
    if let Some(ty) = constructed(value, src) {
        bind(facts, scope, name, &ty);
    } else if value.kind() == "call_expression"
        && let Some(callee) = callee_of(value, src)
    {
        facts.call_bindings.push(CallBinding {
            scope,
            var: name.to_owned(),
            callee,
        });
    }
}

/// The expression inside `try`, `await` and `x!`.
fn unwrapped(node: Node) -> Node {
    let mut node = node;
    loop {
        let inner = match node.kind() {
            "try_expression" | "await_expression" => named_children(node).into_iter().last(),
            "postfix_expression" => field(node, "target"),
            _ => None,
        };
        match inner {
            Some(inner) => node = inner,
            None => return node,
        }
    }
}

/// `if let x = f()`, `guard let x = y as? T else …`: the names bound by the conditions.
fn conditional_bindings(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let mut cursor = node.walk();
    let children: Vec<(Option<&str>, Node)> = node
        .children(&mut cursor)
        .enumerate()
        .map(|(i, c)| (node.field_name_for_child(i as u32), c))
        .collect();
    for (i, (field_name, child)) in children.iter().enumerate() {
        if *field_name != Some("bound_identifier") {
            continue;
        }
        // The value is the next condition after `=`.
        let value = children[i + 1..]
            .iter()
            .skip_while(|(_, c)| c.kind() == "=")
            .find(|(_, c)| c.is_named())
            .map(|(_, c)| *c);
        if let Some(value) = value {
            value_binding(value, scope, text(*child, src), src, facts);
        }
    }
}

fn bind(facts: &mut FileFacts, scope: Option<u32>, var: &str, written: &str) {
    facts.bind_type(scope, var, type_name(written));
}

/// `import Module`, `import struct Module.Type`, `@testable import Module`: every file of the
/// module is seen (a wildcard import of the module's name).
fn import(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(path) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "identifier")
    else {
        return;
    };
    let written: String = text(path, src).split_whitespace().collect();
    let module = written.split('.').next().unwrap_or("").to_owned();
    if module.is_empty() {
        return;
    }
    facts.imports.push(Import {
        module,
        names: Vec::new(),
        module_alias: None,
        wildcard: true,
        reexport: false,
        line: line(node),
    });
}

/// The callee expression of a call and what it names: `f(…)`, `x.f(…)`, `x?.f(…)`,
/// `x!.f(…)`, `T.init(…)`, `self.init(…)`, `super.init(…)`.
fn callee_of(node: Node, src: &[u8]) -> Option<Callee> {
    if is_subscript(node, src) {
        return None;
    }
    let function = named_children(node).into_iter().next()?;
    match function.kind() {
        "simple_identifier" => Some(Callee::Name(text(function, src).to_owned())),
        "navigation_expression" => {
            let name = member_name(function, src)?;
            let target = field(function, "target")?;
            let receiver = receiver(target, src);
            if name == "init" {
                return match receiver {
                    Receiver::Name(ty) => Some(Callee::New(ty)),
                    Receiver::SelfRef | Receiver::Super => Some(Callee::Member { receiver, name }),
                    _ => None,
                };
            }
            Some(Callee::Member { receiver, name })
        }
        "constructor_expression" => {
            let ty = field(function, "constructed_type")?;
            let name = type_name(text(ty, src));
            (!name.is_empty()).then_some(Callee::New(name))
        }
        _ => None,
    }
}

/// `a[i]`: the grammar writes a subscript as a call whose arguments are in brackets.
fn is_subscript(node: Node, src: &[u8]) -> bool {
    named_children(node)
        .into_iter()
        .find(|c| c.kind() == "call_suffix")
        .and_then(|suffix| {
            named_children(suffix)
                .into_iter()
                .find(|c| c.kind() == "value_arguments")
        })
        .is_some_and(|args| text(args, src).starts_with('['))
}

/// The member a navigation names (`f` of `x.f`).
fn member_name(node: Node, src: &[u8]) -> Option<String> {
    let suffix = field(node, "suffix")?;
    let name = field(suffix, "suffix")?;
    (name.kind() == "simple_identifier").then(|| text(name, src).trim_matches('`').to_owned())
}

fn receiver(node: Node, src: &[u8]) -> Receiver {
    let node = unwrapped(node);
    match node.kind() {
        "self_expression" => Receiver::SelfRef,
        "super_expression" => Receiver::Super,
        "simple_identifier" => Receiver::Name(text(node, src).to_owned()),
        "navigation_expression" => match dotted(node, src) {
            Some(path) => Receiver::Path(path),
            None => Receiver::Other,
        },
        "call_expression" => chain(node, src).map_or(Receiver::Other, Receiver::Call),
        _ => Receiver::Other,
    }
}

/// `a.b.c` (also `self.a.b`, optional marks and `!` left out) as a dotted chain of names.
fn dotted(node: Node, src: &[u8]) -> Option<String> {
    let node = unwrapped(node);
    match node.kind() {
        "simple_identifier" => Some(text(node, src).to_owned()),
        "self_expression" => Some("self".to_owned()),
        "navigation_expression" => {
            let name = member_name(node, src)?;
            let head = dotted(field(node, "target")?, src)?;
            Some(format!("{head}.{name}"))
        }
        _ => None,
    }
}

/// A call whose result is a receiver, as a dotted chain with the calls' arguments left out:
/// `Foo(…)` → `Foo`, `a.b(…)` → `a.b`, `Foo().b(…)` → `Foo().b`.
fn chain(node: Node, src: &[u8]) -> Option<String> {
    if is_subscript(node, src) {
        return None;
    }
    let function = named_children(node).into_iter().next()?;
    match function.kind() {
        "simple_identifier" => Some(text(function, src).to_owned()),
        "navigation_expression" => {
            let name = member_name(function, src)?;
            let target = unwrapped(field(function, "target")?);
            if target.kind() == "call_expression" {
                return Some(format!("{}().{name}", chain(target, src)?));
            }
            if name == "init" {
                return dotted(target, src);
            }
            Some(format!("{}.{name}", dotted(target, src)?))
        }
        _ => None,
    }
}

fn call(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(callee) = callee_of(node, src) else {
        return;
    };
    push_call(facts, scope, callee, node);
}

#[cfg(test)]
mod tests;
