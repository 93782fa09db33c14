//! Kotlin: packages, imports, classes (data, sealed, enum, inner), interfaces, objects and
//! companion objects, functions, extension functions, properties, constructors and typealiases,
//! calls with their receivers, and typed locals, parameters and properties.

use tree_sitter::Node;

use super::{
    ReceiverSyntax, doc_line, field, header_before_body, line, named_children, new_def, push_call,
    push_children, split_outside_brackets, strip_generics, text,
};
use crate::facts::{CallBinding, Callee, Def, FileFacts, Import, ImportedName, Receiver};
use crate::graph::NodeKind;

/// Scope functions whose lambda sees the receiver as `it`.
const IT_SCOPE_FUNCTIONS: &[&str] = &["let", "also", "takeIf", "takeUnless"];

/// Where the walk is: the definition around a node, and inside a `let`/`also` lambda, the
/// receiver that lambda's `it` stands for.
#[derive(Clone)]
struct At {
    scope: Option<u32>,
    it: Option<Receiver>,
}

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut cursor = root.walk();
    let mut stack: Vec<(Node, At)> = vec![(
        root,
        At {
            scope: None,
            it: None,
        },
    )];
    while let Some((node, at)) = stack.pop() {
        let scope = at.scope;
        match node.kind() {
            "package_header" => {
                package(node, src, facts);
                continue;
            }
            "import" => {
                import(node, src, facts);
                continue;
            }
            // A companion object's members are the class's own (`Foo.create()`, `create()`).
            "companion_object" => {
                for body in named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "class_body")
                {
                    push_children(&mut cursor, body, at.clone(), &mut stack);
                }
                continue;
            }
            "class_declaration" | "object_declaration" | "type_alias" => {
                let Some(idx) = type_definition(node, scope, src, facts) else {
                    continue;
                };
                let inner = At {
                    scope: Some(idx),
                    it: None,
                };
                // Pushed last to first: popped in source order.
                for child in named_children(node).into_iter().rev() {
                    match child.kind() {
                        "class_body" | "enum_class_body" | "ERROR" => {
                            push_children(&mut cursor, child, inner.clone(), &mut stack)
                        }
                        // `: Base(args)` runs as the class is built.
                        "delegation_specifiers" => stack.push((child, inner.clone())),
                        "primary_constructor" => class_parameters(child, Some(idx), src, facts),
                        _ => {}
                    }
                }
                continue;
            }
            "function_declaration" | "secondary_constructor" => {
                let idx = function(node, scope, src, facts);
                let inner = At {
                    scope: Some(idx),
                    it: None,
                };
                for child in named_children(node).into_iter().rev() {
                    match child.kind() {
                        "function_body" | "block" => stack.push((child, inner.clone())),
                        "constructor_delegation_call" => {
                            delegation_call(child, idx, src, facts);
                            stack.push((child, inner.clone()));
                        }
                        _ => {}
                    }
                }
                continue;
            }
            "property_declaration" => {
                if let Some(idx) = property(node, scope, src, facts) {
                    let inner = At {
                        scope: Some(idx),
                        it: None,
                    };
                    push_children(&mut cursor, node, inner, &mut stack);
                    continue;
                }
            }
            // `: Base(args)` builds the superclass.
            "constructor_invocation" => {
                if let Some(ty) = declared_type(node) {
                    push_call(facts, scope, Callee::New(type_name(text(ty, src))), node);
                }
            }
            "call_expression" => {
                if let Some(lambda_it) = call(node, &at, src, facts) {
                    // The call's lambda sees the receiver as `it`; its other parts do not.
                    for child in named_children(node).into_iter().rev() {
                        let it = if child.kind() == "annotated_lambda" {
                            Some(lambda_it.clone())
                        } else {
                            at.it.clone()
                        };
                        stack.push((child, At { scope, it }));
                    }
                    continue;
                }
            }
            // A lambda naming its parameters has no `it`.
            "lambda_literal"
                if named_children(node)
                    .iter()
                    .any(|c| c.kind() == "lambda_parameters") =>
            {
                push_children(&mut cursor, node, At { scope, it: None }, &mut stack);
                continue;
            }
            "for_statement" => for_binding(node, scope, src, facts),
            _ => {}
        }
        push_children(&mut cursor, node, at, &mut stack);
    }
    // A file without a `package` header is in the default package, with the others alike.
    if facts.package.is_none() {
        facts.package = Some(String::new());
    }
}

/// A type name as the resolver reads it: generics, nullability and a leading package left as
/// written (`List<Foo>?` → `List`, `a.b.Foo` → `a.b.Foo`).
fn type_name(written: &str) -> String {
    let written: String = written.split_whitespace().collect();
    let written = written.trim_start_matches('@');
    strip_generics(written.trim_end_matches(['?', '!']))
        .trim_end_matches('?')
        .to_owned()
}

/// The declared type child of a declaration (`: T` / `: T?`), as written.
fn declared_type<'t>(node: Node<'t>) -> Option<Node<'t>> {
    named_children(node).into_iter().find(|c| {
        matches!(
            c.kind(),
            "user_type" | "nullable_type" | "non_nullable_type" | "parenthesized_type"
        )
    })
}

fn package(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(name) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "qualified_identifier" || c.kind() == "identifier")
    else {
        return;
    };
    let name: String = text(name, src).split_whitespace().collect();
    let mut def = new_def(facts, NodeKind::Module, &name, None, node);
    def.signature = super::signature(text(node, src));
    facts.defs.push(def);
    if facts.package.is_none() {
        facts.package = Some(name);
    }
}

/// `import a.b.C`, `import a.b.*`, `import a.b.C as D`.
fn import(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(path) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "qualified_identifier" || c.kind() == "identifier")
    else {
        return;
    };
    let path: String = text(path, src).split_whitespace().collect();
    let wildcard = {
        let mut cursor = node.walk();
        node.children(&mut cursor).any(|c| c.kind() == "*")
    };
    let alias = named_children(node)
        .into_iter()
        .rfind(|c| c.kind() == "identifier")
        .map(|a| text(a, src).to_owned());
    let (module, names) = if wildcard {
        (path, Vec::new())
    } else {
        let (module, name) = path.rsplit_once('.').unwrap_or(("", &path));
        (
            module.to_owned(),
            vec![ImportedName {
                name: name.to_owned(),
                alias,
            }],
        )
    };
    facts.imports.push(Import {
        module,
        names,
        module_alias: None,
        wildcard,
        reexport: false,
        line: line(node),
    });
}

/// The words of a declaration's `modifiers` (`data`, `enum`, `override`, `private` …).
fn modifiers<'s>(node: Node, src: &'s [u8]) -> Vec<&'s str> {
    named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "modifiers")
        .flat_map(named_children)
        .filter(|m| m.kind() != "annotation")
        .map(|m| text(m, src))
        .collect()
}

/// Signature, visibility, annotations and the KDoc line.
fn fill(def: &mut Def, node: Node, body: Option<Node>, src: &[u8]) {
    def.signature = header_before_body(node, body, src);
    let words = modifiers(node, src);
    def.exported = !words.iter().any(|w| matches!(*w, "private" | "internal"));
    def.decorators = named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "modifiers")
        .flat_map(named_children)
        .filter(|m| m.kind() == "annotation")
        .map(|a| type_name(text(a, src).trim_start_matches('@')))
        .collect();
    if let Some(p) = node
        .prev_named_sibling()
        .filter(|p| p.kind() == "block_comment" && text(*p, src).starts_with("/**"))
    {
        def.doc = doc_line(text(p, src));
    }
}

/// A class, interface, enum, object or typealias with its bases.
fn type_definition(
    node: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<u32> {
    let name = match node.kind() {
        "type_alias" => field(node, "type"),
        _ => field(node, "name"),
    }
    .map(|n| text(n, src).to_owned())?;
    let is_interface = {
        let mut cursor = node.walk();
        node.children(&mut cursor).any(|c| c.kind() == "interface")
    };
    let kind = if is_interface {
        NodeKind::Interface
    } else if modifiers(node, src).contains(&"enum") {
        NodeKind::Enum
    } else {
        NodeKind::Class
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    let body = named_children(node)
        .into_iter()
        .find(|c| matches!(c.kind(), "class_body" | "enum_class_body"));
    fill(&mut def, node, body, src);
    if node.kind() == "type_alias" {
        // `typealias A = B<C>`: members of `A` are `B`'s.
        if let Some(target) = declared_type(node) {
            def.extends.push(type_name(text(target, src)));
        }
    }
    for specifier in named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "delegation_specifiers")
        .flat_map(named_children)
    {
        let Some(base) = named_children(specifier).into_iter().next() else {
            continue;
        };
        // `Base(args)` is the superclass; a bare name or `I by x` an interface (of an
        // interface, every base is extended).
        let (written, constructed) = match base.kind() {
            "constructor_invocation" => (declared_type(base).map(|t| text(t, src)), true),
            "explicit_delegation" => (declared_type(base).map(|t| text(t, src)), false),
            _ => (Some(text(base, src)), false),
        };
        let Some(written) = written.map(type_name).filter(|w| !w.is_empty()) else {
            continue;
        };
        if constructed || kind == NodeKind::Interface {
            def.extends.push(written);
        } else {
            def.implements.push(written);
        }
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    Some(idx)
}

/// A function, method or secondary constructor (named as its class) with its parameters'
/// bindings. An extension function's signature keeps its receiver (`fun Foo.f()`).
fn function(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) -> u32 {
    let in_type = scope
        .and_then(|s| facts.defs.get(s as usize))
        .filter(|d| d.kind.is_type());
    let name = if node.kind() == "secondary_constructor" {
        in_type.map_or_else(|| "constructor".to_owned(), |c| c.name.clone())
    } else {
        field(node, "name").map_or_else(String::new, |n| text(n, src).to_owned())
    };
    let kind = if in_type.is_some() {
        NodeKind::Method
    } else {
        NodeKind::Function
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    let body = named_children(node)
        .into_iter()
        .find(|c| matches!(c.kind(), "function_body" | "block"));
    fill(&mut def, node, body, src);
    // The return type follows the parameters.
    let params = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "function_value_parameters");
    if let Some(params) = params
        && let Some(returns) = params
            .next_named_sibling()
            .filter(|t| matches!(t.kind(), "user_type" | "nullable_type"))
    {
        def.returns = type_name(text(returns, src));
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    if let Some(params) = params {
        for param in named_children(params)
            .into_iter()
            .filter(|p| p.kind() == "parameter")
        {
            if let (Some(name), Some(ty)) = (
                named_children(param)
                    .into_iter()
                    .find(|c| c.kind() == "identifier"),
                declared_type(param),
            ) {
                bind(facts, Some(idx), text(name, src), text(ty, src));
            }
        }
    }
    idx
}

/// `constructor(…) : this(…)` calls a constructor of its class, `: super(…)` one of the
/// superclass.
fn delegation_call(node: Node, ctor: u32, src: &[u8], facts: &mut FileFacts) {
    let Some(class) = facts
        .defs
        .get(ctor as usize)
        .and_then(|c| c.parent)
        .and_then(|p| facts.defs.get(p as usize))
    else {
        return;
    };
    let written = text(node, src);
    let target = if written.starts_with("this") {
        Some(class.name.clone())
    } else if written.starts_with("super") {
        class.extends.first().cloned()
    } else {
        None
    };
    if let Some(target) = target {
        push_call(facts, Some(ctor), Callee::New(target), node);
    }
}

/// A property: in a class, its type recorded on the class; a local or top-level one bound
/// (declared type, `= Foo(…)`, or what a call returns). A property with a getter or setter,
/// and an extension property, is a definition (returned, for the calls in its accessors).
fn property(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) -> Option<u32> {
    let decl = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "variable_declaration")?;
    let name = named_children(decl)
        .into_iter()
        .find(|c| c.kind() == "identifier")
        .map(|n| text(n, src).to_owned())?;
    let declared = declared_type(decl).map(|t| type_name(text(t, src)));
    let value = named_children(node).into_iter().find(|c| {
        c.prev_sibling()
            .is_some_and(|p| p.kind() == "=" || p.kind() == "by")
    });
    let in_type = scope
        .and_then(|s| facts.defs.get(s as usize))
        .is_some_and(|d| d.kind.is_type());
    let extension =
        declared_type(node).is_some_and(|t| t.next_sibling().is_some_and(|dot| dot.kind() == "."));
    let accessors = named_children(node)
        .iter()
        .any(|c| matches!(c.kind(), "getter" | "setter"));
    let constructed = value.and_then(|v| constructed_type(v, src));
    if in_type {
        if let (Some(class), Some(ty)) = (scope, declared.clone().or(constructed.clone())) {
            facts.attr_bindings.push((class, name.clone(), ty));
        }
    } else if let Some(ty) = declared.clone().or(constructed) {
        bind(facts, scope, &name, &ty);
    } else if let Some(v) = value.filter(|v| v.kind() == "call_expression")
        && let Some(callee) = callee_of(v, src)
    {
        facts.call_bindings.push(CallBinding {
            scope,
            var: name.clone(),
            callee,
        });
    }
    if !(accessors || extension) {
        return None;
    }
    let kind = if in_type {
        NodeKind::Method
    } else {
        NodeKind::Function
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    let body = named_children(node)
        .into_iter()
        .find(|c| matches!(c.kind(), "getter" | "setter"));
    fill(&mut def, node, body, src);
    def.returns = declared.unwrap_or_default();
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    Some(idx)
}

/// The type a value is built as: `Foo(…)` with a capitalised name, `x as Foo`.
fn constructed_type(value: Node, src: &[u8]) -> Option<String> {
    match value.kind() {
        "call_expression" => {
            let function = named_children(value).into_iter().next()?;
            let written = match function.kind() {
                "identifier" => text(function, src),
                "navigation_expression" if is_dotted(function) => text(function, src),
                _ => return None,
            };
            let name = type_name(written);
            name.rsplit('.')
                .next()
                .is_some_and(|last| last.starts_with(char::is_uppercase))
                .then_some(name)
        }
        "as_expression" => field(value, "right").map(|t| type_name(text(t, src))),
        _ => None,
    }
}

/// The primary constructor's parameters: typed names in the class (`val`/`var` ones are also
/// properties, recorded on the class).
fn class_parameters(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(class) = scope else {
        return;
    };
    for param in named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "class_parameters")
        .flat_map(named_children)
        .filter(|c| c.kind() == "class_parameter")
    {
        let (Some(name), Some(ty)) = (
            named_children(param)
                .into_iter()
                .find(|c| c.kind() == "identifier"),
            declared_type(param),
        ) else {
            continue;
        };
        let (name, ty) = (text(name, src), text(ty, src));
        let is_property = {
            let mut cursor = param.walk();
            param
                .children(&mut cursor)
                .any(|c| matches!(c.kind(), "val" | "var"))
        };
        if is_property {
            facts
                .attr_bindings
                .push((class, name.to_owned(), type_name(ty)));
        }
        bind(facts, Some(class), name, ty);
    }
}

/// `for (x: T in xs)`: `x` typed `T`.
fn for_binding(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    if let Some(decl) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "variable_declaration")
        && let (Some(name), Some(ty)) = (
            named_children(decl)
                .into_iter()
                .find(|c| c.kind() == "identifier"),
            declared_type(decl),
        )
    {
        bind(facts, scope, text(name, src), text(ty, src));
    }
}

fn bind(facts: &mut FileFacts, scope: Option<u32>, var: &str, written: &str) {
    let type_name = type_name(written);
    if !type_name.starts_with('(') {
        facts.bind_type(scope, var, type_name);
    }
}

/// Kotlin's receivers: `this`, `super`, plain names and dotted chains (`a.b`, `a?.b`).
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &["this_expression"],
    self_names: &[],
    super_kinds: &["super_expression"],
    members: &[],
    leaves: &["identifier", "this_expression"],
};

/// Whether a node is a name or a chain of names (`a.b.c`, `this.a`, `a?.b`).
fn is_dotted(node: Node) -> bool {
    let mut current = node;
    loop {
        match current.kind() {
            "identifier" | "this_expression" => return true,
            "navigation_expression" => match named_children(current).into_iter().next() {
                Some(object) => current = object,
                None => return false,
            },
            _ => return false,
        }
    }
}

/// A navigation's object and member name (`a.f`, `a?.f`).
fn navigation<'t>(node: Node<'t>, src: &[u8]) -> Option<(Node<'t>, String)> {
    let children = named_children(node);
    let object = *children.first()?;
    let name = children.get(1).filter(|n| n.kind() == "identifier")?;
    Some((object, text(*name, src).to_owned()))
}

/// Written text of a dotted chain with `?.` read as `.`.
fn dotted_text(node: Node, src: &[u8]) -> String {
    text(node, src)
        .split_whitespace()
        .collect::<String>()
        .replace("?.", ".")
}

fn receiver(object: Node, src: &[u8]) -> Receiver {
    match object.kind() {
        // `x!!.f()`: as `x.f()`.
        "unary_expression" if field(object, "operator").is_some_and(|o| text(o, src) == "!!") => {
            field(object, "argument").map_or(Receiver::Other, |a| receiver(a, src))
        }
        "parenthesized_expression" => named_children(object)
            .into_iter()
            .next()
            .map_or(Receiver::Other, |inner| receiver(inner, src)),
        "as_expression" => field(object, "right")
            .map_or(Receiver::Other, |t| Receiver::Call(type_name(text(t, src)))),
        "call_expression" => chain(object, src).map_or(Receiver::Other, Receiver::Call),
        "navigation_expression" if is_dotted(object) => Receiver::Path(dotted_text(object, src)),
        _ => RECEIVERS.receiver(object, src),
    }
}

/// A call whose result is a receiver, as a dotted chain with arguments left out: `f(…)` → `f`,
/// `a.b(…)` → `a.b`, `A().b(…)` → `A().b`; `None` when a part is none of those.
fn chain(node: Node, src: &[u8]) -> Option<String> {
    let function = named_children(node).into_iter().next()?;
    match function.kind() {
        "identifier" => Some(text(function, src).to_owned()),
        "navigation_expression" => {
            let (object, name) = navigation(function, src)?;
            match object.kind() {
                "call_expression" => Some(format!("{}().{name}", chain(object, src)?)),
                _ if is_dotted(object) => Some(format!("{}.{name}", dotted_text(object, src))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// What a call calls: `f(…)`, `x.f(…)`, `x?.f(…)`, `x!!.f(…)`, `Foo(…)` (a construction
/// when `Foo` is a class; the resolver decides).
fn callee_of(node: Node, src: &[u8]) -> Option<Callee> {
    let function = named_children(node).into_iter().next()?;
    match function.kind() {
        "identifier" => Some(Callee::Name(text(function, src).to_owned())),
        "navigation_expression" => {
            let (object, name) = navigation(function, src)?;
            Some(Callee::Member {
                receiver: receiver(object, src),
                name,
            })
        }
        _ => None,
    }
}

/// Records a call; returns the receiver its lambda sees as `it` when it is `x.let { … }` or
/// `x.also { … }` (the receiver `x`, or what `it` is around it).
fn call(node: Node, at: &At, src: &[u8], facts: &mut FileFacts) -> Option<Receiver> {
    let function = named_children(node).into_iter().next()?;
    // `f(a) { … }` is one call: the outer node only adds the trailing lambda.
    if function.kind() == "call_expression" {
        return None;
    }
    let mut callee = callee_of(node, src)?;
    // `it` inside a `let`/`also` lambda is that call's receiver.
    if let (Callee::Member { receiver, .. }, Some(it)) = (&mut callee, &at.it) {
        match receiver {
            Receiver::Name(name) if name == "it" => *receiver = it.clone(),
            Receiver::Path(path) if path.starts_with("it.") => {
                if let Receiver::Name(head) | Receiver::Path(head) = it {
                    *receiver = Receiver::Path(format!("{head}{}", &path["it".len()..]));
                }
            }
            _ => {}
        }
    }
    let it = match &callee {
        Callee::Member { receiver, name } if IT_SCOPE_FUNCTIONS.contains(&name.as_str()) => {
            Some(receiver.clone())
        }
        _ => None,
    };
    push_call(facts, at.scope, callee, node);
    it
}

/// Extension function receivers, from a signature (`fun <T> Foo<T>.bar(x: Int)` → `Foo`,
/// `val Foo?.size: Int` → `Foo`); `None` for a function without one.
pub(crate) fn extension_receiver(signature: &str, name: &str) -> Option<String> {
    let start = ["fun ", "val ", "var "]
        .iter()
        .filter_map(|k| signature.find(k).map(|at| at + k.len()))
        .min()?;
    let mut rest = signature[start..].trim_start();
    // Type parameters before the receiver.
    if rest.starts_with('<') {
        let close = rest
            .char_indices()
            .scan(0i32, |depth, (i, c)| {
                match c {
                    '<' => *depth += 1,
                    '>' => *depth -= 1,
                    _ => {}
                }
                Some((i, *depth))
            })
            .find(|&(_, depth)| depth == 0)?
            .0;
        rest = rest[close + 1..].trim_start();
    }
    let end = rest.find(['(', ':', '='])?;
    let head = rest[..end].trim_end();
    let receiver = head.strip_suffix(name)?.strip_suffix('.')?;
    let parts = split_outside_brackets(receiver, '.');
    let ty = type_name(&parts.join("."));
    (!ty.is_empty()).then_some(ty)
}

#[cfg(test)]
mod tests {
    use super::extension_receiver;
    use crate::extract::Extractor;
    use crate::extract::test_facts::{calls_in, member};
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    fn extract(source: &str) -> FileFacts {
        Extractor::default().extract("src/shop/Cart.kt", Lang::Kotlin, source)
    }

    const SOURCE: &str = r#"package com.shop.core

import com.shop.pay.Gateway
import com.shop.util.*
import com.shop.data.Repository as Store

typealias Items = MutableList<Item>

/** A cart. */
open class Cart(val gateway: Gateway, count: Int = 0) : Base(gateway), Totals {
    private val store: Store = Store()
    val size: Int
        get() = measure()
    init {
        setup()
    }
    constructor(x: Int) : this(Gateway()) {
        log(x)
    }
    override fun total(): Int = items.sum()
    fun checkout(card: Card?): Receipt {
        val other = Cart(gateway)
        val typed: Cart = other
        val receipt = other.pay(card)
        other.total()
        this.total()
        super.save()
        card?.charge()
        card!!.refund()
        Util.log(card)
        gateway.charge(total())
        store.items.clear()
        other.let { it.total() }
        Cart(1).total()
        run(card) { x -> x.pay() }
        return Receipt()
    }
    companion object {
        fun create(): Cart = Cart(1)
    }
    inner class Line {
        fun f() {}
    }
}
object Registry {
    fun find(): Cart? = null
}
fun Cart.twice(): Int = total() * 2
val Cart.double: Int get() = 2
interface Totals : Sized {
    fun total(): Int
}
data class Money(val amount: Int)
enum class Color {
    RED, GREEN;
    fun x() {}
}
"#;

    #[test]
    fn definitions_imports_and_bases() {
        let f = extract(SOURCE);
        assert_eq!(f.syntax_errors, 0);
        assert_eq!(f.package.as_deref(), Some("com.shop.core"));
        let defs: Vec<(&str, NodeKind)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind))
            .collect();
        assert_eq!(
            defs,
            [
                ("com.shop.core", NodeKind::Module),
                ("Items", NodeKind::Class),
                ("Cart", NodeKind::Class),
                ("Cart.size", NodeKind::Method),
                ("Cart.Cart", NodeKind::Method),
                ("Cart.total", NodeKind::Method),
                ("Cart.checkout", NodeKind::Method),
                ("Cart.create", NodeKind::Method),
                ("Cart.Line", NodeKind::Class),
                ("Cart.Line.f", NodeKind::Method),
                ("Registry", NodeKind::Class),
                ("Registry.find", NodeKind::Method),
                ("twice", NodeKind::Function),
                ("double", NodeKind::Function),
                ("Totals", NodeKind::Interface),
                ("Totals.total", NodeKind::Method),
                ("Money", NodeKind::Class),
                ("Color", NodeKind::Enum),
                ("Color.x", NodeKind::Method),
            ]
        );
        let cart = &f.defs[2];
        assert_eq!(cart.extends, ["Base"]);
        assert_eq!(cart.implements, ["Totals"]);
        assert_eq!(cart.doc, "A cart.");
        assert_eq!(f.defs[1].extends, ["MutableList"]);
        assert_eq!(f.defs[14].extends, ["Sized"]);
        assert_eq!(f.defs[6].returns, "Receipt");
        assert_eq!(f.defs[11].returns, "Cart");
        let imports: Vec<(&str, bool, Option<&str>)> = f
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.wildcard,
                    i.names.first().and_then(|n| n.alias.as_deref()),
                )
            })
            .collect();
        assert_eq!(
            imports,
            [
                ("com.shop.pay", false, None),
                ("com.shop.util", true, None),
                ("com.shop.data", false, Some("Store")),
            ]
        );
        for (var, ty) in [("gateway", "Gateway"), ("store", "Store")] {
            assert!(
                f.attr_bindings.contains(&(2, var.into(), ty.into())),
                "{var}: {:?}",
                f.attr_bindings
            );
        }
        // A plain constructor parameter is no property.
        assert!(!f.attr_bindings.iter().any(|(_, v, _)| v == "count"));
        assert_eq!(
            extension_receiver(&f.defs[12].signature, "twice").as_deref(),
            Some("Cart")
        );
        assert_eq!(
            extension_receiver(&f.defs[13].signature, "double").as_deref(),
            Some("Cart")
        );
    }

    #[test]
    fn calls_with_receivers_and_bindings() {
        let f = extract(SOURCE);
        let calls = calls_in(&f, "Cart.checkout");
        let name = |n: &str| Receiver::Name(n.into());
        assert_eq!(
            calls,
            [
                Callee::Name("Cart".into()),
                member(name("other"), "pay"),
                member(name("other"), "total"),
                member(Receiver::SelfRef, "total"),
                member(Receiver::Super, "save"),
                member(name("card"), "charge"),
                member(name("card"), "refund"),
                member(name("Util"), "log"),
                member(name("gateway"), "charge"),
                Callee::Name("total".into()),
                member(Receiver::Path("store.items".into()), "clear"),
                member(name("other"), "let"),
                member(name("other"), "total"),
                member(Receiver::Call("Cart".into()), "total"),
                Callee::Name("Cart".into()),
                Callee::Name("run".into()),
                member(name("x"), "pay"),
                Callee::Name("Receipt".into()),
            ]
        );
        assert_eq!(calls_in(&f, "Cart.size"), [Callee::Name("measure".into())]);
        // The superclass's construction, property initialisers and `init` blocks run in the
        // class.
        assert_eq!(
            calls_in(&f, "Cart"),
            [
                Callee::New("Base".into()),
                Callee::Name("Store".into()),
                Callee::Name("setup".into())
            ]
        );
        // `: this(…)` calls a constructor of the class.
        let ctor = calls_in(&f, "Cart.Cart");
        assert!(ctor.contains(&Callee::New("Cart".into())), "{ctor:?}");
        assert!(ctor.contains(&Callee::Name("log".into())), "{ctor:?}");
        assert_eq!(calls_in(&f, "twice"), [Callee::Name("total".into())]);
        let scope = Some(6);
        for (var, ty) in [("other", "Cart"), ("typed", "Cart"), ("card", "Card")] {
            assert!(
                f.bindings.contains(&Binding {
                    scope,
                    var: var.into(),
                    type_name: ty.into()
                }),
                "{var}: {:?}",
                f.bindings
            );
        }
        assert!(f.call_bindings.contains(&CallBinding {
            scope,
            var: "receipt".into(),
            callee: member(name("other"), "pay"),
        }));
    }

    #[test]
    fn extension_receivers_are_read_from_signatures() {
        assert_eq!(
            extension_receiver("fun <T> Box<T>.open(x: Int): T", "open").as_deref(),
            Some("Box")
        );
        assert_eq!(
            extension_receiver("fun a.b.Foo?.bar()", "bar").as_deref(),
            Some("a.b.Foo")
        );
        assert_eq!(extension_receiver("fun bar(x: Foo)", "bar"), None);
        assert_eq!(extension_receiver("val size: Int", "size"), None);
        assert_eq!(extension_receiver("fun", "f"), None);
    }

    #[test]
    fn odd_input_does_not_panic() {
        for source in [
            "",
            "class",
            "class A : { fun f( { x?.(); } }",
            "import\npackage\nfun <T.f() = it.let { it.it!!.() }",
            "class A { constructor() : this( }\nval .x get() =",
            "fun f() { with(x) { run { a.let { it?.b } } } }",
        ] {
            let _ = extract(source);
        }
    }
}
