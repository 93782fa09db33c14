//! What a session saves: scripted investigations of ten calls each (written before any was
//! measured) run on a corpus with and without a session; prints the tokens (characters / 4) of
//! every answer and the saving, for the first two scripts and for a held-out set written later
//! (before the mechanism was changed again) that the mechanism was never tuned on.
//! Usage: `cargo bench -p nexus-tools --bench sessions -- DIR [--show]` (`--show`: every answer to stderr).

use std::path::Path;

use nexus_engine::{SearchIndex, index_with_sources};
use nexus_shared::Outcome;
use nexus_tools::{ToolContext, ToolMemory, dispatch};
use serde_json::{Value, json};

/// A question an agent works through, call by call.
struct Investigation {
    name: &'static str,
    calls: Vec<(&'static str, Value)>,
}

fn investigations() -> Vec<Investigation> {
    vec![
        Investigation {
            name: "how a queryset is filtered",
            calls: vec![
                ("search", json!({"query": "queryset filter"})),
                ("deep_dive", json!({"name": "QuerySet.filter"})),
                ("explore", json!({"name": "QuerySet._filter_or_exclude"})),
                ("impact", json!({"target": "QuerySet._filter_or_exclude"})),
                (
                    "trace_flow",
                    json!({"from": "QuerySet.filter", "to": "Query.add_q"}),
                ),
                ("explore", json!({"name": "Query.add_q"})),
                ("impact", json!({"target": "Query.add_q"})),
                ("search", json!({"query": "add_q"})),
                ("deep_dive", json!({"name": "Query._add_q"})),
                ("context", json!({})),
            ],
        },
        Investigation {
            name: "how a URL is resolved",
            calls: vec![
                ("search", json!({"query": "resolve url path"})),
                ("deep_dive", json!({"name": "URLResolver.resolve"})),
                ("explore", json!({"name": "URLPattern.resolve"})),
                ("impact", json!({"target": "URLResolver.resolve"})),
                (
                    "trace_flow",
                    json!({"from": "resolve", "to": "URLPattern.resolve"}),
                ),
                ("explore", json!({"name": "URLResolver.resolve"})),
                ("search", json!({"query": "resolver match"})),
                ("impact", json!({"target": "ResolverMatch"})),
                ("deep_dive", json!({"name": "get_resolver"})),
                ("overview", json!({})),
            ],
        },
    ]
}

/// Investigations written after the first two had been measured and tuned on, and before the
/// mechanism was changed again: the saving on these is the one that generalises.
fn held_out() -> Vec<Investigation> {
    vec![
        Investigation {
            name: "how a model instance is saved",
            calls: vec![
                ("search", json!({"query": "save model instance database"})),
                ("deep_dive", json!({"name": "Model.save"})),
                ("explore", json!({"name": "Model.save_base"})),
                (
                    "read",
                    json!({"path": "django/db/models/base.py", "start_line": 952, "end_line": 1070}),
                ),
                (
                    "trace_flow",
                    json!({"from": "Model.save", "to": "Model._do_insert"}),
                ),
                ("deep_dive", json!({"name": "Model._save_table"})),
                ("find_usages", json!({"target": "Model.save_base"})),
                ("impact", json!({"target": "Model._do_update"})),
                ("explore", json!({"name": "Model._do_insert"})),
                ("context", json!({})),
            ],
        },
        Investigation {
            name: "how a request passes the middleware",
            calls: vec![
                ("context", json!({})),
                (
                    "search",
                    json!({"query": "middleware get response handler"}),
                ),
                ("deep_dive", json!({"name": "BaseHandler.load_middleware"})),
                ("explore", json!({"name": "BaseHandler.get_response"})),
                (
                    "read",
                    json!({"path": "django/core/handlers/base.py", "start_line": 136, "end_line": 230}),
                ),
                (
                    "find_usages",
                    json!({"target": "convert_exception_to_response"}),
                ),
                (
                    "deep_dive",
                    json!({"name": "convert_exception_to_response"}),
                ),
                (
                    "trace_flow",
                    json!({"from": "BaseHandler.get_response", "to": "BaseHandler._get_response"}),
                ),
                ("impact", json!({"target": "BaseHandler._get_response"})),
                ("search", json!({"query": "process_view middleware"})),
            ],
        },
        Investigation {
            name: "how a template is rendered",
            calls: vec![
                ("search", json!({"query": "render template with context"})),
                (
                    "deep_dive",
                    json!({"name": "Method:django/template/base.py:Template.render"}),
                ),
                ("explore", json!({"name": "Template._render"})),
                ("deep_dive", json!({"name": "NodeList.render"})),
                (
                    "trace_flow",
                    json!({"from": "Function:django/template/loader.py:render_to_string", "to": "Method:django/template/base.py:Template.render"}),
                ),
                (
                    "find_usages",
                    json!({"target": "Method:django/template/base.py:Template.render"}),
                ),
                ("impact", json!({"target": "NodeList.render"})),
                (
                    "read",
                    json!({"path": "django/template/base.py", "start_line": 138, "end_line": 200}),
                ),
                ("explore", json!({"name": "Node.render_annotated"})),
                ("overview", json!({})),
            ],
        },
    ]
}

fn text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ok(out) => out.text.clone(),
        Outcome::Err(err) => err.render(),
    }
}

fn tokens(outcome: &Outcome) -> usize {
    text(outcome).len().div_ceil(4)
}

fn main() {
    let Some(dir) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("usage: cargo bench -p nexus-tools --bench sessions -- DIR");
        std::process::exit(2);
    };
    let show = std::env::args().any(|a| a == "--show");
    let root = Path::new(&dir);
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok((graph, _, sources)) = index_with_sources(
        &name,
        nexus_engine::read_tree(root),
        &|| 0.0,
        &mut |_, _, _| true,
    ) else {
        eprintln!("{name}: indexing was cancelled");
        std::process::exit(1);
    };
    let search = SearchIndex::build(&graph);
    println!("== {name}: {} files", sources.len());
    let run = |investigation: &Investigation| -> (usize, usize) {
        let (plain_memory, session_memory) = (ToolMemory::default(), ToolMemory::default());
        let context = |memory, session| ToolContext {
            graph: &graph,
            search: &search,
            sources: &sources,
            previous: None,
            working_changes: None,
            changed_ms: None,
            memory,
            now_ms: 0.0,
            clock: || 0.0,
            cancelled: || false,
            session,
        };
        let plain = context(&plain_memory, None);
        let with_session = context(&session_memory, Some("bench"));
        println!("\n{}", investigation.name);
        println!(
            "{:<4} {:<52} {:>8} {:>8} {:>7}",
            "step", "call", "plain", "session", "saved"
        );
        let (mut total_plain, mut total_session) = (0, 0);
        for (i, (tool, args)) in investigation.calls.iter().enumerate() {
            let a = dispatch(Some(&plain), tool, args.clone());
            let b = dispatch(Some(&with_session), tool, args.clone());
            if show {
                eprintln!(
                    "===== {tool} {args}\n--- plain\n{}\n--- session\n{}",
                    text(&a),
                    text(&b)
                );
            }
            let (a, b) = (tokens(&a), tokens(&b));
            total_plain += a;
            total_session += b;
            let call: String = format!("{tool} {args}").chars().take(52).collect();
            println!(
                "{:<4} {call:<52} {a:>8} {b:>8} {:>6.1}%",
                i + 1,
                saving(a, b)
            );
        }
        println!(
            "total{:>61} {total_session:>8} {:>6.1}%",
            total_plain,
            saving(total_plain, total_session)
        );
        (total_plain, total_session)
    };
    for (set, scripts) in [("first two", investigations()), ("held out", held_out())] {
        let (mut all_plain, mut all_session) = (0, 0);
        for investigation in &scripts {
            let (plain, session) = run(investigation);
            all_plain += plain;
            all_session += session;
        }
        println!(
            "\n{set}: {all_plain} tokens without a session, {all_session} with: {:.1}% fewer",
            saving(all_plain, all_session)
        );
    }
}

/// Percent fewer tokens with a session than without.
fn saving(plain: usize, session: usize) -> f64 {
    100.0 * (1.0 - session as f64 / plain.max(1) as f64)
}
