//! Planner: resolves names (variables, labels, types, properties, parameters), starts each
//! pattern at its most selective node, and attaches each condition to the first step binding it.

use serde_json::Map;

use super::MAX_HOPS;
use super::anchor::{Source, hint};
use super::ast::{
    BinaryOp, Direction, Expr, ExprKind, Length, MatchClause, NodePattern, PathPattern, Query,
    RelPattern, Return, SortItem,
};
use super::error::CypherError;
use super::ir::{
    AggFn, CExpr, ClausePlan, Column, Expand, Op, Plan, ReturnPlan, SortKey, SortSource, Step,
};
use super::schema::{self, KindSet, NodeProp, RelProp, TypeSet};
use super::scope::{Scope, SlotKind, labels};
use super::value::Value;
use crate::graph::Graph;

struct NodeElem {
    slot: usize,
    kinds: KindSet,
}

struct RelElem {
    edge: Option<usize>,
    dir: Direction,
    types: TypeSet,
    edge_filters: Vec<(RelProp, Value)>,
    variable: bool,
    min_hops: u32,
    max_hops: u32,
}

struct PathPlan {
    nodes: Vec<NodeElem>,
    rels: Vec<RelElem>,
}

fn flip(dir: Direction) -> Direction {
    match dir {
        Direction::Out => Direction::In,
        Direction::In => Direction::Out,
        Direction::Both => Direction::Both,
    }
}

pub(super) fn plan<'g>(
    graph: &'g Graph,
    query: &Query,
    params: &Map<String, serde_json::Value>,
) -> Result<Plan<'g>, CypherError> {
    let mut planner = Planner {
        graph,
        scope: Scope::new(params),
        bound: Vec::new(),
        notes: Vec::new(),
    };
    let clauses = query
        .clauses
        .iter()
        .map(|c| planner.clause(c))
        .collect::<Result<Vec<_>, _>>()?;
    let ret = planner.ret(&query.ret)?;
    Ok(Plan {
        slots: planner.scope.len(),
        clauses,
        ret,
        notes: planner.notes,
    })
}

struct Planner<'g, 'p> {
    graph: &'g Graph,
    scope: Scope<'p>,
    /// Whether each slot is bound by the steps planned so far.
    bound: Vec<bool>,
    notes: Vec<String>,
}

impl<'g> Planner<'g, '_> {
    fn declare(&mut self, name: Option<&str>, kind: SlotKind) -> usize {
        self.bound.push(false);
        self.scope.declare(name, kind)
    }

    fn clause(&mut self, clause: &MatchClause) -> Result<ClausePlan<'g>, CypherError> {
        let slots_before = self.scope.len();
        let mut conjuncts = Vec::new();
        let mut paths = Vec::new();
        for pattern in &clause.patterns {
            paths.push(self.path(pattern, &mut conjuncts)?);
        }
        if let Some(filter) = &clause.filter {
            match self.scope.expr(filter)? {
                CExpr::And(items) => conjuncts.extend(items),
                other => conjuncts.push(other),
            }
        }
        let mut steps = Vec::new();
        let mut bound_at = vec![None; self.scope.len()];
        for path in paths {
            self.emit(path, &conjuncts, &mut steps, &mut bound_at);
        }
        let mut entry_filters = Vec::new();
        for conjunct in conjuncts {
            let mut deps = Vec::new();
            conjunct.slots(&mut deps);
            let last = deps
                .iter()
                .filter_map(|&s| bound_at.get(s).copied().flatten())
                .max();
            match last.and_then(|at| steps.get_mut(at)) {
                Some(step) => step.filters.push(conjunct),
                None => entry_filters.push(conjunct),
            }
        }
        Ok(ClausePlan {
            optional: clause.optional,
            new_slots: (slots_before..self.scope.len()).collect(),
            entry_filters,
            steps,
        })
    }

    fn path(
        &mut self,
        pattern: &PathPattern,
        conjuncts: &mut Vec<CExpr>,
    ) -> Result<PathPlan, CypherError> {
        let mut nodes = vec![self.node(&pattern.start, conjuncts)?];
        let mut rels = Vec::new();
        for (rel, node) in &pattern.hops {
            rels.push(self.rel(rel)?);
            nodes.push(self.node(node, conjuncts)?);
        }
        Ok(PathPlan { nodes, rels })
    }

    fn node(
        &mut self,
        node: &NodePattern,
        conjuncts: &mut Vec<CExpr>,
    ) -> Result<NodeElem, CypherError> {
        let slot = match &node.var {
            Some(name) => match self.scope.lookup(&name.text) {
                Some((slot, SlotKind::Node)) => slot,
                Some(_) => {
                    return Err(CypherError::at(
                        name.pos,
                        format!("{} is a relationship variable, not a node", name.text),
                    ));
                }
                None => self.declare(Some(&name.text), SlotKind::Node),
            },
            None => self.declare(None, SlotKind::Node),
        };
        let kinds = labels(&node.labels)?;
        for (key, value) in &node.props {
            let prop = NodeProp::parse(&key.text).map_err(|m| CypherError::at(key.pos, m))?;
            let value = self.scope.expr(value)?;
            conjuncts.push(CExpr::Binary(
                BinaryOp::Eq,
                Box::new(CExpr::NodeProp(slot, prop)),
                Box::new(value),
            ));
        }
        Ok(NodeElem { slot, kinds })
    }

    fn rel(&mut self, rel: &RelPattern) -> Result<RelElem, CypherError> {
        let mut types = TypeSet::ANY;
        if !rel.types.is_empty() {
            let mut kinds = Vec::new();
            let mut any = false;
            for name in &rel.types {
                match schema::rel_type(&name.text).map_err(|m| CypherError::at(name.pos, m))? {
                    Some(kind) => kinds.push(kind),
                    None => any = true,
                }
            }
            if !any {
                types = TypeSet::of(&kinds);
            }
        }
        let (variable, min_hops, max_hops) = match rel.length {
            None => (false, 1, 1),
            Some(length) => {
                let (min, max) = self.hops(length, rel.pos)?;
                (true, min, max)
            }
        };
        let edge = match &rel.var {
            Some(name) if self.scope.lookup(&name.text).is_some() => {
                return Err(CypherError::at(
                    name.pos,
                    format!(
                        "{} is already defined; a relationship variable may appear only once",
                        name.text
                    ),
                ));
            }
            Some(name) => {
                let kind = if variable {
                    SlotKind::Path
                } else {
                    SlotKind::Rel
                };
                Some(self.declare(Some(&name.text), kind))
            }
            None => None,
        };
        let mut edge_filters = Vec::new();
        for (key, value) in &rel.props {
            let prop = RelProp::parse(&key.text).map_err(|m| CypherError::at(key.pos, m))?;
            let CExpr::Const(constant) = self.scope.expr(value)? else {
                return Err(CypherError::at(
                    value.pos,
                    "relationship property values must be literals or parameters",
                ));
            };
            if prop != RelProp::Type {
                edge_filters.push((prop, constant));
                continue;
            }
            let Some(name) = constant.as_str() else {
                return Err(CypherError::at(
                    value.pos,
                    "the type property takes a string such as 'CALLS'",
                ));
            };
            if let Some(kind) = schema::rel_type(name).map_err(|m| CypherError::at(value.pos, m))? {
                types = types.intersect(TypeSet::of(&[kind]));
            }
        }
        Ok(RelElem {
            edge,
            dir: rel.direction,
            types,
            edge_filters,
            variable,
            min_hops,
            max_hops,
        })
    }

    fn hops(&mut self, length: Length, pos: usize) -> Result<(u32, u32), CypherError> {
        let min = length.min.unwrap_or(1);
        if min > MAX_HOPS || length.max.is_some_and(|max| max > MAX_HOPS) {
            return Err(CypherError::at(
                pos,
                format!(
                    "variable-length patterns go at most {MAX_HOPS} hops; write *1..{MAX_HOPS} or less"
                ),
            ));
        }
        let max = length.max.unwrap_or_else(|| {
            let note = format!("a variable-length pattern without an upper bound was searched up to {MAX_HOPS} hops");
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
            MAX_HOPS
        });
        if min > max {
            return Err(CypherError::at(
                pos,
                format!("*{min}..{max}: the minimum is above the maximum"),
            ));
        }
        Ok((min, max))
    }

    /// The cheapest way to find candidates for an unbound node, and how many it yields.
    fn source(&self, node: &NodeElem, conjuncts: &[CExpr]) -> (usize, Source) {
        let mut best = if node.kinds.is_any() {
            Source::All
        } else {
            Source::Kinds(node.kinds)
        };
        let mut best_size = best.size(self.graph);
        for source in conjuncts.iter().filter_map(|c| hint(c, node.slot)) {
            let size = source.size(self.graph);
            if size < best_size {
                (best, best_size) = (source, size);
            }
        }
        (best_size, best)
    }

    fn mark_bound(&mut self, slot: usize, step: usize, bound_at: &mut [Option<usize>]) {
        if !self.bound[slot] {
            self.bound[slot] = true;
            bound_at[slot] = Some(step);
        }
    }

    /// Plans one path: a scan (or check) at its most selective node, then expansions outward.
    fn emit(
        &mut self,
        path: PathPlan,
        conjuncts: &[CExpr],
        steps: &mut Vec<Step<'g>>,
        bound_at: &mut [Option<usize>],
    ) {
        let mut anchor = 0;
        let mut scan: Option<(usize, Source)> = None;
        for (i, node) in path.nodes.iter().enumerate() {
            if self.bound[node.slot] {
                anchor = i;
                scan = None;
                break;
            }
            let (size, source) = self.source(node, conjuncts);
            if scan.as_ref().is_none_or(|(best, _)| size < *best) {
                anchor = i;
                scan = Some((size, source));
            }
        }
        let start = &path.nodes[anchor];
        let op = match scan {
            Some((_, source)) => Op::Scan {
                slot: start.slot,
                candidates: source.candidates(self.graph),
                kinds: start.kinds,
            },
            None => Op::Check {
                slot: start.slot,
                kinds: start.kinds,
            },
        };
        steps.push(Step {
            op,
            filters: Vec::new(),
        });
        self.mark_bound(start.slot, steps.len() - 1, bound_at);
        for i in anchor + 1..path.nodes.len() {
            self.expand(&path, i - 1, i, false, steps, bound_at);
        }
        for i in (0..anchor).rev() {
            self.expand(&path, i + 1, i, true, steps, bound_at);
        }
    }

    /// Plans the walk from node `from` to its neighbour `to` in the path.
    fn expand(
        &mut self,
        path: &PathPlan,
        from: usize,
        to: usize,
        reversed: bool,
        steps: &mut Vec<Step<'g>>,
        bound_at: &mut [Option<usize>],
    ) {
        let rel = &path.rels[from.min(to)];
        let (from, to) = (&path.nodes[from], &path.nodes[to]);
        steps.push(Step {
            op: Op::Expand(Expand {
                from: from.slot,
                to: to.slot,
                to_bound: self.bound[to.slot],
                to_kinds: to.kinds,
                edge: rel.edge,
                dir: if reversed { flip(rel.dir) } else { rel.dir },
                types: rel.types,
                edge_filters: rel.edge_filters.clone(),
                variable: rel.variable,
                min_hops: rel.min_hops,
                max_hops: rel.max_hops,
                reversed,
            }),
            filters: Vec::new(),
        });
        let at = steps.len() - 1;
        self.mark_bound(to.slot, at, bound_at);
        if let Some(edge) = rel.edge {
            self.mark_bound(edge, at, bound_at);
        }
    }

    fn ret(&mut self, ret: &Return) -> Result<ReturnPlan, CypherError> {
        let mut columns = Vec::new();
        let mut items = Vec::new();
        let mut sources: Vec<Option<&Expr>> = Vec::new();
        if ret.star {
            for (slot, name, kind) in self.scope.named() {
                columns.push(name.to_owned());
                items.push(Column::Value(match kind {
                    SlotKind::Node => CExpr::NodeRef(slot),
                    SlotKind::Rel | SlotKind::Path => CExpr::EdgeRef(slot),
                }));
                sources.push(None);
            }
            if columns.is_empty() {
                return Err(CypherError::new(
                    "RETURN * needs at least one named variable",
                ));
            }
        }
        for item in &ret.items {
            let name = item.alias.as_ref().map_or(&item.text, |a| &a.text).clone();
            if columns.contains(&name) {
                return Err(CypherError::at(
                    item.expr.pos,
                    format!("column {name} appears twice; rename one with AS"),
                ));
            }
            items.push(self.column(&item.expr)?);
            columns.push(name);
            sources.push(Some(&item.expr));
        }
        let grouped = ret.distinct || items.iter().any(|c| matches!(c, Column::Aggregate { .. }));
        let order = ret
            .order
            .iter()
            .map(|key| self.sort_key(key, &columns, &sources, grouped))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ReturnPlan {
            columns,
            items,
            distinct: ret.distinct,
            order,
            skip: self.count(ret.skip.as_ref(), "SKIP")?.unwrap_or(0),
            limit: self.count(ret.limit.as_ref(), "LIMIT")?,
        })
    }

    fn column(&mut self, e: &Expr) -> Result<Column, CypherError> {
        match &e.kind {
            ExprKind::CountStar => Ok(Column::Aggregate {
                func: AggFn::Count,
                arg: None,
                distinct: false,
            }),
            ExprKind::Call {
                name,
                distinct,
                args,
            } => match (AggFn::parse(&name.text), args.as_slice()) {
                (Some(func), [arg]) => Ok(Column::Aggregate {
                    func,
                    arg: Some(self.scope.expr(arg)?),
                    distinct: *distinct,
                }),
                (Some(_), _) => Err(CypherError::at(
                    name.pos,
                    format!("{}() takes one argument", name.text),
                )),
                (None, _) => Ok(Column::Value(self.scope.expr(e)?)),
            },
            _ => Ok(Column::Value(self.scope.expr(e)?)),
        }
    }

    fn sort_key(
        &mut self,
        key: &SortItem,
        columns: &[String],
        sources: &[Option<&Expr>],
        grouped: bool,
    ) -> Result<SortKey, CypherError> {
        let by_name = match &key.expr.kind {
            ExprKind::Var(name) => columns.iter().position(|c| c == name),
            _ => None,
        };
        let column = by_name.or_else(|| sources.iter().position(|s| *s == Some(&key.expr)));
        let source = match column {
            Some(i) => SortSource::Column(i),
            None if grouped => {
                return Err(CypherError::at(
                    key.expr.pos,
                    format!(
                        "with DISTINCT or aggregates, ORDER BY must name a returned column: {}",
                        columns.join(", ")
                    ),
                ));
            }
            None => SortSource::Expr(self.scope.expr(&key.expr)?),
        };
        Ok(SortKey {
            source,
            descending: key.descending,
        })
    }

    /// The value of SKIP or LIMIT.
    fn count(&mut self, e: Option<&Expr>, what: &str) -> Result<Option<usize>, CypherError> {
        let Some(e) = e else {
            return Ok(None);
        };
        match self.scope.expr(e)? {
            CExpr::Const(Value::Int(n)) if n >= 0 => {
                Ok(Some(usize::try_from(n).unwrap_or(usize::MAX)))
            }
            _ => Err(CypherError::at(
                e.pos,
                format!("{what} takes a non-negative integer literal or parameter"),
            )),
        }
    }
}
