//! `deep_dive`: everything about one symbol in one call — its card (kind, location, signature,
//! doc, owner), callers and callees with confidence, an impact summary, community and processes.

use nexus_shared::ToolError;
use nexus_shared::params::{DeepDiveParams, FOLLOWED_CONFIDENCE, Format, ImpactParams, Verbosity};
use serde_json::json;

use super::budget::Budget;
use super::neighbours::{calls, community, edge_line, owner, processes};
use super::{ToolContext, impact, target};

/// Callers and callees listed in standard verbosity (all in full).
const LISTED: usize = 15;

pub fn run(ctx: &ToolContext, p: &DeepDiveParams) -> Result<String, ToolError> {
    let g = ctx.graph;
    let node = target::resolve(ctx, &p.name)?;
    let id = node.id;
    let callers = calls(g, id, true);
    let callees = calls(g, id, false);
    let verbosity = p.verbosity.unwrap_or_default();
    let session = p.session.as_deref();
    if verbosity != Verbosity::Full && ctx.memory.sessions.borrow().card_returned(session, id) {
        return Ok(format!(
            "`{}` — {}: its deep dive was returned earlier in this session (pass verbosity \"full\" to see it again).\n",
            node.stable_id(),
            node.location()
        ));
    }
    let listed = match verbosity {
        Verbosity::Summary => 5,
        Verbosity::Standard => LISTED,
        Verbosity::Full => usize::MAX,
    };
    let impact_params = ImpactParams {
        target: node.stable_id(),
        direction: Default::default(),
        max_depth: 3,
        relation_types: None,
        min_confidence: FOLLOWED_CONFIDENCE,
        include_tests: false,
        stop_at_kinds: None,
        exclude_kinds: None,
        limit: None,
        offset: 0,
        summary_only: true,
        max_tokens: None,
        format: Some(Format::Json),
        session: None,
    };
    let impact: serde_json::Value =
        serde_json::from_str(&impact::run(ctx, &impact_params)?).unwrap_or_default();
    ctx.memory.sessions.borrow_mut().record(
        session,
        std::iter::once(id).chain(
            callers
                .iter()
                .chain(&callees)
                .take(listed)
                .map(|(n, _)| n.id),
        ),
        Some(id),
    );
    ctx.memory.sessions.borrow_mut().mark_card(session, id);
    let community = community(g, id);
    let processes = processes(g, id);
    let owner = owner(g, id);

    if p.format == Some(Format::Json) {
        let list =
            |items: &[(nexus_engine::NodeRef, nexus_engine::Edge)]| -> Vec<serde_json::Value> {
                items.iter().take(listed).map(|(n, e)| json!({"id": n.stable_id(), "location": n.location(), "confidence": e.confidence, "reason": e.reason.as_str()})).collect()
            };
        return Ok(json!({
            "id": node.stable_id(), "kind": node.kind().as_str(), "location": node.location(), "end_line": node.end_line(),
            "signature": node.signature(), "doc": node.doc(), "owner": owner.map(|o| o.stable_id()),
            "callers_total": callers.len(), "callers": list(&callers), "callees_total": callees.len(), "callees": list(&callees),
            "impact": impact, "community": community.map(|c| c.name().to_owned()), "processes": processes.iter().map(|x| x.name()).collect::<Vec<_>>(),
        }).to_string());
    }

    let mut out = Budget::new(p.max_tokens);
    out.header(&format!("# {} `{}`", node.kind(), node.stable_id()));
    out.header(&format!(
        "{} – line {}{}",
        node.location(),
        node.end_line(),
        owner
            .map(|o| format!(" · member of `{}`", o.stable_id()))
            .unwrap_or_default()
    ));
    if !node.signature().is_empty() {
        out.header(&format!("`{}`", node.signature()));
    }
    if !node.doc().is_empty() {
        out.header(&format!("> {}", node.doc()));
    }
    out.header(&format!(
        "Impact: risk {} · {} will break, {} likely affected, {} may need testing{}",
        impact["risk"].as_str().unwrap_or("?"),
        impact["by_depth"]["1"],
        impact["by_depth"]["2"],
        impact["by_depth"]["3+"],
        impact["lower_bound"]
            .as_str()
            .map(|n| format!(" · {n}"))
            .unwrap_or_default()
    ));
    if let Some(c) = community {
        out.header(&format!("Community: {} (`{}`)", c.name(), c.stable_id()));
    }
    if !processes.is_empty() {
        let names: Vec<&str> = processes.iter().map(|x| x.name()).collect();
        out.header(&format!("Processes: {}", names.join("; ")));
    }
    for (title, items) in [("Callers", &callers), ("Callees", &callees)] {
        out.header(&format!("## {title} ({})", items.len()));
        for (n, e) in items.iter().take(listed) {
            out.item(&edge_line(n, e));
        }
        if items.len() > listed {
            out.header(&format!(
                "… {} more (verbosity=full lists all)",
                items.len() - listed
            ));
        }
    }
    Ok(out.finish())
}
