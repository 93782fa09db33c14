//! C: `#include`s, function definitions (a `static` one is file-local), structs, unions, enums
//! and typedefs as types, plain calls, and the names that hide functions (parameters, locals,
//! macros), read in the references walk (`Extraction` rides on it).

use rustc_hash::FxHashSet as HashSet;
use tree_sitter::Node;

use super::refs::{Children, RefKinds, Rider};
use super::{doc_line, field, header_before_body, line, named_children, new_def, push_call, text};
use crate::facts::{Callee, Def, FileFacts, Import};
use crate::graph::NodeKind;

/// Declarator kinds that wrap the declared name (`*p`, `a[3]`, `f(int)`, `x = 1`, `(f)`).
const WRAPPERS: &[&str] = &[
    "pointer_declarator",
    "array_declarator",
    "function_declarator",
    "init_declarator",
    "attributed_declarator",
    "parenthesized_declarator",
    // C++ only: `A& a`, `A&& a`.
    "reference_declarator",
];

/// Where a node stands for C's extraction: inside a function's body (or at the top level),
/// or in a part of a definition or preprocessor line the extraction does not read.
#[derive(Debug, Clone, Copy)]
pub(super) enum Within {
    /// The innermost function around (`None`: the file's top level).
    Scope(Option<u32>),
    /// A function definition's return type and declarator, a preprocessor line's parts.
    Unread,
}

/// C's extraction, riding on the references walk (`refs::Rider`): one walk of the tree.
pub(super) struct Extraction;

impl Rider for Extraction {
    type Tag = Within;

    fn root(&self) -> Within {
        Within::Scope(None)
    }

    fn visit<'t>(
        &mut self,
        node: Node<'t>,
        within: Within,
        kinds: &RefKinds,
        src: &[u8],
        facts: &mut FileFacts,
    ) -> Children<'t, Within> {
        let unread = Children {
            all: Within::Unread,
            one: None,
        };
        let Within::Scope(scope) = within else {
            return unread;
        };
        let kind = kinds.kind_name(node);
        if preprocessor_of(kind, node, src, facts) {
            return unread;
        }
        match kind {
            "function_definition" => {
                let idx = function(node, scope, src, facts);
                // Only the body is read, in the function's scope.
                let body = field(node, "body").map(|body| (body, Within::Scope(idx.or(scope))));
                return Children {
                    all: Within::Unread,
                    one: body,
                };
            }
            "struct_specifier" | "union_specifier" | "enum_specifier" => {
                type_specifier(node, None, scope, src, facts);
            }
            "type_definition" => type_definition(node, scope, src, facts),
            // Variables a function declares hide functions of their names (`cb(x)` through a
            // function pointer is no call of a function `cb`).
            "declaration" if scope.is_some() => {
                let mut cursor = node.walk();
                for declarator in node.children_by_field_name("declarator", &mut cursor) {
                    if let Some(name) = variable_name(declarator, src) {
                        facts.locals.push((scope, name.to_owned()));
                    }
                }
            }
            "call_expression" => {
                // A call through a struct member (`s->f(x)`) or an expression calls a value
                // known at run time only: no call of a named function.
                if let Some(function) = field(node, "function")
                    && kinds.kind_name(function) == "identifier"
                {
                    let name = text(function, src).to_owned();
                    push_call(facts, scope, Callee::Name(name), node);
                }
            }
            _ => {}
        }
        Children {
            all: within,
            one: None,
        }
    }
}

/// Keeps each call of a name from one function once: the resolver reads no line of a C call
/// (only Rust's calls have lines that change what they mean) and makes one edge per caller and
/// callee, so a repeated call only held memory (on the Linux kernel, millions of sites).
pub(super) fn drop_repeated_calls(facts: &mut FileFacts) {
    let first: Vec<bool> = {
        let mut seen: HashSet<(Option<u32>, &Callee)> = HashSet::default();
        facts
            .calls
            .iter()
            .map(|call| seen.insert((call.caller, &call.callee)))
            .collect()
    };
    let mut first = first.into_iter();
    facts.calls.retain(|_| first.next().unwrap_or(true));
}

/// `#include "a/b.h"` as `a/b.h`, `#include <a/b.h>` as `<a/b.h>`.
/// The preprocessor lines C and C++ share: an `#include` is an import, a function-like macro
/// is no function (a call of its name is expanded, not made: its name hides functions), an
/// object-like one holds nothing to walk. Whether `node` was one of them.
pub(super) fn preprocessor(node: Node, src: &[u8], facts: &mut FileFacts) -> bool {
    preprocessor_of(node.kind(), node, src, facts)
}

/// [`preprocessor`] for a node of kind `kind`.
fn preprocessor_of(kind: &str, node: Node, src: &[u8], facts: &mut FileFacts) -> bool {
    match kind {
        "preproc_include" => include(node, src, facts),
        "preproc_function_def" => {
            if let Some(name) = field(node, "name") {
                facts.locals.push((None, text(name, src).to_owned()));
            }
        }
        "preproc_def" => {}
        _ => return false,
    }
    true
}

fn include(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some(path) = field(node, "path") else {
        return;
    };
    let module = match path.kind() {
        "string_literal" => text(path, src).trim_matches('"').to_owned(),
        "system_lib_string" => text(path, src).to_owned(),
        _ => return,
    };
    if module.is_empty() {
        return;
    }
    // What a header declares is seen by every file including it, through any chain of includes.
    facts.imports.push(Import {
        module,
        names: Vec::new(),
        module_alias: None,
        wildcard: true,
        reexport: true,
        line: line(node),
    });
}

/// A function definition; `None` when its name is not a plain identifier.
fn function(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) -> Option<u32> {
    let declarator = field(node, "declarator")?;
    let function = function_declarator(declarator)?;
    // A macro before the return type (`EXPORT size_t length (…)`) reads as the type, the type
    // as the name and the name as an error: the name is the last identifier before `(`.
    let shifted = named_children(function)
        .into_iter()
        .filter(|c| c.kind() == "ERROR")
        .filter_map(|e| named_children(e).into_iter().last())
        .rfind(|n| n.kind() == "identifier");
    let name = shifted.or(field(function, "declarator").filter(|n| n.kind() == "identifier"))?;
    let mut def = new_def(facts, NodeKind::Function, text(name, src), scope, node);
    fill(&mut def, node, src);
    def.signature = header_before_body(node, field(node, "body"), src);
    def.exported = !named_children(node)
        .iter()
        .any(|c| c.kind() == "storage_class_specifier" && text(*c, src) == "static");
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    if let Some(params) = field(function, "parameters") {
        for param in named_children(params) {
            if let Some(name) = field(param, "declarator").and_then(|d| variable_name(d, src)) {
                facts.locals.push((Some(idx), name.to_owned()));
            }
        }
    }
    Some(idx)
}

/// The `function_declarator` a definition's declarator holds (`*f(void)`, `(f)(int)`).
pub(super) fn function_declarator(declarator: Node) -> Option<Node> {
    let mut current = declarator;
    for _ in 0..16 {
        if current.kind() == "function_declarator" {
            // `(*f(int))(char)`: the function is the innermost declarator with parameters.
            match inner(current).and_then(function_declarator) {
                Some(deeper) => return Some(deeper),
                None => return Some(current),
            }
        }
        current = inner(current)?;
    }
    None
}

/// The declarator a wrapping declarator holds.
fn inner(node: Node) -> Option<Node> {
    if !WRAPPERS.contains(&node.kind()) {
        return None;
    }
    field(node, "declarator").or_else(|| {
        named_children(node)
            .into_iter()
            .find(|c| c.kind().ends_with("declarator") || c.kind().ends_with("identifier"))
    })
}

/// The name a declarator declares as a variable (`*p`, `a[3]`, `(*cb)(int)`, `x = 1`); `None`
/// for a function's prototype (`int f(void);`).
pub(super) fn variable_name<'s>(declarator: Node, src: &'s [u8]) -> Option<&'s str> {
    let mut current = declarator;
    for _ in 0..16 {
        match current.kind() {
            "identifier" => return Some(text(current, src)),
            "function_declarator"
                if field(current, "declarator").is_some_and(|d| d.kind() == "identifier") =>
            {
                return None;
            }
            _ => current = inner(current)?,
        }
    }
    None
}

/// A struct, union or enum with a body and a tag (`struct list { … }`), under `name` when a
/// typedef names it instead (`typedef struct { … } list;`). Returns whether it was defined.
fn type_specifier(
    node: Node,
    name: Option<&str>,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) -> bool {
    if field(node, "body").is_none() {
        return false;
    }
    let Some(name) = field(node, "name").map(|n| text(n, src)).or(name) else {
        return false;
    };
    let kind = if node.kind() == "enum_specifier" {
        NodeKind::Enum
    } else {
        NodeKind::Struct
    };
    let mut def = new_def(facts, kind, name, scope, node);
    fill(&mut def, node, src);
    def.signature = header_before_body(node, field(node, "body"), src);
    facts.defs.push(def);
    true
}

/// `typedef T name;`: each name a type (a struct or union a struct, an enum an enum, any other
/// type a struct), unless the tagged struct it defines has that name already.
pub(super) fn type_definition(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let ty = field(node, "type");
    let tag = ty
        .and_then(|t| field(t, "name"))
        .map(|n| text(n, src).to_owned());
    let kind = match ty.map(|t| t.kind()) {
        Some("enum_specifier") => NodeKind::Enum,
        _ => NodeKind::Struct,
    };
    let mut cursor = node.walk();
    let names: Vec<Node> = node
        .children_by_field_name("declarator", &mut cursor)
        .collect();
    for declarator in names {
        let mut current = declarator;
        while current.kind() != "type_identifier" {
            match inner(current) {
                Some(next) => current = next,
                None => break,
            }
        }
        if current.kind() != "type_identifier" {
            continue;
        }
        let name = text(current, src);
        if tag.as_deref() == Some(name) && ty.is_some_and(|t| field(t, "body").is_some()) {
            continue;
        }
        let mut def = new_def(facts, kind, name, scope, node);
        fill(&mut def, node, src);
        def.signature = super::signature(text(node, src).lines().next().unwrap_or(""));
        facts.defs.push(def);
    }
}

/// The doc comment right above a definition.
fn fill(def: &mut Def, node: Node, src: &[u8]) {
    if let Some(prev) = node.prev_named_sibling()
        && prev.kind() == "comment"
        && prev.end_position().row + 1 >= node.start_position().row
    {
        def.doc = doc_line(text(prev, src));
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::facts::{Callee, FileFacts};
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    fn facts(source: &str) -> FileFacts {
        Extractor::default().extract("src/a.c", Lang::C, source)
    }

    fn calls(f: &FileFacts) -> Vec<(Option<String>, String)> {
        f.calls
            .iter()
            .map(|c| {
                let caller = c.caller.map(|d| f.defs[d as usize].qualified.clone());
                let Callee::Name(name) = &c.callee else {
                    panic!("a C call is a plain name: {:?}", c.callee)
                };
                (caller, name.clone())
            })
            .collect()
    }

    #[test]
    fn functions_are_definitions_and_prototypes_are_not() {
        let f = facts(
            "int area(int w, int h);\n/* Sums two numbers. */\nint add(int a, int b) { return a + b; }\nstatic char *name(void) { return 0; }\nint (*pick(int k))(int) { return 0; }\nEXPORT size_type length (struct s *p) { return 0; }\n",
        );
        let defs: Vec<(&str, NodeKind, bool)> = f
            .defs
            .iter()
            .map(|d| (d.name.as_str(), d.kind, d.exported))
            .collect();
        assert_eq!(
            defs,
            [
                ("add", NodeKind::Function, true),
                ("name", NodeKind::Function, false),
                ("pick", NodeKind::Function, true),
                ("length", NodeKind::Function, true),
            ]
        );
        assert_eq!(f.defs[0].doc, "Sums two numbers.");
        assert_eq!(f.defs[0].signature, "int add(int a, int b)");
        assert_eq!(f.defs[0].start_line, 3);
    }

    #[test]
    fn structs_unions_enums_and_typedefs_are_types() {
        let f = facts(
            "struct point { int x, y; };\nstruct point p;\nunion value { int i; float f; };\nenum color { RED, GREEN };\ntypedef struct { int len; } buffer;\ntypedef struct node { struct node *next; } node;\ntypedef struct node node_t;\ntypedef int (*handler)(int);\n",
        );
        let defs: Vec<(&str, NodeKind)> =
            f.defs.iter().map(|d| (d.name.as_str(), d.kind)).collect();
        assert_eq!(
            defs,
            [
                ("point", NodeKind::Struct),
                ("value", NodeKind::Struct),
                ("color", NodeKind::Enum),
                ("buffer", NodeKind::Struct),
                ("node", NodeKind::Struct),
                ("node_t", NodeKind::Struct),
                ("handler", NodeKind::Struct),
            ]
        );
    }

    #[test]
    fn includes_are_wildcard_reexports_quoted_or_angled() {
        let f = facts("#include \"util/str.h\"\n#include <stdio.h>\n");
        let specs: Vec<(&str, bool, bool)> = f
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.wildcard, i.reexport))
            .collect();
        assert_eq!(
            specs,
            [("util/str.h", true, true), ("<stdio.h>", true, true)]
        );
    }

    #[test]
    fn plain_calls_count_and_calls_through_members_do_not() {
        let f = facts(
            "int run(struct ops *o, int (*cb)(int)) {\n  int n = count(o);\n  o->step(n);\n  o->inner.step(n);\n  (*cb)(n);\n  cb(n);\n  return finish(helper(n));\n}\nint x = setup();\n",
        );
        assert_eq!(
            calls(&f),
            [
                (Some("run".into()), "count".into()),
                (Some("run".into()), "cb".into()),
                (Some("run".into()), "finish".into()),
                (Some("run".into()), "helper".into()),
                (None, "setup".into()),
            ]
        );
    }

    #[test]
    fn parameters_locals_and_function_like_macros_are_names_that_hide() {
        let f = facts(
            "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define LIMIT 3\nvoid run(int (*cb)(int), char **argv) {\n  int (*fp)(void) = 0, n, *p;\n  int local_proto(void);\n}\n",
        );
        let locals: Vec<(Option<u32>, &str)> =
            f.locals.iter().map(|(s, n)| (*s, n.as_str())).collect();
        assert_eq!(
            locals,
            [
                (None, "MAX"),
                (Some(0), "cb"),
                (Some(0), "argv"),
                (Some(0), "fp"),
                (Some(0), "n"),
                (Some(0), "p"),
            ]
        );
    }

    #[test]
    fn a_local_declared_again_in_its_scope_is_kept_once() {
        let f = facts(
            "#ifdef A\n#define M(x) (x)\n#else\n#define M(x) 0\n#endif\nvoid run(int n) {\n  for (int i = 0; i < n; i++) { int t = i; }\n  for (int i = 0; i < n; i++) { int t = i; }\n}\nvoid other(void) { int t; }\n",
        );
        let locals: Vec<(Option<u32>, &str)> =
            f.locals.iter().map(|(s, n)| (*s, n.as_str())).collect();
        assert_eq!(
            locals,
            [
                (None, "M"),
                (Some(0), "n"),
                (Some(0), "i"),
                (Some(0), "t"),
                (Some(1), "t")
            ]
        );
    }

    #[test]
    fn a_call_repeated_in_one_function_is_kept_once() {
        let f = facts(
            "void a(void) { lock(); work(); lock(); }\nvoid b(void) { lock(); }\nint x = lock();\nint y = lock();\n",
        );
        assert_eq!(
            calls(&f),
            [
                (Some("a".into()), "lock".into()),
                (Some("a".into()), "work".into()),
                (Some("b".into()), "lock".into()),
                (None, "lock".into()),
            ]
        );
        assert_eq!(f.calls[1].line, 1);
    }

    #[test]
    fn definitions_inside_conditional_compilation_are_read() {
        let f = facts(
            "#ifdef _WIN32\nvoid sleep_ms(int ms) { Sleep(ms); }\n#else\nvoid sleep_ms(int ms) { usleep(ms * 1000); }\n#endif\n",
        );
        assert_eq!(f.defs.len(), 2);
        assert_eq!(calls(&f).len(), 2);
    }
}
