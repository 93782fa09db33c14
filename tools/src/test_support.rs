//! Test fixtures shared by the tool and router tests: a small Python shop indexed into a graph,
//! and helpers that build a `ToolContext` over it and read outcomes.

use nexus_shared::{ErrorCode, Outcome};

use super::{ToolContext, ToolMemory};
use nexus_engine::Graph;
use nexus_engine::SearchIndex;
use nexus_engine::{SourceFile, Sources, index, index_with_sources};

pub fn error_code(outcome: Outcome) -> ErrorCode {
    match outcome {
        Outcome::Err(err) => err.code,
        Outcome::Ok(out) => panic!("expected an error, got {}", out.text),
    }
}

pub fn text(outcome: Outcome) -> String {
    match outcome {
        Outcome::Ok(out) => out.text,
        Outcome::Err(err) => panic!("expected an answer, got {err}"),
    }
}

/// Runs `f` with the tools' view of a graph.
pub fn with(graph: Graph, f: impl FnOnce(&ToolContext)) {
    with_sources(graph, Sources::new(), f);
}

/// Runs `f` with the tools' view of a graph and its sources, at time 0 with an empty cache.
pub fn with_sources(graph: Graph, sources: Sources, f: impl FnOnce(&ToolContext)) {
    let search = SearchIndex::build(&graph);
    let memory = ToolMemory::default();
    f(&ToolContext {
        graph: &graph,
        search: &search,
        sources: &sources,
        previous: None,
        working_changes: None,
        changed_ms: None,
        memory: &memory,
        now_ms: 0.0,
        clock: ticking_clock,
        session: None,
        cancelled: || false,
    });
}

/// The fixture with its sources, plus a README and a secret that must never be readable.
pub fn with_fixture_sources(f: impl FnOnce(&ToolContext)) {
    let mut files = fixture_files();
    files.push(SourceFile {
        path: "README.md".into(),
        bytes: b"# Shop\nCall charge() to pay.\n".to_vec(),
    });
    files.push(SourceFile {
        path: ".env".into(),
        bytes: b"TOKEN=secret\n".to_vec(),
    });
    let (graph, sources) = indexed(files);
    with_sources(graph, sources, f);
}

/// Indexes `files` as the project `shop`; an empty graph if indexing fails.
pub fn indexed(files: Vec<SourceFile>) -> (Graph, Sources) {
    index_with_sources("shop", files, &|| 0.0, &mut |_, _, _| true)
        .map(|(graph, _, sources)| (graph, sources))
        .unwrap_or_default()
}

pub fn fixture() -> Graph {
    index("shop", fixture_files(), &|| 0.0, &mut |_, _, _| true)
        .map(|(g, _)| g)
        .unwrap_or_default()
}

pub fn fixture_files() -> Vec<SourceFile> {
    vec![
        SourceFile { path: "shop/cart.py".into(), bytes: b"from shop.pay import charge\n\nclass Cart:\n    def total(self):\n        return 1\n\n    def checkout(self):\n        \"\"\"Pays for the cart.\"\"\"\n        charge(self.total())\n        self.log()\n\n    def log(self):\n        return 2\n\ndef main():\n    Cart().checkout()\n    Cart().total()\n".to_vec() },
        SourceFile { path: "shop/pay.py".into(), bytes: b"def charge(x):\n    return validate(x)\n\ndef validate(x):\n    return x\n".to_vec() },
    ]
}

/// A clock for tests on every target: each reading is one millisecond after the previous one.
pub fn ticking_clock() -> f64 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static TICKS: AtomicU32 = AtomicU32::new(0);
    f64::from(TICKS.fetch_add(1, Ordering::Relaxed))
}
