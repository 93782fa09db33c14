//! Dart: classes, mixins, extensions, extension types, enums, typedefs, functions and members,
//! imports, exports and parts, calls with their receivers (cascades included), typed names.

use tree_sitter::Node;

use super::{
    ReceiverSyntax, doc_line, field, header_before_body, line, named_children, new_def, push_call,
    push_children, strip_generics, text,
};
use crate::facts::{CallBinding, Callee, Def, FileFacts, Import, ImportedName, Receiver};
use crate::graph::NodeKind;

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut cursor = root.walk();
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root, None)];
    while let Some((node, scope)) = stack.pop() {
        match node.kind() {
            "import_specification" => {
                import(node, false, src, facts);
                continue;
            }
            "library_export" => {
                import(node, true, src, facts);
                continue;
            }
            "part_directive" | "part_of_directive" => {
                part(node, src, facts);
                continue;
            }
            "library_name" => {
                library_name(node, src, facts);
                continue;
            }
            "class_declaration"
            | "mixin_declaration"
            | "extension_declaration"
            | "extension_type_declaration"
            | "enum_declaration" => {
                let Some(idx) = type_declaration(node, scope, src, facts) else {
                    continue;
                };
                for child in named_children(node).into_iter().rev() {
                    match child.kind() {
                        "class_body" | "extension_body" | "enum_body" => {
                            push_children(&mut cursor, child, Some(idx), &mut stack)
                        }
                        "primary_constructor" => parameters(child, Some(idx), src, facts),
                        _ => {}
                    }
                }
                continue;
            }
            "type_alias" => {
                type_alias(node, scope, src, facts);
                continue;
            }
            "function_declaration"
            | "getter_declaration"
            | "setter_declaration"
            | "external_function_declaration"
            | "external_getter_declaration"
            | "external_setter_declaration"
            | "method_declaration" => {
                let Some(signature) = field(node, "signature") else {
                    continue;
                };
                let body = field(node, "body");
                let Some(idx) = member(node, signature, body, scope, src, facts) else {
                    continue;
                };
                for child in named_children(signature).into_iter().rev() {
                    if child.kind() == "initializers" {
                        stack.push((child, Some(idx)));
                    }
                }
                if let Some(body) = body {
                    stack.push((body, Some(idx)));
                }
                continue;
            }
            "local_function_declaration" => {
                let children = named_children(node);
                let signature = children.iter().find(|c| c.kind() == "function_signature");
                let body = children.iter().find(|c| c.kind() == "function_body");
                if let Some(&signature) = signature
                    && let Some(idx) = member(node, signature, body.copied(), scope, src, facts)
                {
                    if let Some(&body) = body {
                        stack.push((body, Some(idx)));
                    }
                    continue;
                }
            }
            // A member without a body: a field, an abstract method, a constructor that
            // redirects or only initialises.
            "declaration" => {
                if let Some(idx) = declaration(node, scope, src, facts) {
                    push_children(&mut cursor, node, Some(idx), &mut stack);
                    continue;
                }
            }
            "top_level_variable_declaration" => variables(node, scope, src, facts),
            "local_variable_declaration" => {
                if let Some(decl) = named_children(node)
                    .into_iter()
                    .find(|c| c.kind() == "initialized_variable_declaration")
                {
                    variables(decl, scope, src, facts);
                }
            }
            "call_expression" => call(node, scope, src, facts),
            "new_expression" | "const_object_expression" | "constructor_invocation" => {
                construction(node, scope, src, facts)
            }
            "cascade" => cascade(node, scope, src, facts),
            "initializer_list_entry" => initializer(node, scope, src, facts),
            "redirection" => redirection(node, scope, src, facts),
            _ => {}
        }
        push_children(&mut cursor, node, scope, &mut stack);
    }
}

/// A type name as the resolver reads it: generics and nullability left out (`List<Foo>?` →
/// `List`, `p.Foo` → `p.Foo`); empty for a function or record type, `void` and `dynamic`.
fn type_name(written: &str) -> String {
    let written: String = written.split_whitespace().collect();
    if written.contains("Function(") || written.starts_with('(') {
        return String::new();
    }
    let name = strip_generics(written.trim_end_matches('?'));
    let name = name.trim_end_matches('?');
    if matches!(
        name,
        "" | "void" | "dynamic" | "var" | "final" | "Object" | "Function"
    ) {
        return String::new();
    }
    name.to_owned()
}

/// The `type` child of a node, as the resolver reads it.
fn declared_type(node: Node, src: &[u8]) -> Option<String> {
    named_children(node)
        .into_iter()
        .find(|c| c.kind() == "type")
        .map(|t| type_name(text(t, src)))
        .filter(|t| !t.is_empty())
}

/// The string a `uri` (or `configurable_uri`) holds, without its quotes.
fn uri_text(node: Node, src: &[u8]) -> Option<String> {
    let uri = if node.kind() == "configurable_uri" {
        named_children(node)
            .into_iter()
            .find(|c| c.kind() == "uri")?
    } else {
        node
    };
    let raw = text(uri, src).trim();
    let inner = raw.trim_matches(|c| c == '\'' || c == '"');
    (!inner.is_empty() && !inner.contains('$')).then(|| inner.to_owned())
}

/// `import 'u.dart' [as p] [show A, B] [hide C];` and `export 'u.dart' [show A];`. An import
/// without `show` sees every public name of the library (`hide` is not subtracted); with `as`,
/// the names are reached through the prefix only.
fn import(node: Node, reexport: bool, src: &[u8], facts: &mut FileFacts) {
    let Some(module) = field(node, "uri").and_then(|u| uri_text(u, src)) else {
        return;
    };
    let alias = field(node, "alias").map(|a| text(a, src).to_owned());
    let mut names = Vec::new();
    for combinator in named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "combinator")
    {
        if text(combinator, src).trim_start().starts_with("show") {
            names.extend(
                named_children(combinator)
                    .into_iter()
                    .filter(|n| n.kind() == "identifier")
                    .map(|n| ImportedName {
                        name: text(n, src).to_owned(),
                        alias: None,
                    }),
            );
        }
    }
    let wildcard = alias.is_none() && names.is_empty();
    // Names shown through a prefix are still reached through it.
    if alias.is_some() {
        names.clear();
    }
    facts.imports.push(Import {
        module,
        names,
        module_alias: alias,
        wildcard,
        reexport,
        line: line(node),
    });
}

/// `library a.b;`: the library's name, which its parts may name it by (the file's package).
fn library_name(node: Node, src: &[u8], facts: &mut FileFacts) {
    if let Some(name) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "dotted_identifier_list")
    {
        facts.package = Some(text(name, src).split_whitespace().collect());
    }
}

/// `part 'p.dart';` makes the part's names the library's (and its importers'); `part of
/// 'lib.dart';` gives the part the library's names. `part of a.b;` names the library by its
/// name: the part is in that package, with the library and its other parts.
fn part(node: Node, src: &[u8], facts: &mut FileFacts) {
    if let Some(name) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "dotted_identifier_list")
    {
        facts.package = Some(text(name, src).split_whitespace().collect());
        return;
    }
    let Some(module) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "uri")
        .and_then(|u| uri_text(u, src))
    else {
        return;
    };
    facts.imports.push(Import {
        module,
        names: Vec::new(),
        module_alias: None,
        wildcard: true,
        reexport: node.kind() == "part_directive",
        line: line(node),
    });
}

/// Annotations (`@override`, `@Deprecated('x')`) as names without arguments.
fn annotations(node: Node, src: &[u8]) -> Vec<String> {
    named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "annotation")
        .map(|a| strip_generics(text(a, src).trim_start_matches('@')))
        .collect()
}

/// The first line of the doc comment (`///` lines or `/** */`) just before a declaration.
fn doc(node: Node, src: &[u8]) -> String {
    let mut first = None;
    let mut at = node.prev_named_sibling();
    while let Some(p) = at {
        let written = text(p, src);
        let is_doc = matches!(p.kind(), "documentation_comment" | "comment")
            && (written.starts_with("///") || written.starts_with("/**"));
        if !is_doc {
            break;
        }
        first = Some(p);
        if written.starts_with("/**") {
            break;
        }
        at = p.prev_named_sibling();
    }
    first.map_or_else(String::new, |p| doc_line(text(p, src)))
}

/// Signature, visibility (a name starting with `_` is private to its library), annotations
/// and the doc line.
fn fill(def: &mut Def, node: Node, body: Option<Node>, src: &[u8]) {
    def.signature = header_before_body(node, body, src);
    def.exported = !def.name.starts_with('_');
    def.decorators = annotations(node, src);
    def.doc = doc(node, src);
}

/// A class, mixin, extension, extension type or enum with its bases. A superclass and the
/// mixins applied (`with`, latest first: their members win) are extended, interfaces
/// implemented; a mixin's `on` types are extended (its `this` has their members); an
/// extension's type stays in its signature (`extension E on T`).
fn type_declaration(
    node: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<u32> {
    let application = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "mixin_application_class");
    let name_node = match (node.kind(), application) {
        ("extension_type_declaration", _) => field(node, "name").and_then(|n| {
            named_children(n)
                .into_iter()
                .find(|c| c.kind() == "identifier")
        }),
        (_, Some(app)) => named_children(app)
            .into_iter()
            .find(|c| c.kind() == "identifier"),
        _ => field(node, "name"),
    };
    let name = match (name_node, node.kind()) {
        (Some(n), _) => text(n, src).to_owned(),
        // An unnamed extension: named by what it extends.
        (None, "extension_declaration") => {
            format!("on {}", field(node, "class").map_or("", |c| text(c, src)))
        }
        (None, _) => return None,
    };
    let kind = match node.kind() {
        "mixin_declaration" => NodeKind::Trait,
        "enum_declaration" => NodeKind::Enum,
        _ => NodeKind::Class,
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    let body = field(node, "body");
    fill(&mut def, node, body, src);
    let types_in = |list: Node| -> Vec<String> {
        named_children(list)
            .into_iter()
            .filter(|c| c.kind() == "type")
            .map(|t| type_name(text(t, src)))
            .filter(|t| !t.is_empty())
            .collect()
    };
    let heritage_of = application
        .and_then(|app| {
            named_children(app)
                .into_iter()
                .find(|c| c.kind() == "mixin_application")
        })
        .unwrap_or(node);
    let mut superclass = Vec::new();
    let mut mixins = Vec::new();
    for child in named_children(heritage_of) {
        match child.kind() {
            "superclass" => {
                superclass.extend(field(child, "type").map(|t| type_name(text(t, src))));
                for m in named_children(child)
                    .into_iter()
                    .filter(|c| c.kind() == "mixins")
                {
                    mixins.extend(types_in(m));
                }
            }
            // `class Q = Base with M;`: the first type is the superclass.
            "type" if heritage_of != node => superclass.push(type_name(text(child, src))),
            // A mixin's `on` types.
            "type" if node.kind() == "mixin_declaration" => {
                superclass.push(type_name(text(child, src)))
            }
            "mixins" => mixins.extend(types_in(child)),
            "interfaces" => def.implements.extend(types_in(child)),
            _ => {}
        }
    }
    def.extends.extend(mixins.into_iter().rev());
    def.extends
        .extend(superclass.into_iter().filter(|t| !t.is_empty()));
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    // An extension type's representation field (`extension type Id(Foo v)`).
    if let Some(repr) = field(node, "representation")
        && let (Some(var), Some(ty)) = (
            field(repr, "name"),
            field(repr, "type").map(|t| type_name(text(t, src))),
        )
        && !ty.is_empty()
    {
        facts
            .attr_bindings
            .push((idx, text(var, src).to_owned(), ty));
    }
    Some(idx)
}

/// `typedef A = B<C>;` (members of `A` are `B`'s) and `typedef void F(int x);`.
fn type_alias(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let children = named_children(node);
    let Some(name) = children.iter().find(|c| c.kind() == "type_identifier") else {
        return;
    };
    let mut def = new_def(facts, NodeKind::Class, text(*name, src), scope, node);
    fill(&mut def, node, None, src);
    let aliased = {
        let mut cursor = node.walk();
        node.children(&mut cursor)
            .skip_while(|c| c.kind() != "=")
            .find(|c| c.kind() == "type")
    };
    if let Some(target) = aliased.map(|t| type_name(text(t, src)))
        && !target.is_empty()
    {
        def.extends.push(target);
    }
    facts.defs.push(def);
}

/// The name of a constructor signature: `Foo` for the unnamed one, `named` for `Foo.named`.
fn constructor_name(signature: Node, class: Option<&str>, src: &[u8]) -> String {
    let names: Vec<Node> = {
        let mut cursor = signature.walk();
        signature
            .children_by_field_name("name", &mut cursor)
            .filter(|n| n.kind() == "identifier")
            .collect()
    };
    match names.as_slice() {
        [_, named, ..] => text(*named, src).to_owned(),
        [single] => text(*single, src).to_owned(),
        [] => class.unwrap_or("new").to_owned(),
    }
}

/// A function, method, getter, setter, operator or constructor with its parameters' types.
/// `node` is the whole declaration, `signature` its signature (a `method_signature` holds the
/// real one).
fn member(
    node: Node,
    signature: Node,
    body: Option<Node>,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<u32> {
    let signature = if signature.kind() == "method_signature" {
        named_children(signature)
            .into_iter()
            .find(|c| c.kind() != "initializers")?
    } else {
        signature
    };
    let owner = scope
        .and_then(|s| facts.defs.get(s as usize))
        .filter(|d| d.kind.is_type())
        .map(|d| d.name.clone());
    let (name, constructor) = match signature.kind() {
        "constructor_signature"
        | "constant_constructor_signature"
        | "factory_constructor_signature"
        | "redirecting_factory_constructor_signature" => {
            (constructor_name(signature, owner.as_deref(), src), true)
        }
        "operator_signature" => (
            format!(
                "operator {}",
                field(signature, "operator").map_or("", |o| text(o, src))
            ),
            false,
        ),
        "primary_constructor_body_signature" => (owner.clone()?, true),
        _ => (text(field(signature, "name")?, src).to_owned(), false),
    };
    let kind = if owner.is_some() {
        NodeKind::Method
    } else {
        NodeKind::Function
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    fill(&mut def, node, body, src);
    def.returns = if constructor {
        owner.clone().unwrap_or_default()
    } else if signature.kind() == "setter_signature" {
        String::new()
    } else {
        field(signature, "return_type")
            .map(|t| returned_type(text(t, src)))
            .unwrap_or_default()
    };
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    if let Some(params) = field(signature, "parameters") {
        parameters(params, Some(idx), src, facts);
    }
    // `factory F() = G;` and `factory F() = G.named;` build `G`.
    if signature.kind() == "redirecting_factory_constructor_signature"
        && let Some(target) = field(signature, "target").map(|t| type_name(text(t, src)))
        && !target.is_empty()
    {
        let callee = match field(signature, "target_constructor") {
            Some(c) => Callee::Member {
                receiver: Receiver::Name(target),
                name: text(c, src).to_owned(),
            },
            None => Callee::New(target),
        };
        push_call(facts, Some(idx), callee, signature);
    }
    Some(idx)
}

/// What a function returns, as a type: `Future<Foo>` and `Stream<Foo>` hold a `Foo`.
fn returned_type(written: &str) -> String {
    let written: String = written.split_whitespace().collect();
    for wrapper in ["Future<", "FutureOr<", "Stream<"] {
        if let Some(inner) = written
            .strip_prefix(wrapper)
            .and_then(|r| r.strip_suffix('>').or_else(|| r.strip_suffix(">?")))
        {
            return type_name(inner);
        }
    }
    type_name(&written)
}

/// A member without a body: constructors (their redirections and initialisers walked in the
/// returned scope), abstract methods, getters and setters; fields are recorded on their class.
fn declaration(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) -> Option<u32> {
    let children = named_children(node);
    let signature = children.iter().copied().find(|c| {
        matches!(
            c.kind(),
            "constructor_signature"
                | "constant_constructor_signature"
                | "factory_constructor_signature"
                | "redirecting_factory_constructor_signature"
                | "function_signature"
                | "getter_signature"
                | "setter_signature"
                | "operator_signature"
                | "primary_constructor_body_signature"
        )
    });
    // Doc comments and annotations sit beside the `declaration`, on its `member_declaration`.
    let outer = node.parent().unwrap_or(node);
    match signature {
        Some(signature) => member(outer, signature, None, scope, src, facts),
        None => {
            fields(node, scope, src, facts);
            None
        }
    }
}

/// A class's fields: each one's declared type (or the type its value builds) recorded on the
/// class.
fn fields(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(class) =
        scope.filter(|&s| facts.defs.get(s as usize).is_some_and(|d| d.kind.is_type()))
    else {
        return;
    };
    let declared = declared_type(node, src);
    for list in named_children(node) {
        for item in named_children(list) {
            let (name, value) = match item.kind() {
                "initialized_identifier" | "static_final_declaration" => {
                    (field(item, "name"), field(item, "value"))
                }
                "identifier" => (Some(item), None),
                _ => continue,
            };
            let Some(name) = name else { continue };
            let ty = declared
                .clone()
                .or_else(|| value.and_then(|v| constructed_type(v, src)));
            if let Some(ty) = ty {
                facts
                    .attr_bindings
                    .push((class, text(name, src).to_owned(), ty));
            }
        }
    }
}

/// Variables (top-level or local): each bound to its declared type, the type its value
/// builds, or what the call it is assigned returns.
fn variables(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let declared = declared_type(node, src);
    let mut items: Vec<(Node, Option<Node>)> = Vec::new();
    if let Some(name) = field(node, "name") {
        items.push((name, field(node, "value")));
    }
    for child in named_children(node) {
        match child.kind() {
            "initialized_identifier" => {
                items.extend(field(child, "name").map(|n| (n, field(child, "value"))));
            }
            "static_final_declaration_list" | "initialized_identifier_list" => {
                for item in named_children(child) {
                    items.extend(field(item, "name").map(|n| (n, field(item, "value"))));
                }
            }
            _ => {}
        }
    }
    for (name, value) in items {
        let var = text(name, src);
        if let Some(ty) = declared
            .clone()
            .or_else(|| value.and_then(|v| constructed_type(v, src)))
        {
            bind(facts, scope, var, ty);
        } else if let Some(value) = value.map(unwrapped)
            && value.kind() == "call_expression"
            && let Some(callee) = callee_of(value, src)
        {
            facts.call_bindings.push(CallBinding {
                scope,
                var: var.to_owned(),
                callee,
            });
        }
    }
}

/// An expression without the `await` or parentheses around it.
fn unwrapped(node: Node) -> Node {
    let mut current = node;
    loop {
        let inner = named_children(current).into_iter().last();
        let awaited = current.kind() == "unary_expression"
            && inner.is_some_and(|i| i.kind() == "await_expression");
        if !(awaited
            || matches!(
                current.kind(),
                "await_expression" | "parenthesized_expression"
            ))
        {
            return current;
        }
        match inner {
            Some(inner) => current = inner,
            None => return current,
        }
    }
}

/// The type a value is built as: `Foo(…)` or `Foo.named(…)` with a capitalised name, `new
/// Foo()`, `const Foo()`, `x as Foo`.
fn constructed_type(value: Node, src: &[u8]) -> Option<String> {
    let value = unwrapped(value);
    let capitalised = |name: &str| {
        name.rsplit('.')
            .next()
            .is_some_and(|last| last.starts_with(|c: char| c.is_ascii_uppercase()))
    };
    match value.kind() {
        "call_expression" => {
            let function = field(value, "function")?;
            let function = if function.kind() == "instantiation_expression" {
                field(function, "function")?
            } else {
                function
            };
            match function.kind() {
                "identifier" => {
                    let name = text(function, src);
                    capitalised(name).then(|| name.to_owned())
                }
                // `Foo.named(…)`, `p.Foo(…)`.
                "member_expression" => {
                    let object = field(function, "object")?;
                    let property = text(field(function, "property")?, src);
                    if object.kind() != "identifier" {
                        return None;
                    }
                    let object = text(object, src);
                    if capitalised(property) {
                        Some(format!("{object}.{property}"))
                    } else {
                        capitalised(object).then(|| object.to_owned())
                    }
                }
                _ => None,
            }
        }
        "new_expression" | "const_object_expression" | "constructor_invocation" => {
            field(value, "type").map(|t| type_name(text(t, src)))
        }
        "type_cast_expression" => named_children(value)
            .into_iter()
            .find(|c| c.kind() == "type_cast")
            .and_then(|c| declared_type(c, src)),
        _ => None,
    }
    .filter(|t| !t.is_empty())
}

/// Parameters with a declared type, bound in `scope` (`Foo x`, `required Foo x`, `final Foo
/// x`); `this.x` and `super.x` take the field's type, which the class records.
fn parameters(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "formal_parameter" => {
                if let (Some(name), Some(ty)) = (field(n, "name"), declared_type(n, src))
                    && named_children(n)
                        .iter()
                        .all(|c| c.kind() != "formal_parameter_list")
                {
                    bind(facts, scope, text(name, src), ty);
                }
            }
            "formal_parameter_list" | "optional_formal_parameters" | "primary_constructor" => {
                stack.extend(named_children(n));
            }
            _ => {}
        }
    }
}

fn bind(facts: &mut FileFacts, scope: Option<u32>, var: &str, type_name: String) {
    facts.bind_type(scope, var, type_name);
}

/// Dart's receivers: `this`, `super`, plain names and dotted chains (`a.b`, `a?.b`).
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &["this"],
    self_names: &[],
    super_kinds: &["super"],
    members: &[
        ("member_expression", "object", "property"),
        ("null_aware_member_expression", "object", "property"),
    ],
    leaves: &["identifier", "this"],
};

/// Written text of a dotted chain with `?.` read as `.`.
fn dotted_text(node: Node, src: &[u8]) -> String {
    text(node, src)
        .split_whitespace()
        .collect::<String>()
        .replace("?.", ".")
}

fn receiver(object: Node, src: &[u8]) -> Receiver {
    match object.kind() {
        // `x!.f()`: as `x.f()`.
        "null_assertion_expression" => {
            field(object, "value").map_or(Receiver::Other, |v| receiver(v, src))
        }
        "parenthesized_expression" => named_children(object)
            .into_iter()
            .next()
            .map_or(Receiver::Other, |inner| receiver(inner, src)),
        "type_cast_expression" => named_children(object)
            .into_iter()
            .find(|c| c.kind() == "type_cast")
            .and_then(|c| declared_type(c, src))
            .map_or(Receiver::Other, Receiver::Call),
        "call_expression" => chain(object, src).map_or(Receiver::Other, Receiver::Call),
        "new_expression" | "const_object_expression" => field(object, "type")
            .map(|t| type_name(text(t, src)))
            .filter(|t| !t.is_empty())
            .map_or(Receiver::Other, Receiver::Call),
        "member_expression" | "null_aware_member_expression" if RECEIVERS.is_dotted(object) => {
            Receiver::Path(dotted_text(object, src))
        }
        _ => RECEIVERS.receiver(object, src),
    }
}

/// What a call's function is, its `<T>` arguments left out.
fn function_of(node: Node) -> Option<Node> {
    let function = field(node, "function")?;
    if function.kind() == "instantiation_expression" {
        field(function, "function")
    } else {
        Some(function)
    }
}

/// A call whose result is a receiver, as a dotted chain with arguments left out: `f(…)` → `f`,
/// `a.b(…)` → `a.b`, `A().b(…)` → `A().b`; `None` when a part is none of those.
fn chain(node: Node, src: &[u8]) -> Option<String> {
    let function = function_of(node)?;
    match function.kind() {
        "identifier" => Some(text(function, src).to_owned()),
        "member_expression" | "null_aware_member_expression" => {
            let object = field(function, "object")?;
            let name = text(field(function, "property")?, src);
            match object.kind() {
                "call_expression" => Some(format!("{}().{name}", chain(object, src)?)),
                _ if RECEIVERS.is_dotted(object) => {
                    Some(format!("{}.{name}", dotted_text(object, src)))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// What a call calls: `f(…)`, `x.f(…)`, `x?.f(…)`, `x!.f(…)`, `f<T>(…)`, `Foo(…)` and
/// `Foo.named(…)` (constructions when `Foo` is a class; the resolver decides).
fn callee_of(node: Node, src: &[u8]) -> Option<Callee> {
    let function = function_of(node)?;
    match function.kind() {
        "identifier" => Some(Callee::Name(text(function, src).to_owned())),
        "member_expression" | "null_aware_member_expression" => Some(Callee::Member {
            receiver: receiver(field(function, "object")?, src),
            name: text(field(function, "property")?, src).to_owned(),
        }),
        _ => None,
    }
}

fn call(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    if let Some(callee) = callee_of(node, src) {
        push_call(facts, scope, callee, node);
    }
}

/// `new Foo()`, `const Foo()`, `Foo<int>.named()`, `new Foo.named()`: the class, or its named
/// constructor.
fn construction(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(ty) = field(node, "type")
        .map(|t| type_name(text(t, src)))
        .filter(|t| !t.is_empty())
    else {
        return;
    };
    let callee = match field(node, "constructor").map(|c| text(c, src)) {
        Some(name) if name != "new" => Callee::Member {
            receiver: Receiver::Name(ty),
            name: name.to_owned(),
        },
        _ => Callee::New(ty),
    };
    push_call(facts, scope, callee, node);
}

/// `x..f()..g()`: each section's call is made on `x` (sections chained further, `..f().g()`,
/// keep only their first call's receiver).
fn cascade(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(target) = named_children(node).into_iter().next() else {
        return;
    };
    let on = receiver(target, src);
    for section in named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "cascade_section")
    {
        for part in named_children(section) {
            if part.kind() == "cascade_call_expression"
                && let Some(name) = field(part, "property")
            {
                push_call(
                    facts,
                    scope,
                    Callee::Member {
                        receiver: on.clone(),
                        name: text(name, src).to_owned(),
                    },
                    part,
                );
            }
        }
    }
}

/// The class a constructor belongs to, and its superclass.
fn constructor_class(scope: Option<u32>, facts: &FileFacts) -> Option<(String, Option<String>)> {
    let ctor = facts.defs.get(scope? as usize)?;
    let class = facts.defs.get(ctor.parent? as usize)?;
    Some((
        class.name.clone(),
        class
            .extends
            .last()
            .cloned()
            .filter(|_| class.kind == NodeKind::Class),
    ))
}

/// `: super(…)`, `: super.named(…)`, `: this.named(…)` in a constructor's initialisers.
fn initializer(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let written = text(node, src).trim_start();
    let Some(args) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "arguments")
    else {
        return;
    };
    let head: String = written[..args.start_byte().saturating_sub(node.start_byte())]
        .split_whitespace()
        .collect();
    let callee = match head.split_once('.') {
        Some(("super", name)) if name != "new" => Callee::Member {
            receiver: Receiver::Super,
            name: name.to_owned(),
        },
        Some(("this", name)) if name != "new" => Callee::Member {
            receiver: Receiver::SelfRef,
            name: name.to_owned(),
        },
        _ if head == "super" || head == "super.new" => {
            let Some((_, Some(base))) = constructor_class(scope, facts) else {
                return;
            };
            Callee::New(base)
        }
        _ => return,
    };
    push_call(facts, scope, callee, node);
}

/// `: this(…)` and `: this.named(…)`: another constructor of the class.
fn redirection(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let written: String = text(node, src).split_whitespace().collect();
    let head = written.split('(').next().unwrap_or("");
    let callee = match head.strip_prefix(":this.") {
        Some(name) if name != "new" => Callee::Member {
            receiver: Receiver::SelfRef,
            name: name.to_owned(),
        },
        _ => {
            let Some((class, _)) = constructor_class(scope, facts) else {
                return;
            };
            Callee::New(class)
        }
    };
    push_call(facts, scope, callee, node);
}

/// The type an extension adds members to, from its signature (`extension E<T> on List<T>` →
/// `List`); `None` for anything else.
pub(crate) fn extension_on(signature: &str) -> Option<String> {
    let rest = signature.trim_start();
    if !rest.starts_with("extension ") || rest.starts_with("extension type ") {
        return None;
    }
    let (_, on) = rest.split_once(" on ")?;
    let ty = type_name(on.trim());
    (!ty.is_empty()).then_some(ty)
}

#[cfg(test)]
mod tests {
    use super::extension_on;
    use crate::extract::Extractor;
    use crate::extract::test_facts::{calls_in, member};
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    fn extract(source: &str) -> FileFacts {
        Extractor::default().extract("lib/src/cart.dart", Lang::Dart, source)
    }

    /// An import as (URI, names shown, prefix, wildcard, re-export).
    type ImportView<'a> = (&'a str, Vec<&'a str>, Option<&'a str>, bool, bool);

    const SOURCE: &str = r#"import 'package:shop/pay.dart' as pay show Gateway;
import 'src/util.dart';
import 'src/more.dart' show Helper, Other hide Third;
export 'src/models.dart';
part 'cart_lines.dart';

/// A cart.
abstract class Cart<T> extends Base<T> with Logged, Timed implements Sized {
  final Ledger ledger;
  static var count = Counter();
  Cart(this.ledger) : super(1);
  Cart.named(int x) : this(Ledger());
  factory Cart.make() => Cart(Ledger());
  factory Cart.redirect() = CartImpl;
  int get total => ledger.sum();
  @override
  Future<Receipt> checkout(Card card, {required Money limit}) async {
    var other = Cart(Ledger());
    final Gateway g = pay.Gateway.connect();
    final r = await other.pay(card);
    card?.charge();
    card!.refund();
    this.save();
    super.save();
    check();
    other..add(1)..clear();
    Foo.named(1).go();
    new Bar().go();
    list.map((e) => e.run()).toList();
    return Receipt();
  }
}
mixin Logged on Base { void log() {} }
extension Twice on Money { int twice() => amount * 2; }
extension type Id(Money m) { int get id => 1; }
enum Color with Logged { red, green; void paint() {} }
typedef Book = Ledger;
void top() {}
"#;

    #[test]
    fn definitions_and_their_bases() {
        let f = extract(SOURCE);
        let def = |q: &str| {
            f.defs
                .iter()
                .find(|d| d.qualified == q)
                .unwrap_or_else(|| panic!("no {q}"))
        };
        let cart = def("Cart");
        assert_eq!(cart.kind, NodeKind::Class);
        // Mixins applied later win, then the superclass.
        assert_eq!(cart.extends, ["Timed", "Logged", "Base"]);
        assert_eq!(cart.implements, ["Sized"]);
        assert_eq!(cart.doc, "A cart.");
        // Constructors: the unnamed one is named as its class, named ones by their own name.
        for ctor in ["Cart.Cart", "Cart.named", "Cart.make", "Cart.redirect"] {
            assert_eq!(def(ctor).kind, NodeKind::Method, "{ctor}");
            assert_eq!(def(ctor).returns, "Cart", "{ctor}");
        }
        assert_eq!(def("Cart.total").returns, "int");
        let checkout = def("Cart.checkout");
        assert_eq!(checkout.returns, "Receipt");
        assert_eq!(checkout.decorators, ["override"]);
        assert_eq!(def("Logged").kind, NodeKind::Trait);
        assert_eq!(def("Logged").extends, ["Base"]);
        assert_eq!(def("Twice.twice").kind, NodeKind::Method);
        assert_eq!(
            extension_on(&def("Twice").signature).as_deref(),
            Some("Money")
        );
        assert_eq!(def("Id.id").kind, NodeKind::Method);
        assert_eq!(def("Color").kind, NodeKind::Enum);
        assert_eq!(def("Color.paint").kind, NodeKind::Method);
        assert_eq!(def("Book").extends, ["Ledger"]);
        assert_eq!(def("top").kind, NodeKind::Function);
    }

    #[test]
    fn imports_exports_and_parts() {
        let f = extract(SOURCE);
        let view: Vec<ImportView> = f
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.names.iter().map(|n| n.name.as_str()).collect(),
                    i.module_alias.as_deref(),
                    i.wildcard,
                    i.reexport,
                )
            })
            .collect();
        assert_eq!(
            view,
            [
                ("package:shop/pay.dart", vec![], Some("pay"), false, false),
                ("src/util.dart", vec![], None, true, false),
                ("src/more.dart", vec!["Helper", "Other"], None, false, false),
                ("src/models.dart", vec![], None, true, true),
                ("cart_lines.dart", vec![], None, true, true),
            ]
        );
        let part = extract("part of 'cart.dart';\nclass Line {}\n");
        assert_eq!(part.imports[0].module, "cart.dart");
        assert!(part.imports[0].wildcard && !part.imports[0].reexport);
        // A library's name and a part naming its library by it: both in that package.
        let library = extract("library shop.core;\npart 'a.dart';\n");
        assert_eq!(library.package.as_deref(), Some("shop.core"));
        let named = extract("part of shop.core;\nclass Line {}\n");
        assert_eq!(named.package.as_deref(), Some("shop.core"));
        assert!(named.imports.is_empty());
    }

    #[test]
    fn calls_with_their_receivers() {
        let f = extract(SOURCE);
        assert_eq!(
            calls_in(&f, "Cart.Cart"),
            [Callee::New("Base".into())],
            "super(…) builds the superclass"
        );
        assert_eq!(
            calls_in(&f, "Cart.named"),
            [Callee::New("Cart".into()), Callee::Name("Ledger".into())]
        );
        assert_eq!(
            calls_in(&f, "Cart.redirect"),
            [Callee::New("CartImpl".into())]
        );
        assert_eq!(
            calls_in(&f, "Cart.checkout"),
            [
                Callee::Name("Cart".into()),
                Callee::Name("Ledger".into()),
                member(Receiver::Path("pay.Gateway".into()), "connect"),
                member(Receiver::Name("other".into()), "pay"),
                member(Receiver::Name("card".into()), "charge"),
                member(Receiver::Name("card".into()), "refund"),
                member(Receiver::SelfRef, "save"),
                member(Receiver::Super, "save"),
                Callee::Name("check".into()),
                member(Receiver::Name("other".into()), "add"),
                member(Receiver::Name("other".into()), "clear"),
                member(Receiver::Call("Foo.named".into()), "go"),
                member(Receiver::Name("Foo".into()), "named"),
                member(Receiver::Call("Bar".into()), "go"),
                Callee::New("Bar".into()),
                member(Receiver::Call("list.map".into()), "toList"),
                member(Receiver::Name("list".into()), "map"),
                member(Receiver::Name("e".into()), "run"),
                Callee::Name("Receipt".into()),
            ]
        );
    }

    #[test]
    fn typed_names_for_receivers() {
        let f = extract(SOURCE);
        let checkout = f.defs.iter().position(|d| d.qualified == "Cart.checkout");
        let bound = |var: &str| {
            f.bindings
                .iter()
                .find(|b| b.var == var && b.scope.map(|s| s as usize) == checkout)
                .map(|b| b.type_name.as_str())
        };
        assert_eq!(bound("card"), Some("Card"));
        assert_eq!(bound("limit"), Some("Money"));
        assert_eq!(bound("other"), Some("Cart"));
        assert_eq!(bound("g"), Some("Gateway"));
        assert!(
            f.call_bindings
                .iter()
                .any(|b| b.var == "r" && b.callee == member(Receiver::Name("other".into()), "pay"))
        );
        let cart = f
            .defs
            .iter()
            .position(|d| d.qualified == "Cart")
            .map(|i| i as u32);
        let fields: Vec<(&str, &str)> = f
            .attr_bindings
            .iter()
            .filter(|(class, _, _)| Some(*class) == cart)
            .map(|(_, a, t)| (a.as_str(), t.as_str()))
            .collect();
        assert_eq!(fields, [("ledger", "Ledger"), ("count", "Counter")]);
    }

    #[test]
    fn extension_types_are_read_from_signatures() {
        assert_eq!(
            extension_on("extension E<T> on List<T>").as_deref(),
            Some("List")
        );
        assert_eq!(
            extension_on("extension on Money?").as_deref(),
            Some("Money")
        );
        assert_eq!(extension_on("extension type Id(int v)"), None);
        assert_eq!(extension_on("class A"), None);
    }
}
