//! Zig: containers named by their `const` (struct, enum, union, opaque), functions and methods,
//! generic functions returning a struct, `@import`s, `usingnamespace`, tests, calls and typed values.

use tree_sitter::Node;

use super::{
    ReceiverSyntax, doc_line, end_line, field, header_before_body, line, named_children, new_def,
    push_call, push_children, text,
};
use crate::facts::{
    ArgValue, Binding, CallArgs, CallBinding, Callee, ElementBinding, FileFacts, Import,
    ImportedName, MethodParams, Receiver,
};
use crate::graph::NodeKind;

/// Zig's receivers: names and `a.b` field chains; `self` is a parameter typed like any other.
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &[],
    self_names: &[],
    super_kinds: &[],
    members: &[("field_expression", "object", "member")],
    leaves: &["identifier"],
};

/// Parameter types a caller's argument decides: a value of any type, a type.
pub(crate) const OPEN_TYPES: [&str; 2] = ["anytype", "type"];

/// Types that are Zig's own, never a project definition.
const PRIMITIVE_TYPES: &[&str] = &[
    "anyerror",
    "anyframe",
    "anyopaque",
    "anytype",
    "bool",
    "comptime_float",
    "comptime_int",
    "noreturn",
    "type",
    "void",
];

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    // Each container: the names its body binds to `@This()` (`const Self = @This();`).
    let mut this_aliases: Vec<(u32, String)> = Vec::new();
    let chains = aliased_chains(root, src);
    // A function's own `const linux = std.os.linux;`: (function, name, the chain written out).
    let mut local_chains: Vec<(u32, String, String)> = Vec::new();
    let file_struct = file_struct(root, src, facts);
    if let Some(idx) = file_struct {
        aliases_of_this(root, idx, src, &mut this_aliases);
    }
    let mut cursor = root.walk();
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root, file_struct)];
    while let Some((node, scope)) = stack.pop() {
        match node.kind() {
            "variable_declaration" => {
                if let Some(container) = container_declaration(node, scope, src, facts) {
                    let (idx, body) = container;
                    aliases_of_this(body, idx, src, &mut this_aliases);
                    push_children(&mut cursor, body, Some(idx), &mut stack);
                    continue;
                }
                if scope.is_none_or(|s| is_container(facts, s)) && import(node, src, facts) {
                    continue;
                }
                if scope.is_none_or(|s| is_container(facts, s))
                    && declared(node)
                        .is_some_and(|(name, _)| chains.iter().any(|(n, _)| n == text(name, src)))
                {
                    push_children(&mut cursor, node, scope, &mut stack);
                    continue;
                }
                if scope.is_none_or(|s| is_container(facts, s)) {
                    type_function_alias(node, src, facts);
                }
                local_chain(node, scope, &chains, src, facts, &mut local_chains);
                binding(node, scope, &this_aliases, src, facts);
            }
            "function_declaration" => {
                let idx = function(node, scope, &mut this_aliases, src, facts);
                if let Some(body) = field(node, "body") {
                    stack.push((body, Some(idx)));
                }
                continue;
            }
            "test_declaration" => {
                let name = named_children(node)
                    .into_iter()
                    .find(|c| matches!(c.kind(), "string" | "identifier"))
                    .map_or_else(|| "test".to_owned(), |n| format!("test {}", text(n, src)));
                let mut def = new_def(facts, NodeKind::Function, &name, scope, node);
                def.exported = false;
                def.signature = name.clone();
                facts.test_spans.push((line(node), super::end_line(node)));
                let idx = facts.defs.len() as u32;
                facts.defs.push(def);
                push_children(&mut cursor, node, Some(idx), &mut stack);
                continue;
            }
            "using_namespace_declaration" => {
                if let Some(module) = named_children(node)
                    .into_iter()
                    .find_map(|c| imported_module(c, src))
                {
                    facts.imports.push(Import {
                        module,
                        names: Vec::new(),
                        module_alias: None,
                        wildcard: true,
                        reexport: is_pub(node),
                        line: line(node),
                    });
                }
            }
            "container_field" => {
                if let (Some(owner), Some(name), Some(ty)) =
                    (scope, field(node, "name"), field(node, "type"))
                    && let Some(written) = type_name(ty, Some(owner), &this_aliases, src, facts)
                {
                    facts
                        .attr_bindings
                        .push((owner, text(name, src).to_owned(), written));
                }
            }
            "call_expression" => {
                if let Some(callee) = callee_of(node, src)
                    .or_else(|| decl_literal(node, scope, &this_aliases, src, facts))
                {
                    let call = facts.calls.len() as u32;
                    push_call(facts, scope, through_chain(callee, &chains), node);
                    let args = call_arguments(node, call, scope, &this_aliases, src, facts);
                    if !args.positional.is_empty() {
                        facts.call_args.push(args);
                    }
                }
            }
            "builtin_function" => builtin_call(node, scope, src, facts),
            // `|x|`, `|*x, i|`: names the block declares.
            "payload" => {
                for name in named_children(node)
                    .into_iter()
                    .filter(|n| n.kind() == "identifier")
                {
                    facts.locals.push((scope, text(name, src).to_owned()));
                }
                payload_binding(node, scope, src, facts);
            }
            _ => {}
        }
        push_children(&mut cursor, node, scope, &mut stack);
    }
    drop_conflicting_aliases(facts);
    expand_chains(facts, &chains);
    expand_local_chains(facts, &local_chains);
}

/// A function's `const linux = std.os.linux;` (a chain through an import or a file's chain):
/// recorded with the chain written out, unless the function binds the name to another chain.
fn local_chain(
    node: Node,
    scope: Option<u32>,
    chains: &[(String, String)],
    src: &[u8],
    facts: &FileFacts,
    local_chains: &mut Vec<(u32, String, String)>,
) {
    let Some(function) = scope.filter(|&s| !is_container(facts, s)) else {
        return;
    };
    let Some((name, Some(value))) = declared(node) else {
        return;
    };
    if field(node, "type").is_some() || !RECEIVERS.is_dotted(value) {
        return;
    }
    let written = text(value, src);
    let (head, rest) = written.split_once('.').unwrap_or((written, ""));
    let imported = facts.imports.iter().any(|i| {
        i.module_alias.as_deref() == Some(head) || i.names.iter().any(|n| n.local() == head)
    });
    let chain = match chains.iter().find(|(n, _)| n == head) {
        Some((_, chain)) => format!("{chain}.{rest}"),
        None if imported => written.to_owned(),
        None => return,
    };
    let name = text(name, src).to_owned();
    match local_chains
        .iter_mut()
        .find(|(f, n, _)| *f == function && *n == name)
    {
        Some((_, _, known)) if *known != chain => known.clear(),
        Some(_) => {}
        None => local_chains.push((function, name, chain)),
    }
}

/// Receivers starting at a function's chain name (`linux.errno(…)` after `const linux =
/// std.os.linux;`): the chain written out, in that function's calls.
fn expand_local_chains(facts: &mut FileFacts, local_chains: &[(u32, String, String)]) {
    for call in &mut facts.calls {
        let Callee::Member { receiver, .. } = &mut call.callee else {
            continue;
        };
        let written = match receiver {
            Receiver::Name(name) | Receiver::Path(name) | Receiver::Call(name) => name,
            _ => continue,
        };
        let end = written.find(['.', '(']).unwrap_or(written.len());
        let Some((_, _, chain)) = local_chains.iter().find(|(f, n, chain)| {
            call.caller == Some(*f) && *n == written[..end] && !chain.is_empty()
        }) else {
            continue;
        };
        let expanded = format!("{chain}{}", &written[end..]);
        *receiver = match receiver {
            Receiver::Call(_) => Receiver::Call(expanded),
            _ => Receiver::Path(expanded),
        };
    }
}

/// A file with fields, or naming itself (`const Self = @This();`), is a struct: a definition
/// named as the file (`Cart.zig` → `Cart`) spanning it, its declarations its members.
fn file_struct(root: Node, src: &[u8], facts: &mut FileFacts) -> Option<u32> {
    let is_struct = named_children(root).into_iter().any(|c| {
        c.kind() == "container_field"
            || (c.kind() == "variable_declaration"
                && declared(c).is_some_and(|(_, value)| value.is_some_and(|v| is_this(v, src))))
    });
    if !is_struct {
        return None;
    }
    let file = facts.path.rsplit('/').next().unwrap_or(&facts.path);
    let name = file.strip_suffix(".zig").unwrap_or(file).to_owned();
    let mut def = new_def(facts, NodeKind::Struct, &name, None, root);
    def.start_line = 1;
    def.signature = format!("struct {file}");
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    Some(idx)
}

fn is_pub(node: Node) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == "pub")
}

fn is_container(facts: &FileFacts, def: u32) -> bool {
    facts
        .defs
        .get(def as usize)
        .is_some_and(|d| d.kind.is_type())
}

/// The declared name and value of `const X = value` (the grammar gives them no fields).
fn declared(node: Node) -> Option<(Node, Option<Node>)> {
    let children = named_children(node);
    let name = children
        .iter()
        .find(|c| c.kind() == "identifier")
        .copied()?;
    let value = children
        .iter()
        .skip_while(|c| c.id() != name.id())
        .skip(1)
        .find(|c| !matches!(c.kind(), "comment") && field_is_not_type(node, **c))
        .copied();
    Some((name, value))
}

fn field_is_not_type(decl: Node, child: Node) -> bool {
    field(decl, "type").is_none_or(|t| t.id() != child.id())
}

/// `const X = struct { … }` (enum, union, opaque): the container's definition and body.
fn container_declaration<'t>(
    node: Node<'t>,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<(u32, Node<'t>)> {
    let (name, value) = declared(node)?;
    let value = value?;
    let kind = container_kind(value)?;
    let mut def = new_def(facts, kind, text(name, src), scope, node);
    def.exported = is_pub(node);
    def.signature = super::signature(&format!(
        "const {} = {}",
        text(name, src),
        header_before_brace(value, src)
    ));
    def.doc = doc_before(node, src);
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    Some((idx, value))
}

fn container_kind(node: Node) -> Option<NodeKind> {
    match node.kind() {
        "struct_declaration" | "union_declaration" | "opaque_declaration" => Some(NodeKind::Struct),
        "enum_declaration" => Some(NodeKind::Enum),
        _ => None,
    }
}

/// `struct`, `union(enum)`: a container's text before its `{`.
fn header_before_brace(node: Node, src: &[u8]) -> String {
    let whole = text(node, src);
    whole.split('{').next().unwrap_or(whole).trim().to_owned()
}

/// The `///` comment right above a declaration.
fn doc_before(node: Node, src: &[u8]) -> String {
    match node.prev_named_sibling() {
        Some(prev)
            if prev.kind() == "comment"
                && prev.end_position().row + 1 == node.start_position().row =>
        {
            doc_line(text(prev, src))
        }
        _ => String::new(),
    }
}

/// Records the names a container body binds to `@This()`.
fn aliases_of_this(body: Node, container: u32, src: &[u8], aliases: &mut Vec<(u32, String)>) {
    for decl in named_children(body)
        .into_iter()
        .filter(|c| c.kind() == "variable_declaration")
    {
        if let Some((name, Some(value))) = declared(decl)
            && is_this(value, src)
        {
            aliases.push((container, text(name, src).to_owned()));
        }
    }
}

fn is_this(node: Node, src: &[u8]) -> bool {
    node.kind() == "builtin_function" && text(node, src).replace(' ', "") == "@This()"
}

/// A function, a method (inside a container), or a generic type: a function returning `type`
/// whose body returns a container is that container, named as the function (`fn List(comptime
/// T: type) type { return struct { … }; }`), its functions the methods of `List(T)`.
fn function(
    node: Node,
    scope: Option<u32>,
    this_aliases: &mut Vec<(u32, String)>,
    src: &[u8],
    facts: &mut FileFacts,
) -> u32 {
    let name = field(node, "name").map_or("", |n| text(n, src));
    let returned = returned_container(node, src);
    let instance = returned
        .is_none()
        .then(|| returned_instance(node, src))
        .flatten();
    let kind = match returned {
        Some((kind, _)) => kind,
        None if instance.is_some() => NodeKind::Struct,
        None if scope.is_some_and(|s| is_container(facts, s)) => NodeKind::Method,
        None => NodeKind::Function,
    };
    let mut def = new_def(facts, kind, name, scope, node);
    def.extends.extend(instance);
    def.exported = is_pub(node);
    def.signature = header_before_body(node, field(node, "body"), src);
    def.doc = doc_before(node, src);
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    if let Some((_, body)) = returned {
        aliases_of_this(body, idx, src, this_aliases);
    }
    let returns = field(node, "type").and_then(|t| type_name(t, scope, this_aliases, src, facts));
    if let Some(returns) = returns
        && let Some(def) = facts.defs.get_mut(idx as usize)
    {
        def.returns = returns;
    }
    if let Some(params) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "parameters")
    {
        let mut positional = Vec::new();
        for param in named_children(params) {
            if param.kind() != "parameter" {
                continue;
            }
            positional.push(field(param, "name").map(|n| text(n, src).to_owned()));
            let (Some(var), Some(ty)) = (field(param, "name"), field(param, "type")) else {
                continue;
            };
            facts.locals.push((Some(idx), text(var, src).to_owned()));
            // `x: anytype`, `comptime T: type`: bound to the keyword, typed by the callers.
            let open = Some(text(ty, src).trim())
                .filter(|t| OPEN_TYPES.contains(t))
                .map(str::to_owned);
            if let Some(type_name) = open.or_else(|| type_name(ty, scope, this_aliases, src, facts))
            {
                let binding = Binding {
                    scope: Some(idx),
                    var: text(var, src).to_owned(),
                    type_name,
                };
                push_binding(facts, binding, (line(node), end_line(node)));
            }
        }
        facts.method_params.push(MethodParams {
            method: idx,
            positional,
            keywords: Vec::new(),
        });
    }
    idx
}

/// The container a generic type function returns: its return type is `type` and its body ends
/// in `return struct { … };` (the first such return).
fn returned_container<'t>(node: Node<'t>, src: &[u8]) -> Option<(NodeKind, Node<'t>)> {
    if field(node, "type").map(|t| text(t, src)) != Some("type") {
        return None;
    }
    let body = field(node, "body")?;
    named_children(body).into_iter().find_map(|statement| {
        let ret = named_children(statement)
            .into_iter()
            .find(|c| c.kind() == "return_expression")
            .or((statement.kind() == "return_expression").then_some(statement))?;
        let value = named_children(ret).into_iter().next()?;
        Some((container_kind(value)?, value))
    })
}

/// The type a type function returns an instance of, or names: its return type is `type` and
/// every `return` of its body (not of a function or container inside it) gives the same
/// `a.Other(T, …)` or the same named type (`fn ArrayList(comptime T: type) type { return
/// array_list.Aligned(T, null); }` → `array_list.Aligned`): it is that type, its members the
/// other's. Returns of two different types, or of the function itself, give none.
fn returned_instance(node: Node, src: &[u8]) -> Option<String> {
    if field(node, "type").map(|t| text(t, src)) != Some("type") {
        return None;
    }
    let own = field(node, "name").map(|n| text(n, src));
    let mut returned: Option<String> = None;
    let mut stack = vec![field(node, "body")?];
    while let Some(at) = stack.pop() {
        if at.kind() == "function_declaration" || container_kind(at).is_some() {
            continue;
        }
        if at.kind() != "return_expression" {
            stack.extend(named_children(at));
            continue;
        }
        let value = named_children(at)
            .into_iter()
            .find(|c| c.kind() != "comment")?;
        let named = match value.kind() {
            "call_expression" => field(value, "function")?,
            _ => value,
        };
        if named.kind() != "identifier" && !RECEIVERS.is_dotted(named) {
            return None;
        }
        let name = text(named, src).replace(char::is_whitespace, "");
        if Some(name.as_str()) == own || returned.as_ref().is_some_and(|r| *r != name) {
            return None;
        }
        returned = Some(name);
    }
    returned
}

/// Aliases are read by name in the whole file: a name two containers alias to different
/// calls is none.
fn drop_conflicting_aliases(facts: &mut FileFacts) {
    let conflicting: Vec<String> = facts
        .type_aliases
        .iter()
        .filter(|(name, members)| {
            facts
                .type_aliases
                .iter()
                .any(|(n, m)| n == name && m != members)
        })
        .map(|(name, _)| name.clone())
        .collect();
    if conflicting.is_empty() {
        return;
    }
    let keep: Vec<bool> = facts
        .type_aliases
        .iter()
        .map(|(name, _)| !conflicting.contains(name))
        .collect();
    let mut kept = keep.iter();
    facts
        .type_aliases
        .retain(|_| kept.next().copied().unwrap_or(false));
    let mut kept = keep.iter();
    facts
        .type_alias_lines
        .retain(|_| kept.next().copied().unwrap_or(false));
}

/// A file-level or container-level `const X = a.Other(T, …);`: an alias of what the call
/// gives, a type when `a.Other` is a type function (`const Array =
/// std.array_list.Managed(Value);`, `const DataList = std.MultiArrayList(Data);` in a struct).
fn type_function_alias(node: Node, src: &[u8], facts: &mut FileFacts) {
    let Some((name, Some(value))) = declared(node) else {
        return;
    };
    if field(node, "type").is_some() || value.kind() != "call_expression" {
        return;
    }
    let Some(function) = field(value, "function") else {
        return;
    };
    if function.kind() == "identifier" || RECEIVERS.is_dotted(function) {
        let called = text(function, src).replace(char::is_whitespace, "");
        facts
            .type_aliases
            .push((text(name, src).to_owned(), vec![called]));
        facts.type_alias_lines.push(line(node));
    }
}

/// `const m = @import("x.zig")` (the whole file), `const A = @import("x.zig").A` and
/// `const A = m.A` where `m` is an import of this file (a name of the file): recorded as
/// imports. `true` when the declaration was one.
fn import(node: Node, src: &[u8], facts: &mut FileFacts) -> bool {
    let Some((name, Some(value))) = declared(node) else {
        return false;
    };
    let local = text(name, src).to_owned();
    let at = line(node);
    if let Some(module) = imported_module(value, src) {
        // A file that is a struct (`Foo.zig` with fields) is that struct: its name in the file
        // (the file's stem) is bound when it is one, else the file is a namespace.
        let stem = module
            .rsplit('/')
            .next()
            .and_then(|f| f.strip_suffix(".zig"))
            .map(str::to_owned);
        facts.imports.push(Import {
            module,
            names: stem
                .into_iter()
                .map(|name| ImportedName {
                    alias: (name != local).then(|| local.clone()),
                    name,
                })
                .collect(),
            module_alias: Some(local),
            wildcard: false,
            reexport: is_pub(node),
            line: at,
        });
        return true;
    }
    if value.kind() != "field_expression" {
        return false;
    }
    let (Some(object), Some(member)) = (field(value, "object"), field(value, "member")) else {
        return false;
    };
    let module = imported_module(object, src).or_else(|| {
        (object.kind() == "identifier")
            .then(|| text(object, src))
            .and_then(|alias| {
                facts
                    .imports
                    .iter()
                    .find(|i| i.module_alias.as_deref() == Some(alias))
                    .map(|i| i.module.clone())
            })
    });
    let Some(module) = module else {
        return false;
    };
    let imported = text(member, src).to_owned();
    facts.imports.push(Import {
        module,
        names: vec![ImportedName {
            alias: (imported != local).then_some(local),
            name: imported,
        }],
        module_alias: None,
        wildcard: false,
        reexport: is_pub(node),
        line: at,
    });
    true
}

/// Names a file or container declares as a chain of names through an import (`const assert =
/// std.debug.assert;`, `const eql = mem.eql;` where `mem` is such a name or an import): (name,
/// the chain with each such name written out). Zig's declarations hold in any order, so they
/// are read before the walk.
fn aliased_chains(root: Node, src: &[u8]) -> Vec<(String, String)> {
    let mut declarations: Vec<(String, Node)> = Vec::new();
    let mut imported: Vec<String> = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        for child in named_children(node) {
            if child.kind() != "variable_declaration" {
                continue;
            }
            let Some((name, Some(value))) = declared(child) else {
                continue;
            };
            let name = text(name, src).to_owned();
            match value.kind() {
                _ if imported_module(value, src).is_some() => imported.push(name),
                "field_expression" if RECEIVERS.is_dotted(value) => {
                    declarations.push((name, value));
                }
                kind if container_kind(value).is_some() || kind == "struct_declaration" => {
                    stack.push(value);
                }
                _ => {}
            }
        }
    }
    let mut chains: Vec<(String, String)> = Vec::new();
    // Each round writes out one more level (`const b = a.b; const c = b.c;`).
    for _ in 0..4 {
        let before = chains.len();
        for (name, value) in &declarations {
            if chains.iter().any(|(n, _)| n == name) {
                continue;
            }
            let written = text(*value, src);
            let (head, rest) = written.split_once('.').unwrap_or((written, ""));
            if imported.iter().any(|i| i == head) {
                chains.push((name.clone(), written.to_owned()));
            } else if let Some((_, chain)) = chains.iter().find(|(n, _)| n == head) {
                chains.push((name.clone(), format!("{chain}.{rest}")));
            }
        }
        if chains.len() == before {
            break;
        }
    }
    chains
}

/// A bare call of a name declared as a chain (`assert(x)` where `const assert =
/// std.debug.assert;`) is a call of the chain's last name through the rest.
fn through_chain(callee: Callee, chains: &[(String, String)]) -> Callee {
    let Callee::Name(name) = &callee else {
        return callee;
    };
    let Some((receiver, last)) = chains
        .iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, chain)| chain.rsplit_once('.'))
    else {
        return callee;
    };
    Callee::Member {
        receiver: if receiver.contains('.') {
            Receiver::Path(receiver.to_owned())
        } else {
            Receiver::Name(receiver.to_owned())
        },
        name: last.to_owned(),
    }
}

/// The module `@import("…")` names.
fn imported_module(node: Node, src: &[u8]) -> Option<String> {
    if node.kind() != "builtin_function" {
        return None;
    }
    let children = named_children(node);
    if children.first().map(|b| text(*b, src)) != Some("@import") {
        return None;
    }
    let argument = named_children(*children.get(1)?).into_iter().next()?;
    (argument.kind() == "string").then(|| text(argument, src).trim_matches('"').to_owned())
}

/// `@call(modifier, f, args)` calls `f`; `@import` and other builtins call nothing.
fn builtin_call(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let children = named_children(node);
    if children.first().map(|b| text(*b, src)) != Some("@call") {
        return;
    }
    let Some(function) = children
        .get(1)
        .and_then(|args| named_children(*args).into_iter().nth(1))
    else {
        return;
    };
    if let Some(callee) = RECEIVERS.callee(function, src, |object| receiver(object, src)) {
        push_call(facts, scope, callee, node);
    }
}

fn callee_of(call: Node, src: &[u8]) -> Option<Callee> {
    let function = field(call, "function")?;
    RECEIVERS.callee(function, src, |object| receiver(object, src))
}

/// A receiver: a call's chain (`a.b().c()`: `Receiver::Call("a.b")`), else a name or a chain
/// of names; `x.?` and `x.*` are `x`.
fn receiver(object: Node, src: &[u8]) -> Receiver {
    let object = unwrapped(object);
    match call_chain(object, src) {
        Some(chain) => Receiver::Call(chain),
        None => RECEIVERS.receiver(object, src),
    }
}

/// `x.?`, `x.*`, `(x)`, `try x`: `x`.
fn unwrapped(node: Node) -> Node {
    let mut at = node;
    while matches!(
        at.kind(),
        "null_coercion_expression"
            | "dereference_expression"
            | "parenthesized_expression"
            | "try_expression"
    ) {
        match named_children(at).into_iter().next() {
            Some(inner) => at = inner,
            None => break,
        }
    }
    at
}

/// `a.b(x).c(y)` → `a.b().c`: the chain of names and calls a call expression calls.
fn call_chain(node: Node, src: &[u8]) -> Option<String> {
    if node.kind() != "call_expression" {
        return None;
    }
    let mut parts: Vec<String> = Vec::new();
    let mut at = field(node, "function")?;
    loop {
        match at.kind() {
            "identifier" => {
                parts.push(text(at, src).to_owned());
                break;
            }
            "field_expression" => {
                parts.push(format!(".{}", text(field(at, "member")?, src)));
                at = field(at, "object")?;
            }
            "call_expression" => {
                parts.push("()".to_owned());
                at = field(at, "function")?;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.concat())
}

/// The arguments of call `call` (`CallArgs`, by place): a name, a chain of fields (through `&`,
/// `.*`, `( )` and `try`), a struct literal of a written type; anything else unknown.
fn call_arguments(
    node: Node,
    call: u32,
    scope: Option<u32>,
    this_aliases: &[(u32, String)],
    src: &[u8],
    facts: &FileFacts,
) -> CallArgs {
    let function = field(node, "function").map(|f| f.id());
    let positional = named_children(node)
        .into_iter()
        .filter(|a| Some(a.id()) != function && a.kind() != "comment")
        .map(|a| {
            let mut at = unwrapped(a);
            while at.kind() == "unary_expression"
                && at.child(0).is_some_and(|op| op.kind() == "&")
                && let Some(inner) = named_children(at).into_iter().next()
            {
                at = unwrapped(inner);
            }
            match at.kind() {
                "identifier" => ArgValue::Local(text(at, src).to_owned()),
                "field_expression" if RECEIVERS.is_dotted(at) => {
                    ArgValue::Path(text(at, src).replace(char::is_whitespace, ""))
                }
                "struct_initializer" => named_children(at)
                    .into_iter()
                    .next()
                    .filter(|t| RECEIVERS.is_dotted(*t))
                    .and_then(|t| type_name(t, scope, this_aliases, src, facts))
                    .map_or(ArgValue::Unknown, ArgValue::Type),
                _ => ArgValue::Unknown,
            }
        })
        .collect();
    CallArgs {
        call,
        positional,
        keywords: Vec::new(),
        splat: false,
        keyword_splat: false,
    }
}

/// `const x: T = …`, `var x = T{ … }`, `var x = T.init(…)`, `const y = x.field`: what the
/// variable holds.
fn binding(
    node: Node,
    scope: Option<u32>,
    this_aliases: &[(u32, String)],
    src: &[u8],
    facts: &mut FileFacts,
) {
    let Some((name, value)) = declared(node) else {
        return;
    };
    let var = text(name, src).to_owned();
    if var == "_" {
        return;
    }
    facts.locals.push((scope, var.clone()));
    // From the declaration to the end of the block around it; a container's declarations hold
    // in all of it (they are order-independent).
    let around = node.parent().unwrap_or(node);
    let from = if scope.is_none_or(|s| is_container(facts, s)) {
        line(around)
    } else {
        line(node)
    };
    let span = (from, end_line(around));
    let bind_written = |type_name, facts: &mut FileFacts| {
        let binding = Binding {
            scope,
            var: var.clone(),
            type_name,
        };
        push_binding(facts, binding, span);
    };
    if let Some(ty) = field(node, "type") {
        if let Some(type_name) = type_name(ty, scope, this_aliases, src, facts) {
            bind_written(type_name, facts);
        }
        return;
    }
    let Some(value) = value.map(|v| {
        let v = unwrapped(v);
        match v.kind() {
            "catch_expression" => named_children(v).into_iter().next().map_or(v, unwrapped),
            _ => v,
        }
    }) else {
        return;
    };
    if value.kind() == "struct_initializer" {
        let written = named_children(value)
            .into_iter()
            .next()
            .and_then(|t| type_name(t, scope, this_aliases, src, facts));
        if let Some(type_name) = written {
            bind_written(type_name, facts);
        }
        return;
    }
    bind_value(var, value, scope, span, src, facts);
}

/// `var` holds what `value` holds: a call's result (`T.init(…)`, `it.next()`) or what a chain of
/// fields or a name holds (`x.field`, `x`).
fn bind_value(
    var: String,
    value: Node,
    scope: Option<u32>,
    span: (u32, u32),
    src: &[u8],
    facts: &mut FileFacts,
) {
    match value.kind() {
        "call_expression" => {
            if let Some(callee) = callee_of(value, src) {
                facts.call_bindings.push(CallBinding { scope, var, callee });
                facts.call_binding_spans.push(span);
            }
        }
        "field_expression" | "identifier" => match RECEIVERS.receiver(value, src) {
            Receiver::Path(path) | Receiver::Name(path) if path != var => {
                facts.path_bindings.push((scope, var, path));
            }
            _ => {}
        },
        _ => {}
    }
}

fn push_binding(facts: &mut FileFacts, binding: Binding, span: (u32, u32)) {
    facts.bindings.push(binding);
    facts.binding_spans.push(span);
}

/// What a payload names: `if (x) |v|` and `while (it.next()) |v|` bind `v` to what the
/// condition holds (an optional's or error union's value: the type they hold); `for (xs) |x|`
/// binds `x` to an element of `xs`; `.tag => |v|` in `switch (u)` binds `v` to `u`'s field
/// `tag` (a tagged union's). Each holds in the statement or case that captures it.
fn payload_binding(payload: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(var) = named_children(payload)
        .into_iter()
        .find(|n| n.kind() == "identifier")
    else {
        return;
    };
    let var = text(var, src).to_owned();
    let Some(parent) = payload.parent() else {
        return;
    };
    let span = (line(parent), end_line(parent));
    // The payload right after the only condition or operand: not `else |err|`, nor a payload
    // of several iterables.
    let before = payload
        .prev_named_sibling()
        .filter(|b| {
            named_children(parent)
                .first()
                .is_some_and(|f| f.id() == b.id())
        })
        .map(unwrapped);
    match (parent.kind(), before) {
        (
            "if_statement" | "if_expression" | "while_statement" | "while_expression",
            Some(condition),
        ) => bind_value(var, condition, scope, span, src, facts),
        ("for_statement" | "for_expression", Some(iterable)) => {
            let of = match RECEIVERS.receiver(iterable, src) {
                of @ (Receiver::Name(_) | Receiver::Path(_))
                    if matches!(iterable.kind(), "identifier" | "field_expression") =>
                {
                    of
                }
                _ => return,
            };
            facts
                .element_bindings
                .push(ElementBinding { scope, var, of });
            facts.element_binding_spans.push(span);
        }
        ("switch_case", Some(item))
            if item.kind() == "field_expression" && field(item, "object").is_none() =>
        {
            let Some(tag) = field(item, "member") else {
                return;
            };
            let Some(operand) = parent
                .parent()
                .filter(|s| s.kind() == "switch_expression")
                .and_then(|s| named_children(s).into_iter().next())
                .map(unwrapped)
            else {
                return;
            };
            if let Receiver::Path(path) | Receiver::Name(path) = RECEIVERS.receiver(operand, src)
                && matches!(operand.kind(), "identifier" | "field_expression")
                && path != var
            {
                let field_path = format!("{path}.{}", text(tag, src));
                facts.path_bindings.push((scope, var, field_path));
            }
        }
        _ => {}
    }
}

/// A decl literal `.init(…)`: a call of a declaration of its result type, read where that type
/// is known (`expected`): `T.init` when the type is written, else a member of the typed place
/// the literal fills. `None` where no type is expected.
fn decl_literal(
    call: Node,
    scope: Option<u32>,
    this_aliases: &[(u32, String)],
    src: &[u8],
    facts: &FileFacts,
) -> Option<Callee> {
    let function = field(call, "function")?;
    if function.kind() != "field_expression" || field(function, "object").is_some() {
        return None;
    }
    let name = text(field(function, "member")?, src).to_owned();
    let receiver = match expected(call, scope, this_aliases, src, facts)? {
        Expected::Type(ty) if ty.contains('.') => Receiver::Path(ty),
        Expected::Type(ty) => Receiver::Name(ty),
        Expected::Place(place) => place,
    };
    Some(Callee::Member { receiver, name })
}

/// Where the result type of a value written without one (a decl literal, `.{ … }`) comes from.
enum Expected {
    /// A written type: `const x: T = …`, `return …` in a function returning `T` (`!T`, `?T`).
    Type(String),
    /// A place of a type the resolver reads: `x.field = …` (`x.field`), a field of a struct
    /// literal (`T{ .f = … }`: `T().f`, the field of a `T`), an argument (`g(…)`: `g@0/1`, the
    /// first of one parameter of what `g` calls).
    Place(Receiver),
}

/// The type the value at `node` is expected to have, through `try`, `( )`, the left of `catch`
/// and a branch of `if`/`else` (not its condition); `None` where no type is written or read.
fn expected(
    node: Node,
    scope: Option<u32>,
    this_aliases: &[(u32, String)],
    src: &[u8],
    facts: &FileFacts,
) -> Option<Expected> {
    let mut at = node;
    let mut parent = at.parent()?;
    while matches!(parent.kind(), "try_expression" | "parenthesized_expression")
        || (parent.kind() == "catch_expression"
            && named_children(parent)
                .first()
                .is_some_and(|l| l.id() == at.id()))
        || (parent.kind() == "if_expression"
            && field(parent, "condition").is_some_and(|c| c.id() != at.id()))
    {
        at = parent;
        parent = parent.parent()?;
    }
    let written = match parent.kind() {
        // `x.field = .init(…)` (read by the grammar as a declaration without `const`/`var`).
        "variable_declaration" if field(parent, "type").is_none() => {
            let mut cursor = parent.walk();
            let tokens: Vec<&str> = parent.children(&mut cursor).map(|c| c.kind()).collect();
            let declares = tokens.iter().any(|k| matches!(*k, "const" | "var"));
            let assigned = named_children(parent).into_iter().next()?;
            if declares || !tokens.contains(&"=") || assigned.id() == at.id() {
                return None;
            }
            return match receiver(assigned, src) {
                assigned @ (Receiver::Name(_) | Receiver::Path(_)) => {
                    Some(Expected::Place(assigned))
                }
                _ => None,
            };
        }
        "variable_declaration" => field(parent, "type")?,
        "return_expression" => {
            let mut function = parent;
            while function.kind() != "function_declaration" {
                function = function.parent()?;
            }
            field(function, "type")?
        }
        // `.f = …` in a struct literal: the field of the literal's type.
        "assignment_expression" if field(parent, "right").is_some_and(|r| r.id() == at.id()) => {
            let left = field(parent, "left")?;
            if left.kind() != "field_expression" || field(left, "object").is_some() {
                return None;
            }
            let member = text(field(left, "member")?, src);
            let literal = parent.parent().filter(|l| l.kind() == "initializer_list")?;
            let literal = literal.parent()?;
            let place = match literal.kind() {
                "struct_initializer" => {
                    let ty = named_children(literal).into_iter().next()?;
                    if !RECEIVERS.is_dotted(ty) {
                        return None;
                    }
                    let ty = type_name(ty, scope, this_aliases, src, facts)?;
                    format!("{ty}()")
                }
                "anonymous_struct_initializer" => {
                    match expected(literal, scope, this_aliases, src, facts)? {
                        Expected::Type(ty) => format!("{ty}()"),
                        Expected::Place(Receiver::Name(p) | Receiver::Path(p)) => p,
                        Expected::Place(_) => return None,
                    }
                }
                _ => return None,
            };
            return Some(Expected::Place(Receiver::Path(format!("{place}.{member}"))));
        }
        // An argument: the parameter at its place, of what the call calls.
        "call_expression" => {
            let function = field(parent, "function")?;
            if function.id() == at.id()
                || !RECEIVERS.is_dotted(function)
                || text(function, src).contains(['@', '"'])
            {
                return None;
            }
            let arguments: Vec<Node> = named_children(parent)
                .into_iter()
                .filter(|a| a.id() != function.id() && a.kind() != "comment")
                .collect();
            let place = arguments.iter().position(|a| a.id() == at.id())?;
            let callee = text(function, src).replace(char::is_whitespace, "");
            let place = format!("{callee}@{place}/{}", arguments.len());
            return Some(Expected::Place(Receiver::Path(place)));
        }
        _ => return None,
    };
    let ty = type_name(written, scope, this_aliases, src, facts)?;
    (!ty.ends_with("[]")).then_some(Expected::Type(ty))
}

/// Types and receivers written through a name declared as a chain through an import (`const
/// Allocator = mem.Allocator;` where `const mem = std.mem;`): the chain written out
/// (`std.mem.Allocator`), which the resolver follows from file to file.
fn expand_chains(facts: &mut FileFacts, chains: &[(String, String)]) {
    let expand = |written: &mut String| {
        let end = written.find(['.', '[', '(']).unwrap_or(written.len());
        if let Some((_, chain)) = chains.iter().find(|(n, _)| *n == written[..end]) {
            *written = format!("{chain}{}", &written[end..]);
        }
    };
    for binding in &mut facts.bindings {
        expand(&mut binding.type_name);
    }
    for (_, _, written) in &mut facts.attr_bindings {
        expand(written);
    }
    for def in &mut facts.defs {
        expand(&mut def.returns);
    }
    for value in facts.call_args.iter_mut().flat_map(|a| &mut a.positional) {
        match value {
            ArgValue::Type(written) | ArgValue::Path(written) => expand(written),
            ArgValue::Local(name) if chains.iter().any(|(n, _)| n == name) => {
                let mut path = name.clone();
                expand(&mut path);
                *value = ArgValue::Path(path);
            }
            _ => {}
        }
    }
    for member in facts.type_aliases.iter_mut().flat_map(|(_, m)| m) {
        expand(member);
    }
    let receivers = facts
        .calls
        .iter_mut()
        .map(|c| &mut c.callee)
        .chain(facts.call_bindings.iter_mut().map(|b| &mut b.callee));
    for callee in receivers {
        let Callee::Member { receiver, .. } = callee else {
            continue;
        };
        match receiver {
            Receiver::Name(name) if chains.iter().any(|(n, _)| n == name) => {
                expand(name);
                *receiver = Receiver::Path(name.clone());
            }
            Receiver::Path(path) | Receiver::Call(path) => expand(path),
            _ => {}
        }
    }
}

/// A type as a name the resolver can look up: pointers, optionals, `const` and error unions
/// are the type they hold (`?*const T`, `!T` → `T`); a slice or array is its elements' type
/// written `T[]`; a generic type's instance `List(u8)` is `List`; `@This()` and the names a
/// container binds to it are the container. `None` for Zig's own types.
fn type_name(
    node: Node,
    scope: Option<u32>,
    this_aliases: &[(u32, String)],
    src: &[u8],
    facts: &FileFacts,
) -> Option<String> {
    let written = text(node, src);
    let ok = written
        .rsplit_once('!')
        .map_or(written, |(_, ok)| ok)
        .trim();
    let mut rest = ok;
    let mut slice = false;
    loop {
        let before = rest;
        rest = rest.trim_start();
        for prefix in ["?", "*", "[*]", "[*c]", "const ", "volatile ", "allowzero "] {
            if let Some(after) = rest.strip_prefix(prefix) {
                rest = after;
            }
        }
        if rest.starts_with('[') {
            slice = true;
            rest = rest.split_once(']').map_or("", |(_, after)| after);
        }
        if rest == before {
            break;
        }
    }
    let rest = rest.trim();
    let name = match rest.split_once('(') {
        _ if rest.replace(' ', "") == "@This()" => innermost_container(scope, facts)?,
        Some((head, _)) => head.trim().to_owned(),
        None => rest.to_owned(),
    };
    let name = this_alias(&name, scope, this_aliases, facts).unwrap_or(name);
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        && !name.starts_with(|c: char| c.is_ascii_digit() || c == '.');
    let primitive = PRIMITIVE_TYPES.contains(&name.as_str())
        || (name.len() > 1
            && (name.starts_with('u') || name.starts_with('i') || name.starts_with('f'))
            && name[1..].bytes().all(|b| b.is_ascii_digit()))
        || matches!(
            name.as_str(),
            "usize" | "isize" | "c_int" | "c_uint" | "c_long"
        );
    if !plain || primitive {
        return None;
    }
    Some(if slice { format!("{name}[]") } else { name })
}

/// The container around `scope` (itself, or the nearest one out).
fn innermost_container(scope: Option<u32>, facts: &FileFacts) -> Option<String> {
    let mut at = scope;
    while let Some(d) = at {
        let def = facts.defs.get(d as usize)?;
        if def.kind.is_type() {
            return Some(def.name.clone());
        }
        at = def.parent;
    }
    None
}

/// The container a name bound to `@This()` in a container around `scope` stands for.
fn this_alias(
    name: &str,
    scope: Option<u32>,
    this_aliases: &[(u32, String)],
    facts: &FileFacts,
) -> Option<String> {
    let mut at = scope;
    while let Some(d) = at {
        if this_aliases.iter().any(|(c, n)| *c == d && n == name) {
            return facts.defs.get(d as usize).map(|x| x.name.clone());
        }
        at = facts.defs.get(d as usize)?.parent;
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    const SOURCE: &str = r#"const std = @import("std");
const m = @import("util.zig");
const Foo = @import("foo.zig").Foo;
const Bar = m.Bar;

/// A cart.
pub const Cart = struct {
    const Self = @This();
    owner: *Foo,

    pub fn init() Self {
        return Self{ .owner = undefined };
    }

    pub fn total(self: *const Self) !usize {
        try self.owner.run();
        const x: Foo = Foo.make();
        var y = try Foo.init(3);
        var z = Foo{ .a = 1 };
        y.go();
        _ = @call(.auto, helper, .{1});
        _ = z;
        return m.sum(x);
    }
};

const Kind = enum { a, b };

fn List(comptime T: type) type {
    return struct {
        items: []T,
        pub fn append(self: *@This(), x: T) void {
            _ = x;
            _ = self;
        }
    };
}

fn helper(x: i32) i32 {
    return x;
}

pub usingnamespace @import("mix.zig");

test "adds" {
    var c = Cart.init();
    _ = c.total();
}
"#;

    #[test]
    fn zig_containers_functions_imports_calls_and_bindings() {
        let f = Extractor::default().extract("src/cart.zig", Lang::Zig, SOURCE);
        let defs: Vec<(&str, NodeKind, bool)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind, d.exported))
            .collect();
        assert_eq!(
            defs,
            [
                ("Cart", NodeKind::Struct, true),
                ("Cart.init", NodeKind::Method, true),
                ("Cart.total", NodeKind::Method, true),
                ("Kind", NodeKind::Enum, false),
                ("List", NodeKind::Struct, false),
                ("List.append", NodeKind::Method, true),
                ("helper", NodeKind::Function, false),
                ("test \"adds\"", NodeKind::Function, false),
            ]
        );
        assert_eq!(f.defs[0].doc, "A cart.");
        assert_eq!(f.defs[1].returns, "Cart");
        assert_eq!(f.test_spans, [(45, 48)]);
        let imports: Vec<(&str, Option<&str>, Vec<&str>, bool)> = f
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.module_alias.as_deref(),
                    i.names.iter().map(|n| n.local()).collect(),
                    i.wildcard,
                )
            })
            .collect();
        assert_eq!(
            imports,
            [
                ("std", Some("std"), vec![], false),
                // The file's own struct, when it is one, else the file.
                ("util.zig", Some("m"), vec!["m"], false),
                ("foo.zig", None, vec!["Foo"], false),
                ("util.zig", None, vec!["Bar"], false),
                ("mix.zig", None, vec![], true),
            ]
        );
        let total: Vec<Callee> = f
            .calls
            .iter()
            .filter(|c| c.caller == Some(2))
            .map(|c| c.callee.clone())
            .collect();
        let member = |r: Receiver, n: &str| Callee::Member {
            receiver: r,
            name: n.into(),
        };
        assert_eq!(
            total,
            [
                member(Receiver::Path("self.owner".into()), "run"),
                member(Receiver::Name("Foo".into()), "make"),
                member(Receiver::Name("Foo".into()), "init"),
                member(Receiver::Name("y".into()), "go"),
                Callee::Name("helper".into()),
                member(Receiver::Name("m".into()), "sum"),
            ]
        );
        for (scope, var, ty) in [
            (2, "self", "Cart"),
            (2, "x", "Foo"),
            (2, "z", "Foo"),
            (5, "self", "List"),
            (5, "x", "T"),
        ] {
            assert!(
                f.bindings.contains(&Binding {
                    scope: Some(scope),
                    var: var.into(),
                    type_name: ty.into()
                }),
                "{var} in {scope}: {:?}",
                f.bindings
            );
        }
        assert!(f.call_bindings.contains(&CallBinding {
            scope: Some(2),
            var: "y".into(),
            callee: member(Receiver::Name("Foo".into()), "init"),
        }));
        assert!(f.attr_bindings.contains(&(0, "owner".into(), "Foo".into())));
        assert!(f.attr_bindings.contains(&(4, "items".into(), "T[]".into())));
    }
}
