//! Elixir: modules (nested, `__MODULE__`), structs, protocols and implementations, behaviours,
//! functions by name/arity, `alias`/`import`/`require`/`use`, local, remote, piped calls and captures.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tree_sitter::Node;

use super::{doc_line, field, header_before_body, line, named_children, new_def, push_call, text};
use crate::facts::{Callee, FileFacts, Import, ImportedName, NameRef};
use crate::graph::{NodeKind, RefKind};

/// Macros that define a function, with whether what they define is public.
const DEFINERS: &[(&str, bool)] = &[
    ("def", true),
    ("defp", false),
    ("defmacro", true),
    ("defmacrop", false),
    ("defguard", true),
    ("defguardp", false),
    ("defdelegate", true),
];

/// Module attributes whose arguments are types or documentation, not code that runs.
const TYPE_ATTRIBUTES: &[&str] = &[
    "spec",
    "type",
    "typep",
    "opaque",
    "optional_callbacks",
    "impl",
    "derive",
];

/// The walk's state: the aliases in effect, the doc waiting for the next definition, the
/// references found (by expanded name).
#[derive(Default)]
struct Walk {
    /// `(scope the alias was written in, short name, full module name)`, in source order.
    aliases: Vec<(Option<u32>, String, String)>,
    doc: String,
    ref_names: HashMap<String, u32>,
    seen: HashSet<NameRef>,
}

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut walk = Walk::default();
    // (node, innermost definition, inside `quote`, arguments a pipe adds to a call)
    let mut stack: Vec<(Node, Option<u32>, bool, u32)> = vec![(root, None, false, 0)];
    while let Some((node, scope, quoted, piped)) = stack.pop() {
        let mut children: Vec<Node> = Vec::new();
        match node.kind() {
            "call" => {
                // What `quote` holds is code for the module that uses the macro.
                let quotes = quoted || is_quote(node, src);
                let (inner, walked) = call(node, scope, quoted, piped, src, facts, &mut walk);
                stack.extend(walked.into_iter().rev().map(|n| (n, inner, quotes, 0)));
                continue;
            }
            "binary_operator" if field(node, "operator").is_some_and(|o| o.kind() == "|>") => {
                let left = field(node, "left");
                let right = field(node, "right");
                let mut next: Vec<(Node, Option<u32>, bool, u32)> = Vec::new();
                next.extend(left.map(|l| (l, scope, quoted, 0)));
                match right {
                    Some(r) if r.kind() == "call" => next.push((r, scope, quoted, 1)),
                    Some(r) if r.kind() == "identifier" && !quoted => {
                        let name = format!("{}/1", text(r, src));
                        push_call(facts, scope, Callee::Name(name), r);
                    }
                    Some(r) => next.push((r, scope, quoted, 0)),
                    None => {}
                }
                stack.extend(next.into_iter().rev());
                continue;
            }
            "unary_operator" => match field(node, "operator").map(|o| o.kind()) {
                Some("&") => {
                    if let Some(name) =
                        field(node, "operand").and_then(|o| capture(o, scope, src, facts, &walk))
                    {
                        add_ref(facts, &mut walk, &name, scope, node, RefKind::Value);
                    } else {
                        children.extend(field(node, "operand"));
                    }
                }
                Some("@") => {
                    children.extend(
                        field(node, "operand")
                            .and_then(|o| attribute(o, scope, src, facts, &mut walk)),
                    );
                }
                _ => children.extend(named_children(node)),
            },
            "map" => {
                for child in named_children(node) {
                    if child.kind() == "struct" {
                        let named = named_children(child)
                            .into_iter()
                            .find_map(|n| module_name(n, scope, src, facts, &walk));
                        if let Some(module) = named {
                            add_ref(facts, &mut walk, &module, scope, child, RefKind::Type);
                        }
                    } else {
                        children.push(child);
                    }
                }
            }
            "alias" => {
                let module = expand(text(node, src), scope, facts, &walk);
                add_ref(facts, &mut walk, &module, scope, node, RefKind::Read);
            }
            "comment" | "quoted_content" | "atom" | "identifier" | "keyword" | "sigil_name" => {}
            _ => children.extend(named_children(node)),
        }
        stack.extend(children.into_iter().rev().map(|n| (n, scope, quoted, 0)));
    }
    let mut ref_names: Vec<(String, u32)> = walk.ref_names.into_iter().collect();
    ref_names.sort_unstable_by_key(|&(_, index)| index);
    facts.ref_names = ref_names.iter().map(|(name, _)| name.as_str()).collect();
}

/// One call node: a definition, a directive or a call. Gives the scope its parts are walked
/// in and the parts to walk.
fn call<'t>(
    node: Node<'t>,
    scope: Option<u32>,
    quoted: bool,
    piped: u32,
    src: &[u8],
    facts: &mut FileFacts,
    walk: &mut Walk,
) -> (Option<u32>, Vec<Node<'t>>) {
    let args: Vec<Node> = named_children(node)
        .into_iter()
        .filter(|n| n.kind() == "arguments")
        .flat_map(named_children)
        .filter(|n| n.kind() != "comment")
        .collect();
    let do_block = named_children(node)
        .into_iter()
        .find(|n| n.kind() == "do_block");
    let arity = args.len() as u32 + u32::from(do_block.is_some()) + piped;
    let Some(target) = field(node, "target") else {
        return (scope, args.into_iter().chain(do_block).collect());
    };
    let mut rest: Vec<Node> = args.clone();
    rest.extend(do_block);
    match target.kind() {
        "identifier" => {
            let name = text(target, src);
            match name {
                "defmodule" | "defprotocol" | "defimpl" if !quoted => {
                    let module = module_def(node, name, &args, scope, src, facts, walk);
                    let body: Vec<Node> = do_block
                        .into_iter()
                        .chain(keyword(&args, "do", src))
                        .collect();
                    return (module.or(scope), body);
                }
                "defstruct" | "defexception" => {
                    if let Some(m) = module_of(facts, scope)
                        && let Some(def) = facts.defs.get_mut(m as usize)
                        && def.kind == NodeKind::Module
                    {
                        def.kind = NodeKind::Struct;
                    }
                }
                "alias" | "require" | "import" | "use"
                    if !quoted && names_module(&args, scope, src, facts, walk) =>
                {
                    directive(name, &args, node, scope, src, facts, walk);
                    let options = args
                        .iter()
                        .skip(1)
                        .copied()
                        .filter(|a| a.kind() != "keywords");
                    return (scope, options.collect());
                }
                _ => {
                    if !quoted && let Some(&(_, public)) = DEFINERS.iter().find(|(d, _)| *d == name)
                    {
                        return function_def(
                            node, name, public, &args, do_block, scope, src, facts, walk,
                        );
                    }
                    if !quoted && name != "quote" {
                        push_call(facts, scope, Callee::Name(format!("{name}/{arity}")), node);
                    }
                }
            }
        }
        "dot" => {
            let left = field(target, "left");
            let right = field(target, "right").filter(|r| r.kind() == "identifier");
            if let (Some(left), Some(right)) = (left, right) {
                if let Some(module) = module_name(left, scope, src, facts, walk) {
                    let name = format!("{}/{arity}", text(right, src));
                    push_call(facts, scope, Callee::Scoped { path: module, name }, node);
                } else {
                    rest.push(left);
                }
            } else {
                rest.extend(left);
            }
        }
        _ => rest.push(target),
    }
    (scope, rest)
}

/// Whether a directive's first argument is a module (`alias A.{B, C}` too): else the name is a
/// function of the project's own (`require(files, opts)`).
fn names_module(
    args: &[Node],
    scope: Option<u32>,
    src: &[u8],
    facts: &FileFacts,
    walk: &Walk,
) -> bool {
    args.first().is_some_and(|&first| {
        module_name(first, scope, src, facts, walk).is_some()
            || (first.kind() == "dot"
                && field(first, "right").is_some_and(|r| r.kind() == "tuple")
                && field(first, "left")
                    .is_some_and(|l| module_name(l, scope, src, facts, walk).is_some()))
    })
}

fn is_quote(node: Node, src: &[u8]) -> bool {
    field(node, "target").is_some_and(|t| t.kind() == "identifier" && text(t, src) == "quote")
}

/// `defmodule A.B`, `defprotocol P`, `defimpl P, for: T`: a module named in full, nested in the
/// module around it; a nested module's first name part becomes an alias there.
fn module_def(
    node: Node,
    macro_name: &str,
    args: &[Node],
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
    walk: &mut Walk,
) -> Option<u32> {
    let outer = module_of(facts, scope);
    let outer_name = outer
        .and_then(|m| facts.defs.get(m as usize))
        .map(|d| d.qualified.clone());
    let written = args.first().copied();
    let (name, implements) = if macro_name == "defimpl" {
        let protocol = module_name(written?, scope, src, facts, walk)?;
        let target = match keyword(args, "for", src) {
            Some(t) => {
                let first = if t.kind() == "list" {
                    named_children(t).into_iter().next()?
                } else {
                    t
                };
                module_name(first, scope, src, facts, walk)?
            }
            None => outer_name.clone()?,
        };
        (format!("{protocol}.{target}"), vec![protocol])
    } else {
        let written = written?;
        let literal = text(written, src).trim_start_matches("Elixir.").to_owned();
        let name = match (&outer_name, written.kind()) {
            (Some(o), "alias") => format!("{o}.{literal}"),
            (_, "alias") => literal.clone(),
            _ => module_name(written, scope, src, facts, walk)?,
        };
        if let (Some(o), "alias") = (&outer_name, written.kind()) {
            let head = literal.split('.').next().unwrap_or(&literal).to_owned();
            walk.aliases
                .push((outer, head.clone(), format!("{o}.{head}")));
        }
        (name, Vec::new())
    };
    let kind = if macro_name == "defprotocol" {
        NodeKind::Interface
    } else {
        NodeKind::Module
    };
    let mut def = new_def(facts, kind, &name, outer, node);
    def.qualified = name;
    def.implements = implements;
    def.signature = header_before_body(
        node,
        named_children(node)
            .into_iter()
            .find(|n| n.kind() == "do_block"),
        src,
    );
    facts.defs.push(def);
    Some((facts.defs.len() - 1) as u32)
}

/// `def f(a, b \\ 1) when g(a) do … end` and its other clauses: one definition `f/2`. Gives the
/// scope and the parts walked (default values, guard, body; patterns bind, they do not run).
#[allow(
    clippy::too_many_arguments,
    reason = "a definition needs its call's parts and the walk's state, as the other handlers"
)]
fn function_def<'t>(
    node: Node<'t>,
    macro_name: &str,
    public: bool,
    args: &[Node<'t>],
    do_block: Option<Node<'t>>,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
    walk: &mut Walk,
) -> (Option<u32>, Vec<Node<'t>>) {
    let Some(mut head) = args.first().copied() else {
        return (scope, Vec::new());
    };
    let mut walked: Vec<Node> = Vec::new();
    if head.kind() == "binary_operator"
        && field(head, "operator").is_some_and(|o| o.kind() == "when")
    {
        walked.extend(field(head, "right"));
        match field(head, "left") {
            Some(left) => head = left,
            None => return (scope, walked),
        }
    }
    let (written, params): (&str, Vec<Node>) = match head.kind() {
        "call" => match field(head, "target") {
            Some(t) if t.kind() == "identifier" => (
                text(t, src),
                named_children(head)
                    .into_iter()
                    .filter(|n| n.kind() == "arguments")
                    .flat_map(named_children)
                    .filter(|n| n.kind() != "comment")
                    .collect(),
            ),
            _ => return (scope, walked),
        },
        "identifier" => (text(head, src), Vec::new()),
        _ => return (scope, walked),
    };
    for p in &params {
        if p.kind() == "binary_operator"
            && field(*p, "operator").is_some_and(|o| o.kind() == "\\\\")
        {
            walked.extend(field(*p, "right"));
        }
    }
    let name = format!("{written}/{}", params.len());
    let owner = module_of(facts, scope);
    let existing = facts
        .defs
        .iter()
        .position(|d| d.parent == owner && d.name == name && d.kind.is_callable());
    let end = super::end_line(node);
    let idx = match existing {
        Some(i) => {
            if let Some(d) = facts.defs.get_mut(i) {
                d.end_line = d.end_line.max(end);
            }
            walk.doc.clear();
            i as u32
        }
        None => {
            let mut def = new_def(facts, NodeKind::Function, &name, owner, node);
            def.signature = header_before_body(
                node,
                do_block.or_else(|| keyword_pair(args, "do", src)),
                src,
            );
            def.doc = std::mem::take(&mut walk.doc);
            def.exported = public;
            facts.defs.push(def);
            (facts.defs.len() - 1) as u32
        }
    };
    if macro_name == "defdelegate" {
        if let Some(to) =
            keyword(args, "to", src).and_then(|t| module_name(t, Some(idx), src, facts, walk))
        {
            let target =
                keyword(args, "as", src).map_or(written, |a| text(a, src).trim_start_matches(':'));
            let callee = Callee::Scoped {
                path: to,
                name: format!("{target}/{}", params.len()),
            };
            push_call(facts, Some(idx), callee, node);
        }
        return (Some(idx), walked);
    }
    walked.extend(do_block);
    walked.extend(keyword(args, "do", src));
    (Some(idx), walked)
}

/// `alias`, `require`, `import` and `use`: an import of the module (aliased under its last name
/// or `as:`; `import` with its `only:` names); `use` also calls the module's `__using__/1`.
fn directive(
    macro_name: &str,
    args: &[Node],
    node: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
    walk: &mut Walk,
) {
    let Some(&first) = args.first() else { return };
    let mut modules: Vec<String> = Vec::new();
    // `alias A.{B, C}`
    if first.kind() == "dot"
        && let (Some(left), Some(right)) = (field(first, "left"), field(first, "right"))
        && right.kind() == "tuple"
    {
        if let Some(base) = module_name(left, scope, src, facts, walk) {
            for part in named_children(right) {
                if part.kind() == "alias" {
                    modules.push(format!("{base}.{}", text(part, src)));
                }
            }
        }
    } else if let Some(m) = module_name(first, scope, src, facts, walk) {
        modules.push(m);
    }
    let as_name = keyword(args, "as", src).map(|a| text(a, src).to_owned());
    let only = keyword(args, "only", src);
    let names: Vec<ImportedName> = only
        .filter(|o| o.kind() == "list")
        .into_iter()
        .flat_map(named_children)
        .filter(|k| k.kind() == "keywords")
        .flat_map(named_children)
        .filter_map(|pair| {
            let key =
                field(pair, "key").map(|k| text(k, src).trim_end_matches([':', ' ']).to_owned())?;
            let arity = field(pair, "value").map(|v| text(v, src))?;
            Some(ImportedName {
                name: format!("{key}/{arity}"),
                alias: None,
            })
        })
        .collect();
    for module in modules {
        let short = module.rsplit('.').next().unwrap_or(&module).to_owned();
        if macro_name == "alias" || as_name.is_some() {
            let alias = as_name.clone().unwrap_or(short);
            walk.aliases.push((scope, alias, module.clone()));
        }
        let is_import = macro_name == "import";
        facts.imports.push(Import {
            module: module.clone(),
            names: if is_import { names.clone() } else { Vec::new() },
            module_alias: as_name.clone(),
            wildcard: is_import && names.is_empty(),
            reexport: false,
            line: line(node),
        });
        if macro_name == "use" {
            let callee = Callee::Scoped {
                path: module,
                name: "__using__/1".to_owned(),
            };
            push_call(facts, scope, callee, node);
        }
    }
}

/// A module attribute: `@behaviour B` (the module implements `B`), `@callback f(a) :: t` (a
/// function `B` declares), `@doc`/`@moduledoc` (documentation). Gives what is code to walk.
fn attribute<'t>(
    operand: Node<'t>,
    scope: Option<u32>,
    src: &[u8],
    facts: &mut FileFacts,
    walk: &mut Walk,
) -> Option<Node<'t>> {
    if operand.kind() != "call" {
        return None;
    }
    let name = field(operand, "target").map(|t| text(t, src))?;
    let args: Vec<Node> = named_children(operand)
        .into_iter()
        .filter(|n| n.kind() == "arguments")
        .flat_map(named_children)
        .collect();
    let module = module_of(facts, scope);
    match name {
        "behaviour" | "behavior" => {
            let b = args
                .first()
                .and_then(|a| module_name(*a, scope, src, facts, walk))?;
            facts.defs.get_mut(module? as usize)?.implements.push(b);
            None
        }
        "callback" | "macrocallback" => {
            let mut spec = *args.first()?;
            while spec.kind() == "binary_operator" {
                spec = field(spec, "left")?;
            }
            let written = field(spec, "target")
                .filter(|t| t.kind() == "identifier")
                .map(|t| text(t, src))?;
            let arity = named_children(spec)
                .into_iter()
                .filter(|n| n.kind() == "arguments")
                .flat_map(named_children)
                .count();
            let name = format!("{written}/{arity}");
            let mut def = new_def(facts, NodeKind::Function, &name, module, operand);
            def.signature = super::signature(&format!("@{}", text(operand, src)));
            def.doc = std::mem::take(&mut walk.doc);
            facts.defs.push(def);
            None
        }
        "doc" | "moduledoc" => {
            // `@doc false` hides a function: no doc.
            let doc = args
                .first()
                .filter(|a| matches!(a.kind(), "string" | "sigil"))
                .map(|a| doc_line(text(*a, src)))
                .unwrap_or_default();
            if name == "moduledoc" {
                if let Some(d) = module.and_then(|m| facts.defs.get_mut(m as usize)) {
                    d.doc = doc;
                }
            } else {
                walk.doc = doc;
            }
            None
        }
        _ if TYPE_ATTRIBUTES.contains(&name) => None,
        _ => named_children(operand)
            .into_iter()
            .find(|n| n.kind() == "arguments"),
    }
}

/// `&f/1`, `&Mod.f/2`: the captured function's name, `f/1` or `A.B.f/2`.
fn capture(
    operand: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &FileFacts,
    walk: &Walk,
) -> Option<String> {
    if operand.kind() != "binary_operator" || field(operand, "operator")?.kind() != "/" {
        return None;
    }
    let arity = field(operand, "right").filter(|r| r.kind() == "integer")?;
    let arity = text(arity, src);
    let left = field(operand, "left")?;
    match left.kind() {
        "identifier" => Some(format!("{}/{arity}", text(left, src))),
        "call" => {
            let target = field(left, "target").filter(|t| t.kind() == "dot")?;
            let module = module_name(field(target, "left")?, scope, src, facts, walk)?;
            let name = field(target, "right").filter(|r| r.kind() == "identifier")?;
            Some(format!("{module}.{}/{arity}", text(name, src)))
        }
        _ => None,
    }
}

/// The full name of a module written as an alias (`Cart`, `Shop.Cart`), `__MODULE__` or
/// `__MODULE__.Sub`; `None` for an Erlang module (`:ets`) or a value.
fn module_name(
    node: Node,
    scope: Option<u32>,
    src: &[u8],
    facts: &FileFacts,
    walk: &Walk,
) -> Option<String> {
    match node.kind() {
        "alias" => Some(expand(text(node, src), scope, facts, walk)),
        "identifier" if text(node, src) == "__MODULE__" => facts
            .defs
            .get(module_of(facts, scope)? as usize)
            .map(|d| d.qualified.clone()),
        "dot" => {
            let left = module_name(field(node, "left")?, scope, src, facts, walk)?;
            let right = field(node, "right").filter(|r| r.kind() == "alias")?;
            Some(format!("{left}.{}", text(right, src)))
        }
        "call" if named_children(node).iter().all(|n| n.kind() != "arguments") => {
            module_name(field(node, "target")?, scope, src, facts, walk)
        }
        _ => None,
    }
}

/// An alias as written, expanded through the aliases in effect in `scope` (the innermost,
/// latest first): `Cart.Item` with `alias Shop.Cart` is `Shop.Cart.Item`.
fn expand(written: &str, scope: Option<u32>, facts: &FileFacts, walk: &Walk) -> String {
    let written = written.strip_prefix("Elixir.").unwrap_or(written);
    let (head, rest) = match written.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (written, None),
    };
    let mut chain = vec![None];
    let mut current = scope;
    while let Some(d) = current {
        chain.push(Some(d));
        current = facts.defs.get(d as usize).and_then(|x| x.parent);
    }
    let full = walk
        .aliases
        .iter()
        .rev()
        .find(|(s, short, _)| short == head && chain.contains(s))
        .map(|(_, _, full)| full.as_str());
    match (full, rest) {
        (Some(f), Some(r)) => format!("{f}.{r}"),
        (Some(f), None) => f.to_owned(),
        (None, _) => written.to_owned(),
    }
}

/// The module around `scope`.
fn module_of(facts: &FileFacts, scope: Option<u32>) -> Option<u32> {
    let mut current = scope;
    while let Some(d) = current {
        let def = facts.defs.get(d as usize)?;
        if matches!(
            def.kind,
            NodeKind::Module | NodeKind::Struct | NodeKind::Interface
        ) {
            return Some(d);
        }
        current = def.parent;
    }
    None
}

/// The value of keyword `key:` among a call's arguments (`for: T`, `as: X`, `do: expr`).
fn keyword<'t>(args: &[Node<'t>], key: &str, src: &[u8]) -> Option<Node<'t>> {
    keyword_pair(args, key, src).and_then(|p| field(p, "value"))
}

fn keyword_pair<'t>(args: &[Node<'t>], key: &str, src: &[u8]) -> Option<Node<'t>> {
    args.iter()
        .filter(|a| a.kind() == "keywords")
        .flat_map(|a| named_children(*a))
        .find(|pair| {
            field(*pair, "key").is_some_and(|k| text(k, src).trim_end_matches([':', ' ']) == key)
        })
}

fn add_ref(
    facts: &mut FileFacts,
    walk: &mut Walk,
    name: &str,
    scope: Option<u32>,
    node: Node,
    kind: RefKind,
) {
    let next = walk.ref_names.len() as u32;
    let index = *walk.ref_names.entry(name.to_owned()).or_insert(next);
    let reference = NameRef::new(index, scope, line(node), kind);
    if walk.seen.insert(reference) {
        facts.refs.push(reference);
    }
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::extract::test_facts::calls_in;
    use crate::facts::{Callee, FileFacts};
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    const SOURCE: &str = r#"defmodule Shop.Cart do
  alias Shop.{Ledger, Money}
  alias Shop.Tax, as: T
  import Shop.Format, only: [money: 1, cents: 2]
  use Shop.Base, kind: :cart

  defmodule Item do
    defstruct [:price]
  end

  def total(cart, rate \\ 1) when is_list(cart) do
    cart
    |> Enum.map(&Item.price/1)
    |> sum()
    |> Money.round(2)
    T.rate()
    __MODULE__.Item.new()
    :lists.reverse(cart)
    cart.items
    fun.(cart)
    Ledger.record(%Item{price: 1}, sum(cart))
  end

  def total(_, _), do: 0
  defp sum(xs), do: xs
  defmacro twice(x), do: quote(do: unquote(x) * 2)
end
"#;

    fn facts() -> FileFacts {
        Extractor::default().extract("lib/shop/cart.ex", Lang::Elixir, SOURCE)
    }

    fn scoped(path: &str, name: &str) -> Callee {
        Callee::Scoped {
            path: path.into(),
            name: name.into(),
        }
    }

    #[test]
    fn modules_and_functions_by_arity() {
        let f = facts();
        let defs: Vec<(&str, &str, NodeKind, bool)> = f
            .defs
            .iter()
            .map(|d| (d.name.as_str(), d.qualified.as_str(), d.kind, d.exported))
            .collect();
        assert_eq!(
            defs,
            vec![
                ("Shop.Cart", "Shop.Cart", NodeKind::Module, true),
                ("Shop.Cart.Item", "Shop.Cart.Item", NodeKind::Struct, true),
                ("total/2", "Shop.Cart.total/2", NodeKind::Function, true),
                ("sum/1", "Shop.Cart.sum/1", NodeKind::Function, false),
                ("twice/1", "Shop.Cart.twice/1", NodeKind::Function, true),
            ]
        );
        // The second clause's line ends the definition.
        assert_eq!(f.defs[2].end_line, 24);
        assert!(
            f.defs[2]
                .signature
                .starts_with("def total(cart, rate \\\\ 1)")
        );
        assert_eq!(f.syntax_errors, 0);
    }

    #[test]
    fn directives_are_imports_of_full_module_names() {
        let f = facts();
        let imports: Vec<(&str, Option<&str>, bool, Vec<&str>)> = f
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.module_alias.as_deref(),
                    i.wildcard,
                    i.names.iter().map(|n| n.name.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(
            imports,
            vec![
                ("Shop.Ledger", None, false, vec![]),
                ("Shop.Money", None, false, vec![]),
                ("Shop.Tax", Some("T"), false, vec![]),
                ("Shop.Format", None, false, vec!["money/1", "cents/2"]),
                ("Shop.Base", None, false, vec![]),
            ]
        );
    }

    #[test]
    fn calls_carry_full_module_names_and_arities() {
        let f = facts();
        assert_eq!(
            calls_in(&f, "Shop.Cart"),
            vec![scoped("Shop.Base", "__using__/1")]
        );
        assert_eq!(
            calls_in(&f, "Shop.Cart.total/2"),
            vec![
                Callee::Name("is_list/1".into()),
                scoped("Enum", "map/2"),
                Callee::Name("sum/1".into()),
                scoped("Shop.Money", "round/2"),
                scoped("Shop.Tax", "rate/0"),
                scoped("Shop.Cart.Item", "new/0"),
                scoped("Shop.Ledger", "record/2"),
                Callee::Name("sum/1".into()),
            ]
        );
        // Inside `quote` nothing is a local call of this module.
        assert!(calls_in(&f, "Shop.Cart.twice/1").is_empty());
    }

    #[test]
    fn captures_and_structs_are_references_to_full_names() {
        let f = facts();
        let names: Vec<&str> = f
            .refs
            .iter()
            .filter_map(|r| f.ref_names.get(r.name as usize))
            .collect();
        assert!(names.contains(&"Shop.Cart.Item.price/1"), "{names:?}");
        assert!(names.contains(&"Shop.Cart.Item"), "{names:?}");
    }
}
