//! Native tool latency on a large graph: indexes a folder once (or reads the snapshot a previous
//! run saved), then prints p50/p99 of the calls `browser-bench.mjs --chain` makes, tool by tool.
//! Usage: `cargo bench -p nexus-tools --bench latency -- DIR [--snapshot FILE] [--symbol NAME]
//! [--query TEXT] [--runs N] [--only LABEL] [--session NAME]` (the kernel: `--symbol kmem_cache_alloc --query
//! "allocate memory from slab cache"`; `--session` makes the calls in an agent's session, as the
//! bridge does). Also prints the search index's build time and heap.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use nexus_engine::{Graph, SearchIndex, Sources, index_workspace, snapshot};
use nexus_shared::Outcome;
use nexus_tools::{ToolContext, ToolMemory, dispatch};
use serde_json::{Value, json};

/// The system allocator, counting live heap bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Milliseconds since the first reading.
fn elapsed_ms() -> f64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// CPU milliseconds this thread has run: what a loaded machine does not inflate, unlike wall
/// time (0 where the bench is only type-checked: wasm32).
#[cfg(target_arch = "wasm32")]
fn thread_cpu_ms() -> f64 {
    0.0
}

/// CPU milliseconds this thread has run: what a loaded machine does not inflate, unlike wall
/// time.
#[cfg(not(target_arch = "wasm32"))]
fn thread_cpu_ms() -> f64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec the call writes into.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } != 0 {
        return 0.0;
    }
    now.tv_sec as f64 * 1000.0 + now.tv_nsec as f64 / 1e6
}

/// The value at quantile `q` of sorted samples.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted.get(at).copied().unwrap_or(0.0)
}

/// The value after `--flag`, if given.
fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// The graph and texts of `dir`: from `snapshot` when that file exists, else indexed (and then
/// saved there when a path is given).
fn load(dir: &Path, snapshot_path: Option<&Path>) -> Result<(Graph, Sources), String> {
    let started = Instant::now();
    if let Some(path) = snapshot_path.filter(|p| p.exists()) {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let restored = snapshot::decode(&bytes).map_err(|e| format!("{e:?}"))?;
        println!(
            "snapshot {} read and decoded in {:.1} s",
            path.display(),
            started.elapsed().as_secs_f64()
        );
        return Ok((restored.graph, restored.workspace.into_sources()));
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let files = nexus_engine::read_tree(dir);
    let (graph, _, workspace) = index_workspace(&name, files, &elapsed_ms, &mut |_, _, _| true)
        .map_err(|_| "indexing was cancelled".to_owned())?;
    println!("indexed in {:.1} s", started.elapsed().as_secs_f64());
    if let Some(path) = snapshot_path {
        let blob = snapshot::encode(&graph, &workspace, 0.0)?;
        std::fs::write(path, blob).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok((graph, workspace.into_sources()))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let with_value = [
        "--snapshot",
        "--symbol",
        "--query",
        "--runs",
        "--only",
        "--session",
    ];
    let Some(dir) = args
        .iter()
        .enumerate()
        .find(|(i, a)| {
            !a.starts_with("--") && (*i == 0 || !with_value.contains(&args[i - 1].as_str()))
        })
        .map(|(_, a)| a.clone())
    else {
        eprintln!(
            "usage: cargo bench -p nexus-tools --bench latency -- DIR [--snapshot FILE] [--symbol NAME] [--query TEXT] [--runs N] [--only LABEL] [--session NAME]"
        );
        std::process::exit(2);
    };
    let snapshot_path = flag(&args, "--snapshot");
    let symbol = flag(&args, "--symbol").unwrap_or_else(|| "main".to_owned());
    let query = flag(&args, "--query").unwrap_or_else(|| "parse the input".to_owned());
    let only = flag(&args, "--only");
    let session = flag(&args, "--session");
    let runs: usize = flag(&args, "--runs")
        .and_then(|n| n.parse().ok())
        .unwrap_or(30);
    let (graph, sources) = match load(Path::new(&dir), snapshot_path.as_deref().map(Path::new)) {
        Ok(loaded) => loaded,
        Err(err) => {
            eprintln!("{dir}: {err}");
            std::process::exit(1);
        }
    };
    let before = LIVE.load(Ordering::Relaxed);
    let started = Instant::now();
    let search = SearchIndex::build(&graph);
    println!(
        "== {} nodes, {} edges, {} files ({:.1} MB of text); search index {:.1} s, {:.1} MB; {runs} runs per call after 5 warm-up",
        graph.node_count(),
        graph.edge_count(),
        sources.len(),
        sources.raw_bytes() as f64 / 1e6,
        started.elapsed().as_secs_f64(),
        (LIVE.load(Ordering::Relaxed) - before) as f64 / 1e6,
    );
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
        session: session.as_deref(),
        cancelled: || false,
        now_ms: 0.0,
    };
    let calls: [(&str, &str, Value); 7] = [
        ("search", "search", json!({"query": query})),
        ("context", "context", json!({})),
        ("explore", "explore", json!({"name": symbol})),
        (
            "impact",
            "impact",
            json!({"target": symbol, "max_depth": 3}),
        ),
        ("grep", "grep", json!({"pattern": "TODO"})),
        (
            "grep ident",
            "grep",
            json!({"pattern": symbol, "limit": 20}),
        ),
        (
            "grep regex",
            "grep",
            json!({"pattern": "def \\w+_view\\(", "limit": 20}),
        ),
    ];
    for (label, tool, call) in calls {
        if only.as_deref().is_some_and(|only| only != label) {
            continue;
        }
        let mut times = Vec::with_capacity(runs);
        let mut cpu_times = Vec::with_capacity(runs);
        let mut first = String::new();
        let mut failed = 0;
        let pages_before = sources.pages_decompressed();
        for i in 0..runs + 5 {
            let (started, cpu_started) = (Instant::now(), thread_cpu_ms());
            let outcome = dispatch(Some(&ctx), tool, call.clone());
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            if i >= 5 {
                times.push(ms);
                cpu_times.push(thread_cpu_ms() - cpu_started);
            }
            if let Outcome::Err(err) = &outcome {
                failed += 1;
                if failed == 1 && i > 0 {
                    println!("{label}: call {i} failed: {err}");
                }
            }
            if first.is_empty() {
                first = match outcome {
                    Outcome::Ok(out) => out.text.lines().next().unwrap_or_default().to_owned(),
                    Outcome::Err(err) => format!("error: {err}"),
                };
                first = first.chars().take(80).collect();
            }
        }
        times.sort_by(f64::total_cmp);
        cpu_times.sort_by(f64::total_cmp);
        let pages = (sources.pages_decompressed() - pages_before) / (runs + 5);
        println!(
            "{label:<11} p50 {:>8.2} ms  p99 {:>8.2} ms  (CPU p50 {:>8.2} ms; {pages} text pages decompressed per call)  {first}",
            quantile(&times, 0.5),
            quantile(&times, 0.99),
            quantile(&cpu_times, 0.5)
        );
    }
}
