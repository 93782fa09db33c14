//! Values a query computes and returns, with Cypher's comparison rules (null-aware equality,
//! ordering within a type, a total order for ORDER BY) and conversion to and from JSON.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// One cell of a result. Nodes are returned as their stable id, relationships as their type.
#[derive(Debug, Clone)]
pub enum Value {
    /// `null`, also a missing property.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A string.
    Str(String),
    /// A list (`collect`, `labels`).
    List(Vec<Value>),
}

impl Value {
    /// The value as JSON, for answers.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(n) => serde_json::Value::from(*n),
            Value::Float(x) => serde_json::Number::from_f64(*x)
                .map_or(serde_json::Value::Null, serde_json::Value::Number),
            Value::Str(s) => serde_json::Value::String(s.clone()),
            Value::List(items) => {
                serde_json::Value::Array(items.iter().map(Value::to_json).collect())
            }
        }
    }

    /// A parameter value; maps are not supported.
    pub(super) fn from_json(json: &serde_json::Value) -> Result<Value, String> {
        Ok(match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(s) => Value::Str(s.clone()),
            serde_json::Value::Array(items) => Value::List(
                items
                    .iter()
                    .map(Value::from_json)
                    .collect::<Result<_, _>>()?,
            ),
            serde_json::Value::Object(_) => {
                return Err("map values are not supported as parameters".to_owned());
            }
        })
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(n) => Some(*n as f64),
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }

    /// Rank of the type in ORDER BY: lists, strings, booleans, numbers, then null.
    fn type_rank(&self) -> u8 {
        match self {
            Value::List(_) => 0,
            Value::Str(_) => 1,
            Value::Bool(_) => 2,
            Value::Int(_) | Value::Float(_) => 3,
            Value::Null => 4,
        }
    }
}

/// Cypher `=`: `None` when null makes the answer unknown.
pub(super) fn equals(a: &Value, b: &Value) -> Option<bool> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::List(x), Value::List(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            let mut unknown = false;
            for (p, q) in x.iter().zip(y) {
                match equals(p, q) {
                    Some(false) => return Some(false),
                    None => unknown = true,
                    Some(true) => {}
                }
            }
            if unknown { None } else { Some(true) }
        }
        (Value::Int(x), Value::Int(y)) => Some(x == y),
        (Value::Bool(x), Value::Bool(y)) => Some(x == y),
        (Value::Str(x), Value::Str(y)) => Some(x == y),
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => Some(x == y),
            _ => Some(false),
        },
    }
}

/// Cypher `<` and friends: `None` for null or values of different types.
pub(super) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    }
}

/// The total order of ORDER BY: by type rank, then by value; null sorts last ascending.
/// Numbers order by value, then integers before floats, then exactly, so the order stays total
/// where large integers and floats round to the same value.
pub(super) fn sort_order(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::List(x), Value::List(y)) => x
            .iter()
            .zip(y)
            .map(|(p, q)| sort_order(p, q))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| x.len().cmp(&y.len())),
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
            let exact = |v: &Value| match v {
                Value::Int(n) => (0, *n),
                _ => (1, 0),
            };
            let number = |v: &Value| v.as_f64().unwrap_or(0.0);
            number(a)
                .total_cmp(&number(b))
                .then_with(|| exact(a).cmp(&exact(b)))
        }
        _ => compare(a, b).unwrap_or_else(|| a.type_rank().cmp(&b.type_rank())),
    }
}

/// Structural equality (floats by bits), for DISTINCT and grouping.
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a), Value::List(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.type_rank().hash(state);
        match self {
            Value::Null => {}
            Value::Bool(b) => b.hash(state),
            Value::Int(n) => n.hash(state),
            Value::Float(x) => x.to_bits().hash(state),
            Value::Str(s) => s.hash(state),
            Value::List(items) => items.hash(state),
        }
    }
}

/// Plain text for tables: strings unquoted, lists in brackets, null as `null`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Str(s) => f.write_str(s),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::Str(text.into())
    }

    #[test]
    fn equality_is_null_aware_and_numeric_across_types() {
        assert_eq!(equals(&Value::Int(1), &Value::Float(1.0)), Some(true));
        assert_eq!(equals(&s("a"), &Value::Null), None);
        assert_eq!(equals(&s("a"), &Value::Int(1)), Some(false));
        let list = |v: Vec<Value>| Value::List(v);
        assert_eq!(
            equals(
                &list(vec![s("a"), Value::Null]),
                &list(vec![s("b"), Value::Null])
            ),
            Some(false)
        );
        assert_eq!(
            equals(
                &list(vec![s("a"), Value::Null]),
                &list(vec![s("a"), Value::Null])
            ),
            None
        );
    }

    #[test]
    fn comparison_and_sort_order() {
        assert_eq!(
            compare(&Value::Int(2), &Value::Float(2.5)),
            Some(Ordering::Less)
        );
        assert_eq!(compare(&s("b"), &s("a")), Some(Ordering::Greater));
        assert_eq!(compare(&s("b"), &Value::Int(1)), None);
        let mut values = vec![
            Value::Null,
            Value::Int(3),
            s("x"),
            Value::Float(1.5),
            Value::Bool(true),
        ];
        values.sort_by(sort_order);
        assert_eq!(
            values,
            [
                s("x"),
                Value::Bool(true),
                Value::Float(1.5),
                Value::Int(3),
                Value::Null
            ]
        );
    }

    #[test]
    fn json_round_trip_and_display() {
        let json = serde_json::json!([1, 2.5, "a", null, true]);
        let value = Value::from_json(&json).unwrap();
        assert_eq!(value.to_json(), json);
        assert_eq!(value.to_string(), "[1, 2.5, a, null, true]");
        assert!(Value::from_json(&serde_json::json!({"a": 1})).is_err());
        assert_eq!(Value::Float(f64::NAN).to_json(), serde_json::Value::Null);
    }
}
