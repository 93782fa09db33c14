//! What a session saves: scripted investigations of ten calls each (written before any was
//! measured) run on a corpus with and without a session; prints the tokens (characters / 4) of
//! every answer and the saving, for the first two scripts and for a held-out set written later
//! (before the mechanism was changed again) that the mechanism was never tuned on; and checks
//! that each answer with a session still names what the next step asks about whenever the
//! answer without one does (`next`: ok, MISSING, or `-` when neither names it).
//! Usage: `cargo bench -p nexus-tools --bench sessions -- DIR [--show] [--tuning]` (`--show`:
//! every answer to stderr; `--tuning`: the first two scripts only, so tuning never reads the others).

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

/// What a call is about, as an answer before it would name it: a symbol's qualified name (the
/// tail of a stable id) or a file path.
fn subjects(args: &Value) -> Vec<String> {
    ["name", "target", "from", "to", "path"]
        .iter()
        .filter_map(|key| args.get(*key).and_then(Value::as_str))
        .map(|s| {
            if s.contains('/') && !s.contains(':') {
                s.to_owned()
            } else {
                s.rsplit(':').next().unwrap_or(s).to_owned()
            }
        })
        .collect()
}

/// Whether `text` holds `word` whole: not as part of a longer name (`URLResolver.resolve` is
/// not in `URLResolver.resolve_error_handler`).
fn holds(text: &str, word: &str) -> bool {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(word).any(|(at, _)| {
        !part(text[..at].chars().next_back()) && !part(text[at + word.len()..].chars().next())
    })
}

/// Whether `answer` names `subject`, directly or (a file) by an alias an earlier answer of the
/// session defined as `fN=path`.
fn names(answer: &str, subject: &str, earlier: &str) -> bool {
    if holds(answer, subject) {
        return true;
    }
    let definition = format!("={subject}");
    earlier.match_indices(&definition).any(|(at, _)| {
        let alias: String = earlier[..at]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        alias.starts_with('f') && holds(answer, &alias)
    })
}

fn main() {
    let Some(dir) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("usage: cargo bench -p nexus-tools --bench sessions -- DIR");
        std::process::exit(2);
    };
    let show = std::env::args().any(|a| a == "--show");
    let tuning = std::env::args().any(|a| a == "--tuning");
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
    let run = |investigation: &Investigation| -> (usize, usize, usize) {
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
            "{:<4} {:<52} {:>8} {:>8} {:>7}  next",
            "step", "call", "plain", "session", "saved"
        );
        let (mut total_plain, mut total_session, mut missing) = (0, 0, 0);
        let mut told = String::new();
        for (i, (tool, args)) in investigation.calls.iter().enumerate() {
            let a = dispatch(Some(&plain), tool, args.clone());
            let b = dispatch(Some(&with_session), tool, args.clone());
            let next = investigation
                .calls
                .get(i + 1)
                .map(|(_, next)| subjects(next))
                .unwrap_or_default();
            let needed: Vec<&String> = next.iter().filter(|s| names(&text(&a), s, "")).collect();
            let lost: Vec<&&String> = needed
                .iter()
                .filter(|s| !names(&text(&b), s, &told))
                .collect();
            missing += lost.len();
            let check = match (needed.is_empty(), lost.is_empty()) {
                (true, _) => "-".to_owned(),
                (false, true) => "ok".to_owned(),
                (false, false) => format!("MISSING {lost:?}"),
            };
            told.push_str(&text(&b));
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
                "{:<4} {call:<52} {a:>8} {b:>8} {:>6.1}%  {check}",
                i + 1,
                saving(a, b)
            );
        }
        println!(
            "total{:>61} {total_session:>8} {:>6.1}%",
            total_plain,
            saving(total_plain, total_session)
        );
        (total_plain, total_session, missing)
    };
    let held_out = if tuning { Vec::new() } else { held_out() };
    for (set, scripts) in [("first two", investigations()), ("held out", held_out)] {
        if scripts.is_empty() {
            continue;
        }
        let (mut all_plain, mut all_session, mut all_missing) = (0, 0, 0);
        for investigation in &scripts {
            let (plain, session, missing) = run(investigation);
            all_plain += plain;
            all_session += session;
            all_missing += missing;
        }
        println!(
            "\n{set}: {all_plain} tokens without a session, {all_session} with: {:.1}% fewer; \
             {all_missing} next-step subjects missing with a session",
            saving(all_plain, all_session)
        );
    }
}

/// Percent fewer tokens with a session than without.
fn saving(plain: usize, session: usize) -> f64 {
    100.0 * (1.0 - session as f64 / plain.max(1) as f64)
}
