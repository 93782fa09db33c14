//! Declarative selection rules: a small Datalog (facts, rules, stratified negation, `=`/`!=`)
//! loaded at run time from a file the user can replace, evaluated bottom-up over a turn's facts.
//!
//! Why our own evaluator: the maintained Datalog crates for Rust either compile their rules
//! into the program with macros (`ascent`, `crepe`), so a user cannot edit them without a
//! rebuild, or take rules as Rust join code with no parser (`datafrog`), or are whole
//! databases far beyond a few hundred facts a turn (`cozo`, `nemo`); `asdi` parses text but
//! has had no release for years. The rules here need joins
//! over a few hundred facts, negation and a parser with line/column errors: about 500 lines.

mod eval;
mod parse;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

pub(crate) use eval::Database;

/// The default rules, shipped with Nexus (`jit/rules/default.rules`).
pub const DEFAULT_RULES: &str = include_str!("../../rules/default.rules");

/// A constant of the rules: a string (quoted, or a lowercase word) or an integer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// A string or symbol.
    Str(Arc<str>),
    /// An integer.
    Int(i64),
}

impl Value {
    /// A string value.
    pub fn str(s: &str) -> Value {
        Value::Str(Arc::from(s))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Int(n) => write!(f, "{n}"),
        }
    }
}

/// An error in a rules text, with where it is (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rules, line {line}, column {column}: {message}")]
pub struct RuleError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
struct Predicate {
    name: String,
    arity: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Term {
    Var(usize),
    Const(Value),
    Wildcard,
}

#[derive(Debug, Clone, PartialEq)]
struct Atom {
    predicate: usize,
    terms: Vec<Term>,
}

#[derive(Debug, Clone, PartialEq)]
enum Literal {
    Pos(Atom),
    Not(Atom),
    Compare {
        left: Term,
        right: Term,
        equal: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
struct Rule {
    head: Atom,
    body: Vec<Literal>,
    vars: usize,
    line: usize,
}

/// A parsed, stratified rules program.
#[derive(Debug, Clone)]
pub struct Program {
    predicates: Vec<Predicate>,
    by_name: HashMap<String, usize>,
    /// Rules grouped by stratum, lowest first; facts of the text are rules with no body.
    strata: Vec<Vec<Rule>>,
}

impl Program {
    /// Predicates the compiler reads or asserts, with their arities: a rules text that uses
    /// one with another arity is an error where it does.
    pub const BUILT_IN: &'static [(&'static str, usize)] = &[
        // Derived, read by the compiler.
        ("boost", 3),
        ("skeleton", 1),
        // Asserted per tool.
        ("tool", 1),
        ("server", 2),
        ("name", 2),
        ("name_word", 2),
        ("category", 2),
        ("capability", 2),
        ("domain", 2),
        ("shard_affinity", 3),
        ("online", 1),
        ("offline", 1),
        ("configured_skeleton", 1),
        // Asserted per turn.
        ("intent", 1),
        ("language", 1),
        ("framework", 1),
        ("used", 1),
        ("focus_file", 1),
        ("focus_ext", 1),
        ("word", 1),
        ("shard", 1),
    ];

    /// Parses and stratifies `text`. Errors name the line and column.
    pub fn parse(text: &str) -> Result<Program, RuleError> {
        let (predicates, rules) = parse::parse(text)?;
        let strata = stratify(&predicates, rules)?;
        let by_name = predicates
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i))
            .collect();
        Ok(Program {
            predicates,
            by_name,
            strata,
        })
    }

    /// The shipped default rules.
    pub fn default_rules() -> Program {
        match Program::parse(DEFAULT_RULES) {
            Ok(p) => p,
            // The default text is checked by a test; this arm is never reached.
            Err(_) => Program {
                predicates: Vec::new(),
                by_name: HashMap::new(),
                strata: Vec::new(),
            },
        }
    }

    /// The number of rules and facts in the text.
    pub fn len(&self) -> usize {
        self.strata.iter().map(Vec::len).sum()
    }

    /// True for a text with no rules or facts.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An empty database for this program's predicates.
    pub(crate) fn database(&self) -> Database {
        Database::new(self)
    }

    /// Runs every stratum to its fixpoint over `db` (made by [`Program::database`] of this
    /// program), adding what the rules derive.
    pub(crate) fn evaluate(&self, db: &mut Database) {
        for stratum in &self.strata {
            eval::fixpoint(stratum, db);
        }
    }
}

/// Orders rules so that what a rule negates is complete before it runs. A predicate's stratum
/// is at least each positive body predicate's and above each negated one's; a negation inside
/// recursion has no stratum and is an error at the rule that closes the loop.
fn stratify(predicates: &[Predicate], rules: Vec<Rule>) -> Result<Vec<Vec<Rule>>, RuleError> {
    let n = predicates.len();
    let mut stratum = vec![0usize; n];
    let mut changed = true;
    while changed {
        changed = false;
        for rule in &rules {
            let h = rule.head.predicate;
            for lit in &rule.body {
                let need = match lit {
                    Literal::Pos(a) => stratum[a.predicate],
                    Literal::Not(a) => stratum[a.predicate] + 1,
                    Literal::Compare { .. } => continue,
                };
                if need > stratum[h] {
                    stratum[h] = need;
                    changed = true;
                    if need > n {
                        return Err(RuleError {
                            line: rule.line,
                            column: 1,
                            message: format!(
                                "'{}' depends on its own negation (no stratified order exists)",
                                predicates[h].name
                            ),
                        });
                    }
                }
            }
        }
    }
    let top = rules
        .iter()
        .map(|r| stratum[r.head.predicate])
        .max()
        .unwrap_or(0);
    let mut strata = vec![Vec::new(); top + 1];
    for rule in rules {
        strata[stratum[rule.head.predicate]].push(rule);
    }
    Ok(strata)
}

#[cfg(test)]
mod tests;
