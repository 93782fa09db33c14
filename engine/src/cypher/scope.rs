//! Variables in scope and expressions compiled against them: variables become row slots,
//! properties schema fields, parameters constants, and `=~` patterns compiled regexes.

use regex_lite::{Regex, RegexBuilder};
use serde_json::Map;

use super::ast::{Expr, ExprKind, Name};
use super::error::CypherError;
use super::ir::{AggFn, CExpr, ScalarFn};
use super::schema::{self, KindSet, NodeProp, RelProp};
use super::value::Value;

const FUNCTIONS: &str = "count, collect, min, max, sum, avg (each a whole RETURN item), labels, type, id, toLower, toUpper, size";
const REGEX_SIZE_LIMIT: usize = 1 << 20;
const REGEX_NEST_LIMIT: u32 = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SlotKind {
    Node,
    Rel,
    /// A variable-length relationship: a list of relationships.
    Path,
}

struct Slot {
    name: Option<String>,
    kind: SlotKind,
}

/// The variables of a query so far, and its parameters.
pub(super) struct Scope<'p> {
    slots: Vec<Slot>,
    params: &'p Map<String, serde_json::Value>,
}

impl<'p> Scope<'p> {
    pub fn new(params: &'p Map<String, serde_json::Value>) -> Self {
        Scope {
            slots: Vec::new(),
            params,
        }
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Named variables with their slots and kinds, in order of appearance.
    pub fn named(&self) -> impl Iterator<Item = (usize, &str, SlotKind)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.name.as_deref().map(|n| (i, n, s.kind)))
    }

    /// The slot and kind of a named variable.
    pub fn lookup(&self, name: &str) -> Option<(usize, SlotKind)> {
        self.named()
            .find(|(_, n, _)| *n == name)
            .map(|(slot, _, kind)| (slot, kind))
    }

    pub fn declare(&mut self, name: Option<&str>, kind: SlotKind) -> usize {
        self.slots.push(Slot {
            name: name.map(str::to_owned),
            kind,
        });
        self.slots.len() - 1
    }

    pub fn variable(&self, name: &str, pos: usize) -> Result<(usize, SlotKind), CypherError> {
        if let Some(found) = self.lookup(name) {
            return Ok(found);
        }
        let known: Vec<&str> = self.named().map(|(_, n, _)| n).collect();
        Err(CypherError::at(
            pos,
            if known.is_empty() {
                format!(
                    "unknown variable {name}; no variables are defined (name them in MATCH, e.g. MATCH (a))"
                )
            } else {
                format!("unknown variable {name}; variables: {}", known.join(", "))
            },
        ))
    }

    fn param(&self, name: &str, pos: usize) -> Result<Value, CypherError> {
        let Some(json) = self.params.get(name) else {
            let supplied: Vec<&str> = self.params.keys().map(String::as_str).collect();
            return Err(CypherError::at(
                pos,
                if supplied.is_empty() {
                    format!("missing parameter ${name}; no parameters were supplied")
                } else {
                    format!(
                        "missing parameter ${name}; supplied: {}",
                        supplied.join(", ")
                    )
                },
            ));
        };
        Value::from_json(json).map_err(|m| CypherError::at(pos, format!("parameter ${name}: {m}")))
    }

    pub fn expr(&mut self, e: &Expr) -> Result<CExpr, CypherError> {
        let all = |this: &mut Self, items: &[Expr]| {
            items
                .iter()
                .map(|i| this.expr(i))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(match &e.kind {
            ExprKind::Literal(v) => CExpr::Const(v.clone()),
            ExprKind::Param(name) => CExpr::Const(self.param(name, e.pos)?),
            ExprKind::Var(name) => match self.variable(name, e.pos)? {
                (slot, SlotKind::Node) => CExpr::NodeRef(slot),
                (slot, SlotKind::Rel | SlotKind::Path) => CExpr::EdgeRef(slot),
            },
            ExprKind::Property(var, key) => match self.variable(var, e.pos)? {
                (slot, SlotKind::Node) => CExpr::NodeProp(
                    slot,
                    NodeProp::parse(&key.text).map_err(|m| CypherError::at(key.pos, m))?,
                ),
                (slot, SlotKind::Rel) => CExpr::EdgeProp(
                    slot,
                    RelProp::parse(&key.text).map_err(|m| CypherError::at(key.pos, m))?,
                ),
                (_, SlotKind::Path) => {
                    return Err(CypherError::at(
                        e.pos,
                        format!(
                            "{var} is a variable-length relationship (a list); its properties cannot be read — use a single hop, or RETURN {var} for its types"
                        ),
                    ));
                }
            },
            ExprKind::List(items) => {
                let items = all(self, items)?;
                let constants: Option<Vec<Value>> = items
                    .iter()
                    .map(|i| match i {
                        CExpr::Const(v) => Some(v.clone()),
                        _ => None,
                    })
                    .collect();
                match constants {
                    Some(values) => CExpr::Const(Value::List(values)),
                    None => CExpr::List(items),
                }
            }
            ExprKind::Not(inner) => CExpr::Not(Box::new(self.expr(inner)?)),
            ExprKind::And(items) => CExpr::And(all(self, items)?),
            ExprKind::Or(items) => CExpr::Or(all(self, items)?),
            ExprKind::Xor(items) => CExpr::Xor(all(self, items)?),
            ExprKind::Binary(op, a, b) => {
                CExpr::Binary(*op, Box::new(self.expr(a)?), Box::new(self.expr(b)?))
            }
            ExprKind::Regex(subject, pattern) => {
                let subject = self.expr(subject)?;
                match self.expr(pattern)? {
                    CExpr::Const(Value::Str(p)) => {
                        CExpr::Regex(Box::new(subject), regex(&p, pattern.pos)?)
                    }
                    CExpr::Const(Value::Null) => CExpr::Const(Value::Null),
                    _ => {
                        return Err(CypherError::at(
                            pattern.pos,
                            "=~ takes a string literal or parameter as its pattern",
                        ));
                    }
                }
            }
            ExprKind::IsNull(inner, negated) => {
                CExpr::IsNull(Box::new(self.expr(inner)?), *negated)
            }
            ExprKind::HasLabels(var, names) => match self.variable(var, e.pos)? {
                (slot, SlotKind::Node) => CExpr::HasKinds(slot, labels(names)?),
                _ => {
                    return Err(CypherError::at(
                        e.pos,
                        format!("{var} is a relationship; label tests apply to nodes"),
                    ));
                }
            },
            ExprKind::Call {
                name,
                distinct,
                args,
            } => self.call(name, *distinct, args)?,
            ExprKind::CountStar => return Err(misplaced_aggregate("count", e.pos)),
        })
    }

    fn call(&mut self, name: &Name, distinct: bool, args: &[Expr]) -> Result<CExpr, CypherError> {
        let function = name.text.to_ascii_lowercase();
        if AggFn::parse(&function).is_some() {
            return Err(misplaced_aggregate(&name.text, name.pos));
        }
        let known = ["labels", "type", "id", "tolower", "toupper", "size"];
        if !known.contains(&function.as_str()) {
            return Err(CypherError::at(
                name.pos,
                format!("unknown function {}; supported: {FUNCTIONS}", name.text),
            ));
        }
        if distinct {
            return Err(CypherError::at(
                name.pos,
                "DISTINCT is allowed only inside aggregate functions",
            ));
        }
        let [arg] = args else {
            return Err(CypherError::at(
                name.pos,
                format!("{}() takes one argument", name.text),
            ));
        };
        let scalar = match function.as_str() {
            "tolower" => Some(ScalarFn::ToLower),
            "toupper" => Some(ScalarFn::ToUpper),
            "size" => Some(ScalarFn::Size),
            _ => None,
        };
        if let Some(f) = scalar {
            return Ok(CExpr::Scalar(f, Box::new(self.expr(arg)?)));
        }
        let not_applicable = || {
            CypherError::at(
                arg.pos,
                format!(
                    "{}() does not apply here: labels() and id() take a node variable, type() a single-hop relationship variable",
                    name.text
                ),
            )
        };
        let ExprKind::Var(var) = &arg.kind else {
            return Err(not_applicable());
        };
        match (function.as_str(), self.variable(var, arg.pos)?) {
            ("labels", (slot, SlotKind::Node)) => Ok(CExpr::Labels(slot)),
            ("id", (slot, SlotKind::Node)) => Ok(CExpr::NodeProp(slot, NodeProp::Id)),
            ("type", (slot, SlotKind::Rel)) => Ok(CExpr::EdgeProp(slot, RelProp::Type)),
            _ => Err(not_applicable()),
        }
    }
}

pub(super) fn labels(names: &[Name]) -> Result<KindSet, CypherError> {
    if names.is_empty() {
        return Ok(KindSet::ANY);
    }
    let kinds = names
        .iter()
        .map(|l| schema::label(&l.text).map_err(|m| CypherError::at(l.pos, m)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(KindSet::of(&kinds))
}

fn misplaced_aggregate(name: &str, pos: usize) -> CypherError {
    CypherError::at(
        pos,
        format!("{name}() must be a whole RETURN item, e.g. RETURN a.name, count(*) AS n"),
    )
}

/// Compiles `pattern` to match whole strings, as Cypher's `=~` does.
fn regex(pattern: &str, pos: usize) -> Result<Regex, CypherError> {
    let build = |p: &str| {
        RegexBuilder::new(p)
            .size_limit(REGEX_SIZE_LIMIT)
            .nest_limit(REGEX_NEST_LIMIT)
            .build()
            .map_err(|e| {
                CypherError::at(pos, format!("invalid regular expression '{pattern}': {e}"))
            })
    };
    build(pattern)?;
    build(&format!("^(?:{pattern})$"))
}
