//! Scala (2 and 3): packages (chained clauses, blocks, package objects), imports, classes, case
//! classes, objects and companions, traits, enums, defs, vals, givens, extension methods,
//! implicit classes, type aliases, calls (bare, dotted, infix, paren-less, `new`) and bindings.

use tree_sitter::Node;

use super::scala_bare::bare_call;
use super::{
    ReceiverSyntax, doc_line, end_line, field, header_before_body, line, named_children, new_def,
    push_call, push_children, signature, strip_generics, text,
};
use crate::facts::{
    CallBinding, Callee, Def, ElementBinding, FileFacts, Import, ImportedName, Receiver,
};
use crate::graph::NodeKind;

/// Collections (and `Option`) whose elements the lambdas of `ELEMENT_METHODS` are given: a
/// type written `List[T]` is read `T[]`.
const COLLECTIONS: &[&str] = &[
    "Array",
    "ArrayBuffer",
    "Buffer",
    "IndexedSeq",
    "Iterable",
    "Iterator",
    "LinearSeq",
    "List",
    "ListBuffer",
    "Option",
    "Seq",
    "Set",
    "SortedSet",
    "Stream",
    "Traversable",
    "TraversableOnce",
    "Vector",
];

/// Collection methods whose lambda is given each element (`xs.foreach(x => …)`, `xs map
/// (_.f)`).
const ELEMENT_METHODS: &[&str] = &[
    "collect",
    "count",
    "dropWhile",
    "exists",
    "filter",
    "filterNot",
    "find",
    "flatMap",
    "forall",
    "foreach",
    "groupBy",
    "map",
    "maxBy",
    "minBy",
    "partition",
    "sortBy",
    "span",
    "takeWhile",
    "withFilter",
];

/// Collection methods returning a collection of the same elements (`xs.filter(…)`,
/// `xs.toList`): an element of their result is one of their receiver's.
const SAME_ELEMENTS: &[&str] = &[
    "distinct",
    "drop",
    "dropWhile",
    "filter",
    "filterNot",
    "init",
    "iterator",
    "reverse",
    "sortBy",
    "sortWith",
    "sorted",
    "tail",
    "take",
    "takeWhile",
    "toIndexedSeq",
    "toIterator",
    "toList",
    "toSeq",
    "toSet",
    "toVector",
    "view",
    "withFilter",
];

/// Infix operators that compare or combine values of any type: never a project method.
const VALUE_OPERATORS: &[&str] = &["==", "!=", "eq", "ne", "&&", "||", "=", "->", "<-", "=>"];

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut cursor = root.walk();
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root, None)];
    while let Some((node, scope)) = stack.pop() {
        match node.kind() {
            "package_clause" => {
                package(node, src, facts);
                if let Some(body) = field(node, "body") {
                    push_children(&mut cursor, body, scope, &mut stack);
                }
                continue;
            }
            // `package object p { … }`: its members are the package `….p`'s own.
            "package_object" => {
                package_object(node, src, facts);
                if let Some(body) = field(node, "body") {
                    push_children(&mut cursor, body, scope, &mut stack);
                }
                continue;
            }
            "import_declaration" => {
                import(node, src, facts);
                continue;
            }
            "class_definition" | "trait_definition" | "object_definition" | "enum_definition" => {
                let Some(idx) = type_definition(node, scope, src, facts) else {
                    continue;
                };
                if let Some(params) = field(node, "class_parameters") {
                    class_parameters(params, idx, src, facts);
                }
                // Pushed last to first: popped in source order.
                if let Some(body) = field(node, "body") {
                    push_children(&mut cursor, body, Some(idx), &mut stack);
                }
                if let Some(extend) = field(node, "extend") {
                    stack.push((extend, Some(idx)));
                }
                continue;
            }
            "type_definition" => {
                type_alias(node, scope, src, facts);
                continue;
            }
            "extension_definition" => {
                extension(node, scope, src, facts, &mut stack);
                continue;
            }
            "function_definition" | "function_declaration" => {
                let idx = function(node, scope, None, src, facts);
                if let Some(body) = field(node, "body") {
                    stack.push((body, Some(idx)));
                }
                continue;
            }
            "val_definition" | "var_definition" | "val_declaration" | "var_declaration" => {
                if let Some(idx) = value(node, scope, src, facts) {
                    if let Some(v) = field(node, "value") {
                        stack.push((v, Some(idx)));
                    }
                    continue;
                }
            }
            "given_definition" => {
                if let Some(idx) = given(node, scope, src, facts) {
                    push_children(&mut cursor, node, Some(idx), &mut stack);
                    continue;
                }
            }
            // `extends Base(args)` (a class's, an enum case's) builds the superclass.
            "extends_clause" if field(node, "arguments").is_some() => {
                if let Some(ty) = field(node, "type") {
                    push_call(facts, scope, Callee::New(type_name(text(ty, src))), node);
                }
            }
            "instance_expression" => {
                if let Some(ty) = instance_type(node, src) {
                    push_call(facts, scope, Callee::New(ty), node);
                }
            }
            "call_expression" => call(node, scope, src, facts),
            "field_expression" if is_parenless_access(node) => {
                if let Some((object, name)) = field_access(node, src) {
                    let callee = Callee::Member {
                        receiver: receiver(object, src),
                        name,
                    };
                    push_call(facts, scope, callee, node);
                }
            }
            "infix_expression" => infix(node, scope, src, facts),
            "typed_pattern" => typed_pattern(node, scope, src, facts),
            "for_expression" => for_generators(node, scope, src, facts),
            "self_type" => {
                self_type(node, scope, src, facts);
                continue;
            }
            "identifier" => {
                if let Some(name) = bare_call(node, src) {
                    push_call(facts, scope, Callee::Name(name), node);
                }
            }
            _ => {}
        }
        push_children(&mut cursor, node, scope, &mut stack);
    }
    // A file without a `package` clause is in the empty package, with the others alike.
    if facts.package.is_none() {
        facts.package = Some(String::new());
    }
}

/// A type name as the resolver reads it: type arguments, `_root_.` and spaces left out
/// (`Map[K, V]` → `Map`, `_root_.a.Foo` → `a.Foo`, `=> Foo` → `Foo`), a collection of one class
/// as its elements (`List[Foo]` → `Foo[]`).
fn type_name(written: &str) -> String {
    match collection_element(written) {
        Some(element) => format!("{element}[]"),
        None => class_name(written),
    }
}

/// `List[Foo]`, `mutable.ListBuffer[a.Foo]`, `List[A with B]` → `Foo`, `a.Foo`, `A`: the
/// element of a collection of one type argument naming a class (not a tuple, a function or a
/// collection).
fn collection_element(written: &str) -> Option<String> {
    let (outer, rest) = written.trim().split_once('[')?;
    let element = rest.trim_end().strip_suffix(']')?;
    let element = element.split(" with ").next().unwrap_or(element).trim();
    let outer: String = outer.split_whitespace().collect();
    let outer = outer.trim_start_matches("=>");
    let last = outer.rsplit('.').next().unwrap_or(outer);
    let plain = !element.is_empty()
        && element
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    (COLLECTIONS.contains(&last) && plain).then(|| element.to_owned())
}

/// A class named as written, type arguments and `_root_.` left out (`List[Foo]` → `List`): a
/// base's or an alias's target.
fn class_name(written: &str) -> String {
    let written: String = written.split_whitespace().collect();
    let written = written.trim_start_matches("=>");
    let written = written.strip_prefix("_root_.").unwrap_or(written);
    let name = strip_generics(written);
    name.trim_end_matches(['*', '?']).to_owned()
}

/// `package a.b` (appended to the package read so far: chained clauses nest) as a module; a
/// clause right after another (`package a` `package b`) renames that one's module (`a.b`).
fn package(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(name) = field(node, "name") else {
        return;
    };
    let written: String = text(name, src).split_whitespace().collect();
    let outer = facts.package.clone().unwrap_or_default();
    let full = if outer.is_empty() {
        written
    } else {
        format!("{outer}.{written}")
    };
    let header = match field(node, "body") {
        Some(body) => header_before_body(node, Some(body), src),
        None => signature(text(node, src)),
    };
    facts.package = Some(full.clone());
    if let Some(chained) = facts
        .defs
        .last_mut()
        .filter(|d| d.kind == NodeKind::Module && d.name == outer && !outer.is_empty())
    {
        chained.signature = signature(&format!("{} {header}", chained.signature));
        chained.name.clone_from(&full);
        chained.qualified = full;
        chained.end_line = super::end_line(node);
        return;
    }
    let mut def = new_def(facts, NodeKind::Module, &full, None, node);
    def.signature = header;
    facts.defs.push(def);
}

/// A package object: a module named `package.name`, which becomes the file's package.
fn package_object(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(name) = field(node, "name").map(|n| text(n, src)) else {
        return;
    };
    let full = match facts.package.as_deref() {
        Some(outer) if !outer.is_empty() => format!("{outer}.{name}"),
        _ => name.to_owned(),
    };
    let mut def = new_def(facts, NodeKind::Module, &full, None, node);
    def.signature = header_before_body(node, field(node, "body"), src);
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    facts.package = Some(full);
    // `package object p extends A with B`: the members of `A` and `B` are names of the package
    // (looked up as the object's, which extends no project type in the graph).
    if let Some(extend) = field(node, "extend") {
        for base in bases(extend, src) {
            facts.self_types.push((idx, base));
        }
    }
}

/// `import a.b.C`, `import a.b._` / `a.b.*`, `import a.b.{C, D => E, F as G, _}`, several
/// separated by commas. A selector renamed to `_` hides a name: no import.
fn import(node: Node, src: &[u8], facts: &mut FileFacts) {
    let mut path: Vec<&str> = Vec::new();
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    for (i, child) in children.iter().enumerate() {
        // The path's dots are in its field too.
        let is_path = node.field_name_for_child(i as u32) == Some("path");
        match child.kind() {
            _ if is_path && child.is_named() => path.push(text(*child, src)),
            _ if is_path => {}
            "namespace_wildcard" => {
                push_import(facts, node, &path, Vec::new(), true);
                path.clear();
            }
            "namespace_selectors" => {
                let mut names = Vec::new();
                for selector in named_children(*child) {
                    match selector.kind() {
                        "namespace_wildcard" => push_import(facts, node, &path, Vec::new(), true),
                        "identifier" => names.push(ImportedName {
                            name: text(selector, src).to_owned(),
                            alias: None,
                        }),
                        "arrow_renamed_identifier" | "as_renamed_identifier" => {
                            let (Some(name), Some(alias)) =
                                (field(selector, "name"), field(selector, "alias"))
                            else {
                                continue;
                            };
                            let alias = text(alias, src);
                            if alias != "_" {
                                names.push(ImportedName {
                                    name: text(name, src).to_owned(),
                                    alias: Some(alias.to_owned()),
                                });
                            }
                        }
                        _ => {}
                    }
                }
                if !names.is_empty() {
                    push_import(facts, node, &path, names, false);
                }
                path.clear();
            }
            "as_renamed_identifier" => {
                if let (Some(name), Some(alias)) = (field(*child, "name"), field(*child, "alias")) {
                    let names = vec![ImportedName {
                        name: text(name, src).to_owned(),
                        alias: Some(text(alias, src).to_owned()),
                    }];
                    push_import(facts, node, &path, names, false);
                }
                path.clear();
            }
            "," => {
                single_import(facts, node, &path);
                path.clear();
            }
            _ => {}
        }
    }
    single_import(facts, node, &path);
}

/// `import a.b.C`: module `a.b`, name `C`.
fn single_import(facts: &mut FileFacts, node: Node, path: &[&str]) {
    if let Some((name, module)) = path.split_last() {
        let names = vec![ImportedName {
            name: (*name).to_owned(),
            alias: None,
        }];
        push_import(facts, node, module, names, false);
    }
}

fn push_import(
    facts: &mut FileFacts,
    node: Node,
    module: &[&str],
    names: Vec<ImportedName>,
    wildcard: bool,
) {
    let module = module.join(".");
    let module = module.strip_prefix("_root_.").unwrap_or(&module).to_owned();
    if module.is_empty() && names.is_empty() {
        return;
    }
    facts.imports.push(Import {
        module,
        names,
        module_alias: None,
        wildcard,
        reexport: false,
        line: line(node),
    });
}

/// The words of a definition's `modifiers` (`case`, `abstract`, `implicit`, `private` …).
fn modifiers<'s>(node: Node, src: &'s [u8]) -> Vec<&'s str> {
    let mut words: Vec<&str> = named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "modifiers")
        .flat_map(|m| {
            let mut cursor = m.walk();
            m.children(&mut cursor)
                .map(|w| text(w, src))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut cursor = node.walk();
    words.extend(
        node.children(&mut cursor)
            .filter(|c| !c.is_named() && c.kind() == "case")
            .map(|c| text(c, src)),
    );
    words
}

/// Signature, visibility, annotations and the Scaladoc line.
fn fill(def: &mut Def, node: Node, body: Option<Node>, src: &[u8]) {
    def.signature = header_before_body(node, body, src);
    let words = modifiers(node, src);
    def.exported = !words.iter().any(|w| w.starts_with("private"));
    def.decorators = named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "annotation")
        .filter_map(|a| field(a, "name"))
        .map(|n| type_name(text(n, src)))
        .collect();
    if let Some(p) = node
        .prev_named_sibling()
        .filter(|p| p.kind() == "block_comment" && text(*p, src).starts_with("/**"))
    {
        def.doc = doc_line(text(p, src));
    }
}

/// The types an `extends A(args) with B with C` clause names, as written.
fn bases(extend: Node, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![extend];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "extends_clause" | "compound_type" => {
                let mut kids = named_children(n);
                kids.reverse();
                stack.extend(kids);
            }
            "type_identifier" | "stable_type_identifier" | "generic_type" | "annotated_type" => {
                let name = class_name(text(n, src));
                if !name.is_empty() {
                    out.push(name);
                }
            }
            _ => {}
        }
    }
    out
}

/// A class, case class, trait, object or enum. An object beside a class, trait or enum of its
/// name in the same scope (its companion) is that type: its members join the type's.
fn type_definition(
    node: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<u32> {
    let name = text(field(node, "name")?, src).to_owned();
    let kind = match node.kind() {
        "trait_definition" => NodeKind::Trait,
        "enum_definition" => NodeKind::Enum,
        _ => NodeKind::Class,
    };
    let is_object = node.kind() == "object_definition";
    let companion = facts.defs.iter().position(|d| {
        d.parent == scope && d.name == name && d.kind.is_type() && d.kind != NodeKind::Module
    });
    if let Some(existing) = companion {
        let idx = existing as u32;
        // The class comes after its object: the definition becomes the class's.
        if !is_object && let Some(d) = facts.defs.get_mut(existing) {
            d.kind = kind;
            d.start_line = line(node);
            d.end_line = super::end_line(node);
            let body = field(node, "body");
            fill(d, node, body, src);
            d.extends = field(node, "extend")
                .map(|e| bases(e, src))
                .unwrap_or_default();
            d.implements = d.extends.split_off(d.extends.len().min(1));
        }
        return Some(idx);
    }
    let mut def = new_def(facts, kind, &name, scope, node);
    fill(&mut def, node, field(node, "body"), src);
    if is_object {
        def.signature = format!("object {}", def.signature.trim_start_matches("object "));
    }
    // `extends A with B`: `A` the superclass (or the first trait), the rest mixed in.
    def.extends = field(node, "extend")
        .map(|e| bases(e, src))
        .unwrap_or_default();
    def.implements = def.extends.split_off(def.extends.len().min(1));
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    Some(idx)
}

/// `type A = B[C]`: a class whose members are `B`'s; an abstract `type A` defines nothing.
fn type_alias(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let (Some(name), Some(target)) = (field(node, "name"), field(node, "type")) else {
        return;
    };
    let mut def = new_def(facts, NodeKind::Class, text(name, src), scope, node);
    fill(&mut def, node, None, src);
    let target = class_name(text(target, src));
    if !target.is_empty() && !target.starts_with('(') {
        def.extends.push(target);
    }
    facts.defs.push(def);
}

/// Whether `scope` is a type (a method's owner).
fn in_type(facts: &FileFacts, scope: Option<u32>) -> bool {
    scope
        .and_then(|s| facts.defs.get(s as usize))
        .is_some_and(|d| d.kind.is_type() && d.kind != NodeKind::Module)
}

/// A `def` (a method in a type, else a function; `def this(…)` a constructor named as its
/// class) with its parameters' bindings. `extension` is the header of the extension clause a
/// def is written in, kept before its own signature.
fn function(
    node: Node,
    scope: Option<u32>,
    extension: Option<&str>,
    src: &[u8],
    facts: &mut FileFacts,
) -> u32 {
    let method = in_type(facts, scope);
    let written = field(node, "name").map_or("", |n| text(n, src));
    let name = match scope.and_then(|s| facts.defs.get(s as usize)) {
        Some(class) if written == "this" && method => class.name.clone(),
        _ => written.to_owned(),
    };
    let kind = if method {
        NodeKind::Method
    } else {
        NodeKind::Function
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    let body = field(node, "body");
    fill(&mut def, node, body, src);
    // `def f = …`: the header ends before `=`.
    def.signature = def.signature.trim_end_matches(['=', ' ']).to_owned();
    if let Some(header) = extension {
        def.signature = format!("{header} {}", def.signature);
    }
    if let Some(returns) = field(node, "return_type") {
        def.returns = type_name(text(returns, src));
    }
    // `def tpe: TypeEntity` (no parameter list): read like a `val` of its class, so a bare
    // `tpe.name` has its type.
    let parenless = !named_children(node)
        .iter()
        .any(|c| c.kind() == "parameters");
    if method
        && parenless
        && written != "this"
        && !def.returns.is_empty()
        && let Some(class) = scope
    {
        facts
            .attr_bindings
            .push((class, name.clone(), def.returns.clone()));
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    parameters(node, idx, src, facts);
    // `def this(…) = this(…)`: a constructor calling another of its class.
    if written == "this"
        && method
        && let Some(body) = body
        && let Some(first) = first_call(body)
        && field(first, "function").is_some_and(|f| text(f, src) == "this")
    {
        push_call(facts, Some(idx), Callee::New(name), first);
    }
    idx
}

/// The first call of a constructor's body (`this(…)`), itself or in its block.
fn first_call(body: Node) -> Option<Node> {
    match body.kind() {
        "call_expression" => Some(body),
        "block" | "indented_block" => named_children(body)
            .into_iter()
            .find(|c| c.kind() != "comment")
            .filter(|c| c.kind() == "call_expression"),
        _ => None,
    }
}

/// Each typed parameter of a def's parameter lists, bound in the def.
fn parameters(node: Node, def: u32, src: &[u8], facts: &mut FileFacts) {
    for param in named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "parameters")
        .flat_map(named_children)
        .filter(|p| p.kind() == "parameter")
    {
        if let (Some(name), Some(ty)) = (field(param, "name"), field(param, "type")) {
            bind(facts, Some(def), text(name, src), text(ty, src), span(node));
        }
    }
}

/// A class's parameters: typed names in the class; `val`/`var` ones, and a case class's, are
/// also members (recorded on the class).
fn class_parameters(node: Node, class: u32, src: &[u8], facts: &mut FileFacts) {
    let case = facts
        .defs
        .get(class as usize)
        .is_some_and(|d| d.signature.split_whitespace().any(|w| w == "case"));
    let mut lists = vec![node];
    let mut next = node.next_named_sibling();
    while let Some(n) = next.filter(|n| n.kind() == "class_parameters") {
        lists.push(n);
        next = n.next_named_sibling();
    }
    for param in lists
        .into_iter()
        .flat_map(named_children)
        .filter(|c| c.kind() == "class_parameter")
    {
        let (Some(name), Some(ty)) = (field(param, "name"), field(param, "type")) else {
            continue;
        };
        let (name, ty) = (text(name, src), text(ty, src));
        let is_member = case || {
            let mut cursor = param.walk();
            param
                .children(&mut cursor)
                .any(|c| matches!(c.kind(), "val" | "var"))
        };
        if is_member {
            facts
                .attr_bindings
                .push((class, name.to_owned(), type_name(ty)));
        }
        let class_span = node.parent().map_or(span(node), span);
        bind(facts, Some(class), name, ty, class_span);
    }
}

/// A `val`/`var`: in a type, a member (a method: Scala reads a val and a paren-less def alike)
/// whose type is recorded on the class; at the top of a file or package object, a function;
/// a local one bound (declared type, `new Foo`, `Foo(…)`, or what a call returns). Returns the
/// definition, if one was made, for the calls in its value.
fn value(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) -> Option<u32> {
    let name_node = field(node, "pattern").or_else(|| field(node, "name"))?;
    if name_node.kind() != "identifier" {
        return None;
    }
    let name = text(name_node, src).to_owned();
    let declared = field(node, "type").map(|t| type_name(text(t, src)));
    let value = field(node, "value");
    let constructed = value.and_then(|v| constructed_type(v, src));
    let member = in_type(facts, scope);
    let top = scope.is_none();
    if member {
        if let (Some(class), Some(ty)) = (scope, declared.clone().or(constructed.clone())) {
            facts.attr_bindings.push((class, name.clone(), ty));
        }
    } else if let Some(ty) = declared.clone().or(constructed) {
        bind(facts, scope, &name, &ty, to_block_end(node));
    } else if let Some(v) = value.filter(|v| v.kind() == "call_expression")
        && let Some(callee) = callee_of(v, src)
    {
        facts.call_bindings.push(CallBinding {
            scope,
            var: name.clone(),
            callee,
        });
        facts.call_binding_spans.push(to_block_end(node));
    }
    if !(member || top) {
        return None;
    }
    let kind = if member {
        NodeKind::Method
    } else {
        NodeKind::Function
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    fill(&mut def, node, value, src);
    def.signature = def.signature.trim_end_matches(['=', ' ']).to_owned();
    def.returns = declared.unwrap_or_default();
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    Some(idx)
}

/// A named `given` (`given name: T = …`, `given name: T with { … }`): a definition of its
/// type; an anonymous one defines nothing (its calls belong to the scope around).
fn given(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) -> Option<u32> {
    let name = text(field(node, "name")?, src).to_owned();
    let kind = if in_type(facts, scope) {
        NodeKind::Method
    } else {
        NodeKind::Function
    };
    let mut def = new_def(facts, kind, &name, scope, node);
    fill(&mut def, node, field(node, "body"), src);
    if let Some(ty) = field(node, "return_type") {
        def.returns = type_name(text(ty, src));
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    Some(idx)
}

/// `extension (x: T) def f …` / `extension (x: T) { def f …; def g … }`: each def a function
/// whose signature starts with the clause (`extension (x: T) def f`), `x` bound to `T`.
fn extension<'t>(
    node: Node<'t>,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
    stack: &mut Vec<(Node<'t>, Option<u32>)>,
) {
    let header = header_before_body(node, field(node, "body"), src);
    let receiver = named_children(node)
        .into_iter()
        .filter(|c| c.kind() == "parameters")
        .flat_map(named_children)
        .find(|p| p.kind() == "parameter")
        .and_then(|p| Some((text(field(p, "name")?, src), text(field(p, "type")?, src))));
    // One def, several defs as bodies of their own, or a block of them.
    let defs: Vec<Node> = {
        let mut cursor = node.walk();
        node.children_by_field_name("body", &mut cursor)
            .flat_map(|b| {
                if b.kind().starts_with("function_") {
                    vec![b]
                } else {
                    named_children(b)
                }
            })
            .collect()
    };
    for def in defs {
        if !def.kind().starts_with("function_") {
            stack.push((def, scope));
            continue;
        }
        let idx = function(def, scope, Some(&header), src, facts);
        if let Some((var, ty)) = receiver {
            bind(facts, Some(idx), var, ty, span(def));
        }
        if let Some(b) = field(def, "body") {
            stack.push((b, Some(idx)));
        }
    }
}

/// The extension receiver a def reaches values of, from its definitions: the type of an
/// `extension (x: T)` clause its signature starts with, or the first parameter's type of the
/// `implicit class C(x: T)` it is a method of; `None` for other defs.
pub(crate) fn extension_receiver(defs: &[Def], def: u32) -> Option<String> {
    let d = defs.get(def as usize)?;
    let from = |signature: &str, keyword: &str| -> Option<String> {
        let rest = signature.strip_prefix(keyword)?;
        let params = &rest[rest.find('(')? + 1..];
        let ty = params.split_once(':')?.1;
        let end = ty
            .char_indices()
            .scan(0i32, |depth, (i, c)| {
                match c {
                    '[' | '(' => *depth += 1,
                    ']' | ')' => *depth -= 1,
                    _ => {}
                }
                Some((i, c, *depth))
            })
            .find(|&(_, c, depth)| depth < 0 || (depth == 0 && c == ','))
            .map_or(ty.len(), |(i, _, _)| i);
        let ty = type_name(&ty[..end]);
        (!ty.is_empty()).then_some(ty)
    };
    if let Some(ty) = from(&d.signature, "extension") {
        return Some(ty);
    }
    let class = defs.get(d.parent? as usize)?;
    if d.kind != NodeKind::Method || class.kind != NodeKind::Class {
        return None;
    }
    let at = class.signature.find("implicit class ")?;
    from(&class.signature[at..], "implicit class ")
}

/// Scala's receivers: `this`, `super` (names in this grammar), plain names and dotted chains.
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &[],
    self_names: &["this"],
    super_kinds: &[],
    members: &[("field_expression", "value", "field")],
    leaves: &["identifier"],
};

/// A member access's object and name (`a.f`).
fn field_access<'t>(node: Node<'t>, src: &[u8]) -> Option<(Node<'t>, String)> {
    let object = field(node, "value")?;
    let name = field(node, "field")?;
    Some((object, text(name, src).to_owned()))
}

/// Whether a member access is a paren-less call of what it names: `x.size`, also inside a chain
/// (`x.size.f`, `x.size.f()`) or as an infix call's receiver (`x.size max y`); not `x.size(…)`,
/// `x.size[T]`, an assignment's target or an import.
fn is_parenless_access(node: Node) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    let is = |f: &str| {
        parent
            .child_by_field_name(f)
            .is_some_and(|c| c.id() == node.id())
    };
    match parent.kind() {
        "call_expression" | "generic_function" => !is("function"),
        "assignment_expression" => !is("left"),
        "infix_expression" => !is("operator"),
        _ => true,
    }
}

fn receiver(object: Node, src: &[u8]) -> Receiver {
    match object.kind() {
        // `_.f` in a lambda: the placeholder parameter.
        "wildcard" => Receiver::Name("_".to_owned()),
        "identifier" if text(object, src) == "super" => super_receiver(object, src),
        "parenthesized_expression" => named_children(object)
            .into_iter()
            .next()
            .map_or(Receiver::Other, |inner| receiver(inner, src)),
        "instance_expression" => instance_type(object, src).map_or(Receiver::Other, Receiver::Call),
        "call_expression" => chain(object, src).map_or(Receiver::Other, Receiver::Call),
        // `super[T].f`: `super`.
        "field_expression" | "generic_function" if text(object, src).starts_with("super[") => {
            Receiver::Super
        }
        _ => RECEIVERS.receiver(object, src),
    }
}

/// `super` at `node`: in the body of an anonymous class (`new T(…) { … super.f … }`) the
/// instance of `T` it extends, else the enclosing type's parent.
fn super_receiver(node: Node, src: &[u8]) -> Receiver {
    let mut at = node.parent();
    while let Some(n) = at {
        if n.kind() == "template_body" {
            return n
                .parent()
                .filter(|p| p.kind() == "instance_expression")
                .and_then(|p| instance_type(p, src))
                .map_or(Receiver::Super, Receiver::Call);
        }
        at = n.parent();
    }
    Receiver::Super
}

/// A call whose result is a receiver, as a dotted chain with arguments left out: `f(…)` → `f`,
/// `a.b(…)` → `a.b`, `A(…).b(…)` → `A().b`; `None` when a part is none of those.
fn chain(node: Node, src: &[u8]) -> Option<String> {
    let function = unwrap_function(field(node, "function")?);
    match function.kind() {
        "identifier" => Some(text(function, src).to_owned()),
        "field_expression" => {
            let (object, name) = field_access(function, src)?;
            match object.kind() {
                "call_expression" => Some(format!("{}().{name}", chain(object, src)?)),
                _ if RECEIVERS.is_dotted(object) => {
                    Some(format!("{}.{name}", text(object, src).replace(' ', "")))
                }
                _ => None,
            }
        }
        // `f(a)(b)`: the first call's result.
        "call_expression" => chain(function, src),
        _ => None,
    }
}

/// `f[T]` → `f`.
fn unwrap_function(function: Node) -> Node {
    if function.kind() == "generic_function" {
        return field(function, "function").unwrap_or(function);
    }
    function
}

/// What a call calls: `f(…)`, `x.f(…)`, `Foo(…)` (the companion's `apply` or the class's
/// construction: the resolver decides), `f[T](…)`.
fn callee_of(node: Node, src: &[u8]) -> Option<Callee> {
    let function = unwrap_function(field(node, "function")?);
    match function.kind() {
        "identifier" => Some(Callee::Name(text(function, src).to_owned())),
        "field_expression" => {
            let (object, name) = field_access(function, src)?;
            Some(Callee::Member {
                receiver: receiver(object, src),
                name,
            })
        }
        _ => None,
    }
}

fn call(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(function) = field(node, "function") else {
        return;
    };
    // `f(a)(b)` and `f(a) { … }` are one call: the outer node only adds an argument list.
    if function.kind() == "call_expression" {
        return;
    }
    // `this(…)` in a constructor is recorded with the constructor.
    if text(function, src) == "this" {
        return;
    }
    if let Some(callee) = callee_of(node, src) {
        if let (Callee::Member { name, .. }, Some(args)) = (&callee, field(node, "arguments"))
            && let Some(object) = field(unwrap_function(function), "value")
        {
            element_lambdas(name, object, args, scope, src, facts);
        }
        push_call(facts, scope, callee, node);
    }
}

/// The collection whose elements a value's elements are: through calls keeping them
/// (`xs.filter(…).map(…)`'s receiver is `xs`'s elements).
fn elements_of<'t>(mut object: Node<'t>, src: &[u8]) -> Node<'t> {
    loop {
        let access = match object.kind() {
            "call_expression" => field(object, "function").map(unwrap_function),
            "field_expression" => Some(object),
            "parenthesized_expression" => match named_children(object).into_iter().next() {
                Some(inner) => {
                    object = inner;
                    continue;
                }
                None => return object,
            },
            _ => None,
        };
        match access
            .filter(|a| a.kind() == "field_expression")
            .and_then(|a| field_access(a, src))
        {
            Some((inner, name)) if SAME_ELEMENTS.contains(&name.as_str()) => object = inner,
            _ => return object,
        }
    }
}

/// `xs.map(x => …)`, `xs foreach { x => … }`, `xs.map(_.f)`: the lambda's parameter (or `_`)
/// holds an element of `xs` in the lambda.
fn element_lambdas(
    method: &str,
    object: Node,
    args: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) {
    if !ELEMENT_METHODS.contains(&method) {
        return;
    }
    let of = receiver(elements_of(object, src), src);
    if matches!(of, Receiver::Other | Receiver::SelfRef | Receiver::Super) {
        return;
    }
    let arg = match args.kind() {
        "arguments" | "block" => named_children(args)
            .into_iter()
            .find(|c| c.kind() != "comment")
            .unwrap_or(args),
        _ => args,
    };
    let var = match arg.kind() {
        "lambda_expression" => {
            let Some(param) = field(arg, "parameters") else {
                return;
            };
            match param.kind() {
                "identifier" => text(param, src),
                "bindings" => {
                    let bindings = named_children(param);
                    match bindings.as_slice() {
                        [one] if field(*one, "type").is_none() => {
                            field(*one, "name").map_or("", |n| text(n, src))
                        }
                        _ => return,
                    }
                }
                _ => return,
            }
        }
        "case_block" => return,
        _ => "_",
    };
    if var.is_empty() {
        return;
    }
    facts.element_bindings.push(ElementBinding {
        scope,
        var: var.to_owned(),
        of,
    });
    facts.element_binding_spans.push(span(arg));
}

/// `for (x <- xs) …`: `x` holds an element of `xs` in the `for`.
fn for_generators(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let enumerators: Vec<Node> = {
        let mut cursor = node.walk();
        node.children_by_field_name("enumerators", &mut cursor)
            .filter(|e| e.kind() == "enumerators")
            .flat_map(named_children)
            .collect()
    };
    for enumerator in enumerators.into_iter().filter(|e| e.kind() == "enumerator") {
        let parts = named_children(enumerator);
        let (Some(pattern), Some(value)) = (parts.first(), parts.get(1)) else {
            continue;
        };
        let arrow = {
            let mut cursor = enumerator.walk();
            enumerator
                .children(&mut cursor)
                .any(|c| matches!(c.kind(), "<-" | "←"))
        };
        if !arrow || pattern.kind() != "identifier" {
            continue;
        }
        let of = receiver(elements_of(*value, src), src);
        if matches!(of, Receiver::Other | Receiver::SelfRef | Receiver::Super) {
            continue;
        }
        facts.element_bindings.push(ElementBinding {
            scope,
            var: text(*pattern, src).to_owned(),
            of,
        });
        facts.element_binding_spans.push(span(node));
    }
}

/// `a f b`: the method `f` of `a` (an alphanumeric or symbolic name); comparisons and
/// boolean connectives are no calls.
fn infix(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let (Some(left), Some(op)) = (field(node, "left"), field(node, "operator")) else {
        return;
    };
    let name = text(op, src);
    if VALUE_OPERATORS.contains(&name) || name.is_empty() {
        return;
    }
    // `a :: b`: an operator ending in `:` is a method of its right operand.
    let object = if name.ends_with(':') {
        match field(node, "right") {
            Some(right) => right,
            None => return,
        }
    } else {
        left
    };
    if !name.ends_with(':')
        && let Some(right) = field(node, "right")
    {
        let arg = match right.kind() {
            "parenthesized_expression" => named_children(right).into_iter().next().unwrap_or(right),
            _ => right,
        };
        element_lambdas(name, object, arg, scope, src, facts);
    }
    let callee = Callee::Member {
        receiver: receiver(object, src),
        name: name.to_owned(),
    };
    push_call(facts, scope, callee, node);
}

/// The class `new Foo(…)` / `new a.Foo[T] { … }` / `new Foo with Bar` builds.
fn instance_type(node: Node, src: &[u8]) -> Option<String> {
    let ty = named_children(node).into_iter().find(|c| {
        matches!(
            c.kind(),
            "type_identifier" | "stable_type_identifier" | "generic_type" | "compound_type"
        )
    })?;
    let ty = if ty.kind() == "compound_type" {
        field(ty, "base").unwrap_or(ty)
    } else {
        ty
    };
    let name = type_name(text(ty, src));
    (!name.is_empty()).then_some(name)
}

/// The type a value is built as: `new Foo(…)`, `Foo(…)` with a capitalised name, `x: Foo`.
fn constructed_type(value: Node, src: &[u8]) -> Option<String> {
    match value.kind() {
        "instance_expression" => instance_type(value, src),
        "call_expression" => {
            let function = unwrap_function(field(value, "function")?);
            let written = match function.kind() {
                "identifier" => text(function, src),
                "field_expression" if RECEIVERS.is_dotted(function) => text(function, src),
                _ => return None,
            };
            let name = type_name(written);
            name.rsplit('.')
                .next()
                .is_some_and(|last| last.starts_with(char::is_uppercase))
                .then_some(name)
        }
        "ascription_expression" => field(value, "type").map(|t| type_name(text(t, src))),
        _ => None,
    }
}

/// Binds `var` to the type `written` in `scope`, holding on the lines of `lines`.
fn bind(facts: &mut FileFacts, scope: Option<u32>, var: &str, written: &str, lines: (u32, u32)) {
    let type_name = type_name(written);
    if type_name.starts_with('(') || type_name.is_empty() || var.is_empty() {
        return;
    }
    facts.bind_type(scope, var, type_name);
    facts.binding_spans.push(lines);
}

/// The lines a node spans.
fn span(node: Node) -> (u32, u32) {
    (line(node), end_line(node))
}

/// A local's lines: from its declaration to the end of the block it is written in.
fn to_block_end(node: Node) -> (u32, u32) {
    (line(node), node.parent().map_or(end_line(node), end_line))
}

/// `case t: T =>` (also in `catch`): `t` holds a `T` in its clause (the first type of `A with
/// B`); `case _: T` binds nothing.
fn typed_pattern(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let (Some(name), Some(ty)) = (field(node, "pattern"), field(node, "type")) else {
        return;
    };
    if name.kind() != "identifier" {
        return;
    }
    let ty = match ty.kind() {
        "compound_type" => field(ty, "base").unwrap_or(ty),
        _ => ty,
    };
    let mut clause = node;
    while let Some(parent) = clause.parent()
        && !matches!(
            clause.kind(),
            "case_clause" | "val_definition" | "var_definition"
        )
    {
        clause = parent;
    }
    bind(facts, scope, text(name, src), text(ty, src), span(clause));
}

/// `self: A with B =>` in a class or trait body: a value of the type is also each of the
/// types named (their members are its members, though it extends none of them), and `self`
/// names it.
fn self_type(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(owner) = scope.filter(|&s| in_type(facts, Some(s))) else {
        return;
    };
    let mut types = Vec::new();
    let mut alias = None;
    for child in named_children(node) {
        match child.kind() {
            "identifier" if alias.is_none() => alias = Some(text(child, src)),
            "compound_type" => {
                let mut cursor = child.walk();
                types.extend(
                    child
                        .named_children(&mut cursor)
                        .filter(|t| t.kind() != "refinement")
                        .map(|t| type_name(text(t, src))),
                );
            }
            _ => types.push(type_name(text(child, src))),
        }
    }
    let class_span = node
        .parent()
        .and_then(|b| b.parent())
        .map_or(span(node), span);
    if let Some(alias) = alias.filter(|a| *a != "this")
        && let Some(class) = facts.defs.get(owner as usize).map(|d| d.name.clone())
    {
        bind(facts, Some(owner), alias, &class, class_span);
    }
    for ty in types.into_iter().filter(|t| !t.is_empty()) {
        facts.self_types.push((owner, ty));
    }
}

#[cfg(test)]
mod tests {
    use super::{extension_receiver, type_name};
    use crate::extract::Extractor;
    use crate::extract::test_facts::{calls_in, member};
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    fn extract(source: &str) -> FileFacts {
        Extractor::default().extract("src/shop/Cart.scala", Lang::Scala, source)
    }

    const SOURCE: &str = r#"package com.shop
package core

import com.shop.pay.Gateway
import com.shop.util._
import com.shop.data.{Repository, Store => Db, Hidden => _}, other.Thing
import scala.collection.mutable.*

type Items = List[Item]

/** A cart. */
abstract class Cart(val gateway: Gateway, count: Int = 0) extends Base(gateway) with Totals with Sized {
  private val store: Db = new Db()
  def this(x: Int) = { this(new Gateway()); log(x) }
  override def total: Int = items.sum
  def checkout(card: Card): Receipt = {
    val other = new Cart(gateway)
    val typed: Cart = other
    val receipt = other.pay(card)
    other.total()
    other.total
    this.total()
    super.save()
    gateway.charge(total())
    store.items.clear()
    Cart(1).total()
    a add b
    xs :: rest
    a == b
    items.map(_.price)
    def inner(x: Int): Int = helper(x)
    new Receipt()
  }
}
object Cart {
  def apply(n: Int): Cart = new Cart(n)
}
case class Money(amount: Int)
trait Totals extends Sized {
  def total: Int
}
implicit class RichCart(c: Cart) {
  def twice: Int = c.total * 2
}
extension (c: Cart)
  def double: Int = c.total * 2
  def triple(): Int = c.total * 3
enum Color(val rgb: Int):
  case Red extends Color(1)
  def x(): Unit = ()
given cartOrd: Ordering[Cart] = Ordering.by(_.total)
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
                ("Cart.store", NodeKind::Method),
                ("Cart.Cart", NodeKind::Method),
                ("Cart.total", NodeKind::Method),
                ("Cart.checkout", NodeKind::Method),
                ("Cart.checkout.inner", NodeKind::Function),
                ("Cart.apply", NodeKind::Method),
                ("Money", NodeKind::Class),
                ("Totals", NodeKind::Trait),
                ("Totals.total", NodeKind::Method),
                ("RichCart", NodeKind::Class),
                ("RichCart.twice", NodeKind::Method),
                ("double", NodeKind::Function),
                ("triple", NodeKind::Function),
                ("Color", NodeKind::Enum),
                ("Color.x", NodeKind::Method),
                ("cartOrd", NodeKind::Function),
            ]
        );
        let cart = &f.defs[2];
        assert_eq!(cart.extends, ["Base"]);
        assert_eq!(cart.implements, ["Totals", "Sized"]);
        assert_eq!(cart.doc, "A cart.");
        assert_eq!(f.defs[1].extends, ["List"]);
        assert_eq!(f.defs[10].extends, ["Sized"]);
        assert_eq!(f.defs[6].returns, "Receipt");
        assert_eq!(f.defs[18].returns, "Ordering");
        /// An import as (module, wildcard, names with their aliases).
        type Read<'a> = (&'a str, bool, Vec<(&'a str, Option<&'a str>)>);
        let imports: Vec<Read> = f
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.wildcard,
                    i.names
                        .iter()
                        .map(|n| (n.name.as_str(), n.alias.as_deref()))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            imports,
            [
                ("com.shop.pay", false, vec![("Gateway", None)]),
                ("com.shop.util", true, vec![]),
                (
                    "com.shop.data",
                    false,
                    vec![("Repository", None), ("Store", Some("Db"))]
                ),
                ("other", false, vec![("Thing", None)]),
                ("scala.collection.mutable", true, vec![]),
            ]
        );
        for (var, ty) in [("gateway", "Gateway"), ("store", "Db")] {
            assert!(
                f.attr_bindings.contains(&(2, var.into(), ty.into())),
                "{var}: {:?}",
                f.attr_bindings
            );
        }
        // A plain class parameter is no member; a case class's are.
        assert!(!f.attr_bindings.iter().any(|(_, v, _)| v == "count"));
        assert!(
            f.attr_bindings
                .contains(&(9, "amount".into(), "Int".into()))
        );
        // Extension methods and implicit classes' methods know their receiver type.
        for def in [13, 14, 15] {
            assert_eq!(
                extension_receiver(&f.defs, def).as_deref(),
                Some("Cart"),
                "{}",
                f.defs[def as usize].signature
            );
        }
        assert_eq!(extension_receiver(&f.defs, 6), None);
        assert_eq!(extension_receiver(&f.defs, 11), None);
    }

    #[test]
    fn calls_with_receivers_and_bindings() {
        let f = extract(SOURCE);
        let name = |n: &str| Receiver::Name(n.into());
        assert_eq!(
            calls_in(&f, "Cart.checkout"),
            [
                Callee::New("Cart".into()),
                member(name("other"), "pay"),
                member(name("other"), "total"),
                member(name("other"), "total"),
                member(Receiver::SelfRef, "total"),
                member(Receiver::Super, "save"),
                member(name("gateway"), "charge"),
                Callee::Name("total".into()),
                member(Receiver::Path("store.items".into()), "clear"),
                // A paren-less access inside a chain, and a bare name no scope binds, are calls.
                member(name("store"), "items"),
                Callee::Name("store".into()),
                member(Receiver::Call("Cart".into()), "total"),
                Callee::Name("Cart".into()),
                member(name("a"), "add"),
                Callee::Name("a".into()),
                Callee::Name("b".into()),
                member(name("rest"), "::"),
                Callee::Name("xs".into()),
                Callee::Name("rest".into()),
                Callee::Name("a".into()),
                Callee::Name("b".into()),
                member(name("items"), "map"),
                Callee::Name("items".into()),
                member(name("_"), "price"),
                Callee::New("Receipt".into()),
            ]
        );
        assert_eq!(
            calls_in(&f, "Cart.total"),
            [member(name("items"), "sum"), Callee::Name("items".into())]
        );
        // The superclass's construction and member initialisers run in the class.
        assert_eq!(calls_in(&f, "Cart"), [Callee::New("Base".into())]);
        assert_eq!(calls_in(&f, "Cart.store"), [Callee::New("Db".into())]);
        // `def this(…) = this(…)` calls a constructor of the class.
        assert_eq!(
            calls_in(&f, "Cart.Cart"),
            [
                Callee::New("Cart".into()),
                Callee::New("Gateway".into()),
                Callee::Name("log".into())
            ]
        );
        assert_eq!(calls_in(&f, "Color"), [Callee::New("Color".into())]);
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
        // The extension's receiver parameter is bound in each of its defs.
        assert!(f.bindings.contains(&Binding {
            scope: Some(14),
            var: "c".into(),
            type_name: "Cart".into()
        }));
    }

    /// A collection of one class is read as its elements; other generic types as the class.
    #[test]
    fn collections_of_one_class_are_their_elements() {
        assert_eq!(type_name("List[Item]"), "Item[]");
        assert_eq!(type_name("=> Seq[a.Item]"), "a.Item[]");
        assert_eq!(type_name("List[Entity with Member]"), "Entity[]");
        assert_eq!(type_name("Map[K, V]"), "Map");
        assert_eq!(type_name("List[(A, B)]"), "List");
        assert_eq!(type_name("Stack[Item]"), "Stack");
    }

    #[test]
    fn package_objects_are_their_package() {
        let f = extract("package a.b\npackage object c {\n  def helper(x: Int) = x\n}\n");
        assert_eq!(f.package.as_deref(), Some("a.b.c"));
        let defs: Vec<(&str, NodeKind)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind))
            .collect();
        assert_eq!(
            defs,
            [
                ("a.b", NodeKind::Module),
                ("a.b.c", NodeKind::Module),
                ("helper", NodeKind::Function)
            ]
        );
        // Without a package clause, the empty package.
        assert_eq!(extract("class A").package.as_deref(), Some(""));
    }

    #[test]
    fn odd_input_does_not_panic() {
        for source in [
            "",
            "class",
            "class A extends { def f( = x.(); }",
            "import\npackage\ndef [T.f = _.this.super",
            "extension (\nimplicit class (\ngiven =",
            "object A { def this() = this( }\nval (a, b) = c",
            "import a.{b => , _ =>}",
        ] {
            let _ = extract(source);
        }
    }
}
