//! The JIT tool compiler's benchmark: tables of chat turns over Nexus's, the hosted test servers'
//! and 100+ captured real servers' tools; prints recall, reachability with the tool search,
//! tokens per turn and compile times per turn set and registry size.
//!
//! Turn sets: `own` (bench/tasks.json, the project's turns), `heldout-54` (bench/heldout-54.json,
//! written later over the same 54 tools), `learning` (bench/learning-servers.json: turns over the
//! learning servers, the only ones parameters were chosen on) and `heldout-servers`
//! (bench/heldout-servers.json: turns over the held-out servers); `fresh-54` and `fresh-servers`
//! (bench/heldout-fresh-*.json: held-out turns written in a later stop, measured once); `s41-*`,
//! `s42-*`, `s43-*` and `s48-*` (bench/heldout-sNN-*.json: blind sets, each written by someone
//! who never saw the compiler or a result). Registries: the 54 tools, the 54 with the captured
//! servers a pair of sets names (the middle registry), and the 54 with every captured server
//! (fixtures/registry/servers.json).
//! `--misses` lists each miss; `--set NAME` runs one set; `--rounds N` times N compilations; `--config JSON` a `tool_selection`
//! section other than the defaults; `--store PATH` keeps the tools' vectors in that file across runs;
//! `--half a|b` keeps the learning turns whose first needed server falls in that half (by the
//! second byte of SHA-256 of its id, even or odd): choose on one half, check on the other.
//! `--analyses PATH` takes the tools' analyses from the analysis store at PATH (SQLite, as the
//! bridge writes it; `nexus-bridge analyze-tools` fills one with the configured LLM), the
//! heuristic one for a tool it lacks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use nexus_jit::{
    AnalysisStore, Catalog, CompiledTools, Compiler, Tier, ToolInfo, ToolSelection, TurnFacts,
    best_embedder,
};
use serde::Deserialize;
use serde_json::Value;

/// The hosted servers' real `tools/list`, captured by `fixtures/capture.py`.
const HOSTED: &str = include_str!("../fixtures/hosted-tools.json");
/// Compilations of each task for the timing figures (`--rounds N` for another count).
const ROUNDS: usize = 10;
/// Tools the search returns (`find_tools`), as the chat side asks.
const SEARCH_LIMIT: usize = 5;
/// Captured packages that are the hosted test servers already in the 54 (not added twice).
const HOSTED_PACKAGES: &[&str] = &[
    "@modelcontextprotocol/server-everything",
    "@modelcontextprotocol/server-filesystem",
    "@modelcontextprotocol/server-memory",
    "mcp-server-time",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Task {
    question: String,
    #[serde(default)]
    languages: Vec<String>,
    #[serde(default)]
    frameworks: Vec<String>,
    #[serde(default)]
    used: Vec<String>,
    #[serde(default)]
    focus: Vec<String>,
    /// Each need lists alternatives; any one in full or condensed form satisfies it.
    needs: Vec<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct Table {
    tasks: Vec<Task>,
}

/// One captured server of `fixtures/registry/servers.json`.
#[derive(Debug, Deserialize)]
struct Captured {
    package: String,
    registry: String,
    split: String,
    tools: Vec<Value>,
}

fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The server id of a captured package: `@scope/name` → `scope-name`; a PyPI package whose id an
/// npm one already has gets `-py`.
fn server_id(package: &str, registry: &str, taken: &BTreeSet<String>) -> String {
    let id = package.trim_start_matches('@').replace('/', "-");
    if registry == "pypi" && taken.contains(&id) {
        format!("{id}-py")
    } else {
        id
    }
}

fn tools_of(server: &str, list: &[Value]) -> Result<Vec<ToolInfo>, String> {
    serde_json::from_value(Value::Array(
        list.iter()
            .cloned()
            .map(|mut t| {
                if let Some(o) = t.as_object_mut() {
                    o.insert("server".into(), Value::String(server.to_string()));
                }
                t
            })
            .collect(),
    ))
    .map_err(|e| format!("server {server}: {e}"))
}

/// Nexus's 17 tools and the hosted test servers' 38.
fn registry_54() -> Result<Vec<ToolInfo>, String> {
    let mut tools = ToolInfo::nexus_catalog();
    let hosted: serde_json::Map<String, Value> =
        serde_json::from_str(HOSTED).map_err(|e| format!("hosted-tools.json: {e}"))?;
    for (server, list) in hosted {
        tools.extend(tools_of(
            &server,
            list.as_array().map_or(&[], Vec::as_slice),
        )?);
    }
    Ok(tools)
}

/// The captured servers (id, split, tools), without the hosted ones.
fn captured() -> Result<Vec<(String, String, Vec<ToolInfo>)>, String> {
    let path = bench_dir().join("fixtures/registry/servers.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let servers: Vec<Captured> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut taken = BTreeSet::new();
    let mut out = Vec::new();
    let mut ordered: Vec<&Captured> = servers.iter().filter(|s| s.registry == "npm").collect();
    ordered.extend(servers.iter().filter(|s| s.registry != "npm"));
    for s in ordered {
        if HOSTED_PACKAGES.contains(&s.package.as_str()) {
            continue;
        }
        let id = server_id(&s.package, &s.registry, &taken);
        taken.insert(id.clone());
        let tools = tools_of(&id, &s.tools)?;
        out.push((id, s.split.clone(), tools));
    }
    Ok(out)
}

/// The analysis store at `path` and how many of `tools` it holds an analysis of (for their
/// current schema). A missing file, one that is not an analysis store, an analysis that does not
/// read, or a store with none of `tools` is an error naming the file.
fn stored_analyses(path: &Path, tools: &[ToolInfo]) -> Result<(AnalysisStore, usize), String> {
    let name = path.display();
    if !path.is_file() {
        return Err(format!("--analyses {name}: no such file"));
    }
    let store = AnalysisStore::open(path).map_err(|e| format!("--analyses {name}: {e}"))?;
    let mut found = 0;
    for tool in tools {
        if store
            .get(&tool.key())
            .map_err(|e| format!("--analyses {name}: {}: {e}", tool.id()))?
            .is_some()
        {
            found += 1;
        }
    }
    if found == 0 {
        return Err(format!(
            "--analyses {name}: no analysis of any of the {} tools (for their current schemas)",
            tools.len()
        ));
    }
    Ok((store, found))
}

fn tasks(file: &str) -> Result<Vec<Task>, String> {
    let path = bench_dir().join("bench").join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str::<Table>(&text)
        .map(|t| t.tasks)
        .map_err(|e| format!("{file}: {e}"))
}

/// Whether the learning turn `task` falls in `half` (`a`: its first needed server's id hashes to
/// an even second byte of SHA-256; `b`: odd).
fn in_half(task: &Task, half: &str) -> bool {
    use sha2::Digest;
    let server = task
        .needs
        .first()
        .and_then(|need| need.first())
        .and_then(|tool| tool.split(':').next())
        .unwrap_or_default();
    let odd = sha2::Sha256::digest(server.as_bytes())[1] % 2 == 1;
    odd == (half == "b")
}

fn turn(task: &Task) -> TurnFacts {
    TurnFacts {
        question: task.question.clone(),
        intents: nexus_shared::wording::intents(&task.question)
            .into_iter()
            .map(String::from)
            .collect(),
        languages: task.languages.clone(),
        frameworks: task.frameworks.clone(),
        used_tools: task.used.clone(),
        focus_files: task.focus.clone(),
        ..Default::default()
    }
}

fn shown(out: &CompiledTools, tool: &str) -> bool {
    out.decision(tool)
        .is_some_and(|d| matches!(d.tier, Tier::Full | Tier::Condensed))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

/// One turn set on one registry.
#[derive(Debug, Default)]
struct Figures {
    turns: usize,
    needs: usize,
    met: usize,
    reachable: usize,
    tokens: Vec<usize>,
    tiers: [usize; 3],
    times_ms: Vec<f64>,
    /// The same compilations' CPU time on this thread (Linux), which other programs' load
    /// does not inflate.
    cpu_ms: Vec<f64>,
    /// Their CPU time on all of this process's threads (a model's matrix products may run on
    /// a thread pool).
    process_cpu_ms: Vec<f64>,
    misses: Vec<String>,
    unreachable: Vec<String>,
}

fn measure(compiler: &Compiler, catalog: &Catalog, tasks: &[Task], rounds: usize) -> Figures {
    let mut f = Figures {
        turns: tasks.len(),
        ..Default::default()
    };
    for task in tasks {
        let facts = turn(task);
        let mut out = compiler.compile(&facts, catalog);
        for _ in 1..rounds {
            let (cpu, process) = (thread_cpu_ns(), process_cpu_ns());
            let started = Instant::now();
            out = compiler.compile(&facts, catalog);
            f.times_ms.push(started.elapsed().as_secs_f64() * 1e3);
            if let (Some(before), Some(after)) = (cpu, thread_cpu_ns()) {
                f.cpu_ms.push(after.saturating_sub(before) as f64 / 1e6);
            }
            if let (Some(before), Some(after)) = (process, process_cpu_ns()) {
                f.process_cpu_ms
                    .push(after.saturating_sub(before) as f64 / 1e6);
            }
        }
        f.tokens.push(out.tokens);
        for (i, tier) in [Tier::Full, Tier::Condensed, Tier::Minimal]
            .iter()
            .enumerate()
        {
            f.tiers[i] += out.in_tiers(&[*tier]).count();
        }
        // The model's search: the request's own words, as a model would pass them on.
        let found: Vec<String> = compiler
            .find_tools(catalog, &task.question, SEARCH_LIMIT, Some(&out))
            .into_iter()
            .map(|found| found.tool)
            .collect();
        for need in &task.needs {
            f.needs += 1;
            let met = need.iter().any(|t| shown(&out, t));
            if met {
                f.met += 1;
            } else {
                let seen: Vec<String> = need
                    .iter()
                    .filter_map(|t| out.decision(t))
                    .map(|d| {
                        format!(
                            "{} {:?} {:.0} (logic {:.0}, vector {:.0})",
                            d.tool, d.tier, d.score, d.logic, d.vector
                        )
                    })
                    .collect();
                f.misses
                    .push(format!("  {:?}: {}", task.question, seen.join("; ")));
            }
            if met || need.iter().any(|t| found.contains(t)) {
                f.reachable += 1;
            } else {
                f.unreachable.push(format!(
                    "  {:?}: needs {:?}, search gave {:?}",
                    task.question, need, found
                ));
            }
        }
    }
    f.times_ms.sort_by(f64::total_cmp);
    f.cpu_ms.sort_by(f64::total_cmp);
    f.process_cpu_ms.sort_by(f64::total_cmp);
    f
}

/// This process's resident memory in KiB (`VmRSS` of `/proc/self/status`), 0 when unknown.
fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// This thread's CPU time so far in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`), when known.
#[cfg(unix)]
fn thread_cpu_ns() -> Option<u64> {
    cpu_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// This process's CPU time so far in nanoseconds (`CLOCK_PROCESS_CPUTIME_ID`), when known.
#[cfg(unix)]
fn process_cpu_ns() -> Option<u64> {
    cpu_ns(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// The CPU time of `clock` in nanoseconds, when known.
#[cfg(unix)]
fn cpu_ns(clock: libc::clockid_t) -> Option<u64> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec for the call's duration.
    let status = unsafe { libc::clock_gettime(clock, &mut now) };
    (status == 0).then(|| {
        u64::try_from(now.tv_sec).unwrap_or(0) * 1_000_000_000
            + u64::try_from(now.tv_nsec).unwrap_or(0)
    })
}

/// No thread clock here: wall times only.
#[cfg(not(unix))]
fn thread_cpu_ns() -> Option<u64> {
    None
}

/// No process clock here: wall times only.
#[cfg(not(unix))]
fn process_cpu_ns() -> Option<u64> {
    None
}

/// The embedder's own time per question of `tasks` (`rounds` times each, the first not timed),
/// on this thread: what a turn's embedding costs beside the rules; and, alternating with it (so
/// both see the same load), with the other thread helping from the start (`embed_beside` with
/// nothing beside), as a compile's does once its rules are done.
fn print_embedding(set: &str, compiler: &Compiler, tasks: &[Task], rounds: usize) {
    let embedder = compiler.embedder();
    let (mut wall, mut cpu, mut both) = (Vec::new(), Vec::new(), Vec::new());
    let (mut both_cpu, mut both_all) = (Vec::new(), Vec::new());
    for task in tasks {
        embedder.embed(&task.question);
        for _ in 1..rounds {
            let (before, started) = (thread_cpu_ns(), Instant::now());
            embedder.embed(&task.question);
            wall.push(started.elapsed().as_secs_f64() * 1e3);
            if let (Some(before), Some(after)) = (before, thread_cpu_ns()) {
                cpu.push(after.saturating_sub(before) as f64 / 1e6);
            }
            let (before, all_before, started) = (thread_cpu_ns(), process_cpu_ns(), Instant::now());
            embedder.embed_beside(&task.question, &mut || {});
            both.push(started.elapsed().as_secs_f64() * 1e3);
            if let (Some(before), Some(after), Some(all_before), Some(all_after)) =
                (before, thread_cpu_ns(), all_before, process_cpu_ns())
            {
                both_cpu.push(after.saturating_sub(before) as f64 / 1e6);
                both_all.push(all_after.saturating_sub(all_before) as f64 / 1e6);
            }
        }
    }
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    both.sort_by(f64::total_cmp);
    both_cpu.sort_by(f64::total_cmp);
    both_all.sort_by(f64::total_cmp);
    println!(
        "== {set}: embedding a question ({}): wall p50 {:.3} ms, p95 {:.3} ms; thread CPU p50 {:.3} ms, p95 {:.3} ms ({} runs)",
        embedder.id(),
        percentile(&wall, 0.5),
        percentile(&wall, 0.95),
        percentile(&cpu, 0.5),
        percentile(&cpu, 0.95),
        wall.len()
    );
    println!(
        "   with the other thread helping from the start: wall p50 {:.3} ms, p95 {:.3} ms; this thread's CPU p50 {:.3} ms, all threads' p50 {:.3} ms",
        percentile(&both, 0.5),
        percentile(&both, 0.95),
        percentile(&both_cpu, 0.5),
        percentile(&both_all, 0.5)
    );
}

fn report(set: &str, registry: &str, f: &Figures, all_full: usize, misses: bool) {
    let turns = f.turns.max(1) as f64;
    let mean_tokens = f.tokens.iter().sum::<usize>() as f64 / turns;
    let max_tokens = f.tokens.iter().copied().max().unwrap_or(0);
    println!(
        "== {set} on {registry}: {} turns, {} needs",
        f.turns, f.needs
    );
    println!(
        "   recall full+condensed {}/{} = {:.1} %; reachable with find_tools {}/{} = {:.1} %",
        f.met,
        f.needs,
        100.0 * f.met as f64 / f.needs.max(1) as f64,
        f.reachable,
        f.needs,
        100.0 * f.reachable as f64 / f.needs.max(1) as f64
    );
    println!(
        "   tools per turn: full {:.1}, condensed {:.1}, minimal {:.1}",
        f.tiers[0] as f64 / turns,
        f.tiers[1] as f64 / turns,
        f.tiers[2] as f64 / turns
    );
    println!(
        "   tokens per turn: mean {mean_tokens:.0}, max {max_tokens}; all in full {all_full}; ratio {:.3}",
        mean_tokens / all_full.max(1) as f64
    );
    println!(
        "   compile: p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms ({} runs)",
        percentile(&f.times_ms, 0.5),
        percentile(&f.times_ms, 0.95),
        f.times_ms.last().copied().unwrap_or(0.0),
        f.times_ms.len()
    );
    if !f.cpu_ms.is_empty() {
        println!(
            "   compile CPU time: p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms",
            percentile(&f.cpu_ms, 0.5),
            percentile(&f.cpu_ms, 0.95),
            f.cpu_ms.last().copied().unwrap_or(0.0)
        );
        println!(
            "   compile CPU time, all threads: p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms",
            percentile(&f.process_cpu_ms, 0.5),
            percentile(&f.process_cpu_ms, 0.95),
            f.process_cpu_ms.last().copied().unwrap_or(0.0)
        );
    }
    if misses {
        for m in &f.misses {
            println!("   miss{m}");
        }
        for m in &f.unreachable {
            println!("   unreachable{m}");
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let misses = args.iter().any(|a| a == "--misses");
    let rounds: usize = match args.iter().position(|a| a == "--rounds") {
        Some(i) => args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .filter(|&n| n > 0)
            .ok_or("--rounds: a count of at least 1")?,
        None => ROUNDS,
    };
    let only: Option<&str> = args
        .iter()
        .position(|a| a == "--set")
        .and_then(|i| args.get(i + 1))
        .map(String::as_str);
    let half: Option<&str> = match args.iter().position(|a| a == "--half") {
        Some(i) => Some(
            args.get(i + 1)
                .map(String::as_str)
                .filter(|h| matches!(*h, "a" | "b"))
                .ok_or("--half: a or b")?,
        ),
        None => None,
    };
    let small = registry_54()?;
    let servers = captured()?;
    // (name, file, measured on the 54 too, which middle registry it is measured on)
    let sets: [(&str, &str, bool, usize); 14] = [
        ("own", "tasks.json", true, 0),
        ("heldout-54", "heldout-54.json", true, 0),
        ("learning", "learning-servers.json", false, 0),
        ("heldout-servers", "heldout-servers.json", false, 0),
        ("fresh-54", "heldout-fresh-54.json", true, 1),
        ("fresh-servers", "heldout-fresh-servers.json", false, 1),
        ("s41-54", "heldout-s41-54.json", true, 2),
        ("s41-servers", "heldout-s41-servers.json", false, 2),
        ("s42-54", "heldout-s42-54.json", true, 3),
        ("s42-servers", "heldout-s42-servers.json", false, 3),
        ("s43-54", "heldout-s43-54.json", true, 4),
        ("s43-servers", "heldout-s43-servers.json", false, 4),
        ("s48-54", "heldout-s48-54.json", true, 5),
        ("s48-servers", "heldout-s48-servers.json", false, 5),
    ];
    let tables = sets
        .iter()
        .map(|(_, file, _, _)| tasks(file))
        .collect::<Result<Vec<_>, _>>()?;
    // The middle registries: the 54 and every captured server some turn needs a tool of (one
    // for the first four sets, as earlier stops measured it, one for each later pair).
    let middles = sets.iter().map(|set| set.3).max().unwrap_or(0) + 1;
    let mut named = vec![BTreeSet::new(); middles];
    for ((_, _, _, middle), table) in sets.iter().zip(&tables) {
        named[*middle].extend(
            table
                .iter()
                .flat_map(|t| t.needs.iter().flatten())
                .filter_map(|t| t.split(':').next().map(String::from)),
        );
    }
    let mut middle_tools = vec![small.clone(); middles];
    let mut large = small.clone();
    for (id, _, tools) in &servers {
        for (names, middle) in named.iter().zip(&mut middle_tools) {
            if names.contains(id) {
                middle.extend(tools.iter().cloned());
            }
        }
        large.extend(tools.iter().cloned());
    }
    let held_out = servers.iter().filter(|s| s.1 == "held-out").count();
    // The built-in model when setup has written it (`NEXUS_JIT_MODEL_FILE` names another file).
    let model = std::env::var_os("NEXUS_JIT_MODEL_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| bench_dir().join("../model/static-minilm.nxse"));
    let (rss_before, started) = (resident_kib(), Instant::now());
    let (embedder, fallback) = best_embedder(Some(&model));
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    let model_mib = resident_kib().saturating_sub(rss_before) as f64 / 1024.0;
    let embedder_line = match fallback {
        None => format!(
            "embedder: {} (beside {}; loaded in {load_ms:.0} ms, resident memory +{model_mib:.0} MiB)",
            embedder.id(),
            model.display()
        ),
        Some(why) => format!("embedder: {} (no model: {why})", embedder.id()),
    };
    let config: ToolSelection = match args.iter().position(|a| a == "--config") {
        Some(i) => serde_json::from_str(args.get(i + 1).map_or("", String::as_str))
            .map_err(|e| format!("--config: {e}"))?,
        None => ToolSelection::default(),
    };
    let config_line = serde_json::to_string(&config).unwrap_or_default();
    let compiler = Compiler::new(config, nexus_jit::rules::Program::default_rules(), embedder);
    // Tool vectors are computed once per tool and embedder (a contextual model takes a while
    // over 3,000 tools): in memory, or in the file `--store PATH` names, kept across runs.
    let store = match args.iter().position(|a| a == "--store") {
        Some(i) => AnalysisStore::open(Path::new(args.get(i + 1).map_or("", String::as_str))),
        None => AnalysisStore::in_memory(),
    }
    .map_err(|e| format!("--store: {e}"))?;
    let analyses = match args.iter().position(|a| a == "--analyses") {
        Some(i) => Some(stored_analyses(
            Path::new(args.get(i + 1).ok_or("--analyses: a file")?),
            &small,
        )?),
        None => None,
    };
    let analysis_line = match &analyses {
        Some((_, found)) => format!(
            "analysis: stored for {found} of the {} tools (--analyses), heuristic for the rest",
            small.len()
        ),
        None => "analysis heuristic (no stored LLM analysis)".into(),
    };
    let analysis_store = analyses.as_ref().map_or(&store, |(stored, _)| stored);
    let prepare = |tools: Vec<ToolInfo>| -> (Catalog, f64) {
        let analysed = analysis_store.analysed(tools);
        let started = Instant::now();
        let catalog = compiler.prepare_with_store(analysed.tools, &store);
        (catalog, started.elapsed().as_secs_f64() * 1e3)
    };
    let (catalog_54, prepare_54) = prepare(small);
    let mut prepared_middles = middle_tools.into_iter().map(&prepare);
    let (catalog_middle, prepare_middle) = prepared_middles.next().ok_or("no middle registry")?;
    let later_middles: Vec<Catalog> = prepared_middles.map(|(catalog, _)| catalog).collect();
    let (catalog_large, prepare_large) = prepare(large);
    println!("nexus-jit benchmark; {analysis_line}");
    println!("tool_selection: {config_line}");
    println!("{embedder_line}");
    println!(
        "registries: 54 tools (prepared in {prepare_54:.1} ms); {} tools = the 54 + the captured servers the turns name (prepared in {prepare_middle:.1} ms); {} tools = the 54 + all {} captured servers, {} of them held out (prepared in {prepare_large:.1} ms)",
        catalog_middle.len(),
        catalog_large.len(),
        servers.len(),
        held_out
    );
    for ((set, _, on_54, middle), table) in sets.iter().zip(&tables) {
        if only.is_some_and(|o| o != *set) {
            continue;
        }
        let first = match middle.checked_sub(1) {
            Some(later) => later_middles.get(later).unwrap_or(&catalog_middle),
            None => &catalog_middle,
        };
        let mut registries = vec![first, &catalog_large];
        if *on_54 {
            registries.insert(0, &catalog_54);
        }
        let halved: Vec<Task>;
        let table = match half {
            Some(h) if *set == "learning" => {
                halved = tasks("learning-servers.json")?
                    .into_iter()
                    .filter(|t| in_half(t, h))
                    .collect();
                &halved
            }
            _ => table,
        };
        print_embedding(set, &compiler, table, rounds);
        for catalog in registries {
            let f = measure(&compiler, catalog, table, rounds);
            let name = format!("{} tools", catalog.len());
            let label = match half {
                Some(h) if *set == "learning" => format!("{set} (half {h})"),
                _ => set.to_string(),
            };
            report(&label, &name, &f, catalog.all_full_tokens(), misses);
        }
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("jit-bench: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_analyses_are_read_and_a_malformed_file_is_a_clear_error() -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let tools = registry_54()?;
        let path = dir.path().join("analyses.sqlite");

        let missing = stored_analyses(&path, &tools).err().unwrap_or_default();
        assert!(missing.contains("no such file"), "{missing}");

        std::fs::write(&path, "{\"not\": \"a store\"}\n".repeat(100)).map_err(|e| e.to_string())?;
        let garbage = stored_analyses(&path, &tools).err().unwrap_or_default();
        assert!(
            garbage.starts_with("--analyses ") && garbage.contains("not a database"),
            "{garbage}"
        );
        std::fs::remove_file(&path).map_err(|e| e.to_string())?;

        let store = AnalysisStore::open(&path).map_err(|e| e.to_string())?;
        let empty = stored_analyses(&path, &tools).err().unwrap_or_default();
        assert!(empty.contains("no analysis of any"), "{empty}");

        let mut analysis = nexus_jit::heuristic(&tools[0]);
        analysis.source = nexus_jit::AnalysisSource::Llm;
        analysis.condensed = "Stored line".into();
        store
            .put(&tools[0].key(), &analysis)
            .map_err(|e| e.to_string())?;
        let (read, found) = stored_analyses(&path, &tools)?;
        assert_eq!(found, 1);
        let analysed = read.analysed(tools[..2].to_vec());
        assert_eq!(analysed.tools[0].analysis, analysis);
        assert_eq!(analysed.pending, [tools[1].key()]);

        let db = rusqlite::Connection::open(&path).map_err(|e| e.to_string())?;
        db.execute(
            "UPDATE tool_analysis SET analysis = '{\"categories\": 3}'",
            [],
        )
        .map_err(|e| e.to_string())?;
        let bad = stored_analyses(&path, &tools).err().unwrap_or_default();
        assert!(
            bad.contains(&tools[0].id()) && bad.contains("bad analysis JSON"),
            "{bad}"
        );
        Ok(())
    }

    #[test]
    fn the_tables_are_large_enough_and_name_real_tools() -> Result<(), String> {
        let small = registry_54()?;
        let servers = captured()?;
        assert!(servers.len() >= 100, "{} captured servers", servers.len());
        let mut ids: BTreeSet<String> = small.iter().map(ToolInfo::id).collect();
        let held_out: BTreeSet<&str> = servers
            .iter()
            .filter(|s| s.1 == "held-out")
            .map(|s| s.0.as_str())
            .collect();
        for (_, _, tools) in &servers {
            ids.extend(tools.iter().map(ToolInfo::id));
        }
        assert!(ids.len() >= 500, "{} tools", ids.len());
        for (file, least) in [
            ("tasks.json", 60),
            ("heldout-54.json", 50),
            ("learning-servers.json", 40),
            ("heldout-servers.json", 60),
            ("heldout-fresh-54.json", 25),
            ("heldout-fresh-servers.json", 50),
            ("heldout-s41-54.json", 60),
            ("heldout-s41-servers.json", 80),
            ("heldout-s42-54.json", 60),
            ("heldout-s42-servers.json", 80),
            ("heldout-s43-54.json", 60),
            ("heldout-s43-servers.json", 80),
            ("heldout-s48-54.json", 60),
            ("heldout-s48-servers.json", 80),
        ] {
            let table = tasks(file)?;
            assert!(table.len() >= least, "{file}: {} tasks", table.len());
            for task in &table {
                assert!(!task.needs.is_empty(), "{}", task.question);
                for tool in task.needs.iter().flatten().chain(&task.used) {
                    assert!(
                        ids.contains(tool),
                        "{file}: {:?} names unknown tool {tool}",
                        task.question
                    );
                    let server = tool.split(':').next().unwrap_or_default();
                    // Turns over the learning servers never need a held-out one.
                    assert!(
                        file != "learning-servers.json" || !held_out.contains(server),
                        "{file}: {tool} is on a held-out server"
                    );
                }
            }
        }
        Ok(())
    }
}
