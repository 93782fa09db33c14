//! `trace_flow`: the shortest path from one symbol to another along CALLS (or the relation types
//! asked for) at or above `min_confidence`, around excluded kinds; or without `to` its processes.

use std::collections::HashMap;

use nexus_shared::params::{Format, TraceFlowParams};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::json;

use super::budget::Budget;
use super::filters::{node_kinds, relation_kinds};
use super::neighbours::{list_ref, place, processes, seen_in};
use super::target::short_ref;
use super::{ToolContext, target};
use nexus_engine::{Edge, EdgeKind, Toward, Walk};

pub fn run(ctx: &ToolContext, p: &TraceFlowParams) -> Result<String, ToolError> {
    let g = ctx.graph;
    let from_node = target::resolve(ctx, &p.from)?;
    let from = from_node.id;
    let mut out = Budget::new(p.max_tokens);
    let Some(to_name) = &p.to else {
        let list = processes(g, from);
        if p.format == Some(Format::Json) {
            return Ok(json!({"from": from_node.stable_id(), "processes": list.iter().map(|x| json!({"id": x.stable_id(), "name": x.name()})).collect::<Vec<_>>()}).to_string());
        }
        out.header(&format!(
            "# processes through `{}` ({})",
            from_node.stable_id(),
            list.len()
        ));
        for x in &list {
            out.item(&format!("- {} `{}` — {}", x.name(), x.stable_id(), x.doc()));
        }
        if list.is_empty() {
            out.header(
                "It is not a step of any traced process; pass `to` for a path between two symbols.",
            );
        }
        return Ok(out.finish());
    };
    let to_node = target::resolve(ctx, to_name)?;
    let to = to_node.id;
    let max_steps = p.max_steps.clamp(1, 30);
    let relations = relation_kinds(&p.relation_types, &[EdgeKind::Calls])?;
    let exclude = node_kinds(&p.exclude_kinds)?;
    let min_confidence = p.min_confidence.clamp(0.0, 1.0) as f32;
    let mut parent: HashMap<u32, Edge> = HashMap::new();
    let mut found = from == to;
    if !found {
        let walked = g.walk(
            &[from],
            &Walk {
                toward: Toward::Downstream,
                edges: &relations,
                min_confidence,
                max_depth: max_steps,
                stop: &|n| exclude.contains(&n.kind()),
                skip: &|_| false,
                until: Some(to),
            },
        );
        parent.extend(walked.reached.iter().map(|r| (r.node, r.via)));
        found = parent.contains_key(&to);
    }
    if !found {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!("no path from `{}` to `{}` within {max_steps} steps (edges below {min_confidence} confidence not followed{})", from_node.stable_id(), to_node.stable_id(), if exclude.is_empty() { "" } else { ", excluded kinds not passed through" }),
        )
        .with_hint("raise max_steps, lower min_confidence, or check `impact` with direction=downstream from the first symbol"));
    }
    let mut hops: Vec<Edge> = Vec::new();
    let mut current = to;
    while current != from {
        let Some(e) = parent.get(&current) else { break };
        hops.push(*e);
        current = e.from;
    }
    hops.reverse();
    let weakest = hops.iter().map(|e| e.confidence).fold(1.0f32, f32::min);
    if p.format == Some(Format::Json) {
        let steps: Vec<_> = hops.iter().filter_map(|e| g.node(e.to).map(|n| json!({"id": n.stable_id(), "location": n.location(), "confidence": e.confidence, "reason": e.reason.as_str()}))).collect();
        return Ok(json!({"from": from_node.stable_id(), "to": to_node.stable_id(), "hops": hops.len(), "weakest_confidence": weakest, "steps": steps}).to_string());
    }
    let from_ref = list_ref(ctx, &from_node);
    out.header(&format!(
        "# {} hops from `{from_ref}` to `{}` (weakest link {weakest:.2})",
        hops.len(),
        list_ref(ctx, &to_node)
    ));
    out.item(&format!("0. `{from_ref}` — {}", place(ctx, &from_node)));
    let seen = seen_in(ctx, hops.iter().map(|e| e.to));
    for (i, e) in hops.iter().enumerate() {
        if let Some(n) = g.node(e.to) {
            if seen.contains(&n.id) {
                out.item(&format!("{}. `{}` (seen)", i + 1, short_ref(ctx, &n)));
                continue;
            }
            out.item(&format!(
                "{}. `{}` — {} · {:.2} {}",
                i + 1,
                list_ref(ctx, &n),
                place(ctx, &n),
                e.confidence,
                e.reason.as_str()
            ));
        }
    }
    ctx.memory.sessions.borrow_mut().record(
        ctx.session,
        std::iter::once(from).chain(hops.iter().map(|e| e.to)),
        Some(from),
    );
    Ok(out.finish())
}
