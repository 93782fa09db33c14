//! Live-update benchmark: what following a save on disk costs the engine. Indexes a folder, then
//! applies single-file edits of different sizes and a batch of many files, timing each phase and
//! checking the result against a full index; `--replay` applies consecutive versions of a project
//! (folders of released versions) and checks every step against a full index of that version.
//!
//! Each change is timed up to the edges and their search index (what a tool call waits for), and
//! apart from that the layers that follow in the background (communities, processes, summaries,
//! the search index again; their phases are printed in brackets). The search index is made from
//! the previous one; `--fresh-search` builds it afresh instead, for comparison.
//!
//! `cargo bench -p nexus-engine --bench live -- DIR [--edits 50] [--batch 200] [--long 1000]`
//! `cargo bench -p nexus-engine --bench live -- --replay DIR1 DIR2 …`
//! `cargo bench -p nexus-engine --bench live -- --git REPO N` (the last N commits of a git
//! repository, one at a time)

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use nexus_engine::{FileChange, Graph, SearchIndex, SourceFile, Workspace, index_workspace};

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

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// Milliseconds this thread has run on a CPU (Linux: `/proc/thread-self/schedstat`), so an
/// edit's cost can be read apart from the machine's load; `None` elsewhere.
fn thread_cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e6)
}

/// The thread's CPU milliseconds since `start` (0 where unknown).
fn cpu_since(start: Option<f64>) -> f64 {
    start.zip(thread_cpu_ms()).map_or(0.0, |(a, b)| b - a)
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let i = ((values.len() as f64 - 1.0) * p).round() as usize;
    values.get(i).copied().unwrap_or(0.0)
}

fn flag(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// A count given right after the `--git REPO` pair (`--git REPO 30`), else 20.
fn flag_after(args: &[String], at: usize) -> usize {
    args.get(at).and_then(|n| n.parse().ok()).unwrap_or(20)
}

/// A change writing `bytes` to `path`.
fn write(path: &str, bytes: Vec<u8>) -> FileChange {
    FileChange::Write(SourceFile {
        path: path.to_owned(),
        bytes,
    })
}

/// Every file of a version as the engine takes them.
fn source_files(files: &BTreeMap<String, Vec<u8>>) -> Vec<SourceFile> {
    files
        .iter()
        .map(|(path, bytes)| SourceFile {
            path: path.clone(),
            bytes: bytes.clone(),
        })
        .collect()
}

fn index(name: &str, files: Vec<SourceFile>) -> (Graph, Workspace) {
    let clock_start = Instant::now();
    let clock = || clock_start.elapsed().as_secs_f64() * 1000.0;
    match index_workspace(name, files, &clock, &mut |_, _, _| true) {
        Ok((graph, _, ws)) => (graph, ws),
        Err(_) => (Graph::default(), Workspace::default()),
    }
}

/// A function appended to a file in its own language, calling `callee` when it has one: a
/// definition and a call edge the graph must gain.
fn appended(path: &str, text: &str, k: usize) -> String {
    let ext = path.rsplit('.').next().unwrap_or("");
    let body = match ext {
        "py" => format!("\n\ndef nexus_live_edit_{k}():\n    return len([])\n"),
        "js" | "ts" | "tsx" | "jsx" | "mjs" => {
            format!("\nexport function nexusLiveEdit{k}() {{ return Math.max(1, 2); }}\n")
        }
        "rs" => format!("\npub fn nexus_live_edit_{k}() -> usize {{ std::cmp::max(1, 2) }}\n"),
        "go" => format!("\nfunc NexusLiveEdit{k}() int {{ return len(\"\") }}\n"),
        "java" => format!("\n// nexus live edit {k}\n"),
        _ => format!("\n# nexus live edit {k}\n"),
    };
    format!("{text}{body}")
}

/// One timed application of changes: the edges and their search index (what a tool call waits
/// for), then the layers that follow in the background (communities, processes, summaries, and
/// the search index again for the texts they changed).
struct Timed {
    total_ms: f64,
    /// This thread's CPU time over the same span as `total_ms`.
    cpu_ms: f64,
    /// Source files whose calls and references were resolved again.
    resolved: usize,
    phases: Vec<(String, f64)>,
    search_ms: f64,
    background_ms: f64,
}

/// How the search index follows a new graph.
#[derive(Clone, Copy)]
enum Search {
    /// Made from the previous index (`SearchIndex::rebuilt`).
    Rebuilt,
    /// Built afresh (`SearchIndex::build`), for comparison (`--fresh-search`).
    Fresh,
}

fn follow(index: &mut SearchIndex, graph: &Graph, how: Search) -> f64 {
    let s = Instant::now();
    *index = match how {
        Search::Rebuilt => SearchIndex::rebuilt(std::mem::take(index), graph),
        Search::Fresh => SearchIndex::build(graph),
    };
    ms(s)
}

/// Applies `changes` up to the edges and makes their search index (timed apart, after the old
/// graph is dropped), then adds the layers and follows them with the search index again.
fn apply(
    ws: &mut Workspace,
    graph: &mut Graph,
    search: (&mut SearchIndex, Search),
    changes: Vec<FileChange>,
) -> Timed {
    let clock_start = Instant::now();
    let clock = || clock_start.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let cpu = thread_cpu_ms();
    let Ok((rebuilt, applied)) = ws.apply_edges(changes, &clock, &mut |_, _, _| true) else {
        return Timed {
            total_ms: ms(t),
            cpu_ms: cpu_since(cpu),
            resolved: 0,
            phases: Vec::new(),
            search_ms: 0.0,
            background_ms: 0.0,
        };
    };
    let mut phases: Vec<(String, f64)> = applied
        .phase_ms
        .iter()
        .map(|(p, ms)| (p.as_str().to_owned(), *ms))
        .chain(
            applied
                .resolve_parts
                .iter()
                .map(|(part, ms)| (format!("resolve/{part}"), *ms)),
        )
        .collect();
    let (index, how) = search;
    let Some((new, _, layers)) = rebuilt else {
        return Timed {
            total_ms: ms(t),
            cpu_ms: cpu_since(cpu),
            resolved: applied.resolved,
            phases,
            search_ms: 0.0,
            background_ms: 0.0,
        };
    };
    let mut new = new;
    // As the worker does: folders and files keep their summaries until the layers are added.
    let carrying = Instant::now();
    nexus_engine::carry_summaries(graph, &mut new);
    phases.push(("carry summaries".into(), ms(carrying)));
    drop(std::mem::replace(graph, new));
    let search_ms = follow(index, graph, how);
    let total_ms = ms(t);
    let cpu_ms = cpu_since(cpu);
    let b = Instant::now();
    let (layered, layer_ms) = layers.add_to(std::mem::take(graph), &clock);
    *graph = layered;
    phases.extend(
        layer_ms
            .iter()
            .map(|(p, ms)| (format!("({})", p.as_str()), *ms)),
    );
    let again = follow(index, graph, how);
    phases.push(("(search again)".into(), again));
    Timed {
        total_ms,
        cpu_ms,
        resolved: applied.resolved,
        phases,
        search_ms,
        background_ms: ms(b),
    }
}

/// Whether the graph equals a full index of the workspace's files as they now are.
fn equals_full_index(name: &str, graph: &Graph, files: &BTreeMap<String, Vec<u8>>) -> bool {
    let (full, _) = index(name, source_files(files));
    let (a, b) = (graph.canonical_dump(), full.canonical_dump());
    if a != b {
        let missing = b
            .iter()
            .filter(|l| !a.contains(l))
            .take(5)
            .collect::<Vec<_>>();
        let extra = a
            .iter()
            .filter(|l| !b.contains(l))
            .take(5)
            .collect::<Vec<_>>();
        eprintln!("DIFFERS: missing {missing:#?}\nextra {extra:#?}");
    }
    a == b
}

fn edits(dir: &str, args: &[String], how: Search) {
    let name = Path::new(dir)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let read = nexus_engine::read_tree(Path::new(dir));
    let mut files: BTreeMap<String, Vec<u8>> = read
        .iter()
        .map(|f| (f.path.clone(), f.bytes.clone()))
        .collect();
    let t = Instant::now();
    let (mut graph, mut ws) = index(&name, read);
    let full_ms = ms(t);
    let heap_fresh = LIVE.load(Ordering::Relaxed);
    let t = Instant::now();
    let mut search = SearchIndex::build(&graph);
    let search_ms = ms(t);
    println!(
        "== {name}: full index {full_ms:.0} ms, {} nodes, {} edges; search index built in {search_ms:.0} ms",
        graph.node_count(),
        graph.edge_count()
    );
    // Source files of the graph, from the smallest to the largest.
    let mut sources: Vec<(String, usize)> = graph
        .nodes()
        .filter(|n| n.kind() == nexus_engine::NodeKind::File)
        .map(|n| n.file().to_owned())
        .filter_map(|p| files.get(&p).map(|b| (p, b.len())))
        .collect();
    sources.sort_by_key(|(p, len)| (*len, p.clone()));
    if sources.is_empty() {
        return println!("no source files");
    }
    let n = flag(args, "--edits", 50);
    let mut totals = Vec::new();
    let mut cpu = Vec::new();
    let mut resolved = Vec::new();
    let mut background = Vec::new();
    let mut by_phase: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut equal = 0;
    let mut checked = 0;
    for k in 0..n {
        let (path, _) = &sources[k * (sources.len() - 1) / n.saturating_sub(1).max(1)];
        let text = String::from_utf8_lossy(&files[path]).into_owned();
        let new = appended(path, &text, k);
        files.insert(path.clone(), new.clone().into_bytes());
        let timed = apply(
            &mut ws,
            &mut graph,
            (&mut search, how),
            vec![write(path, new.into_bytes())],
        );
        totals.push(timed.total_ms);
        cpu.push(timed.cpu_ms);
        resolved.push(timed.resolved as f64);
        background.push(timed.background_ms);
        for (phase, ms) in timed.phases {
            by_phase.entry(phase).or_default().push(ms);
        }
        by_phase
            .entry("search index".into())
            .or_default()
            .push(timed.search_ms);
        if k % 10 == 0 {
            checked += 1;
            equal += usize::from(equals_full_index(&name, &graph, &files));
        }
    }
    println!(
        "{n} single-file edits (smallest to largest file): p50 {:.1} ms, p95 {:.1} ms; equal to a full index {equal}/{checked} times checked",
        percentile(&mut totals.clone(), 0.5),
        percentile(&mut totals, 0.95)
    );
    println!(
        "  of which on this thread's CPU (apart from the machine's load): p50 {:.1} ms, p95 {:.1} ms",
        percentile(&mut cpu.clone(), 0.5),
        percentile(&mut cpu, 0.95)
    );
    println!(
        "  files resolved again per edit: p50 {:.0}, p95 {:.0}, of {}",
        percentile(&mut resolved.clone(), 0.5),
        percentile(&mut resolved, 0.95),
        sources.len()
    );
    println!(
        "  then in the background (phases in brackets): p50 {:.1} ms, p95 {:.1} ms",
        percentile(&mut background.clone(), 0.5),
        percentile(&mut background, 0.95)
    );
    for (phase, mut values) in by_phase {
        println!(
            "  {phase:<13} p50 {:>7.1} ms  p95 {:>7.1} ms",
            percentile(&mut values.clone(), 0.5),
            percentile(&mut values, 0.95)
        );
    }
    let batch = flag(args, "--batch", 200).min(sources.len());
    let changes: Vec<FileChange> = sources
        .iter()
        .step_by((sources.len() / batch.max(1)).max(1))
        .take(batch)
        .map(|(path, _)| {
            let text = String::from_utf8_lossy(&files[path]).into_owned();
            let new = appended(path, &text, 10_000);
            files.insert(path.clone(), new.clone().into_bytes());
            write(path, new.into_bytes())
        })
        .collect();
    let count = changes.len();
    let timed = apply(&mut ws, &mut graph, (&mut search, how), changes);
    println!(
        "a batch of {count} files ({} resolved again): {:.0} ms ({:.0} ms on this thread's CPU), then {:.0} ms in the background ({}, search index {:.0} ms); equal to a full index: {}",
        timed.resolved,
        timed.total_ms,
        timed.cpu_ms,
        timed.background_ms,
        timed
            .phases
            .iter()
            .map(|(p, ms)| format!("{p} {ms:.0} ms"))
            .collect::<Vec<_>>()
            .join(", "),
        timed.search_ms,
        equals_full_index(&name, &graph, &files)
    );
    let long = flag(args, "--long", 0);
    if long > 0 {
        for k in 0..long {
            let (path, _) = &sources[(k * 7919) % sources.len()];
            let text = String::from_utf8_lossy(&files[path]).into_owned();
            // Alternate between two versions so the project does not grow without end.
            let new = if k % 2 == 0 {
                appended(path, &text, k)
            } else {
                text.clone()
            };
            files.insert(path.clone(), new.clone().into_bytes());
            apply(
                &mut ws,
                &mut graph,
                (&mut search, how),
                vec![write(path, new.into_bytes())],
            );
        }
        drop(search);
        let heap_after = LIVE.load(Ordering::Relaxed);
        drop(graph);
        let without_graph = LIVE.load(Ordering::Relaxed);
        drop(ws);
        let base = LIVE.load(Ordering::Relaxed);
        // The files handed to the fresh index are consumed by it: what stays is its graph and
        // workspace, measured from the same base.
        let (fresh_graph, fresh_ws) = index(&name, source_files(&files));
        let fresh = LIVE.load(Ordering::Relaxed) - base;
        drop(fresh_graph);
        let fresh_files = LIVE.load(Ordering::Relaxed) - base;
        drop(fresh_ws);
        println!(
            "after {long} more edits: graph and files {:.1} MB on the heap; a fresh index of the same files {:.1} MB ({:+.1} %); at the start {:.1} MB",
            (heap_after - base) as f64 / 1e6,
            fresh as f64 / 1e6,
            100.0 * ((heap_after - base) as f64 - fresh as f64) / fresh.max(1) as f64,
            (heap_fresh - base.min(heap_fresh)) as f64 / 1e6,
        );
        println!(
            "  the graph {:.1} MB (fresh {:.1} MB), the files {:.1} MB (fresh {:.1} MB)",
            (heap_after - without_graph) as f64 / 1e6,
            (fresh - fresh_files) as f64 / 1e6,
            (without_graph - base) as f64 / 1e6,
            fresh_files as f64 / 1e6,
        );
    }
}

/// What `git` prints, or nothing when it fails.
fn git(repo: &str, args: &[&str]) -> Vec<u8> {
    std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| o.stdout)
        .unwrap_or_default()
}

/// Every file of `commit` in a git repository.
fn tree_at(repo: &str, commit: &str) -> BTreeMap<String, Vec<u8>> {
    let list = git(repo, &["ls-tree", "-r", "--name-only", "-z", commit]);
    list.split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .map(|path| {
            let bytes = git(repo, &["show", &format!("{commit}:{path}")]);
            (path, bytes)
        })
        .collect()
}

/// Replays the last `n` commits of a git repository, one at a time.
fn replay_git(repo: &str, n: usize, how: Search) {
    let log = String::from_utf8_lossy(&git(
        repo,
        &[
            "log",
            "--first-parent",
            "--format=%H",
            &format!("-{}", n + 1),
        ],
    ))
    .into_owned();
    let commits: Vec<&str> = log.lines().rev().collect();
    if commits.len() < 2 {
        return eprintln!("--git {repo}: fewer than two commits");
    }
    let versions: Vec<Version> = commits
        .iter()
        .map(|c| {
            let (repo, c) = (repo.to_owned(), (*c).to_owned());
            let label = c[..8.min(c.len())].to_owned();
            (label, Box::new(move || tree_at(&repo, &c)) as Load)
        })
        .collect();
    replay_versions(&versions, how);
}

/// Applies each version's differences to the previous one's workspace and checks the result
/// against a full index of that version.
fn replay(dirs: &[String], how: Search) {
    let versions: Vec<Version> = dirs
        .iter()
        .map(|dir| {
            let dir = dir.clone();
            (
                dir.clone(),
                Box::new(move || {
                    nexus_engine::read_tree(Path::new(&dir))
                        .into_iter()
                        .map(|f| (f.path, f.bytes))
                        .collect()
                }) as Load,
            )
        })
        .collect();
    replay_versions(&versions, how);
}

/// How to read one version's files.
type Load = Box<dyn Fn() -> BTreeMap<String, Vec<u8>>>;
/// A version's label and how to read its files.
type Version = (String, Load);

fn replay_versions(versions: &[Version], how: Search) {
    let Some((first, load_first)) = versions.first() else {
        return eprintln!("--replay needs at least two versions");
    };
    let name = "replay";
    let mut files = load_first();
    let mut equal = 0;
    let (mut graph, mut ws) = index(name, source_files(&files));
    let mut search = SearchIndex::build(&graph);
    println!("== replay from {first}: {} nodes", graph.node_count());
    for (dir, load) in &versions[1..] {
        let next = load();
        let mut changes = Vec::new();
        for (path, bytes) in &next {
            if files.get(path) != Some(bytes) {
                changes.push(write(path, bytes.clone()));
            }
        }
        for path in files.keys().filter(|p| !next.contains_key(*p)) {
            changes.push(FileChange::Remove(path.clone()));
        }
        let count = changes.len();
        let timed = apply(&mut ws, &mut graph, (&mut search, how), changes);
        files = next;
        let t = Instant::now();
        let same = equals_full_index(name, &graph, &files);
        equal += usize::from(same);
        println!(
            "→ {dir}: {count} files changed, applied in {:.0} ms (search index {:.0} ms) then {:.0} ms in the background; a full index {:.0} ms; equal to a full index: {same}",
            timed.total_ms,
            timed.search_ms,
            timed.background_ms,
            ms(t)
        );
    }
    println!(
        "{equal} of {} steps equal to a full index",
        versions.len() - 1
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let how = if args.iter().any(|a| a == "--fresh-search") {
        Search::Fresh
    } else {
        Search::Rebuilt
    };
    if let Some(i) = args.iter().position(|a| a == "--git") {
        let repo = args.get(i + 1).cloned().unwrap_or_else(|| ".".into());
        return replay_git(&repo, flag_after(&args, i + 2), how);
    }
    if let Some(i) = args.iter().position(|a| a == "--replay") {
        let dirs: Vec<String> = args[i + 1..]
            .iter()
            .filter(|a| !a.starts_with("--"))
            .cloned()
            .collect();
        return replay(&dirs, how);
    }
    match args
        .iter()
        .find(|a| !a.starts_with("--") && a.parse::<usize>().is_err())
    {
        Some(dir) => edits(dir, &args, how),
        None => eprintln!(
            "usage: cargo bench -p nexus-engine --bench live -- DIR [--edits N] [--batch N] [--long N] | --replay DIR1 DIR2 … | --git REPO N [--fresh-search]"
        ),
    }
}
