//! Property tests: the planner and plan rendering never panic, whatever the question, and
//! every plan has at least one step naming a catalog tool.

use nexus_shared::ToolName;
use nexus_shared::params::Format;
use proptest::prelude::*;

use super::planner::plan;
use crate::test_support::{fixture_files, indexed};
use crate::{ToolContext, ToolMemory};
use nexus_engine::SearchIndex;

/// Words the router reacts to, mixed into random questions to reach its branches.
const VOCABULARY: &[&str] = &[
    "who",
    "calls",
    "and",
    "then",
    "explain",
    "it",
    "its",
    "callers",
    "of",
    "change",
    "breaks",
    "lines",
    "10-20",
    "shop/cart.py",
    "cart.py",
    "grep",
    "TODO",
    "\"",
    "`",
    "'",
    "/",
    "similar",
    "trace",
    "from",
    "to",
    "process",
    "processes",
    "cluster",
    "MATCH",
    "RETURN",
    "tests",
    "cover",
    "chekout",
    "charge",
    "Cart.total",
    "Method:shop/cart.py:Cart.checkout",
    "by",
    "line",
    "$",
    "é",
    "İ",
    "\u{0}",
    "?",
    "…",
    "find",
    "function",
];

fn question() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(prop::sample::select(VOCABULARY), 0..12)
            .prop_map(|words| words.join(" ")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn the_planner_never_panics(q in question()) {
        let (graph, sources) = indexed(fixture_files());
        let search = SearchIndex::build(&graph);
        let memory = ToolMemory::default();
        let ctx = ToolContext { graph: &graph, search: &search, sources: &sources, previous: None, working_changes: None, changed_ms: None, memory: &memory, now_ms: 0.0, clock: crate::test_support::ticking_clock, cancelled: || false, session: None };
        let planned = plan(&ctx, &q);
        prop_assert!(!planned.steps.is_empty());
        for step in &planned.steps {
            prop_assert!(ToolName::parse(&step.tool).is_some(), "{}", step.tool);
            prop_assert!(step.depends_on.iter().all(|&d| d < planned.steps.len()));
        }
        let _ = planned.render(Format::Markdown);
        let _ = planned.render(Format::Json);
    }
}
