//! Pattern matching: walks the planned steps depth-first over the CSR adjacency, binding one row
//! at a time, keeping relationships unique per MATCH, and counting work against a budget.

use super::ast::Direction;
use super::error::CypherError;
use super::eval::truth;
use super::ir::{Binding, Candidates, ClausePlan, Expand, Op, Plan};
use super::schema::KindSet;
use super::value::equals;
use crate::graph::{Edge, Graph};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Continue,
    /// The consumer has all the rows it needs.
    Stop,
}

/// Receives each complete row.
pub(super) trait Sink {
    fn accept(&mut self, row: &[Binding]) -> Result<Flow, CypherError>;
}

/// Units of work between two looks at the caller's `stop`.
const STOP_EVERY: u64 = 4096;

/// Runs the plan, handing every matching row to `sink`. Fails once `budget` units of work
/// (candidates scanned, relationships followed, rows produced) are spent, or when `stop` says so
/// (asked every `STOP_EVERY` units).
pub(super) fn run(
    graph: &Graph,
    plan: &Plan<'_>,
    budget: u64,
    stop: &dyn Fn() -> bool,
    sink: &mut impl Sink,
) -> Result<(), CypherError> {
    let mut matcher = Matcher {
        graph,
        clauses: &plan.clauses,
        row: vec![Binding::Null; plan.slots],
        used: Vec::new(),
        clause_start: vec![0; plan.clauses.len()],
        found: vec![false; plan.clauses.len()],
        work: 0,
        budget,
        stop,
        sink,
    };
    matcher.clause(0).map(|_| ())
}

fn same_edge(a: &Edge, b: &Edge) -> bool {
    (a.from, a.to, a.kind) == (b.from, b.to, b.kind)
}

/// The relationships at `node` in direction `dir`, each with the node at its other end.
fn adjacent(graph: &Graph, node: u32, dir: Direction) -> impl Iterator<Item = (Edge, u32)> + '_ {
    let out = matches!(dir, Direction::Out | Direction::Both)
        .then(|| graph.outgoing(node))
        .into_iter()
        .flatten()
        .map(|e| (*e, e.to));
    let incoming = matches!(dir, Direction::In | Direction::Both)
        .then(|| graph.incoming(node))
        .into_iter()
        .flatten()
        // Undirected: a self-loop was already seen among the outgoing relationships.
        .filter(move |e| !(dir == Direction::Both && e.from == e.to))
        .map(|e| (*e, e.from));
    out.chain(incoming)
}

struct Matcher<'a, 'g, S> {
    graph: &'g Graph,
    clauses: &'a [ClausePlan<'g>],
    row: Vec<Binding>,
    /// Relationships bound so far, innermost last.
    used: Vec<Edge>,
    /// Length of `used` when each clause started: uniqueness holds within one MATCH.
    clause_start: Vec<usize>,
    /// Whether the running invocation of each clause has produced a row.
    found: Vec<bool>,
    work: u64,
    budget: u64,
    stop: &'a dyn Fn() -> bool,
    sink: &'a mut S,
}

impl<'a, 'g, S: Sink> Matcher<'a, 'g, S> {
    fn tick(&mut self) -> Result<(), CypherError> {
        self.work += 1;
        if self.work > self.budget {
            return Err(CypherError::new(format!(
                "the query stopped after {} units of work (its budget); narrow it with labels, property maps such as {{name: 'x'}}, a smaller *..max, or LIMIT",
                self.budget
            )));
        }
        if self.work.is_multiple_of(STOP_EVERY) && (self.stop)() {
            return Err(CypherError::new(format!(
                "the query was cancelled after {} units of work",
                self.work
            )));
        }
        Ok(())
    }

    fn clause(&mut self, ci: usize) -> Result<Flow, CypherError> {
        let clauses = self.clauses;
        let Some(clause) = clauses.get(ci) else {
            self.tick()?;
            return self.sink.accept(&self.row);
        };
        self.found[ci] = false;
        self.clause_start[ci] = self.used.len();
        let entry_ok = clause
            .entry_filters
            .iter()
            .all(|f| truth(f, self.graph, &self.row) == Some(true));
        if entry_ok && self.step(ci, 0)? == Flow::Stop {
            return Ok(Flow::Stop);
        }
        if clause.optional && !self.found[ci] {
            for &slot in &clause.new_slots {
                self.row[slot] = Binding::Null;
            }
            return self.clause(ci + 1);
        }
        Ok(Flow::Continue)
    }

    /// Runs step `si` of clause `ci`, then the rest of the query for each binding it makes.
    fn step(&mut self, ci: usize, si: usize) -> Result<Flow, CypherError> {
        let clauses = self.clauses;
        let Some(step) = clauses.get(ci).and_then(|c| c.steps.get(si)) else {
            self.found[ci] = true;
            return self.clause(ci + 1);
        };
        match &step.op {
            Op::Scan {
                slot,
                candidates,
                kinds,
            } => {
                let all = 0..self.graph.node_count() as u32;
                let ids: Box<dyn Iterator<Item = u32> + '_> = match candidates {
                    Candidates::All => Box::new(all),
                    Candidates::Ids(ids) => Box::new(ids.iter().copied()),
                    Candidates::Owned(ids) => Box::new(ids.iter().copied()),
                };
                for node in ids {
                    self.tick()?;
                    if !self.has_kind(node, *kinds) {
                        continue;
                    }
                    self.row[*slot] = Binding::Node(node);
                    if self.filtered(ci, si)? == Flow::Stop {
                        return Ok(Flow::Stop);
                    }
                }
                Ok(Flow::Continue)
            }
            Op::Check { slot, kinds } => match self.row[*slot] {
                Binding::Node(node) if self.has_kind(node, *kinds) => self.filtered(ci, si),
                _ => Ok(Flow::Continue),
            },
            Op::Expand(expand) => {
                let Binding::Node(from) = self.row[expand.from] else {
                    return Ok(Flow::Continue);
                };
                if expand.variable {
                    self.var_hops(ci, si, expand, from, 0, self.used.len())
                } else {
                    self.hop(ci, si, expand, from)
                }
            }
        }
    }

    /// Applies the filters attached to step `si`, then runs the next step.
    fn filtered(&mut self, ci: usize, si: usize) -> Result<Flow, CypherError> {
        let clauses = self.clauses;
        let filters = clauses
            .get(ci)
            .and_then(|c| c.steps.get(si))
            .map_or(&[][..], |s| &s.filters);
        if filters
            .iter()
            .all(|f| truth(f, self.graph, &self.row) == Some(true))
        {
            self.step(ci, si + 1)
        } else {
            Ok(Flow::Continue)
        }
    }

    fn has_kind(&self, node: u32, kinds: KindSet) -> bool {
        kinds.is_any()
            || self
                .graph
                .node(node)
                .is_some_and(|n| kinds.contains(n.kind()))
    }

    /// Whether `node` can stand at the far end of the expansion.
    fn end_fits(&self, expand: &Expand, node: u32) -> bool {
        self.has_kind(node, expand.to_kinds)
            && (!expand.to_bound || self.row[expand.to] == Binding::Node(node))
    }

    /// Whether `edge` may be followed: right type, property map, not yet used in this MATCH.
    fn edge_fits(&self, ci: usize, expand: &Expand, edge: &Edge) -> bool {
        expand.types.contains(edge.kind)
            && expand
                .edge_filters
                .iter()
                .all(|(prop, value)| equals(&prop.read(edge), value) == Some(true))
            && !self
                .used
                .get(self.clause_start[ci]..)
                .unwrap_or_default()
                .iter()
                .any(|u| same_edge(u, edge))
    }

    fn hop(
        &mut self,
        ci: usize,
        si: usize,
        expand: &Expand,
        from: u32,
    ) -> Result<Flow, CypherError> {
        let graph = self.graph;
        for (edge, other) in adjacent(graph, from, expand.dir) {
            self.tick()?;
            if !self.edge_fits(ci, expand, &edge) || !self.end_fits(expand, other) {
                continue;
            }
            self.row[expand.to] = Binding::Node(other);
            if let Some(slot) = expand.edge {
                self.row[slot] = Binding::Edge(edge);
            }
            self.used.push(edge);
            let flow = self.filtered(ci, si);
            self.used.pop();
            if flow? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    /// Enumerates paths of `min_hops..=max_hops` relationships from `node`; `path_start` is
    /// where this path's relationships begin in `used`.
    fn var_hops(
        &mut self,
        ci: usize,
        si: usize,
        expand: &Expand,
        node: u32,
        depth: u32,
        path_start: usize,
    ) -> Result<Flow, CypherError> {
        if depth >= expand.min_hops && self.end_fits(expand, node) {
            self.row[expand.to] = Binding::Node(node);
            if let Some(slot) = expand.edge {
                let mut path = self.used.get(path_start..).unwrap_or_default().to_vec();
                if expand.reversed {
                    path.reverse();
                }
                self.row[slot] = Binding::Path(path);
            }
            if self.filtered(ci, si)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        if depth >= expand.max_hops {
            return Ok(Flow::Continue);
        }
        let graph = self.graph;
        for (edge, other) in adjacent(graph, node, expand.dir) {
            self.tick()?;
            if !self.edge_fits(ci, expand, &edge) {
                continue;
            }
            self.used.push(edge);
            let flow = self.var_hops(ci, si, expand, other, depth + 1, path_start);
            self.used.pop();
            if flow? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }
}
