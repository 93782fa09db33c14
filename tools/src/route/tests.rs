//! Router tests: a table of questions and the plans they must give, then execution — `$result`
//! substitution, whole-step truncation, the cache (hits, expiry, cap, clearing) — and errors.

use nexus_shared::ErrorCode;
use serde_json::{Value, json};

use super::cache::TTL_MS;
use super::planner::plan;
use crate::test_support::{error_code, fixture_files, indexed, text};
use crate::{ToolContext, ToolMemory, dispatch};
use nexus_engine::Graph;
use nexus_engine::SearchIndex;
use nexus_engine::{SourceFile, Sources};

/// The tools' shop plus payments (with a TODO), a service class, a second `log` and a test.
fn router_files() -> Vec<SourceFile> {
    let mut files = fixture_files();
    files.push(SourceFile {
        path: "shop/payment.py".into(),
        bytes: b"from shop.pay import charge\n\n\ndef process_payment(order):\n    \"\"\"Charges the order and records the payment.\"\"\"\n    # TODO: retry when the card is declined\n    return charge(order)\n\n\ndef pay_order(order):\n    return process_payment(order)\n\n\ndef log(message):\n    return message\n\n\nclass UserService:\n    def get_user_name(self, user_id):\n        return str(user_id)\n".to_vec(),
    });
    files.push(SourceFile {
        path: "tests/test_cart.py".into(),
        bytes: b"from shop.cart import Cart\n\n\ndef test_checkout():\n    Cart().checkout()\n"
            .to_vec(),
    });
    files
}

/// The graph, index and sources of the router fixture, kept so contexts can share one cache.
struct Fixture {
    graph: Graph,
    search: SearchIndex,
    sources: Sources,
}

impl Fixture {
    fn new() -> Fixture {
        let (graph, sources) = indexed(router_files());
        let search = SearchIndex::build(&graph);
        Fixture {
            graph,
            search,
            sources,
        }
    }

    fn context<'a>(&'a self, memory: &'a ToolMemory, now_ms: f64) -> ToolContext<'a> {
        ToolContext {
            graph: &self.graph,
            search: &self.search,
            sources: &self.sources,
            previous: None,
            working_changes: None,
            changed_ms: None,
            memory,
            now_ms,
            clock: crate::test_support::ticking_clock,
            session: None,
            cancelled: || false,
        }
    }
}

/// One expected step: tool, arguments that must be present with these values, dependencies.
type Expected = (&'static str, Value, &'static [usize]);

fn table() -> Vec<(&'static str, Vec<Expected>)> {
    let up = |target: &str| json!({"target": target, "direction": "upstream", "max_depth": 1});
    let down = |target: &str| json!({"target": target, "direction": "downstream", "max_depth": 1});
    let breaks = |target: &str| json!({"target": target, "direction": "upstream", "max_depth": 3});
    let one = |tool: &'static str, args: Value| vec![(tool, args, &[][..])];
    vec![
        // Callers: paraphrases, qualified names, backticks, misspellings.
        ("who calls charge", one("impact", up("charge"))),
        ("callers of validate", one("impact", up("validate"))),
        (
            "what uses process_payment?",
            one("find_usages", json!({"target": "process_payment"})),
        ),
        (
            "where is Cart.checkout called",
            one("impact", up("Cart.checkout")),
        ),
        (
            "show me the callers of `checkout`",
            one("impact", up("checkout")),
        ),
        ("what calls chekout?", one("impact", up("checkout"))),
        ("Who invokes validte", one("impact", up("validate"))),
        (
            "is get_user_name used anywhere",
            one("find_usages", json!({"target": "get_user_name"})),
        ),
        (
            "where is Cart referenced",
            one("find_usages", json!({"target": "Cart"})),
        ),
        (
            "who depends on UserService",
            one("impact", up("UserService")),
        ),
        (
            "usages of pay_order",
            one("find_usages", json!({"target": "pay_order"})),
        ),
        ("who calls charge and validate", one("impact", up("charge"))),
        // Callees.
        ("what does checkout call", one("impact", down("checkout"))),
        (
            "what functions does process_payment call",
            one("impact", down("process_payment")),
        ),
        ("callees of main", one("impact", down("main"))),
        ("what does charge depend on", one("impact", down("charge"))),
        (
            "what is called by pay_order",
            one("impact", down("pay_order")),
        ),
        // Impact.
        (
            "what breaks if I change validate",
            one("impact", breaks("validate")),
        ),
        ("blast radius of charge", one("impact", breaks("charge"))),
        (
            "what would be affected if I modify Cart.total",
            one("impact", breaks("Cart.total")),
        ),
        (
            "is it safe to rename process_payment",
            one("impact", breaks("process_payment")),
        ),
        (
            "impact of changing chekout",
            one("impact", breaks("checkout")),
        ),
        (
            "what breaks if I change vaildate",
            one("impact", breaks("validate")),
        ),
        // Explain.
        (
            "explain checkout",
            one("deep_dive", json!({"name": "checkout"})),
        ),
        (
            "how does process_payment work",
            one("deep_dive", json!({"name": "process_payment"})),
        ),
        (
            "tell me about UserService",
            one("deep_dive", json!({"name": "UserService"})),
        ),
        (
            "what is the Cart class",
            one("deep_dive", json!({"name": "Cart"})),
        ),
        (
            "what does getUserName do",
            one("deep_dive", json!({"name": "get_user_name"})),
        ),
        (
            "deep dive into proces_payment",
            one("deep_dive", json!({"name": "process_payment"})),
        ),
        (
            "explain user service",
            one("deep_dive", json!({"name": "UserService"})),
        ),
        (
            "describe the validate function",
            one("deep_dive", json!({"name": "validate"})),
        ),
        // Files: read (with ranges), review.
        (
            "show shop/pay.py",
            one("read", json!({"path": "shop/pay.py"})),
        ),
        ("open cart.py", one("read", json!({"path": "shop/cart.py"}))),
        (
            "read lines 2-4 of shop/cart.py",
            one(
                "read",
                json!({"path": "shop/cart.py", "start_line": 2, "end_line": 4}),
            ),
        ),
        (
            "show me line 5 to 9 of shop/payment.py",
            one(
                "read",
                json!({"path": "shop/payment.py", "start_line": 5, "end_line": 9}),
            ),
        ),
        (
            "what is in ./shop/pay.py",
            one("read", json!({"path": "shop/pay.py"})),
        ),
        (
            "review shop/cart.py",
            one("review_file", json!({"path": "shop/cart.py"})),
        ),
        (
            "summarize the file pay.py",
            one("review_file", json!({"path": "shop/pay.py"})),
        ),
        // Grep: keywords, markers, quotes, slashes, regex-looking words.
        ("grep TODO", one("grep", json!({"pattern": "TODO"}))),
        (
            "find all TODO comments",
            one("grep", json!({"pattern": "TODO"})),
        ),
        (
            "grep for charge\\(",
            one("grep", json!({"pattern": "charge\\("})),
        ),
        (
            "where does the text \"payment (failed)\" appear",
            one("grep", json!({"pattern": "payment \\(failed\\)"})),
        ),
        (
            "grep /charge|validate/",
            one("grep", json!({"pattern": "charge|validate"})),
        ),
        (
            "FIXME or HACK markers",
            one("grep", json!({"pattern": "FIXME|HACK"})),
        ),
        (
            "lines matching ^def .*\\(",
            one("grep", json!({"pattern": "^def .*\\("})),
        ),
        // Overview and statistics.
        ("give me an overview", one("overview", json!({}))),
        (
            "what is the architecture of this project",
            one("overview", json!({})),
        ),
        ("what are the main modules", one("overview", json!({}))),
        ("map of the codebase", one("overview", json!({}))),
        (
            "how big is the project",
            one("context", json!({"focus": "stats"})),
        ),
        ("project stats", one("context", json!({"focus": "stats"}))),
        (
            "how many functions are there",
            one("context", json!({"focus": "stats"})),
        ),
        // Similar.
        (
            "functions similar to charge",
            one("find_similar", json!({"name": "charge"})),
        ),
        (
            "find code like validate",
            one("find_similar", json!({"name": "validate"})),
        ),
        (
            "anything that resembles pay_order",
            one("find_similar", json!({"name": "pay_order"})),
        ),
        // Trace.
        (
            "how does main reach validate",
            one("trace_flow", json!({"from": "main", "to": "validate"})),
        ),
        (
            "path from checkout to charge",
            one("trace_flow", json!({"from": "checkout", "to": "charge"})),
        ),
        (
            "how do we get to validate from main",
            one("trace_flow", json!({"from": "main", "to": "validate"})),
        ),
        (
            "does main call validate",
            one("trace_flow", json!({"from": "main", "to": "validate"})),
        ),
        (
            "trace process_payment",
            one("trace_flow", json!({"from": "process_payment"})),
        ),
        (
            "which processes include charge",
            one("trace_flow", json!({"from": "charge"})),
        ),
        // Tests to run.
        (
            "which tests cover changes to shop/pay.py",
            one("test_impact", json!({"changed_files": ["shop/pay.py"]})),
        ),
        (
            "what tests should I run after editing cart.py",
            one("test_impact", json!({"changed_files": ["shop/cart.py"]})),
        ),
        (
            "which tests cover checkout",
            one("test_impact", json!({"changed_files": ["shop/cart.py"]})),
        ),
        // Clusters and processes by name.
        (
            "show the cluster shop",
            one("explore", json!({"name": "shop", "type": "cluster"})),
        ),
        (
            "the main process",
            one("explore", json!({"name": "main", "type": "process"})),
        ),
        // Cypher as written.
        (
            "MATCH (f:Function) RETURN f.name",
            one(
                "cypher",
                json!({"query": "MATCH (f:Function) RETURN f.name"}),
            ),
        ),
        (
            "match (a)-[:CALLS]->(b) return a.name limit 5",
            one(
                "cypher",
                json!({"query": "match (a)-[:CALLS]->(b) return a.name limit 5"}),
            ),
        ),
        // Default search, kinds, and names that match nothing even fuzzily.
        (
            "payment handling",
            one(
                "search",
                json!({"query": "payment handling", "mode": "hybrid"}),
            ),
        ),
        (
            "where is the user name logic",
            one(
                "search",
                json!({"query": "user name logic", "mode": "hybrid"}),
            ),
        ),
        (
            "find the payment function",
            one("search", json!({"query": "payment", "kind": "Function"})),
        ),
        (
            "zzz qqq",
            one("search", json!({"query": "zzz qqq", "mode": "hybrid"})),
        ),
        (
            "where is checkout defined",
            one("search", json!({"query": "checkout"})),
        ),
        (
            "who calls frobnicate",
            one("search", json!({"query": "frobnicate"})),
        ),
        (
            "explain the quantum flux capacitor",
            one(
                "search",
                json!({"query": "quantum flux capacitor", "mode": "hybrid"}),
            ),
        ),
        // Multi-step.
        (
            "explain checkout and what breaks if I change it",
            vec![
                ("deep_dive", json!({"name": "checkout"}), &[]),
                ("impact", breaks("checkout"), &[]),
            ],
        ),
        (
            "find the payment function and show its callers",
            vec![
                (
                    "search",
                    json!({"query": "payment", "kind": "Function"}),
                    &[],
                ),
                ("impact", up("$result[0].name"), &[0]),
            ],
        ),
        (
            "tell me about chekout, then show what calls it",
            vec![
                ("deep_dive", json!({"name": "checkout"}), &[]),
                ("impact", up("checkout"), &[]),
            ],
        ),
        (
            "search for validation code and explain it",
            vec![
                ("search", json!({"query": "validation"}), &[]),
                ("deep_dive", json!({"name": "$result[0].name"}), &[0]),
            ],
        ),
        (
            "what does process_payment call and what breaks if I change it",
            vec![
                ("impact", down("process_payment"), &[]),
                ("impact", breaks("process_payment"), &[]),
            ],
        ),
        (
            "grep TODO and then give me an overview",
            vec![
                ("grep", json!({"pattern": "TODO"}), &[]),
                ("overview", json!({}), &[]),
            ],
        ),
        (
            "explain validate and which tests cover it",
            vec![
                ("deep_dive", json!({"name": "validate"}), &[]),
                (
                    "test_impact",
                    json!({"changed_files": ["shop/pay.py"]}),
                    &[],
                ),
            ],
        ),
    ]
}

#[test]
fn router_table_questions_give_their_plans() {
    let fixture = Fixture::new();
    let memory = ToolMemory::default();
    let ctx = fixture.context(&memory, 0.0);
    let table = table();
    assert!(table.len() >= 60, "{} questions", table.len());
    let mut failures = Vec::new();
    for (question, expected) in &table {
        let got = plan(&ctx, question);
        let fits = got.steps.len() == expected.len()
            && got
                .steps
                .iter()
                .zip(expected)
                .all(|(step, (tool, args, deps))| {
                    step.tool == *tool
                        && step.depends_on == *deps
                        && args.as_object().is_some_and(|want| {
                            want.iter().all(|(k, v)| step.args.get(k) == Some(v))
                        })
                });
        if !fits {
            let steps: Vec<String> = got
                .steps
                .iter()
                .map(|s| format!("{} deps {:?}", s.call_line(), s.depends_on))
                .collect();
            failures.push(format!("{question:?} → {}", steps.join(" ; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} wrong:\n{}",
        failures.len(),
        table.len(),
        failures.join("\n")
    );
}

#[test]
fn plans_say_which_words_matched_which_symbol_and_list_other_candidates() {
    let fixture = Fixture::new();
    let memory = ToolMemory::default();
    let ctx = fixture.context(&memory, 0.0);
    let typo = plan(&ctx, "what calls chekout");
    let matched = &typo.steps[0].matched[0];
    assert_eq!(
        (matched.words.as_str(), matched.symbol.as_str()),
        ("chekout", "Method:shop/cart.py:Cart.checkout")
    );
    let ambiguous = plan(&ctx, "who calls log");
    let step = &ambiguous.steps[0];
    assert_eq!(
        step.args["target"], "Method:shop/cart.py:Cart.log",
        "{step:?}"
    );
    assert_eq!(step.matched[0].others, ["Function:shop/payment.py:log"]);
    let answer = text(dispatch(
        Some(&ctx),
        "route",
        json!({"query": "who calls log", "mode": "plan"}),
    ));
    assert!(
        answer.contains("matched: \"log\" → `Method:shop/cart.py:Cart.log` (exact name); also: `Function:shop/payment.py:log`"),
        "{answer}"
    );
    let json_plan: Value = serde_json::from_str(&text(dispatch(
        Some(&ctx),
        "route",
        json!({"query": "find the payment function and show its callers", "mode": "plan", "format": "json"}),
    )))
    .unwrap_or_default();
    assert_eq!(json_plan["steps"][1]["depends_on"], json!([0]));
    assert_eq!(json_plan["steps"][1]["args"]["target"], "$result[0].name");
    assert_eq!(
        memory.route_cache.borrow().len(),
        0,
        "plan mode runs nothing"
    );
}

#[test]
fn execute_substitutes_the_first_result_of_the_step_depended_on() {
    let fixture = Fixture::new();
    let memory = ToolMemory::default();
    let ctx = fixture.context(&memory, 0.0);
    let answer = text(dispatch(
        Some(&ctx),
        "route",
        json!({"query": "find the payment function and show its callers", "max_tokens": 4000}),
    ));
    assert!(
        answer.starts_with(
            "# route \"find the payment function and show its callers\" — 2 steps: search, impact · project `shop` · "
        ) && answer.lines().next().is_some_and(|l| l.ends_with(" ms")),
        "{answer}"
    );
    assert!(
        answer.contains("## step 1 · impact {\"direction\":\"upstream\",\"max_depth\":1,\"target\":\"process_payment\"}"),
        "{answer}"
    );
    assert!(
        answer.contains("`Function:shop/payment.py:pay_order`"),
        "{answer}"
    );
    assert!(!answer.contains("truncated"), "{answer}");
    let json_answer: Value = serde_json::from_str(&text(dispatch(
        Some(&ctx),
        "route",
        json!({"query": "find the payment function and show its callers", "format": "json"}),
    )))
    .unwrap_or_default();
    assert_eq!(json_answer["steps"][1]["args"]["target"], "process_payment");
    assert_eq!(
        json_answer["steps"][1]["result"]["total"], 1,
        "{json_answer}"
    );
}

#[test]
fn a_step_with_nothing_to_substitute_says_so_and_other_steps_still_answer() {
    let fixture = Fixture::new();
    let memory = ToolMemory::default();
    let ctx = fixture.context(&memory, 0.0);
    let answer = text(dispatch(
        Some(&ctx),
        "route",
        json!({"query": "find zzzqqq and explain it"}),
    ));
    assert!(answer.contains("## step 0 · search"), "{answer}");
    assert!(
        answer.contains("Error NOT_FOUND: step 0 has no result 0 with a `name` to pass on"),
        "{answer}"
    );
}

#[test]
fn truncation_keeps_whole_steps_and_counts_the_rest() {
    let fixture = Fixture::new();
    let memory = ToolMemory::default();
    let ctx = fixture.context(&memory, 0.0);
    let question = "explain checkout and what breaks if I change it and then give me an overview";
    let full = text(dispatch(
        Some(&ctx),
        "route",
        json!({"query": question, "max_tokens": 8000}),
    ));
    assert_eq!(full.matches("\n## step ").count(), 3, "{full}");
    let mut cut_after_a_step = false;
    for max_tokens in [100, 150, 200, 250, 300, 400] {
        let short = text(dispatch(
            Some(&ctx),
            "route",
            json!({"query": question, "max_tokens": max_tokens}),
        ));
        let shown = short.matches("\n## step ").count();
        if shown < 3 {
            assert!(
                short.contains(&format!("truncated: {} more items not shown", 3 - shown)),
                "{short}"
            );
            cut_after_a_step |= shown > 0;
        }
        let closing = short.lines().last().map_or(0, str::len) + 1;
        assert!(
            short.len() - closing <= max_tokens * 4,
            "{max_tokens}: {short}"
        );
    }
    assert!(cut_after_a_step, "no budget cut between steps");
    let json_short: Value = serde_json::from_str(&text(dispatch(
        Some(&ctx),
        "route",
        json!({"query": question, "max_tokens": 150, "format": "json"}),
    )))
    .unwrap_or_default();
    assert_eq!(json_short["truncated"], true, "{json_short}");
    let listed = json_short["steps"].as_array().map_or(0, Vec::len);
    assert_eq!(json_short["remaining"], json!(3 - listed));
}

#[test]
fn cached_answers_are_reused_for_five_minutes_and_forgotten_on_clear() {
    let fixture = Fixture::new();
    let memory = ToolMemory::default();
    let ask = |now_ms: f64| {
        text(dispatch(
            Some(&fixture.context(&memory, now_ms)),
            "route",
            json!({"query": "explain checkout and what breaks if I change it"}),
        ))
    };
    let first = ask(0.0);
    assert!(!first.contains("cached"), "{first}");
    assert_eq!(memory.route_cache.borrow().len(), 2);
    let again = ask(TTL_MS - 1.0);
    assert!(again.contains("\ncached: true"), "{again}");
    assert_eq!(memory.route_cache.borrow().hits(), 2);
    let without_marks = again
        .replace(
            "cached: true (the same calls were answered less than 5 minutes ago)\n",
            "",
        )
        .replace(" · cached", "");
    assert_eq!(without_marks, first);
    let expired = ask(TTL_MS + 10.0);
    assert!(!expired.contains("cached"), "{expired}");
    assert_eq!(memory.route_cache.borrow().hits(), 2);
    memory.route_cache.borrow_mut().clear();
    let after_reindex = ask(TTL_MS + 20.0);
    assert!(!after_reindex.contains("cached"), "{after_reindex}");
    assert_eq!(memory.route_cache.borrow().hits(), 2);
}

#[test]
fn errors_are_clear() {
    let fixture = Fixture::new();
    let memory = ToolMemory::default();
    let ctx = fixture.context(&memory, 0.0);
    assert_eq!(
        error_code(dispatch(Some(&ctx), "route", json!({"query": "  "}))),
        ErrorCode::InvalidParams
    );
    assert_eq!(
        error_code(dispatch(
            Some(&ctx),
            "route",
            json!({"query": "x", "mode": "guess"})
        )),
        ErrorCode::InvalidParams
    );
    match dispatch(
        Some(&ctx),
        "route",
        json!({"query": "read shop/cart.py lines 90-99"}),
    ) {
        nexus_shared::Outcome::Err(err) => {
            assert_eq!(err.code, ErrorCode::InvalidParams);
            assert!(err.message.contains("(route ran `read "), "{err}");
        }
        nexus_shared::Outcome::Ok(out) => panic!("{}", out.text),
    }
}

#[test]
fn intents_read_each_clause_without_a_graph() {
    assert_eq!(
        super::intents("explain parse_config and what breaks if I change it"),
        ["explain", "impact"]
    );
    assert_eq!(super::intents("read src/main.rs lines 1-20"), ["read_file"]);
    assert_eq!(super::intents("who calls checkout?"), ["calls"]);
    assert_eq!(
        super::intents("MATCH (a)-[:CALLS]->(b) RETURN a.id"),
        ["cypher"]
    );
}

#[test]
fn an_executed_route_names_the_searches_it_runs_by_meaning() {
    crate::test_support::with(crate::test_support::fixture(), |ctx| {
        let asked = |args: Value| super::meaning_queries(ctx, &args);
        assert_eq!(
            asked(json!({"query": "payment handling"})),
            ["payment handling"]
        );
        assert!(asked(json!({"query": "payment handling", "mode": "plan"})).is_empty());
        assert!(asked(json!({"query": "who calls checkout"})).is_empty());
        assert!(asked(json!({"question": 3})).is_empty());
    });
}
