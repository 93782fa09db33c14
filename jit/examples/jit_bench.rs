//! The JIT tool compiler's benchmark: a table of chat turns over Nexus's and the hosted test
//! servers' real tools; prints recall of needed tools, tokens per turn and compile times.

use std::time::Instant;

use nexus_jit::{
    AnalysisStore, CompiledTools, Compiler, Tier, ToolInfo, ToolSelection, TurnFacts, best_embedder,
};
use serde::Deserialize;
use serde_json::Value;

/// The turns, with the tools a correct answer needs.
const TASKS: &str = include_str!("../bench/tasks.json");
/// The hosted servers' real `tools/list`, captured by `fixtures/capture.py`.
const HOSTED: &str = include_str!("../fixtures/hosted-tools.json");
/// Compilations of each task for the timing figures.
const ROUNDS: usize = 30;

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

fn registry() -> Result<Vec<ToolInfo>, String> {
    let mut tools = ToolInfo::nexus_catalog();
    let hosted: serde_json::Map<String, Value> =
        serde_json::from_str(HOSTED).map_err(|e| format!("hosted-tools.json: {e}"))?;
    for (server, list) in hosted {
        let list: Vec<ToolInfo> = serde_json::from_value(Value::Array(
            list.as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|mut t| {
                    if let Some(o) = t.as_object_mut() {
                        o.insert("server".into(), Value::String(server.clone()));
                    }
                    t
                })
                .collect(),
        ))
        .map_err(|e| format!("hosted-tools.json, server {server}: {e}"))?;
        tools.extend(list);
    }
    Ok(tools)
}

fn tasks() -> Result<Vec<Task>, String> {
    serde_json::from_str::<Table>(TASKS)
        .map(|t| t.tasks)
        .map_err(|e| format!("tasks.json: {e}"))
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

fn run() -> Result<(), String> {
    let tools = registry()?;
    let tasks = tasks()?;
    let store = AnalysisStore::in_memory().map_err(|e| e.to_string())?;
    let analysed = store.analysed(tools);
    // The built-in model when setup has written it (`NEXUS_JIT_MODEL_FILE` names another file).
    let model = std::env::var_os("NEXUS_JIT_MODEL_FILE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/static-minilm.nxse")
        });
    let (embedder, fallback) = best_embedder(Some(&model));
    let embedder_line = match fallback {
        None => format!("embedder: {} ({})", embedder.id(), model.display()),
        Some(why) => format!("embedder: {} (no model: {why})", embedder.id()),
    };
    let compiler = Compiler::new(
        ToolSelection::default(),
        nexus_jit::rules::Program::default_rules(),
        embedder,
    );
    let prepare_started = Instant::now();
    let catalog = compiler.prepare(analysed.tools.clone());
    let prepare_ms = prepare_started.elapsed().as_secs_f64() * 1e3;
    let all_full = catalog.all_full_tokens();

    let (mut needs, mut met) = (0usize, 0usize);
    let mut tokens = Vec::new();
    let mut tiers = [0usize; 3];
    let mut misses = Vec::new();
    let mut times_ms = Vec::new();
    for task in &tasks {
        let facts = turn(task);
        let mut out = compiler.compile(&facts, &catalog);
        for _ in 1..ROUNDS {
            let started = Instant::now();
            out = compiler.compile(&facts, &catalog);
            times_ms.push(started.elapsed().as_secs_f64() * 1e3);
        }
        tokens.push(out.tokens);
        for (i, tier) in [Tier::Full, Tier::Condensed, Tier::Minimal]
            .iter()
            .enumerate()
        {
            tiers[i] += out.in_tiers(&[*tier]).count();
        }
        for need in &task.needs {
            needs += 1;
            if need.iter().any(|t| shown(&out, t)) {
                met += 1;
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
                misses.push(format!(
                    "  {:?} intents {:?}: {}",
                    task.question,
                    facts.intents,
                    seen.join("; ")
                ));
            }
        }
    }
    times_ms.sort_by(f64::total_cmp);
    let turns = tasks.len().max(1) as f64;
    let mean_tokens = tokens.iter().sum::<usize>() as f64 / turns;
    let max_tokens = tokens.iter().copied().max().unwrap_or(0);

    let servers: std::collections::BTreeSet<&str> = analysed
        .tools
        .iter()
        .map(|t| t.info.server.as_str())
        .collect();
    println!(
        "nexus-jit benchmark: {} tasks, {} tools ({} servers), default tool_selection",
        tasks.len(),
        analysed.tools.len(),
        servers.len()
    );
    println!("{embedder_line}");
    println!(
        "analysis: heuristic for all {} tools (no stored LLM analysis)",
        analysed.pending.len()
    );
    println!(
        "recall of needed tools in full+condensed: {met}/{needs} = {:.1} %",
        100.0 * met as f64 / needs.max(1) as f64
    );
    println!(
        "tools per turn: full {:.1}, condensed {:.1}, minimal {:.1} (skeleton of 3 included in full)",
        tiers[0] as f64 / turns,
        tiers[1] as f64 / turns,
        tiers[2] as f64 / turns
    );
    println!(
        "tokens per turn: mean {mean_tokens:.0}, max {max_tokens}; all tools in full form: {all_full}; ratio {:.3}",
        mean_tokens / all_full.max(1) as f64
    );
    println!(
        "compile per turn ({} runs): p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms",
        times_ms.len(),
        percentile(&times_ms, 0.5),
        percentile(&times_ms, 0.95),
        times_ms.last().copied().unwrap_or(0.0)
    );
    println!("catalog preparation (once per registry change): {prepare_ms:.2} ms");
    if !misses.is_empty() {
        println!("misses:");
        for m in misses {
            println!("{m}");
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
    fn the_table_is_large_enough_and_names_real_tools() -> Result<(), String> {
        let tools = registry()?;
        let tasks = tasks()?;
        assert!(tools.len() >= 40, "{} tools", tools.len());
        assert!(tasks.len() >= 60, "{} tasks", tasks.len());
        let ids: Vec<String> = tools.iter().map(ToolInfo::id).collect();
        for task in &tasks {
            assert!(!task.needs.is_empty(), "{}", task.question);
            for tool in task.needs.iter().flatten().chain(&task.used) {
                assert!(
                    ids.contains(tool),
                    "{:?} names unknown tool {tool}",
                    task.question
                );
            }
        }
        Ok(())
    }
}
