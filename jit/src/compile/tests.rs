//! Tests of one turn's compilation: skeleton, tiers, reasons, the full-tier cap, the budget and
//! the registry's share of it, offline tools, expansion and rules files.

use super::*;
use crate::analysis::heuristic;
use crate::rules::Program;

fn registry() -> Vec<AnalysedTool> {
    let mut tools = ToolInfo::nexus_catalog();
    tools.push(ToolInfo {
        server: "time".into(),
        name: "get_current_time".into(),
        description: "Get current time in a specific timezones".into(),
        input_schema: Default::default(),
        status: ServerStatus::Offline,
    });
    tools
        .into_iter()
        .map(|info| AnalysedTool {
            analysis: heuristic(&info),
            info,
        })
        .collect()
}

fn compiler(config: ToolSelection) -> Compiler {
    Compiler::new(config, Program::default_rules(), Box::new(HashedWords))
}

fn turn(question: &str, intents: &[&str]) -> TurnFacts {
    TurnFacts {
        question: question.into(),
        intents: intents.iter().map(|i| i.to_string()).collect(),
        languages: vec!["rust".into()],
        ..Default::default()
    }
}

#[test]
fn the_intent_puts_its_tool_in_full_with_the_reason() {
    let c = compiler(ToolSelection::default());
    let catalog = c.prepare(registry());
    let out = c.compile(
        &turn("what breaks if I change parse_config", &["impact"]),
        &catalog,
    );
    let impact = out.decision("nexus:impact");
    assert_eq!(impact.map(|d| d.tier), Some(Tier::Full), "{out:#?}");
    let why: Vec<&str> = impact
        .iter()
        .flat_map(|d| d.rule_hits.iter().map(|h| h.why.as_str()))
        .collect();
    assert!(
        why.contains(&"the question's intent is what this tool answers"),
        "{why:?}"
    );
    assert!(out.prompt.contains("### nexus:impact"));
    assert!(out.tokens <= c.config().token_budget);
    for skeleton in ["nexus:route", "nexus:read", "nexus:grep"] {
        let d = out.decision(skeleton);
        assert!(
            d.is_some_and(|d| d.skeleton && d.tier == Tier::Full),
            "{skeleton}"
        );
    }
}

#[test]
fn offline_tools_stay_selectable_and_are_marked() {
    let c = compiler(ToolSelection::default());
    let catalog = c.prepare(registry());
    let out = c.compile(
        &turn("what time is it in Tokyo, which timezone?", &[]),
        &catalog,
    );
    let time = out.decision("time:get_current_time");
    assert!(
        time.is_some_and(|d| d.offline && d.tier != Tier::Excluded),
        "{out:#?}"
    );
    assert!(out.prompt.contains("time:get_current_time (offline"));
}

#[test]
fn the_full_tier_is_capped() {
    let config = ToolSelection {
        max_full_tools: 1,
        full_threshold: 10,
        ..Default::default()
    };
    let c = compiler(config);
    let catalog = c.prepare(registry());
    let out = c.compile(
        &turn("who calls main and what breaks", &["calls", "impact"]),
        &catalog,
    );
    let flesh_full = out.in_tiers(&[Tier::Full]).filter(|d| !d.skeleton).count();
    assert_eq!(flesh_full, 1);
    assert!(
        out.decisions
            .iter()
            .any(|d| d.notes.iter().any(|n| n.contains("max_full_tools")))
    );
}

#[test]
fn over_budget_full_tools_are_condensed_before_any_condensed_one_goes() {
    let question = turn("who calls main and what breaks", &["calls", "impact"]);
    let loose = ToolSelection {
        full_threshold: 10,
        token_budget: usize::MAX,
        ..Default::default()
    };
    let catalog = compiler(loose.clone()).prepare(registry());
    let all = compiler(loose.clone()).compile(&question, &catalog);
    let skeleton: usize = all
        .decisions
        .iter()
        .filter(|d| d.skeleton)
        .map(|d| d.tokens)
        .sum();
    let budget = estimate_tokens(HEADER) + skeleton + 400;
    let c = compiler(ToolSelection {
        token_budget: budget,
        ..loose
    });
    let out = c.compile(&question, &catalog);
    assert!(out.tokens <= budget, "{} > {budget}", out.tokens);
    let shortened = out
        .decisions
        .iter()
        .filter(|d| {
            d.tier == Tier::Condensed
                && d.notes
                    .iter()
                    .any(|n| n.starts_with("condensed: over the token budget"))
        })
        .count();
    assert!(shortened > 0, "{out:#?}");
    // A condensed tool is dropped only once no flesh tool is left in full.
    let dropped = out.decisions.iter().any(|d| {
        d.notes
            .iter()
            .any(|n| n.starts_with("condensed: over the token budget"))
            && d.tier == Tier::Excluded
    });
    if dropped {
        assert!(out.in_tiers(&[Tier::Full]).all(|d| d.skeleton), "{out:#?}");
    }
}

#[test]
fn stored_vectors_are_used_and_missing_ones_stored() -> Result<(), crate::StoreError> {
    let c = compiler(ToolSelection::default());
    let store = crate::AnalysisStore::in_memory()?;
    let tools = registry();
    let key = tools[0].info.key();
    let question = turn("a project summary: counts and hotspots", &["stats"]);
    let plain = c.compile(&question, &c.prepare(tools.clone()));
    let first = c.compile(&question, &c.prepare_with_store(tools.clone(), &store));
    let again = c.compile(&question, &c.prepare_with_store(tools.clone(), &store));
    assert_eq!(plain.prompt, first.prompt);
    assert_eq!(first.prompt, again.prompt);
    // A stored vector wins over computing one: a zero vector for the same text takes the
    // similarity away.
    let text = super::embedded_text(&tools[0]);
    let stored = store.embedding(&key, HashedWords.id(), &text)?;
    assert_eq!(stored.map(|v| v.len()), Some(HashedWords::DIMS));
    store.put_embedding(&key, HashedWords.id(), &text, &[0.0; HashedWords::DIMS])?;
    let zeroed = c.compile(&question, &c.prepare_with_store(tools, &store));
    let tool = key.server.clone() + ":" + &key.name;
    assert!(plain.decision(&tool).is_some_and(|d| d.vector > 0.0));
    assert_eq!(zeroed.decision(&tool).map(|d| d.vector), Some(0.0));
    Ok(())
}

#[test]
fn expand_gives_the_full_entry() {
    let c = compiler(ToolSelection::default());
    let catalog = c.prepare(registry());
    let full = catalog.expand("nexus:cypher");
    assert!(
        full.is_some_and(|f| f.starts_with("### nexus:cypher\n") && f.contains("Arguments: {"))
    );
    assert_eq!(catalog.expand("nexus:nothing"), None);
}

#[test]
fn the_tool_search_is_offered_counted_and_finds_by_words() {
    let c = compiler(ToolSelection::default());
    let catalog = c.prepare(registry());
    let out = c.compile(&turn("hello", &[]), &catalog);
    let search = out.decision(FIND_TOOLS);
    assert!(
        search.is_some_and(|d| d.skeleton && d.tier == Tier::Full && d.tokens > 20),
        "{search:?}"
    );
    assert!(out.prompt.contains("### find_tools\n"));
    let found = c.find_tools(&catalog, "what time is it in some timezone", 3, None);
    assert_eq!(
        found.first().map(|f| f.tool.as_str()),
        Some("time:get_current_time"),
        "{found:?}"
    );
    assert!(found.len() <= 3 && found.iter().all(|f| f.entry.starts_with("### ")));
    assert!(c.find_tools(&catalog, "", 3, None).is_empty());
    // What the turn shows in full is not returned again; one server gives at most two.
    let asked = c.compile(&turn("what time is it in some timezone", &[]), &catalog);
    let again = c.find_tools(
        &catalog,
        "what time is it in some timezone",
        5,
        Some(&asked),
    );
    assert!(
        again.iter().all(|f| asked
            .decision(&f.tool)
            .is_some_and(|d| d.tier != Tier::Full)),
        "{again:?}"
    );
    let wide = c.find_tools(&catalog, "file directory read write list", 5, None);
    for f in &wide {
        let server = f.tool.split(':').next();
        let same = wide
            .iter()
            .filter(|g| g.tool.split(':').next() == server)
            .count();
        assert!(same <= SEARCH_PER_SERVER, "{wide:?}");
    }
    let of_nexus = wide.iter().filter(|f| f.tool.starts_with("nexus:")).count();
    assert_eq!(of_nexus, SEARCH_PER_SERVER, "{wide:?}");

    let off = compiler(ToolSelection {
        tool_search: false,
        ..Default::default()
    });
    let out = off.compile(&turn("hello", &[]), &catalog);
    assert!(out.decision(FIND_TOOLS).is_none() && !out.prompt.contains("find_tools"));
}

#[test]
fn the_best_matches_by_words_are_shown_at_least_condensed() {
    // No rules at all: similarity alone (30 points at most) would leave every tool name-only.
    let Ok(no_rules) = Program::parse("") else {
        panic!("an empty rules file parses");
    };
    let config = ToolSelection {
        retrieval_condensed: 1,
        budget_share: 0.0,
        ..Default::default()
    };
    let c = Compiler::new(config, no_rules, Box::new(HashedWords));
    let catalog = c.prepare(registry());
    let out = c.compile(&turn("specific timezones", &[]), &catalog);
    let time = out.decision("time:get_current_time");
    assert!(
        time.is_some_and(|d| d.tier == Tier::Condensed
            && d.score < 40.0
            && d.notes.iter().any(|n| n.contains("best matches"))),
        "{time:?}"
    );
    assert_eq!(out.in_tiers(&[Tier::Condensed]).count(), 1);
}

fn plain(server: &str, name: &str, description: &str) -> AnalysedTool {
    let info = ToolInfo {
        server: server.into(),
        name: name.into(),
        description: description.into(),
        input_schema: Default::default(),
        status: ServerStatus::Online,
    };
    AnalysedTool {
        analysis: heuristic(&info),
        info,
    }
}

#[test]
fn one_server_fills_at_most_its_share_of_the_best_matches() {
    let Ok(no_rules) = Program::parse("") else {
        panic!("an empty rules file parses");
    };
    let config = ToolSelection {
        retrieval_condensed: 3,
        retrieval_per_server: 2,
        skeleton_tools: Vec::new(),
        ..Default::default()
    };
    let c = Compiler::new(config, no_rules, Box::new(HashedWords));
    let mut tools: Vec<AnalysedTool> = ["create_issue", "close_issue", "label_issue", "issue_list"]
        .iter()
        .map(|n| plain("hub", n, "An issue of the tracker: issue work"))
        .collect();
    tools.push(plain("desk", "open_ticket", "Open a support issue"));
    tools.extend((0..8).map(|i| plain("misc", &format!("tool{i}"), "Weather and maps")));
    let catalog = c.prepare(tools);
    let out = c.compile(&turn("issue", &[]), &catalog);
    let shown: Vec<&str> = out
        .in_tiers(&[Tier::Condensed])
        .map(|d| d.tool.as_str())
        .collect();
    assert_eq!(shown.len(), 3, "{shown:?}");
    assert!(shown.contains(&"desk:open_ticket"), "{shown:?}");
    assert_eq!(shown.iter().filter(|t| t.starts_with("hub:")).count(), 2);
}

#[test]
fn among_equal_scores_the_better_match_takes_the_full_place() {
    let Ok(program) = Program::parse("boost(T, 100, \"server\") :- server(T, \"s\").\n") else {
        panic!("the rule parses");
    };
    // Both tools score 100 (clamped); only the match of the question tells them apart, and
    // the name order alone would give the full place to `s:alpha`.
    let config = ToolSelection {
        logic_weight: 1.0,
        max_full_tools: 1,
        skeleton_tools: Vec::new(),
        tool_search: false,
        ..Default::default()
    };
    let c = Compiler::new(config, program, Box::new(HashedWords));
    let catalog = c.prepare(vec![
        plain("s", "alpha", "Send an email message"),
        plain("s", "beta", "Weather forecast for a city"),
    ]);
    let out = c.compile(&turn("weather forecast for the city", &[]), &catalog);
    let tier = |t: &str| out.decision(t).map(|d| (d.score, d.tier));
    assert_eq!(tier("s:beta"), Some((100.0, Tier::Full)), "{out:#?}");
    assert_eq!(tier("s:alpha"), Some((100.0, Tier::Condensed)));
}

#[test]
fn over_the_budget_a_close_match_outlasts_a_tool_only_a_weak_rule_lifted() {
    let Ok(program) = Program::parse("boost(T, 60, \"noise\") :- name(T, \"noise\").\n") else {
        panic!("the rule parses");
    };
    let tools = vec![
        plain("a", "noise", "Makes sounds"),
        plain("b", "forecast_weather", "Weather forecast for a city"),
        plain("c", "unrelated", "Something else entirely"),
        plain("d", "other", "Yet another thing"),
    ];
    let config = |token_budget| ToolSelection {
        retrieval_condensed: 1,
        skeleton_tools: Vec::new(),
        tool_search: false,
        token_budget,
        ..Default::default()
    };
    let roomy = Compiler::new(config(4000), program.clone(), Box::new(HashedWords));
    let catalog = roomy.prepare(tools.clone());
    let question = turn("weather forecast for the city", &[]);
    let both = roomy.compile(&question, &catalog);
    let tier = |out: &CompiledTools, t: &str| out.decision(t).map(|d| d.tier);
    assert_eq!(tier(&both, "a:noise"), Some(Tier::Condensed), "{both:#?}");
    assert_eq!(tier(&both, "b:forecast_weather"), Some(Tier::Condensed));
    let tight = Compiler::new(config(both.tokens - 1), program, Box::new(HashedWords));
    let out = tight.compile(&question, &tight.prepare(tools));
    assert_eq!(
        tier(&out, "b:forecast_weather"),
        Some(Tier::Condensed),
        "{out:#?}"
    );
    assert_eq!(tier(&out, "a:noise"), Some(Tier::Excluded));
}

#[test]
fn a_rules_file_replaces_the_defaults_and_its_errors_name_the_place()
-> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let good = dir.path().join("good.rules");
    std::fs::write(&good, "boost(T, 100, \"every tool\") :- tool(T).\n")?;
    let c = Compiler::from_config(ToolSelection {
        rules_file: Some(good),
        skeleton_tools: Vec::new(),
        ..Default::default()
    })?;
    let out = c.compile(&turn("anything", &[]), &c.prepare(registry()));
    assert!(
        out.decisions
            .iter()
            .filter(|d| d.tool != FIND_TOOLS)
            .all(|d| d.logic == 100.0 && !d.skeleton)
    );

    let bad = dir.path().join("bad.rules");
    std::fs::write(&bad, "skeleton(T) :- tool(T).\nboost(T) :- tool(T).\n")?;
    let err = Compiler::from_config(ToolSelection {
        rules_file: Some(bad),
        ..Default::default()
    });
    let message = err.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.contains("bad.rules: rules, line 2, column 1"),
        "{message}"
    );
    Ok(())
}

#[test]
fn a_small_registry_whose_share_allows_every_tool_shows_every_match() {
    let Ok(no_rules) = Program::parse("") else {
        panic!("an empty rules file parses");
    };
    // Similarity alone (30 points at most) leaves every tool name-only or out.
    let mut tools: Vec<AnalysedTool> = (0..12)
        .map(|i| {
            plain(
                &format!("w{}", i % 3),
                &format!("forecast_{i}"),
                "Weather forecast for a city",
            )
        })
        .collect();
    tools.push(plain("mail", "send", "Send an email message"));
    let question = turn("weather forecast", &[]);
    let config = |budget_share| ToolSelection {
        budget_share,
        retrieval_condensed: 0,
        skeleton_tools: Vec::new(),
        ..Default::default()
    };
    let none = Compiler::new(config(0.0), no_rules.clone(), Box::new(HashedWords));
    let catalog = none.prepare(tools);
    let before = none.compile(&question, &catalog);
    assert_eq!(
        before.in_tiers(&[Tier::Condensed]).count(),
        0,
        "{before:#?}"
    );
    let all = Compiler::new(config(1.0), no_rules, Box::new(HashedWords));
    let out = all.compile(&question, &catalog);
    let filled: Vec<&str> = out
        .decisions
        .iter()
        .filter(|d| {
            d.tier == Tier::Condensed && d.notes.iter().any(|n| n.contains("registry's share"))
        })
        .map(|d| d.tool.as_str())
        .collect();
    assert_eq!(filled.len(), 12, "{out:#?}");
    assert!(filled.iter().all(|t| t.contains(":forecast_")));
    // The tool the question does not match is not worth a line.
    assert_ne!(
        out.decision("mail:send").map(|d| d.tier),
        Some(Tier::Condensed)
    );
    assert!(out.tokens <= all.config().turn_budget(catalog.all_full_tokens()));
}

#[test]
fn a_large_registry_stops_at_its_share_and_one_server_waits_its_round() {
    let Ok(no_rules) = Program::parse("") else {
        panic!("an empty rules file parses");
    };
    let mut tools: Vec<AnalysedTool> = (0..20)
        .map(|i| {
            plain(
                "hub",
                &format!("issue_{i}"),
                "Issue tracker: create an issue",
            )
        })
        .collect();
    tools.extend((0..30).map(|i| {
        plain(
            &format!("s{i}"),
            &format!("tool{i}"),
            "Tracker of tasks and notes",
        )
    }));
    let question = turn("create an issue in the tracker", &[]);
    let config = |token_budget, budget_cap, fill_per_server| ToolSelection {
        token_budget,
        budget_share: 1.0,
        budget_cap,
        fill_per_server,
        retrieval_condensed: 0,
        skeleton_tools: Vec::new(),
        tool_search: false,
        ..Default::default()
    };
    // No share and no cut: the tools the rounds may fill are name-only or out.
    let none = Compiler::new(
        config(usize::MAX, 0, 2),
        no_rules.clone(),
        Box::new(HashedWords),
    );
    let catalog = none.prepare(tools);
    let base = none.compile(&question, &catalog).tokens;
    let filled = |out: &CompiledTools, server: &str| {
        out.in_tiers(&[Tier::Condensed])
            .filter(|d| d.tool.starts_with(server))
            .count()
    };
    let cap = base + 120;
    let capped = Compiler::new(config(0, cap, 2), no_rules.clone(), Box::new(HashedWords));
    let out = capped.compile(&question, &catalog);
    assert!(out.tokens <= cap, "{} > {cap}", out.tokens);
    assert!(filled(&out, "") >= 5, "{out:#?}");
    assert_eq!(filled(&out, "hub:"), 2, "{out:#?}");
    assert!(out.in_tiers(&[Tier::Minimal, Tier::Excluded]).count() > 30);
    // Without the per-server rounds the best-matching server takes the whole share.
    let one_round = Compiler::new(config(0, cap, 100), no_rules, Box::new(HashedWords));
    let greedy = one_round.compile(&question, &catalog);
    assert_eq!(filled(&greedy, ""), filled(&greedy, "hub:"), "{greedy:#?}");
    assert!(filled(&greedy, "hub:") > 2);
}

proptest::proptest! {
    #[test]
    fn the_budget_holds_and_the_skeleton_stays(
        budget in 0usize..6000,
        share in 0.0f32..1.0,
        cap in 0usize..6000,
        question in "[a-z ]{0,60}",
        intent in proptest::sample::select(vec!["calls", "impact", "grep", "find", "overview", ""]),
        max_full in 0usize..12,
    ) {
        let c = compiler(ToolSelection {
            token_budget: budget,
            budget_share: share,
            budget_cap: cap,
            max_full_tools: max_full,
            ..Default::default()
        });
        let catalog = c.prepare(registry());
        let out = c.compile(&turn(&question, &[intent]), &catalog);
        let skeleton_tokens: usize = out.decisions.iter().filter(|d| d.skeleton).map(|d| d.tokens).sum();
        let floor = estimate_tokens(HEADER) + skeleton_tokens;
        let allowed = c.config().turn_budget(catalog.all_full_tokens());
        proptest::prop_assert!(allowed >= budget);
        proptest::prop_assert!(out.tokens <= allowed.max(floor), "{} > {}", out.tokens, allowed);
        // The three configured tools and the tool search.
        proptest::prop_assert_eq!(out.decisions.iter().filter(|d| d.skeleton && d.tier == Tier::Full).count(), 4);
        proptest::prop_assert!(out.in_tiers(&[Tier::Full]).filter(|d| !d.skeleton).count() <= max_full);
        proptest::prop_assert_eq!(out.decisions.len(), catalog.len() + 1);
    }
}

/// Hashed words that count the texts they embed.
#[derive(Default)]
struct Counting(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Embedder for Counting {
    fn id(&self) -> &str {
        "counting-hashed"
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        HashedWords.embed(text)
    }
}

#[test]
fn a_search_with_the_turns_words_reuses_the_turns_vector() {
    let counting = Counting::default();
    let embedded = counting.0.clone();
    let c = Compiler::new(
        ToolSelection::default(),
        Program::default_rules(),
        Box::new(counting),
    );
    let catalog = c.prepare(registry());
    let count = || embedded.load(std::sync::atomic::Ordering::SeqCst);
    let before = count();
    let out = c.compile(&turn("what time is it  in Tokyo", &[]), &catalog);
    assert_eq!(count(), before + 1, "the turn is embedded once");
    let reused = c.find_tools(&catalog, " what time is it in\tTokyo ", 5, Some(&out));
    assert_eq!(
        count(),
        before + 1,
        "the same words reuse the turn's vector"
    );
    // Other text with the same words is embedded again, and gives the same answer.
    let fresh = c.find_tools(&catalog, "what time is it in Tokyo?", 5, Some(&out));
    assert_eq!(count(), before + 2);
    assert_eq!(reused, fresh, "reusing gives what embedding again gives");
    c.find_tools(&catalog, "current time in Oslo", 5, Some(&out));
    assert_eq!(count(), before + 3, "other words are embedded");
}

#[test]
fn a_turns_vector_reads_the_question_then_the_newest_context_within_the_cap() {
    let mut t = turn("what time is it\tin Tokyo", &[]);
    t.recent_context = "older message\nnewest message".into();
    assert_eq!(
        embedded_turn(&t),
        "what time is it in Tokyo newest message older message"
    );
    t.recent_context = "word ".repeat(500);
    let text = embedded_turn(&t);
    assert!(text.starts_with("what time is it in Tokyo word"), "{text}");
    assert_eq!(text.split_whitespace().count(), TURN_WORDS);
    t.question = "long ".repeat(100);
    assert!(embedded_turn(&t).split(' ').all(|w| w == "long"));
}
