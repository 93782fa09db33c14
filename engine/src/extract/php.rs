//! PHP: namespaces, `use` imports, `require`/`include`, classes, interfaces, traits and enums,
//! functions and methods, calls with receivers, and typed variables, parameters and properties.

use tree_sitter::Node;

use super::{
    doc_line, field, header_before_body, line, named_children, new_def, push_call, push_children,
    split_outside_brackets, text,
};
use crate::facts::{
    Binding, CallBinding, Callee, Def, ElementBinding, FileFacts, Import, ImportedName, Receiver,
};
use crate::graph::NodeKind;

/// What the walk knows of the file so far: its namespace and what its `use` lines alias, to
/// write every qualified class or function name fully qualified (`\A\B\C`).
#[derive(Default)]
struct Names {
    namespace: String,
    /// Local alias → fully qualified name without the leading `\`.
    aliases: Vec<(String, String)>,
}

impl Names {
    /// A name as written in code, fully qualified when it has a namespace part: `\A\B` stays,
    /// `B\C` expands its first segment through the file's `use` aliases, else the namespace;
    /// `namespace\C` is the namespace's. A plain name stays plain (the resolver looks it up
    /// in the file, its imports and its namespace, as PHP does).
    fn qualify(&self, written: &str) -> String {
        let written: String = written.split_whitespace().collect();
        if written.starts_with('\\') || !written.contains('\\') {
            return written;
        }
        let (head, rest) = written.split_once('\\').unwrap_or((&written, ""));
        if head.eq_ignore_ascii_case("namespace") {
            return self.within_namespace(rest);
        }
        match self
            .aliases
            .iter()
            .find(|(a, _)| a.eq_ignore_ascii_case(head))
        {
            Some((_, full)) => format!("\\{full}\\{rest}"),
            None => self.within_namespace(&written),
        }
    }

    fn within_namespace(&self, name: &str) -> String {
        if self.namespace.is_empty() {
            format!("\\{name}")
        } else {
            format!("\\{}\\{name}", self.namespace)
        }
    }
}

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut names = Names::default();
    let mut assigned: Vec<(u32, String, String)> = Vec::new();
    let mut cursor = root.walk();
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root, None)];
    while let Some((node, scope)) = stack.pop() {
        if let Some(kind) = definition_kind(node.kind())
            && let Some(idx) = definition(node, kind, scope, src, &names, facts)
        {
            if let Some(body) = field(node, "body") {
                stack.push((body, Some(idx)));
            }
            continue;
        }
        match node.kind() {
            "namespace_definition" => {
                let name = field(node, "name").map_or("", |n| text(n, src));
                names.namespace = name.trim_start_matches('\\').to_owned();
                if facts.package.is_none() {
                    facts.package = Some(names.namespace.clone());
                }
            }
            "namespace_use_declaration" => {
                use_declaration(node, src, &mut names, facts);
                continue;
            }
            "use_declaration" => {
                trait_use(node, scope, src, &names, facts);
                continue;
            }
            "include_expression"
            | "include_once_expression"
            | "require_expression"
            | "require_once_expression" => include(node, src, facts),
            "property_declaration" => property(node, scope, src, &names, facts),
            "foreach_statement" => foreach(node, scope, src, &names, facts),
            "assignment_expression" => {
                assigned.extend(assignment(node, scope, src, &names, facts));
            }
            "if_statement" | "expression_statement" | "binary_expression" => {
                narrowing(node, scope, src, &names, facts);
            }
            "function_call_expression" => {
                if let Some(function) = field(node, "function")
                    && matches!(function.kind(), "name" | "qualified_name" | "relative_name")
                {
                    let name = names.qualify(text(function, src));
                    push_call(facts, scope, Callee::Name(name), node);
                }
            }
            "member_call_expression" | "nullsafe_member_call_expression" => {
                if let Some(callee) = member_call(node, src, &names, facts, scope) {
                    push_call(facts, scope, callee, node);
                }
            }
            "scoped_call_expression" => {
                if let Some(callee) = scoped_call(node, src, &names, facts, scope) {
                    push_call(facts, scope, callee, node);
                }
            }
            "object_creation_expression" => {
                if let Some(class) = created_class(node, src, &names, facts, scope) {
                    push_call(facts, scope, Callee::New(class), node);
                }
            }
            _ => {}
        }
        push_children(&mut cursor, node, scope, &mut stack);
    }
    if facts.package.is_none() {
        facts.package = Some(String::new());
    }
    // A property its class declares no type for has the one type every assignment gives it.
    for (class, attr, ty) in &assigned {
        let declared = facts
            .attr_bindings
            .iter()
            .any(|(c, a, _)| c == class && a == attr);
        let agreed = assigned
            .iter()
            .all(|(c, a, t)| c != class || a != attr || t == ty);
        if !declared && agreed {
            facts.attr_bindings.push((*class, attr.clone(), ty.clone()));
        }
    }
}

fn definition_kind(kind: &str) -> Option<NodeKind> {
    match kind {
        "class_declaration" => Some(NodeKind::Class),
        "interface_declaration" => Some(NodeKind::Interface),
        "trait_declaration" => Some(NodeKind::Trait),
        "enum_declaration" => Some(NodeKind::Enum),
        "function_definition" => Some(NodeKind::Function),
        "method_declaration" => Some(NodeKind::Method),
        _ => None,
    }
}

/// A type, function or method with its parameters' bindings; `None` when it has no name.
fn definition(
    node: Node,
    kind: NodeKind,
    scope: Option<u32>,
    src: &[u8],
    names: &Names,
    facts: &mut FileFacts,
) -> Option<u32> {
    let name = field(node, "name").map(|n| text(n, src))?;
    if name.is_empty() {
        return None;
    }
    let mut def = new_def(facts, kind, name, scope, node);
    fill(&mut def, node, src);
    if let Some(returns) = field(node, "return_type").and_then(|t| named_type(t, src, names)) {
        def.returns = returns;
    } else if let Some(doc) = doc_comment(node, src)
        && let Some(returns) = doc_tag(doc, "@return").and_then(|(ty, _)| doc_type(ty, names))
    {
        def.returns = returns;
    }
    for clause in named_children(node) {
        let target = match (clause.kind(), kind) {
            ("base_clause", _) => &mut def.extends,
            ("class_interface_clause", _) => &mut def.implements,
            _ => continue,
        };
        target.extend(
            named_children(clause)
                .into_iter()
                .filter(|n| matches!(n.kind(), "name" | "qualified_name" | "relative_name"))
                .map(|n| names.qualify(text(n, src))),
        );
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    if let Some(params) = field(node, "parameters") {
        parameters(params, idx, node, src, names, facts);
    }
    Some(idx)
}

/// Signature, visibility (private and protected members are not exported) and the doc line.
fn fill(def: &mut Def, node: Node, src: &[u8]) {
    def.signature = header_before_body(node, field(node, "body"), src);
    def.exported = !named_children(node).iter().any(|c| {
        c.kind() == "visibility_modifier" && matches!(text(*c, src), "private" | "protected")
    });
    if let Some(doc) = doc_comment(node, src) {
        def.doc = doc_line(doc);
    }
}

/// The `/** … */` comment right before a declaration.
fn doc_comment<'s>(node: Node, src: &'s [u8]) -> Option<&'s str> {
    let prev = node.prev_named_sibling()?;
    let doc = text(prev, src);
    (prev.kind() == "comment" && doc.starts_with("/**")).then_some(doc)
}

/// The first `tag TYPE [$var]` line of a doc comment: (type, variable without `$`).
fn doc_tag<'d>(doc: &'d str, tag: &str) -> Option<(&'d str, Option<&'d str>)> {
    doc.lines().find_map(|l| {
        let rest = l.split_once(tag)?.1;
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        // The type ends at the first space outside brackets (`array<int, Item>`).
        let rest = rest.trim_start();
        let mut depth = 0usize;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '<' | '(' | '{' => depth += 1,
                    '>' | ')' | '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                c.is_whitespace() && depth == 0
            })
            .map_or(rest.len(), |(i, _)| i);
        let ty = &rest[..end];
        if ty.is_empty() {
            return None;
        }
        let var = rest[end..]
            .split_whitespace()
            .next()
            .and_then(|w| w.strip_prefix('$'))
            .map(|w| w.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '_'));
        Some((ty, var))
    })
}

/// A doc comment's type when it names one class (`Foo`, `?Foo`, `Foo|null`, `\A\Foo`) or a
/// collection of one class (`Foo[]`, `array<Foo>`, `array<int, Foo>`, `list<Foo>`,
/// `iterable<Foo>`: written `Foo[]`, as the resolver reads element types; a union of such
/// spellings of one type is that type); not unions of classes, other generics or primitives.
fn doc_type(written: &str, names: &Names) -> Option<String> {
    let mut types = split_outside_brackets(written, '|')
        .into_iter()
        .map(|p| p.trim_start_matches('?'))
        .filter(|p| !p.eq_ignore_ascii_case("null"))
        .map(|p| doc_type_part(p, names));
    let first = types.next()??;
    types.all(|t| t.as_ref() == Some(&first)).then_some(first)
}

/// One member of a doc comment's union type, as `doc_type` reads it.
fn doc_type_part(one: &str, names: &Names) -> Option<String> {
    let class = |name: &str| {
        let plain = name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '\\');
        (plain && !name.is_empty() && !is_primitive(name))
            .then(|| class_or_self(names.qualify(name)))
    };
    if let Some(element) = one.strip_suffix("[]") {
        return class(element).map(|c| format!("{c}[]"));
    }
    if let Some((outer, rest)) = one.split_once('<') {
        let collection = [
            "array",
            "list",
            "iterable",
            "non-empty-array",
            "non-empty-list",
        ]
        .iter()
        .any(|c| c.eq_ignore_ascii_case(outer));
        let arguments = rest.strip_suffix('>')?;
        let element = *split_outside_brackets(arguments, ',').last()?;
        return collection
            .then(|| class(element).map(|c| format!("{c}[]")))
            .flatten();
    }
    class(one)
}

/// Built-in type names that are no class.
fn is_primitive(name: &str) -> bool {
    const PRIMITIVES: &[&str] = &[
        "int", "integer", "float", "double", "string", "bool", "boolean", "array", "mixed", "void",
        "null", "callable", "iterable", "object", "resource", "false", "true", "never", "scalar",
        "number",
    ];
    PRIMITIVES.iter().any(|p| p.eq_ignore_ascii_case(name))
}

/// `self`, `static` and `$this` name the class the code is in: `Self`, as the resolver reads it.
fn class_or_self(name: String) -> String {
    if ["self", "static", "$this"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(&name))
    {
        "Self".to_owned()
    } else {
        name
    }
}

/// A declared type that names one class (`Foo`, `?Foo`, `Foo|null`, `self`, `static`); `None`
/// for primitives, unions of several classes and intersections.
fn named_type(node: Node, src: &[u8], names: &Names) -> Option<String> {
    match node.kind() {
        "named_type" => {
            let inner = named_children(node).into_iter().next()?;
            Some(class_or_self(names.qualify(text(inner, src))))
        }
        "optional_type" => named_type(named_children(node).into_iter().next()?, src, names),
        "union_type" => {
            let classes: Vec<Node> = named_children(node)
                .into_iter()
                .filter(|n| !(n.kind() == "primitive_type" && text(*n, src) == "null"))
                .collect();
            match classes.as_slice() {
                [one] => named_type(*one, src, names),
                _ => None,
            }
        }
        "type" => named_type(named_children(node).into_iter().next()?, src, names),
        _ => None,
    }
}

/// A function's parameters: typed ones bind their variable; a constructor's promoted ones are
/// also properties of its class; untyped ones take a `@param` doc type.
fn parameters(
    params: Node,
    def: u32,
    decl: Node,
    src: &[u8],
    names: &Names,
    facts: &mut FileFacts,
) {
    let doc = doc_comment(decl, src);
    for param in named_children(params) {
        let Some(var) = field(param, "name").map(|n| variable(text(n, src))) else {
            continue;
        };
        let declared = field(param, "type").and_then(|t| named_type(t, src, names));
        let documented = || {
            doc?.lines().find_map(|l| {
                let rest = l.split_once("@param")?.1;
                let (ty, v) = doc_tag(&format!("@param{rest}"), "@param")
                    .map(|(t, v)| (t.to_owned(), v.map(str::to_owned)))?;
                (v.as_deref() == Some(var.as_str()))
                    .then(|| doc_type(&ty, names))
                    .flatten()
            })
        };
        let Some(ty) = declared.or_else(documented) else {
            continue;
        };
        if param.kind() == "property_promotion_parameter"
            && let Some(class) = facts.defs.get(def as usize).and_then(|d| d.parent)
        {
            facts.attr_bindings.push((class, var.clone(), ty.clone()));
        }
        let span = (line(decl), scope_end(facts, Some(def)));
        bind(facts, Some(def), var, ty, span);
    }
}

/// The last line of `scope` (the file's end at file level): where a binding made in it stops.
fn scope_end(facts: &FileFacts, scope: Option<u32>) -> u32 {
    scope
        .and_then(|s| facts.defs.get(s as usize))
        .map_or(u32::MAX, |d| d.end_line)
}

/// Binds `var` to type `ty` in `scope` on lines `span`: a later binding of the variable
/// (an assignment, an `instanceof` test) wins where it holds.
fn bind(facts: &mut FileFacts, scope: Option<u32>, var: String, ty: String, span: (u32, u32)) {
    facts.bindings.push(Binding {
        scope,
        var,
        type_name: ty,
    });
    facts.binding_spans.push(span);
}

/// A variable's name without its `$`.
fn variable(written: &str) -> String {
    written.trim_start_matches('$').to_owned()
}

/// `use A\B\C;`, `use A\B\C as D;`, `use function A\f;`, `use A\{B, C as D};`: one import per
/// name, module the namespace (`A\B`), the name its last segment. `use const` binds no symbol.
fn use_declaration(node: Node, src: &[u8], names: &mut Names, facts: &mut FileFacts) {
    if field(node, "type").is_some_and(|t| text(t, src) == "const") {
        return;
    }
    let prefix = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "namespace_name")
        .map(|p| text(p, src).trim_start_matches('\\').to_owned());
    let mut clauses = Vec::new();
    for child in named_children(node) {
        match child.kind() {
            "namespace_use_clause" => clauses.push(child),
            "namespace_use_group" => clauses.extend(
                named_children(child)
                    .into_iter()
                    .filter(|c| c.kind() == "namespace_use_clause"),
            ),
            _ => {}
        }
    }
    for clause in clauses {
        if field(clause, "type").is_some_and(|t| text(t, src) == "const") {
            continue;
        }
        let Some(path) = named_children(clause)
            .into_iter()
            .find(|c| matches!(c.kind(), "name" | "qualified_name"))
        else {
            continue;
        };
        let path = text(path, src).trim_start_matches('\\');
        let full = match &prefix {
            Some(prefix) => format!("{prefix}\\{path}"),
            None => path.to_owned(),
        };
        let (module, name) = full.rsplit_once('\\').unwrap_or(("", &full));
        let alias = field(clause, "alias").map(|a| text(a, src).to_owned());
        let local = alias.clone().unwrap_or_else(|| name.to_owned());
        names.aliases.push((local, full.clone()));
        facts.imports.push(Import {
            module: module.to_owned(),
            names: vec![ImportedName {
                name: name.to_owned(),
                alias,
            }],
            module_alias: None,
            wildcard: false,
            reexport: false,
            line: line(clause),
        });
    }
}

/// `use T1, T2;` in a class body: the traits' methods become the class's members (as an
/// implemented type's are found).
fn trait_use(node: Node, scope: Option<u32>, src: &[u8], names: &Names, facts: &mut FileFacts) {
    let Some(class) = scope.and_then(|s| facts.defs.get_mut(s as usize)) else {
        return;
    };
    class.implements.extend(
        named_children(node)
            .into_iter()
            .filter(|n| matches!(n.kind(), "name" | "qualified_name" | "relative_name"))
            .map(|n| names.qualify(text(n, src))),
    );
}

/// `require 'x.php'`, `include_once __DIR__ . '/x.php'`, `require dirname(__FILE__) . '/x.php'`:
/// a wildcard import of the file a literal path names (relative to the including file's folder
/// when it starts at `__DIR__`); a path built otherwise is left out.
fn include(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(expr) = named_children(node).into_iter().next() else {
        return;
    };
    let literal = |n: Node| -> Option<String> {
        matches!(n.kind(), "string" | "encapsed_string")
            .then(|| {
                let raw = text(n, src);
                raw.get(1..raw.len().saturating_sub(1)).map(str::to_owned)
            })
            .flatten()
            .filter(|s| !s.contains('$'))
    };
    let module = match expr.kind() {
        "string" | "encapsed_string" => literal(expr),
        "binary_expression" => {
            let left = field(expr, "left").map(|l| text(l, src).replace(' ', ""));
            let here = left.is_some_and(|l| l == "__DIR__" || l == "dirname(__FILE__)");
            field(expr, "right")
                .and_then(literal)
                .filter(|_| here)
                .map(|r| format!(".{r}"))
        }
        _ => None,
    };
    if let Some(module) = module.filter(|m| m.ends_with(".php") || m.ends_with(".inc")) {
        facts.imports.push(Import {
            module,
            names: Vec::new(),
            module_alias: None,
            wildcard: true,
            reexport: false,
            line: line(node),
        });
    }
}

/// A property's declared (or `@var` documented) type, recorded on its class.
fn property(node: Node, scope: Option<u32>, src: &[u8], names: &Names, facts: &mut FileFacts) {
    let Some(class) = scope else {
        return;
    };
    let ty = field(node, "type")
        .and_then(|t| named_type(t, src, names))
        .or_else(|| {
            let (ty, _) = doc_tag(doc_comment(node, src)?, "@var")?;
            doc_type(ty, names)
        });
    let Some(ty) = ty else {
        return;
    };
    for element in named_children(node)
        .into_iter()
        .filter(|e| e.kind() == "property_element")
    {
        if let Some(name) = field(element, "name") {
            facts
                .attr_bindings
                .push((class, variable(text(name, src)), ty.clone()));
        }
    }
}

/// `$x = new T(…)` binds `$x` to `T` from that line on; `$x = f(…)` / `$x = $o->m(…)` to what
/// the call returns. `$this->p = new T(…)` (or a typed parameter) is returned as (class,
/// property, `T`): a type of property `p` when its class declares none.
fn assignment(
    node: Node,
    scope: Option<u32>,
    src: &[u8],
    names: &Names,
    facts: &mut FileFacts,
) -> Option<(u32, String, String)> {
    let (left, right) = (field(node, "left")?, field(node, "right")?);
    let span = (line(node), scope_end(facts, scope));
    let created = (right.kind() == "object_creation_expression")
        .then(|| created_class(right, src, names, facts, scope))
        .flatten();
    match left.kind() {
        "variable_name" => {
            let var = variable(text(left, src));
            if var == "this" {
                return None;
            }
            if let Some(ty) = created {
                bind(facts, scope, var, ty, span);
                return None;
            }
            let callee = match right.kind() {
                "function_call_expression" => field(right, "function")
                    .filter(|f| matches!(f.kind(), "name" | "qualified_name" | "relative_name"))
                    .map(|f| Callee::Name(names.qualify(text(f, src)))),
                "member_call_expression" | "nullsafe_member_call_expression" => {
                    member_call(right, src, names, facts, scope)
                }
                "scoped_call_expression" => scoped_call(right, src, names, facts, scope),
                _ => None,
            };
            if let Some(callee) = callee {
                facts.call_bindings.push(CallBinding { scope, var, callee });
                facts.call_binding_spans.push(span);
            }
            None
        }
        "member_access_expression" => {
            let object = field(left, "object").map(|o| text(o, src));
            let prop = field(left, "name").filter(|n| n.kind() == "name")?;
            if object != Some("$this") {
                return None;
            }
            let class = scope
                .and_then(|s| facts.defs.get(s as usize))
                .and_then(|d| d.parent)?;
            let ty = created.or_else(|| {
                (right.kind() == "variable_name")
                    .then(|| {
                        let var = variable(text(right, src));
                        facts
                            .bindings
                            .iter()
                            .find(|b| b.scope == scope && b.var == var)
                            .map(|b| b.type_name.clone())
                    })
                    .flatten()
            });
            ty.map(|ty| (class, text(prop, src).to_owned(), ty))
        }
        _ => None,
    }
}

/// `if ($x instanceof T) { … }` (also one test of an `&&` chain) binds `$x` to `T` in the body;
/// `if (!$x instanceof T) { continue; }` (or `return`, `throw`, `break`) and
/// `assert($x instanceof T);` from there to the end of the block around; `$x instanceof T &&
/// …` and `!$x instanceof T || …` on the lines of what follows the test.
fn narrowing(node: Node, scope: Option<u32>, src: &[u8], names: &Names, facts: &mut FileFacts) {
    let block_end = |n: Node| {
        n.parent()
            .map_or(u32::MAX, |p| p.end_position().row as u32 + 1)
    };
    let (tests, span) = match node.kind() {
        "if_statement" => {
            let (Some(condition), Some(body)) = (field(node, "condition"), field(node, "body"))
            else {
                return;
            };
            let condition = unwrap_parentheses(condition);
            match negated(condition) {
                Some(inner) if exits(body) && field(node, "alternative").is_none() => {
                    (vec![inner], (super::end_line(node), block_end(node)))
                }
                Some(_) => return,
                None => (
                    conjuncts(condition, src),
                    (line(body), super::end_line(body)),
                ),
            }
        }
        "expression_statement" => {
            let Some(call) = named_children(node).into_iter().next() else {
                return;
            };
            let asserts = call.kind() == "function_call_expression"
                && field(call, "function")
                    .is_some_and(|f| text(f, src).trim_start_matches('\\') == "assert");
            let Some(argument) = field(call, "arguments")
                .filter(|_| asserts)
                .and_then(|a| named_children(a).into_iter().next())
                .and_then(|a| named_children(a).into_iter().next())
            else {
                return;
            };
            (
                vec![unwrap_parentheses(argument)],
                (line(node), block_end(node)),
            )
        }
        "binary_expression" => {
            let (Some(left), Some(right)) = (field(node, "left"), field(node, "right")) else {
                return;
            };
            let left = unwrap_parentheses(left);
            let tests = match field(node, "operator").map(|o| text(o, src)) {
                Some("&&" | "and") => conjuncts(left, src),
                Some("||" | "or") => negated(left).into_iter().collect(),
                _ => return,
            };
            (tests, (line(right), super::end_line(right)))
        }
        _ => return,
    };
    for test in tests {
        if test.kind() != "binary_expression"
            || field(test, "operator").is_none_or(|o| text(o, src) != "instanceof")
        {
            continue;
        }
        let (Some(left), Some(right)) = (field(test, "left"), field(test, "right")) else {
            continue;
        };
        if left.kind() != "variable_name"
            || !matches!(right.kind(), "name" | "qualified_name" | "relative_name")
        {
            continue;
        }
        let var = variable(text(left, src));
        if var != "this" {
            let ty = class_or_self(names.qualify(text(right, src)));
            bind(facts, scope, var, ty, span);
        }
    }
}

/// The tests an `&&` chain joins (parentheses removed); the expression itself otherwise.
fn conjuncts<'t>(node: Node<'t>, src: &[u8]) -> Vec<Node<'t>> {
    let mut found = Vec::new();
    let mut stack = vec![unwrap_parentheses(node)];
    while let Some(n) = stack.pop() {
        let and = n.kind() == "binary_expression"
            && field(n, "operator").is_some_and(|o| matches!(text(o, src), "&&" | "and"));
        match (and, field(n, "left"), field(n, "right")) {
            (true, Some(l), Some(r)) => {
                stack.push(unwrap_parentheses(r));
                stack.push(unwrap_parentheses(l));
            }
            _ => found.push(n),
        }
    }
    found
}

/// The expression inside any parentheses.
fn unwrap_parentheses(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression" {
        match named_children(node).into_iter().next() {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// `!x` → `x` (parentheses removed).
fn negated(node: Node) -> Option<Node> {
    (node.kind() == "unary_op_expression" && node.child(0).is_some_and(|c| c.kind() == "!"))
        .then(|| {
            named_children(node)
                .into_iter()
                .next()
                .map(unwrap_parentheses)
        })
        .flatten()
}

/// Whether a branch always leaves the block: its first statement returns, throws, continues
/// or breaks.
fn exits(body: Node) -> bool {
    let first = if body.kind() == "compound_statement" {
        named_children(body)
            .into_iter()
            .find(|c| c.kind() != "comment")
    } else {
        Some(body)
    };
    first.is_some_and(|s| {
        matches!(
            s.kind(),
            "return_statement" | "continue_statement" | "break_statement"
        ) || (s.kind() == "expression_statement"
            && named_children(s)
                .first()
                .is_some_and(|e| e.kind() == "throw_expression"))
    })
}

/// `foreach ($xs as $x)`, `foreach ($xs as $k => $x)`: `$x` holds an element of `$xs` (a
/// variable, a property chain or a call's result).
fn foreach(node: Node, scope: Option<u32>, src: &[u8], names: &Names, facts: &mut FileFacts) {
    let body = field(node, "body").map(|b| b.id());
    let parts: Vec<Node> = named_children(node)
        .into_iter()
        .filter(|c| Some(c.id()) != body && c.kind() != "comment")
        .collect();
    let [collection, value, ..] = parts.as_slice() else {
        return;
    };
    let mut value = *value;
    if value.kind() == "pair" {
        let Some(last) = named_children(value).into_iter().last() else {
            return;
        };
        value = last;
    }
    if value.kind() == "by_ref" {
        let Some(inner) = named_children(value).into_iter().next() else {
            return;
        };
        value = inner;
    }
    if value.kind() != "variable_name" {
        return;
    }
    let of = receiver(*collection, src, names, facts, scope);
    if of != Receiver::Other && of != Receiver::SelfRef {
        facts.element_bindings.push(ElementBinding {
            scope,
            var: variable(text(value, src)),
            of,
        });
        facts
            .element_binding_spans
            .push((line(node), super::end_line(node)));
    }
}

/// The class `new` creates: a name (`self`/`static` the enclosing class), `None` for an
/// anonymous class or one chosen at run time (`new $class`).
fn created_class(
    node: Node,
    src: &[u8],
    names: &Names,
    facts: &FileFacts,
    scope: Option<u32>,
) -> Option<String> {
    let class = named_children(node)
        .into_iter()
        .find(|c| matches!(c.kind(), "name" | "qualified_name" | "relative_name"))?;
    let written = text(class, src);
    if written.eq_ignore_ascii_case("self") || written.eq_ignore_ascii_case("static") {
        return enclosing_class(facts, scope);
    }
    if written.eq_ignore_ascii_case("parent") {
        return None;
    }
    Some(names.qualify(written))
}

/// The name of the class around `scope`.
fn enclosing_class(facts: &FileFacts, scope: Option<u32>) -> Option<String> {
    let mut current = scope;
    while let Some(d) = current.and_then(|s| facts.defs.get(s as usize)) {
        if d.kind.is_type() {
            return Some(d.name.clone());
        }
        current = d.parent;
    }
    None
}

/// `$o->m(…)` or `$o?->m(…)`: the receiver classified (`$this`, a variable, a chain of
/// properties, a call's result); `None` when the method's name is computed.
fn member_call(
    node: Node,
    src: &[u8],
    names: &Names,
    facts: &FileFacts,
    scope: Option<u32>,
) -> Option<Callee> {
    let name = field(node, "name").filter(|n| n.kind() == "name")?;
    let object = field(node, "object")?;
    Some(Callee::Member {
        receiver: receiver(object, src, names, facts, scope),
        name: text(name, src).to_owned(),
    })
}

/// What a call's receiver is: `$this`, a variable, a chain of properties (`$this->a->b` is
/// `this.a.b`), the result of a call or `new` (as a dotted chain), else `Other`.
fn receiver(
    node: Node,
    src: &[u8],
    names: &Names,
    facts: &FileFacts,
    scope: Option<u32>,
) -> Receiver {
    match node.kind() {
        "variable_name" => match variable(text(node, src)).as_str() {
            "this" => Receiver::SelfRef,
            var => Receiver::Name(var.to_owned()),
        },
        "member_access_expression" | "nullsafe_member_access_expression" => {
            property_chain(node, src).map_or(Receiver::Other, Receiver::Path)
        }
        "object_creation_expression" => {
            created_class(node, src, names, facts, scope).map_or(Receiver::Other, Receiver::Call)
        }
        "parenthesized_expression" => named_children(node)
            .into_iter()
            .next()
            .filter(|n| n.kind() == "object_creation_expression")
            .and_then(|n| created_class(n, src, names, facts, scope))
            .map_or(Receiver::Other, Receiver::Call),
        "member_call_expression" | "nullsafe_member_call_expression" => {
            call_chain(node, src).map_or(Receiver::Other, Receiver::Call)
        }
        "function_call_expression" => field(node, "function")
            .filter(|f| matches!(f.kind(), "name" | "qualified_name"))
            .map(|f| names.qualify(text(f, src)))
            .filter(|f| !f.contains('\\'))
            .map_or(Receiver::Other, Receiver::Call),
        _ => Receiver::Other,
    }
}

/// `$a->b->c` as `a.b.c` (`$this` as `this`); `None` unless every step is a plain name.
fn property_chain(node: Node, src: &[u8]) -> Option<String> {
    match node.kind() {
        "variable_name" => Some(variable(text(node, src))),
        "member_access_expression" | "nullsafe_member_access_expression" => {
            let name = field(node, "name").filter(|n| n.kind() == "name")?;
            let object = property_chain(field(node, "object")?, src)?;
            Some(format!("{object}.{}", text(name, src)))
        }
        _ => None,
    }
}

/// A method call whose result is a receiver, as the resolver's dotted chain: `$this->m()` →
/// `this.m`, `$x->a->m()` → `x.a.m`, `$x->m()->n()` → `x.m().n`; `None` otherwise.
fn call_chain(node: Node, src: &[u8]) -> Option<String> {
    let name = text(field(node, "name").filter(|n| n.kind() == "name")?, src);
    let object = field(node, "object")?;
    match object.kind() {
        "member_call_expression" | "nullsafe_member_call_expression" => {
            Some(format!("{}().{name}", call_chain(object, src)?))
        }
        _ => Some(format!("{}.{name}", property_chain(object, src)?)),
    }
}

/// `T::m(…)`, `self::m(…)`, `static::m(…)`, `parent::m(…)`: a member of the class named, of the
/// enclosing class, or of its parent; `None` for a computed class or method.
fn scoped_call(
    node: Node,
    src: &[u8],
    names: &Names,
    facts: &FileFacts,
    scope: Option<u32>,
) -> Option<Callee> {
    let name = text(field(node, "name").filter(|n| n.kind() == "name")?, src).to_owned();
    let class = field(node, "scope")?;
    let written = text(class, src);
    let receiver = match class.kind() {
        "relative_scope" if written.eq_ignore_ascii_case("parent") => Receiver::Super,
        "relative_scope" => Receiver::SelfRef,
        "name" | "qualified_name" | "relative_name" => {
            return Some(Callee::Scoped {
                path: names.qualify(written),
                name,
            });
        }
        _ => receiver(class, src, names, facts, scope),
    };
    Some(Callee::Member { receiver, name })
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    const SOURCE: &str = r#"<?php
namespace App\Shop;

use App\Pay\Gateway;
use App\Pay\{Card, Wallet as Purse};
use function App\Util\log_it;
use const App\Util\LIMIT;
require_once __DIR__ . '/helpers.php';

/** A cart. */
class Cart extends Base implements \Countable, Totals
{
    use Discounts;

    /** @var Gateway */
    private $gateway;
    private ?Ledger $ledger;

    public function __construct(private Wallet $wallet, Card $card)
    {
        $this->ledger = new Ledger();
        parent::__construct();
    }

    public function total(): int { return count($this->items); }

    public static function make(): static { return new static(); }

    /** @param Card $card */
    public function checkout($card)
    {
        $other = new Cart();
        $other->total();
        $this->total();
        $this->gateway->charge($card);
        $this->wallet?->pay();
        self::make();
        static::make();
        Gateway::connect();
        \App\Pay\Gateway::connect();
        Pay\Gateway::connect();
        log_it('x');
        helper();
        $made = Cart::make();
        $made->total();
        $card->swipe();
    }
}

interface Totals extends \Countable { public function total(): int; }
trait Discounts { private function discount() {} }
enum Suit: string implements HasColor { case Hearts = 'H'; }
function helper() {}
?>
<p>html <?= helper() ?></p>
"#;

    #[test]
    fn php_types_methods_imports_and_calls() {
        let f = Extractor::default().extract("src/Shop/Cart.php", Lang::Php, SOURCE);
        assert_eq!(f.package.as_deref(), Some("App\\Shop"));
        let defs: Vec<(&str, NodeKind)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind))
            .collect();
        assert_eq!(
            defs,
            [
                ("Cart", NodeKind::Class),
                ("Cart.__construct", NodeKind::Method),
                ("Cart.total", NodeKind::Method),
                ("Cart.make", NodeKind::Method),
                ("Cart.checkout", NodeKind::Method),
                ("Totals", NodeKind::Interface),
                ("Totals.total", NodeKind::Method),
                ("Discounts", NodeKind::Trait),
                ("Discounts.discount", NodeKind::Method),
                ("Suit", NodeKind::Enum),
                ("helper", NodeKind::Function),
            ]
        );
        assert_eq!(f.defs[0].extends, ["Base"]);
        assert_eq!(f.defs[0].implements, ["\\Countable", "Totals", "Discounts"]);
        assert_eq!(f.defs[5].extends, ["\\Countable"]);
        assert_eq!(f.defs[9].implements, ["HasColor"]);
        assert_eq!(f.defs[0].doc, "A cart.");
        assert_eq!(f.defs[3].returns, "Self");
        assert!(!f.defs[8].exported && f.defs[2].exported);
        let imports: Vec<(&str, &str, Option<&str>, bool)> = f
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.names.first().map_or("", |n| n.name.as_str()),
                    i.names.first().and_then(|n| n.alias.as_deref()),
                    i.wildcard,
                )
            })
            .collect();
        assert_eq!(
            imports,
            [
                ("App\\Pay", "Gateway", None, false),
                ("App\\Pay", "Card", None, false),
                ("App\\Pay", "Wallet", Some("Purse"), false),
                ("App\\Util", "log_it", None, false),
                ("./helpers.php", "", None, true),
            ]
        );
        let calls: Vec<Callee> = f
            .calls
            .iter()
            .filter(|c| c.caller == Some(4))
            .map(|c| c.callee.clone())
            .collect();
        let member = |r: Receiver, n: &str| Callee::Member {
            receiver: r,
            name: n.into(),
        };
        let scoped = |p: &str, n: &str| Callee::Scoped {
            path: p.into(),
            name: n.into(),
        };
        assert_eq!(
            calls,
            [
                Callee::New("Cart".into()),
                member(Receiver::Name("other".into()), "total"),
                member(Receiver::SelfRef, "total"),
                member(Receiver::Path("this.gateway".into()), "charge"),
                member(Receiver::Path("this.wallet".into()), "pay"),
                member(Receiver::SelfRef, "make"),
                member(Receiver::SelfRef, "make"),
                scoped("Gateway", "connect"),
                scoped("\\App\\Pay\\Gateway", "connect"),
                scoped("\\App\\Shop\\Pay\\Gateway", "connect"),
                Callee::Name("log_it".into()),
                Callee::Name("helper".into()),
                scoped("Cart", "make"),
                member(Receiver::Name("made".into()), "total"),
                member(Receiver::Name("card".into()), "swipe"),
            ]
        );
        let constructor: Vec<Callee> = f
            .calls
            .iter()
            .filter(|c| c.caller == Some(1))
            .map(|c| c.callee.clone())
            .collect();
        assert_eq!(
            constructor,
            [
                Callee::New("Ledger".into()),
                member(Receiver::Super, "__construct")
            ]
        );
        for (var, ty, scope) in [
            ("other", "Cart", 4),
            ("card", "Card", 4),
            ("wallet", "Wallet", 1),
        ] {
            assert!(
                f.bindings.contains(&Binding {
                    scope: Some(scope),
                    var: var.into(),
                    type_name: ty.into()
                }),
                "{var}: {:?}",
                f.bindings
            );
        }
        assert!(f.call_bindings.iter().any(|b| b.var == "made"));
        for (attr, ty) in [
            ("gateway", "Gateway"),
            ("ledger", "Ledger"),
            ("wallet", "Wallet"),
        ] {
            assert!(
                f.attr_bindings.contains(&(0, attr.into(), ty.into())),
                "{attr}: {:?}",
                f.attr_bindings
            );
        }
        // The HTML after `?>` holds one more call, at file level.
        assert!(
            f.calls
                .iter()
                .any(|c| c.caller.is_none() && c.callee == Callee::Name("helper".into()))
        );
    }

    #[test]
    fn php_qualified_names_follow_the_namespace_and_aliases() {
        let source = "<?php\nnamespace A;\nuse B\\C;\nuse D\\E as F;\nC\\g(); F\\h(); \\i(); j(); namespace\\k();\n";
        let f = Extractor::default().extract("a.php", Lang::Php, source);
        let names: Vec<String> = f
            .calls
            .iter()
            .filter_map(|c| match &c.callee {
                Callee::Name(n) => Some(n.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(names, ["\\B\\C\\g", "\\D\\E\\h", "\\i", "j", "\\A\\k"]);
    }

    #[test]
    fn php_collections_in_doc_types_and_foreach_elements() {
        let source = "<?php\nnamespace A;\nclass C {\n  /** @var array<string, Item> */\n  private array $items;\n  /** @var Item[]|list<Item>|null */\n  private $more;\n  /** @var array<int, int> */\n  private $ints;\n  /** @var A|B */\n  private $either;\n  /** @param list<Item> $xs\n   * @return Item[] */\n  function f(array $xs) { foreach ($this->items as $k => $item) {} foreach ($xs as &$x) {} }\n}\n";
        let f = Extractor::default().extract("a.php", Lang::Php, source);
        assert_eq!(
            f.attr_bindings,
            [
                (0, "items".into(), "Item[]".into()),
                (0, "more".into(), "Item[]".into())
            ]
        );
        assert_eq!(f.defs[1].returns, "Item[]");
        assert!(f.bindings.contains(&Binding {
            scope: Some(1),
            var: "xs".into(),
            type_name: "Item[]".into()
        }));
        assert_eq!(
            f.element_bindings,
            [
                ElementBinding {
                    scope: Some(1),
                    var: "item".into(),
                    of: Receiver::Path("this.items".into())
                },
                ElementBinding {
                    scope: Some(1),
                    var: "x".into(),
                    of: Receiver::Name("xs".into())
                },
            ]
        );
    }

    #[test]
    fn php_instanceof_narrows_in_the_branch_or_after_an_early_exit() {
        let source = "<?php\nfunction f(Node $n, $m, $k) {\n  if ($n instanceof Text) {\n    $n->text();\n  }\n  foreach ($n->all() as $c) {\n    if (!($c instanceof Item)) {\n      continue;\n    }\n    $c->run();\n  }\n  \\assert($m instanceof Cart);\n  if (!$k instanceof Cart) { $k = null; }\n  $x = new Cart();\n  if ($a instanceof A && $b instanceof B) {\n    $a->f();\n  }\n  return !$c instanceof C || $c->g();\n}\n";
        let f = Extractor::default().extract("a.php", Lang::Php, source);
        let spans: Vec<(&str, &str, (u32, u32))> = f
            .bindings
            .iter()
            .zip(&f.binding_spans)
            .map(|(b, s)| (b.var.as_str(), b.type_name.as_str(), *s))
            .collect();
        assert_eq!(
            spans,
            [
                ("n", "Node", (2, 19)),
                ("n", "Text", (3, 5)),
                ("c", "Item", (9, 11)),
                ("m", "Cart", (12, 19)),
                ("x", "Cart", (14, 19)),
                ("a", "A", (15, 17)),
                ("b", "B", (15, 17)),
                ("a", "A", (15, 15)),
                ("c", "C", (18, 18)),
            ]
        );
    }

    #[test]
    fn php_files_without_code_or_broken_give_partial_facts() {
        let mut x = Extractor::default();
        assert!(
            x.extract("a.php", Lang::Php, "<html>no php</html>")
                .defs
                .is_empty()
        );
        let f = x.extract(
            "b.php",
            Lang::Php,
            "<?php class A { function f() { $x->; } ",
        );
        assert_eq!(f.defs.first().map(|d| d.name.as_str()), Some("A"));
        assert_eq!(f.package.as_deref(), Some(""));
    }
}
