//! `find_similar`: symbols structurally like one — same kind, shared callers and callees
//! (Jaccard overlap), same community, similar signature shape and name parts — ranked by score.

use std::collections::HashSet;

use nexus_shared::ToolError;
use nexus_shared::params::{FindSimilarParams, Format};
use serde_json::json;

use super::budget::Budget;
use super::neighbours::community;
use super::{ToolContext, target};
use nexus_engine::tokens;
use nexus_engine::{EdgeKind, Graph};

fn neighbours(g: &Graph, n: u32, incoming: bool) -> HashSet<u32> {
    if incoming {
        g.incoming(n)
            .filter(|e| e.kind == EdgeKind::Calls)
            .map(|e| e.from)
            .collect()
    } else {
        g.outgoing(n)
            .filter(|e| e.kind == EdgeKind::Calls)
            .map(|e| e.to)
            .collect()
    }
}

fn jaccard<T: Eq + std::hash::Hash>(a: &HashSet<T>, b: &HashSet<T>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        0.0
    } else {
        a.intersection(b).count() as f64 / union as f64
    }
}

/// Parameter count from a signature's first parenthesised list (0 when there is none).
fn arity(signature: &str) -> usize {
    let inner = signature
        .split_once('(')
        .and_then(|(_, r)| r.split_once(')'))
        .map_or("", |(i, _)| i);
    inner
        .split(',')
        .filter(|p| {
            !p.trim().is_empty() && !matches!(p.trim(), "self" | "&self" | "&mut self" | "cls")
        })
        .count()
}

pub fn run(ctx: &ToolContext, p: &FindSimilarParams) -> Result<String, ToolError> {
    let g = ctx.graph;
    let node = target::resolve(ctx, &p.name)?;
    let id = node.id;
    let (callers, callees) = (neighbours(g, id, true), neighbours(g, id, false));
    let home = community(g, id).map(|c| c.id);
    let name_parts: HashSet<String> = tokens(node.name()).into_iter().collect();
    let params = arity(node.signature());
    // Candidates: nodes sharing a caller or callee, plus the same community's members.
    let mut candidates: HashSet<u32> = HashSet::new();
    for &c in &callers {
        candidates.extend(neighbours(g, c, false));
    }
    for &c in &callees {
        candidates.extend(neighbours(g, c, true));
    }
    if let Some(info) = home.and_then(|h| g.communities.iter().find(|c| c.node == h)) {
        candidates.extend(info.members.iter().copied());
    }
    candidates.remove(&id);
    let mut scored: Vec<(f64, u32, String)> = candidates
        .into_iter()
        .filter_map(|c| g.node(c).map(|n| (c, n)))
        .filter(|(_, n)| n.kind() == node.kind())
        .map(|(c, n)| {
            let shared_callers = jaccard(&callers, &neighbours(g, c, true));
            let shared_callees = jaccard(&callees, &neighbours(g, c, false));
            let same_community = home.is_some() && community(g, c).map(|x| x.id) == home;
            let parts: HashSet<String> = tokens(n.name()).into_iter().collect();
            let name = jaccard(&name_parts, &parts);
            let shape = if arity(n.signature()) == params {
                1.0
            } else {
                0.0
            };
            let score = 0.35 * shared_callers
                + 0.35 * shared_callees
                + 0.1 * f64::from(u8::from(same_community))
                + 0.1 * name
                + 0.1 * shape;
            let why = format!(
                "callers {:.0}% · callees {:.0}%{} · name {:.0}%{}",
                shared_callers * 100.0,
                shared_callees * 100.0,
                if same_community {
                    " · same community"
                } else {
                    ""
                },
                name * 100.0,
                if shape > 0.0 { " · same arity" } else { "" }
            );
            (score, c, why)
        })
        .filter(|(score, _, _)| *score > 0.1)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(p.limit.clamp(1, 50) as usize);
    if p.format == Some(Format::Json) {
        let items: Vec<_> = scored.iter().filter_map(|(s, c, why)| g.node(*c).map(|n| json!({"id": n.stable_id(), "location": n.location(), "score": (s * 100.0).round() / 100.0, "why": why}))).collect();
        return Ok(json!({"target": node.stable_id(), "similar": items}).to_string());
    }
    let mut out = Budget::new(p.max_tokens);
    out.header(&format!(
        "# similar to {} `{}` ({})",
        node.kind(),
        node.stable_id(),
        node.location()
    ));
    if scored.is_empty() {
        out.header("Nothing similar: no symbol of the same kind shares callers, callees or a community with it.");
    }
    for (s, c, why) in &scored {
        if let Some(n) = g.node(*c) {
            out.item(&format!(
                "- `{}` — {} · score {s:.2} ({why})",
                n.stable_id(),
                n.location()
            ));
        }
    }
    Ok(out.finish())
}
