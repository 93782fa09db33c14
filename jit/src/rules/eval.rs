//! Bottom-up evaluation: the facts of each predicate (indexed by each argument) and the naive
//! fixpoint of one stratum's rules, joining body atoms left to right.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::{Atom, Literal, Program, Rule, Term, Value};

#[derive(Debug, Clone, Default)]
struct Relation {
    rows: Vec<Vec<Value>>,
    seen: HashSet<Vec<Value>>,
    /// Per argument position, the rows holding each value there (kept only when `indexed`).
    by_arg: Vec<HashMap<Value, Vec<usize>>>,
    /// Some rule joins on this relation: its rows are indexed by argument. A relation only
    /// derived (`boost`) or only negated needs no index, which saves most of a turn's work.
    indexed: bool,
}

impl Relation {
    fn insert(&mut self, row: Vec<Value>) -> bool {
        if self.seen.contains(&row) {
            return false;
        }
        if !self.indexed {
            self.seen.insert(row.clone());
            self.rows.push(row);
            return true;
        }
        if self.by_arg.len() < row.len() {
            self.by_arg.resize_with(row.len(), HashMap::default);
        }
        for (index, value) in self.by_arg.iter_mut().zip(&row) {
            index
                .entry(value.clone())
                .or_default()
                .push(self.rows.len());
        }
        self.seen.insert(row.clone());
        self.rows.push(row);
        true
    }

    /// Drops the rows added after the first `len` (and their index entries).
    fn truncate(&mut self, len: usize) {
        while self.rows.len() > len {
            let Some(row) = self.rows.pop() else {
                break;
            };
            let at = self.rows.len();
            for (index, value) in self.by_arg.iter_mut().zip(&row) {
                if let Some(list) = index.get_mut(value) {
                    if list.last() == Some(&at) {
                        list.pop();
                    }
                    if list.is_empty() {
                        index.remove(value);
                    }
                }
            }
            self.seen.remove(&row);
        }
    }

    /// The rows that can match `terms` under `bindings`: those of the bound argument with the
    /// fewest, else all.
    fn candidates<'a>(&'a self, terms: &[Term], bindings: &[Option<Value>]) -> Candidates<'a> {
        let mut best: Option<&'a Vec<usize>> = None;
        for (term, index) in terms.iter().zip(&self.by_arg) {
            if let Some(value) = value_of(term, bindings) {
                let Some(rows) = index.get(value) else {
                    return Candidates::Some(&[]);
                };
                if best.is_none_or(|b| rows.len() < b.len()) {
                    best = Some(rows);
                }
            }
        }
        match best {
            Some(rows) => Candidates::Some(rows),
            None => Candidates::All,
        }
    }
}

/// Which rows of a relation a join step visits.
enum Candidates<'a> {
    All,
    Some(&'a [usize]),
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
        let mut relations = vec![Relation::default(); program.predicates.len()];
        for lit in program.strata.iter().flatten().flat_map(|r| &r.body) {
            if let Literal::Pos(atom) = lit {
                relations[atom.predicate].indexed = true;
            }
        }
        Database {
            relations,
            by_name: program
                .by_name
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
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

    /// How many facts each predicate has now: a point to [`Database::rollback`] to.
    pub(crate) fn mark(&self) -> Vec<usize> {
        self.relations.iter().map(|r| r.rows.len()).collect()
    }

    /// Forgets every fact added or derived since `mark` was taken.
    pub(crate) fn rollback(&mut self, mark: &[usize]) {
        for (relation, &len) in self.relations.iter_mut().zip(mark) {
            relation.truncate(len);
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
            let candidates: Box<dyn Iterator<Item = &Vec<Value>>> =
                match relation.candidates(&atom.terms, bindings) {
                    Candidates::Some(rows) => {
                        Box::new(rows.iter().filter_map(|&i| relation.rows.get(i)))
                    }
                    Candidates::All => Box::new(relation.rows.iter()),
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

/// Applies `rules` until nothing new is derived. Rules only add facts, so this ends. A stratum
/// whose rules read no predicate they derive is complete after one pass.
pub(super) fn fixpoint(rules: &[Rule], db: &mut Database) {
    let plans: Vec<Vec<&Literal>> = rules.iter().map(ordered).collect();
    let heads: HashSet<usize> = rules.iter().map(|r| r.head.predicate).collect();
    let recursive = rules.iter().flat_map(|r| &r.body).any(|lit| match lit {
        Literal::Pos(a) | Literal::Not(a) => heads.contains(&a.predicate),
        Literal::Compare { .. } => false,
    });
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
        if !grew || !recursive {
            break;
        }
    }
}
