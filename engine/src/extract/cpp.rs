//! C++: `#include`s, namespaces, classes, structs, unions and enums with their bases, functions
//! and methods (in-class and out-of-line `A::f`), typed locals, parameters and fields, and calls.

use tree_sitter::Node;

use super::c::{self, function_declarator, variable_name};
use super::{
    field, header_before_body, line, named_children, new_def, push_call, push_children, text,
};
use crate::facts::{Binding, Callee, Def, FileFacts, Receiver};
use crate::graph::NodeKind;

/// Class templates of the standard library that hold or point at one object of their first
/// argument's type: `p->f()` through them is a call on that object, `p.reset()` one of theirs.
/// A template whose name ends in `ptr`/`Ptr` (a project's own smart pointer) is read the same
/// way. Such a variable `p` is bound to the template and `p->` to the object's type.
const HOLDERS: &[&str] = &[
    "unique_ptr",
    "shared_ptr",
    "weak_ptr",
    "optional",
    "reference_wrapper",
    "atomic",
];

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut cursor = root.walk();
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root, None)];
    let mut anonymous: Vec<(u32, u32)> = Vec::new();
    while let Some((node, scope)) = stack.pop() {
        if c::preprocessor(node, src, facts) {
            continue;
        }
        match node.kind() {
            // A namespace is a node of the graph; what it holds stays at file level, where a
            // name is looked up (the resolver does not model namespace scopes).
            "namespace_definition" => {
                // What an anonymous namespace holds is seen by its own file only.
                if field(node, "name").is_none() {
                    anonymous.push((line(node), super::end_line(node)));
                }
                if let Some(name) = field(node, "name") {
                    let mut def = new_def(facts, NodeKind::Module, text(name, src), None, node);
                    def.signature = header_before_body(node, field(node, "body"), src);
                    facts.defs.push(def);
                }
                if let Some(body) = field(node, "body") {
                    stack.push((body, scope));
                }
                continue;
            }
            "function_definition" => {
                let idx = function(node, scope, src, facts);
                if let Some(body) = field(node, "body") {
                    stack.push((body, idx.or(scope)));
                }
                // Constructor initializers (`: base_(make())`) run in the constructor.
                for child in named_children(node) {
                    if child.kind() == "field_initializer_list" {
                        stack.push((child, idx.or(scope)));
                    }
                }
                continue;
            }
            "class_specifier" | "struct_specifier" | "union_specifier" | "enum_specifier" => {
                if let Some(idx) = class(node, scope, src, facts) {
                    if let Some(body) = field(node, "body") {
                        stack.push((body, Some(idx)));
                    }
                    continue;
                }
            }
            // `typedef ns::A A;` brings a class into another namespace: no new type.
            "type_definition" if !renames_nothing(node, src) => {
                c::type_definition(node, scope, src, facts);
            }
            "field_declaration" if is_type(facts, scope) => {
                field_declaration(node, scope, src, facts)
            }
            "declaration" | "condition_declaration" | "for_range_loop" if scope.is_some() => {
                declaration(node, scope, src, facts);
            }
            "call_expression" => call(node, scope, src, facts),
            "new_expression" => {
                if let Some(ty) = field(node, "type").and_then(|t| type_name(t, src)) {
                    push_call(facts, scope, Callee::New(ty), node);
                }
            }
            _ => {}
        }
        push_children(&mut cursor, node, scope, &mut stack);
    }
    for def in facts.defs.iter_mut().filter(|d| d.parent.is_none()) {
        if anonymous
            .iter()
            .any(|&(from, to)| from <= def.start_line && def.end_line <= to)
        {
            def.exported = false;
        }
    }
}

/// Whether a typedef gives a class its own name again (`typedef vector::BitVector BitVector;`).
fn renames_nothing(node: Node, src: &[u8]) -> bool {
    let Some(ty) = field(node, "type").filter(|t| {
        matches!(
            t.kind(),
            "type_identifier" | "qualified_identifier" | "template_type"
        )
    }) else {
        return false;
    };
    let written = last_segment(text(ty, src));
    let mut cursor = node.walk();
    let declarators: Vec<Node> = node
        .children_by_field_name("declarator", &mut cursor)
        .collect();
    !declarators.is_empty()
        && declarators
            .iter()
            .all(|d| d.kind() == "type_identifier" && text(*d, src) == written)
}

/// Whether definition `scope` is a class, struct or union.
fn is_type(facts: &FileFacts, scope: Option<u32>) -> bool {
    scope
        .and_then(|s| facts.defs.get(s as usize))
        .is_some_and(|d| d.kind.is_type())
}

/// A class, struct, union or enum with a body, its bases as `extends`.
fn class(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) -> Option<u32> {
    let body = field(node, "body")?;
    let name = last_segment(text(field(node, "name")?, src));
    let kind = match node.kind() {
        "class_specifier" => NodeKind::Class,
        "enum_specifier" => NodeKind::Enum,
        _ => NodeKind::Struct,
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    doc(&mut def, node, src);
    def.signature = header_before_body(node, Some(body), src);
    for clause in named_children(node) {
        if clause.kind() != "base_class_clause" {
            continue;
        }
        def.extends.extend(
            named_children(clause)
                .into_iter()
                .filter(|b| !matches!(b.kind(), "access_specifier" | "virtual" | "comment"))
                .filter_map(|b| type_name(b, src)),
        );
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    Some(idx)
}

/// A function or method definition; `None` when its name is not a name (a conversion operator
/// written through a macro, an error). `A::f` outside `A` is a method whose qualified name is
/// `A.f` (`Outer::Inner::f`: `Outer.Inner.f`) and that has no parent: it joins its class once
/// the resolver knows the class.
fn function(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) -> Option<u32> {
    let declarator = function_declarator(field(node, "declarator")?)?;
    let named = field(declarator, "declarator")?;
    let in_type = is_type(facts, scope);
    let (owner, name) = match named.kind() {
        "identifier" | "field_identifier" | "destructor_name" | "operator_name" => {
            (None, text(named, src).to_owned())
        }
        "template_function" => (None, text(field(named, "name")?, src).to_owned()),
        "qualified_identifier" => {
            let (path, name) = qualified(named, src)?;
            (Some(path.replace("::", ".")), name)
        }
        _ => return None,
    };
    let kind = if in_type || owner.is_some() {
        NodeKind::Method
    } else {
        NodeKind::Function
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    if let Some(owner) = &owner
        && !in_type
    {
        def.qualified = format!("{owner}.{name}");
    }
    doc(&mut def, node, src);
    def.signature = header_before_body(node, field(node, "body"), src);
    def.exported = !named_children(node)
        .iter()
        .any(|c| c.kind() == "storage_class_specifier" && text(*c, src) == "static")
        || in_type;
    if let Some(ty) = field(node, "type").and_then(|t| type_name(t, src))
        && !returns_pointer_to_function(declarator)
    {
        def.returns = ty;
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    if let Some(params) = field(declarator, "parameters") {
        for param in named_children(params) {
            typed(param, Some(idx), src, facts);
        }
    }
    Some(idx)
}

/// Whether the function's declarator returns a pointer or reference only in its parameters'
/// wrapper (`int (*f(int))(char)`): then its written type is not what it returns.
fn returns_pointer_to_function(declarator: Node) -> bool {
    declarator
        .parent()
        .is_some_and(|p| p.kind() == "parenthesized_declarator")
}

/// A field of a class: its declared type for `field_.f()` and `this->field_->f()`.
fn field_declaration(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(class) = scope else {
        return;
    };
    let Some(written) = field(node, "type") else {
        return;
    };
    let ty = type_name(written, src);
    let pointed = pointee(written, src);
    let mut cursor = node.walk();
    for declarator in node.children_by_field_name("declarator", &mut cursor) {
        if declarator.kind() == "function_declarator" {
            continue;
        }
        if let Some(name) = declared_name(declarator, src) {
            if let Some(ty) = &ty {
                facts
                    .attr_bindings
                    .push((class, name.to_owned(), ty.clone()));
            }
            if let Some(pointed) = &pointed {
                facts
                    .attr_bindings
                    .push((class, format!("{name}->"), pointed.clone()));
            }
        }
    }
}

/// Locals: a variable declared with a type (`A a;`, `A* p = …;`, `auto x = new A;`) is bound to
/// it; every declared name hides functions of its name.
fn declaration(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let written = field(node, "type");
    let auto = written.is_some_and(|t| t.kind() == "placeholder_type_specifier");
    let mut declarators: Vec<Node> = {
        let mut cursor = node.walk();
        node.children_by_field_name("declarator", &mut cursor)
            .collect()
    };
    if node.kind() == "for_range_loop" {
        declarators.clear();
        declarators.extend(field(node, "declarator"));
    }
    for declarator in declarators {
        let Some(name) = declared_name(declarator, src) else {
            continue;
        };
        facts.locals.push((scope, name.to_owned()));
        match written {
            Some(_) if auto => {
                if let Some(type_name) =
                    field(declarator, "value").and_then(|v| constructed(v, src))
                {
                    facts.bindings.push(Binding {
                        scope,
                        var: name.to_owned(),
                        type_name,
                    });
                }
            }
            Some(written) => bind(scope, name, written, src, facts),
            None => {}
        }
    }
}

/// `new A(…)`, `A(…)` or `std::make_unique<A>(…)`: the type a value is made of.
fn constructed(value: Node, src: &[u8]) -> Option<String> {
    match value.kind() {
        "new_expression" => type_name(field(value, "type")?, src),
        "call_expression" => {
            let function = field(value, "function")?;
            let name = text(function, src);
            if name.contains("make_unique") || name.contains("make_shared") {
                let args = named_children(function)
                    .into_iter()
                    .find(|c| c.kind() == "template_argument_list")
                    .or_else(|| {
                        field(function, "name")
                            .and_then(|n| field(n, "arguments"))
                            .filter(|a| a.kind() == "template_argument_list")
                    })?;
                return named_children(args)
                    .into_iter()
                    .next()
                    .and_then(|t| type_name(t, src));
            }
            None
        }
        _ => None,
    }
}

/// A parameter: its name hides functions of that name and is bound to its type.
fn typed(param: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    if !matches!(
        param.kind(),
        "parameter_declaration" | "optional_parameter_declaration"
    ) {
        return;
    }
    let Some(name) = field(param, "declarator").and_then(|d| declared_name(d, src)) else {
        return;
    };
    facts.locals.push((scope, name.to_owned()));
    if let Some(written) = field(param, "type") {
        bind(scope, name, written, src, facts);
    }
}

/// The name a declarator declares as a variable or field (`*p`, `&r`, `a[3]`, `x = 1`).
fn declared_name<'s>(declarator: Node, src: &'s [u8]) -> Option<&'s str> {
    let mut current = declarator;
    for _ in 0..16 {
        match current.kind() {
            "identifier" | "field_identifier" => return Some(text(current, src)),
            "function_declarator" => return variable_name(current, src),
            _ => {
                current = field(current, "declarator").or_else(|| {
                    named_children(current).into_iter().find(|c| {
                        c.kind().ends_with("declarator") || c.kind().ends_with("identifier")
                    })
                })?;
            }
        }
    }
    None
}

/// The class a written type names, as its last segment: `const ns::A&` → `A`,
/// `std::unique_ptr<A>` → `A`; `None` for a primitive, `auto` or a type of no name.
fn type_name(node: Node, src: &[u8]) -> Option<String> {
    match node.kind() {
        "type_identifier" => Some(text(node, src).to_owned()),
        "qualified_identifier" => {
            let inner = field(node, "name")?;
            if inner.kind() == "template_type" {
                return type_name(inner, src);
            }
            let (path, name) = qualified(node, src)?;
            (path != "std").then_some(name)
        }
        "template_type" => Some(text(field(node, "name")?, src).to_owned()),
        "class_specifier" | "struct_specifier" | "union_specifier" | "enum_specifier" => {
            field(node, "name").and_then(|n| type_name(n, src))
        }
        "type_descriptor" => type_name(field(node, "type")?, src),
        "dependent_type" => None,
        _ => None,
    }
}

/// The type of the object a smart pointer or holder type points at (`std::unique_ptr<A>` → `A`);
/// `None` for any other type.
fn pointee(node: Node, src: &[u8]) -> Option<String> {
    let template = match node.kind() {
        "qualified_identifier" => field(node, "name").filter(|n| n.kind() == "template_type")?,
        "template_type" => node,
        _ => return None,
    };
    let name = text(field(template, "name")?, src);
    if !(HOLDERS.contains(&name) || name.ends_with("ptr") || name.ends_with("Ptr")) {
        return None;
    }
    let first = named_children(field(template, "arguments")?)
        .into_iter()
        .next()?;
    type_name(field(first, "type").unwrap_or(first), src)
}

/// Binds `var` to its written type and, for a smart pointer, `var->` to what it points at.
fn bind(scope: Option<u32>, var: &str, written: Node, src: &[u8], facts: &mut FileFacts) {
    if let Some(type_name) = type_name(written, src) {
        facts.bindings.push(Binding {
            scope,
            var: var.to_owned(),
            type_name,
        });
    }
    if let Some(type_name) = pointee(written, src) {
        facts.bindings.push(Binding {
            scope,
            var: format!("{var}->"),
            type_name,
        });
    }
}

/// `a::b::f` as (`a::b`, `f`), template arguments of the name left out; `None` when the name is
/// not a plain one (an operator, a destructor).
fn qualified(node: Node, src: &[u8]) -> Option<(String, String)> {
    let mut path: Vec<String> = Vec::new();
    let mut current = node;
    for _ in 0..16 {
        if current.kind() != "qualified_identifier" {
            break;
        }
        if let Some(scope) = field(current, "scope") {
            let segment = match scope.kind() {
                "template_type" => text(field(scope, "name")?, src),
                _ => text(scope, src),
            };
            path.push(segment.to_owned());
        }
        current = field(current, "name")?;
    }
    let name = match current.kind() {
        "identifier" | "field_identifier" | "type_identifier" | "destructor_name"
        | "operator_name" => text(current, src),
        "template_function" | "template_method" | "template_type" => {
            text(field(current, "name")?, src)
        }
        _ => return None,
    };
    Some((path.join("::"), name.to_owned()))
}

/// `a::b::C` → `C`, `C<T>` → `C`.
fn last_segment(written: &str) -> String {
    let plain = written.split('<').next().unwrap_or(written);
    plain.rsplit("::").next().unwrap_or(plain).trim().to_owned()
}

/// A call: `f()`, `f<T>()`, `A::f()` / `ns::f()`, `obj.f()`, `p->f()`, `this->f()`. A call of
/// the standard library's (`std::…`) or of a value (`v[0]()`, `(*fp)()`) names no project
/// function.
fn call(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(function) = field(node, "function") else {
        return;
    };
    let callee = match function.kind() {
        "identifier" => Callee::Name(text(function, src).to_owned()),
        "template_function" => match field(function, "name") {
            Some(name) => Callee::Name(text(name, src).to_owned()),
            None => return,
        },
        "qualified_identifier" => {
            let Some((path, name)) = qualified(function, src) else {
                return;
            };
            match path.as_str() {
                // `::f()`: the global one.
                "" => Callee::Name(name),
                "std" => return,
                _ if path.starts_with("std::") => return,
                _ => Callee::Scoped { path, name },
            }
        }
        "field_expression" => {
            let Some(member) = field(function, "field") else {
                return;
            };
            let name = match member.kind() {
                "field_identifier" => text(member, src).to_owned(),
                "template_method" => match field(member, "name") {
                    Some(name) => text(name, src).to_owned(),
                    None => return,
                },
                // `obj.Base::f()`: that class's method, not an override.
                "qualified_identifier" => match qualified(member, src) {
                    Some((path, name)) => {
                        push_call(facts, scope, Callee::Scoped { path, name }, node);
                        return;
                    }
                    None => return,
                },
                _ => return,
            };
            // `p->f()` on a name: `p->`, which a smart pointer binds to what it points at (the
            // resolver reads `p` when nothing binds `p->`).
            let arrow = field(function, "operator").is_some_and(|o| text(o, src) == "->");
            let receiver = match field(function, "argument") {
                Some(r) if arrow && r.kind() == "identifier" => {
                    Receiver::Name(format!("{}->", text(r, src)))
                }
                Some(r) => receiver(r, src),
                None => Receiver::Other,
            };
            Callee::Member { receiver, name }
        }
        _ => return,
    };
    push_call(facts, scope, callee, node);
}

/// What stands before `.` or `->`: `this`, a name, a chain of fields (`a.b`, `this->b`), a call
/// of a named function (`make().f()`), or anything else.
fn receiver(node: Node, src: &[u8]) -> Receiver {
    match node.kind() {
        "this" => Receiver::SelfRef,
        "identifier" => Receiver::Name(text(node, src).to_owned()),
        "parenthesized_expression" => match named_children(node).as_slice() {
            [inner] => receiver(*inner, src),
            _ => Receiver::Other,
        },
        // `items[i].f()`: an element of a pointer or array is of its declared type.
        "subscript_expression" => {
            field(node, "argument").map_or(Receiver::Other, |a| receiver(a, src))
        }
        // `(*p).f()`, `(*this).f()`.
        "pointer_expression" if text(node, src).starts_with('*') => {
            field(node, "argument").map_or(Receiver::Other, |a| receiver(a, src))
        }
        "field_expression" => match chain(node, src) {
            Some(path) => Receiver::Path(path),
            None => Receiver::Other,
        },
        // `make().f()`, `a.b().f()`: what the call returns (as `a.b`).
        "call_expression" => match field(node, "function") {
            Some(f) if f.kind() == "identifier" => Receiver::Call(text(f, src).to_owned()),
            Some(f) if f.kind() == "field_expression" => chain(f, src)
                .filter(|c| !c.starts_with("this."))
                .map_or(Receiver::Other, Receiver::Call),
            _ => Receiver::Other,
        },
        _ => Receiver::Other,
    }
}

/// `a.b->c` as `a.b.c`, `this->x` as `this.x`; `None` unless a chain of names down to a name or
/// `this`.
fn chain(node: Node, src: &[u8]) -> Option<String> {
    match node.kind() {
        "this" => Some("this".to_owned()),
        "identifier" => Some(text(node, src).to_owned()),
        "field_expression" => {
            let member = field(node, "field").filter(|m| m.kind() == "field_identifier")?;
            let object = chain(field(node, "argument")?, src)?;
            Some(format!("{object}.{}", text(member, src)))
        }
        _ => None,
    }
}

/// The doc comment right above a definition (or above its `template <…>` line).
fn doc(def: &mut Def, node: Node, src: &[u8]) {
    let anchor = match node.parent() {
        Some(p) if p.kind() == "template_declaration" => p,
        _ => node,
    };
    if let Some(prev) = anchor.prev_named_sibling()
        && prev.kind() == "comment"
        && prev.end_position().row + 1 >= anchor.start_position().row
    {
        def.doc = super::doc_line(text(prev, src));
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::extract::test_facts::member;
    use crate::facts::{Callee, FileFacts, Receiver};
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    fn facts(source: &str) -> FileFacts {
        Extractor::default().extract("src/a.cc", Lang::Cpp, source)
    }

    fn calls(f: &FileFacts) -> Vec<(Option<String>, Callee)> {
        f.calls
            .iter()
            .map(|c| {
                let caller = c.caller.map(|d| f.defs[d as usize].qualified.clone());
                (caller, c.callee.clone())
            })
            .collect()
    }

    #[test]
    fn namespaces_classes_methods_in_class_and_out_of_line() {
        let f = facts(
            "namespace db {\n/// A table.\nclass Table : public Base, private virtual ns::Mixin<int> {\n public:\n  Table(int n) : n_(n) {}\n  ~Table() {}\n  int size() const { return n_; }\n  void put(int k);\n private:\n  int n_;\n};\nstruct Point { int x; };\nunion Value { int i; };\nenum class Color { Red };\nvoid Table::put(int k) {}\ntemplate <typename T>\nT max(T a, T b) { return a; }\nstatic int helper() { return 0; }\nnamespace {\nint hidden() { return 1; }\n}\n}\n",
        );
        let defs: Vec<(&str, &str, NodeKind, bool)> = f
            .defs
            .iter()
            .map(|d| (d.name.as_str(), d.qualified.as_str(), d.kind, d.exported))
            .collect();
        assert_eq!(
            defs,
            [
                ("db", "db", NodeKind::Module, true),
                ("Table", "Table", NodeKind::Class, true),
                ("Table", "Table.Table", NodeKind::Method, true),
                ("~Table", "Table.~Table", NodeKind::Method, true),
                ("size", "Table.size", NodeKind::Method, true),
                ("Point", "Point", NodeKind::Struct, true),
                ("Value", "Value", NodeKind::Struct, true),
                ("Color", "Color", NodeKind::Enum, true),
                ("put", "Table.put", NodeKind::Method, true),
                ("max", "max", NodeKind::Function, true),
                ("helper", "helper", NodeKind::Function, false),
                ("hidden", "hidden", NodeKind::Function, false),
            ]
        );
        // The out-of-line method has no parent in its file: the resolver gives it its class.
        assert_eq!(f.defs[8].parent, None);
        assert_eq!(f.defs[1].extends, ["Base", "Mixin"]);
        assert_eq!(f.defs[1].doc, "A table.");
        // A prototype in the class (`void put(int k);`) is no definition, the field a binding.
        assert_eq!(f.attr_bindings, []);
    }

    #[test]
    fn calls_keep_their_receivers() {
        let f = facts(
            "void Shop::run(Cart& cart, Cart* p, std::unique_ptr<Cart> owned) {\n  total();\n  this->total();\n  cart.add(1);\n  p->add(2);\n  owned->add(3);\n  owned.reset();\n  Cart::make();\n  billing::charge();\n  ::exit(0);\n  std::sort(a, b);\n  items_[0].check();\n  cart.line().price();\n  this->cart_.add(4);\n  convert<int>(x);\n  (*p).add(5);\n}\n",
        );
        let name = |n: &str| Receiver::Name(n.into());
        let run = Some("Shop.run".to_owned());
        assert_eq!(
            calls(&f),
            [
                (run.clone(), Callee::Name("total".into())),
                (run.clone(), member(Receiver::SelfRef, "total")),
                (run.clone(), member(name("cart"), "add")),
                (run.clone(), member(name("p->"), "add")),
                (run.clone(), member(name("owned->"), "add")),
                (run.clone(), member(name("owned"), "reset")),
                (
                    run.clone(),
                    Callee::Scoped {
                        path: "Cart".into(),
                        name: "make".into()
                    }
                ),
                (
                    run.clone(),
                    Callee::Scoped {
                        path: "billing".into(),
                        name: "charge".into()
                    }
                ),
                (run.clone(), Callee::Name("exit".into())),
                (run.clone(), member(name("items_"), "check")),
                (
                    run.clone(),
                    member(Receiver::Call("cart.line".into()), "price")
                ),
                (run.clone(), member(name("cart"), "line")),
                (
                    run.clone(),
                    member(Receiver::Path("this.cart_".into()), "add")
                ),
                (run.clone(), Callee::Name("convert".into())),
                (run, member(name("p"), "add")),
            ]
        );
    }

    #[test]
    fn parameters_locals_and_smart_pointers_are_typed() {
        let f = facts(
            "void run(const Cart& cart, std::shared_ptr<Order> order, int n) {\n  Cart copy;\n  auto made = new Order();\n  auto unique = std::make_unique<Cart>();\n  std::string s;\n  for (const Item& item : items) {}\n}\nclass Shop {\n  Cart* cart_;\n  scoped_ptr<Order> order_;\n  std::vector<Item> items_;\n};\n",
        );
        let bindings: Vec<(&str, &str)> = f
            .bindings
            .iter()
            .map(|b| (b.var.as_str(), b.type_name.as_str()))
            .collect();
        assert_eq!(
            bindings,
            [
                ("cart", "Cart"),
                ("order", "shared_ptr"),
                ("order->", "Order"),
                ("copy", "Cart"),
                ("made", "Order"),
                ("unique", "Cart"),
                ("item", "Item"),
            ]
        );
        let fields: Vec<(&str, &str)> = f
            .attr_bindings
            .iter()
            .map(|(_, a, t)| (a.as_str(), t.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("cart_", "Cart"),
                ("order_", "scoped_ptr"),
                ("order_->", "Order"),
                ("items_", "vector"),
            ]
        );
        // Every declared name hides functions of its name.
        assert!(f.locals.iter().any(|(_, n)| n == "n"));
        assert!(f.locals.iter().any(|(_, n)| n == "s"));
    }

    #[test]
    fn includes_and_typedefs() {
        let f = facts(
            "#include \"db/table.h\"\n#include <vector>\ntypedef vector::BitVector BitVector;\ntypedef Table Alias;\n",
        );
        let includes: Vec<&str> = f.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(includes, ["db/table.h", "<vector>"]);
        // A typedef giving a class its own name again is no type; a new name is one.
        let defs: Vec<&str> = f.defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(defs, ["Alias"]);
    }
}
