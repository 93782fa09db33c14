//! Python: classes, functions and methods (with owners, decorators, docstrings), `import` and
//! `from … import`, call sites with receivers, and `x = C()` / `x: C` / `self.x = C()` bindings.

use tree_sitter::Node;

use super::{ReceiverSyntax, push_call, push_children};

use super::{
    doc_line, field, header_before_body, line, named_children, new_def, strip_generics, text,
};
use crate::facts::{
    AttrCall, Binding, CallBinding, Callee, FileFacts, Import, ImportedName, Receiver,
};
use crate::graph::NodeKind;

pub fn extract(root: Node, src: &[u8], facts: &mut FileFacts) {
    let mut cursor = root.walk();
    let mut stack: Vec<(Node, Option<u32>)> = vec![(root, None)];
    let mut returned: Vec<(u32, Returned)> = Vec::new();
    while let Some((node, scope)) = stack.pop() {
        match node.kind() {
            "return_statement" => {
                if let Some(def) = scope
                    && let Some(value) = returned_value(node, src)
                {
                    returned.push((def, value));
                }
            }
            "function_definition" | "class_definition" => {
                define(node, scope, Vec::new(), src, facts, &mut stack);
                continue;
            }
            "decorated_definition" => {
                let mut decorators = Vec::new();
                for child in named_children(node) {
                    if child.kind() == "decorator" {
                        decorators.push(decorator_name(child, src));
                        stack.push((child, scope));
                    }
                }
                if let Some(def) = field(node, "definition") {
                    define(def, scope, decorators, src, facts, &mut stack);
                }
                continue;
            }
            "call" => call(node, scope, src, facts),
            "assignment" => assignment(node, scope, src, facts),
            "import_statement" => {
                import(node, src, facts);
                continue;
            }
            "import_from_statement" => {
                import_from(node, src, facts);
                continue;
            }
            _ => {}
        }
        push_children(&mut cursor, node, scope, &mut stack);
    }
    infer_returns(&returned, facts);
}

/// What one `return` gives back.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Returned {
    /// A type: `return T(…)`, `return self` / `return cls(…)` / `return self.__class__(…)`
    /// (`Self`).
    Type(String),
    /// A local variable, whose type the resolver finds: `return clone`.
    Variable(String),
    /// Anything else.
    Unknown,
}

/// What one `return` gives back; `None` for a bare `return` or `return None`, which say nothing
/// about the type returned otherwise.
fn returned_value(node: Node, src: &[u8]) -> Option<Returned> {
    let value = named_children(node).into_iter().next()?;
    Some(match value.kind() {
        "none" => return None,
        "identifier" => match text(value, src) {
            "self" => Returned::Type("Self".to_owned()),
            name => Returned::Variable(name.to_owned()),
        },
        _ => constructed_type(value, src).map_or(Returned::Unknown, Returned::Type),
    })
}

/// A function without a declared return type returns the one type, or the one local variable,
/// all its `return`s give back.
fn infer_returns(returned: &[(u32, Returned)], facts: &mut FileFacts) {
    let mut seen: Vec<(u32, &Returned)> = Vec::new();
    for (def, value) in returned {
        match seen.iter_mut().find(|(d, _)| d == def) {
            Some((_, kept)) if *kept != value => *kept = &Returned::Unknown,
            Some(_) => {}
            None => seen.push((*def, value)),
        }
    }
    for (def, value) in seen {
        let Some(d) = facts.defs.get_mut(def as usize) else {
            continue;
        };
        if !d.returns.is_empty() || !d.kind.is_callable() {
            continue;
        }
        match value {
            Returned::Type(ty) => d.returns = ty.clone(),
            Returned::Variable(var) => d.returns_variable = var.clone(),
            Returned::Unknown => {}
        }
    }
}

fn define<'t>(
    node: Node<'t>,
    scope: Option<u32>,
    decorators: Vec<String>,
    src: &[u8],
    facts: &mut FileFacts,
    stack: &mut Vec<(Node<'t>, Option<u32>)>,
) {
    let Some(name) = field(node, "name").map(|n| text(n, src)) else {
        let mut cursor = node.walk();
        push_children(&mut cursor, node, scope, stack);
        return;
    };
    let is_class = node.kind() == "class_definition";
    let in_class = scope
        .and_then(|s| facts.defs.get(s as usize))
        .is_some_and(|d| d.kind == NodeKind::Class);
    let kind = match (is_class, in_class) {
        (true, _) => NodeKind::Class,
        (false, true) => NodeKind::Method,
        (false, false) => NodeKind::Function,
    };
    let body = field(node, "body");
    let mut def = new_def(facts, kind, name, scope, node);
    def.signature = header_before_body(node, body, src);
    def.doc = body.and_then(|b| docstring(b, src)).unwrap_or_default();
    def.exported = !name.starts_with('_') || (name.starts_with("__") && name.ends_with("__"));
    def.decorators = decorators;
    def.conditional = in_branch(node);
    if !is_class {
        def.returns = field(node, "return_type")
            .and_then(|t| type_name(t, src))
            .unwrap_or_default();
    }
    if is_class && let Some(bases) = field(node, "superclasses") {
        for base in named_children(bases) {
            if matches!(base.kind(), "identifier" | "attribute" | "subscript") {
                def.extends.push(strip_generics(text(base, src)));
            }
        }
    }
    let idx = facts.defs.len() as u32;
    facts.defs.push(def);
    if let Some(params) = field(node, "parameters") {
        parameters(params, idx, src, facts);
        // Defaults are evaluated where the function is defined.
        stack.push((params, scope));
    }
    if let Some(bases) = field(node, "superclasses") {
        stack.push((bases, scope));
    }
    if let Some(body) = body {
        stack.push((body, Some(idx)));
    }
}

/// Whether a definition sits in a branch of an `if`, `try` or `with` rather than directly in
/// its module, class or function body.
fn in_branch(node: Node) -> bool {
    let mut at = node;
    while let Some(parent) = at.parent() {
        match parent.kind() {
            "decorated_definition" | "block" => at = parent,
            "if_statement" | "elif_clause" | "else_clause" | "try_statement" | "except_clause"
            | "finally_clause" | "with_statement" => return true,
            _ => return false,
        }
    }
    false
}

fn decorator_name(decorator: Node, src: &[u8]) -> String {
    let expr = named_children(decorator).into_iter().next();
    let expr = match expr {
        Some(e) if e.kind() == "call" => field(e, "function").unwrap_or(e),
        Some(e) => e,
        None => return String::new(),
    };
    text(expr, src).to_owned()
}

fn docstring(body: Node, src: &[u8]) -> Option<String> {
    let first = named_children(body).into_iter().next()?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = named_children(first).into_iter().next()?;
    (string.kind() == "string").then(|| doc_line(text(string, src)))
}

fn parameters(params: Node, def: u32, src: &[u8], facts: &mut FileFacts) {
    for param in named_children(params) {
        if !matches!(param.kind(), "typed_parameter" | "typed_default_parameter") {
            continue;
        }
        let name = field(param, "name").or_else(|| {
            named_children(param)
                .into_iter()
                .find(|c| c.kind() == "identifier")
        });
        if let (Some(name), Some(ty)) = (name, field(param, "type"))
            && let Some(type_name) = type_name(ty, src)
        {
            facts.bindings.push(Binding {
                scope: Some(def),
                var: text(name, src).to_owned(),
                type_name,
            });
        }
    }
}

/// A usable class name from an annotation: `Cart`, `models.Cart`, `Optional[Cart]` → `Cart`.
fn type_name(ty: Node, src: &[u8]) -> Option<String> {
    let raw = text(ty, src).trim().trim_matches(|c| c == '"' || c == '\'');
    let inner = raw
        .strip_prefix("Optional[")
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or(raw);
    let name = strip_generics(inner.split('|').next().unwrap_or(inner));
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    valid.then_some(name)
}

/// Python's receivers: `self`/`cls` by convention, `a.b` attributes.
const RECEIVERS: ReceiverSyntax = ReceiverSyntax {
    self_kinds: &[],
    self_names: &["self", "cls"],
    super_kinds: &[],
    members: &[("attribute", "object", "attribute")],
    leaves: &["identifier"],
};

/// The shared classification, plus what a call makes: `super()`, `super(Base, self)`, `C()`.
fn receiver(object: Node, src: &[u8]) -> Receiver {
    match object.kind() {
        "call" => match field(object, "function") {
            Some(f) if f.kind() == "identifier" && text(f, src) == "super" => {
                // `super(Base, self)` starts the search above `Base`, not above the caller's class.
                let first = field(object, "arguments")
                    .and_then(|a| named_children(a).into_iter().next())
                    .filter(|a| is_dotted(*a));
                match first {
                    Some(base) => Receiver::SuperOf(text(base, src).to_owned()),
                    None => Receiver::Super,
                }
            }
            Some(f) if is_dotted(f) => Receiver::Call(text(f, src).to_owned()),
            _ => Receiver::Other,
        },
        _ => RECEIVERS.receiver(object, src),
    }
}

fn is_dotted(node: Node) -> bool {
    RECEIVERS.is_dotted(node)
}

/// What a call expression calls: `f(…)` or `recv.f(…)`.
fn callee_of(call: Node, src: &[u8]) -> Option<Callee> {
    let function = field(call, "function")?;
    RECEIVERS.callee(function, src, |object| receiver(object, src))
}

fn call(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    if let Some(callee) = callee_of(node, src) {
        push_call(facts, scope, callee, node);
    }
}

/// The class a constructor-looking call builds: `Cart(...)`, `shop.Cart(...)`.
fn constructed_type(value: Node, src: &[u8]) -> Option<String> {
    // `given or Default()`: what is given, else a new `Default`.
    if value.kind() == "boolean_operator"
        && field(value, "operator").is_some_and(|o| text(o, src) == "or")
    {
        return constructed_type(field(value, "right")?, src);
    }
    if value.kind() != "call" {
        return None;
    }
    let function = field(value, "function")?;
    // `cls(…)`, `self.__class__(…)`, `type(self)(…)`: the class of the method's receiver.
    if matches!(text(function, src), "cls" | "self.__class__" | "type(self)") {
        return Some("Self".to_owned());
    }
    if !matches!(function.kind(), "identifier" | "attribute") || !is_dotted(function) {
        return None;
    }
    let name = text(function, src);
    let last = name.rsplit('.').next()?;
    last.starts_with(|c: char| c.is_uppercase())
        .then(|| name.to_owned())
}

/// A class written as a value: `Form`, `forms.Form` (a capitalised last part).
fn class_name(value: Node, src: &[u8]) -> Option<String> {
    if !matches!(value.kind(), "identifier" | "attribute") || !is_dotted(value) {
        return None;
    }
    let name = text(value, src);
    name.rsplit('.')
        .next()?
        .starts_with(|c: char| c.is_uppercase())
        .then(|| name.to_owned())
}

fn assignment(node: Node, scope: Option<u32>, src: &[u8], facts: &mut FileFacts) {
    let Some(left) = field(node, "left") else {
        return;
    };
    let declared = field(node, "type").and_then(|t| type_name(t, src));
    let right = field(node, "right").map(|r| match r.kind() {
        "await" => named_children(r).into_iter().next().unwrap_or(r),
        _ => r,
    });
    let ty = declared
        .or_else(|| right.and_then(|r| constructed_type(r, src)))
        .or_else(|| {
            // `self.app = app` where `app: Sphinx` is a parameter of the method: the
            // attribute holds what the parameter is declared as.
            let r = right.filter(|r| r.kind() == "identifier")?;
            (left.kind() == "attribute")
                .then(|| parameter_type(facts, scope?, text(r, src)))
                .flatten()
        });
    let class_body = scope.filter(|s| {
        facts
            .defs
            .get(*s as usize)
            .is_some_and(|d| d.kind == NodeKind::Class)
    });
    // `form_class = forms.Form` in a class body: the attribute holds a class, and
    // `self.form_class(…)` constructs one (written `type[forms.Form]`, as Python's typing does).
    if let (Some(class), None, Some(value)) = (class_body, &ty, right)
        && left.kind() == "identifier"
        && let Some(held) = class_name(value, src)
    {
        facts
            .attr_bindings
            .push((class, text(left, src).to_owned(), format!("type[{held}]")));
        return;
    }
    let Some(type_name) = ty else {
        let Some(callee) = right
            .filter(|r| r.kind() == "call")
            .and_then(|r| callee_of(r, src))
        else {
            return;
        };
        if left.kind() == "identifier" {
            facts.call_bindings.push(CallBinding {
                scope,
                var: text(left, src).to_owned(),
                callee,
            });
        } else if left.kind() == "attribute"
            && field(left, "object").is_some_and(|o| text(o, src) == "self")
            && let Some(attr) = field(left, "attribute")
            && let Some(method) = scope
            && let Some(class) = facts.owner_class(method)
        {
            // `self.builder = self.create_builder(name)`: what the call returns.
            facts.attr_calls.push(AttrCall {
                class,
                attr: text(attr, src).to_owned(),
                scope: method,
                callee,
            });
        }
        return;
    };
    match left.kind() {
        "identifier" => {
            // `objects = Manager()` in a class body is also an attribute of its instances.
            if let Some(class) = class_body {
                facts
                    .attr_bindings
                    .push((class, text(left, src).to_owned(), type_name.clone()));
            }
            facts.bindings.push(Binding {
                scope,
                var: text(left, src).to_owned(),
                type_name,
            });
        }
        "attribute" => {
            let object = field(left, "object").map(|o| text(o, src));
            let attr = field(left, "attribute").map(|a| text(a, src).to_owned());
            if let (Some("self"), Some(attr), Some(method)) = (object, attr, scope)
                && let Some(class) = facts.owner_class(method)
            {
                facts.attr_bindings.push((class, attr, type_name));
            }
        }
        _ => {}
    }
}

/// The declared type of parameter `name` of function `def`, when it has one.
fn parameter_type(facts: &FileFacts, def: u32, name: &str) -> Option<String> {
    facts
        .bindings
        .iter()
        .rev()
        .find(|b| b.scope == Some(def) && b.var == name)
        .map(|b| b.type_name.clone())
}

fn dotted_or_alias(node: Node, src: &[u8]) -> ImportedName {
    if node.kind() == "aliased_import" {
        ImportedName {
            name: field(node, "name")
                .map(|n| text(n, src))
                .unwrap_or("")
                .to_owned(),
            alias: field(node, "alias").map(|a| text(a, src).to_owned()),
        }
    } else {
        ImportedName {
            name: text(node, src).to_owned(),
            alias: None,
        }
    }
}

fn import(node: Node, src: &[u8], facts: &mut FileFacts) {
    let mut cursor = node.walk();
    for name in node.children_by_field_name("name", &mut cursor) {
        let imported = dotted_or_alias(name, src);
        facts.imports.push(Import {
            module: imported.name,
            names: Vec::new(),
            module_alias: imported.alias,
            wildcard: false,
            reexport: false,
            line: line(node),
        });
    }
}

fn import_from(node: Node, src: &[u8], facts: &mut FileFacts) {
    let module = field(node, "module_name")
        .map(|m| text(m, src))
        .unwrap_or("");
    let mut cursor = node.walk();
    let names: Vec<ImportedName> = node
        .children_by_field_name("name", &mut cursor)
        .map(|n| dotted_or_alias(n, src))
        .collect();
    let wildcard = named_children(node)
        .iter()
        .any(|c| c.kind() == "wildcard_import");
    facts.imports.push(Import {
        module: module.to_owned(),
        names,
        module_alias: None,
        wildcard,
        reexport: false,
        line: line(node),
    });
}

#[cfg(test)]
mod tests {
    use crate::extract::Extractor;
    use crate::facts::*;
    use crate::graph::NodeKind;
    use crate::lang::Lang;

    #[test]
    fn a_long_run_of_comments_inside_a_class_keeps_its_methods_and_lines() {
        let mut text = String::from("class A:\n    def f(self):\n        pass\n");
        text.push_str(&"    # commented out, line after line\n".repeat(3000));
        text.push_str("    def g(self):\n        \"\"\"Doc of g.\"\"\"\n        return self.f()\n");
        let facts = Extractor::default().extract("a.py", Lang::Python, &text);
        let defs: Vec<(&str, &str, u32)> = facts
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.doc.as_str(), d.start_line))
            .collect();
        assert_eq!(
            defs,
            vec![("A", "", 1), ("A.f", "", 2), ("A.g", "Doc of g.", 3004)]
        );
        assert_eq!(facts.syntax_errors, 0);
    }

    const SOURCE: &str = r#"
import os.path
import numpy as np
from ..utils import helper, other as alias
from . import sibling
from pkg.mod import *

class Cart(Base, models.Model, Generic[T]):
    """A shopping cart.

    Holds items."""

    def __init__(self, owner: "User"):
        self.payments = PaymentGateway()
        self.items = []

    @property
    def total(self) -> int:
        return sum(i.price for i in self.items)

    @app.route("/checkout")
    def checkout(self, gateway: Optional[Gateway] = None):
        cart = Cart(self.owner)
        cart.total()
        self.payments.charge(self.total)
        super().save()
        helper(np.array([1]))
        os.path.join("a", "b")
        def inner():
            return validate()
        return inner()

def _private(x):
    return x

result = Cart(None).checkout()
"#;

    fn facts() -> FileFacts {
        Extractor::default().extract("shop/cart.py", Lang::Python, SOURCE)
    }

    #[test]
    fn definitions_with_owners_docs_and_signatures() {
        let f = facts();
        let names: Vec<(&str, NodeKind)> = f
            .defs
            .iter()
            .map(|d| (d.qualified.as_str(), d.kind))
            .collect();
        assert_eq!(
            names,
            [
                ("Cart", NodeKind::Class),
                ("Cart.__init__", NodeKind::Method),
                ("Cart.total", NodeKind::Method),
                ("Cart.checkout", NodeKind::Method),
                ("Cart.checkout.inner", NodeKind::Function),
                ("_private", NodeKind::Function),
            ]
        );
        let cart = &f.defs[0];
        assert_eq!(cart.doc, "A shopping cart.");
        assert_eq!(cart.extends, ["Base", "models.Model", "Generic"]);
        assert_eq!((cart.start_line, cart.end_line), (8, 31));
        assert_eq!(
            f.defs[3].signature,
            "def checkout(self, gateway: Optional[Gateway] = None)"
        );
        assert_eq!(f.defs[3].decorators, ["app.route"]);
        assert_eq!(f.defs[2].decorators, ["property"]);
        assert!(!f.defs[5].exported && f.defs[1].exported);
        assert_eq!(f.syntax_errors, 0);
    }

    #[test]
    fn imports_in_all_forms() {
        let f = facts();
        let summary: Vec<(String, Vec<String>, Option<String>, bool)> = f
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.clone(),
                    i.names.iter().map(|n| n.local().to_owned()).collect(),
                    i.module_alias.clone(),
                    i.wildcard,
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("os.path".into(), vec![], None, false),
                ("numpy".into(), vec![], Some("np".into()), false),
                (
                    "..utils".into(),
                    vec!["helper".into(), "alias".into()],
                    None,
                    false
                ),
                (".".into(), vec!["sibling".into()], None, false),
                ("pkg.mod".into(), vec![], None, true),
            ]
        );
        assert_eq!(f.imports[2].names[1].name, "other");
    }

    #[test]
    fn calls_know_their_caller_and_receiver() {
        let f = facts();
        let checkout = Some(3);
        let calls: Vec<(Option<u32>, Callee)> = f
            .calls
            .iter()
            .map(|c| (c.caller, c.callee.clone()))
            .collect();
        let member = |r: Receiver, n: &str| Callee::Member {
            receiver: r,
            name: n.into(),
        };
        for expected in [
            (checkout, Callee::Name("Cart".into())),
            (checkout, member(Receiver::Name("cart".into()), "total")),
            (
                checkout,
                member(Receiver::Path("self.payments".into()), "charge"),
            ),
            (checkout, member(Receiver::Super, "save")),
            (checkout, Callee::Name("helper".into())),
            (checkout, member(Receiver::Name("np".into()), "array")),
            (checkout, member(Receiver::Path("os.path".into()), "join")),
            (Some(4), Callee::Name("validate".into())),
            (checkout, Callee::Name("inner".into())),
            (None, member(Receiver::Call("Cart".into()), "checkout")),
            (None, Callee::Name("Cart".into())),
        ] {
            assert!(
                calls.contains(&expected),
                "missing {expected:?} in {calls:#?}"
            );
        }
    }

    #[test]
    fn bindings_from_constructors_annotations_and_self_attributes() {
        let f = facts();
        let has = |scope: Option<u32>, var: &str, ty: &str| {
            f.bindings.contains(&Binding {
                scope,
                var: var.into(),
                type_name: ty.into(),
            })
        };
        assert!(has(Some(3), "cart", "Cart"));
        assert!(has(Some(3), "gateway", "Gateway"));
        assert!(has(Some(1), "owner", "User"));
        assert!(!has(None, "result", "Cart"));
        assert_eq!(
            f.attr_bindings,
            [(0, "payments".to_owned(), "PaymentGateway".to_owned())]
        );
    }

    #[test]
    fn attributes_take_types_from_any_method_class_annotations_and_typed_parameters() {
        let source = "class Reader:\n    builder: Builder\n    env: 'Env' = None\n\n    def setup(self, app: App, n: int, untyped):\n        self.app = app\n        self.raw = untyped\n\n    def later(self):\n        self.cache = Cache()\n";
        let f = Extractor::default().extract("reader.py", Lang::Python, source);
        let attrs: Vec<(&str, &str)> = f
            .attr_bindings
            .iter()
            .map(|(_, a, t)| (a.as_str(), t.as_str()))
            .collect();
        assert_eq!(
            attrs,
            [
                ("builder", "Builder"),
                ("env", "Env"),
                ("app", "App"),
                ("cache", "Cache")
            ]
        );
    }

    #[test]
    fn syntax_errors_keep_what_parses() {
        let f = Extractor::default().extract(
            "bad.py",
            Lang::Python,
            "def ok():\n    pass\n\ndef broken(:\n",
        );
        assert!(f.syntax_errors > 0);
        assert!(f.defs.iter().any(|d| d.name == "ok"));
    }
}
