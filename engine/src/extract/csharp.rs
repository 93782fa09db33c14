//! C#: namespaces (block and file-scoped), `using` directives, classes, structs, records,
//! interfaces and enums with their bases, methods, constructors, properties, local functions,
//! invocations with their receivers, `new`, and typed locals, parameters, fields and properties.

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
        if let Some(kind) = definition_kind(node.kind())
            && let Some(idx) = definition(node, kind, scope, src, facts)
        {
            // A method's body, a property's accessors and initial value, a constructor's
            // `: base(…)` all run in the definition.
            for child in named_children(node) {
                if matches!(
                    child.kind(),
                    "block"
                        | "arrow_expression_clause"
                        | "declaration_list"
                        | "enum_member_declaration_list"
                        | "accessor_list"
                        | "constructor_initializer"
                ) || field(node, "value") == Some(child)
                {
                    stack.push((child, Some(idx)));
                }
            }
            continue;
        }
        match node.kind() {
            "namespace_declaration" | "file_scoped_namespace_declaration" => {
                namespace(node, src, facts);
            }
            "using_directive" => {
                using(node, src, facts);
                continue;
            }
            "local_declaration_statement" | "field_declaration" | "event_field_declaration" => {
                declaration(node, scope, src, facts);
            }
            "foreach_statement" => {
                if let (Some(ty), Some(name)) = (field(node, "type"), field(node, "left"))
                    && name.kind() == "identifier"
                {
                    bind(facts, scope, text(name, src), text(ty, src));
                }
            }
            "declaration_expression" => {
                if let (Some(ty), Some(name)) = (field(node, "type"), field(node, "name")) {
                    bind(facts, scope, text(name, src), text(ty, src));
                }
            }
            "invocation_expression" => invocation(node, scope, src, facts),
            "object_creation_expression" => {
                if let Some(ty) = field(node, "type") {
                    push_call(facts, scope, Callee::New(type_name(text(ty, src))), node);
                }
            }
            "constructor_initializer" => constructor_initializer(node, scope, src, facts),
            _ => {}
        }
        push_children(&mut cursor, node, scope, &mut stack);
    }
}

fn definition_kind(kind: &str) -> Option<NodeKind> {
    match kind {
        "class_declaration" | "record_declaration" => Some(NodeKind::Class),
        "struct_declaration" | "record_struct_declaration" => Some(NodeKind::Struct),
        "interface_declaration" => Some(NodeKind::Interface),
        "enum_declaration" => Some(NodeKind::Enum),
        "method_declaration"
        | "constructor_declaration"
        | "destructor_declaration"
        | "property_declaration"
        | "indexer_declaration"
        | "operator_declaration"
        | "conversion_operator_declaration" => Some(NodeKind::Method),
        "local_function_statement" => Some(NodeKind::Function),
        _ => None,
    }
}

/// A type name as the resolver reads it: generic arguments, a `global::` alias, a trailing
/// `?` and array brackets left out (`List<T>` → `List`, `global::A.B` → `A.B`).
fn type_name(written: &str) -> String {
    let written = written.trim();
    let written = written.rsplit_once("::").map_or(written, |(_, rest)| rest);
    strip_generics(written)
        .trim_end_matches(['?', '[', ']'])
        .to_owned()
}

/// The name a definition node is known by: its `name`, `this` for an indexer, `operator …`.
fn definition_name(node: Node, src: &[u8]) -> Option<String> {
    match node.kind() {
        "indexer_declaration" => Some("this".to_owned()),
        "operator_declaration" => {
            field(node, "operator").map(|o| format!("operator{}", text(o, src)))
        }
        "conversion_operator_declaration" => Some("operator".to_owned()),
        "destructor_declaration" => field(node, "name").map(|n| format!("~{}", text(n, src))),
        _ => field(node, "name").map(|n| text(n, src).to_owned()),
    }
}

/// A type or member with its parameters' bindings; `None` when it has no name.
fn definition(
    node: Node,
    kind: NodeKind,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<u32> {
    let name = definition_name(node, src)?;
    let mut def = new_def(facts, kind, &name, scope, node);
    fill(&mut def, node, src);
    // A method's declared return type or a property's type (not `void` or a keyword type), for
    // calls on its result.
    if let Some(ty) = field(node, "returns")
        .or_else(|| field(node, "type"))
        .filter(|t| matches!(t.kind(), "identifier" | "qualified_name" | "generic_name"))
    {
        def.returns = type_name(text(ty, src));
    }
    bases(&mut def, node, src);
    let idx = facts.defs.len() as u32;
    // A property's type, on its class, for chains through it (`this.Store.Save()`).
    if node.kind() == "property_declaration"
        && let (Some(class), false) = (scope, def.returns.is_empty())
    {
        facts
            .attr_bindings
            .push((class, def.name.clone(), def.returns.clone()));
    }
    facts.defs.push(def);
    for list in named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "parameter_list")
    {
        for param in named_children(list)
            .into_iter()
            .filter(|p| p.kind() == "parameter")
        {
            if let (Some(ty), Some(name)) = (field(param, "type"), field(param, "name")) {
                bind(facts, Some(idx), text(name, src), text(ty, src));
            }
        }
    }
    Some(idx)
}

/// Signature, `public`, attributes and the `///` doc line.
fn fill(def: &mut Def, node: Node, src: &[u8]) {
    let body = named_children(node).into_iter().find(|c| {
        matches!(
            c.kind(),
            "block" | "declaration_list" | "enum_member_declaration_list" | "accessor_list"
        )
    });
    def.signature = header_before_body(node, body, src);
    let modifiers: Vec<&str> = named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "modifier")
        .map(|m| text(m, src))
        .collect();
    def.exported = modifiers.contains(&"public");
    def.decorators = named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "attribute_list")
        .flat_map(named_children)
        .filter_map(|a| field(a, "name").map(|n| text(n, src).to_owned()))
        .collect();
    let mut doc = Vec::new();
    let mut prev = node.prev_named_sibling();
    while let Some(p) = prev.filter(|p| p.kind() == "comment" && text(*p, src).starts_with("///")) {
        doc.push(text(p, src));
        prev = p.prev_named_sibling();
    }
    if let Some(first) = doc.last() {
        def.doc = doc_line(
            first
                .trim_start_matches("///")
                .trim_start()
                .trim_start_matches("<summary>"),
        )
        .trim_end_matches("</summary>")
        .to_owned();
        if def.doc.is_empty()
            && let Some(next) = doc.iter().rev().nth(1)
        {
            def.doc = doc_line(next);
        }
    }
}

/// The `base_list`: of a class or struct, a name written like an interface (`I` then a
/// capital) is implemented, any other extended; an interface extends all of its bases.
fn bases(def: &mut Def, node: Node, src: &[u8]) {
    let Some(list) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "base_list")
    else {
        return;
    };
    for base in named_children(list) {
        let written = match base.kind() {
            "argument_list" => continue,
            "primary_constructor_base_type" => named_children(base)
                .into_iter()
                .next()
                .map_or("", |t| text(t, src)),
            _ => text(base, src),
        };
        let name = type_name(written);
        if name.is_empty() {
            continue;
        }
        let simple = name.rsplit('.').next().unwrap_or(&name);
        let interface_like = simple.len() > 1
            && simple.starts_with('I')
            && simple[1..].starts_with(char::is_uppercase);
        if def.kind == NodeKind::Interface || !interface_like {
            def.extends.push(name);
        } else {
            def.implements.push(name);
        }
    }
}

/// A namespace: the file's package (its first one, nested blocks joined by dots), every
/// namespace around it seen like a `using`.
fn namespace(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(name) = field(node, "name").map(|n| text(n, src)) else {
        return;
    };
    let mut full = name.to_owned();
    let mut up = node.parent();
    while let Some(p) = up {
        if p.kind() == "namespace_declaration"
            && let Some(outer) = field(p, "name")
        {
            full = format!("{}.{full}", text(outer, src));
        }
        up = p.parent();
    }
    let mut def = new_def(facts, NodeKind::Module, &full, None, node);
    def.signature = header_before_body(node, field(node, "body"), src);
    facts.defs.push(def);
    // The namespace itself and those around it (`A.B` sees `A`'s types) are in scope.
    let mut prefix = full.as_str();
    loop {
        wildcard(facts, prefix, false, line(node));
        match prefix.rsplit_once('.') {
            Some((outer, _)) => prefix = outer,
            None => break,
        }
    }
    if facts.package.is_none() {
        facts.package = Some(full);
    }
}

fn wildcard(facts: &mut FileFacts, module: &str, is_static: bool, at: u32) {
    facts.imports.push(Import {
        module: module.to_owned(),
        names: Vec::new(),
        module_alias: None,
        wildcard: true,
        reexport: is_static,
        line: at,
    });
}

/// `using A.B;` (a namespace, like a wildcard import), `using static A.B.C;` (a type's static
/// members, marked `reexport` as Java's `import static`), `using X = A.B.C;` (an alias);
/// `global using …` reads the same and is listed in `global_imports`: it holds in every file.
fn using(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(target) = named_children(node).into_iter().rfind(|c| {
        matches!(
            c.kind(),
            "qualified_name" | "identifier" | "generic_name" | "alias_qualified_name"
        )
    }) else {
        return;
    };
    let alias = field(node, "name").filter(|a| *a != target);
    let path = type_name(text(target, src));
    let (is_static, is_global) = {
        let mut cursor = node.walk();
        node.children(&mut cursor)
            .fold((false, false), |(s, g), c| {
                (s || c.kind() == "static", g || c.kind() == "global")
            })
    };
    if is_global && let Ok(at) = u32::try_from(facts.imports.len()) {
        facts.global_imports.push(at);
    }
    match alias {
        None => wildcard(facts, &path, is_static, line(node)),
        Some(alias) => {
            let (module, name) = path.rsplit_once('.').unwrap_or(("", &path));
            facts.imports.push(Import {
                module: module.to_owned(),
                names: vec![ImportedName {
                    name: name.to_owned(),
                    alias: Some(text(alias, src).to_owned()),
                }],
                module_alias: None,
                wildcard: false,
                reexport: false,
                line: line(node),
            });
        }
    }
}

/// `T a = …, b;`: each name typed `T`; `var a = new T(…)` typed `T`; `var a = f(…)` holding
/// what the call returns. A field's type is recorded on its class.
fn declaration(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(decl) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "variable_declaration")
    else {
        return;
    };
    let Some(ty) = field(decl, "type") else {
        return;
    };
    let written = text(ty, src);
    let is_field = node.kind() != "local_declaration_statement";
    for declarator in named_children(decl)
        .into_iter()
        .filter(|d| d.kind() == "variable_declarator")
    {
        let Some(name) = field(declarator, "name").map(|n| text(n, src)) else {
            continue;
        };
        if is_field {
            if let Some(class) = scope
                && written != "var"
            {
                facts
                    .attr_bindings
                    .push((class, name.to_owned(), type_name(written)));
            }
            continue;
        }
        if written != "var" {
            bind(facts, scope, name, written);
            continue;
        }
        let value = named_children(declarator)
            .into_iter()
            .find(|c| c.kind() != "identifier" && c.kind() != "tuple_pattern");
        match value.map(|v| (v, v.kind())) {
            Some((v, "object_creation_expression")) => {
                if let Some(t) = field(v, "type") {
                    bind(facts, scope, name, text(t, src));
                }
            }
            Some((v, "cast_expression")) => {
                if let Some(t) = field(v, "type") {
                    bind(facts, scope, name, text(t, src));
                }
            }
            Some((v, "invocation_expression")) => {
                if let Some(callee) = callee_of(v, src) {
                    facts.call_bindings.push(CallBinding {
                        scope,
                        var: name.to_owned(),
                        callee,
                    });
                }
            }
            _ => {}
        }
    }
}

fn bind(facts: &mut FileFacts, scope: Option<u32>, var: &str, written: &str) {
    let type_name = type_name(written);
    if type_name != "var" {
        facts.bind_type(scope, var, type_name);
    }
}

/// C#'s receivers: `this`, `base`, plain names, and `a.b` member accesses or qualified names.
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &["this"],
    self_names: &[],
    super_kinds: &["base"],
    members: &[
        ("member_access_expression", "expression", "name"),
        ("qualified_name", "qualifier", "name"),
    ],
    leaves: &["identifier", "this", "base"],
};

/// What an invocation calls: `M(…)`, `M<T>(…)`, `recv.M(…)`, `recv?.M(…)`.
fn callee_of(node: Node, src: &[u8]) -> Option<Callee> {
    let function = field(node, "function")?;
    match function.kind() {
        "identifier" => Some(Callee::Name(text(function, src).to_owned())),
        "generic_name" => Some(Callee::Name(strip_generics(text(function, src)))),
        "member_access_expression" => {
            let name = strip_generics(text(field(function, "name")?, src));
            let object = field(function, "expression")?;
            Some(Callee::Member {
                receiver: receiver(object, src),
                name,
            })
        }
        // `a?.M()`: `M` of the conditional access's condition.
        "conditional_access_expression" => {
            let (condition, name) = conditional_member(function, src)?;
            Some(Callee::Member {
                receiver: receiver(condition, src),
                name,
            })
        }
        _ => None,
    }
}

/// `a?.b`: the condition `a` and the member's name `b`.
fn conditional_member<'t>(node: Node<'t>, src: &[u8]) -> Option<(Node<'t>, String)> {
    let condition = field(node, "condition")?;
    let binding = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "member_binding_expression")?;
    Some((
        condition,
        strip_generics(text(field(binding, "name")?, src)),
    ))
}

fn receiver(object: Node, src: &[u8]) -> Receiver {
    match object.kind() {
        // `a?.b.M()`: as `a.b.M()`.
        "conditional_access_expression" => match conditional_member(object, src) {
            Some((condition, name)) => match receiver(condition, src) {
                Receiver::Name(head) => Receiver::Path(format!("{head}.{name}")),
                Receiver::Path(head) => Receiver::Path(format!("{head}.{name}")),
                _ => Receiver::Other,
            },
            None => Receiver::Other,
        },
        "invocation_expression" | "object_creation_expression" | "parenthesized_expression" => {
            chain(object, src).map_or(Receiver::Other, Receiver::Call)
        }
        "generic_name" => Receiver::Name(strip_generics(text(object, src))),
        // A keyword type (`string.Join(…)`) or a literal, by its type (`"a {0}".F(…)`).
        "predefined_type" => Receiver::Name(text(object, src).to_owned()),
        "string_literal"
        | "verbatim_string_literal"
        | "raw_string_literal"
        | "interpolated_string_expression" => Receiver::Name("string".to_owned()),
        _ => RECEIVERS.receiver(object, src),
    }
}

fn invocation(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    // `nameof(x)` is no call.
    if field(node, "function").is_some_and(|f| text(f, src) == "nameof") {
        return;
    }
    let Some(callee) = callee_of(node, src) else {
        return;
    };
    push_call(facts, scope, callee, node);
    if let Some(call) = facts.calls.last_mut() {
        call.args = field(node, "arguments").map(|list| {
            named_children(list)
                .iter()
                .filter(|a| a.kind() == "argument")
                .count() as u32
        });
    }
}

/// A call whose result is a receiver, as a dotted chain with the calls' arguments left out:
/// `a.B(…)` → `a.B`, `new T<A>(…)` → `T`, `new T().B(…)` → `T().B`, a cast `((T) x)` → `T`;
/// `None` when a part is none of those.
fn chain(node: Node, src: &[u8]) -> Option<String> {
    let dotted = |n: Node| {
        let written: String = type_name(text(n, src)).split_whitespace().collect();
        written
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'))
            .then_some(written)
    };
    match node.kind() {
        "object_creation_expression" => dotted(field(node, "type")?),
        "parenthesized_expression" => {
            let inner = named_children(node).into_iter().next()?;
            (inner.kind() == "cast_expression")
                .then(|| dotted(field(inner, "type")?))
                .flatten()
        }
        "invocation_expression" => {
            let function = field(node, "function")?;
            match function.kind() {
                "identifier" | "generic_name" => Some(strip_generics(text(function, src))),
                "member_access_expression" => {
                    let name = strip_generics(text(field(function, "name")?, src));
                    let object = field(function, "expression")?;
                    match object.kind() {
                        "invocation_expression" | "object_creation_expression" => {
                            Some(format!("{}().{name}", chain(object, src)?))
                        }
                        _ if RECEIVERS.is_dotted(object) => {
                            Some(format!("{}.{name}", dotted(object)?))
                        }
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// `: this(…)` calls a constructor of the class around it, `: base(…)` one of its base class.
fn constructor_initializer(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(class) = scope
        .and_then(|s| facts.defs.get(s as usize))
        .and_then(|ctor| ctor.parent)
        .and_then(|p| facts.defs.get(p as usize))
    else {
        return;
    };
    let written = text(node, src).trim_start_matches(':').trim_start();
    let target = if written.starts_with("this") {
        Some(class.name.clone())
    } else if written.starts_with("base") {
        class.extends.first().cloned()
    } else {
        None
    };
    if let Some(target) = target {
        push_call(facts, scope, Callee::New(target), node);
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::extract::test_facts::{calls_in, member};
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    fn extract(source: &str) -> FileFacts {
        Extractor::default().extract("src/Shop/Cart.cs", Lang::CSharp, source)
    }

    const SOURCE: &str = r#"using System;
using Shop.Pay;
using static Shop.Util.Log;
using Store = Shop.Data.Repository;
global using Shop.Common;

namespace Shop
{
    /// <summary>A cart.</summary>
    public partial class Cart : Base<Item>, ITotals, IDisposable
    {
        private Gateway gateway;
        public Store Repo { get; set; }
        public Cart(Gateway gateway) : base(gateway) { this.gateway = gateway; }
        public Cart() : this(null) { }
        public int Total() => items.Count;
        public Receipt Checkout(Card card)
        {
            var other = new Cart(gateway);
            Cart typed = other;
            var receipt = other.Pay(card);
            other.Total();
            this.Total();
            base.Save();
            gateway.Charge(Total());
            Util.Log(card);
            Repo.Store(this);
            gateway?.Refund(card);
            Repo?.Items.Clear();
            Generic<int>(card);
            int Local(int x) { return Helper(x); }
            return receipt;
        }
    }

    interface ITotals : ISized { int Total(); }
    public struct Point { public int X; }
    public record Money(decimal Amount);
    enum Color { Red }
}
"#;

    #[test]
    fn types_members_namespaces_and_usings() {
        let f = extract(SOURCE);
        assert_eq!(f.package.as_deref(), Some("Shop"));
        let defs: Vec<(&str, NodeKind)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind))
            .collect();
        assert_eq!(
            defs,
            [
                ("Shop", NodeKind::Module),
                ("Cart", NodeKind::Class),
                ("Cart.Repo", NodeKind::Method),
                ("Cart.Cart", NodeKind::Method),
                ("Cart.Cart", NodeKind::Method),
                ("Cart.Total", NodeKind::Method),
                ("Cart.Checkout", NodeKind::Method),
                ("Cart.Checkout.Local", NodeKind::Function),
                ("ITotals", NodeKind::Interface),
                ("ITotals.Total", NodeKind::Method),
                ("Point", NodeKind::Struct),
                ("Money", NodeKind::Class),
                ("Color", NodeKind::Enum),
            ]
        );
        let cart = &f.defs[1];
        assert_eq!(cart.extends, ["Base"]);
        assert_eq!(cart.implements, ["ITotals", "IDisposable"]);
        assert_eq!(cart.doc, "A cart.");
        assert!(cart.exported && cart.signature.contains("partial"));
        assert_eq!(f.defs[8].extends, ["ISized"]);
        assert_eq!(f.defs[6].returns, "Receipt");
        let imports: Vec<(&str, bool, bool)> = f
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.wildcard, i.reexport))
            .collect();
        assert_eq!(
            imports,
            [
                ("System", true, false),
                ("Shop.Pay", true, false),
                ("Shop.Util.Log", true, true),
                ("Shop.Data", false, false),
                ("Shop.Common", true, false),
                ("Shop", true, false),
            ]
        );
        assert_eq!(f.imports[3].names[0].name, "Repository");
        assert_eq!(f.imports[3].names[0].alias.as_deref(), Some("Store"));
        // Only the `global using` holds in every file.
        assert_eq!(f.global_imports, [4]);
        assert!(
            f.attr_bindings
                .contains(&(1, "gateway".into(), "Gateway".into()))
        );
        assert!(
            f.attr_bindings
                .contains(&(1, "Repo".into(), "Store".into()))
        );
    }

    #[test]
    fn calls_with_receivers_constructors_and_bindings() {
        let f = extract(SOURCE);
        let calls = calls_in(&f, "Cart.Checkout");
        for expected in [
            Callee::New("Cart".into()),
            member(Receiver::Name("other".into()), "Pay"),
            member(Receiver::Name("other".into()), "Total"),
            member(Receiver::SelfRef, "Total"),
            member(Receiver::Super, "Save"),
            member(Receiver::Name("gateway".into()), "Charge"),
            Callee::Name("Total".into()),
            member(Receiver::Name("Util".into()), "Log"),
            member(Receiver::Name("Repo".into()), "Store"),
            member(Receiver::Name("gateway".into()), "Refund"),
            member(Receiver::Path("Repo.Items".into()), "Clear"),
            Callee::Name("Generic".into()),
        ] {
            assert!(
                calls.contains(&expected),
                "missing {expected:?} in {calls:#?}"
            );
        }
        assert_eq!(
            calls_in(&f, "Cart.Checkout.Local"),
            [Callee::Name("Helper".into())]
        );
        // `: base(…)` and `: this(…)` call constructors.
        let ctors: Vec<Callee> = f
            .calls
            .iter()
            .filter(|c| c.caller == Some(3) || c.caller == Some(4))
            .map(|c| c.callee.clone())
            .collect();
        assert_eq!(
            ctors,
            [Callee::New("Base".into()), Callee::New("Cart".into())]
        );
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
            callee: member(Receiver::Name("other".into()), "Pay"),
        }));
    }

    #[test]
    fn file_scoped_namespaces_nested_namespaces_and_extension_methods() {
        let f = extract(
            "namespace Shop.Core;\npublic static class Ext {\n  public static int Twice(this Money m) => m.Half();\n}\n",
        );
        assert_eq!(f.package.as_deref(), Some("Shop.Core"));
        let modules: Vec<&str> = f.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(modules, ["Shop.Core", "Shop"]);
        assert!(f.defs[2].signature.contains("(this Money m)"));
        let nested = extract("namespace A { namespace B { class C { } } }\n");
        assert_eq!(nested.package.as_deref(), Some("A"));
        assert!(
            nested
                .defs
                .iter()
                .any(|d| d.name == "A.B" && d.kind == NodeKind::Module)
        );
        assert!(
            nested
                .imports
                .iter()
                .any(|i| i.module == "A.B" && i.wildcard)
        );
    }

    #[test]
    fn odd_input_does_not_panic() {
        for source in [
            "",
            "class",
            "namespace { class A : { void M( { x.?.(); } }",
            "using static;\nusing = ;\nclass A { A() : base( }",
            "class A { void M() { new (); a?.b?.(); nameof(M); } }",
        ] {
            let _ = extract(source);
        }
    }
}
