//! Native `grep` benchmark: indexes a corpus folder (the texts the tab would hold), then prints
//! p50/p99 of `grep` calls through `tools::dispatch`. Usage: `cargo bench -p nexus-tools --bench grep -- DIR`.

use std::path::Path;
use std::time::Instant;

use nexus_engine::{SearchIndex, index_with_sources};
use nexus_shared::Outcome;
use nexus_tools::{ToolContext, ToolMemory, dispatch};
use serde_json::json;

const RUNS: usize = 200;

/// Milliseconds since the first reading.
fn elapsed_ms() -> f64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// The value at quantile `q` of sorted samples.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted.get(at).copied().unwrap_or(0.0)
}

fn main() {
    let Some(dir) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("usage: cargo bench -p nexus-tools --bench grep -- DIR");
        std::process::exit(2);
    };
    let root = Path::new(&dir);
    let files = nexus_engine::read_tree(root);
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok((graph, _, sources)) = index_with_sources(&name, files, &|| 0.0, &mut |_, _, _| true)
    else {
        eprintln!("{name}: indexing was cancelled");
        std::process::exit(1);
    };
    let bytes: usize = sources.raw_bytes();
    println!(
        "== {name}: {} files, {:.1} MB of text; {RUNS} runs per pattern",
        sources.len(),
        bytes as f64 / 1e6
    );
    let search = SearchIndex::build(&graph);
    let memory = ToolMemory::default();
    let ctx = ToolContext {
        graph: &graph,
        search: &search,
        sources: &sources,
        previous: None,
        working_changes: None,
        changed_ms: None,
        memory: &memory,
        clock: elapsed_ms,
        session: None,
        cancelled: || false,
        now_ms: 0.0,
    };
    for (label, args) in [
        ("literal TODO", json!({"pattern": "TODO"})),
        (
            "literal TODO, case-sensitive",
            json!({"pattern": "TODO", "case_sensitive": true}),
        ),
        ("identifier", json!({"pattern": "get_object_or_404"})),
        (
            "regex def \\w+_view\\(",
            json!({"pattern": "def \\w+_view\\("}),
        ),
        (
            "literal, **/*.py, 2 context lines",
            json!({"pattern": "TODO", "file_pattern": "**/*.py", "context_lines": 2}),
        ),
        ("no match", json!({"pattern": "zqxjv_never_here"})),
    ] {
        let mut times = Vec::with_capacity(RUNS);
        let mut first = String::new();
        for _ in 0..RUNS {
            let started = Instant::now();
            let outcome = dispatch(Some(&ctx), "grep", args.clone());
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            if first.is_empty() {
                first = match outcome {
                    Outcome::Ok(out) => out.text.lines().next().unwrap_or_default().to_owned(),
                    Outcome::Err(err) => format!("error: {err}"),
                };
            }
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{label:<36} p50 {:>7.2} ms  p99 {:>7.2} ms  {first}",
            quantile(&times, 0.5),
            quantile(&times, 0.99)
        );
    }
}
