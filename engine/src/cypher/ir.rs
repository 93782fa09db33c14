//! The types the query stages hand each other: compiled expressions, the plan (steps, scan
//! candidates, the RETURN plan) and a row's bindings. Defined here, below every stage, so
//! imports follow the pipeline: lexer → parser → plan → exec → project.

use regex_lite::Regex;

use super::ast::{BinaryOp, Direction};
use super::schema::{KindSet, NodeProp, RelProp, TypeSet};
use super::value::Value;
use crate::graph::Edge;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScalarFn {
    ToLower,
    ToUpper,
    Size,
}

#[derive(Debug, Clone)]
pub(super) enum CExpr {
    Const(Value),
    /// A node variable: its stable id.
    NodeRef(usize),
    /// A relationship variable: its type (a list of types for a variable-length one).
    EdgeRef(usize),
    NodeProp(usize, NodeProp),
    EdgeProp(usize, RelProp),
    Labels(usize),
    HasKinds(usize, KindSet),
    List(Vec<CExpr>),
    Not(Box<CExpr>),
    And(Vec<CExpr>),
    Or(Vec<CExpr>),
    Xor(Vec<CExpr>),
    /// Comparisons, string predicates and `IN`.
    Binary(BinaryOp, Box<CExpr>, Box<CExpr>),
    /// `=~` with its pattern compiled to match the whole string.
    Regex(Box<CExpr>, Regex),
    /// `IS NULL`, or `IS NOT NULL` when the flag is set.
    IsNull(Box<CExpr>, bool),
    Scalar(ScalarFn, Box<CExpr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AggFn {
    Count,
    Collect,
    Min,
    Max,
    Sum,
    Avg,
}

impl AggFn {
    pub const NAMES: [(&str, AggFn); 6] = [
        ("count", AggFn::Count),
        ("collect", AggFn::Collect),
        ("min", AggFn::Min),
        ("max", AggFn::Max),
        ("sum", AggFn::Sum),
        ("avg", AggFn::Avg),
    ];

    pub fn parse(name: &str) -> Option<AggFn> {
        AggFn::NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| *f)
    }
}

#[derive(Debug, Clone)]
pub(super) enum Column {
    Value(CExpr),
    /// An aggregate; `arg` is `None` for `count(*)`.
    Aggregate {
        func: AggFn,
        arg: Option<CExpr>,
        distinct: bool,
    },
}

#[derive(Debug, Clone)]
pub(super) enum SortSource {
    Column(usize),
    /// An expression over the matched row (only without DISTINCT and aggregates).
    Expr(CExpr),
}

#[derive(Debug, Clone)]
pub(super) struct SortKey {
    pub source: SortSource,
    pub descending: bool,
}

#[derive(Debug, Clone)]
pub(super) struct ReturnPlan {
    pub columns: Vec<String>,
    pub items: Vec<Column>,
    pub distinct: bool,
    pub order: Vec<SortKey>,
    pub skip: usize,
    pub limit: Option<usize>,
}

/// The nodes a scan tries, in id order.
pub(super) enum Candidates<'g> {
    All,
    Ids(&'g [u32]),
    Owned(Vec<u32>),
}

pub(super) struct Plan<'g> {
    /// Row width: one slot per node, named relationship and hidden anonymous node.
    pub slots: usize,
    pub clauses: Vec<ClausePlan<'g>>,
    pub ret: ReturnPlan,
    pub notes: Vec<String>,
}

pub(super) struct ClausePlan<'g> {
    pub optional: bool,
    /// Slots this clause binds first; set to null when an OPTIONAL MATCH finds nothing.
    pub new_slots: Vec<usize>,
    /// Conditions on variables bound before this clause (or on none).
    pub entry_filters: Vec<CExpr>,
    pub steps: Vec<Step<'g>>,
}

pub(super) struct Step<'g> {
    pub op: Op<'g>,
    /// Conditions whose variables are all bound once this step has run.
    pub filters: Vec<CExpr>,
}

pub(super) enum Op<'g> {
    /// Binds `slot` to each candidate node of one of `kinds`.
    Scan {
        slot: usize,
        candidates: Candidates<'g>,
        kinds: KindSet,
    },
    /// Tests a node bound earlier.
    Check {
        slot: usize,
        kinds: KindSet,
    },
    Expand(Expand),
}

/// Follows relationships from the node in `from` to the node in `to`.
pub(super) struct Expand {
    pub from: usize,
    pub to: usize,
    /// `to` was bound earlier: the far end must be that node.
    pub to_bound: bool,
    pub to_kinds: KindSet,
    pub edge: Option<usize>,
    /// Direction relative to the walk (flipped when walking against the pattern).
    pub dir: Direction,
    pub types: TypeSet,
    pub edge_filters: Vec<(RelProp, Value)>,
    pub variable: bool,
    pub min_hops: u32,
    pub max_hops: u32,
    /// The walk runs against the pattern's order, so a bound path is reversed.
    pub reversed: bool,
}

/// What a row slot holds.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Binding {
    Null,
    Node(u32),
    Edge(Edge),
    /// The relationships of a variable-length pattern, in pattern order.
    Path(Vec<Edge>),
}
