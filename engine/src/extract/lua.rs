//! Lua: functions (`function f`, `local function f`, `function M.f`, `function M:f`, `M.f =
//! function`), tables built at the file's top level as modules and classes, `require`, calls.

use tree_sitter::Node;

use super::{doc_line, field, header_before_body, named_children, new_def, push_call, text};
use crate::facts::{CallBinding, Callee, Def, FileFacts, Import, Receiver};
use crate::graph::NodeKind;

/// Local variables and parameters by function (`None`: the file's top level): a bare name one of
/// them holds is a value, not a function of the project.
#[derive(Default)]
struct Locals(Vec<(Option<u32>, String)>);

impl Locals {
    fn add(&mut self, scope: Option<u32>, name: &str) {
        if !self.0.iter().any(|(s, n)| *s == scope && n == name) {
            self.0.push((scope, name.to_owned()));
        }
    }
}

/// A table built at the top level (`local M = {}`, `M.sub = {}`): a definition once something
/// makes it a module or a class (a function of it, `return M`, a metatable's `__index`); a table
/// of data stays none.
struct Table {
    path: String,
    def: Option<u32>,
    start_line: u32,
    end_line: u32,
    signature: String,
    doc: String,
    base: Option<String>,
}

/// What one file's walk keeps beside its facts.
#[derive(Default)]
struct Walk {
    locals: Locals,
    tables: Vec<Table>,
    /// Variables holding `setmetatable(…, T)`'s result in a function: (function, variable, `T`).
    instances: Vec<(u32, String, String)>,
}

impl Walk {
    fn is_table(&self, path: &str) -> bool {
        self.tables.iter().any(|t| t.path == path)
    }

    /// The definition of table `path`, made on first need.
    fn table(&mut self, path: &str, facts: &mut FileFacts) -> Option<u32> {
        let at = self.tables.iter().position(|t| t.path == path)?;
        if let Some(d) = self.tables[at].def {
            return Some(d);
        }
        let parent = match path.rsplit_once('.') {
            Some((outer, _)) => self.table(outer, facts),
            None => None,
        };
        let t = &self.tables[at];
        let name = path.rsplit('.').next().unwrap_or(path);
        let qualified = match parent.and_then(|p| facts.defs.get(p as usize)) {
            Some(p) => format!("{}.{name}", p.qualified),
            None => name.to_owned(),
        };
        facts.defs.push(Def {
            kind: NodeKind::Class,
            name: name.to_owned(),
            qualified,
            parent,
            start_line: t.start_line,
            end_line: t.end_line,
            signature: t.signature.clone(),
            doc: t.doc.clone(),
            extends: t.base.iter().cloned().collect(),
            implements: Vec::new(),
            exported: true,
            decorators: Vec::new(),
            returns: String::new(),
            returns_variable: String::new(),
            conditional: false,
        });
        let idx = (facts.defs.len() - 1) as u32;
        self.tables[at].def = Some(idx);
        Some(idx)
    }

    /// Whether `name` is a local variable or parameter seen from `scope` (closures see the
    /// functions around them; a method's chain passes through its table, which holds none).
    fn is_local(&self, facts: &FileFacts, scope: Option<u32>, name: &str) -> bool {
        let mut current = scope;
        loop {
            if self
                .locals
                .0
                .iter()
                .any(|(s, n)| *s == current && n == name)
            {
                return true;
            }
            match current {
                Some(d) => current = facts.defs.get(d as usize).and_then(|d| d.parent),
                None => return false,
            }
        }
    }
}

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut walk = Walk::default();
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root, None)];
    while let Some((node, scope)) = stack.pop() {
        match node.kind() {
            "function_declaration" => {
                match function_declaration(node, scope, src, facts, &mut walk) {
                    Some(idx) => walk_function(node, idx, src, &mut walk, &mut stack),
                    // A function stored into a local's or a module's table (`function
                    // obj:f()` in a function): no definition, its code runs in this scope.
                    None => {
                        for name in field(node, "parameters")
                            .map(named_children)
                            .unwrap_or_default()
                        {
                            walk.locals.add(scope, text(name, src));
                        }
                        stack.extend(field(node, "body").map(|b| (b, scope)));
                    }
                }
            }
            "variable_declaration" => {
                for child in named_children(node) {
                    match child.kind() {
                        "assignment_statement" => {
                            assignment(child, scope, true, src, facts, &mut walk, &mut stack)
                        }
                        "variable_list" => {
                            for name in names_of(child) {
                                walk.locals.add(scope, text(name, src));
                            }
                        }
                        _ => {}
                    }
                }
            }
            "assignment_statement" => {
                assignment(node, scope, false, src, facts, &mut walk, &mut stack)
            }
            "function_definition" => {
                // An anonymous function (an argument, a table field): its parameters are
                // locals of the scope around it.
                if let Some(params) = field(node, "parameters") {
                    for name in named_children(params) {
                        walk.locals.add(scope, text(name, src));
                    }
                }
                stack.extend(field(node, "body").map(|b| (b, scope)));
            }
            "for_generic_clause" | "for_numeric_clause" => {
                for child in named_children(node) {
                    match child.kind() {
                        "variable_list" => {
                            for name in names_of(child) {
                                walk.locals.add(scope, text(name, src));
                            }
                        }
                        "identifier" if field(node, "name") == Some(child) => {
                            walk.locals.add(scope, text(child, src))
                        }
                        _ => stack.push((child, scope)),
                    }
                }
            }
            "function_call" => call(node, scope, src, facts, &mut walk, &mut stack),
            "return_statement" => {
                returned(node, scope, src, facts, &mut walk);
                push_all(&mut stack, named_children(node), scope);
            }
            "comment" | "string" | "hash_bang_line" => {}
            _ => push_all(&mut stack, named_children(node), scope),
        }
    }
    facts.locals = walk.locals.0;
    drop_calls_above_locals(facts);
}

/// A local function is in scope only below its declaration: a bare call written above it (in
/// a function declared earlier) names a global of that name, which the file does not define.
fn drop_calls_above_locals(facts: &mut FileFacts) {
    let defs = &facts.defs;
    facts.calls.retain(|call| {
        let Callee::Name(name) = &call.callee else {
            return true;
        };
        let mut same = defs
            .iter()
            .filter(|d| d.parent.is_none() && d.name == *name);
        let first = same.next();
        let all_local_below = first.is_some_and(|d| !d.exported && d.start_line > call.line)
            && same.all(|d| !d.exported && d.start_line > call.line);
        !all_local_below
    });
}

fn push_all<'t>(
    stack: &mut Vec<(Node<'t>, Option<u32>)>,
    nodes: Vec<Node<'t>>,
    scope: Option<u32>,
) {
    stack.extend(nodes.into_iter().rev().map(|n| (n, scope)));
}

/// The names a `variable_list` declares or assigns.
fn names_of(list: Node) -> Vec<Node> {
    let mut cursor = list.walk();
    list.children_by_field_name("name", &mut cursor).collect()
}

/// The values an `expression_list` (or an argument list) holds, in order.
fn values_of(list: Node) -> Vec<Node> {
    named_children(list)
        .into_iter()
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// `function f`, `local function f`, `function a.b.f`, `function M:f`: the definition made.
fn function_declaration(
    node: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
    walk: &mut Walk,
) -> Option<u32> {
    let name = field(node, "name")?;
    let local = node.child(0).is_some_and(|c| c.kind() == "local");
    match name.kind() {
        "identifier" => {
            // `local f` declared first, `function f() … end` later: a function from there on.
            walk.locals
                .0
                .retain(|(s, n)| !(*s == scope && n == text(name, src)));
            let idx = add_function(facts, text(name, src), scope, node, src);
            if local && let Some(def) = facts.defs.get_mut(idx as usize) {
                def.exported = false;
            }
            Some(idx)
        }
        "dot_index_expression" | "method_index_expression" => {
            let table = field(name, "table")?;
            let member = field(name, "field").or_else(|| field(name, "method"))?;
            let owner = owner_table(text(table, src), scope, node, facts, walk)?;
            Some(add_method(facts, owner, text(member, src), node, src))
        }
        _ => None,
    }
}

/// The table `path` names as an owner of functions: one built in this file, else one the
/// file adds functions to without building it (a global table, `string`), made here at its
/// first function. A local variable or an imported module is no table of this file: `None`.
fn owner_table(
    path: &str,
    scope: Option<u32>,
    node: Node,
    facts: &mut FileFacts,
    walk: &mut Walk,
) -> Option<u32> {
    if let Some(d) = walk.table(path, facts) {
        return Some(d);
    }
    let head = path.split('.').next().unwrap_or(path);
    if !path.split('.').all(is_name) || walk.is_local(facts, scope, head) {
        return None;
    }
    if let Some((outer, _)) = path.rsplit_once('.') {
        owner_table(outer, scope, node, facts, walk)?;
    }
    walk.tables.push(Table {
        path: path.to_owned(),
        def: None,
        start_line: super::line(node),
        end_line: super::line(node),
        signature: super::signature(path),
        doc: String::new(),
        base: None,
    });
    walk.table(path, facts)
}

fn is_name(part: &str) -> bool {
    !part.is_empty()
        && part.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !part.starts_with(|c: char| c.is_ascii_digit())
}

fn add_function(
    facts: &mut FileFacts,
    name: &str,
    scope: Option<u32>,
    node: Node,
    src: &[u8],
) -> u32 {
    let mut def = new_def(facts, NodeKind::Function, name, scope, node);
    def.signature = header_before_body(node, field(node, "body"), src);
    def.doc = doc_comment(node, src);
    facts.defs.push(def);
    (facts.defs.len() - 1) as u32
}

fn add_method(facts: &mut FileFacts, owner: u32, name: &str, node: Node, src: &[u8]) -> u32 {
    let mut def = new_def(facts, NodeKind::Method, name, Some(owner), node);
    def.signature = header_before_body(node, field(node, "body"), src);
    def.doc = doc_comment(node, src);
    def.exported = !name.starts_with('_');
    facts.defs.push(def);
    (facts.defs.len() - 1) as u32
}

/// Pushes a function's body (`node` a declaration or a `function_definition` value), its
/// parameters made locals of it (`self` too, for `M:f`).
fn walk_function<'t>(
    node: Node<'t>,
    idx: u32,
    src: &[u8],
    walk: &mut Walk,
    stack: &mut Vec<(Node<'t>, Option<u32>)>,
) {
    for name in field(node, "parameters")
        .map(named_children)
        .unwrap_or_default()
    {
        walk.locals.add(Some(idx), text(name, src));
    }
    stack.extend(field(node, "body").map(|b| (b, Some(idx))));
}

/// `x = …`, `local x = …`, `M.f = function … end`, `local M = {}`, `local X = require "x"`.
fn assignment<'t>(
    node: Node<'t>,
    scope: Option<u32>,
    local: bool,
    src: &[u8],
    facts: &mut FileFacts,
    walk: &mut Walk,
    stack: &mut Vec<(Node<'t>, Option<u32>)>,
) {
    let named = named_children(node);
    let names = named
        .iter()
        .find(|n| n.kind() == "variable_list")
        .map(|l| names_of(*l))
        .unwrap_or_default();
    let values = named
        .iter()
        .find(|n| n.kind() == "expression_list")
        .map(|l| values_of(*l))
        .unwrap_or_default();
    let mut walked = Vec::new();
    for (i, target) in names.iter().enumerate() {
        let value = values.get(i).copied();
        let written = text(*target, src);
        let plain = target.kind() == "identifier";
        if local && plain {
            walk.locals.add(scope, written);
        } else if !plain {
            // `t[f()] = v`, `g().x = v`: code in the target.
            walked.extend(field(*target, "table"));
            walked.extend(
                field(*target, "field").filter(|_| target.kind() == "bracket_index_expression"),
            );
        }
        let Some(value) = value else { continue };
        match value.kind() {
            "function_definition" => {
                let idx = if plain {
                    // A local function is a definition, not a value the name holds.
                    walk.locals
                        .0
                        .retain(|(s, n)| !(*s == scope && n == written));
                    let idx = add_function(facts, written, scope, node, src);
                    if local && let Some(def) = facts.defs.get_mut(idx as usize) {
                        def.exported = false;
                    }
                    Some(idx)
                } else if target.kind() == "dot_index_expression"
                    && let (Some(table), Some(member)) =
                        (field(*target, "table"), field(*target, "field"))
                    && let Some(owner) = owner_table(text(table, src), scope, node, facts, walk)
                {
                    Some(add_method(facts, owner, text(member, src), node, src))
                } else {
                    None
                };
                match idx {
                    Some(idx) => {
                        if let Some(def) = facts.defs.get_mut(idx as usize) {
                            def.end_line = super::end_line(value);
                        }
                        walk_function(value, idx, src, walk, stack);
                    }
                    None => walked.push(value),
                }
                continue;
            }
            "table_constructor" if scope.is_none() && table_target(*target, src, walk) => {
                new_table(written, None, value, node, src, walk);
                table_fields(value, written, src, facts, walk, stack, &mut walked);
                continue;
            }
            "function_call" => {
                if let Some(module) = required(value, src) {
                    if plain {
                        facts.imports.push(Import {
                            module,
                            names: Vec::new(),
                            module_alias: Some(written.to_owned()),
                            wildcard: false,
                            reexport: false,
                            line: super::line(node),
                        });
                    }
                    continue;
                }
                // `local D = setmetatable({}, {__index = B})`: a table whose missing keys are B's.
                if scope.is_none()
                    && table_target(*target, src, walk)
                    && let Some((first, meta)) = metatable_call(value, src)
                    && first.kind() == "table_constructor"
                {
                    new_table(written, index_of(meta, src), first, node, src, walk);
                    table_fields(first, written, src, facts, walk, stack, &mut walked);
                    walked.push(meta);
                    continue;
                }
                if plain {
                    if let Some(callee) = callee_of(value, scope, src, facts, walk) {
                        facts.call_bindings.push(CallBinding {
                            scope,
                            var: written.to_owned(),
                            callee,
                        });
                    }
                    if let (Some(f), Some((_, meta))) = (scope, metatable_call(value, src))
                        && let Some(ty) = instance_type(meta, src)
                    {
                        walk.instances.push((f, written.to_owned(), ty));
                    }
                }
            }
            _ => {}
        }
        walked.push(value);
    }
    walked.extend(values.iter().skip(names.len()).copied());
    push_all(stack, walked, scope);
}

/// Whether an assignment at the top level builds a table of the file: a plain name, or a
/// field of a table it built (`M.sub = {}`).
fn table_target(target: Node, src: &[u8], walk: &Walk) -> bool {
    match target.kind() {
        "identifier" => true,
        "dot_index_expression" => {
            field(target, "table").is_some_and(|t| is_chain(t) && walk.is_table(text(t, src)))
        }
        _ => false,
    }
}

/// Records a table built at the top level (`local M = {}`, `M.sub = {}`, `Shop = {…}`),
/// replacing an earlier one of the same name.
fn new_table(
    written: &str,
    base: Option<String>,
    table: Node,
    node: Node,
    src: &[u8],
    walk: &mut Walk,
) {
    walk.tables.retain(|t| t.path != written);
    walk.tables.push(Table {
        path: written.to_owned(),
        def: None,
        start_line: super::line(node),
        end_line: super::end_line(table),
        signature: super::signature(text(node, src).lines().next().unwrap_or("")),
        doc: doc_comment(node, src),
        base,
    });
}

/// The fields of a table built at the top level: `f = function … end` is a method, every other
/// value is walked.
fn table_fields<'t>(
    table: Node<'t>,
    path: &str,
    src: &[u8],
    facts: &mut FileFacts,
    walk: &mut Walk,
    stack: &mut Vec<(Node<'t>, Option<u32>)>,
    walked: &mut Vec<Node<'t>>,
) {
    for f in named_children(table) {
        if f.kind() != "field" {
            continue;
        }
        let value = field(f, "value");
        match (field(f, "name"), value) {
            (Some(name), Some(function))
                if name.kind() == "identifier" && function.kind() == "function_definition" =>
            {
                let Some(owner) = walk.table(path, facts) else {
                    continue;
                };
                let idx = add_method(facts, owner, text(name, src), f, src);
                walk_function(function, idx, src, walk, stack);
            }
            _ => walked.extend(value),
        }
    }
}

/// The module a `require "a.b"` / `require("a.b")` call loads, written as a literal string.
fn required(call: Node, src: &[u8]) -> Option<String> {
    let name = field(call, "name")?;
    if name.kind() != "identifier" || text(name, src) != "require" {
        return None;
    }
    let args = field(call, "arguments")?;
    let string = if args.kind() == "string" {
        args
    } else {
        let values = values_of(args);
        match values.as_slice() {
            [one] if one.kind() == "string" => *one,
            _ => return None,
        }
    };
    let content = field(string, "content").map(|c| text(c, src))?;
    (!content.is_empty() && !content.contains(['\\', '\n'])).then(|| content.to_owned())
}

/// `setmetatable(a, b)`: its two arguments.
fn metatable_call<'t>(call: Node<'t>, src: &[u8]) -> Option<(Node<'t>, Node<'t>)> {
    let name = field(call, "name")?;
    if name.kind() != "identifier" || text(name, src) != "setmetatable" {
        return None;
    }
    match values_of(field(call, "arguments")?).as_slice() {
        [first, meta] => Some((*first, *meta)),
        _ => None,
    }
}

/// The table a metatable's `__index` field names (`{__index = Base}`).
fn index_of(meta: Node, src: &[u8]) -> Option<String> {
    if meta.kind() != "table_constructor" {
        return None;
    }
    named_children(meta).into_iter().find_map(|f| {
        let name = field(f, "name")?;
        let value = field(f, "value")?;
        (text(name, src) == "__index" && value.kind() == "identifier")
            .then(|| text(value, src).to_owned())
    })
}

/// The class an object made by `setmetatable(o, T)` or `setmetatable(o, {__index = T})` is an
/// instance of: `T` when named plainly.
fn instance_type(meta: Node, src: &[u8]) -> Option<String> {
    match meta.kind() {
        "identifier" => Some(text(meta, src).to_owned()),
        _ => index_of(meta, src),
    }
}

/// `return M` at the top level names the table the module gives its requirers (kept as the
/// file's `package`); `return setmetatable(o, T)` or `return o` (`o` such a result) in a
/// function of table `T` makes it return an instance of `T`.
fn returned(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts, walk: &mut Walk) {
    let Some(list) = named_children(node)
        .into_iter()
        .find(|n| n.kind() == "expression_list")
    else {
        return;
    };
    let [value] = values_of(list)[..] else {
        return;
    };
    let Some(f) = scope else {
        if value.kind() == "identifier" && walk.table(text(value, src), facts).is_some() {
            facts.package = Some(text(value, src).to_owned());
        }
        return;
    };
    let ty = match value.kind() {
        "function_call" => {
            metatable_call(value, src).and_then(|(_, meta)| instance_type(meta, src))
        }
        "identifier" => {
            let var = text(value, src);
            walk.instances
                .iter()
                .rfind(|(s, v, _)| *s == f && v == var)
                .map(|(_, _, ty)| ty.clone())
        }
        _ => None,
    };
    let Some(ty) = ty.filter(|t| walk.is_table(t)) else {
        return;
    };
    if let Some(def) = facts.defs.get_mut(f as usize)
        && def.returns.is_empty()
    {
        def.returns = ty;
    }
}

/// What a call calls: `f`, `M.f`, `a.b.f`, `obj:f`; `None` for a local variable's value or
/// anything that is not a name.
fn callee_of(
    call: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &FileFacts,
    walk: &Walk,
) -> Option<Callee> {
    let name = field(call, "name")?;
    match name.kind() {
        "identifier" => {
            let written = text(name, src);
            (!walk.is_local(facts, scope, written)).then(|| Callee::Name(written.to_owned()))
        }
        "dot_index_expression" | "method_index_expression" => {
            let table = field(name, "table")?;
            let member = field(name, "field").or_else(|| field(name, "method"))?;
            Some(Callee::Member {
                receiver: receiver(table, src),
                name: text(member, src).to_owned(),
            })
        }
        _ => None,
    }
}

/// The one receiver classification, in Lua's syntax: `self`, a name, a dotted chain of names,
/// a call of a named function (`Class.new():f()`), or anything else.
fn receiver(node: Node, src: &[u8]) -> Receiver {
    match node.kind() {
        "identifier" if text(node, src) == "self" => Receiver::SelfRef,
        "identifier" => Receiver::Name(text(node, src).to_owned()),
        "dot_index_expression" if is_chain(node) => Receiver::Path(text(node, src).to_owned()),
        "function_call" => match field(node, "name") {
            Some(n) if matches!(n.kind(), "identifier" | "dot_index_expression") && is_chain(n) => {
                Receiver::Call(text(n, src).to_owned())
            }
            _ => Receiver::Other,
        },
        _ => Receiver::Other,
    }
}

/// A name or a chain of `.name` accesses down to one.
fn is_chain(node: Node) -> bool {
    let mut current = node;
    loop {
        match current.kind() {
            "identifier" => return true,
            "dot_index_expression" => match field(current, "table") {
                Some(t) => current = t,
                None => return false,
            },
            _ => return false,
        }
    }
}

/// A call site: `require` is an import, `setmetatable(T, {__index = B})` at the top level makes
/// `T` inherit `B`, anything else is a call when it names what it calls.
fn call<'t>(
    node: Node<'t>,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
    walk: &mut Walk,
    stack: &mut Vec<(Node<'t>, Option<u32>)>,
) {
    if let Some(module) = required(node, src) {
        facts.imports.push(Import {
            module,
            names: Vec::new(),
            module_alias: None,
            wildcard: false,
            reexport: false,
            line: super::line(node),
        });
        return;
    }
    if scope.is_none()
        && let Some((first, meta)) = metatable_call(node, src)
        && first.kind() == "identifier"
        && let Some(base) = index_of(meta, src)
        && let Some(table) = walk.table(text(first, src), facts)
        && let Some(def) = facts.defs.get_mut(table as usize)
        && !def.extends.contains(&base)
    {
        def.extends.push(base);
    }
    if let Some(callee) = callee_of(node, scope, src, facts, walk) {
        push_call(facts, scope, callee, node);
    }
    let mut walked = Vec::new();
    if let Some(name) = field(node, "name") {
        walked.extend(field(name, "table"));
        if !matches!(
            name.kind(),
            "identifier" | "dot_index_expression" | "method_index_expression"
        ) {
            walked.push(name);
        }
    }
    walked.extend(field(node, "arguments"));
    push_all(stack, walked, scope);
}

/// The `--` comment lines right above a definition, first line.
fn doc_comment(node: Node, src: &[u8]) -> String {
    let mut lines = Vec::new();
    let mut prev = node.prev_sibling();
    let mut row = node.start_position().row;
    while let Some(p) = prev {
        if p.kind() != "comment" || p.end_position().row + 1 < row {
            break;
        }
        lines.push(text(p, src).trim_start_matches('-').trim());
        row = p.start_position().row;
        prev = p.prev_sibling();
    }
    lines.reverse();
    doc_line(&lines.join("\n"))
}
