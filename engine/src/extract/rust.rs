//! Rust: structs, enums, traits, modules, functions and methods (owners from `impl` blocks,
//! trait impls as IMPLEMENTS), `use` trees (`pub use` re-exports), calls and `let` bindings.

use tree_sitter::Node;

use super::{
    ReceiverSyntax, doc_line, end_line, field, header_before_body, line, named_children, new_def,
    push_call, push_children, rust_cfg, split_outside_brackets, strip_generics, text,
};
use crate::facts::{
    Binding, CallBinding, Callee, ClosureBinding, ClosureParam, ElementBinding, FileFacts, Import,
    ImportedName, Receiver,
};
use crate::graph::NodeKind;

/// A macro invocation whose items were read: (macro name, first line, last line).
type MacroSpan = (String, u32, u32);

/// The `impl` block a method sits in: its type's name, its type parameters (see
/// `type_parameters`) and the type's arguments as written (`impl<T, S> Tx<T, S>`: `T`, `S`).
type ImplOf = Option<(String, Vec<TypeParameter>, Vec<String>)>;

/// A type parameter, its one trait bound (empty when it has none or several) and every trait
/// that bounds it.
type TypeParameter = (String, String, Vec<String>);

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut owners: Vec<(u32, String)> = Vec::new();
    let mut trait_impls: Vec<(String, String)> = Vec::new();
    let mut cursor = root.walk();
    // Each node with the definition it sits in and the `impl` block around it.
    let mut stack: Vec<(Node, (Option<u32>, ImplOf))> = vec![(root, (None, None))];
    while let Some((node, (scope, impl_of))) = stack.pop() {
        match node.kind() {
            "impl_item" => {
                let generics = type_parameters(node, src);
                // `impl Schedule for Arc<Handle>`: methods of `Handle`, which a call on the
                // pointer reaches; `impl<T> Read for Box<T>` stays `Box`'s.
                let ty = field(node, "type").map(|t| {
                    let written = text(t, src);
                    value_type(written)
                        .filter(|v| !generics.iter().any(|(name, _, _)| name == v))
                        .unwrap_or_else(|| strip_generics(written))
                });
                let tr = field(node, "trait").map(|t| strip_generics(text(t, src)));
                if let (Some(ty), Some("Deref"), Some(written), Some(body)) = (
                    &ty,
                    tr.as_deref().and_then(|t| t.rsplit("::").next()),
                    field(node, "type"),
                    field(node, "body"),
                ) {
                    deref_target(ty, text(written, src), &generics, body, src, facts);
                }
                if let (Some(ty), Some(tr)) = (&ty, tr) {
                    trait_impls.push((ty.clone(), tr));
                }
                if let Some(body) = field(node, "body") {
                    let arguments = field(node, "type")
                        .and_then(|t| unwrapped(text(t, src)))
                        .and_then(|t| t.split_once('<'))
                        .and_then(|(_, args)| args.trim_end().strip_suffix('>'))
                        .map(|args| {
                            split_outside_brackets(args, ',')
                                .into_iter()
                                .filter(|a| !a.starts_with('\''))
                                .map(str::to_owned)
                                .collect()
                        })
                        .unwrap_or_default();
                    let impl_of = ty.map(|t| (t, generics, arguments));
                    push_children(&mut cursor, body, (scope, impl_of), &mut stack);
                }
                continue;
            }
            "function_item" | "function_signature_item" => {
                let Some(name) = field(node, "name").map(|n| text(n, src)) else {
                    continue;
                };
                let in_trait = scope
                    .and_then(|s| facts.defs.get(s as usize))
                    .is_some_and(|d| d.kind == NodeKind::Trait);
                let kind = if impl_of.is_some() || in_trait {
                    NodeKind::Method
                } else {
                    NodeKind::Function
                };
                let mut def = new_def(facts, kind, name, scope, node);
                if let Some((ty, _, _)) = &impl_of {
                    def.qualified = format!("{ty}.{name}");
                }
                fill(&mut def, node, src);
                def.returns = field(node, "return_type")
                    .and_then(|t| returned_type(text(t, src)))
                    .unwrap_or_default();
                let idx = facts.defs.len() as u32;
                facts.defs.push(def);
                if let Some(tuple) = field(node, "return_type").filter(|t| t.kind() == "tuple_type")
                {
                    let types = named_children(tuple)
                        .into_iter()
                        .map(|t| value_type(text(t, src)).unwrap_or_default())
                        .collect();
                    facts.tuple_returns.push((idx, types));
                }
                if let Some((ty, _, arguments)) = &impl_of {
                    owners.push((idx, ty.clone()));
                    if !arguments.is_empty() {
                        facts.impl_arguments.push((idx, arguments.clone()));
                    }
                }
                // The function's own type parameters hide its `impl` block's of the same name.
                let mut generics = type_parameters(node, src);
                if let Some((_, outer, _)) = &impl_of {
                    generics.extend(outer.iter().cloned());
                }
                if let Some(params) = field(node, "parameters") {
                    parameters(params, &generics, idx, src, facts);
                    closure_params(node, params, idx, src, facts);
                }
                push_type_params(facts, idx, generics);
                if let Some(body) = field(node, "body") {
                    stack.push((body, (Some(idx), None)));
                }
                continue;
            }
            kind @ ("struct_item" | "enum_item" | "trait_item" | "mod_item" | "union_item") => {
                let Some(name) = field(node, "name").map(|n| text(n, src)) else {
                    continue;
                };
                let def_kind = match kind {
                    "enum_item" => NodeKind::Enum,
                    "trait_item" => NodeKind::Trait,
                    "mod_item" => NodeKind::Module,
                    _ => NodeKind::Struct,
                };
                let mut def = new_def(facts, def_kind, name, scope, node);
                fill(&mut def, node, src);
                if def_kind == NodeKind::Trait
                    && let Some(bounds) = field(node, "bounds")
                {
                    def.extends = named_children(bounds)
                        .iter()
                        .map(|b| strip_generics(text(*b, src)))
                        .collect();
                }
                let idx = facts.defs.len() as u32;
                facts.defs.push(def);
                push_type_params(facts, idx, type_parameters(node, src));
                if let Some(body) = field(node, "body") {
                    match body.kind() {
                        "field_declaration_list" => fields(body, idx, src, facts),
                        "ordered_field_declaration_list" => tuple_fields(body, idx, src, facts),
                        "enum_variant_list" => variant_fields(body, idx, src, facts),
                        _ => {}
                    }
                    push_children(&mut cursor, body, (Some(idx), None), &mut stack);
                }
                continue;
            }
            "attribute_item" => {
                // An attribute of a `match` arm applies to the whole arm.
                let item = match node.parent() {
                    Some(arm) if arm.kind() == "match_arm" => Some(arm),
                    _ => item_after(node),
                };
                if let Some(item) = item.filter(|i| i.kind() == "mod_item")
                    && field(item, "body").is_none()
                    && let Some(name) = field(item, "name")
                    && let Some(path) = path_attribute(text(node, src))
                {
                    facts.module_paths.push((
                        text(name, src).to_owned(),
                        path.to_owned(),
                        line(item),
                    ));
                }
                if let Some(item) = item.filter(|_| marks_test_code(text(node, src))) {
                    facts.test_spans.push((line(item), end_line(item)));
                    if item.kind() == "mod_item"
                        && field(item, "body").is_none()
                        && let Some(name) = field(item, "name")
                    {
                        facts.test_modules.push(text(name, src).to_owned());
                    }
                }
                continue;
            }
            "macro_definition" => {
                if let Some(name) = field(node, "name")
                    && puts_items_under_stand_in_cfg(text(node, src))
                {
                    facts.stand_in_macros.push(text(name, src).to_owned());
                }
                continue;
            }
            "inner_attribute_item" => {
                if marks_test_code(text(node, src)) {
                    // `#![cfg(test)]` at the top of a file, or inside a `mod m { … }`.
                    let span = match node.parent().and_then(|p| p.parent()) {
                        Some(item) if item.kind() == "mod_item" => (line(item), end_line(item)),
                        _ => (1, u32::MAX),
                    };
                    facts.test_spans.push(span);
                }
                continue;
            }
            "use_declaration" => {
                let reexport = named_children(node)
                    .iter()
                    .any(|c| c.kind() == "visibility_modifier");
                if let Some(arg) = field(node, "argument") {
                    let first = facts.imports.len();
                    use_tree(arg, "", reexport, line(node), src, facts);
                    let depth = inline_module_depth(node);
                    for import in facts.imports.iter_mut().skip(first) {
                        import.module = seen_from_file(&import.module, depth);
                    }
                }
                continue;
            }
            "call_expression" => call(node, scope, src, facts),
            "let_declaration" => binding(node, scope, src, facts),
            // `type Alias = Type;` in a file or module (not an `impl`'s or a trait's).
            "type_item"
                if impl_of.is_none()
                    && scope
                        .and_then(|s| facts.defs.get(s as usize))
                        .is_none_or(|d| d.kind == NodeKind::Module) =>
            {
                if let (Some(name), Some(ty)) = (field(node, "name"), field(node, "type"))
                    && let Some(ty) = value_type(text(ty, src))
                {
                    facts
                        .type_aliases
                        .push((text(name, src).to_owned(), vec![ty]));
                    facts.type_alias_lines.push(line(node));
                }
                continue;
            }
            "for_expression" => for_binding(node, scope, src, facts),
            "let_condition" => unwrapped_binding(node, node, scope, src, facts),
            "match_arm" => {
                if let Some(matched) = node.parent().and_then(|b| b.parent()) {
                    unwrapped_binding(node, matched, scope, src, facts);
                }
            }
            _ => {}
        }
        push_children(&mut cursor, node, (scope, impl_of), &mut stack);
    }
    facts.adopt_methods(&owners);
    for (ty, tr) in trait_impls {
        if let Some(def) = facts
            .defs
            .iter_mut()
            .find(|d| d.name == ty && matches!(d.kind, NodeKind::Struct | NodeKind::Enum))
        {
            def.implements.push(tr);
        }
    }
}

/// The source with every brace-delimited macro invocation at item level (`name! { … }` in a
/// file, a module or an `impl`, and such invocations directly inside one) opened up: its name,
/// `!` and braces blanked (lines and offsets unchanged), so that the items inside parse as
/// items; and every macro in an expression opened as below. `None` when there is none. What
/// the opened macros held may hold more: the caller parses again and repeats.
/// Also gives each invocation opened: (macro name, first line, last line).
pub(super) fn unwrap_macros(root: Node, source: &str) -> Option<(String, Vec<MacroSpan>)> {
    let src = source.as_bytes();
    // Byte ranges to blank.
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let mut invocations: Vec<MacroSpan> = Vec::new();
    let mut containers = vec![root];
    let mut trees: Vec<Node> = Vec::new();
    while let Some(container) = containers.pop() {
        for child in named_children(container) {
            match child.kind() {
                "macro_invocation" => {
                    if let Some(tree) = named_children(child)
                        .into_iter()
                        .find(|c| c.kind() == "token_tree")
                        .filter(|t| text(*t, src).starts_with('{'))
                    {
                        blank.push((child.start_byte(), tree.start_byte() + 1));
                        blank.push((tree.end_byte() - 1, tree.end_byte()));
                        if let Some(name) = field(child, "macro") {
                            let name = text(name, src);
                            let name = name.rsplit("::").next().unwrap_or(name);
                            invocations.push((name.to_owned(), line(child), end_line(child)));
                        }
                        trees.push(tree);
                    }
                }
                "mod_item" | "impl_item" | "trait_item" => {
                    if let Some(body) = field(child, "body") {
                        containers.push(body);
                    }
                }
                _ => {}
            }
        }
    }
    // Macros in expressions and statements (`ready!(…)`, `assert!(…)`, `vec![…]`): the name and
    // `!` are blanked, leaving a parenthesised expression, a tuple or an array to parse.
    let mut cursor = root.walk();
    let mut stack = vec![(root, ())];
    while let Some((node, ())) = stack.pop() {
        if node.kind() == "macro_invocation"
            && !node
                .parent()
                .is_some_and(|p| matches!(p.kind(), "source_file" | "declaration_list"))
            && let Some(tree) = named_children(node)
                .into_iter()
                .find(|c| c.kind() == "token_tree")
                .filter(|t| text(*t, src).starts_with(['(', '[']))
        {
            blank.push((node.start_byte(), tree.start_byte()));
            continue;
        }
        push_children(&mut cursor, node, (), &mut stack);
    }
    // Inside an opened macro, `name! { … }` among its tokens is opened too.
    while let Some(tree) = trees.pop() {
        let mut cursor = tree.walk();
        let tokens: Vec<Node> = tree.children(&mut cursor).collect();
        for window in tokens.windows(3) {
            let [name, bang, body] = window else { continue };
            if matches!(name.kind(), "identifier" | "scoped_identifier")
                && text(*bang, src) == "!"
                && body.kind() == "token_tree"
                && text(*body, src).starts_with('{')
            {
                blank.push((name.start_byte(), body.start_byte() + 1));
                blank.push((body.end_byte() - 1, body.end_byte()));
                let written = text(*name, src);
                let written = written.rsplit("::").next().unwrap_or(written);
                invocations.push((written.to_owned(), line(*name), end_line(*body)));
                trees.push(*body);
            }
        }
    }
    if blank.is_empty() {
        return None;
    }
    let mut bytes = src.to_vec();
    for (start, end) in blank {
        for b in bytes.get_mut(start..end).into_iter().flatten() {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only ASCII bytes and whole multi-byte sequences inside comments are replaced by spaces.
    Some((String::from_utf8_lossy(&bytes).into_owned(), invocations))
}

fn fill(def: &mut crate::facts::Def, node: Node, src: &[u8]) {
    def.signature = header_before_body(node, field(node, "body"), src);
    def.exported = named_children(node)
        .iter()
        .any(|c| c.kind() == "visibility_modifier");
    let mut docs = Vec::new();
    let mut prev = node.prev_sibling();
    while let Some(p) = prev {
        match p.kind() {
            "line_comment" | "block_comment"
                if text(p, src).starts_with("///") || text(p, src).starts_with("/**") =>
            {
                docs.push(p)
            }
            "attribute_item" => {}
            _ => break,
        }
        prev = p.prev_sibling();
    }
    if let Some(first) = docs.last() {
        def.doc = doc_line(text(*first, src));
    }
}

/// An item's type parameters (a function's, an `impl` block's, a type's), each with its one
/// trait bound that is not a marker (`R: AsyncRead + ?Sized + Unpin`, also in a `where`
/// clause), or empty when it has none or several, and every such trait that bounds it; a name
/// only a `where` clause bounds (a parameter of an enclosing item) too.
fn type_parameters(item: Node, src: &[u8]) -> Vec<TypeParameter> {
    let mut predicates: Vec<Node> = field(item, "type_parameters")
        .map(named_children)
        .unwrap_or_default();
    let mut found: Vec<(String, Vec<String>, Vec<String>)> = predicates
        .iter()
        .filter(|p| p.kind() == "type_parameter")
        .filter_map(|p| field(*p, "name"))
        .map(|name| (text(name, src).to_owned(), Vec::new(), Vec::new()))
        .collect();
    for clause in named_children(item)
        .into_iter()
        .filter(|c| c.kind() == "where_clause")
    {
        predicates.extend(named_children(clause));
    }
    for p in predicates {
        let Some(bounds) = field(p, "bounds") else {
            continue;
        };
        let Some(name) = field(p, "left").or_else(|| field(p, "name")).or_else(|| {
            named_children(p)
                .into_iter()
                .find(|c| c.kind() == "type_identifier")
        }) else {
            continue;
        };
        let name = text(name, src);
        let bound = single_trait(bounds, src).unwrap_or_default();
        let named = traits_in(named_children(bounds), src);
        match found.iter_mut().find(|(n, _, _)| n == name) {
            Some((_, traits, all)) => {
                traits.push(bound);
                all.extend(named);
            }
            None => found.push((name.to_owned(), vec![bound], named)),
        }
    }
    found
        .into_iter()
        .map(|(name, traits, mut all)| {
            let one = match traits.split_first() {
                Some((first, rest)) if rest.iter().all(|t| t == first) => first.clone(),
                _ => String::new(),
            };
            all.sort();
            all.dedup();
            (name, one, all)
        })
        .collect()
}

/// Records an item's type parameters with their one bound, and the traits of those that
/// several traits bound.
fn push_type_params(facts: &mut FileFacts, def: u32, parameters: Vec<TypeParameter>) {
    for (name, bound, all) in parameters {
        if all.len() > 1 {
            facts.type_param_traits.push((def, name.clone(), all));
        }
        facts.type_params.push((def, name, bound));
    }
}

/// The one trait of a bound list (`AsyncRead + ?Sized + Unpin + 'a` → `AsyncRead`), markers
/// and lifetimes left out; `None` when there are several or none.
fn single_trait(bounds: Node, src: &[u8]) -> Option<String> {
    one_trait(named_children(bounds), src)
}

/// The trait of `impl Trait` (`impl AsyncRead + Unpin` → `AsyncRead`).
fn single_trait_of(ty: Node, src: &[u8]) -> Option<String> {
    let mut parts = Vec::new();
    let mut pending = vec![ty];
    while let Some(t) = pending.pop() {
        match t.kind() {
            "abstract_type" => pending.extend(field(t, "trait")),
            "bounded_type" => pending.extend(named_children(t)),
            _ => parts.push(t),
        }
    }
    one_trait(parts, src)
}

fn one_trait(candidates: Vec<Node>, src: &[u8]) -> Option<String> {
    let mut traits = traits_in(candidates, src).into_iter();
    let first = traits.next()?;
    traits.next().is_none().then_some(first)
}

/// The traits among bounds, markers and lifetimes left out.
fn traits_in(candidates: Vec<Node>, src: &[u8]) -> Vec<String> {
    candidates
        .into_iter()
        .filter(|b| {
            matches!(
                b.kind(),
                "type_identifier" | "scoped_type_identifier" | "generic_type"
            )
        })
        .map(|b| strip_generics(text(b, src)))
        .filter(|t| {
            !matches!(
                t.rsplit("::").next(),
                Some("Send" | "Sync" | "Unpin" | "Sized" | "Copy" | "Clone" | "Debug" | "Default")
            )
        })
        .collect()
}

fn parameters(params: Node, bounds: &[TypeParameter], def: u32, src: &[u8], facts: &mut FileFacts) {
    for param in named_children(params) {
        if param.kind() != "parameter" {
            continue;
        }
        if let (Some(pattern), Some(ty)) = (
            field(param, "pattern").and_then(bound_name),
            field(param, "type"),
        ) {
            let written = text(ty, src);
            let ty = match written.trim().strip_prefix("impl ") {
                Some(_) => single_trait_of(ty, src).unwrap_or_default(),
                _ => field_type(written).unwrap_or_else(|| {
                    strip_generics(
                        written
                            .trim_start_matches('&')
                            .trim_start_matches("mut ")
                            .trim(),
                    )
                }),
            };
            // A type parameter stands for its one trait bound.
            let ty = bounds
                .iter()
                .find(|(name, _, _)| *name == ty)
                .map_or(ty, |(_, bound, _)| bound.clone());
            if ty.is_empty() {
                continue;
            }
            push_binding(
                facts,
                Binding {
                    scope: Some(def),
                    var: text(pattern, src).to_owned(),
                    type_name: ty,
                },
                (0, u32::MAX),
            );
        }
    }
}

/// The parameters of function `item` that take a closure (`f: impl FnOnce(&mut T) -> R`, `f:
/// F` or `f: &mut F` where `F: Fn(A, B)` inline or in a `where` clause), with the types the
/// closure is given.
fn closure_params(item: Node, params: Node, def: u32, src: &[u8], facts: &mut FileFacts) {
    // The function's type parameters bounded by an `Fn` trait: name → the `Fn(…)` bound.
    let mut predicates: Vec<Node> = field(item, "type_parameters")
        .map(named_children)
        .unwrap_or_default();
    for clause in named_children(item)
        .into_iter()
        .filter(|c| c.kind() == "where_clause")
    {
        predicates.extend(named_children(clause));
    }
    let bounded: Vec<(&str, Node)> = predicates
        .into_iter()
        .filter_map(|p| {
            let name = field(p, "left").or_else(|| field(p, "name")).or_else(|| {
                named_children(p)
                    .into_iter()
                    .find(|c| c.kind() == "type_identifier")
            })?;
            let bound = fn_bound(named_children(field(p, "bounds")?), src)?;
            Some((text(name, src), bound))
        })
        .collect();
    let mut takes_self = false;
    let mut position = 0;
    for param in named_children(params) {
        match param.kind() {
            "self_parameter" => {
                takes_self = true;
                continue;
            }
            "parameter" => {}
            _ => continue,
        }
        let mut ty = field(param, "type");
        while let Some(t) = ty.filter(|t| t.kind() == "reference_type") {
            ty = field(t, "type");
        }
        let signature = ty.and_then(|t| match t.kind() {
            "abstract_type" => fn_bound(field(t, "trait").into_iter().collect(), src),
            "type_identifier" => bounded
                .iter()
                .find(|(name, _)| *name == text(t, src))
                .map(|(_, bound)| *bound),
            _ => None,
        });
        if let Some(signature) = signature
            && let Some(args) = field(signature, "parameters")
        {
            let types = named_children(args)
                .into_iter()
                .filter(|a| a.kind() != "attribute_item")
                .map(|a| value_type(text(a, src)).unwrap_or_default())
                .collect();
            facts.closure_params.push(ClosureParam {
                def,
                position,
                takes_self,
                types,
            });
        }
        position += 1;
    }
}

/// The `Fn(…)`, `FnMut(…)` or `FnOnce(…)` among bounds (`impl FnOnce(A) -> R + Send`).
fn fn_bound<'t>(bounds: Vec<Node<'t>>, src: &[u8]) -> Option<Node<'t>> {
    let mut pending = bounds;
    while let Some(b) = pending.pop() {
        match b.kind() {
            "bounded_type" | "trait_bounds" => pending.extend(named_children(b)),
            "function_type"
                if field(b, "trait").is_some_and(|t| {
                    matches!(
                        text(t, src).rsplit("::").next(),
                        Some("Fn" | "FnMut" | "FnOnce")
                    )
                }) =>
            {
                return Some(b);
            }
            _ => {}
        }
    }
    None
}

fn use_tree(node: Node, prefix: &str, reexport: bool, at: u32, src: &[u8], facts: &mut FileFacts) {
    let join = |p: &str, rest: &str| {
        if p.is_empty() {
            rest.to_owned()
        } else {
            format!("{p}::{rest}")
        }
    };
    match node.kind() {
        "scoped_identifier" | "identifier" | "crate" | "self" | "super" => {
            // `use a::b::{self, C}`: `self` binds the module `b` itself.
            let full = match text(node, src) {
                "self" if !prefix.is_empty() => prefix.to_owned(),
                written => join(prefix, written),
            };
            let (module, name) = full.rsplit_once("::").unwrap_or(("", &full));
            push_use(facts, module, name, None, reexport, at);
        }
        "use_as_clause" => {
            let (Some(path), Some(alias)) = (field(node, "path"), field(node, "alias")) else {
                return;
            };
            // `use a::b::{self as c}` binds the module `b` as `c`.
            let full = match text(path, src) {
                "self" if !prefix.is_empty() => prefix.to_owned(),
                written => join(prefix, written),
            };
            let (module, name) = full.rsplit_once("::").unwrap_or(("", &full));
            push_use(facts, module, name, Some(text(alias, src)), reexport, at);
        }
        "scoped_use_list" => {
            let path = field(node, "path")
                .map(|p| join(prefix, text(p, src)))
                .unwrap_or_else(|| prefix.to_owned());
            if let Some(list) = field(node, "list") {
                for item in named_children(list) {
                    use_tree(item, &path, reexport, at, src, facts);
                }
            }
        }
        "use_list" => {
            for item in named_children(node) {
                use_tree(item, prefix, reexport, at, src, facts);
            }
        }
        "use_wildcard" => {
            let path = named_children(node)
                .into_iter()
                .next()
                .map(|p| join(prefix, text(p, src)))
                .unwrap_or_else(|| prefix.to_owned());
            facts.imports.push(Import {
                module: path,
                names: Vec::new(),
                module_alias: None,
                wildcard: true,
                reexport,
                line: at,
            });
        }
        _ => {}
    }
}

/// How many inline modules (`mod m { … }`) a node sits in.
fn inline_module_depth(node: Node) -> usize {
    let mut depth = 0;
    let mut at = node.parent();
    while let Some(n) = at {
        if n.kind() == "mod_item" {
            depth += 1;
        }
        at = n.parent();
    }
    depth
}

/// A `use` path written inside `depth` inline modules as seen from the file's own module:
/// each leading `super` leaves one inline module (`super::x` in `mod m { … }` is the file's
/// `self::x`). Items of the inline modules themselves are read as the file's.
fn seen_from_file(path: &str, depth: usize) -> String {
    let mut rest = path;
    let mut left = 0;
    while left < depth {
        match rest.strip_prefix("super") {
            Some("") => return "self".to_owned(),
            Some(after) if after.starts_with("::") => {
                rest = &after[2..];
                left += 1;
            }
            _ => break,
        }
    }
    match left {
        0 => path.to_owned(),
        _ if rest.starts_with("super") => rest.to_owned(),
        _ => format!("self::{rest}"),
    }
}

fn push_use(
    facts: &mut FileFacts,
    module: &str,
    name: &str,
    alias: Option<&str>,
    reexport: bool,
    at: u32,
) {
    facts.imports.push(Import {
        module: module.to_owned(),
        names: vec![ImportedName {
            name: name.to_owned(),
            alias: alias.map(str::to_owned),
        }],
        module_alias: None,
        wildcard: false,
        reexport,
        line: at,
    });
}

/// Rust's receivers: `self`, plain names and `a.b` field expressions.
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &["self"],
    self_names: &[],
    super_kinds: &[],
    members: &[("field_expression", "value", "field")],
    leaves: &["identifier", "self"],
};

fn call(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(callee) = callee_of(node, src) else {
        return;
    };
    // `x.with(|a, b| …)`: the closure's parameters hold what `with` passes it.
    let arguments = field(node, "arguments").map(named_children);
    let written = arguments
        .unwrap_or_default()
        .into_iter()
        .filter(|a| a.kind() != "attribute_item");
    for (argument, closure) in written.enumerate() {
        if closure.kind() != "closure_expression" {
            continue;
        }
        let Some(params) = field(closure, "parameters") else {
            continue;
        };
        // `_` is no named node: every child but the bars and commas is a parameter.
        let mut cursor = params.walk();
        let written: Vec<Node> = params
            .children(&mut cursor)
            .filter(|p| !matches!(p.kind(), "|" | "," | "line_comment" | "block_comment"))
            .collect();
        for (parameter, param) in written.into_iter().enumerate() {
            let pattern = match param.kind() {
                "parameter" => field(param, "pattern"),
                _ => Some(param),
            };
            if let Some(var) = pattern.and_then(bound_name) {
                facts.closure_bindings.push(ClosureBinding {
                    scope,
                    var: text(var, src).to_owned(),
                    callee: callee.clone(),
                    argument: argument as u32,
                    parameter: parameter as u32,
                });
                facts
                    .closure_binding_spans
                    .push((line(closure), end_line(closure)));
            }
        }
    }
    push_call(facts, scope, callee, node);
}

/// What a call expression calls: a path (`a::b::f`), a name or a member.
fn callee_of(node: Node, src: &[u8]) -> Option<Callee> {
    let mut function = field(node, "function")?;
    if function.kind() == "generic_function" {
        function = field(function, "function")?;
    }
    if function.kind() == "scoped_identifier" {
        return field(function, "name").map(|name| Callee::Scoped {
            path: field(function, "path")
                .map(|p| path_of(text(p, src)))
                .unwrap_or_default(),
            name: text(name, src).to_owned(),
        });
    }
    RECEIVERS.callee(function, src, |object| receiver(object, src))
}

/// Whether `node` is `Pin::new(self)` or `Pin::new_unchecked(self)` (`&mut self`, `&mut *self`
/// too): the method's own value, pinned.
fn pins_self(node: Node, src: &[u8]) -> bool {
    if node.kind() != "call_expression" {
        return false;
    }
    let Some(function) = field(node, "function") else {
        return false;
    };
    let path = path_of(text(function, src));
    let mut parts = path.rsplit("::");
    let pins = matches!(
        (parts.next(), parts.next()),
        (Some("new" | "new_unchecked"), Some("Pin"))
    );
    let Some(arguments) = field(node, "arguments") else {
        return false;
    };
    let [mut arg] = named_children(arguments)[..] else {
        return false;
    };
    while matches!(
        arg.kind(),
        "reference_expression" | "unary_expression" | "parenthesized_expression"
    ) {
        match named_children(arg).last() {
            Some(&inner) => arg = inner,
            None => return false,
        }
    }
    pins && arg.kind() == "self"
}

/// The methods a `Pin` answers itself, its own and those of the standard traits it implements.
fn is_pin_method(name: &str) -> bool {
    matches!(
        name,
        "new"
            | "new_unchecked"
            | "into_inner"
            | "into_inner_unchecked"
            | "into_ref"
            | "as_ref"
            | "as_mut"
            | "as_deref_mut"
            | "set"
            | "get_ref"
            | "get_mut"
            | "get_unchecked_mut"
            | "map_unchecked"
            | "map_unchecked_mut"
            | "static_ref"
            | "static_mut"
            | "clone"
            | "deref"
            | "deref_mut"
            | "fmt"
            | "eq"
            | "ne"
            | "cmp"
            | "partial_cmp"
            | "hash"
    )
}

/// The shared classification, plus call results: `Builder::new().name(n)` as the chain
/// `Builder::new().name`, whose type the resolver follows through return types.
fn receiver(object: Node, src: &[u8]) -> Receiver {
    if object.kind() == "try_expression" {
        return call_chain(object, src).map_or(Receiver::Other, Receiver::Call);
    }
    if object.kind() == "call_expression" {
        if let Some(inner) = wrapped_value(object, src) {
            return receiver(inner, src);
        }
        return call_chain(object, src).map_or(Receiver::Other, Receiver::Call);
    }
    // `self.project().reader`: a field of what a call returns, as the chain
    // `self.project().reader`; `self.slots[i]`: an element of a field, as `self.slots[]`.
    if matches!(object.kind(), "field_expression" | "index_expression")
        && !RECEIVERS.is_dotted(object)
    {
        return chain(object, src).map_or(Receiver::Other, Receiver::Path);
    }
    RECEIVERS.receiver(object, src)
}

/// The value a pointer constructor wraps, whose methods calls on the pointer reach:
/// `Pin::new(&mut self.io)`, `Box::pin(fut)`, `Arc::new(*x)` → `self.io`, `fut`, `x`.
fn wrapped_value<'t>(call: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    let function = field(call, "function")?;
    let path = path_of(text(function, src));
    let mut parts = path.rsplit("::");
    let (name, ty) = (parts.next()?, parts.next()?);
    let wraps = matches!(ty, "Pin" | "Box" | "Arc" | "Rc")
        && matches!(name, "new" | "pin" | "new_unchecked");
    let [mut arg] = named_children(field(call, "arguments")?)[..] else {
        return None;
    };
    if !wraps {
        return None;
    }
    while matches!(
        arg.kind(),
        "reference_expression" | "unary_expression" | "parenthesized_expression"
    ) {
        arg = *named_children(arg).last()?;
    }
    // `Pin::new(self)` is a `Pin<&mut Self>`: its methods are not always `self`'s own.
    (arg.kind() != "self").then_some(arg)
}

/// A chain of names, fields and calls written with their arguments left out: `a.b().c` for
/// `a.b(x).c(y)`; `None` when a link is anything else (an index, a literal, a closure …).
fn call_chain(node: Node, src: &[u8]) -> Option<String> {
    chain(node, src)?.strip_suffix("()").map(str::to_owned)
}

/// Such a chain as written, whatever its last link: `a.b().c` for `a.b(x).c`.
fn chain(node: Node, src: &[u8]) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut at = node;
    loop {
        match at.kind() {
            // `Pin::new(self).m()` read as `self.m()` where what it gives is bound to a name
            // (`let (a, b) = Pin::new(self).project()`), unless `Pin` has a method `m` itself.
            // The call itself stays a call on a `Pin`: `m` may be the type's own or that of a
            // trait taking `self: Pin<&mut Self>`.
            "call_expression"
                if pins_self(at, src)
                    && parts
                        .last()
                        .and_then(|p| p.strip_prefix('.'))
                        .is_some_and(|m| !is_pin_method(m)) =>
            {
                parts.push("self".to_owned());
                break;
            }
            "call_expression" => {
                let mut function = field(at, "function")?;
                if function.kind() == "generic_function" {
                    function = field(function, "function")?;
                }
                parts.push("()".to_owned());
                at = function;
            }
            "field_expression" => {
                parts.push(format!(".{}", text(field(at, "field")?, src)));
                at = field(at, "value")?;
            }
            // `x?` unwraps like `x.unwrap()`; `x.await` is what the async function returns.
            "try_expression" => {
                parts.push("()".to_owned());
                parts.push(".unwrap".to_owned());
                at = *named_children(at).first()?;
            }
            "await_expression" => at = *named_children(at).first()?,
            // `a.b[i]`: an element of `a.b`.
            "index_expression" => {
                parts.push("[]".to_owned());
                at = *named_children(at).first()?;
            }
            "identifier" | "self" => {
                parts.push(text(at, src).to_owned());
                break;
            }
            "scoped_identifier" => {
                parts.push(path_of(text(at, src)));
                break;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.concat())
}

/// A path as written without its generic arguments, turbofish included:
/// `Harness::<T, S>::from_raw` → `Harness::from_raw`, `Vec<u8>` → `Vec`.
fn path_of(written: &str) -> String {
    let mut out = String::with_capacity(written.len());
    let mut depth = 0usize;
    for c in written.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 && !c.is_whitespace() => out.push(c),
            _ => {}
        }
    }
    out.split("::")
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("::")
}

/// The item an outer attribute applies to: the next sibling that is not another attribute or
/// a comment.
fn item_after(attribute: Node) -> Option<Node> {
    let mut next = attribute.next_named_sibling();
    while let Some(n) = next {
        if !matches!(
            n.kind(),
            "attribute_item" | "line_comment" | "block_comment"
        ) {
            return Some(n);
        }
        next = n.next_named_sibling();
    }
    None
}

/// Whether an attribute (`#[…]` or `#![…]`) makes its item stand-in code: a test function
/// (`#[test]`, `#[x::test]`) or a `cfg` whose predicate does not hold as a type checker
/// configures the crate (`rust_cfg::holds`: tests off, every feature on, custom flags off).
fn marks_test_code(attribute: &str) -> bool {
    cfg_of(attribute).is_some_and(|p| rust_cfg::holds(p) == Some(false))
}

/// The file of a `#[path = "…"]` attribute.
fn path_attribute(attribute: &str) -> Option<&str> {
    let inner = attribute
        .trim()
        .strip_prefix("#[")?
        .strip_suffix(']')?
        .trim();
    let value = inner
        .strip_prefix("path")?
        .trim_start()
        .strip_prefix('=')?
        .trim();
    value.strip_prefix('"')?.strip_suffix('"')
}

/// The predicate of a `#[cfg(…)]` attribute; `Some("test")` for a test function's attribute.
fn cfg_of(attribute: &str) -> Option<&str> {
    let inner = attribute
        .trim()
        .trim_start_matches('#')
        .trim_start_matches('!')
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim();
    if inner == "test" || inner.ends_with("::test") {
        return Some("test");
    }
    inner
        .strip_prefix("cfg")
        .map(str::trim_start)
        .and_then(|p| p.strip_prefix('('))
        .and_then(|p| p.strip_suffix(')'))
}

/// Whether a `macro_rules!` definition writes a stand-in `#[cfg(…)]` (see `marks_test_code`)
/// on what it expands to, and no `cfg` that holds.
fn puts_items_under_stand_in_cfg(definition: &str) -> bool {
    let compact: String = definition.split_whitespace().collect();
    let mut rest = compact.as_str();
    let mut stand_in = false;
    while let Some(at) = rest.find("#[cfg(") {
        let attribute = &rest[at..];
        let Some(end) = attribute.find(")]") else {
            return false;
        };
        match cfg_of(&attribute[..end + 2]).map(rust_cfg::holds) {
            Some(Some(false)) => stand_in = true,
            Some(Some(true)) => return false,
            _ => {}
        }
        rest = &attribute[end + 2..];
    }
    stand_in
}

/// A struct's named fields as attributes of its instances, typed as `value_type` reads them,
/// with the type arguments of those types.
fn fields(list: Node, owner: u32, src: &[u8], facts: &mut FileFacts) {
    for decl in named_children(list) {
        if decl.kind() != "field_declaration" {
            continue;
        }
        if let (Some(name), Some(ty)) = (field(decl, "name"), field(decl, "type"))
            && let Some(typed) = field_type(text(ty, src))
        {
            let name = text(name, src).to_owned();
            let arguments = type_arguments(text(ty, src));
            if arguments.iter().any(|a| !a.is_empty()) {
                facts.attr_type_args.push((owner, name.clone(), arguments));
            }
            facts.attr_bindings.push((owner, name, typed));
        }
    }
}

/// `impl<T> Deref for Padded<T> { type Target = T; }`: what a `Padded` dereferences to, its
/// type argument at that place (lifetimes not counted), or a type of its own.
fn deref_target(
    ty: &str,
    written: &str,
    generics: &[TypeParameter],
    body: Node,
    src: &[u8],
    facts: &mut FileFacts,
) {
    let Some(target) = named_children(body)
        .into_iter()
        .filter(|i| i.kind() == "type_item")
        .find(|i| field(*i, "name").is_some_and(|n| text(n, src) == "Target"))
        .and_then(|i| field(i, "type"))
    else {
        return;
    };
    let target = text(target, src).trim();
    if generics.iter().any(|(name, _, _)| name == target) {
        let position = written.split_once('<').and_then(|(_, args)| {
            split_outside_brackets(args.trim_end().strip_suffix('>')?, ',')
                .into_iter()
                .filter(|a| !a.starts_with('\''))
                .position(|a| a == target)
        });
        if let Some(position) = position {
            facts
                .deref_targets
                .push((ty.to_owned(), Some(position as u32), String::new()));
        }
    } else if let Some(target) = value_type(target) {
        facts.deref_targets.push((ty.to_owned(), None, target));
    }
}

/// The type arguments of the type `value_type` reads (`Padded<Waker>` → `Waker`), lifetimes
/// left out, each as `value_type` reads it (empty when it reads none).
fn type_arguments(written: &str) -> Vec<String> {
    let Some((_, args)) = unwrapped(written).and_then(|t| t.split_once('<')) else {
        return Vec::new();
    };
    let Some(args) = args.trim_end().strip_suffix('>') else {
        return Vec::new();
    };
    split_outside_brackets(args, ',')
        .into_iter()
        .filter(|a| !a.starts_with('\''))
        .map(|a| value_type(a).unwrap_or_default())
        .collect()
}

/// What a function returns, as `value_type` reads it; an `Option<T>` or a `Result<T, E>`
/// (`io::Result<T>` too) as `T?`: a `T` once unwrapped (`?`, `.unwrap()`, `.expect(…)`).
fn returned_type(written: &str) -> Option<String> {
    let t = written.trim();
    if let Some((base, args)) = t.split_once('<')
        && matches!(base.trim().rsplit("::").next(), Some("Option" | "Result"))
    {
        let args = args.trim_end().strip_suffix('>')?;
        // The first argument, whole: `Option<Entry<'_, T>>` → `Entry<'_, T>`.
        let mut depth = 0usize;
        let end = args
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '<' | '(' | '[' => depth += 1,
                    '>' | ')' | ']' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                c == ',' && depth == 0
            })
            .map_or(args.len(), |(at, _)| at);
        let first = &args[..end];
        // `Result<(A, B), E>` is not followed.
        if first.trim_start().starts_with('(') {
            return None;
        }
        return value_type(first).map(|v| format!("{v}?"));
    }
    value_type(t)
}

/// An enum's tuple variants' fields as attributes `Variant.0`, `Variant.1`, … of the enum,
/// which `Enum::Variant(x)` patterns bind.
fn variant_fields(list: Node, owner: u32, src: &[u8], facts: &mut FileFacts) {
    for variant in named_children(list) {
        let (Some(name), Some(body)) = (field(variant, "name"), field(variant, "body")) else {
            continue;
        };
        let name = text(name, src);
        let written: Vec<(String, Node)> = match body.kind() {
            "ordered_field_declaration_list" => named_children(body)
                .into_iter()
                .filter(|c| !matches!(c.kind(), "attribute_item" | "visibility_modifier"))
                .enumerate()
                .map(|(i, ty)| (i.to_string(), ty))
                .collect(),
            "field_declaration_list" => named_children(body)
                .into_iter()
                .filter_map(|d| Some((text(field(d, "name")?, src).to_owned(), field(d, "type")?)))
                .collect(),
            _ => continue,
        };
        for (at, ty) in written {
            if let Some(ty) = value_type(text(ty, src)) {
                facts
                    .attr_bindings
                    .push((owner, format!("{name}.{at}"), ty));
            }
        }
    }
}

/// A tuple struct's fields as attributes `0`, `1`, … of its instances (`self.0.f()`).
fn tuple_fields(list: Node, owner: u32, src: &[u8], facts: &mut FileFacts) {
    let types = named_children(list)
        .into_iter()
        .filter(|c| !matches!(c.kind(), "attribute_item" | "visibility_modifier"));
    for (i, ty) in types.enumerate() {
        if let Some(ty) = field_type(text(ty, src)) {
            facts.attr_bindings.push((owner, i.to_string(), ty));
        }
    }
}

/// A field's or parameter's type as `value_type` reads it, or a collection's as `T[]` (its
/// elements' type, what `x[i]` and `for e in &x` give).
fn field_type(written: &str) -> Option<String> {
    elements(written).or_else(|| value_type(written))
}

/// The element type of an array, a slice, a `Vec` or a `VecDeque` (`[T; N]`, `Box<[T]>`,
/// `&mut [T]`, `Vec<T>`) as `T[]`.
fn elements(written: &str) -> Option<String> {
    let mut t = written.trim().trim_start_matches('&').trim_start();
    t = t.strip_prefix("mut ").unwrap_or(t).trim_start();
    if let Some((base, args)) = t.split_once('<')
        && base.trim().rsplit("::").next() == Some("Box")
    {
        t = args.trim_end().strip_suffix('>')?.trim();
    }
    let inner = match t.strip_prefix('[') {
        Some(array) => {
            let array = array.strip_suffix(']')?;
            array.rsplit_once(';').map_or(array, |(ty, _)| ty)
        }
        None => {
            let (base, args) = t.split_once('<')?;
            if !matches!(base.trim().rsplit("::").next(), Some("Vec" | "VecDeque")) {
                return None;
            }
            args.trim_end().strip_suffix('>')?
        }
    };
    value_type(inner).map(|e| format!("{e}[]"))
}

/// The type whose methods a value of written type `written` answers: references, lifetimes and
/// `mut`/`dyn` dropped, and the pointers method calls see through (`Box`, `Rc`, `Arc`, `Pin`,
/// and the lock guards `MutexGuard`, `RwLockReadGuard`, `RwLockWriteGuard`, which dereference
/// to what they lock) unwrapped: `&'a mut Arc<Inner<T>>` → `Inner`, `MutexGuard<'_, Wheel>` →
/// `Wheel`; an `Option` as what it holds (what `Some(x)`
/// patterns, `.unwrap()` and `.as_ref()` reach). `None` for tuples, slices and `impl Trait`.
fn value_type(written: &str) -> Option<String> {
    let name = strip_generics(unwrapped(written)?);
    let valid = !name.is_empty()
        && !name.starts_with("impl ")
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == ':');
    valid.then_some(name)
}

/// The written type `value_type` reads the name of: references, lifetimes, `mut`, `dyn` and
/// the pointers method calls see through taken off (`&'a Arc<Padded<T>>` → `Padded<T>`).
fn unwrapped(written: &str) -> Option<&str> {
    let mut t = written.trim();
    loop {
        t = t.trim_start_matches('&').trim_start();
        if let Some(rest) = t.strip_prefix('\'') {
            t = rest.split_once(' ').map_or("", |(_, r)| r).trim_start();
        } else if let Some(rest) = t.strip_prefix("mut ").or_else(|| t.strip_prefix("dyn ")) {
            t = rest.trim_start();
        } else if let Some((base, args)) = t.split_once('<')
            && matches!(
                base.trim().rsplit("::").next(),
                Some(
                    "Box"
                        | "Rc"
                        | "Arc"
                        | "Pin"
                        | "Option"
                        | "MutexGuard"
                        | "RwLockReadGuard"
                        | "RwLockWriteGuard"
                )
            )
        {
            t = args.trim_end().strip_suffix('>')?.trim();
        } else {
            break;
        }
    }
    Some(t)
}

/// `if let Some(x) = f()`, `while let Ok(x) = a.b()`, `let Some(x) = f() else { … }` and a
/// `match f() { Some(x) => … }` arm: `x` holds what `f()` holds once unwrapped, as with
/// `let x = f().unwrap()`. `pattern_at` holds the `pattern` field, `value_at` the `value`.
fn unwrapped_binding(
    pattern_at: Node,
    value_at: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) {
    let Some(mut pattern) = field(pattern_at, "pattern") else {
        return;
    };
    if pattern.kind() == "match_pattern"
        && let Some(inner) = named_children(pattern).first()
    {
        pattern = *inner;
    }
    // `Enum::Variant { a, b: x, .. }`: `a` and `x` hold those fields of the variant.
    if pattern.kind() == "struct_pattern"
        && let Some(variant) =
            field(pattern, "type").filter(|t| t.kind() == "scoped_type_identifier")
    {
        let path = path_of(text(variant, src));
        for one in named_children(pattern) {
            let Some(name) = field(one, "name").filter(|_| one.kind() == "field_pattern") else {
                continue;
            };
            let var = field(one, "pattern").map_or(Some(name), bound_name);
            if let Some(var) = var {
                push_binding(
                    facts,
                    Binding {
                        scope,
                        var: text(var, src).to_owned(),
                        type_name: format!("{path}.{}", text(name, src)),
                    },
                    span_of(pattern_at),
                );
            }
        }
        return;
    }
    if pattern.kind() != "tuple_struct_pattern" {
        return;
    }
    let Some(variant) = field(pattern, "type") else {
        return;
    };
    // `Enum::Variant(a, ref b)`: each name holds that field of the variant, whatever is matched.
    if variant.kind() == "scoped_identifier" {
        let path = path_of(text(variant, src));
        let bound = named_children(pattern).into_iter().skip(1).enumerate();
        for (i, var) in bound {
            if let Some(var) = bound_name(var) {
                push_binding(
                    facts,
                    Binding {
                        scope,
                        var: text(var, src).to_owned(),
                        type_name: format!("{path}.{i}"),
                    },
                    span_of(pattern_at),
                );
            }
        }
        return;
    }
    let wraps = matches!(text(variant, src), "Some" | "Ok");
    let inner: Vec<Node> = named_children(pattern).into_iter().skip(1).collect();
    let [var] = inner[..] else {
        return;
    };
    if !wraps {
        return;
    }
    let value = field(value_at, "value").map(|v| match v.kind() {
        "await_expression" => named_children(v).into_iter().next().unwrap_or(v),
        _ => v,
    });
    // `Some(x) = f()`, also `Some(x) = opt` and `Some(x) = self.field` (a variable or field
    // typed by what its `Option` holds).
    let unwrapped = value.and_then(|v| match v.kind() {
        "call_expression" => call_chain(v, src).map(Receiver::Call),
        "identifier" | "field_expression" => match receiver(v, src) {
            Receiver::Other => None,
            held => Some(held),
        },
        _ => None,
    });
    if let (Some(unwrapped), Some(var)) = (unwrapped, bound_name(var)) {
        push_call_binding(
            facts,
            CallBinding {
                scope,
                var: text(var, src).to_owned(),
                callee: Callee::Member {
                    receiver: unwrapped,
                    name: "unwrap".to_owned(),
                },
            },
            span_of(pattern_at),
        );
    }
}

/// `let (a, b) = f(…)`, also in an `unsafe { … }` block: each name holds that element of the
/// tuple `f` returns, written as the member `0`, `1`, … of the call's result.
fn tuple_binding(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(pattern) = field(node, "pattern").filter(|p| p.kind() == "tuple_pattern") else {
        return;
    };
    let mut value = field(node, "value");
    while let Some(v) = value {
        match v.kind() {
            "unsafe_block" => value = named_children(v).last().copied(),
            "block" => value = named_children(v).last().copied(),
            "await_expression" => value = named_children(v).first().copied(),
            _ => break,
        }
    }
    let Some(chain) = value
        .filter(|v| v.kind() == "call_expression")
        .and_then(|v| call_chain(v, src))
    else {
        return;
    };
    // `_` is no named node: every child but the parentheses and commas is an element.
    let mut cursor = pattern.walk();
    let elements: Vec<Node> = pattern
        .children(&mut cursor)
        .filter(|p| !matches!(p.kind(), "(" | ")" | "," | "line_comment" | "block_comment"))
        .collect();
    for (i, element) in elements.into_iter().enumerate() {
        if let Some(var) = bound_name(element) {
            push_call_binding(
                facts,
                CallBinding {
                    scope,
                    var: text(var, src).to_owned(),
                    callee: Callee::Member {
                        receiver: Receiver::Call(chain.clone()),
                        name: i.to_string(),
                    },
                },
                span_of(node),
            );
        }
    }
}

/// `for x in &items`, `for x in self.items.iter()`: `x` holds an element of the collection.
fn for_binding(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(var) = field(node, "pattern").and_then(bound_name) else {
        return;
    };
    let Some(mut value) = field(node, "value") else {
        return;
    };
    loop {
        match value.kind() {
            "reference_expression" => match named_children(value).last() {
                Some(&inner) => value = inner,
                None => return,
            },
            "call_expression" => {
                let Some(function) = field(value, "function") else {
                    return;
                };
                let iterates = function.kind() == "field_expression"
                    && field(function, "field").is_some_and(|f| {
                        matches!(text(f, src), "iter" | "iter_mut" | "into_iter" | "drain")
                    });
                match field(function, "value").filter(|_| iterates) {
                    Some(collection) => value = collection,
                    None => return,
                }
            }
            _ => break,
        }
    }
    let of = match value.kind() {
        "identifier" | "field_expression" => receiver(value, src),
        _ => return,
    };
    if of != Receiver::Other {
        facts.element_bindings.push(ElementBinding {
            scope,
            var: text(var, src).to_owned(),
            of,
        });
        facts
            .element_binding_spans
            .push((line(node), end_line(node)));
    }
}

fn push_binding(facts: &mut FileFacts, binding: Binding, span: (u32, u32)) {
    facts.bindings.push(binding);
    facts.binding_spans.push(span);
}

fn push_call_binding(facts: &mut FileFacts, binding: CallBinding, span: (u32, u32)) {
    facts.call_bindings.push(binding);
    facts.call_binding_spans.push(span);
}

/// The lines where a name a pattern binds holds: after a `let` (`let x`, `let … else`; its
/// value still sees the name it may shadow) to the end of its block, a `match` arm, an `if
/// let` or `while let` condition to the end of its body.
fn span_of(at: Node) -> (u32, u32) {
    match at.kind() {
        "match_arm" => (line(at), end_line(at)),
        "let_condition" => {
            let mut up = at.parent();
            while let Some(p) = up {
                if matches!(p.kind(), "if_expression" | "while_expression") {
                    let body = field(p, "consequence").or_else(|| field(p, "body"));
                    return (line(at), end_line(body.unwrap_or(p)));
                }
                up = p.parent();
            }
            (line(at), end_line(at))
        }
        _ => (end_line(at) + 1, at.parent().map_or(u32::MAX, end_line)),
    }
}

/// The name a pattern binds when it is one name: `x`, `mut x`, `ref x`, `ref mut x`, `&x`.
fn bound_name(pattern: Node) -> Option<Node> {
    let mut at = pattern;
    loop {
        match at.kind() {
            "identifier" => return Some(at),
            "ref_pattern" | "mut_pattern" | "reference_pattern" => {
                at = *named_children(at).last()?;
            }
            _ => return None,
        }
    }
}

fn binding(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    if field(node, "alternative").is_some() {
        unwrapped_binding(node, node, scope, src, facts);
    }
    tuple_binding(node, scope, src, facts);
    let Some(pattern) = field(node, "pattern").and_then(bound_name) else {
        return;
    };
    let declared =
        field(node, "type").map(|t| strip_generics(text(t, src).trim_start_matches('&')));
    let constructed = field(node, "value").and_then(|v| match v.kind() {
        "struct_expression" => field(v, "name").map(|n| path_of(text(n, src))),
        "call_expression" => field(v, "function")
            .filter(|f| f.kind() == "scoped_identifier")
            .and_then(|f| field(f, "path"))
            .map(|p| path_of(text(p, src)))
            .filter(|p| {
                p.rsplit("::")
                    .next()
                    .is_some_and(|l| l.starts_with(|c: char| c.is_uppercase()))
            }),
        // `let me = &mut *self;`: the method's own value under another name; `let raw =
        // self.raw;`, `let r = &self.a.remotes[i];`: what that field (or element) holds,
        // written `Self.raw`, `Self.a.remotes[]`.
        "reference_expression"
        | "unary_expression"
        | "self"
        | "field_expression"
        | "index_expression" => {
            let mut at = v;
            while matches!(at.kind(), "reference_expression" | "unary_expression") {
                at = *named_children(at).last()?;
            }
            match at.kind() {
                "self" => Some("Self".to_owned()),
                "field_expression" | "index_expression" => chain(at, src)
                    .filter(|c| !c.contains("()"))
                    .and_then(|c| c.strip_prefix("self.").map(|f| format!("Self.{f}"))),
                _ => None,
            }
        }
        _ => None,
    });
    if let Some(type_name) = declared.or(constructed) {
        push_binding(
            facts,
            Binding {
                scope,
                var: text(pattern, src).to_owned(),
                type_name,
            },
            span_of(node),
        );
        return;
    }
    // `let x = f(…)`, `let x = a.b(…).await`: the variable holds what the call returns.
    let value = field(node, "value").map(|v| match v.kind() {
        "await_expression" => named_children(v).into_iter().next().unwrap_or(v),
        _ => v,
    });
    let callee = value.and_then(|v| match v.kind() {
        "call_expression" => callee_of(v, src),
        // `let x = f()?`: what `f()` holds once unwrapped.
        "try_expression" => {
            call_chain(*named_children(v).first()?, src).map(|inner| Callee::Member {
                receiver: Receiver::Call(inner),
                name: "unwrap".to_owned(),
            })
        }
        _ => None,
    });
    if let Some(callee) = callee {
        push_call_binding(
            facts,
            CallBinding {
                scope,
                var: text(pattern, src).to_owned(),
                callee,
            },
            span_of(node),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    const SOURCE: &str = r#"
use crate::payment::{charge, Gateway as Gw};
pub use self::types::*;
use std::collections::HashMap;

/// A cart.
pub struct Cart { items: Vec<u32> }

pub trait Totals: Display { fn total(&self) -> u32; }

impl Totals for Cart {
    fn total(&self) -> u32 { self.items.len() as u32 }
}

impl Cart {
    pub fn new() -> Self { Cart { items: Vec::new() } }
    pub fn checkout(&self, gw: &Gw) {
        let cart = Cart::new();
        cart.total();
        self.total();
        charge(gw);
        gw.pay(HashMap::new());
        helpers::log::info("x");
    }
}

mod inner { fn hidden() {} }
"#;

    #[test]
    fn rust_items_impls_uses_and_calls() {
        let f = Extractor::default().extract("src/cart.rs", Lang::Rust, SOURCE);
        let defs: Vec<(&str, NodeKind, Option<u32>)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind, d.parent))
            .collect();
        assert_eq!(
            defs,
            [
                ("Cart", NodeKind::Struct, None),
                ("Totals", NodeKind::Trait, None),
                ("Totals.total", NodeKind::Method, Some(1)),
                ("Cart.total", NodeKind::Method, Some(0)),
                ("Cart.new", NodeKind::Method, Some(0)),
                ("Cart.checkout", NodeKind::Method, Some(0)),
                ("inner", NodeKind::Module, None),
                ("inner.hidden", NodeKind::Function, Some(6)),
            ]
        );
        assert_eq!(f.defs[0].doc, "A cart.");
        assert_eq!(f.defs[0].implements, ["Totals"]);
        assert_eq!(f.defs[1].extends, ["Display"]);
        assert!(f.defs[0].exported && !f.defs[7].exported);
        let imports: Vec<(String, Vec<String>, bool, bool)> = f
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.clone(),
                    i.names.iter().map(|n| n.local().to_owned()).collect(),
                    i.wildcard,
                    i.reexport,
                )
            })
            .collect();
        assert_eq!(
            imports,
            [
                ("crate::payment".into(), vec!["charge".into()], false, false),
                ("crate::payment".into(), vec!["Gw".into()], false, false),
                ("self::types".into(), vec![], true, true),
                (
                    "std::collections".into(),
                    vec!["HashMap".into()],
                    false,
                    false
                ),
            ]
        );
        let calls: Vec<Callee> = f
            .calls
            .iter()
            .filter(|c| c.caller == Some(5))
            .map(|c| c.callee.clone())
            .collect();
        let member = |r: Receiver, n: &str| Callee::Member {
            receiver: r,
            name: n.into(),
        };
        for expected in [
            Callee::Scoped {
                path: "Cart".into(),
                name: "new".into(),
            },
            member(Receiver::Name("cart".into()), "total"),
            member(Receiver::SelfRef, "total"),
            Callee::Name("charge".into()),
            member(Receiver::Name("gw".into()), "pay"),
            Callee::Scoped {
                path: "helpers::log".into(),
                name: "info".into(),
            },
        ] {
            assert!(
                calls.contains(&expected),
                "missing {expected:?} in {calls:#?}"
            );
        }
        assert!(f.bindings.contains(&Binding {
            scope: Some(5),
            var: "cart".into(),
            type_name: "Cart".into()
        }));
        assert!(f.bindings.contains(&Binding {
            scope: Some(5),
            var: "gw".into(),
            type_name: "Gw".into()
        }));
    }

    #[test]
    fn items_inside_brace_macros_are_items_and_cfg_test_code_is_marked() {
        let source = "cfg_rt! {\n    pub fn spawn() {}\n    cfg_net! {\n        pub struct Tcp { io: Arc<Io>, n: &'static mut u32 }\n    }\n}\npub struct X;\nimpl X {\n    cfg_rt! {\n        pub fn m(&self) -> Self { X }\n    }\n}\n#[cfg(all(test, not(miri)))]\nmod tests;\n#[cfg(not(all(test, loom)))]\npub fn real() {}\n#[cfg(test)]\nfn fake() {}\n#[tokio::test]\nasync fn case() {}\nfn main() { let v = vec![1]; }\n";
        let f = Extractor::default().extract("src/lib.rs", Lang::Rust, source);
        let defs: Vec<(&str, &str)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.returns.as_str()))
            .collect();
        assert_eq!(
            defs,
            [
                ("spawn", ""),
                ("Tcp", ""),
                ("X", ""),
                ("X.m", "Self"),
                ("tests", ""),
                ("real", ""),
                ("fake", ""),
                ("case", ""),
                ("main", ""),
            ]
        );
        assert_eq!(f.syntax_errors, 0);
        assert_eq!(
            f.attr_bindings,
            [
                (1, "io".to_owned(), "Io".to_owned()),
                (1, "n".to_owned(), "u32".to_owned())
            ]
        );
        let test_only: Vec<&str> = f
            .defs
            .iter()
            .enumerate()
            .filter(|(i, _)| f.is_test_def(*i as u32))
            .map(|(_, d)| d.name.as_str())
            .collect();
        assert_eq!(test_only, ["tests", "fake", "case"]);
        assert_eq!(f.test_modules, ["tests"]);
    }

    #[test]
    fn call_chains_and_call_results_bound_to_variables() {
        let source = "fn f() {\n    let rt = Builder::new().workers(2).build();\n    rt.block_on();\n    let h = handle();\n    a.b(1).c::<u8>(x).d();\n}\nm! {\n    fn g(&self) {\n        assert!(ready!(self.io.poll(cx)).is_ok());\n    }\n}\n";
        let f = Extractor::default().extract("src/lib.rs", Lang::Rust, source);
        let receivers: Vec<Receiver> = f
            .calls
            .iter()
            .filter_map(|c| match &c.callee {
                Callee::Member { receiver, .. } => Some(receiver.clone()),
                _ => None,
            })
            .collect();
        for expected in [
            Receiver::Call("Builder::new".into()),
            Receiver::Call("Builder::new().workers".into()),
            Receiver::Name("rt".into()),
            Receiver::Call("a.b().c".into()),
            Receiver::Path("self.io".into()),
        ] {
            assert!(
                receivers.contains(&expected),
                "{expected:?} in {receivers:?}"
            );
        }
        let bound: Vec<(&str, &Callee)> = f
            .call_bindings
            .iter()
            .map(|b| (b.var.as_str(), &b.callee))
            .collect();
        assert_eq!(bound.len(), 2, "{bound:?}");
        assert_eq!(bound[1], ("h", &Callee::Name("handle".into())));
    }
}
