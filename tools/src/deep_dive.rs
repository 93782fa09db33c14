//! `deep_dive`: everything about one symbol in one call — its card (kind, location, signature,
//! doc, owner), its source, callers and callees with confidence, impact, community and processes.

use nexus_engine::{Lang, NodeKind};
use nexus_shared::ToolError;
use nexus_shared::params::{DeepDiveParams, FOLLOWED_CONFIDENCE, Format, ImpactParams, Verbosity};
use serde_json::json;

use super::budget::{Budget, limit_chars};
use super::impact::advised;
use super::neighbours::{
    SeenRefs, calls, community, edge_line, hint_once, list_ref, owner, path_ref, place, processes,
    seen_in,
};
use super::read::{common_indent, indent_note};
use super::{ToolContext, impact, target};

/// Callers and callees listed in standard verbosity (all in full).
const LISTED: usize = 15;
/// Listed in standard verbosity within a session (`verbosity=full` lists all).
const SESSION_LISTED: usize = 5;
/// The advice under a cut list of callers or callees.
const LIST_ALL: &str = "verbosity=full lists all";
/// Share of the answer's budget the source may take in standard verbosity: the card, impact and
/// the first callers and callees must still fit beside it.
const STANDARD_SOURCE_SHARE: usize = 2;

/// A symbol's source lines as the answer shows them.
struct Source {
    /// First line shown, 1-based.
    start: u32,
    /// The lines shown.
    lines: Vec<String>,
    /// Lines of the body left out.
    cut: u32,
}

/// The symbol's lines (`start_line..=end_line` of its file's text), at most `budget_chars`
/// characters of whole lines; `None` without text (a folder, a file not kept, or no lines).
fn source(ctx: &ToolContext, node: &nexus_engine::NodeRef, budget_chars: usize) -> Option<Source> {
    let text = ctx.sources.get(node.file())?;
    let (start, end) = (node.start_line().max(1), node.end_line());
    if end < start {
        return None;
    }
    let body: Vec<&str> = text
        .lines()
        .skip(start as usize - 1)
        .take((end - start + 1) as usize)
        .collect();
    if body.is_empty() {
        return None;
    }
    let mut used = 0;
    let kept = body
        .iter()
        .take_while(|line| {
            used += line.len() + 8;
            used <= budget_chars
        })
        .count()
        .max(1);
    Some(Source {
        start,
        cut: (body.len() - kept) as u32,
        lines: body[..kept].iter().map(|l| (*l).to_owned()).collect(),
    })
}

pub fn run(ctx: &ToolContext, p: &DeepDiveParams) -> Result<String, ToolError> {
    let g = ctx.graph;
    let node = target::resolve(ctx, &p.name)?;
    let id = node.id;
    let callers = calls(g, id, true);
    let callees = calls(g, id, false);
    let verbosity = p.verbosity.unwrap_or_default();
    let session = ctx.session;
    if verbosity != Verbosity::Full && ctx.memory.sessions.borrow().card_returned(session, id) {
        return Ok(format!(
            "`{}` — {}: its deep dive was returned earlier in this session (pass verbosity \"full\" to see it again).\n",
            list_ref(ctx, &node),
            place(ctx, &node)
        ));
    }
    let listed = match verbosity {
        Verbosity::Summary => 5,
        Verbosity::Standard if session.is_some() => SESSION_LISTED,
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
        severity_threshold: None,
        max_tokens: None,
        format: Some(Format::Json),
        session: None,
    };
    let impact: serde_json::Value =
        serde_json::from_str(&impact::run(ctx, &impact_params)?).unwrap_or_default();
    let seen = seen_in(
        ctx,
        callers
            .iter()
            .chain(&callees)
            .take(listed)
            .map(|(n, _)| n.id),
    );
    let title_ref = list_ref(ctx, &node);
    let owner_ref = owner(g, id).map(|o| list_ref(ctx, &o));
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
    let community_seen = community
        .as_ref()
        .is_some_and(|c| !seen_in(ctx, [c.id]).is_empty());
    let processes_seen = seen_in(ctx, processes.iter().map(|x| x.id));
    ctx.memory.sessions.borrow_mut().record(
        session,
        community.iter().chain(&processes).map(|c| c.id),
        None,
    );
    let source_chars = match verbosity {
        Verbosity::Summary => 0,
        Verbosity::Standard => limit_chars(p.max_tokens) / STANDARD_SOURCE_SHARE,
        Verbosity::Full => limit_chars(p.max_tokens),
    };
    let source = (source_chars > 0 && node.kind() != NodeKind::File)
        .then(|| source(ctx, &node, source_chars))
        .flatten();

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
            "source": source.as_ref().map(|s| s.lines.join("\n")), "source_lines_cut": source.as_ref().map_or(0, |s| s.cut),
        }).to_string());
    }

    let mut out = Budget::new(p.max_tokens);
    out.header(&format!("# {} `{title_ref}`", node.kind()));
    out.header(&format!(
        "{} – line {}{}",
        place(ctx, &node),
        node.end_line(),
        owner_ref
            .map(|o| format!(" · member of `{o}`"))
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
            .map(|n| format!(" · {}", advised(ctx, n)))
            .unwrap_or_default()
    ));
    if let Some(c) = community {
        out.header(&if community_seen {
            format!("Community: {}", c.name())
        } else {
            format!("Community: {} (`{}`)", c.name(), c.stable_id())
        });
    }
    if !processes.is_empty() {
        let names: Vec<&str> = processes
            .iter()
            .filter(|x| !processes_seen.contains(&x.id))
            .map(|x| x.name())
            .collect();
        let known = processes.len() - names.len();
        out.header(&match (names.is_empty(), known) {
            (_, 0) => format!("Processes: {}", names.join("; ")),
            (true, _) => format!("Processes: {known} seen before"),
            (false, _) => format!("Processes: {} · {known} seen before", names.join("; ")),
        });
    }
    if let Some(src) = &source {
        let last = src.start + src.lines.len() as u32 - 1;
        let shown_before = verbosity != Verbosity::Full
            && ctx
                .memory
                .sessions
                .borrow()
                .shown_lines(session, node.file(), src.start, last)
                == [(src.start, last)];
        if shown_before {
            out.header(&format!(
                "Source: lines {}–{last} shown before (verbosity=full repeats them)",
                src.start
            ));
        } else {
            ctx.memory
                .sessions
                .borrow_mut()
                .mark_lines(session, node.file(), src.start, last);
            let width = last.to_string().len();
            let indent = common_indent(ctx, src.lines.iter().map(String::as_str));
            let mut block = format!(
                "```{}{}\n",
                fence_language(node.file()),
                indent_note(indent)
            );
            for (i, line) in src.lines.iter().enumerate() {
                let line = line.get(indent..).unwrap_or_default();
                block.push_str(&format!("{:>width$} | {line}\n", src.start + i as u32));
            }
            block.push_str("```");
            out.header(&block);
        }
        if src.cut > 0 {
            out.header(&format!(
                "… {} more lines (verbosity=full, or read `{}` from line {})",
                src.cut,
                path_ref(ctx, node.file()),
                last + 1
            ));
        }
    }
    for (title, items) in [("Callers", &callers), ("Callees", &callees)] {
        out.header(&format!("## {title} ({})", items.len()));
        let mut seen_refs = SeenRefs::default();
        for (n, e) in items.iter().take(listed) {
            if seen.contains(&n.id) {
                seen_refs.push(ctx, n);
            } else {
                out.item(&edge_line(ctx, n, e));
            }
        }
        seen_refs.flush(&mut out);
        if items.len() > listed {
            let more = items.len() - listed;
            out.header(&if hint_once(ctx, LIST_ALL) {
                format!("… {more} more ({LIST_ALL})")
            } else {
                format!("… {more} more")
            });
        }
    }
    Ok(out.finish())
}

/// The Markdown fence's language for a file: its language's name, else none.
fn fence_language(path: &str) -> &'static str {
    Lang::of_path(path).map_or("", Lang::as_str)
}

#[cfg(test)]
mod tests {
    use crate::dispatch;
    use crate::test_support::{indexed, text, with_fixture_sources, with_sources};
    use nexus_engine::SourceFile;
    use serde_json::json;

    fn dive(args: serde_json::Value) -> String {
        let mut answer = String::new();
        with_fixture_sources(|ctx| answer = text(dispatch(Some(ctx), "deep_dive", args)));
        answer
    }

    #[test]
    fn standard_and_full_show_the_source_and_summary_does_not() {
        let source = "```python\n 7 |     def checkout(self):\n 8 |         \"\"\"Pays for the cart.\"\"\"\n 9 |         charge(self.total())\n10 |         self.log()\n```";
        for verbosity in ["standard", "full"] {
            let answer = dive(json!({"name": "Cart.checkout", "verbosity": verbosity}));
            assert!(answer.contains(source), "{verbosity}: {answer}");
            assert!(!answer.contains("more lines"), "{answer}");
        }
        let summary = dive(json!({"name": "Cart.checkout", "verbosity": "summary"}));
        assert!(!summary.contains("```"), "{summary}");
        let json: serde_json::Value =
            serde_json::from_str(&dive(json!({"name": "charge", "format": "json"}))).unwrap();
        assert_eq!(json["source"], "def charge(x):\n    return validate(x)");
        assert_eq!(json["source_lines_cut"], 0);
    }

    #[test]
    fn a_session_refers_to_source_it_was_shown_and_full_repeats_it() {
        with_fixture_sources(|ctx| {
            let session = crate::ToolContext {
                session: Some("d"),
                ..*ctx
            };
            let dive = |ctx, args| text(dispatch(Some(ctx), "deep_dive", args));
            let plain = dive(ctx, json!({"name": "Cart.checkout"}));
            assert!(
                plain.contains(" 9 |         charge(self.total())"),
                "{plain}"
            );
            dispatch(
                Some(&session),
                "read",
                json!({"path": "shop/cart.py", "start_line": 3, "end_line": 13}),
            );
            let after_read = dive(&session, json!({"name": "Cart.checkout"}));
            assert!(
                after_read
                    .contains("Source: lines 7–10 shown before (verbosity=full repeats them)")
                    && !after_read.contains("```")
                    && after_read.len() < plain.len(),
                "{after_read}"
            );
            let full = dive(
                &session,
                json!({"name": "Cart.checkout", "verbosity": "full"}),
            );
            assert!(
                full.contains("```python (indent 4 removed)\n 7 | def checkout(self):\n")
                    && full.contains(" 9 |     charge(self.total())"),
                "in a session the indentation every line shares is left out, and said: {full}"
            );
            assert_eq!(dive(ctx, json!({"name": "Cart.checkout"})), plain);
        });
    }

    #[test]
    fn a_long_body_is_cut_to_the_budget_with_a_note() {
        let body: String = (0..400).map(|i| format!("    x{i} = {i}\n")).collect();
        let files = vec![SourceFile {
            path: "long.py".into(),
            bytes: format!("def long():\n{body}    return x0\n").into_bytes(),
        }];
        let (graph, sources) = indexed(files);
        with_sources(graph, sources, |ctx| {
            let standard = text(dispatch(
                Some(ctx),
                "deep_dive",
                json!({"name": "long", "max_tokens": 1000}),
            ));
            assert!(standard.contains("  1 | def long():"), "{standard}");
            let note = standard
                .lines()
                .find(|l| l.contains("more lines (verbosity=full, or read `long.py` from line"))
                .unwrap_or_else(|| panic!("no note: {standard}"));
            assert!(standard.len() <= 1000 * 4 + 400, "{}", standard.len());
            let full = text(dispatch(
                Some(ctx),
                "deep_dive",
                json!({"name": "long", "verbosity": "full", "max_tokens": 8000}),
            ));
            assert!(full.contains("402 |     return x0"), "{full}");
            assert!(!full.contains("more lines"), "{note}");
        });
    }
}
