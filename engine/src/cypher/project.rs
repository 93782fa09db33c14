//! RETURN: turns matched rows into result rows — streaming when it can (stopping at LIMIT),
//! otherwise buffering for DISTINCT and ORDER BY, or grouping for aggregates.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use super::error::CypherError;
use super::eval::{eval, is_null};
use super::exec::{Flow, Sink};
use super::ir::{AggFn, Binding, CExpr, Column, ReturnPlan, SortSource};
use super::value::{Value, sort_order};
use crate::graph::Graph;

impl ReturnPlan {
    fn aggregates(&self) -> bool {
        self.items
            .iter()
            .any(|c| matches!(c, Column::Aggregate { .. }))
    }
}

/// One aggregate's running state for one group.
#[derive(Debug)]
struct Accumulator {
    func: AggFn,
    /// Values seen so far, for DISTINCT aggregates.
    seen: Option<HashSet<Value>>,
    running: Running,
}

#[derive(Debug)]
enum Running {
    Count(i64),
    Collect(Vec<Value>),
    /// The smallest (min) or largest (max) value so far.
    Best(Option<Value>),
    /// Sum of the numbers so far: exact while all are integers and it fits.
    Total {
        int: Option<i64>,
        float: f64,
        numbers: i64,
    },
}

impl Accumulator {
    fn new(func: AggFn, distinct: bool) -> Self {
        let running = match func {
            AggFn::Count => Running::Count(0),
            AggFn::Collect => Running::Collect(Vec::new()),
            AggFn::Min | AggFn::Max => Running::Best(None),
            AggFn::Sum | AggFn::Avg => Running::Total {
                int: Some(0),
                float: 0.0,
                numbers: 0,
            },
        };
        Accumulator {
            func,
            seen: distinct.then(HashSet::new),
            running,
        }
    }

    /// Adds one input; nulls are skipped, as are repeats when DISTINCT.
    fn add(&mut self, value: Value) {
        if value.is_null() {
            return;
        }
        if let Some(seen) = &mut self.seen
            && !seen.insert(value.clone())
        {
            return;
        }
        match &mut self.running {
            Running::Count(n) => *n += 1,
            Running::Collect(items) => items.push(value),
            Running::Best(best) => {
                let better = best.as_ref().is_none_or(|b| {
                    let order = sort_order(&value, b);
                    if self.func == AggFn::Min {
                        order.is_lt()
                    } else {
                        order.is_gt()
                    }
                });
                if better {
                    *best = Some(value);
                }
            }
            Running::Total {
                int,
                float,
                numbers,
            } => match value {
                Value::Int(n) => {
                    *int = int.and_then(|s| s.checked_add(n));
                    *float += n as f64;
                    *numbers += 1;
                }
                Value::Float(x) => {
                    *int = None;
                    *float += x;
                    *numbers += 1;
                }
                _ => {}
            },
        }
    }

    fn finish(self) -> Value {
        match self.running {
            Running::Count(n) => Value::Int(n),
            Running::Collect(items) => Value::List(items),
            Running::Best(best) => best.unwrap_or(Value::Null),
            Running::Total { numbers, float, .. } if self.func == AggFn::Avg => {
                if numbers == 0 {
                    Value::Null
                } else {
                    Value::Float(float / numbers as f64)
                }
            }
            Running::Total { int, float, .. } => int.map_or(Value::Float(float), Value::Int),
        }
    }
}

/// A projected row with the values of its expression sort keys.
type Keyed = (Vec<Value>, Vec<Value>);

enum State {
    /// No DISTINCT, ORDER BY or aggregate: rows go straight out.
    Stream {
        matched: usize,
        total: usize,
        rows: Vec<Vec<Value>>,
    },
    Buffer {
        seen: HashSet<Vec<Value>>,
        rows: Vec<Keyed>,
    },
    Groups {
        index: HashMap<Vec<Value>, usize>,
        groups: Vec<(Vec<Value>, Vec<Accumulator>)>,
    },
}

/// Collects the result rows of one query.
pub(super) struct Collector<'a> {
    graph: &'a Graph,
    plan: &'a ReturnPlan,
    row_limit: usize,
    state: State,
}

impl<'a> Collector<'a> {
    pub fn new(graph: &'a Graph, plan: &'a ReturnPlan, row_limit: usize) -> Self {
        let state = if plan.aggregates() {
            State::Groups {
                index: HashMap::new(),
                groups: Vec::new(),
            }
        } else if plan.distinct || !plan.order.is_empty() {
            State::Buffer {
                seen: HashSet::new(),
                rows: Vec::new(),
            }
        } else {
            State::Stream {
                matched: 0,
                total: 0,
                rows: Vec::new(),
            }
        };
        Collector {
            graph,
            plan,
            row_limit,
            state,
        }
    }

    /// The result rows (at most `row_limit`) and how many rows the query produced.
    pub fn finish(self) -> (Vec<Vec<Value>>, usize) {
        let plan = self.plan;
        let mut rows: Vec<Keyed> = match self.state {
            State::Stream { total, rows, .. } => return (rows, total),
            State::Buffer { rows, .. } => rows,
            State::Groups { mut groups, .. } => {
                let keyless = plan
                    .items
                    .iter()
                    .all(|c| matches!(c, Column::Aggregate { .. }));
                if groups.is_empty() && keyless {
                    groups.push((Vec::new(), new_accumulators(plan)));
                }
                groups
                    .into_iter()
                    .map(|(keys, accumulators)| (merge_group(plan, keys, accumulators), Vec::new()))
                    .collect()
            }
        };
        // Where each sort key's value sits in a keyed row: (in the columns?, index).
        let mut expr_keys = 0;
        let places: Vec<(bool, usize)> = plan
            .order
            .iter()
            .map(|key| match key.source {
                SortSource::Column(i) => (true, i),
                SortSource::Expr(_) => {
                    expr_keys += 1;
                    (false, expr_keys - 1)
                }
            })
            .collect();
        rows.sort_by(|a, b| {
            plan.order
                .iter()
                .zip(&places)
                .map(|(key, &(in_columns, i))| {
                    let order = match (sort_value(a, in_columns, i), sort_value(b, in_columns, i)) {
                        (Some(x), Some(y)) => sort_order(x, y),
                        _ => Ordering::Equal,
                    };
                    if key.descending {
                        order.reverse()
                    } else {
                        order
                    }
                })
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        });
        let mut kept: Vec<Vec<Value>> = rows
            .into_iter()
            .skip(plan.skip)
            .take(plan.limit.unwrap_or(usize::MAX))
            .map(|(row, _)| row)
            .collect();
        let total = kept.len();
        kept.truncate(self.row_limit);
        (kept, total)
    }
}

fn sort_value(row: &Keyed, in_columns: bool, i: usize) -> Option<&Value> {
    if in_columns {
        row.0.get(i)
    } else {
        row.1.get(i)
    }
}

fn new_accumulators(plan: &ReturnPlan) -> Vec<Accumulator> {
    plan.items
        .iter()
        .filter_map(|c| match c {
            Column::Aggregate { func, distinct, .. } => Some(Accumulator::new(*func, *distinct)),
            Column::Value(_) => None,
        })
        .collect()
}

/// Puts a group's key values and aggregate results back in column order.
fn merge_group(plan: &ReturnPlan, keys: Vec<Value>, accumulators: Vec<Accumulator>) -> Vec<Value> {
    let mut keys = keys.into_iter();
    let mut results = accumulators.into_iter().map(Accumulator::finish);
    plan.items
        .iter()
        .map(|c| {
            match c {
                Column::Value(_) => keys.next(),
                Column::Aggregate { .. } => results.next(),
            }
            .unwrap_or(Value::Null)
        })
        .collect()
}

/// The values of the non-aggregate columns, in order.
fn value_columns(plan: &ReturnPlan, value: impl Fn(&CExpr) -> Value) -> Vec<Value> {
    plan.items
        .iter()
        .filter_map(|c| match c {
            Column::Value(expr) => Some(value(expr)),
            Column::Aggregate { .. } => None,
        })
        .collect()
}

impl Sink for Collector<'_> {
    fn accept(&mut self, row: &[Binding]) -> Result<Flow, CypherError> {
        let (graph, plan, row_limit) = (self.graph, self.plan, self.row_limit);
        let value = |expr: &CExpr| eval(expr, graph, row);
        match &mut self.state {
            State::Stream {
                matched,
                total,
                rows,
            } => {
                *matched += 1;
                if *matched <= plan.skip {
                    return Ok(Flow::Continue);
                }
                if plan.limit.is_some_and(|limit| *total >= limit) {
                    return Ok(Flow::Stop);
                }
                *total += 1;
                if rows.len() < row_limit {
                    rows.push(value_columns(plan, value));
                }
                let enough = plan.limit.is_some_and(|limit| *total >= limit);
                Ok(if enough { Flow::Stop } else { Flow::Continue })
            }
            State::Buffer { seen, rows } => {
                let projected = value_columns(plan, value);
                if plan.distinct && !seen.insert(projected.clone()) {
                    return Ok(Flow::Continue);
                }
                let keys = plan
                    .order
                    .iter()
                    .filter_map(|k| match &k.source {
                        SortSource::Expr(expr) => Some(value(expr)),
                        SortSource::Column(_) => None,
                    })
                    .collect();
                rows.push((projected, keys));
                let enough = plan.order.is_empty()
                    && plan
                        .limit
                        .is_some_and(|limit| rows.len() >= plan.skip.saturating_add(limit));
                Ok(if enough { Flow::Stop } else { Flow::Continue })
            }
            State::Groups { index, groups } => {
                let keys = value_columns(plan, value);
                let at = match index.get(&keys) {
                    Some(&at) => at,
                    None => {
                        index.insert(keys.clone(), groups.len());
                        groups.push((keys, new_accumulators(plan)));
                        groups.len() - 1
                    }
                };
                let Some((_, accumulators)) = groups.get_mut(at) else {
                    return Ok(Flow::Continue);
                };
                let inputs = plan.items.iter().filter_map(|c| match c {
                    // Only whether the argument is null matters here.
                    Column::Aggregate {
                        func: AggFn::Count,
                        arg: Some(expr),
                        distinct: false,
                    } => Some(if is_null(expr, graph, row) {
                        Value::Null
                    } else {
                        Value::Bool(true)
                    }),
                    Column::Aggregate {
                        arg: Some(expr), ..
                    } => Some(value(expr)),
                    Column::Aggregate { arg: None, .. } => Some(Value::Bool(true)),
                    Column::Value(_) => None,
                });
                for (acc, input) in accumulators.iter_mut().zip(inputs) {
                    acc.add(input);
                }
                Ok(Flow::Continue)
            }
        }
    }
}
