//! The MCP tool handlers, answered from the graph held in this tab.
//! `dispatch` is the one entry point the link uses; every tool in the catalog has a row here.
//!
//! The surface: [`dispatch`] and [`answer`] over a [`ToolContext`], the UI effect of a
//! `highlight` ([`Highlight`]) and what the tools remember between calls on one graph
//! ([`ToolMemory`]), and the router's reading of a question ([`intents`], for the tool
//! compiler). One private module per tool; `route` plans and runs calls to the others.
#![warn(missing_docs)]

mod budget;
mod context;
mod cypher;
mod deep_dive;
mod diff;
mod explore;
mod filters;
mod find_similar;
mod find_usages;
mod grep;
mod grep_filter;
mod highlight;
mod impact;
mod neighbours;
mod overview;
mod paths;
mod read;
mod review_file;
mod route;
mod search;
mod session;
mod target;
mod test_impact;
#[cfg(test)]
pub(crate) mod test_support;
mod trace_flow;

pub use diff::{ChangedFile, FileStatus, Hunk, WorkingChanges};
pub use highlight::Highlight;
pub use route::{intents, meaning_queries};

use std::cell::RefCell;

use nexus_shared::params::{
    ContextParams, CypherParams, DeepDiveParams, DiffParams, ExploreParams, FindSimilarParams,
    FindUsagesParams, GrepParams, HighlightParams, ImpactParams, OverviewParams, ReadParams,
    ReviewFileParams, RouteParams, SearchParams, TestImpactParams, TraceFlowParams,
};
use nexus_shared::{ErrorCode, Outcome, ToolError, ToolName, ToolOutput};
use serde::de::DeserializeOwned;

use nexus_engine::Graph;
use nexus_engine::SearchIndex;
use nexus_engine::Sources;
use nexus_engine::fingerprint::Fingerprint;

use crate::route::RouteCache;
use crate::session::Sessions;

/// What the tools remember between calls on one graph: `route`'s answers by tool and arguments
/// and what each agent session was told and focused on. A new graph gets a new one.
#[derive(Default)]
pub struct ToolMemory {
    route_cache: RefCell<RouteCache>,
    sessions: RefCell<Sessions>,
    grep_filter: std::cell::OnceCell<grep_filter::TrigramFilter>,
}

impl ToolMemory {
    /// The memory for `new`, the next version of `old` after the files at the `changed` paths
    /// changed on disk (written, added or removed; `sources` are the texts as they now are):
    /// agent sessions carry over (nodes found again by stable id); cached answers, which the
    /// change made stale, do not; a grep filter already built is kept, made again for the
    /// changed paths only.
    pub fn carried_over(
        self,
        old: &Graph,
        new: &Graph,
        sources: &Sources,
        changed: &[&str],
    ) -> ToolMemory {
        let grep_filter = self
            .grep_filter
            .into_inner()
            .map(|filter| filter.patched(sources, &changed.iter().copied().collect()));
        ToolMemory {
            sessions: RefCell::new(self.sessions.into_inner().renumbered(old, new)),
            grep_filter: grep_filter
                .map(std::cell::OnceCell::from)
                .unwrap_or_default(),
            ..ToolMemory::default()
        }
    }

    /// `grep`'s trigram filter of `sources` (this graph's files), built on first use.
    fn grep_filter(&self, sources: &Sources) -> &grep_filter::TrigramFilter {
        self.grep_filter
            .get_or_init(|| grep_filter::TrigramFilter::build(sources))
    }
}

/// What tools read: the graph, its search index, the indexed files' text, the fingerprint of the
/// project's previous snapshot and the working tree's git changes (for `diff`), the tools' memory
/// of this graph and the time of the call.
pub struct ToolContext<'a> {
    /// The graph calls are answered from.
    pub graph: &'a Graph,
    /// Its search index.
    pub search: &'a SearchIndex,
    /// The indexed files' text.
    pub sources: &'a Sources,
    /// The fingerprint of the project's previous snapshot, when there is one.
    pub previous: Option<&'a Fingerprint>,
    /// The working tree's changes against the commit a `diff` call names in `base`, fetched
    /// from the bridge's repository for that call; `None` without one.
    pub working_changes: Option<&'a WorkingChanges>,
    /// When the graph last changed (indexed, restored or updated from disk), in milliseconds
    /// since the Unix epoch; `context` says how fresh it is.
    pub changed_ms: Option<f64>,
    /// What the tools remember between calls on this graph.
    pub memory: &'a ToolMemory,
    /// The caller's session when its call names none: the bridge keeps one per MCP connection,
    /// the chat one per conversation. A call's own `session` argument wins.
    pub session: Option<&'a str>,
    /// Milliseconds since the Unix epoch, for the cache's time to live.
    pub now_ms: f64,
    /// Milliseconds on a clock that advances while a call runs: a long scan (`grep`) stops at its
    /// time budget by it. The worker passes the browser's clock, native callers `Instant`'s.
    pub clock: fn() -> f64,
    /// True once the caller has cancelled this call: long tools (`grep` between files, `cypher`
    /// between units of work) check it and stop. Native callers that never cancel pass
    /// `|| false`.
    pub cancelled: fn() -> bool,
}

/// Most pending files an answer names; the rest are counted.
const PENDING_NAMED: usize = 10;

/// Says in an answer that files changed on disk and their new contents are not in the graph
/// yet, so it is never silently stale: a JSON object answer gets `pending_files` (and
/// `pending_count`), any other answer a closing note naming them. Errors and answers while
/// nothing is pending are unchanged.
pub fn with_pending_note(outcome: Outcome, pending: &[String]) -> Outcome {
    let Outcome::Ok(ToolOutput { text }) = outcome else {
        return outcome;
    };
    if pending.is_empty() {
        return Outcome::Ok(ToolOutput { text });
    }
    let named: Vec<&str> = pending
        .iter()
        .take(PENDING_NAMED)
        .map(String::as_str)
        .collect();
    if let Ok(serde_json::Value::Object(mut object)) = serde_json::from_str(&text) {
        object.insert("pending_files".into(), serde_json::json!(named));
        object.insert("pending_count".into(), serde_json::json!(pending.len()));
        if let Ok(text) = serde_json::to_string(&serde_json::Value::Object(object)) {
            return Outcome::Ok(ToolOutput { text });
        }
    }
    let more = pending.len() - named.len();
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let list = named
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Outcome::Ok(ToolOutput {
        text: format!(
            "{text}\n\n> Pending: {} file(s) changed on disk are still being applied to the graph ({list}{more}); this answer may not show them yet — ask again in a moment.",
            pending.len()
        ),
    })
}

/// A tool's answer and what the UI must show because of it.
pub struct Answer {
    /// The text of the answer, or the error.
    pub outcome: Outcome,
    /// Nodes a `highlight` call asked the UI to light up.
    pub highlight: Option<highlight::Highlight>,
}

/// Whether answering `tool` may read the keyword index (`ToolContext::search`). A caller that
/// lets the index fall behind its graph after a change (the tab's live update) brings it up to
/// date before such a call only; `cypher`, `read` and `grep` answer from the graph and the texts.
pub fn reads_keyword_index(tool: &str) -> bool {
    !matches!(
        ToolName::parse(tool),
        Some(ToolName::Cypher | ToolName::Read | ToolName::Grep)
    )
}

/// Answers one call. Unknown tools, bad arguments and tools not built yet are clear errors.
pub fn dispatch(ctx: Option<&ToolContext>, tool: &str, args: serde_json::Value) -> Outcome {
    answer(ctx, tool, args).outcome
}

/// Answers one call, with its effect on the UI.
pub fn answer(ctx: Option<&ToolContext>, tool: &str, args: serde_json::Value) -> Answer {
    let mut highlight = None;
    let outcome = match run(ctx, tool, args, &mut highlight) {
        Ok(text) => Outcome::Ok(ToolOutput { text }),
        Err(err) => Outcome::Err(err),
    };
    Answer { outcome, highlight }
}

fn run(
    ctx: Option<&ToolContext>,
    tool: &str,
    args: serde_json::Value,
    highlighted: &mut Option<highlight::Highlight>,
) -> Result<String, ToolError> {
    let Some(name) = ToolName::parse(tool) else {
        return Err(
            ToolError::new(ErrorCode::UnknownTool, format!("no tool named `{tool}`"))
                .with_hint("tools/list names the 17 Nexus tools"),
        );
    };
    let ctx = ctx.ok_or_else(|| {
        ToolError::new(ErrorCode::NoGraph, "no graph is loaded in the Nexus tab")
            .with_hint("load a repository in the Nexus UI (drop a folder or a ZIP), then retry")
    })?;
    let named = args
        .get("session")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned);
    let ctx = &ToolContext {
        session: named.as_deref().or(ctx.session),
        ..*ctx
    };
    ctx.memory
        .sessions
        .borrow_mut()
        .begin(ctx.session, ctx.now_ms, call_line(name, &args));
    let answered = answer_of(ctx, name, args, highlighted);
    // An alias defined in a line the budget cut was never given: it must not be used later.
    let text = match &answered {
        Ok(text) => text.clone(),
        Err(err) => err.render(),
    };
    ctx.memory
        .sessions
        .borrow_mut()
        .settle_paths(ctx.session, &text);
    answered
}

/// The answer of the tool `name` in `ctx` (whose session is opened).
fn answer_of(
    ctx: &ToolContext,
    name: ToolName,
    args: serde_json::Value,
    highlighted: &mut Option<highlight::Highlight>,
) -> Result<String, ToolError> {
    match name {
        ToolName::Context => {
            let trail = ctx.memory.sessions.borrow().breadcrumb(ctx.session, |n| {
                ctx.graph.node(n).map(|x| target::short_ref(ctx, &x))
            });
            Ok(context::run(
                ctx.graph,
                &params::<ContextParams>(name, args)?,
                ctx.changed_ms.map(|ms| ctx.now_ms - ms),
                trail,
                ctx.session.is_some(),
                &mut |section, text| {
                    ctx.memory.sessions.borrow_mut().given_before(
                        ctx.session,
                        &format!("context {section}"),
                        text,
                    )
                },
            ))
        }
        ToolName::Search => search::run(ctx, &params::<SearchParams>(name, args)?),
        ToolName::Overview => Ok(overview::run(ctx, &params::<OverviewParams>(name, args)?)),
        ToolName::Impact => impact::run(ctx, &params::<ImpactParams>(name, args)?),
        ToolName::DeepDive => deep_dive::run(ctx, &params::<DeepDiveParams>(name, args)?),
        ToolName::Explore => explore::run(ctx, &params::<ExploreParams>(name, args)?),
        ToolName::TraceFlow => trace_flow::run(ctx, &params::<TraceFlowParams>(name, args)?),
        ToolName::Read => read::run(ctx, &params::<ReadParams>(name, args)?),
        ToolName::Cypher => cypher::run(ctx, &params::<CypherParams>(name, args)?),
        ToolName::FindSimilar => find_similar::run(ctx, &params::<FindSimilarParams>(name, args)?),
        ToolName::TestImpact => test_impact::run(ctx, &params::<TestImpactParams>(name, args)?),
        ToolName::Grep => grep::run(ctx, &params::<GrepParams>(name, args)?),
        ToolName::ReviewFile => review_file::run(ctx, &params::<ReviewFileParams>(name, args)?),
        ToolName::Diff => diff::run(ctx, &params::<DiffParams>(name, args)?),
        ToolName::Highlight => {
            let (text, marked) = highlight::run(ctx, &params::<HighlightParams>(name, args)?)?;
            *highlighted = Some(marked);
            Ok(text)
        }
        ToolName::FindUsages => find_usages::run(ctx, &params::<FindUsagesParams>(name, args)?),
        ToolName::Route => route::run(ctx, &params::<RouteParams>(name, args)?),
    }
}

/// Longest call a session's history keeps, in characters.
const CALL_LINE_CHARS: usize = 80;

/// Arguments that name what a call is about, shown bare before the others in a call line.
const SUBJECTS: [&str; 8] = [
    "question", "query", "pattern", "name", "id", "target", "from", "path",
];

/// A call as a session's history shows it: the tool, what it was about, then the other
/// arguments that say what was asked (not the output's shape) as `key=value`, cut to
/// [`CALL_LINE_CHARS`] — `trace_flow main to=validate`.
fn call_line(tool: ToolName, args: &serde_json::Value) -> String {
    let mut asked = args.as_object().cloned().unwrap_or_default();
    for shape in [
        "session",
        "format",
        "max_tokens",
        "verbosity",
        "limit",
        "offset",
    ] {
        asked.remove(shape);
    }
    let bare = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    let mut line = tool.as_str().to_owned();
    if let Some(subject) = SUBJECTS.iter().find_map(|k| asked.remove(*k)) {
        line.push(' ');
        line.push_str(&bare(&subject));
    }
    for (key, value) in &asked {
        line.push_str(&format!(" {key}={}", bare(value)));
    }
    if let Some((cut, _)) = line.char_indices().nth(CALL_LINE_CHARS) {
        line.truncate(cut);
        line.push('…');
    }
    line
}

/// Parses a tool's arguments into its typed parameters; `null` counts as no arguments.
fn params<T: DeserializeOwned>(tool: ToolName, args: serde_json::Value) -> Result<T, ToolError> {
    let args = if args.is_null() {
        serde_json::json!({})
    } else {
        args
    };
    serde_json::from_value(args).map_err(|err| {
        ToolError::new(
            ErrorCode::InvalidParams,
            format!("invalid arguments for `{}`: {err}", tool.as_str()),
        )
        .with_hint("see the tool's input schema in tools/list")
    })
}

#[cfg(test)]
mod tests {
    use super::test_support::{
        error_code, fixture, fixture_files, text, with, with_fixture_sources,
    };
    use super::*;
    use nexus_engine::sample::sample_graph;
    use nexus_engine::{SourceFile, index, index_with_sources};
    use serde_json::json;

    #[test]
    fn answers_name_the_files_still_pending() {
        let ok = |t: &str| Outcome::Ok(ToolOutput { text: t.into() });
        let pending: Vec<String> = (0..12).map(|i| format!("f{i}.py")).collect();
        assert_eq!(with_pending_note(ok("# x"), &[]), ok("# x"));
        let Outcome::Ok(ToolOutput { text }) = with_pending_note(ok("# x"), &pending[..2]) else {
            panic!("an answer stays an answer");
        };
        assert!(text.starts_with("# x\n\n> Pending: 2 file(s)"), "{text}");
        assert!(text.contains("`f0.py`, `f1.py`"), "{text}");
        let Outcome::Ok(ToolOutput { text }) = with_pending_note(ok("{\"a\":1}"), &pending) else {
            panic!("an answer stays an answer");
        };
        let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(json["a"], 1);
        assert_eq!(json["pending_count"], 12);
        assert_eq!(json["pending_files"].as_array().map(Vec::len), Some(10));
        let err = Outcome::Err(ToolError::new(ErrorCode::InvalidParams, "no"));
        assert_eq!(with_pending_note(err.clone(), &pending), err);
    }

    #[test]
    fn tools_said_not_to_read_the_keyword_index_answer_alike_without_it() {
        let (graph, sources) = super::test_support::indexed(fixture_files());
        let calls = [
            (
                "cypher",
                json!({"query": "MATCH (f:Function) RETURN f.id, f.name"}),
            ),
            (
                "cypher",
                json!({"query": "MATCH (a)-[:CALLS]->(b {name: 'charge'}) RETURN a.id"}),
            ),
            (
                "read",
                json!({"path": "shop/cart.py", "include_deps": true}),
            ),
            (
                "read",
                json!({"path": "shop/cart.py", "start_line": 3, "end_line": 5}),
            ),
            ("grep", json!({"pattern": "charge", "context_lines": 1})),
        ];
        let answers = |search: &SearchIndex| -> Vec<String> {
            let memory = ToolMemory::default();
            let ctx = ToolContext {
                graph: &graph,
                search,
                sources: &sources,
                previous: None,
                working_changes: None,
                changed_ms: None,
                memory: &memory,
                now_ms: 0.0,
                clock: || 0.0,
                session: None,
                cancelled: || false,
            };
            // Alone, then in a session (its lines and aliases) twice.
            [None, Some("s"), Some("s")]
                .into_iter()
                .flat_map(|session| {
                    let ctx = ToolContext { session, ..ctx };
                    calls
                        .iter()
                        .map(|(tool, args)| {
                            assert!(!reads_keyword_index(tool), "{tool}");
                            format!("{:?}", dispatch(Some(&ctx), tool, args.clone()))
                        })
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        let with_index = answers(&SearchIndex::build(&graph));
        assert!(
            with_index.iter().any(|a| a.contains("charge")),
            "{with_index:?}"
        );
        assert_eq!(answers(&SearchIndex::default()), with_index);
        assert!(reads_keyword_index("impact") && reads_keyword_index("context"));
    }

    #[test]
    fn every_catalog_tool_has_a_defined_answer() {
        with(sample_graph(), |ctx| {
            for tool in ToolName::ALL {
                match dispatch(Some(ctx), tool.as_str(), json!({})) {
                    Outcome::Ok(_) => assert!(
                        matches!(
                            tool,
                            ToolName::Context | ToolName::Overview | ToolName::Diff
                        ),
                        "{}",
                        tool.as_str()
                    ),
                    Outcome::Err(err) => assert!(
                        matches!(err.code, ErrorCode::InvalidParams),
                        "{}: {err}",
                        tool.as_str()
                    ),
                }
            }
        });
    }

    #[test]
    fn unknown_tool_and_bad_params_are_errors() {
        with(sample_graph(), |ctx| {
            let ctx = Some(ctx);
            assert_eq!(
                error_code(dispatch(ctx, "teleport", json!({}))),
                ErrorCode::UnknownTool
            );
            assert_eq!(
                error_code(dispatch(ctx, "context", json!({"focus": "everything"}))),
                ErrorCode::InvalidParams
            );
            assert_eq!(
                error_code(dispatch(ctx, "context", json!({"fokus": "stats"}))),
                ErrorCode::InvalidParams
            );
            assert_eq!(
                error_code(dispatch(ctx, "context", json!([1]))),
                ErrorCode::InvalidParams
            );
            assert_eq!(
                error_code(dispatch(ctx, "search", json!({"query": "  "}))),
                ErrorCode::InvalidParams
            );
            assert_eq!(
                error_code(dispatch(
                    ctx,
                    "search",
                    json!({"query": "x", "kind": "Galaxy"})
                )),
                ErrorCode::InvalidParams
            );
        });
    }

    #[test]
    fn structural_summaries_reach_context_overview_explore_and_search() {
        let files = vec![
            SourceFile {
                path: "shop/cart.py".into(),
                bytes: b"from shop.pay import charge\n\nclass Cart:\n    def total(self):\n        return 1\n    def checkout(self):\n        charge(self.total())\n".to_vec(),
            },
            SourceFile {
                path: "shop/pay.py".into(),
                bytes: b"def charge(x):\n    return validate(x)\n\ndef validate(x):\n    return x\n".to_vec(),
            },
            SourceFile {
                path: "api/views.py".into(),
                bytes: b"from shop.cart import Cart\n\ndef buy():\n    Cart().checkout()\n".to_vec(),
            },
        ];
        let graph = index("shop", files, &|| 0.0, &mut |_, _, _| true)
            .unwrap()
            .0;
        with(graph, |ctx| {
            let ctx = Some(ctx);
            let answer = text(dispatch(ctx, "context", json!({"focus": "structure"})));
            assert!(
                answer.contains("- shop/ (2 files) — central: ")
                    && answer.contains("called by: api"),
                "{answer}"
            );
            let json: serde_json::Value = serde_json::from_str(&text(dispatch(
                ctx,
                "context",
                json!({"focus": "structure", "format": "json"}),
            )))
            .unwrap();
            assert!(
                json["folder_summaries"]["shop"]
                    .as_str()
                    .unwrap()
                    .starts_with("2 files; ")
            );
            let answer = text(dispatch(ctx, "explore", json!({"id": "File:shop/pay.py"})));
            assert!(
                answer.contains(
                    "> 2 functions · central: charge, validate · called by: shop/cart.py"
                ),
                "{answer}"
            );
            let answer = text(dispatch(ctx, "overview", json!({})));
            if answer.contains("## Communities") && !answer.contains("(largest 0 of 0)") {
                assert!(answer.contains("central: "), "{answer}");
            }
            let answer = text(dispatch(
                ctx,
                "search",
                json!({"query": "shop", "kind": "Folder"}),
            ));
            assert!(
                answer.contains("Folder `Folder:shop`") && answer.contains("\n  2 files; "),
                "{answer}"
            );
        });
    }

    #[test]
    fn no_graph_is_a_clear_error() {
        assert_eq!(
            error_code(dispatch(None, "context", json!({}))),
            ErrorCode::NoGraph
        );
    }

    #[test]
    fn null_arguments_mean_defaults() {
        with(sample_graph(), |ctx| {
            assert!(matches!(
                dispatch(Some(ctx), "context", serde_json::Value::Null),
                Outcome::Ok(_)
            ))
        });
    }

    #[test]
    fn search_ranks_pages_filters_and_groups() {
        with(fixture(), |ctx| {
            let ctx = Some(ctx);
            let answer = text(dispatch(
                ctx,
                "search",
                json!({"query": "checkout", "group_by_process": false}),
            ));
            let first = answer.lines().nth(1).unwrap_or_default();
            assert!(
                first.starts_with(
                    "- Method `Method:shop/cart.py:Cart.checkout` — shop/cart.py:7 · score"
                ),
                "{answer}"
            );
            assert!(answer.contains("`def checkout(self)`"), "{answer}");
            let grouped = text(dispatch(ctx, "search", json!({"query": "checkout"})));
            assert!(grouped.contains("## Process: main → "), "{grouped}");
            let page = text(dispatch(
                ctx,
                "search",
                json!({"query": "cart", "limit": 1, "group_by_process": false}),
            ));
            assert!(
                page.contains("has_more: true — next page with offset=1"),
                "{page}"
            );
            let functions = text(dispatch(
                ctx,
                "search",
                json!({"query": "charge validate", "kind": "Function", "path": "shop/pay", "format": "json"}),
            ));
            let value: serde_json::Value = serde_json::from_str(&functions).unwrap();
            assert_eq!(value["total"], 2);
            assert!(
                value["hits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|h| h["kind"] == "Function")
            );
            let none = text(dispatch(ctx, "search", json!({"query": "zebra"})));
            assert!(
                none.contains("0 hits") && none.contains("No match"),
                "{none}"
            );
            let full = text(dispatch(
                ctx,
                "search",
                json!({"query": "checkout", "verbosity": "full", "group_by_process": false}),
            ));
            assert!(full.contains("Pays for the cart."), "{full}");
        });
    }

    #[test]
    fn search_finds_one_and_two_character_names_whole_then_by_prefix() {
        let files = vec![SourceFile {
            path: "db/io.py".into(),
            bytes: b"def io():\n    pass\n\ndef iota():\n    pass\n\ndef idle():\n    pass\n"
                .to_vec(),
        }];
        let graph = index("p", files, &|| 0.0, &mut |_, _, _| true)
            .map(|(g, _)| g)
            .unwrap_or_default();
        with(graph, |ctx| {
            let answer = text(dispatch(
                Some(ctx),
                "search",
                json!({"query": "io", "group_by_process": false, "mode": "semantic"}),
            ));
            let ids: Vec<&str> = answer
                .lines()
                .filter(|l| l.starts_with("- "))
                .filter_map(|l| l.split('`').nth(1))
                .collect();
            assert_eq!(
                ids,
                [
                    "Function:db/io.py:io",
                    "File:db/io.py",
                    "Function:db/io.py:iota"
                ],
                "{answer}"
            );
            assert!(answer.contains("· name ·"), "{answer}");
            let folder = text(dispatch(Some(ctx), "search", json!({"query": "DB"})));
            assert!(folder.contains("`Folder:db`"), "{folder}");
            let one = text(dispatch(
                Some(ctx),
                "search",
                json!({"query": "i", "kind": "Function", "limit": 100}),
            ));
            assert!(one.starts_with("# search \"i\" — 3 hits"), "{one}");
        });
    }

    #[test]
    fn search_modes_need_embeddings_for_meaning_and_report_time() {
        with(fixture(), |ctx| {
            let ctx = Some(ctx);
            assert_eq!(
                error_code(dispatch(ctx, "search", json!({"query": "  "}))),
                ErrorCode::InvalidParams
            );
            let Outcome::Err(err) = dispatch(
                ctx,
                "search",
                json!({"query": "pay for things", "mode": "semantic"}),
            ) else {
                panic!("semantic search without embeddings must fail");
            };
            let hint = err.hint.unwrap_or_default();
            assert!(
                hint.contains("`grep`") && hint.contains("embeddings"),
                "{hint}"
            );
            let answer = text(dispatch(
                ctx,
                "search",
                json!({"query": "checkout", "mode": "hybrid", "format": "json"}),
            ));
            let value: serde_json::Value = serde_json::from_str(&answer).unwrap();
            assert_eq!(value["mode"], "keyword", "{answer}");
            assert!(value["ms"].as_f64().is_some() && value["total"].as_u64() > Some(0));
            let md = text(dispatch(ctx, "search", json!({"query": "checkout"})));
            assert!(
                md.lines()
                    .next()
                    .unwrap_or_default()
                    .contains("· keyword ·"),
                "{md}"
            );
        });
    }

    #[test]
    fn impact_groups_by_depth_and_says_when_it_is_a_lower_bound() {
        with(fixture(), |ctx| {
            let ctx = Some(ctx);
            let answer = text(dispatch(ctx, "impact", json!({"target": "validate"})));
            assert!(
                answer.starts_with(
                    "# impact of `Function:shop/pay.py:validate` (shop/pay.py:4) — risk"
                ),
                "{answer}"
            );
            assert!(
                answer
                    .contains("## depth 1 — WILL BREAK\n- Function `Function:shop/pay.py:charge`"),
                "{answer}"
            );
            assert!(
                answer.contains(
                    "## depth 2 — LIKELY AFFECTED\n- Method `Method:shop/cart.py:Cart.checkout`"
                ),
                "{answer}"
            );
            assert!(
                answer.contains(
                    "## depth 3+ — MAY NEED TESTING\n- Function `Function:shop/cart.py:main`"
                ),
                "{answer}"
            );
            assert!(!answer.contains("Lower bound"), "{answer}");
            let shallow = text(dispatch(
                ctx,
                "impact",
                json!({"target": "Function:shop/pay.py:validate", "max_depth": 1, "format": "json"}),
            ));
            let value: serde_json::Value = serde_json::from_str(&shallow).unwrap();
            assert_eq!(value["by_depth"]["1"], 1);
            assert_eq!(value["total"], 1);
            for (severity, total) in [
                ("will_break", 1),
                ("likely_affected", 2),
                ("may_need_testing", 3),
            ] {
                let tier: serde_json::Value = serde_json::from_str(&text(dispatch(
                    ctx,
                    "impact",
                    json!({"target": "validate", "severity_threshold": severity, "format": "json"}),
                )))
                .unwrap();
                assert_eq!(tier["total"], total, "{severity}: {tier}");
            }
            let strict = text(dispatch(
                ctx,
                "impact",
                json!({"target": "Cart.total", "min_confidence": 0.99}),
            ));
            assert!(strict.contains("Lower bound:"), "{strict}");
            let down = text(dispatch(
                ctx,
                "impact",
                json!({"target": "Cart.checkout", "direction": "downstream", "relation_types": ["CALLS"]}),
            ));
            assert!(
                down.contains("`Function:shop/pay.py:charge`")
                    && down.contains("`Method:shop/cart.py:Cart.log`"),
                "{down}"
            );
            assert_eq!(
                error_code(dispatch(
                    ctx,
                    "impact",
                    json!({"target": "nonexistent_thing"})
                )),
                ErrorCode::NotFound
            );
            assert_eq!(
                error_code(dispatch(
                    ctx,
                    "impact",
                    json!({"target": "validate", "relation_types": ["SUMMONS"]})
                )),
                ErrorCode::InvalidParams
            );
        });
    }

    #[test]
    fn ambiguous_names_list_candidates_instead_of_guessing() {
        let files = vec![
            SourceFile {
                path: "a.py".into(),
                bytes: b"def run():\n    pass\n".to_vec(),
            },
            SourceFile {
                path: "b.py".into(),
                bytes: b"def run():\n    pass\n".to_vec(),
            },
        ];
        let graph = index("t", files, &|| 0.0, &mut |_, _, _| true)
            .map(|(g, _)| g)
            .unwrap_or_default();
        with(graph, |ctx| {
            match dispatch(Some(ctx), "impact", json!({"target": "run"})) {
                Outcome::Err(err) => {
                    assert_eq!(err.code, ErrorCode::Ambiguous);
                    let hint = err.hint.unwrap_or_default();
                    assert!(
                        hint.contains("`Function:a.py:run`")
                            && hint.contains("`Function:b.py:run`"),
                        "{hint}"
                    );
                }
                Outcome::Ok(out) => panic!("guessed: {}", out.text),
            }
        });
    }

    #[test]
    fn deep_dive_gives_card_callers_callees_impact_and_processes() {
        with(fixture(), |ctx| {
            let answer = text(dispatch(
                Some(ctx),
                "deep_dive",
                json!({"name": "Cart.checkout"}),
            ));
            assert!(answer.starts_with("# Method `Method:shop/cart.py:Cart.checkout`\nshop/cart.py:7 – line 10 · member of `Class:shop/cart.py:Cart`"), "{answer}");
            assert!(
                answer.contains("`def checkout(self)`") && answer.contains("> Pays for the cart."),
                "{answer}"
            );
            assert!(
                answer.contains("Impact: risk LOW · 1 will break"),
                "{answer}"
            );
            assert!(
                answer.contains("## Callers (1)\n- Function `Function:shop/cart.py:main`"),
                "{answer}"
            );
            assert!(answer.contains("## Callees (3)"), "{answer}");
            assert!(answer.contains("Processes: main → "), "{answer}");
        });
    }

    #[test]
    fn explore_symbols_and_processes() {
        with(fixture(), |ctx| {
            let symbol = text(dispatch(Some(ctx), "explore", json!({"name": "charge"})));
            assert!(
                symbol.contains("## Callers (1)")
                    && symbol.contains("← DEFINES `File:shop/pay.py`"),
                "{symbol}"
            );
            let process = text(dispatch(
                Some(ctx),
                "explore",
                json!({"name": "main", "type": "process"}),
            ));
            assert!(
                process.contains("1. Function `Function:shop/cart.py:main`"),
                "{process}"
            );
            assert_eq!(
                error_code(dispatch(Some(ctx), "explore", json!({"type": "cluster"}))),
                ErrorCode::InvalidParams
            );
            assert_eq!(
                error_code(dispatch(
                    Some(ctx),
                    "explore",
                    json!({"name": "zzz", "type": "process"})
                )),
                ErrorCode::NotFound
            );
        });
    }

    #[test]
    fn explore_lists_process_steps_and_cluster_members_as_json() {
        with(fixture(), |ctx| {
            let process: serde_json::Value = serde_json::from_str(&text(dispatch(
                Some(ctx),
                "explore",
                json!({"name": "main", "type": "process", "format": "json"}),
            )))
            .unwrap();
            assert_eq!(process["steps"][0]["id"], "Function:shop/cart.py:main");
            assert_eq!(process["steps"][0]["kind"], "Function");
            assert_eq!(process["size"], process["steps"].as_array().unwrap().len());
            let cluster: serde_json::Value = serde_json::from_str(&text(dispatch(
                Some(ctx),
                "explore",
                json!({"name": "shop", "type": "cluster", "format": "json"}),
            )))
            .unwrap();
            let members = cluster["members"].as_array().unwrap();
            assert!(!members.is_empty(), "{cluster}");
            assert!(members.iter().all(|m| m["location"].is_string()));
        });
    }

    #[test]
    fn trace_flow_finds_the_shortest_call_path() {
        with(fixture(), |ctx| {
            let path = text(dispatch(
                Some(ctx),
                "trace_flow",
                json!({"from": "main", "to": "validate"}),
            ));
            assert!(
                path.starts_with(
                    "# 3 hops from `Function:shop/cart.py:main` to `Function:shop/pay.py:validate`"
                ),
                "{path}"
            );
            assert!(path.contains("2. `Function:shop/pay.py:charge`"), "{path}");
            let none = dispatch(
                Some(ctx),
                "trace_flow",
                json!({"from": "validate", "to": "main"}),
            );
            assert_eq!(error_code(none), ErrorCode::NotFound);
            let flows = text(dispatch(Some(ctx), "trace_flow", json!({"from": "charge"})));
            assert!(
                flows.contains("# processes through `Function:shop/pay.py:charge` (1)"),
                "{flows}"
            );
        });
    }

    #[test]
    fn trace_flow_prunes_by_confidence_relation_and_kind() {
        with(fixture(), |ctx| {
            let ctx = Some(ctx);
            let around = dispatch(
                ctx,
                "trace_flow",
                json!({"from": "main", "to": "validate", "exclude_kinds": ["Method"]}),
            );
            let Outcome::Err(err) = around else {
                panic!("main reaches validate only through a method");
            };
            assert!(
                err.message.contains("excluded kinds not passed through"),
                "{}",
                err.message
            );
            let strict = dispatch(
                ctx,
                "trace_flow",
                json!({"from": "main", "to": "validate", "min_confidence": 1.0}),
            );
            assert_eq!(error_code(strict), ErrorCode::NotFound);
            let imports = text(dispatch(
                ctx,
                "trace_flow",
                json!({"from": "File:shop/cart.py", "to": "File:shop/pay.py", "relation_types": ["IMPORTS"]}),
            ));
            assert!(
                imports.starts_with("# 1 hops from `File:shop/cart.py`"),
                "{imports}"
            );
            assert_eq!(
                error_code(dispatch(
                    ctx,
                    "trace_flow",
                    json!({"from": "main", "to": "validate", "relation_types": ["CALLZ"]}),
                )),
                ErrorCode::InvalidParams
            );
        });
    }

    #[test]
    fn read_numbers_lines_honours_ranges_and_refuses_unsafe_paths() {
        with_fixture_sources(|ctx| {
            let ctx = Some(ctx);
            let whole = text(dispatch(
                ctx,
                "read",
                json!({"path": "shop/pay.py", "include_deps": true}),
            ));
            assert!(whole.starts_with("# shop/pay.py (python, 5 lines, 69 B) — lines 1–5\nimports: none\nimported by: shop/cart.py\n1 | def charge(x):"), "{whole}");
            let cart = text(dispatch(
                ctx,
                "read",
                json!({"path": "shop/cart.py", "include_deps": true, "end_line": 2}),
            ));
            assert!(
                cart.contains("imports: shop/pay.py\nimported by: none\n## shop/pay.py (python, 5 lines, 69 B)\n    1 | def charge(x)\n    4 | def validate(x)\n## shop/cart.py\n1 | from shop.pay import charge\n2 | \n"),
                "{cart}"
            );
            let paths_only = text(dispatch(
                ctx,
                "read",
                json!({"path": "shop/cart.py", "include_deps": true, "max_depth": 0}),
            ));
            assert!(
                paths_only.contains("imports: shop/pay.py")
                    && !paths_only.contains("## shop/pay.py"),
                "{paths_only}"
            );
            let json: serde_json::Value = serde_json::from_str(&text(dispatch(
                ctx,
                "read",
                json!({"path": "shop/cart.py", "include_deps": true, "format": "json"}),
            )))
            .unwrap();
            assert_eq!(json["dependencies"][0]["path"], "shop/pay.py");
            assert_eq!(json["dependencies"][0]["size"], 69);
            assert_eq!(
                json["dependencies"][0]["definitions"][1]["id"],
                "Function:shop/pay.py:validate"
            );
            assert_eq!(
                error_code(dispatch(
                    ctx,
                    "read",
                    json!({"path": "shop/cart.py", "max_depth": 2})
                )),
                ErrorCode::InvalidParams
            );
            let range = text(dispatch(
                ctx,
                "read",
                json!({"path": "./shop/pay.py", "start_line": 4, "end_line": 5}),
            ));
            assert!(
                range.contains("4 | def validate(x):") && !range.contains("1 | def charge"),
                "{range}"
            );
            assert!(
                text(dispatch(ctx, "read", json!({"path": "README.md"})))
                    .contains("(text, 2 lines, 29 B)")
            );
            for path in [
                "/etc/passwd",
                "../outside.py",
                "shop/../../x",
                ".git/config",
                ".env",
                "C:\\x.py",
                "",
            ] {
                assert_eq!(
                    error_code(dispatch(ctx, "read", json!({"path": path}))),
                    ErrorCode::PathRefused,
                    "{path}"
                );
            }
            assert_eq!(
                error_code(dispatch(ctx, "read", json!({"path": "shop/nope.py"}))),
                ErrorCode::NotFound
            );
            assert_eq!(
                error_code(dispatch(
                    ctx,
                    "read",
                    json!({"path": "shop/pay.py", "start_line": 9})
                )),
                ErrorCode::InvalidParams
            );
        });
    }

    #[test]
    fn grep_finds_matches_with_context_globs_and_errors() {
        with_fixture_sources(|ctx| {
            let ctx = Some(ctx);
            let answer = text(dispatch(
                ctx,
                "grep",
                json!({"pattern": "CHARGE\\(", "context_lines": 1}),
            ));
            assert!(
                answer.starts_with("# grep /CHARGE\\(/ — 3 matches in 3 files"),
                "{answer}"
            );
            assert!(
                answer.contains("--\nshop/pay.py:1:5: def charge(x):\n  2+     return validate(x)"),
                "{answer}"
            );
            let scoped = text(dispatch(
                ctx,
                "grep",
                json!({"pattern": "charge", "file_pattern": "**/*.py", "case_sensitive": true, "format": "json"}),
            ));
            let value: serde_json::Value = serde_json::from_str(&scoped).unwrap();
            assert_eq!(value["total_matches"], 3);
            assert!(
                value["matches"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|m| m["file"].as_str().unwrap().ends_with(".py"))
            );
            assert!(!text(dispatch(ctx, "grep", json!({"pattern": "secret"}))).contains(".env"));
            let none = text(dispatch(ctx, "grep", json!({"pattern": "zebra"})));
            assert!(
                none.contains("0 matches") && none.contains("No match"),
                "{none}"
            );
            assert_eq!(
                error_code(dispatch(ctx, "grep", json!({"pattern": "(unclosed"}))),
                ErrorCode::InvalidRegex
            );
            assert_eq!(
                error_code(dispatch(
                    ctx,
                    "grep",
                    json!({"pattern": "x", "context_lines": 9})
                )),
                ErrorCode::InvalidParams
            );
        });
    }

    #[test]
    fn review_file_summarises_symbols_imports_and_content() {
        with_fixture_sources(|ctx| {
            let answer = text(dispatch(
                Some(ctx),
                "review_file",
                json!({"path": "shop/cart.py"}),
            ));
            assert!(
                answer.starts_with(
                    "# shop/cart.py — 17 lines, 5 symbols\nimports: shop/pay.py\nimported by: none"
                ),
                "{answer}"
            );
            assert!(
                answer.contains("- Method `Method:shop/cart.py:Cart.checkout` — line 7"),
                "{answer}"
            );
            assert!(
                answer.contains("   1 | from shop.pay import charge"),
                "{answer}"
            );
        });
    }

    #[test]
    fn cypher_answers_tables_and_explains_bad_queries() {
        with(fixture(), |ctx| {
            let ctx = Some(ctx);
            let table = text(dispatch(
                ctx,
                "cypher",
                json!({"query": "MATCH (a)-[r:CALLS]->(b {name:'validate'}) RETURN a.id, r.confidence"}),
            ));
            assert!(table.starts_with("1 rows\n| a.id | r.confidence |\n|---|---|\n| Function:shop/pay.py:charge | 0.9"), "{table}");
            let styled = text(dispatch(
                ctx,
                "cypher",
                json!({"query": "MATCH (a)-[:CodeRelation {type:'CALLS'}]->(b) WHERE b.name = $n RETURN count(*) AS n", "params": {"n": "charge"}, "format": "json"}),
            ));
            let value: serde_json::Value = serde_json::from_str(&styled).unwrap();
            assert_eq!(value["rows"][0][0], 1);
            let capped = text(dispatch(
                ctx,
                "cypher",
                json!({"query": "MATCH (n) RETURN n.id", "limit": 2}),
            ));
            assert!(
                capped.contains("(showing 2)") && capped.contains("has_more: true"),
                "{capped}"
            );
            for bad in [
                "MATCH (n) DELETE n",
                "MATCH (n:Galaxy) RETURN n",
                "RETURN",
                "MATCH (n) WHERE n.name =~ '(' RETURN n",
            ] {
                assert_eq!(
                    error_code(dispatch(ctx, "cypher", json!({"query": bad}))),
                    ErrorCode::InvalidQuery,
                    "{bad}"
                );
            }
        });
    }

    #[test]
    fn test_impact_names_the_tests_that_reach_changed_code() {
        let mut files = fixture_files();
        files.push(SourceFile {
            path: "tests/test_pay.py".into(),
            bytes:
                b"from shop.pay import charge\n\ndef test_charge():\n    assert charge(1) == 1\n"
                    .to_vec(),
        });
        files.push(SourceFile {
            path: "tests/test_other.py".into(),
            bytes: b"def test_nothing():\n    assert True\n".to_vec(),
        });
        let graph = index("shop", files, &|| 0.0, &mut |_, _, _| true)
            .map(|(g, _)| g)
            .unwrap_or_default();
        with(graph, |ctx| {
            let ctx = Some(ctx);
            let answer = text(dispatch(
                ctx,
                "test_impact",
                json!({"changed_files": ["shop/pay.py", "gone.py"]}),
            ));
            assert!(
                answer.contains("## Tests to run\n- tests/test_pay.py\n"),
                "{answer}"
            );
            assert!(!answer.contains("test_other.py"), "{answer}");
            assert!(answer.contains("not indexed: gone.py"), "{answer}");
            assert!(
                answer.contains("`Method:shop/cart.py:Cart.checkout`"),
                "{answer}"
            );
            let value: serde_json::Value = serde_json::from_str(&text(dispatch(
                ctx,
                "test_impact",
                json!({"changed_files": ["shop/pay.py"], "max_depth": 1, "format": "json"}),
            )))
            .unwrap();
            assert!(
                value["affected_symbols"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|s| s["depth"] == 1)
            );
            assert_eq!(
                error_code(dispatch(ctx, "test_impact", json!({"changed_files": []}))),
                ErrorCode::InvalidParams
            );
            assert_eq!(
                error_code(dispatch(
                    ctx,
                    "test_impact",
                    json!({"changed_files": ["nope.py"]})
                )),
                ErrorCode::NotFound
            );
        });
    }

    #[test]
    fn find_similar_ranks_symbols_sharing_callers_and_callees() {
        let files = vec![SourceFile {
            path: "m.py".into(),
            bytes: b"def load_user(i):\n    return fetch(i)\n\ndef load_order(i):\n    return fetch(i)\n\ndef fetch(i):\n    return i\n\ndef main():\n    load_user(1)\n    load_order(2)\n\ndef lonely(a, b):\n    return a\n".to_vec(),
        }];
        let graph = index("t", files, &|| 0.0, &mut |_, _, _| true)
            .map(|(g, _)| g)
            .unwrap_or_default();
        with(graph, |ctx| {
            let answer = text(dispatch(
                Some(ctx),
                "find_similar",
                json!({"name": "load_user"}),
            ));
            let first = answer.lines().nth(1).unwrap_or_default();
            assert!(
                first.starts_with("- `Function:m.py:load_order`"),
                "{answer}"
            );
            assert!(first.contains("callers 100% · callees 100%"), "{answer}");
            assert!(!answer.contains("lonely"), "{answer}");
            let none = text(dispatch(
                Some(ctx),
                "find_similar",
                json!({"name": "lonely"}),
            ));
            assert!(none.contains("Nothing similar"), "{none}");
        });
    }

    #[test]
    fn overview_lists_processes_and_respects_flags() {
        with(fixture(), |ctx| {
            let ctx = Some(ctx);
            let answer = text(dispatch(ctx, "overview", json!({})));
            assert!(answer.starts_with("# shop — 2 files"), "{answer}");
            assert!(
                answer.contains("## Processes") && answer.contains("- main → "),
                "{answer}"
            );
            let only = text(dispatch(ctx, "overview", json!({"show_processes": false})));
            assert!(!only.contains("## Processes"), "{only}");
            let json: serde_json::Value =
                serde_json::from_str(&text(dispatch(ctx, "overview", json!({"format": "json"}))))
                    .unwrap();
            assert!(json["processes_total"].as_u64().unwrap() >= 1);
        });
    }

    #[test]
    fn a_session_is_given_context_sections_and_overview_entries_once() {
        with(fixture(), |ctx| {
            let session = ToolContext {
                session: Some("c"),
                ..*ctx
            };
            let plain = text(dispatch(Some(ctx), "context", json!({})));
            let first = text(dispatch(Some(&session), "context", json!({})));
            assert_eq!(first, plain, "the first answer is complete");
            let again = text(dispatch(Some(&session), "context", json!({})));
            assert!(
                again.contains(
                    "## Hotspots (most callers): as given before (focus=\"hotspots\" repeats it)"
                ) && again.contains("## Schema: as given before")
                    && !again.contains("Class:shop/cart.py:Cart — 1 callers")
                    && again.contains("2 files · "),
                "{again}"
            );
            let asked = text(dispatch(
                Some(&session),
                "context",
                json!({"focus": "hotspots"}),
            ));
            assert!(
                asked.contains("- Class:shop/cart.py:Cart — 1 callers"),
                "{asked}"
            );
            assert_eq!(text(dispatch(Some(ctx), "context", json!({}))), plain);

            let plain = text(dispatch(Some(ctx), "overview", json!({})));
            let first = text(dispatch(Some(&session), "overview", json!({})));
            assert!(first.contains("- main → "), "{first}");
            let again = text(dispatch(Some(&session), "overview", json!({})));
            assert!(
                again.contains("- as given before: `main → ")
                    && !again.contains(" steps, depth ")
                    && again.len() < first.len(),
                "{again}"
            );
            assert_eq!(text(dispatch(Some(ctx), "overview", json!({}))), plain);
        });
    }

    #[test]
    fn the_breadcrumb_names_calls_only_when_the_trail_does_not() {
        with(fixture(), |ctx| {
            let session = ToolContext {
                session: Some("b"),
                ..*ctx
            };
            let ctx = Some(&session);
            dispatch(ctx, "search", json!({"query": "pay cart"}));
            dispatch(ctx, "explore", json!({"name": "charge"}));
            dispatch(ctx, "impact", json!({"target": "validate", "max_depth": 2}));
            let trail = text(dispatch(ctx, "context", json!({})));
            assert!(
                trail.contains(
                    "Session `b` — looking at `validate` ← `charge` — recent calls: search pay cart."
                ),
                "{trail}"
            );
        });
    }

    /// With the built-in model's embeddings (written by `scripts/setup.sh`), the default is hybrid
    /// and semantic search answers by meaning, within its page limit.
    #[test]
    fn search_defaults_to_hybrid_once_embeddings_exist() {
        use nexus_engine::embed::{StaticModel, VectorIndex};
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../model/static-minilm.nxse");
        let bytes =
            std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}; run scripts/setup.sh"));
        let model = StaticModel::from_bytes(&bytes).unwrap();
        let (graph, sources) = test_support::indexed(fixture_files());
        let mut search = SearchIndex::build(&graph);
        let (vectors, _) = VectorIndex::build(&graph, &sources, &model, None, &mut |_, _| true);
        search.attach_embeddings(std::sync::Arc::new(model), vectors);
        let memory = ToolMemory::default();
        let ctx = ToolContext {
            graph: &graph,
            search: &search,
            sources: &sources,
            previous: None,
            working_changes: None,
            changed_ms: None,
            memory: &memory,
            now_ms: 0.0,
            clock: test_support::ticking_clock,
            session: None,
            cancelled: || false,
        };
        let json_of = |args| -> serde_json::Value {
            serde_json::from_str(&text(dispatch(Some(&ctx), "search", args))).unwrap()
        };
        let hybrid = json_of(json!({"query": "checkout", "format": "json"}));
        assert_eq!(hybrid["mode"], "hybrid");
        assert_eq!(hybrid["hits"][0]["name"], "checkout", "{hybrid}");
        let meaning = json_of(
            json!({"query": "pay with a credit card", "mode": "semantic", "limit": 50, "format": "json"}),
        );
        assert_eq!(meaning["mode"], "semantic");
        assert!(meaning["hits"].as_array().unwrap().len() <= 20);
        let top: Vec<&str> = meaning["hits"]
            .as_array()
            .unwrap()
            .iter()
            .take(3)
            .filter_map(|h| h["name"].as_str())
            .collect();
        assert!(
            top.contains(&"charge") || top.contains(&"pay.py"),
            "{meaning}"
        );
    }

    #[test]
    fn diff_reports_changes_against_the_previous_fingerprint() {
        let (old_graph, _, old_sources) =
            index_with_sources("shop", fixture_files(), &|| 0.0, &mut |_, _, _| true).unwrap();
        let previous = Fingerprint::of(&old_graph, &old_sources, 0.0);
        let mut files = fixture_files();
        files[1].bytes = b"def charge(x):\n    return validate(x) + 1\n\ndef validate(x):\n    return x\n\ndef refund(x):\n    return -x\n".to_vec();
        files.push(SourceFile {
            path: "shop/ship.py".into(),
            bytes: b"def ship():\n    pass\n".to_vec(),
        });
        let (graph, _, sources) =
            index_with_sources("shop", files, &|| 0.0, &mut |_, _, _| true).unwrap();
        let search = SearchIndex::build(&graph);
        let memory = ToolMemory::default();
        let mut ctx = ToolContext {
            graph: &graph,
            search: &search,
            sources: &sources,
            previous: None,
            working_changes: None,
            changed_ms: None,
            memory: &memory,
            now_ms: 0.0,
            clock: test_support::ticking_clock,
            session: None,
            cancelled: || false,
        };
        let none = text(dispatch(Some(&ctx), "diff", json!({})));
        assert!(none.starts_with("No previous snapshot of `shop`"), "{none}");
        ctx.previous = Some(&previous);
        let out = text(dispatch(Some(&ctx), "diff", json!({})));
        assert!(out.contains("files: +1 ~1 -0 · symbols: +2 ~1 -0"), "{out}");
        assert!(out.contains("- shop/ship.py"), "{out}");
        assert!(
            out.contains("`Function:shop/pay.py:charge` — shop/pay.py:1"),
            "{out}"
        );
        assert!(out.contains("`Function:shop/pay.py:refund`"), "{out}");
        assert!(!out.contains("validate`"), "unchanged symbol listed: {out}");
        let json: serde_json::Value = serde_json::from_str(&text(dispatch(
            Some(&ctx),
            "diff",
            json!({"format": "json", "limit": 1}),
        )))
        .unwrap();
        assert_eq!(json["totals"]["symbols_added"], 2);
        assert_eq!(json["symbols"]["added"].as_array().map(Vec::len), Some(1));
        let added = text(dispatch(
            Some(&ctx),
            "diff",
            json!({"change_types": ["added"]}),
        ));
        assert!(
            added.contains("Only added changes (change_types)."),
            "{added}"
        );
        assert!(added.contains("`Function:shop/pay.py:refund`"), "{added}");
        assert!(
            !added.contains("charge") && !added.contains("Files modified"),
            "{added}"
        );
        assert_eq!(
            error_code(dispatch(Some(&ctx), "diff", json!({"since": "yesterday"}))),
            ErrorCode::InvalidParams
        );
    }

    #[test]
    fn highlight_marks_ids_and_names_and_reports_the_rest() {
        with(fixture(), |ctx| {
            let answer = answer(
                Some(ctx),
                "highlight",
                json!({"ids": ["Function:shop/pay.py:charge", "validate", "nope_missing"], "color": "red"}),
            );
            let marked = answer.highlight.expect("a highlight effect");
            assert_eq!(
                marked.ids,
                [
                    "Function:shop/pay.py:charge",
                    "Function:shop/pay.py:validate"
                ]
            );
            assert_eq!(marked.color, "red");
            let out = text(answer.outcome);
            assert!(out.starts_with("Highlighted 2 nodes in red"), "{out}");
            assert!(out.contains("not highlighted `nope_missing`"), "{out}");
            let refused = super::answer(
                Some(ctx),
                "highlight",
                json!({"ids": ["charge"], "color": "red;x"}),
            );
            assert!(refused.highlight.is_none());
            assert_eq!(error_code(refused.outcome), ErrorCode::InvalidParams);
            assert_eq!(
                error_code(dispatch(Some(ctx), "highlight", json!({"ids": []}))),
                ErrorCode::InvalidParams
            );
        });
    }

    #[test]
    fn sessions_collapse_what_was_returned_and_boost_the_focus() {
        with(fixture(), |ctx| {
            let first = text(dispatch(
                Some(ctx),
                "search",
                json!({"query": "charge", "session": "s1", "group_by_process": false}),
            ));
            assert!(!first.contains("returned earlier"), "{first}");
            let again = text(dispatch(
                Some(ctx),
                "search",
                json!({"query": "charge", "session": "s1", "group_by_process": false}),
            ));
            assert!(again.contains("- `charge` (seen)"), "{again}");
            let other = text(dispatch(
                Some(ctx),
                "search",
                json!({"query": "charge", "session": "s2", "group_by_process": false}),
            ));
            assert_eq!(other, first, "sessions are separate");

            let card = text(dispatch(
                Some(ctx),
                "deep_dive",
                json!({"name": "validate", "session": "s1"}),
            ));
            assert!(card.contains("charge"), "{card}");
            let short = text(dispatch(
                Some(ctx),
                "deep_dive",
                json!({"name": "validate", "session": "s1"}),
            ));
            assert!(
                short.contains("returned earlier in this session") && short.lines().count() == 1,
                "{short}"
            );
            let full = text(dispatch(
                Some(ctx),
                "deep_dive",
                json!({"name": "validate", "session": "s1", "verbosity": "full"}),
            ));
            assert!(
                full.contains("charge") && !full.contains("returned earlier"),
                "{full}"
            );

            // `main` (cart.py) outranks `charge` (pay.py) until the session focuses on pay.py.
            let plain = text(dispatch(
                Some(ctx),
                "search",
                json!({"query": "main charge", "group_by_process": false}),
            ));
            let first_line = |t: &str| t.lines().nth(1).unwrap_or_default().to_owned();
            assert!(first_line(&plain).contains("shop/cart.py"), "{plain}");
            dispatch(
                Some(ctx),
                "impact",
                json!({"target": "validate", "session": "s3"}),
            );
            let boosted = text(dispatch(
                Some(ctx),
                "search",
                json!({"query": "main charge", "session": "s3", "group_by_process": false}),
            ));
            assert!(first_line(&boosted).contains("`charge`"), "{boosted}");
        });
    }

    #[test]
    fn a_session_focused_on_tests_never_lifts_test_code_above_the_rest() {
        let files = vec![
            SourceFile {
                path: "shop/pay.py".into(),
                bytes: b"def refund(x):\n    return x\n".to_vec(),
            },
            SourceFile {
                path: "tests/test_pay.py".into(),
                bytes: b"from shop.pay import refund\n\ndef test_refund_money():\n    \"\"\"refund money\"\"\"\n    refund(1)\n".to_vec(),
            },
        ];
        let graph = index("shop", files, &|| 0.0, &mut |_, _, _| true)
            .map(|(g, _)| g)
            .unwrap_or_default();
        with(graph, |ctx| {
            let first_hit = |t: &str| t.lines().nth(1).unwrap_or_default().to_owned();
            // The test matches both words, so it scores above `refund`, yet ranks below it.
            let query = json!({"query": "refund money", "session": "s", "group_by_process": false});
            let before = text(dispatch(Some(ctx), "search", query.clone()));
            assert!(first_hit(&before).contains("shop/pay.py"), "{before}");
            dispatch(
                Some(ctx),
                "deep_dive",
                json!({"name": "test_refund_money", "session": "s"}),
            );
            let after = text(dispatch(Some(ctx), "search", query));
            assert!(first_hit(&after).starts_with("- `refund`"), "{after}");
            assert!(after.contains("test_refund_money"), "{after}");
        });
    }

    #[test]
    fn a_session_lists_the_best_few_and_the_rest_is_one_call_away() {
        // Twelve callers of one function, each in its own file.
        let mut files = vec![nexus_engine::SourceFile {
            path: "pay/target.py".into(),
            bytes: b"def settle(x):\n    return x\n".to_vec(),
        }];
        for i in 0..12 {
            files.push(nexus_engine::SourceFile {
                path: format!("pay/caller_{i}.py"),
                bytes: format!("from pay.target import settle\n\ndef settle_caller_{i}():\n    return settle({i})\n").into_bytes(),
            });
        }
        let (graph, sources) = test_support::indexed(files);
        test_support::with_sources(graph, sources, |ctx| {
            let ask = |session: Option<&str>, tool: &str, args: serde_json::Value| {
                let ctx = ToolContext { session, ..*ctx };
                text(dispatch(Some(&ctx), tool, args))
            };
            let (plain, session) = (None, Some("few"));
            let search = json!({"query": "settle caller", "group_by_process": false});
            assert!(ask(plain, "search", search.clone()).contains("(showing 1–10)"));
            let few = ask(session, "search", search.clone());
            assert!(
                few.contains("(showing 1–5)")
                    && few.contains("has_more: true — next page with offset=5"),
                "{few}"
            );
            let mut more = search.clone();
            more["offset"] = json!(5);
            assert!(ask(session, "search", more).contains("(showing 6–10)"));
            let mut asked = search;
            asked["limit"] = json!(10);
            assert!(
                ask(session, "search", asked).contains("(showing 1–10)"),
                "a limit asked for wins"
            );

            let impact = json!({"target": "settle"});
            let all = ask(plain, "impact", impact.clone());
            assert_eq!(all.matches("- Function `").count(), 12, "{all}");
            let few = ask(Some("impact"), "impact", impact);
            assert!(
                few.matches("- Function `").count() == 10
                    && few.contains("has_more: true — next page with offset=10"),
                "{few}"
            );
            let rest = ask(
                Some("impact"),
                "impact",
                json!({"target": "settle", "offset": 10}),
            );
            assert_eq!(rest.matches("- Function `").count(), 2, "{rest}");

            let explored = ask(Some("explore"), "explore", json!({"name": "settle"}));
            assert!(
                explored.matches("- Function `").count() == 8
                    && explored.contains("… 4 more (raise limit)"),
                "{explored}"
            );
            assert_eq!(
                ask(plain, "explore", json!({"name": "settle"}))
                    .matches("- Function `")
                    .count(),
                12
            );

            let dive = ask(Some("dive"), "deep_dive", json!({"name": "settle"}));
            assert!(
                dive.contains("## Callers (12)")
                    && dive.contains("… 7 more (verbosity=full lists all)"),
                "{dive}"
            );
            let usages = ask(Some("usages"), "find_usages", json!({"target": "settle"}));
            assert!(
                usages.contains("has_more: true — next page with offset=10"),
                "{usages}"
            );
            assert!(!ask(plain, "find_usages", json!({"target": "settle"})).contains("has_more"));
        });
    }

    #[test]
    fn a_session_names_a_file_once_then_by_an_alias_that_read_accepts() {
        with_fixture_sources(|ctx| {
            let session = ToolContext {
                session: Some("alias"),
                ..*ctx
            };
            let first = text(dispatch(
                Some(&session),
                "explore",
                json!({"name": "Cart.checkout"}),
            ));
            assert!(
                first.starts_with("# Method `Cart.checkout` — f1=shop/cart.py:7\n")
                    && first.contains("- Function `main` — f1:15 · ")
                    && first.contains("- Function `charge` — f2=shop/pay.py:1 · "),
                "a path is given once with its alias, then the alias alone: {first}"
            );
            let read = text(dispatch(
                Some(&session),
                "read",
                json!({"path": "f2", "start_line": 1, "end_line": 2}),
            ));
            assert!(
                read.starts_with("# f2 (python") && read.contains("1 | def charge(x):"),
                "{read}"
            );
            let plain = text(dispatch(
                Some(ctx),
                "explore",
                json!({"name": "Cart.checkout"}),
            ));
            assert!(
                plain.contains("- Function `Function:shop/cart.py:main` — shop/cart.py:15 · "),
                "without a session ids and paths are whole: {plain}"
            );
            assert_eq!(
                error_code(dispatch(Some(ctx), "read", json!({"path": "f2"}))),
                ErrorCode::NotFound,
                "an alias means nothing outside its session"
            );
        });
    }

    #[test]
    fn a_session_collapses_every_list_and_leaves_a_trail() {
        with(fixture(), |ctx| {
            let connection = ToolContext {
                session: Some("agent-1"),
                ..*ctx
            };
            let ctx = Some(&connection);
            let first = text(dispatch(ctx, "impact", json!({"target": "validate"})));
            assert!(
                first.starts_with("# impact of `validate` (f1=shop/pay.py:4)")
                    && first.contains("- Function `charge` — f1:1 · via CALLS"),
                "{first}"
            );
            let again = text(dispatch(ctx, "impact", json!({"target": "validate"})));
            assert!(
                again.contains("## depth 1 — WILL BREAK\n- seen before: `charge`\n")
                    && again.len() < first.len(),
                "{again}"
            );
            let path = text(dispatch(
                ctx,
                "trace_flow",
                json!({"from": "main", "to": "validate"}),
            ));
            assert!(path.contains("2. `charge` (seen)"), "{path}");
            let explored = text(dispatch(ctx, "explore", json!({"name": "charge"})));
            assert!(
                explored.contains("## Callers (1)\n- seen before: `Cart.checkout`\n"),
                "{explored}"
            );
            let trail = text(dispatch(ctx, "context", json!({})));
            assert!(
                trail.contains("Session `agent-1` — looking at `charge` ← `main` ← `validate`."),
                "{trail}"
            );
            let overview = text(dispatch(ctx, "overview", json!({})));
            assert!(overview.contains("Session `agent-1` — "), "{overview}");

            // A call naming its own session is apart; without any session nothing collapses.
            let own = text(dispatch(
                ctx,
                "impact",
                json!({"target": "validate", "session": "mine"}),
            ));
            assert_eq!(own, first);
            let none = text(dispatch(
                Some(&ToolContext {
                    session: None,
                    ..connection
                }),
                "impact",
                json!({"target": "validate"}),
            ));
            assert!(
                none.contains("- Function `Function:shop/pay.py:charge` — shop/pay.py:1 · ")
                    && !none.contains("seen"),
                "{none}"
            );

            // Thirty idle minutes later the session starts afresh.
            let later = ToolContext {
                now_ms: connection.now_ms + session::SESSION_TTL_MS + 1.0,
                ..connection
            };
            let fresh = text(dispatch(
                Some(&later),
                "impact",
                json!({"target": "validate"}),
            ));
            assert_eq!(fresh, first);
        });
    }

    #[test]
    fn a_session_gives_advice_once_and_tallies_known_connections() {
        with(fixture(), |ctx| {
            let session = ToolContext {
                session: Some("agent-2"),
                ..*ctx
            };
            let ask = || {
                text(dispatch(
                    Some(&session),
                    "explore",
                    json!({"name": "Cart.checkout", "limit": 1}),
                ))
            };
            let first = ask();
            assert!(first.contains("… 2 more (raise limit)"), "{first}");
            assert!(first.contains("- → MEMBER_OF `Cart`"), "{first}");
            let again = ask();
            assert!(
                again.contains("… 2 more\n") && !again.contains("raise limit"),
                "{again}"
            );
            assert!(
                again.contains("## Other connections\n- seen before: ")
                    && !again.contains("`Class:shop/cart.py:Cart`"),
                "{again}"
            );
            assert!(again.len() < first.len(), "{again}");
            let plain = text(dispatch(
                Some(ctx),
                "explore",
                json!({"name": "Cart.checkout", "limit": 1}),
            ));
            assert!(
                plain.contains("(raise limit)"),
                "without a session the advice stays: {plain}"
            );
        });
    }

    #[test]
    fn a_seen_symbol_keeps_its_id_where_its_name_is_not_unique() {
        let files = vec![
            SourceFile {
                path: "a.py".into(),
                bytes: b"def log():\n    return 1\n\ndef run():\n    log()\n".to_vec(),
            },
            SourceFile {
                path: "b.py".into(),
                bytes: b"def log():\n    return 2\n".to_vec(),
            },
        ];
        let graph = index("two", files, &|| 0.0, &mut |_, _, _| true)
            .map(|(g, _)| g)
            .unwrap_or_default();
        with(graph, |ctx| {
            let session = ToolContext {
                session: Some("agent-3"),
                ..*ctx
            };
            dispatch(Some(&session), "explore", json!({"name": "run"}));
            let again = text(dispatch(Some(&session), "explore", json!({"name": "run"})));
            assert!(
                again.contains("- seen before: `Function:a.py:log`"),
                "an ambiguous name is not a reference: {again}"
            );
            assert!(again.contains("# Function `run`"), "{again}");
        });
    }

    #[test]
    fn explore_honours_verbosity() {
        with(fixture(), |ctx| {
            let summary = text(dispatch(
                Some(ctx),
                "explore",
                json!({"name": "Cart.checkout", "verbosity": "summary"}),
            ));
            assert!(
                summary.contains("## Callees (3)\n- `") && !summary.contains("Other connections"),
                "{summary}"
            );
            let standard = text(dispatch(
                Some(ctx),
                "explore",
                json!({"name": "Cart.checkout"}),
            ));
            assert!(
                standard.contains("- Function `Function:shop/pay.py:charge` — shop/pay.py:1 ·"),
                "{standard}"
            );
            let full = text(dispatch(
                Some(ctx),
                "explore",
                json!({"name": "Cart.checkout", "verbosity": "full"}),
            ));
            assert!(
                full.contains("`def checkout(self)`") && full.contains("> Pays for the cart."),
                "{full}"
            );
        });
    }
}
