//! The syntax tree of the supported Cypher subset, as the parser builds it. Names keep their
//! byte position so the planner can point at the offending text.

use super::value::Value;

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Query {
    pub clauses: Vec<MatchClause>,
    pub ret: Return,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct MatchClause {
    pub optional: bool,
    pub patterns: Vec<PathPattern>,
    pub filter: Option<Expr>,
}

/// A node followed by zero or more (relationship, node) hops.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PathPattern {
    pub start: NodePattern,
    pub hops: Vec<(RelPattern, NodePattern)>,
}

/// A name as written and where; equality ignores the position.
#[derive(Debug, Clone)]
pub(super) struct Name {
    pub text: String,
    pub pos: usize,
}

impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct NodePattern {
    pub var: Option<Name>,
    /// Alternatives: the node has any one of these labels.
    pub labels: Vec<Name>,
    pub props: Vec<(Name, Expr)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    /// `-[]->`
    Out,
    /// `<-[]-`
    In,
    /// `-[]-`
    Both,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct RelPattern {
    pub var: Option<Name>,
    /// Alternatives: the relationship has any one of these types.
    pub types: Vec<Name>,
    pub direction: Direction,
    /// `*`, `*n`, `*min..max` as written; `None` for a single hop.
    pub length: Option<Length>,
    pub props: Vec<(Name, Expr)>,
    pub pos: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Length {
    pub min: Option<u32>,
    pub max: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Return {
    pub distinct: bool,
    /// `RETURN *`: every named variable.
    pub star: bool,
    pub items: Vec<ReturnItem>,
    pub order: Vec<SortItem>,
    pub skip: Option<Expr>,
    pub limit: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct ReturnItem {
    pub expr: Expr,
    pub alias: Option<Name>,
    /// The expression as written, the column name when there is no alias.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct SortItem {
    pub expr: Expr,
    pub descending: bool,
}

/// An expression and where it starts; equality ignores the position.
#[derive(Debug, Clone)]
pub(super) struct Expr {
    pub kind: ExprKind,
    pub pos: usize,
}

impl PartialEq for Expr {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum ExprKind {
    Literal(Value),
    Param(String),
    Var(String),
    Property(String, Name),
    List(Vec<Expr>),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Xor(Vec<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `x =~ pattern`.
    Regex(Box<Expr>, Box<Expr>),
    /// `x IS NULL`, or `x IS NOT NULL` when the flag is set.
    IsNull(Box<Expr>, bool),
    /// `a:Function|Method` as a predicate.
    HasLabels(String, Vec<Name>),
    Call {
        name: Name,
        distinct: bool,
        args: Vec<Expr>,
    },
    CountStar,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BinaryOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Contains,
    StartsWith,
    EndsWith,
    In,
}
