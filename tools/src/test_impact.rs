//! `test_impact`: for changed files, the symbols they define, everything upstream of them (to
//! `max_depth`, tests included), the processes touched, a risk level, and the test files to run.

use std::collections::BTreeSet;

use nexus_shared::params::{Format, TestImpactParams};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::json;

use super::ToolContext;
use super::budget::Budget;
use super::neighbours::processes;
use nexus_engine::is_test;
use nexus_engine::{EdgeKind, Graph, NodeRef, Toward, Walk};

/// Edges below this confidence are not followed (and counted, to say the answer is a lower bound).
const MIN_CONFIDENCE: f32 = nexus_shared::params::FOLLOWED_CONFIDENCE as f32;

pub fn run(ctx: &ToolContext, p: &TestImpactParams) -> Result<String, ToolError> {
    let g = ctx.graph;
    if p.changed_files.is_empty() {
        return Err(
            ToolError::new(ErrorCode::InvalidParams, "`changed_files` is empty")
                .with_hint("pass repository-relative paths, e.g. [\"shop/cart.py\"]"),
        );
    }
    let mut unknown = Vec::new();
    let mut start: Vec<u32> = Vec::new();
    for path in &p.changed_files {
        let path = path.trim().trim_start_matches("./");
        match g.find_id(&format!("File:{path}")) {
            Some(file) => {
                start.push(file);
                start.extend(
                    g.outgoing(file)
                        .filter(|e| e.kind == EdgeKind::Defines)
                        .map(|e| e.to),
                );
            }
            None => unknown.push(path.to_owned()),
        }
    }
    if start.is_empty() {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!(
                "none of the changed files is indexed: {}",
                unknown.join(", ")
            ),
        ));
    }
    let Reach {
        symbols,
        tests,
        flows,
        cut,
    } = reach(g, &start, p.max_depth.clamp(1, 6));
    let direct = symbols.iter().filter(|(_, d)| *d == 1).count();
    let score = (direct * 3 + symbols.len() + flows.len() * 2) as u32;
    let level = match score {
        0 => "NONE",
        1..=9 => "LOW",
        10..=39 => "MEDIUM",
        40..=119 => "HIGH",
        _ => "CRITICAL",
    };
    let lower_bound = (cut > 0).then(|| {
        format!("Lower bound: {cut} edges below confidence {MIN_CONFIDENCE} were not followed.")
    });
    if p.format == Some(Format::Json) {
        return Ok(json!({
            "changed_files": p.changed_files, "unknown_files": unknown, "risk_score": score, "risk": level,
            "affected_symbols": symbols.iter().map(|(x, d)| json!({"id": x.stable_id(), "depth": d})).collect::<Vec<_>>(),
            "processes": flows, "tests": tests, "lower_bound": lower_bound,
        }).to_string());
    }
    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "# test impact of {} changed files — risk {level} (score {score})",
        p.changed_files.len()
    ));
    out.header(&format!(
        "{} affected symbols ({direct} direct) · {} processes · {} test files",
        symbols.len(),
        flows.len(),
        tests.len()
    ));
    if !unknown.is_empty() {
        out.header(&format!("not indexed: {}", unknown.join(", ")));
    }
    if let Some(note) = &lower_bound {
        out.header(note);
    }
    out.header("## Tests to run");
    if tests.is_empty() {
        out.header("No test in the graph reaches the changed code; consider adding one.");
    }
    for t in &tests {
        out.item(&format!("- {t}"));
    }
    if !flows.is_empty() {
        out.header("## Processes touched");
        for f in &flows {
            out.item(&format!("- {f}"));
        }
    }
    out.header("## Affected symbols");
    for (x, d) in &symbols {
        out.item(&format!(
            "- depth {d}: {} `{}` — {}",
            x.kind(),
            x.stable_id(),
            x.location()
        ));
    }
    Ok(out.finish())
}

/// What a change reaches upstream (calls, imports, heritage) from its start nodes.
pub struct Reach<'g> {
    /// Production symbols reached, with their depth, breadth-first.
    pub symbols: Vec<(NodeRef<'g>, u32)>,
    /// Files of the tests reached, or started from.
    pub tests: BTreeSet<String>,
    /// Processes a start or a reached node is a step of.
    pub flows: BTreeSet<String>,
    /// Edges below the confidence floor that were not followed.
    pub cut: usize,
}

/// Walks upstream from `start` to `max_depth` at the tools' confidence floor: the symbols, tests
/// and processes a change to the start nodes may affect (`test_impact`, and `diff` with `base`).
pub fn reach<'g>(g: &'g Graph, start: &[u32], max_depth: u32) -> Reach<'g> {
    let walked = g.walk(
        start,
        &Walk {
            toward: Toward::Upstream,
            edges: &[
                EdgeKind::Calls,
                EdgeKind::Imports,
                EdgeKind::Extends,
                EdgeKind::Implements,
            ],
            min_confidence: MIN_CONFIDENCE,
            max_depth,
            stop: &|_| false,
            skip: &|_| false,
            until: None,
        },
    );
    let tests = start
        .iter()
        .chain(walked.reached.iter().map(|r| &r.node))
        .filter_map(|&n| g.node(n))
        .filter(|n| is_test(n))
        .map(|n| n.file().to_owned())
        .collect();
    let symbols = walked
        .reached
        .iter()
        .filter_map(|r| g.node(r.node).map(|x| (x, r.depth)))
        .filter(|(x, _)| x.kind().is_symbol() && !is_test(x))
        .collect();
    let flows = start
        .iter()
        .chain(walked.reached.iter().map(|r| &r.node))
        .flat_map(|&n| processes(g, n))
        .map(|x| x.name().to_owned())
        .collect();
    Reach {
        symbols,
        tests,
        flows,
        cut: walked.cut,
    }
}
