//! Native ingest benchmark: indexes real repository folders and prints per-phase times,
//! throughput, graph size and memory. Usage: `cargo bench -p nexus-engine --bench ingest -- DIR...`
//! (folders from `../shared/corpora/fetch.sh django|effect|tokio`), or `--synthetic N` for a
//! generated repository of N Python files in nested packages that import and call each other.
//! Also times what a reload does instead: search index build, snapshot encode and decode
//! (`--save-snapshot FILE` writes the snapshot, which `nexus-tools`' latency bench reads), and
//! splits the heap kept after indexing into the graph, the texts and the files' facts. On
//! stderr, the heap's high-water between two readings of the pipeline's clock (each resolution
//! lap reads it: `indexes`, `structure` … `graph`, then the layers).
//! `--facts-sample N` instead parses every Nth source file only and prints the heap its facts
//! hold, field by field (each field's heap is that of an exact copy), to see what facts cost.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use nexus_engine::SearchIndex;
use nexus_engine::embed::node_text;
use nexus_engine::fingerprint::Fingerprint;
use nexus_engine::layout;
use nexus_engine::snapshot;
use nexus_engine::{EdgeKind, NodeKind, RefKind};
use nexus_engine::{SourceFile, Workspace, index_workspace};

/// The system allocator, counting live heap bytes and their high-water mark.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The high-water mark since the pipeline last read its clock (each resolution lap reads it).
static TICK_PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
            TICK_PEAK.fetch_max(live, Ordering::Relaxed);
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

/// CPU seconds this process has used (user and system, all threads), from /proc/self/stat; 0
/// where there is none.
fn process_cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name: utime and stime are the 12th and 13th, in clock ticks.
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .map_or(Vec::new(), |(_, rest)| rest.split(' ').collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

/// N small Python files in packages of 100 modules; each imports its neighbour and calls into it.
fn synthetic(n: usize) -> Vec<SourceFile> {
    let mut files = Vec::with_capacity(n + n / 100 + 1);
    for i in 0..n {
        let (pkg, module) = (i / 100, i % 100);
        let next = (module + 1) % 100;
        if module == 0 {
            files.push(SourceFile {
                path: format!("app/pkg{pkg}/__init__.py"),
                bytes: Vec::new(),
            });
        }
        let text = format!(
            "from .m{next} import entry_{next}\n\nclass Service{i}:\n    def run(self, x):\n        return self.step(x) + helper_{i}(x)\n\n    def step(self, x):\n        return entry_{next}(x)\n\ndef helper_{i}(x):\n    return x * 2\n\ndef entry_{module}(x):\n    return Service{i}().run(x)\n"
        );
        files.push(SourceFile {
            path: format!("app/pkg{pkg}/m{module}.py"),
            bytes: text.into_bytes(),
        });
    }
    files
}

/// A corpus to index: its display name and how to load it.
type Job = (String, Box<dyn Fn() -> Vec<SourceFile>>);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut jobs: Vec<Job> = Vec::new();
    let mut save_to: Option<String> = None;
    let mut facts_sample: Option<usize> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--synthetic" => {
                let n: usize = args
                    .get(i + 1)
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(50_000);
                jobs.push((format!("synthetic-{n}"), Box::new(move || synthetic(n))));
                i += 1;
            }
            "--facts-sample" => {
                facts_sample = args.get(i + 1).and_then(|n| n.parse().ok());
                i += 1;
            }
            "--save-snapshot" => {
                save_to = args.get(i + 1).cloned();
                i += 1;
            }
            flag if flag.starts_with("--") => {}
            dir => {
                let dir = dir.to_owned();
                let name = Path::new(&dir)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                jobs.push((
                    name,
                    Box::new(move || nexus_engine::read_tree(Path::new(&dir))),
                ));
            }
        }
        i += 1;
    }
    if jobs.is_empty() {
        eprintln!("usage: cargo bench -p nexus-engine --bench ingest -- [DIR...] [--synthetic N]");
        std::process::exit(2);
    }
    for (name, load) in jobs {
        let read_start = Instant::now();
        let files = load();
        if let Some(every) = facts_sample {
            facts_figures(&name, files, every.max(1));
            continue;
        }
        let read_ms = read_start.elapsed().as_secs_f64() * 1000.0;
        let clock_start = Instant::now();
        // Each reading of the clock (a phase's or a resolution lap's end) prints on stderr the
        // heap's high-water since the previous reading, to find which step sets the peak.
        TICK_PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
        let clock = || {
            let ms = clock_start.elapsed().as_secs_f64() * 1000.0;
            let live = LIVE.load(Ordering::Relaxed);
            let peak = TICK_PEAK.swap(live, Ordering::Relaxed);
            eprintln!(
                "clock {ms:>9.1} ms: heap peak since the last reading {:>7.0} MB, live {:>7.0} MB",
                mb(peak),
                mb(live)
            );
            ms
        };
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let started = Instant::now();
        // A phase runs until its last progress report (resolution reports only at its end):
        // per phase, the process's CPU seconds at that report and the heap peak since the
        // previous phase's (the peak restarts from the live bytes at each report).
        let cpu_start = process_cpu_s();
        let mut turns: Vec<(nexus_engine::Phase, f64, usize)> = Vec::new();
        let mut note_phase = |phase, _, _| {
            let peak = PEAK.swap(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
            match turns.last_mut() {
                Some(turn) if turn.0 == phase => {
                    turn.1 = process_cpu_s();
                    turn.2 = turn.2.max(peak);
                }
                _ => turns.push((phase, process_cpu_s(), peak)),
            }
            true
        };
        let Ok((graph, stats, files)) = index_workspace(&name, files, &clock, &mut note_phase)
        else {
            eprintln!("{name}: cancelled");
            continue;
        };
        let total_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut cpu_before = cpu_start;
        for (phase, cpu, peak) in &turns {
            println!(
                "phase {:<11} CPU {:>7.1} s (all threads), heap peak {:>7.0} MB",
                phase.as_str(),
                cpu - cpu_before,
                mb(*peak)
            );
            cpu_before = *cpu;
        }
        let items = graph.node_count() + graph.edge_count();
        println!("== {name}");
        println!("read or generate: {read_ms:.0} ms (not part of the pipeline)");
        for (phase, ms) in &stats.phase_ms {
            println!("phase {:<8} {ms:>8.1} ms", phase.as_str());
        }
        println!("total          {total_ms:>8.1} ms");
        println!(
            "files: {} seen, {} parsed ({:.1} MB), {:.0} files/s; skipped: {} excluded, {} ignored, {} secret, {} binary, {} too large, {} not source; {} with syntax errors",
            stats.files_seen,
            stats.files_parsed,
            stats.bytes_parsed as f64 / 1e6,
            stats.files_parsed as f64 / (total_ms / 1000.0),
            stats.skipped_excluded,
            stats.skipped_ignored,
            stats.skipped_secret,
            stats.skipped_binary,
            stats.skipped_large,
            stats.skipped_not_source,
            stats.files_with_syntax_errors,
        );
        let kinds: Vec<String> = NodeKind::ALL
            .iter()
            .map(|k| (k, graph.count_nodes(*k)))
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let edges: Vec<String> = EdgeKind::ALL
            .iter()
            .map(|k| (k, graph.count_edges(*k)))
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        println!("nodes: {} ({})", graph.node_count(), kinds.join(", "));
        println!("edges: {} ({})", graph.edge_count(), edges.join(", "));
        // Bands compare in f32, the type confidences are stored in (0.9f32 < 0.9f64).
        // Resolved by scope or type; guesses tools follow; candidates (see `resolve::confidence`).
        let bands: [(f32, f32, &str); 3] = [
            (0.92, 2.0, "≥0.92"),
            (0.5, 0.92, "0.5–0.92"),
            (0.0, 0.5, "<0.5"),
        ];
        let band_text: Vec<String> = bands
            .iter()
            .map(|(lo, hi, label)| {
                let n = graph
                    .edges()
                    .iter()
                    .filter(|e| {
                        e.kind == EdgeKind::Calls && e.confidence >= *lo && e.confidence < *hi
                    })
                    .count();
                format!("{label} {n}")
            })
            .collect();
        println!("CALLS by confidence: {}", band_text.join(" · "));
        println!(
            "call sites: {} ({} resolved, {:.1}%); imports: {} ({} resolved); {}",
            stats.resolve.call_sites,
            stats.resolve.calls_resolved,
            100.0 * stats.resolve.calls_resolved as f64 / stats.resolve.call_sites.max(1) as f64,
            stats.resolve.imports,
            stats.resolve.imports_resolved,
            if stats.resolve.memo_over_budget {
                format!(
                    "memo over its budget (let go at {:.1} MB): none kept, the next change resolves every file",
                    mb(stats.resolve.memo_most_bytes)
                )
            } else {
                format!(
                    "memo kept for incremental resolution ({:.1} MB)",
                    mb(stats.resolve.memo_most_bytes)
                )
            },
        );
        let references = graph.references();
        let by_kind: Vec<String> = RefKind::ALL
            .iter()
            .map(|k| {
                let n = references.iter().filter(|r| r.kind == *k).count();
                format!("{} {n}", k.as_str())
            })
            .collect();
        let followed = references.iter().filter(|r| r.confidence >= 0.5).count();
        println!(
            "references (not calls): {} ({}); {followed} at ≥0.5; {:.1} MB in the graph",
            references.len(),
            by_kind.join(", "),
            mb(std::mem::size_of_val(references)),
        );
        let bytes = graph.heap_bytes();
        println!(
            "graph memory: {:.1} MB, {:.0} bytes per node+edge",
            bytes as f64 / 1e6,
            bytes as f64 / items.max(1) as f64
        );
        println!(
            "heap: the files read {:.1} MB; during the pipeline at most {:.1} MB more; after it, graph and files {:.1} MB",
            mb(before),
            mb(PEAK.load(Ordering::Relaxed) - before),
            mb(LIVE.load(Ordering::Relaxed)),
        );
        reload_figures(&graph, &files, save_to.as_deref());
        text_figures(&graph, &files);
        picture_figures(&graph);
        let packed = files.sources().packed_bytes();
        let live = LIVE.load(Ordering::Relaxed);
        drop(files);
        let workspace = live - LIVE.load(Ordering::Relaxed);
        let live = LIVE.load(Ordering::Relaxed);
        drop(graph);
        println!(
            "kept after indexing: graph {:.1} MB; files {:.1} MB (texts {:.1} MB packed, facts and the rest {:.1} MB)",
            mb(live - LIVE.load(Ordering::Relaxed)),
            mb(workspace),
            mb(packed),
            mb(workspace.saturating_sub(packed)),
        );
    }
}

/// The compressed texts: pages decompressed by the index, then by the passes that read every
/// file (fingerprint, embedding texts), each with its time.
fn text_figures(graph: &nexus_engine::Graph, files: &Workspace) {
    let sources = files.sources();
    let pages = sources.page_count();
    let indexed = sources.pages_decompressed();
    let pass = |run: &dyn Fn()| {
        let (t, before) = (Instant::now(), sources.pages_decompressed());
        run();
        (
            sources.pages_decompressed() - before,
            t.elapsed().as_secs_f64() * 1000.0,
        )
    };
    let (fingerprint, fingerprint_ms) = pass(&|| {
        Fingerprint::of(graph, sources, 0.0);
    });
    let (embed, embed_ms) = pass(&|| {
        for node in graph.nodes() {
            node_text(graph, &node, sources);
        }
    });
    println!(
        "texts: {pages} pages; decompressed {indexed} while indexing, {fingerprint} by the fingerprint ({fingerprint_ms:.0} ms), {embed} by every node's embedding text ({embed_ms:.0} ms)"
    );
}

/// The graph picture's layout and the size of what the worker sends the page for it.
fn picture_figures(graph: &nexus_engine::Graph) {
    let t = Instant::now();
    let view = layout::layout(graph);
    let layout_ms = t.elapsed().as_secs_f64() * 1000.0;
    let bytes = postcard::to_allocvec(&view).map_or(0, |b| b.len());
    println!(
        "layout {layout_ms:.1} ms: {} nodes, {} edges, {} groups; {:.1} MB to the page",
        view.nodes.len(),
        view.edges.len(),
        view.groups.len(),
        bytes as f64 / 1e6
    );
}

/// Search index build and the snapshot round trip a reload performs instead of indexing.
fn reload_figures(graph: &nexus_engine::Graph, files: &Workspace, save_to: Option<&str>) {
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let search = SearchIndex::build(graph);
    let search_ms = ms(t);
    println!(
        "search index: {:.1} MB kept, {:.1} MB at most while built",
        mb(LIVE.load(Ordering::Relaxed) - before),
        mb(PEAK.load(Ordering::Relaxed) - before)
    );
    drop(search);
    let t = Instant::now();
    let blob = match snapshot::encode(graph, files, 0.0) {
        Ok(blob) => blob,
        Err(err) => return eprintln!("snapshot: {err}"),
    };
    let encode_ms = ms(t);
    let t = Instant::now();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let decoded = snapshot::decode(&blob);
    let decode_ms = ms(t);
    let beside_blob = PEAK.load(Ordering::Relaxed) - before;
    if let Err(err) = decoded {
        return eprintln!("snapshot: {err}");
    }
    drop(decoded);
    println!(
        "search index build {search_ms:.1} ms; snapshot {:.1} MB (files {:.1} MB as {:.1} MB of pages), encode {encode_ms:.1} ms, decode {decode_ms:.1} ms; reload = decode + search index ≈ {:.0} ms",
        blob.len() as f64 / 1e6,
        files.sources().raw_bytes() as f64 / 1e6,
        files.sources().packed_bytes() as f64 / 1e6,
        decode_ms + search_ms
    );
    // The same snapshot read a piece at a time from a file, as a tab reads it from its Blob.
    let path = save_to.map_or_else(
        || std::env::temp_dir().join(format!("nexus-ingest-{}.snap", std::process::id())),
        std::path::PathBuf::from,
    );
    if let Err(err) = std::fs::write(&path, &blob) {
        return eprintln!("{}: {err}", path.display());
    }
    let blob_bytes = blob.len();
    drop(blob);
    let t = Instant::now();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let decoded = std::fs::File::open(&path)
        .map_err(|e| e.to_string())
        .and_then(|file| snapshot::decode_from(file).map_err(|e| e.to_string()));
    let streamed_ms = ms(t);
    let (kept, peak) = (
        LIVE.load(Ordering::Relaxed) - before,
        PEAK.load(Ordering::Relaxed) - before,
    );
    if save_to.is_none() {
        let _ = std::fs::remove_file(&path);
    }
    if let Err(err) = decoded {
        return eprintln!("snapshot: {err}");
    }
    println!(
        "decode heap: {:.1} MB kept; at most {:.1} MB from the whole blob in memory (its {:.1} MB and {:.1} MB beside it), {:.1} MB read in pieces from a file ({streamed_ms:.1} ms)",
        mb(kept),
        mb(blob_bytes + beside_blob),
        mb(blob_bytes),
        mb(beside_blob),
        mb(peak),
    );
}

/// The heap an exact copy of `field` of every one of `facts` holds.
fn copy_heap<T: Clone>(
    facts: &[nexus_engine::FileFacts],
    field: impl Fn(&nexus_engine::FileFacts) -> &T,
) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    let copies: Vec<T> = facts.iter().map(|f| field(f).clone()).collect();
    let held = LIVE.load(Ordering::Relaxed) - before - copies.capacity() * size_of::<T>();
    drop(copies);
    held
}

/// Every `every`th source file parsed; the heap their facts hold as extracted and, by field, as
/// exact copies (what a compact representation would start from).
fn facts_figures(name: &str, files: Vec<nexus_engine::SourceFile>, every: usize) {
    let filtered = nexus_engine::filter_files(files, &|| 0.0);
    let sample: Vec<_> = filtered.to_parse.into_iter().step_by(every).collect();
    let count = sample.len();
    // The sample's bytes are freed as it is parsed: counted back in.
    let sample_bytes: usize = sample.iter().map(|(_, file)| file.bytes.capacity()).sum();
    let before = LIVE.load(Ordering::Relaxed);
    let (cpu_start, wall_start) = (process_cpu_s(), Instant::now());
    let mut facts = Vec::with_capacity(count);
    let mut rest = sample;
    while !rest.is_empty() {
        let tail = rest.split_off(rest.len().saturating_sub(256));
        facts.extend(nexus_engine::parse_files(tail).into_iter().map(|p| p.facts));
    }
    println!(
        "== {name}: parsed {count} files in {:.1} CPU-s ({:.1} s wall)",
        process_cpu_s() - cpu_start,
        wall_start.elapsed().as_secs_f64()
    );
    let extracted = (LIVE.load(Ordering::Relaxed) + sample_bytes).saturating_sub(before);
    let exact = copy_heap(&facts, |f| f) + count * size_of::<nexus_engine::FileFacts>();
    println!(
        "== {name}: facts of {count} files (every {every}th): {:.1} MB as extracted, {:.1} MB as exact copies; ×{every}: {:.0} MB",
        mb(extracted),
        mb(exact),
        mb(extracted * every)
    );
    macro_rules! fields {
        ($($field:ident),* $(,)?) => {{
            let mut sizes = vec![$((stringify!($field), copy_heap(&facts, |f| &f.$field))),*];
            sizes.sort_by(|a, b| b.1.cmp(&a.1));
            for (field, bytes) in sizes.iter().take(12) {
                println!("  {field:<22} {:>8.1} MB (×{every}: {:>6.0} MB)", mb(*bytes), mb(bytes * every));
            }
        }};
    }
    fields!(
        path,
        defs,
        imports,
        calls,
        bindings,
        call_bindings,
        element_bindings,
        path_bindings,
        binding_spans,
        call_binding_spans,
        element_binding_spans,
        closure_bindings,
        closure_binding_spans,
        tuple_returns,
        closure_params,
        locals,
        type_aliases,
        type_alias_lines,
        type_params,
        type_param_traits,
        attr_type_args,
        impl_arguments,
        deref_targets,
        conformances,
        attr_bindings,
        attr_calls,
        package,
        test_spans,
        module_paths,
        test_modules,
        stand_in_macros,
        item_macros,
        ref_names,
        refs,
    );
}
