//! Evaluation of compiled expressions (`ir::CExpr`: variables resolved to row slots, properties
//! to schema fields, parameters to constants) over one row, with Cypher's null logic.

use super::ast::BinaryOp;
use super::ir::{Binding, CExpr, ScalarFn};
use super::schema::RelProp;
use super::value::{Value, compare, equals};
use crate::graph::Graph;

impl CExpr {
    /// Adds the row slots the expression reads to `out`.
    pub fn slots(&self, out: &mut Vec<usize>) {
        match self {
            CExpr::Const(_) => {}
            CExpr::NodeRef(s)
            | CExpr::EdgeRef(s)
            | CExpr::NodeProp(s, _)
            | CExpr::EdgeProp(s, _)
            | CExpr::Labels(s)
            | CExpr::HasKinds(s, _) => out.push(*s),
            CExpr::List(items) | CExpr::And(items) | CExpr::Or(items) | CExpr::Xor(items) => {
                items.iter().for_each(|e| e.slots(out));
            }
            CExpr::Not(e) | CExpr::Regex(e, _) | CExpr::IsNull(e, _) | CExpr::Scalar(_, e) => {
                e.slots(out)
            }
            CExpr::Binary(_, a, b) => {
                a.slots(out);
                b.slots(out);
            }
        }
    }
}

fn boolean(b: Option<bool>) -> Value {
    b.map_or(Value::Null, Value::Bool)
}

/// Whether a condition holds: `None` when it is null (or not a boolean).
pub(super) fn truth(expr: &CExpr, graph: &Graph, row: &[Binding]) -> Option<bool> {
    match eval(expr, graph, row) {
        Value::Bool(b) => Some(b),
        _ => None,
    }
}

/// Whether `expr` is null, without building the ids of bound variables.
pub(super) fn is_null(expr: &CExpr, graph: &Graph, row: &[Binding]) -> bool {
    match expr {
        CExpr::NodeRef(s) => {
            !matches!(row.get(*s), Some(Binding::Node(n)) if graph.node(*n).is_some())
        }
        CExpr::EdgeRef(s) => !matches!(row.get(*s), Some(Binding::Edge(_) | Binding::Path(_))),
        _ => eval(expr, graph, row).is_null(),
    }
}

pub(super) fn eval(expr: &CExpr, graph: &Graph, row: &[Binding]) -> Value {
    let node = |slot: &usize| match row.get(*slot) {
        Some(Binding::Node(n)) => graph.node(*n),
        _ => None,
    };
    match expr {
        CExpr::Const(v) => v.clone(),
        CExpr::NodeRef(s) => node(s).map_or(Value::Null, |n| Value::Str(n.stable_id())),
        CExpr::NodeProp(s, prop) => node(s).map_or(Value::Null, |n| prop.read(n)),
        CExpr::Labels(s) => node(s).map_or(Value::Null, |n| {
            Value::List(vec![Value::Str(n.kind().as_str().to_owned())])
        }),
        CExpr::HasKinds(s, kinds) => {
            node(s).map_or(Value::Null, |n| Value::Bool(kinds.contains(n.kind())))
        }
        CExpr::EdgeRef(s) => match row.get(*s) {
            Some(Binding::Edge(e)) => RelProp::Type.read(e),
            Some(Binding::Path(edges)) => {
                Value::List(edges.iter().map(|e| RelProp::Type.read(e)).collect())
            }
            _ => Value::Null,
        },
        CExpr::EdgeProp(s, prop) => match row.get(*s) {
            Some(Binding::Edge(e)) => prop.read(e),
            _ => Value::Null,
        },
        CExpr::List(items) => Value::List(items.iter().map(|e| eval(e, graph, row)).collect()),
        CExpr::Not(e) => boolean(truth(e, graph, row).map(|b| !b)),
        CExpr::And(items) => {
            let mut unknown = false;
            for item in items {
                match truth(item, graph, row) {
                    Some(false) => return Value::Bool(false),
                    None => unknown = true,
                    Some(true) => {}
                }
            }
            boolean((!unknown).then_some(true))
        }
        CExpr::Or(items) => {
            let mut unknown = false;
            for item in items {
                match truth(item, graph, row) {
                    Some(true) => return Value::Bool(true),
                    None => unknown = true,
                    Some(false) => {}
                }
            }
            boolean((!unknown).then_some(false))
        }
        CExpr::Xor(items) => boolean(
            items
                .iter()
                .try_fold(false, |acc, item| truth(item, graph, row).map(|b| acc ^ b)),
        ),
        CExpr::Binary(op, a, b) => binary(*op, &eval(a, graph, row), &eval(b, graph, row)),
        CExpr::Regex(e, regex) => match eval(e, graph, row) {
            Value::Str(s) => Value::Bool(regex.is_match(&s)),
            _ => Value::Null,
        },
        CExpr::IsNull(e, negated) => Value::Bool(is_null(e, graph, row) != *negated),
        CExpr::Scalar(f, e) => scalar(*f, eval(e, graph, row)),
    }
}

fn binary(op: BinaryOp, a: &Value, b: &Value) -> Value {
    let ordered = |test: fn(std::cmp::Ordering) -> bool| boolean(compare(a, b).map(test));
    match op {
        BinaryOp::Eq => boolean(equals(a, b)),
        BinaryOp::Ne => boolean(equals(a, b).map(|e| !e)),
        BinaryOp::Lt => ordered(|o| o.is_lt()),
        BinaryOp::Le => ordered(|o| o.is_le()),
        BinaryOp::Gt => ordered(|o| o.is_gt()),
        BinaryOp::Ge => ordered(|o| o.is_ge()),
        BinaryOp::Contains | BinaryOp::StartsWith | BinaryOp::EndsWith => {
            match (a.as_str(), b.as_str()) {
                (Some(s), Some(t)) => Value::Bool(match op {
                    BinaryOp::Contains => s.contains(t),
                    BinaryOp::StartsWith => s.starts_with(t),
                    _ => s.ends_with(t),
                }),
                _ => Value::Null,
            }
        }
        BinaryOp::In => match b {
            Value::List(items) => {
                let mut unknown = false;
                for item in items {
                    match equals(a, item) {
                        Some(true) => return Value::Bool(true),
                        None => unknown = true,
                        Some(false) => {}
                    }
                }
                boolean((!unknown).then_some(false))
            }
            _ => Value::Null,
        },
    }
}

fn scalar(f: ScalarFn, v: Value) -> Value {
    match (f, v) {
        (ScalarFn::ToLower, Value::Str(s)) => Value::Str(s.to_lowercase()),
        (ScalarFn::ToUpper, Value::Str(s)) => Value::Str(s.to_uppercase()),
        (ScalarFn::Size, Value::Str(s)) => Value::Int(s.chars().count() as i64),
        (ScalarFn::Size, Value::List(items)) => Value::Int(items.len() as i64),
        _ => Value::Null,
    }
}
