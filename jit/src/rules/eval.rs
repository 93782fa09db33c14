//! Bottom-up evaluation: the facts of each predicate (indexed by first argument) and the naive
//! fixpoint of one stratum's rules, joining body atoms left to right.

use std::collections::{HashMap, HashSet};

use super::{Atom, Literal, Program, Rule, Term, Value};

#[derive(Debug, Clone, Default)]
struct Relation {
    rows: Vec<Vec<Value>>,
    seen: HashSet<Vec<Value>>,
    by_first: HashMap<Value, Vec<usize>>,
}

impl Relation {
    fn insert(&mut self, row: Vec<Value>) -> bool {
        if self.seen.contains(&row) {
            return false;
        }
        if let Some(first) = row.first() {
            self.by_first
                .entry(first.clone())
                .or_default()
                .push(self.rows.len());
        }
        self.seen.insert(row.clone());
        self.rows.push(row);
        true
    }
}

/// The facts of one evaluation, per predicate of a [`Program`].
#[derive(Debug, Clone)]
pub(crate) struct Database {
    relations: Vec<Relation>,
    by_name: HashMap<String, usize>,
    arities: Vec<usize>,
}

impl Database {
    pub(super) fn new(program: &Program) -> Database {
        Database {
            relations: vec![Relation::default(); program.predicates.len()],
            by_name: program.by_name.clone(),
            arities: program.predicates.iter().map(|p| p.arity).collect(),
        }
    }

    /// Adds a fact. Facts of predicates the rules never mention, or of another arity, are
    /// ignored (no rule could read them). True when the fact is new.
    pub(crate) fn insert(&mut self, predicate: &str, row: Vec<Value>) -> bool {
        match self.by_name.get(predicate) {
            Some(&id) if self.arities[id] == row.len() => self.relations[id].insert(row),
            _ => false,
        }
    }

    /// The facts of `predicate`, in the order they were added or derived.
    pub(crate) fn rows(&self, predicate: &str) -> &[Vec<Value>] {
        match self.by_name.get(predicate) {
            Some(&id) => &self.relations[id].rows,
            None => &[],
        }
    }
}

/// The body in evaluation order: positive atoms as written, each negation or comparison as
/// soon as the atoms before it bind all its variables.
fn ordered(rule: &Rule) -> Vec<&Literal> {
    let mut bound = vec![false; rule.vars];
    let mut waiting: Vec<&Literal> = Vec::new();
    let mut out = Vec::new();
    let ready = |lit: &Literal, bound: &[bool]| {
        let terms: Vec<&Term> = match lit {
            Literal::Pos(_) => return true,
            Literal::Not(a) => a.terms.iter().collect(),
            Literal::Compare { left, right, .. } => vec![left, right],
        };
        terms
            .iter()
            .all(|t| !matches!(t, Term::Var(v) if !bound[*v]))
    };
    for lit in &rule.body {
        if ready(lit, &bound) {
            out.push(lit);
        } else {
            waiting.push(lit);
        }
        if let Literal::Pos(a) = lit {
            for t in &a.terms {
                if let Term::Var(v) = t {
                    bound[*v] = true;
                }
            }
            let (now, later): (Vec<&Literal>, Vec<&Literal>) =
                waiting.into_iter().partition(|l| ready(l, &bound));
            out.extend(now);
            waiting = later;
        }
    }
    out.extend(waiting);
    out
}

fn value_of<'a>(term: &'a Term, bindings: &'a [Option<Value>]) -> Option<&'a Value> {
    match term {
        Term::Const(v) => Some(v),
        Term::Var(v) => bindings.get(*v).and_then(Option::as_ref),
        Term::Wildcard => None,
    }
}

fn ground(atom: &Atom, bindings: &[Option<Value>]) -> Option<Vec<Value>> {
    atom.terms
        .iter()
        .map(|t| value_of(t, bindings).cloned())
        .collect()
}

/// Unifies `row` with `terms` under `bindings`; on success returns the slots it bound.
fn unify(terms: &[Term], row: &[Value], bindings: &mut [Option<Value>]) -> Option<Vec<usize>> {
    let mut newly = Vec::new();
    for (term, value) in terms.iter().zip(row) {
        let fits = match term {
            Term::Wildcard => true,
            Term::Const(c) => c == value,
            Term::Var(v) => match &bindings[*v] {
                Some(b) => b == value,
                None => {
                    bindings[*v] = Some(value.clone());
                    newly.push(*v);
                    true
                }
            },
        };
        if !fits {
            for v in newly {
                bindings[v] = None;
            }
            return None;
        }
    }
    Some(newly)
}

fn solve(
    body: &[&Literal],
    bindings: &mut Vec<Option<Value>>,
    db: &Database,
    head: &Atom,
    out: &mut Vec<Vec<Value>>,
) {
    let Some((first, rest)) = body.split_first() else {
        out.extend(ground(head, bindings));
        return;
    };
    match first {
        Literal::Pos(atom) => {
            let relation = &db.relations[atom.predicate];
            let key = atom
                .terms
                .first()
                .and_then(|t| value_of(t, bindings))
                .cloned();
            let candidates: Box<dyn Iterator<Item = &Vec<Value>>> = match key {
                Some(k) => Box::new(
                    relation
                        .by_first
                        .get(&k)
                        .into_iter()
                        .flatten()
                        .filter_map(|&i| relation.rows.get(i)),
                ),
                None => Box::new(relation.rows.iter()),
            };
            for row in candidates {
                if let Some(newly) = unify(&atom.terms, row, bindings) {
                    solve(rest, bindings, db, head, out);
                    for v in newly {
                        bindings[v] = None;
                    }
                }
            }
        }
        Literal::Not(atom) => {
            let present = ground(atom, bindings)
                .is_some_and(|row| db.relations[atom.predicate].seen.contains(&row));
            if !present {
                solve(rest, bindings, db, head, out);
            }
        }
        Literal::Compare { left, right, equal } => {
            let same = value_of(left, bindings) == value_of(right, bindings);
            if same == *equal {
                solve(rest, bindings, db, head, out);
            }
        }
    }
}

/// Applies `rules` until nothing new is derived. Rules only add facts, so this ends.
pub(super) fn fixpoint(rules: &[Rule], db: &mut Database) {
    let plans: Vec<Vec<&Literal>> = rules.iter().map(ordered).collect();
    loop {
        let mut derived: Vec<(usize, Vec<Value>)> = Vec::new();
        for (rule, plan) in rules.iter().zip(&plans) {
            let mut bindings = vec![None; rule.vars];
            let mut out = Vec::new();
            solve(plan, &mut bindings, db, &rule.head, &mut out);
            derived.extend(out.into_iter().map(|row| (rule.head.predicate, row)));
        }
        let mut grew = false;
        for (predicate, row) in derived {
            grew |= db.relations[predicate].insert(row);
        }
        if !grew {
            break;
        }
    }
}
