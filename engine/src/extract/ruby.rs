//! Ruby: classes and modules (nested, reopened, `class << self`), methods, `attr_*` and `alias`
//! methods, `require`/`autoload` imports, mixins, calls with receivers and `Foo.new` bindings.

use tree_sitter::Node;

use super::{doc_line, field, header_before_body, line, named_children, new_def, push_call, text};
use crate::facts::{
    ArgValue, AttrCall, Binding, CallArgs, CallBinding, Callee, FileFacts, Import, ImportedName,
    MethodParams, Receiver,
};
use crate::graph::NodeKind;

/// Calls written in a class body or a method that configure the class or load code: never a
/// call of a project method (their meaning is recorded as definitions, imports or mixins).
const DECLARATIONS: &[&str] = &[
    "attr_reader",
    "attr_writer",
    "attr_accessor",
    "alias_method",
    "include",
    "extend",
    "prepend",
    "require",
    "require_relative",
    "load",
    "autoload",
    "private",
    "public",
    "protected",
    "module_function",
    "private_constant",
    "public_constant",
    "private_class_method",
    "public_class_method",
    "define_method",
    "send",
    "public_send",
    "__send__",
    "instance_variable_get",
    "instance_variable_set",
    "method_missing",
    "respond_to?",
];

/// Where the walk is: the innermost definition, and whether it is inside `class << self`.
#[derive(Clone, Copy)]
struct At {
    scope: Option<u32>,
    singleton: bool,
}

/// Local variables and parameters by scope (a method, or the file for `None`): a bare name one
/// of them holds is a read, not a call. Also the class each local holds when every assignment
/// to it is the same constant (`klass = Foo::Bar`), else `None`.
/// Also what each assignment to a local (by scope) or an instance variable (by class) holds:
/// a type or a call written as a dotted chain, `None` for anything else; the names parameters,
/// block parameters and multiple assignments bind; and the types and call results a local or
/// `@x` is assigned that hold only when every assignment to it agrees (`Pending`).
#[derive(Default)]
struct Locals {
    names: Vec<(Option<u32>, String)>,
    classes: Vec<(Option<u32>, String, Option<String>)>,
    values: Vec<(Option<u32>, String, Option<String>)>,
    ivars: Vec<(u32, String, Option<String>)>,
    params: Vec<(Option<u32>, String)>,
    pending: Vec<Pending>,
}

/// A fact kept once the walk has seen every assignment to its variable: a local of a literal's
/// class or of a call's result, an `@x` of a literal's class or of a call's result, an `@x`
/// of a class it builds (`@x = Foo.new`, kept unless another assignment holds a known other
/// value).
enum Pending {
    Local(Binding),
    LocalCall(CallBinding, String),
    Ivar(u32, String, String),
    IvarBuilt(u32, String, String),
    IvarCall(AttrCall, String),
    /// `@x = x` where `x` is a parameter: (class, `@x`, method, parameter).
    IvarParam(u32, String, u32, String),
}

impl Locals {
    fn add(&mut self, scope: Option<u32>, name: &str) {
        if !self.has(scope, name) {
            self.names.push((scope, name.to_owned()));
        }
    }

    fn has(&self, scope: Option<u32>, name: &str) -> bool {
        self.names.iter().any(|(s, n)| *s == scope && n == name)
    }

    /// Records an assignment of `class` (a constant path, or `None` for any other value).
    fn assign_class(&mut self, scope: Option<u32>, name: &str, class: Option<String>) {
        match self
            .classes
            .iter_mut()
            .find(|(s, n, _)| *s == scope && n == name)
        {
            Some((_, _, held)) if *held != class => *held = None,
            Some(_) => {}
            None => self.classes.push((scope, name.to_owned(), class)),
        }
    }

    /// A name a parameter, block parameter, `for` or multiple assignment binds.
    fn param(&mut self, scope: Option<u32>, name: &str) {
        self.add(scope, name);
        self.params.push((scope, name.to_owned()));
    }

    /// Whether every assignment to local `name` of `scope` holds `value`, and no parameter
    /// binds it.
    fn local_agrees(&self, scope: Option<u32>, name: &str, value: &str) -> bool {
        !self.params.iter().any(|(s, n)| *s == scope && n == name)
            && self
                .values
                .iter()
                .filter(|(s, n, _)| *s == scope && n == name)
                .all(|(_, _, v)| v.as_deref() == Some(value))
    }

    /// Whether every assignment to `@name` in class `class` (but `nil`) holds `value`.
    fn ivar_agrees(&self, class: u32, name: &str, value: &str) -> bool {
        self.ivars
            .iter()
            .filter(|(c, n, _)| *c == class && n == name)
            .all(|(_, _, v)| v.as_deref() == Some(value))
    }

    /// Whether an assignment to `@name` in class `class` holds a known value other than
    /// `value` (a value of unknown type, a parameter's included, does not disagree).
    fn ivar_disagrees(&self, class: u32, name: &str, value: &str) -> bool {
        self.ivars.iter().any(|(c, n, v)| {
            *c == class
                && n == name
                && v.as_deref()
                    .is_some_and(|v| v != value && !v.starts_with(PARAM_VALUE))
        })
    }

    fn class_of(&self, scope: Option<u32>, name: &str) -> Option<&str> {
        self.classes
            .iter()
            .find(|(s, n, _)| *s == scope && n == name)
            .and_then(|(_, _, c)| c.as_deref())
    }
}

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut locals = Locals::default();
    let mut bodies: Vec<(u32, Node)> = Vec::new();
    let mut parameter_lists: Vec<(u32, Node)> = Vec::new();
    let mut stack: Vec<(Node, At)> = vec![(
        root,
        At {
            scope: None,
            singleton: false,
        },
    )];
    while let Some((node, at)) = stack.pop() {
        let method_scope = method_of(facts, at.scope);
        let mut children: Vec<Node> = Vec::new();
        match node.kind() {
            "class" | "module" => {
                let idx = type_def(node, at.scope, src, facts);
                if let (Some(body), Some(idx)) = (field(node, "body"), idx) {
                    push(&mut stack, vec![body], Some(idx), false);
                }
                continue;
            }
            "singleton_class" => {
                let on_self = field(node, "value").is_some_and(|v| v.kind() == "self");
                if let Some(body) = field(node, "body") {
                    push(&mut stack, vec![body], at.scope, on_self);
                }
                continue;
            }
            "method" | "singleton_method" => {
                let idx = method_def(node, at, src, facts);
                let mut walked: Vec<Node> = field(node, "body").into_iter().collect();
                bodies.extend(field(node, "body").map(|b| (idx, b)));
                if let Some(params) = field(node, "parameters") {
                    parameter_lists.push((idx, params));
                    bind_parameters(params, Some(idx), src, &mut locals);
                    // Default values are code run in the method (`def f(x = g)`).
                    walked.extend(
                        named_children(params)
                            .into_iter()
                            .filter_map(|p| field(p, "value")),
                    );
                }
                push(&mut stack, walked, Some(idx), false);
                continue;
            }
            "alias" => {
                if let (Some(new), Some(owner)) = (field(node, "name"), type_scope(facts, at.scope))
                {
                    add_method(facts, owner, text(new, src), node, src, at.singleton);
                }
                continue;
            }
            "block_parameters" | "lambda_parameters" | "method_parameters" => {
                bind_parameters(node, method_scope, src, &mut locals);
                continue;
            }
            "assignment" | "operator_assignment" => {
                let left = field(node, "left");
                let right = field(node, "right");
                // `Point = Struct.new(:x) do … end`, `Kind = Class.new(Base) { … }`: a class.
                if let (Some(left), Some(right)) = (left, right)
                    && let Some(idx) = class_from_new(node, left, right, at.scope, src, facts)
                {
                    let body = field(right, "block").and_then(|b| field(b, "body"));
                    push(&mut stack, body.into_iter().collect(), Some(idx), false);
                    continue;
                }
                if let Some(left) = left {
                    assign(left, right, at.scope, method_scope, src, facts, &mut locals);
                    match left.kind() {
                        // `x.attr = v`: `x` and any arguments are read, `attr` is no bare call.
                        "call" => {
                            children.extend(field(left, "receiver"));
                            children.extend(field(left, "arguments"));
                        }
                        "element_reference" | "scope_resolution" => {
                            children.extend(named_children(left));
                        }
                        _ => {}
                    }
                }
                children.extend(right);
            }
            "exception_variable" | "for" => {
                for_variables(node, method_scope, src, &mut locals);
                children.extend(named_children(node));
            }
            "call" => {
                if let Some((idx, block)) = defined_method(node, at, src, facts) {
                    push(&mut stack, vec![block], Some(idx), false);
                    continue;
                }
                let before = facts.calls.len();
                children = call(node, at, method_scope, src, facts, &locals);
                if facts.calls.len() == before + 1
                    && let Some(arguments) = field(node, "arguments")
                {
                    let args = call_arguments(before as u32, arguments, at.scope, facts, src);
                    facts.call_args.push(args);
                }
            }
            "super" => {
                if let Some(callee) = super_call(facts, at.scope) {
                    push_call(facts, at.scope, callee, node);
                }
                continue;
            }
            "identifier" => {
                let name = text(node, src);
                if !locals.has(method_scope, name) && is_call_position(node) {
                    let callee = bare_callee(facts, at.scope, name);
                    push_call(facts, at.scope, callee, node);
                }
                continue;
            }
            // Strings are walked for their interpolations (`"#{f(x)}"`).
            "comment" | "string_content" | "simple_symbol" | "hash_key_symbol" => continue,
            _ => children.extend(named_children(node)),
        }
        push(&mut stack, children, at.scope, at.singleton);
    }
    settle(facts, locals.pending.drain(..).collect(), &locals);
    for (idx, body) in bodies {
        method_returns(idx, body, facts, &locals, src);
    }
    reader_types(facts);
    for (idx, params) in parameter_lists {
        facts
            .method_params
            .push(method_params(idx, params, &locals, src));
    }
}

/// A method's parameters a caller's argument alone gives a value (`MethodParams`): a required
/// one before any optional or splat parameter, a required keyword; none the method assigns or
/// a block parameter binds again.
fn method_params(method: u32, params: Node, locals: &Locals, src: &[u8]) -> MethodParams {
    // Assigned in the method, or bound again by a block parameter of the same name.
    let assigned = |name: &str| {
        locals
            .values
            .iter()
            .any(|(s, n, _)| *s == Some(method) && n == name)
            || locals
                .params
                .iter()
                .filter(|(s, n)| *s == Some(method) && n == name)
                .count()
                > 1
    };
    let mut out = MethodParams {
        method,
        positional: Vec::new(),
        keywords: Vec::new(),
    };
    let mut fixed = true;
    for p in named_children(params) {
        match p.kind() {
            "identifier" => {
                let name = text(p, src);
                out.positional
                    .push((fixed && !assigned(name)).then(|| name.to_owned()));
            }
            "keyword_parameter" => {
                if let Some(name) = field(p, "name").map(|n| text(n, src))
                    && field(p, "value").is_none()
                    && !assigned(name)
                {
                    out.keywords.push(name.to_owned());
                }
            }
            "optional_parameter"
            | "splat_parameter"
            | "destructured_parameter"
            | "forward_parameter" => {
                fixed = false;
                out.positional.push(None);
            }
            _ => {}
        }
    }
    out
}

/// The arguments of call `call` (`CallArgs`) as far as the file tells their classes.
fn call_arguments(
    call: u32,
    arguments: Node,
    scope: Option<u32>,
    facts: &FileFacts,
    src: &[u8],
) -> CallArgs {
    let mut out = CallArgs {
        call,
        positional: Vec::new(),
        keywords: Vec::new(),
        splat: false,
        keyword_splat: false,
    };
    for a in named_children(arguments) {
        match a.kind() {
            "block_argument" | "comment" => {}
            "splat_argument" | "forward_argument" => out.splat = true,
            "hash_splat_argument" => out.keyword_splat = true,
            "pair" => match (field(a, "key"), field(a, "value")) {
                (Some(key), Some(value)) if key.kind() == "hash_key_symbol" => {
                    let value = argument_value(value, scope, facts, src);
                    out.keywords.push((text(key, src).to_owned(), value));
                }
                _ => out.keyword_splat = true,
            },
            _ if out.splat => {}
            _ => out.positional.push(argument_value(a, scope, facts, src)),
        }
    }
    out
}

/// What one argument is (`ArgValue`): a class it builds, a literal's class, `self` in an
/// instance method, a local.
fn argument_value(node: Node, scope: Option<u32>, facts: &FileFacts, src: &[u8]) -> ArgValue {
    if let Some(class) = value_class(node, facts, scope, src) {
        return ArgValue::Type(class);
    }
    match node.kind() {
        "self" if !in_class_method(facts, scope) && method_of(facts, scope).is_some() => {
            ArgValue::SelfRef
        }
        "identifier" => ArgValue::Local(text(node, src).to_owned()),
        _ => ArgValue::Unknown,
    }
}

/// Keeps each pending type or call result of a variable that every assignment to it agrees on.
fn settle(facts: &mut FileFacts, pending: Vec<Pending>, locals: &Locals) {
    for p in pending {
        match p {
            Pending::Local(b) => {
                if locals.local_agrees(b.scope, &b.var, &b.type_name) {
                    facts.bindings.push(b);
                }
            }
            Pending::LocalCall(b, value) => {
                if locals.local_agrees(b.scope, &b.var, &value) {
                    facts.call_bindings.push(b);
                }
            }
            Pending::Ivar(class, var, ty) => {
                if locals.ivar_agrees(class, &var, &ty) {
                    facts.attr_bindings.push((class, var, ty));
                }
            }
            Pending::IvarBuilt(class, var, ty) => {
                if !locals.ivar_disagrees(class, &var, &ty) {
                    facts.attr_bindings.push((class, var, ty));
                }
            }
            Pending::IvarCall(call, value) => {
                if locals.ivar_agrees(call.class, &call.attr, &value) {
                    facts.attr_calls.push(call);
                }
            }
            Pending::IvarParam(class, var, method, param) => {
                if locals.ivar_agrees(class, &var, &param_value(method, &param)) {
                    facts.param_ivars.push((class, var, method, param));
                }
            }
        }
    }
}

/// What a method returns, when every value it can return agrees (its last expression, each
/// branch of a last `if`/`case`, every `return v`; `nil` and a bare `return` aside): a class it
/// builds or a literal's class (`returns`), a class itself (`returns` prefixed `class `), one
/// local variable (`returns_variable`, typed where the call is resolved), or one call's result
/// (`def body; context.new_body; end`: a call binding of the name `RETURNED`, which no Ruby
/// local can have, returned as that variable).
fn method_returns(idx: u32, body: Node, facts: &mut FileFacts, locals: &Locals, src: &[u8]) {
    let mut leaves = Vec::new();
    returned_values(body, true, &mut leaves);
    let mut values = leaves.into_iter().map(|leaf| {
        let value = match leaf.kind() {
            "assignment" | "operator_assignment" => field(leaf, "right")?,
            _ => leaf,
        };
        if let Some(ty) = narrowed(value, idx, facts, locals, src) {
            return Some(Returned::Type(ty));
        }
        if value.kind() == "identifier" && locals.has(Some(idx), text(value, src)) {
            return Some(Returned::Local(text(value, src).to_owned()));
        }
        let typed = value_class(value, facts, Some(idx), src)
            .or_else(|| class_value(value, src).map(|c| format!("{CLASS_VALUE}{c}")));
        if let Some(ty) = typed {
            return Some(Returned::Type(ty));
        }
        matches!(value.kind(), "call" | "identifier")
            .then(|| result_chain(value, facts, Some(idx), Some(idx), locals, src, 0))
            .flatten()
            .filter(|c| !c.ends_with("()") && !c.ends_with(".new"))
            .map(Returned::Call)
    });
    let Some(Some(first)) = values.next() else {
        return;
    };
    if !values.all(|v| v.as_ref() == Some(&first)) {
        return;
    }
    let var = match first {
        Returned::Type(ty) => {
            if let Some(def) = facts.defs.get_mut(idx as usize) {
                def.returns = ty;
            }
            return;
        }
        Returned::Local(var) => var,
        Returned::Call(chain) => {
            facts.call_bindings.push(CallBinding {
                scope: Some(idx),
                var: RETURNED.to_owned(),
                callee: crate::resolve::dotted_callee(&chain),
            });
            RETURNED.to_owned()
        }
    };
    if let Some(def) = facts.defs.get_mut(idx as usize) {
        def.returns_variable = var;
    }
}

/// One value a method can return: of a known class, a local variable, a call's result (its
/// dotted chain).
#[derive(PartialEq)]
enum Returned {
    Type(String),
    Local(String),
    Call(String),
}

/// The variable a method's returned call result is bound to: a keyword, never a local's name.
const RETURNED: &str = "return";

/// The class a returned local (`x`, or its copy `x.dup`/`x.clone`) is known to be where it is
/// returned: inside the body of an `if` (modifier, statement or `?:`) whose condition tests it
/// with `x.is_a?(C)`/`kind_of?`/`instance_of?`, `C` a constant or `self` in a class method.
fn narrowed(
    value: Node,
    idx: u32,
    facts: &FileFacts,
    locals: &Locals,
    src: &[u8],
) -> Option<String> {
    let var = match value.kind() {
        "identifier" => value,
        "call"
            if field(value, "arguments").is_none()
                && field(value, "method")
                    .is_some_and(|m| matches!(text(m, src), "dup" | "clone")) =>
        {
            field(value, "receiver").filter(|r| r.kind() == "identifier")?
        }
        _ => return None,
    };
    let name = text(var, src);
    if !locals.has(Some(idx), name) {
        return None;
    }
    let mut child = value;
    while let Some(parent) = child.parent() {
        if matches!(
            parent.kind(),
            "method" | "singleton_method" | "lambda" | "block" | "do_block"
        ) {
            return None;
        }
        let branch = match parent.kind() {
            "if_modifier" => field(parent, "body"),
            "if" | "conditional" => field(parent, "consequence"),
            _ => None,
        };
        if branch.is_some_and(|b| b.id() == child.id())
            && let Some(ty) =
                field(parent, "condition").and_then(|c| tested_class(c, name, idx, facts, src))
        {
            return Some(ty);
        }
        child = parent;
    }
    None
}

/// The class `condition` tests local `name` to be an instance of (`name.is_a?(C)`,
/// `kind_of?`, `instance_of?`; `self` is the class in a class method), if it does.
fn tested_class(
    condition: Node,
    name: &str,
    idx: u32,
    facts: &FileFacts,
    src: &[u8],
) -> Option<String> {
    if condition.kind() != "call"
        || !field(condition, "method")
            .is_some_and(|m| matches!(text(m, src), "is_a?" | "kind_of?" | "instance_of?"))
        || !field(condition, "receiver")
            .is_some_and(|r| r.kind() == "identifier" && text(r, src) == name)
    {
        return None;
    }
    let args = named_children(field(condition, "arguments")?);
    let [class] = args.as_slice() else {
        return None;
    };
    if class.kind() == "self" && in_class_method(facts, Some(idx)) {
        return own_class(facts, Some(idx));
    }
    class_value(*class, src)
}

/// The expressions a method body can return: its last one (through `if`/`unless`/`case`
/// branches, `begin` and parentheses) and, anywhere but in a nested definition or lambda, every
/// `return`'s value. `nil` and a value-less `return` are left out.
fn returned_values<'t>(node: Node<'t>, last: bool, out: &mut Vec<Node<'t>>) {
    match node.kind() {
        "method" | "singleton_method" | "class" | "module" | "singleton_class" | "lambda" => {
            return;
        }
        "return" => {
            if let Some(value) = named_children(node)
                .into_iter()
                .find(|n| n.kind() == "argument_list")
                .and_then(|a| named_children(a).into_iter().next())
            {
                returned_values(value, true, out);
            }
            return;
        }
        _ => {}
    }
    let children: Vec<Node> = named_children(node)
        .into_iter()
        .filter(|n| n.kind() != "comment")
        .collect();
    if !last {
        for c in children {
            returned_values(c, false, out);
        }
        return;
    }
    match node.kind() {
        "nil" => {}
        "if" | "unless" | "elsif" | "conditional" => {
            for (i, c) in children.iter().enumerate() {
                let branch = i > 0
                    && (node.kind() == "conditional"
                        || matches!(c.kind(), "then" | "else" | "elsif"));
                returned_values(*c, branch, out);
            }
            // An `if` without `else` returns `nil` when its condition fails: left out.
        }
        "case" => {
            for c in &children {
                returned_values(*c, matches!(c.kind(), "when" | "else"), out);
            }
        }
        "when" => {
            for c in &children {
                returned_values(*c, c.kind() == "then", out);
            }
        }
        "body_statement" | "then" | "else" | "begin" | "parenthesized_statements" => {
            let n = children.len();
            for (i, c) in children.into_iter().enumerate() {
                returned_values(c, i + 1 == n, out);
            }
        }
        _ => {
            out.push(node);
            for c in children {
                returned_values(c, false, out);
            }
        }
    }
}

/// An `attr_reader`'s method returns what its instance variable is assigned (`@x = Foo.new`).
fn reader_types(facts: &mut FileFacts) {
    for i in 0..facts.defs.len() {
        let def = &facts.defs[i];
        if !def.returns.is_empty()
            || !(def.signature.starts_with("attr_reader")
                || def.signature.starts_with("attr_accessor"))
        {
            continue;
        }
        let ivar = format!("@{}", def.name);
        let held = facts
            .attr_bindings
            .iter()
            .find(|(class, attr, _)| Some(*class) == def.parent && *attr == ivar)
            .map(|(_, _, ty)| ty.clone());
        if let Some(ty) = held {
            facts.defs[i].returns = ty;
        }
    }
}

fn push<'t>(
    stack: &mut Vec<(Node<'t>, At)>,
    nodes: Vec<Node<'t>>,
    scope: Option<u32>,
    singleton: bool,
) {
    stack.extend(
        nodes
            .into_iter()
            .rev()
            .map(|n| (n, At { scope, singleton })),
    );
}

/// A class or module: its name (`A::B` written in place nests it), superclass and body.
fn type_def(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) -> Option<u32> {
    let written = field(node, "name").map(|n| text(n, src))?;
    let absolute = written.starts_with("::");
    let path: Vec<&str> = written
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let name = *path.last()?;
    let parent = type_scope(facts, scope);
    let kind = if node.kind() == "class" {
        NodeKind::Class
    } else {
        NodeKind::Trait
    };
    let mut def = new_def(facts, kind, name, parent, node);
    let outer = match parent.and_then(|p| facts.defs.get(p as usize)) {
        Some(p) if !absolute => format!("{}.", p.qualified),
        _ => String::new(),
    };
    def.qualified = format!("{outer}{}", path.join("."));
    def.signature = header_before_body(node, field(node, "body"), src);
    def.doc = doc_comment(node, src);
    if let Some(superclass) = field(node, "superclass") {
        let base = named_children(superclass)
            .into_iter()
            .find(|n| matches!(n.kind(), "constant" | "scope_resolution"));
        def.extends.extend(base.map(|b| text(b, src).to_owned()));
    }
    facts.defs.push(def);
    Some((facts.defs.len() - 1) as u32)
}

/// `define_method(:m) do |…| … end` in a class or module: a method `m` (a class method in
/// `class << self`), the block its body. Its definition and the block to walk in it.
fn defined_method<'t>(
    node: Node<'t>,
    at: At,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<(u32, Node<'t>)> {
    if field(node, "receiver").is_some()
        || field(node, "method").map(|m| text(m, src)) != Some("define_method")
    {
        return None;
    }
    let owner = type_scope(facts, at.scope).filter(|&o| at.scope == Some(o))?;
    let block = field(node, "block")?;
    let first = field(node, "arguments").and_then(|a| named_children(a).into_iter().next())?;
    if !matches!(first.kind(), "simple_symbol" | "string") || first.named_child_count() > 1 {
        return None;
    }
    let name = text(first, src).trim_matches(|c| c == ':' || c == '"' || c == '\'');
    if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == '#') {
        return None;
    }
    add_method(facts, owner, name, node, src, at.singleton);
    Some(((facts.defs.len() - 1) as u32, block))
}

/// `C = Struct.new(:a, :b)` or `C = Class.new(Base)` (a block may follow): a class named by
/// the constant, whose base is `Class.new`'s argument and whose methods are a `Struct`'s members
/// (`a`, `a=`) and the block's `def`s.
fn class_from_new(
    node: Node,
    left: Node,
    right: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) -> Option<u32> {
    if left.kind() != "constant" || right.kind() != "call" {
        return None;
    }
    let receiver = field(right, "receiver").map(|r| text(r, src).trim_start_matches("::"))?;
    if !matches!(receiver, "Struct" | "Class")
        || field(right, "method").map(|m| text(m, src)) != Some("new")
    {
        return None;
    }
    let name = text(left, src);
    let parent = type_scope(facts, scope);
    let mut def = new_def(facts, NodeKind::Class, name, parent, node);
    def.qualified = match parent.and_then(|p| facts.defs.get(p as usize)) {
        Some(p) => format!("{}.{name}", p.qualified),
        None => name.to_owned(),
    };
    def.signature = super::signature(text(node, src));
    let args: Vec<Node> = field(right, "arguments")
        .map(named_children)
        .unwrap_or_default();
    if receiver == "Class" {
        def.extends.extend(
            args.first()
                .filter(|a| matches!(a.kind(), "constant" | "scope_resolution"))
                .map(|b| text(*b, src).trim_start_matches("::").to_owned()),
        );
    }
    facts.defs.push(def);
    let idx = (facts.defs.len() - 1) as u32;
    if receiver == "Struct" {
        for a in args.iter().filter(|a| a.kind() == "simple_symbol") {
            let member = text(*a, src).trim_start_matches(':');
            add_method(facts, idx, member, *a, src, false);
            add_method(facts, idx, &format!("{member}="), *a, src, false);
        }
    }
    Some(idx)
}

/// A `def m`, `def self.m` or `def m` in `class << self`: a method of the enclosing class or
/// module, or a function at the top level (a private method of every object).
/// A method of the class object itself is named `self.m`: `Foo.m` and `x.m` (an instance)
/// reach different methods.
fn method_def(node: Node, at: At, src: &[u8], facts: &mut FileFacts) -> u32 {
    let written = field(node, "name").map_or("", |n| text(n, src));
    let owner = type_scope(facts, at.scope);
    let singleton = owner.is_some() && (at.singleton || node.kind() == "singleton_method");
    let name = if singleton {
        format!("self.{written}")
    } else {
        written.to_owned()
    };
    let kind = if owner.is_some() {
        NodeKind::Method
    } else {
        NodeKind::Function
    };
    let mut def = new_def(facts, kind, &name, owner, node);
    let body = field(node, "body");
    def.signature = header_before_body(node, body, src);
    if at.singleton && !def.signature.contains("self.") {
        def.signature = def.signature.replacen("def ", "def self.", 1);
    }
    def.doc = doc_comment(node, src);
    def.exported = !written.starts_with('_');
    facts.defs.push(def);
    (facts.defs.len() - 1) as u32
}

/// The `returns` of a method whose last expression is a class itself, not an instance
/// (`def command_class; Thor::Command; end`): this prefix, then the constant path as written.
pub(crate) const CLASS_VALUE: &str = "class ";

/// How an assignment of a call's result is told from one of a type while the walk compares the
/// assignments to one variable: this prefix, then the call's dotted chain.
const CALL_VALUE: &str = "call ";

/// The prefix of the value an `@x = x` records for agreement (`param_value`).
const PARAM_VALUE: &str = "param ";

/// The value an `@x = x` records for agreement: parameter `x` of method `method`.
fn param_value(method: u32, param: &str) -> String {
    format!("{PARAM_VALUE}{method} {param}")
}

/// The constant path a class-valued expression names: `Foo`, `A::B`.
fn class_value(node: Node, src: &[u8]) -> Option<String> {
    matches!(node.kind(), "constant" | "scope_resolution")
        .then(|| text(node, src).trim_start_matches("::").to_owned())
}

/// The class of a literal (`"s"`, `[…]`, `{…}`, `1`, `1.5`, `:s`, `/r/`, `a..b`, `true`,
/// `false`): one of Ruby's own, written from the top, so a project that reopens it (`class
/// String`) has its methods found there.
fn literal_class(node: Node) -> Option<&'static str> {
    Some(match node.kind() {
        "string" | "chained_string" | "heredoc_beginning" => "::String",
        "array" | "string_array" | "symbol_array" => "::Array",
        "hash" => "::Hash",
        "integer" => "::Integer",
        "float" => "::Float",
        "simple_symbol" | "delimited_symbol" => "::Symbol",
        "regex" => "::Regexp",
        "range" => "::Range",
        "true" => "::TrueClass",
        "false" => "::FalseClass",
        _ => return None,
    })
}

/// The class of an instance a value is: `Foo.new`, `new`/`self.class.new` in a class, a literal.
fn value_class(node: Node, facts: &FileFacts, scope: Option<u32>, src: &[u8]) -> Option<String> {
    constructed(node, src)
        .or_else(|| built_here(node, facts, scope, src))
        .or_else(|| literal_class(node).map(str::to_owned))
}

/// A method made by a declaration (`attr_reader :a`, `alias_method :b, :a`, `alias b a`); in
/// `class << self` a method of the class object (`self.b`).
fn add_method(
    facts: &mut FileFacts,
    owner: u32,
    name: &str,
    node: Node,
    src: &[u8],
    singleton: bool,
) {
    let name = name.trim_start_matches(':');
    if name.is_empty() {
        return;
    }
    let name = if singleton {
        format!("self.{name}")
    } else {
        name.to_owned()
    };
    let mut def = new_def(facts, NodeKind::Method, &name, Some(owner), node);
    def.signature = super::signature(text(node, src));
    facts.defs.push(def);
}

/// The class or module a definition written in `scope` belongs to.
fn type_scope(facts: &FileFacts, scope: Option<u32>) -> Option<u32> {
    let mut current = scope;
    while let Some(d) = current {
        let def = facts.defs.get(d as usize)?;
        if def.kind.is_type() {
            return Some(d);
        }
        current = def.parent;
    }
    None
}

/// The class or module around `scope` as an absolute constant path (`::Shop::Cart`).
fn own_class(facts: &FileFacts, scope: Option<u32>) -> Option<String> {
    let def = facts.defs.get(type_scope(facts, scope)? as usize)?;
    Some(format!("::{}", def.qualified.replace('.', "::")))
}

/// The innermost method or function around `scope` (its locals are the ones in reach).
fn method_of(facts: &FileFacts, scope: Option<u32>) -> Option<u32> {
    let mut current = scope;
    while let Some(d) = current {
        let def = facts.defs.get(d as usize)?;
        if def.kind.is_callable() {
            return Some(d);
        }
        current = def.parent;
    }
    None
}

/// The `#` comment lines right above a definition, first line.
fn doc_comment(node: Node, src: &[u8]) -> String {
    let mut lines = Vec::new();
    let mut prev = node.prev_sibling();
    let mut row = node.start_position().row;
    while let Some(p) = prev {
        if p.kind() != "comment" || p.end_position().row + 1 < row {
            break;
        }
        lines.push(text(p, src).trim_start_matches('#').trim());
        row = p.start_position().row;
        prev = p.prev_sibling();
    }
    lines.reverse();
    doc_line(&lines.join("\n"))
}

fn bind_parameters(node: Node, scope: Option<u32>, src: &[u8], locals: &mut Locals) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "identifier" => locals.param(scope, text(n, src)),
            "optional_parameter" | "keyword_parameter" => {
                if let Some(name) = field(n, "name") {
                    locals.param(scope, text(name, src));
                }
            }
            _ => stack.extend(named_children(n)),
        }
    }
}

fn for_variables(node: Node, scope: Option<u32>, src: &[u8], locals: &mut Locals) {
    let target = if node.kind() == "for" {
        field(node, "pattern")
    } else {
        Some(node)
    };
    let mut stack: Vec<Node> = target.into_iter().collect();
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" {
            locals.param(scope, text(n, src));
        } else if !matches!(n.kind(), "call" | "element_reference") {
            stack.extend(named_children(n));
        }
    }
}

/// `x = Foo.new` binds `x` to `Foo`; `@x = Foo.new` in a method binds the class's `@x`;
/// `Foo = Struct.new(…)` / `Class.new(Base)` defines a class. Assigned names become locals.
fn assign(
    left: Node,
    right: Option<Node>,
    scope: Option<u32>,
    method: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
    locals: &mut Locals,
) {
    let created =
        right.and_then(|r| constructed(r, src).or_else(|| built_here(r, facts, scope, src)));
    let literal = right.and_then(literal_class).map(str::to_owned);
    // `x = a.b(…)`: the call's result, as a dotted chain (no construction, no `new`).
    let chain = right
        .filter(|r| created.is_none() && matches!(r.kind(), "call" | "identifier"))
        .and_then(|r| result_chain(r, facts, scope, method, locals, src, 0))
        .filter(|c| !c.ends_with("()") && !c.ends_with(".new"));
    // `@x = x`, `x` a parameter of the method: what callers pass.
    let param = right
        .filter(|r| r.kind() == "identifier" && left.kind() == "instance_variable")
        .map(|r| text(r, src))
        .filter(|p| locals.params.iter().any(|(s, n)| *s == method && n == p));
    let chain = chain.filter(|_| param.is_none());
    let value = created
        .clone()
        .or_else(|| literal.clone())
        .or_else(|| chain.as_ref().map(|c| format!("{CALL_VALUE}{c}")))
        .or_else(|| Some(param_value(method?, param?)));
    match left.kind() {
        "identifier" => {
            let var = text(left, src);
            // A parameter (or a local bound otherwise) holds something else too.
            let class = right
                .and_then(|r| class_value(r, src))
                .filter(|_| !locals.has(method, var) || locals.class_of(method, var).is_some());
            locals.add(method, var);
            locals.assign_class(method, var, class);
            locals.values.push((method, var.to_owned(), value.clone()));
            if let Some(ty) = created {
                facts.bindings.push(Binding {
                    scope: method,
                    var: var.to_owned(),
                    type_name: ty,
                });
            } else if let Some(ty) = literal {
                locals.pending.push(Pending::Local(Binding {
                    scope: method,
                    var: var.to_owned(),
                    type_name: ty,
                }));
            } else if let (Some(chain), Some(value)) = (chain, value) {
                let binding = CallBinding {
                    scope: method,
                    var: var.to_owned(),
                    callee: crate::resolve::dotted_callee(&chain),
                };
                locals.pending.push(Pending::LocalCall(binding, value));
            }
        }
        "instance_variable" => {
            let (Some(method), Some(class)) = (method, type_scope(facts, scope)) else {
                return;
            };
            let var = text(left, src).to_owned();
            if right.is_some_and(|r| r.kind() == "nil") {
                return;
            }
            locals.ivars.push((class, var.clone(), value.clone()));
            if let Some(ty) = created {
                locals.pending.push(Pending::IvarBuilt(class, var, ty));
            } else if let Some(ty) = literal {
                locals.pending.push(Pending::Ivar(class, var, ty));
            } else if let (Some(chain), Some(value)) = (chain, value) {
                let call = AttrCall {
                    class,
                    attr: var,
                    scope: method,
                    callee: crate::resolve::dotted_callee(&chain),
                };
                locals.pending.push(Pending::IvarCall(call, value));
            } else if let Some(param) = param {
                locals
                    .pending
                    .push(Pending::IvarParam(class, var, method, param.to_owned()));
            }
        }
        "left_assignment_list" => {
            for_variables(left, method, src, locals);
        }
        _ => {}
    }
}

/// `base.include(X)` or `base.send(:include, X)` in a module's `def self.included(base)`: every
/// class including the module includes `X` too, so `X` is among the module's own mixins.
fn included_hook_mixin(
    name: &str,
    receiver: Node,
    arguments: Option<Node>,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
) {
    let Some(hook) = method_of(facts, scope).and_then(|m| facts.defs.get(m as usize)) else {
        return;
    };
    if hook.name != "self.included" || receiver.kind() != "identifier" {
        return;
    }
    let args: Vec<Node> = arguments.map(named_children).unwrap_or_default();
    let mixins = match name {
        "include" => &args[..],
        "send" | "__send__" if args.first().is_some_and(|a| text(*a, src) == ":include") => {
            &args[1..]
        }
        _ => return,
    };
    let mixins: Vec<String> = mixins
        .iter()
        .filter(|a| matches!(a.kind(), "constant" | "scope_resolution"))
        .map(|a| text(*a, src).trim_start_matches("::").to_owned())
        .collect();
    if let Some(module) = type_scope(facts, scope).and_then(|t| facts.defs.get_mut(t as usize)) {
        module.implements.extend(mixins);
    }
}

/// The method a `send` names by a symbol as its first argument (`:m`), if it does.
fn sent_symbol<'s>(arguments: Option<Node>, src: &'s [u8]) -> Option<&'s str> {
    let first = arguments.and_then(|a| named_children(a).into_iter().next())?;
    let name = text(first, src).strip_prefix(':')?;
    (first.kind() == "simple_symbol" && !name.is_empty()).then_some(name)
}

/// The modules an `include`/`prepend` names (constants, `A::B`), written from the top or not.
fn mixin_arguments(arguments: Option<Node>, src: &[u8]) -> Vec<String> {
    arguments
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter(|a| matches!(a.kind(), "constant" | "scope_resolution"))
        .map(|a| text(a, src).trim_start_matches("::").to_owned())
        .collect()
}

/// `Foo.new(…)`, `Foo::Bar.new`: the class written.
fn constructed(node: Node, src: &[u8]) -> Option<String> {
    if node.kind() != "call" {
        return None;
    }
    let method = field(node, "method").map(|m| text(m, src))?;
    let receiver = field(node, "receiver")?;
    if method != "new" || !matches!(receiver.kind(), "constant" | "scope_resolution") {
        return None;
    }
    Some(text(receiver, src).trim_start_matches("::").to_owned())
}

/// Whether `scope` is in a method of the class object (`def self.m`): there `self` is the class.
fn in_class_method(facts: &FileFacts, scope: Option<u32>) -> bool {
    method_of(facts, scope)
        .and_then(|m| facts.defs.get(m as usize))
        .is_some_and(|d| d.name.starts_with("self."))
}

/// `self.class`.
fn is_self_class(node: Node, src: &[u8]) -> bool {
    field(node, "receiver").is_some_and(|r| r.kind() == "self")
        && field(node, "method").is_some_and(|m| text(m, src) == "class")
        && field(node, "arguments").is_none()
}

/// `new(…)` or `self.class.new(…)` in a class: an instance of the class (its absolute path).
fn built_here(node: Node, facts: &FileFacts, scope: Option<u32>, src: &[u8]) -> Option<String> {
    if node.kind() == "identifier" && text(node, src) == "new" {
        return own_class(facts, scope);
    }
    if node.kind() != "call" || field(node, "method").map(|m| text(m, src)) != Some("new") {
        return None;
    }
    match field(node, "receiver") {
        None => own_class(facts, scope),
        Some(r) if r.kind() == "call" && is_self_class(r, src) => own_class(facts, scope),
        Some(_) => None,
    }
}

/// A `call` node: records its callee (or what it declares) and gives the children to walk
/// (receiver, arguments, block), never the method name.
fn call<'t>(
    node: Node<'t>,
    at: At,
    method: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
    locals: &Locals,
) -> Vec<Node<'t>> {
    let scope = at.scope;
    let receiver = field(node, "receiver");
    let arguments = field(node, "arguments");
    let mut children: Vec<Node> = receiver.into_iter().collect();
    children.extend(arguments);
    children.extend(field(node, "block"));
    let Some(method_node) = field(node, "method") else {
        return children;
    };
    let written = text(method_node, src);
    // `x.send(:m, …)` (also `public_send`, `__send__`) with the symbol written: a call of `m`.
    let sent = matches!(written, "send" | "public_send" | "__send__")
        .then(|| sent_symbol(arguments, src))
        .flatten();
    let name = sent.unwrap_or(written);
    if method_node.kind() == "super" {
        if let Some(callee) = super_call(facts, scope) {
            push_call(facts, scope, callee, node);
        }
        return children;
    }
    let callee = match receiver {
        None => {
            if sent.is_none() && DECLARATIONS.contains(&name) {
                declaration(name, arguments, at, node, src, facts);
                return children;
            }
            bare_callee(facts, scope, name)
        }
        Some(r) => {
            included_hook_mixin(written, r, arguments, scope, src, facts);
            if matches!(name, "send" | "public_send" | "__send__") {
                return children;
            }
            if matches!(name, "include" | "prepend")
                && matches!(r.kind(), "constant" | "scope_resolution")
            {
                let class = text(r, src).to_owned();
                for module in mixin_arguments(arguments, src) {
                    facts
                        .mixins
                        .push((scope, class.clone(), module, name == "prepend"));
                }
            }
            // `klass = Foo; klass.new`: the class the local holds.
            if r.kind() == "identifier"
                && let Some(class) = locals.class_of(method, text(r, src))
            {
                let callee = Callee::Scoped {
                    path: class.to_owned(),
                    name: name.to_owned(),
                };
                push_call(facts, scope, callee, node);
                return children;
            }
            // `x.new` on a class value the walk cannot name (`self[:k].new`, `klass.new`):
            // some class's `initialize`, never a method named `new` found by name.
            let named_class = matches!(r.kind(), "constant" | "scope_resolution" | "self")
                || is_self_class(r, src);
            if name == "new" && !named_class {
                // `command_class.new`, `a.b.new`: the class a method returns, if it is one.
                if let Some(chain) = result_chain(r, facts, scope, method, locals, src, 0)
                    .filter(|c| !c.ends_with("()"))
                {
                    push_call(
                        facts,
                        scope,
                        Callee::Member {
                            receiver: Receiver::Call(chain),
                            name: "new".to_owned(),
                        },
                        node,
                    );
                }
                return children;
            }
            match r.kind() {
                // `self.class.m`: a class method of the caller's class.
                "call" if is_self_class(r, src) => match own_class(facts, scope) {
                    Some(class) => Callee::Scoped {
                        path: class,
                        name: name.to_owned(),
                    },
                    None => Callee::Member {
                        receiver: Receiver::Other,
                        name: name.to_owned(),
                    },
                },
                // `::Foo.m` keeps its `::`: a constant from the top only.
                "constant" | "scope_resolution" => Callee::Scoped {
                    path: text(r, src).to_owned(),
                    name: name.to_owned(),
                },
                // In a class method `self` is the class.
                "self" => match own_class(facts, scope) {
                    Some(class) if name == "new" || in_class_method(facts, scope) => {
                        Callee::Scoped {
                            path: class,
                            name: name.to_owned(),
                        }
                    }
                    _ => Callee::Member {
                        receiver: Receiver::SelfRef,
                        name: name.to_owned(),
                    },
                },
                "identifier" => Callee::Member {
                    receiver: if let Some(class) = built_here(r, facts, scope, src) {
                        Receiver::Call(class)
                    } else if locals.has(method, text(r, src)) {
                        Receiver::Name(text(r, src).to_owned())
                    } else {
                        Receiver::Call(text(r, src).to_owned())
                    },
                    name: name.to_owned(),
                },
                "instance_variable" => Callee::Member {
                    receiver: Receiver::Path(format!("self.{}", text(r, src))),
                    name: name.to_owned(),
                },
                _ => Callee::Member {
                    receiver: value_class(r, facts, scope, src)
                        .or_else(|| result_chain(r, facts, scope, method, locals, src, 0))
                        .map_or(Receiver::Other, Receiver::Call),
                    name: name.to_owned(),
                },
            }
        }
    };
    push_call(facts, scope, callee, node);
    children
}

/// The call whose result `node` is, written as `resolve`'s dotted callees read it: `f` (a
/// method of `self`), `Foo::f` (a class method), `self.f`, `x.f` (a local), `self.@x.f`, and
/// the same after another such result (`f().g`, `Foo::f().g`); a construction is its class
/// followed by `()` (`Foo()`: an instance). None for what it cannot name.
fn result_chain(
    node: Node,
    facts: &FileFacts,
    scope: Option<u32>,
    method: Option<u32>,
    locals: &Locals,
    src: &[u8],
    depth: u32,
) -> Option<String> {
    if depth > 4 {
        return None;
    }
    if let Some(class) = value_class(node, facts, scope, src) {
        return Some(format!("{class}()"));
    }
    match node.kind() {
        "identifier" => {
            let name = text(node, src);
            (!locals.has(method, name)).then(|| name.to_owned())
        }
        "call" => {
            let name = text(field(node, "method")?, src);
            if !name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                || matches!(name, "send" | "public_send" | "__send__" | "class")
            {
                return None;
            }
            let Some(r) = field(node, "receiver") else {
                return Some(name.to_owned());
            };
            let before = match r.kind() {
                "call" if is_self_class(r, src) => {
                    return Some(format!("{}::{name}", own_class(facts, scope)?));
                }
                "constant" | "scope_resolution" => {
                    return Some(format!("{}::{name}", text(r, src).trim_start_matches("::")));
                }
                "self" if in_class_method(facts, scope) => {
                    return Some(format!("{}::{name}", own_class(facts, scope)?));
                }
                "self" => "self".to_owned(),
                "instance_variable" => format!("self.{}", text(r, src)),
                "identifier" if locals.has(method, text(r, src)) => text(r, src).to_owned(),
                _ => {
                    let inner = result_chain(r, facts, scope, method, locals, src, depth + 1)?;
                    if inner.ends_with("()") {
                        inner
                    } else {
                        format!("{inner}()")
                    }
                }
            };
            Some(format!("{before}.{name}"))
        }
        _ => None,
    }
}

/// `attr_*`, `alias_method`, mixins, `require*` and `autoload`.
fn declaration(
    name: &str,
    arguments: Option<Node>,
    at: At,
    node: Node,
    src: &[u8],
    facts: &mut FileFacts,
) {
    let scope = at.scope;
    let args: Vec<Node> = arguments.map(named_children).unwrap_or_default();
    let owner = type_scope(facts, scope).filter(|&o| scope == Some(o));
    match name {
        "attr_reader" | "attr_writer" | "attr_accessor" => {
            let Some(owner) = owner else { return };
            for a in args.iter().filter(|a| a.kind() == "simple_symbol") {
                let attr = text(*a, src).trim_start_matches(':');
                if name != "attr_writer" {
                    add_method(facts, owner, attr, node, src, at.singleton);
                }
                if name != "attr_reader" {
                    add_method(facts, owner, &format!("{attr}="), node, src, at.singleton);
                }
            }
        }
        "alias_method" => {
            if let (Some(owner), Some(new)) = (owner, args.first()) {
                let new = text(*new, src).trim_matches(|c| c == ':' || c == '"' || c == '\'');
                add_method(facts, owner, new, node, src, at.singleton);
            }
        }
        "include" | "extend" | "prepend" => {
            let Some(def) = owner.and_then(|o| facts.defs.get_mut(o as usize)) else {
                return;
            };
            let modules = mixin_arguments(arguments, src);
            def.implements.extend(modules.iter().cloned());
            if name == "prepend" {
                facts.mixins.extend(
                    modules
                        .into_iter()
                        .map(|module| (scope, String::new(), module, true)),
                );
            }
        }
        "require" | "require_relative" | "load" | "autoload" => {
            let (constant, path) = match name {
                "autoload" => (args.first(), args.get(1)),
                _ => (None, args.first()),
            };
            let Some(path) = path.filter(|p| p.kind() == "string") else {
                return;
            };
            let written = string_text(*path, src);
            if written.is_empty() {
                return;
            }
            let module = if name == "require_relative" && !written.starts_with('.') {
                format!("./{written}")
            } else {
                written
            };
            facts.imports.push(Import {
                module,
                names: constant
                    .map(|c| ImportedName {
                        name: text(*c, src).trim_start_matches(':').to_owned(),
                        alias: None,
                    })
                    .into_iter()
                    .collect(),
                module_alias: None,
                wildcard: false,
                reexport: false,
                line: line(node),
            });
        }
        _ => {}
    }
}

/// A string literal's text when it has no interpolation.
fn string_text(node: Node, src: &[u8]) -> String {
    let parts = named_children(node);
    match parts.as_slice() {
        [one] if one.kind() == "string_content" => text(*one, src).to_owned(),
        _ => String::new(),
    }
}

/// A call without a receiver: `new` in a class builds an instance of it.
fn bare_callee(facts: &FileFacts, scope: Option<u32>, name: &str) -> Callee {
    match own_class(facts, scope) {
        Some(class) if name == "new" => Callee::Scoped {
            path: class,
            name: "new".to_owned(),
        },
        _ => Callee::Name(name.to_owned()),
    }
}

/// `super` in a method: the parent's method of the same name.
fn super_call(facts: &FileFacts, scope: Option<u32>) -> Option<Callee> {
    let method = method_of(facts, scope)?;
    let name = facts.defs.get(method as usize)?.name.clone();
    Some(Callee::Member {
        receiver: Receiver::Super,
        name,
    })
}

/// Whether a bare identifier stands where a value is read (so, not being a local, it calls a
/// method of `self`): not a name a construct declares.
fn is_call_position(node: Node) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    // A parameter's default value (`def f(x = g)`) is code, its name is not.
    if matches!(parent.kind(), "keyword_parameter" | "optional_parameter") {
        return field(parent, "value").is_some_and(|v| v.id() == node.id());
    }
    !matches!(
        parent.kind(),
        "method"
            | "singleton_method"
            | "alias"
            | "undef"
            | "keyword_parameter"
            | "optional_parameter"
            | "block_parameters"
            | "method_parameters"
            | "lambda_parameters"
            | "destructured_parameter"
            | "rest_assignment"
            | "splat_parameter"
            | "hash_splat_parameter"
            | "block_parameter"
            | "keyword_pattern"
            | "array_pattern"
            | "find_pattern"
            | "hash_pattern"
            | "in_clause"
            | "alternative_pattern"
            | "as_pattern"
            | "exception_variable"
    )
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::facts::{Callee, FileFacts, Receiver};
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    const SOURCE: &str = r#"require "json"
require_relative "shop/item"

module Shop
  autoload :Tax, "shop/tax"

  # A cart of items.
  class Cart < Base
    include Totals
    extend Finders
    attr_reader :items
    attr_accessor :owner
    alias_method :size, :count

    def initialize(owner)
      @owner = owner
      @ledger = Ledger.new
      @items = []
    end

    def add(item)
      line = Line.new(item)
      line.check
      @ledger.record(line)
      items << item
      log "added"
      refresh
      self.touch
      Shop::Tax.apply(self)
      super
    end

    def self.build
      new_cart = new(nil)
      Cart.new(nil)
    end

    class << self
      def empty; end
    end

    alias total_size size
  end
end
"#;

    fn facts() -> FileFacts {
        Extractor::default().extract("lib/shop/cart.rb", Lang::Ruby, SOURCE)
    }

    fn has_call(f: &FileFacts, caller: &str, callee: &Callee) -> bool {
        f.calls.iter().any(|c| {
            &c.callee == callee
                && c.caller
                    .and_then(|d| f.defs.get(d as usize))
                    .is_some_and(|d| d.name == caller)
        })
    }

    #[test]
    fn classes_modules_methods_and_declared_methods() {
        let f = facts();
        assert_eq!(f.syntax_errors, 0);
        let find = |q: &str| f.defs.iter().find(|d| d.qualified == q);
        let cart = find("Shop.Cart").unwrap();
        assert_eq!(cart.kind, NodeKind::Class);
        assert_eq!(cart.extends, ["Base"]);
        assert_eq!(cart.implements, ["Totals", "Finders"]);
        assert_eq!(cart.doc, "A cart of items.");
        assert_eq!(find("Shop").unwrap().kind, NodeKind::Trait);
        for m in [
            "Shop.Cart.items",
            "Shop.Cart.owner",
            "Shop.Cart.owner=",
            "Shop.Cart.size",
            "Shop.Cart.initialize",
            "Shop.Cart.add",
            "Shop.Cart.self.build",
            "Shop.Cart.self.empty",
            "Shop.Cart.total_size",
        ] {
            assert_eq!(find(m).map(|d| d.kind), Some(NodeKind::Method), "{m}");
        }
        assert!(
            find("Shop.Cart.self.empty")
                .unwrap()
                .signature
                .starts_with("def self.empty")
        );
        assert!(find("Shop.Cart.items=").is_none());
    }

    #[test]
    fn imports_and_autoloads() {
        let f = facts();
        let modules: Vec<&str> = f.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(modules, ["json", "./shop/item", "shop/tax"]);
        assert_eq!(f.imports[2].names[0].name, "Tax");
    }

    #[test]
    fn calls_with_receivers_locals_and_bindings() {
        let f = facts();
        let member = |receiver: Receiver, name: &str| Callee::Member {
            receiver,
            name: name.to_owned(),
        };
        let scoped = |path: &str, name: &str| Callee::Scoped {
            path: path.to_owned(),
            name: name.to_owned(),
        };
        assert!(has_call(&f, "add", &scoped("Line", "new")));
        assert!(has_call(
            &f,
            "add",
            &member(Receiver::Name("line".into()), "check")
        ));
        assert!(has_call(
            &f,
            "add",
            &member(Receiver::Path("self.@ledger".into()), "record")
        ));
        assert!(has_call(&f, "add", &Callee::Name("log".into())));
        assert!(has_call(&f, "add", &Callee::Name("refresh".into())));
        assert!(has_call(&f, "add", &Callee::Name("items".into())));
        assert!(has_call(&f, "add", &member(Receiver::SelfRef, "touch")));
        assert!(has_call(&f, "add", &scoped("Shop::Tax", "apply")));
        assert!(has_call(&f, "add", &member(Receiver::Super, "add")));
        assert!(has_call(&f, "self.build", &scoped("::Shop::Cart", "new")));
        assert!(has_call(&f, "self.build", &scoped("Cart", "new")));
        // Locals and parameters are read, not called; declarations are no calls.
        for absent in ["line", "item", "owner", "attr_reader", "include", "require"] {
            assert!(
                !f.calls
                    .iter()
                    .any(|c| c.callee == Callee::Name(absent.into())),
                "{absent}: {:?}",
                f.calls
            );
        }
        assert!(
            f.bindings
                .iter()
                .any(|b| b.var == "line" && b.type_name == "Line")
        );
        assert!(
            f.attr_bindings
                .iter()
                .any(|(_, a, t)| a == "@ledger" && t == "Ledger")
        );
    }

    #[test]
    fn compact_and_absolute_names_nest_as_written() {
        let source = "module A\n  class B::C < ::D::E\n  end\n  class ::F\n  end\nend\n";
        let f = Extractor::default().extract("a.rb", Lang::Ruby, source);
        let qualified: Vec<&str> = f.defs.iter().map(|d| d.qualified.as_str()).collect();
        assert_eq!(qualified, ["A", "A.B.C", "F"]);
        assert_eq!(f.defs[1].name, "C");
        assert_eq!(f.defs[1].extends, ["::D::E"]);
    }

    #[test]
    fn broken_code_keeps_what_parsed() {
        let mut x = Extractor::default();
        let f = x.extract("a.rb", Lang::Ruby, "class A\n  def f(\n  end\nclass << \n");
        assert!(f.syntax_errors > 0);
        let _ = x.extract("b.rb", Lang::Ruby, "");
    }
}
