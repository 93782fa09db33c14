use super::*;
use nexus_jit::Analyzer;
use nexus_shared::ToolName;

/// A registry report as `Host::report` gives it: Nexus's 16 online, a `time` server online,
/// a `memory` server offline, and filler servers so that some tools rank low.
fn report() -> Value {
    let nexus: Vec<Value> = ToolName::ALL
        .iter()
        .map(|t| {
            json!({"name": format!("nexus:{}", t.as_str()), "description": t.description(),
                   "input_schema": Value::Object(t.input_schema())})
        })
        .collect();
    let tool = |server: &str, name: &str, description: &str, prop: &str| {
        json!({"name": format!("{server}:{name}"), "description": description,
               "input_schema": {"type": "object", "required": [prop],
                                "properties": {prop: {"type": "string"}}}})
    };
    json!({"servers": [
        {"id": "nexus", "online": true, "tools": nexus},
        {"id": "time", "online": true, "tools": [
            tool("time", "get_current_time", "Get the current time in a specific timezone", "timezone"),
            tool("time", "convert_time", "Convert a time between timezones", "time")]},
        {"id": "memory", "online": false, "tools": [
            tool("memory", "create_entities", "Create entities in the knowledge graph memory", "entities"),
            tool("memory", "read_graph", "Read the whole knowledge graph memory", "query")]},
        {"id": "weather", "online": true, "tools": [
            tool("weather", "forecast", "Weather forecast for a city", "city"),
            tool("weather", "alerts", "Severe weather alerts for a US state", "state")]},
        {"id": "kv", "online": true, "tools": [
            tool("kv", "put", "Store a value under a key", "key"),
            tool("kv", "get", "Fetch the value stored under a key", "key")]}
    ]})
}

fn jit() -> ToolJit {
    ToolJit::open(None, None, ToolSelection::default())
}

fn compile(jit: &ToolJit, session: &str, question: &str) -> TurnTools {
    jit.compile(&report(), 1, session, &turn_facts(question, &[]))
}

fn tier_of(turn: &TurnTools, tool: &str) -> Option<Tier> {
    turn.compiled.decision(tool).map(|d| d.tier)
}

#[test]
fn each_turn_gets_the_skeleton_in_full_and_a_message_saying_why() {
    let jit = jit();
    let before = health()["compiles"].as_u64().unwrap_or(0);
    let turn = compile(&jit, "s", "what time is it in Tokyo?");
    for skeleton in ["nexus:route", "nexus:read", "nexus:grep"] {
        assert_eq!(tier_of(&turn, skeleton), Some(Tier::Full), "{skeleton}");
    }
    assert!(
        matches!(
            tier_of(&turn, "time:get_current_time"),
            Some(Tier::Full | Tier::Condensed)
        ),
        "{:?}",
        turn.compiled.decision("time:get_current_time")
    );
    let ChatServerMessage::ToolsCompiled {
        tools,
        excluded,
        tokens,
        all_full_tokens,
        ..
    } = turn.message()
    else {
        panic!("not tools_compiled");
    };
    // Every tool of the report (Nexus's and 8 hosted) and the tool search, which is always
    // offered and counted.
    assert_eq!(tools.len() + excluded as usize, ToolName::ALL.len() + 8 + 1);
    let search = tools.iter().find(|t| t.name == FIND_TOOLS);
    assert!(search.is_some_and(|t| t.skeleton && t.tier == ToolTier::Full));
    assert!(tokens < all_full_tokens, "{tokens} vs {all_full_tokens}");
    let route = tools.iter().find(|t| t.name == "nexus:route");
    assert!(route.is_some_and(|t| t.skeleton && t.tier == ToolTier::Full));
    assert!(tools.iter().any(|t| !t.reasons.is_empty()));
    assert!(health()["compiles"].as_u64().unwrap_or(0) > before);
}

#[test]
fn the_catalog_follows_the_registry_version_and_server_states() {
    let jit = jit();
    let a = jit.catalog(&report(), 1);
    let b = jit.catalog(&report(), 1);
    assert!(Arc::ptr_eq(&a, &b));
    let c = jit.catalog(&report(), 2);
    assert!(!Arc::ptr_eq(&b, &c));
    let mut back_online = report();
    back_online["servers"][2]["online"] = true.into();
    assert!(!Arc::ptr_eq(&c, &jit.catalog(&back_online, 2)));
}

#[test]
fn expand_returns_the_full_entry_and_makes_the_tool_callable_for_the_session() {
    let jit = jit();
    let turn = compile(&jit, "s", "what time is it in Tokyo?");
    let hidden = turn
        .compiled
        .decisions
        .iter()
        .find(|d| matches!(d.tier, Tier::Minimal | Tier::Excluded) && !d.offline)
        .map(|d| d.tool.clone());
    let Some(hidden) = hidden else {
        panic!(
            "no name-only or excluded tool: {:?}",
            turn.compiled.decisions
        );
    };
    assert!(turn.gate(&hidden, &jit.expanded_in("s")).is_err());
    let entry = jit.expand("s", &turn, &json!({"tool": hidden}));
    let Ok(entry) = entry else {
        panic!("{entry:?}");
    };
    assert!(entry.contains(&format!("### {hidden}")) && entry.contains("Arguments:"));
    let expanded = jit.expanded_in("s");
    assert!(expanded.contains(&hidden));
    assert_eq!(turn.gate(&hidden, &expanded), Ok(()));
    let toolbox = Toolbox::from_report(&report());
    let declared = turn.declared(&toolbox, &expanded);
    assert!(declared.has(&hidden) && declared.has(EXPAND_TOOL) && declared.has("nexus:route"));
    assert!(declared.tools.len() < toolbox.tools.len());
    // Another session has expanded nothing; the next turn of this one counts it as used.
    assert!(jit.expanded_in("other").is_empty());
    let next = compile(&jit, "s", "and now?");
    assert!(
        next.compiled
            .decision(&hidden)
            .is_some_and(|d| d.tier != Tier::Excluded)
    );
}

#[test]
fn find_tools_returns_the_best_few_in_full_and_makes_them_callable() {
    let jit = jit();
    let turn = compile(&jit, "s", "who calls checkout?");
    // A tool the turn hides, found again by the words of its description.
    let (tool, description) = [
        ("weather:alerts", "severe weather alerts for a state"),
        ("weather:forecast", "weather forecast for a city"),
        ("kv:put", "store a value under a key"),
        ("kv:get", "fetch the value stored under a key"),
    ]
    .into_iter()
    .find(|(t, _)| {
        turn.compiled
            .decision(t)
            .is_some_and(|d| matches!(d.tier, Tier::Minimal | Tier::Excluded))
    })
    .unwrap_or_else(|| panic!("no hidden tool: {:?}", turn.compiled.decisions));
    assert!(turn.gate(tool, &jit.expanded_in("s")).is_err());
    let found = jit.find_tools("s", &turn, &json!({"query": description}));
    let Ok(found) = found else {
        panic!("{found:?}");
    };
    assert!(
        found.contains(&format!("### {tool}\n")) && found.contains("Arguments:"),
        "{found}"
    );
    assert!(found.matches("### ").count() <= FIND_LIMIT);
    let callable = jit.expanded_in("s");
    assert_eq!(turn.gate(tool, &callable), Ok(()));
    let toolbox = Toolbox::from_report(&report());
    let declared = turn.declared(&toolbox, &callable);
    assert!(declared.has(tool) && declared.has(FIND_TOOLS));
    assert!(jit.expanded_in("other").is_empty());

    let empty = jit.find_tools("s", &turn, &json!({"query": "  "}));
    assert!(empty.is_err_and(|e| e.contains("needs words")));
    let nothing = jit.find_tools("s", &turn, &json!({"query": "zzqx"}));
    assert!(nothing.is_err_and(|e| e.contains("No tool matches")));
}

#[test]
fn expand_refuses_unknown_tools_and_missing_names_with_directions() {
    let jit = jit();
    let turn = compile(&jit, "s", "what time is it?");
    let unknown = jit.expand("s", &turn, &json!({"tool": "time:get_time"}));
    assert!(
        unknown.as_ref().is_err_and(|e| e.contains("no tool named")
            && e.contains("Did you mean")
            && e.contains("time:get_current_time")),
        "{unknown:?}"
    );
    let missing = jit.expand("s", &turn, &json!({}));
    assert!(missing.is_err_and(|e| e.contains("{\"tool\": \"server:name\"}")));
    assert!(jit.expanded_in("s").is_empty());
}

#[test]
fn name_only_and_excluded_tools_are_refused_until_expanded() {
    let jit = jit();
    let turn = compile(&jit, "s", "who calls parseConfig?");
    let none = BTreeSet::new();
    for d in &turn.compiled.decisions {
        let verdict = turn.gate(&d.tool, &none);
        match (d.offline, d.tier) {
            (true, _) => assert!(verdict.is_err_and(|e| e.contains("offline"))),
            (false, Tier::Full | Tier::Condensed) => assert_eq!(verdict, Ok(()), "{}", d.tool),
            (false, Tier::Minimal) => assert!(
                verdict.is_err_and(|e| e.contains("by name only") && e.contains(EXPAND_TOOL)),
                "{}",
                d.tool
            ),
            (false, Tier::Excluded) => assert!(
                verdict.is_err_and(|e| e.contains("not among the tools offered")),
                "{}",
                d.tool
            ),
        }
    }
    // Nexus's own tools without a tab are the relay's to refuse (it says how to open one).
    let mut no_tab = report();
    no_tab["servers"][0]["online"] = false.into();
    let turn = jit.compile(&no_tab, 2, "s", &turn_facts("who calls parseConfig?", &[]));
    assert!(
        turn.compiled
            .decision("nexus:route")
            .is_some_and(|d| d.offline)
    );
    assert_eq!(turn.gate("nexus:route", &none), Ok(()));
    // A tool the registry does not have is the host's to report.
    assert_eq!(turn.gate("nowhere:tool", &none), Ok(()));
}

#[test]
fn offline_tools_stay_selectable_are_marked_and_calls_fail_clearly() {
    let jit = jit();
    let turn = compile(
        &jit,
        "s",
        "remember that Alice works on the checkout entity",
    );
    let memory = turn.compiled.decision("memory:create_entities");
    assert!(memory.is_some_and(|d| d.offline), "{memory:?}");
    let ChatServerMessage::ToolsCompiled { tools, .. } = turn.message() else {
        panic!("not tools_compiled");
    };
    assert!(
        tools
            .iter()
            .filter(|t| t.name.starts_with("memory:"))
            .all(|t| t.offline)
    );
    let refused = turn.gate("memory:create_entities", &jit.expanded_in("s"));
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.contains("offline") && e.contains("`memory`")),
        "{refused:?}"
    );
    // Expanding does not bring an offline server back.
    let _ = jit.expand("s", &turn, &json!({"tool": "memory:create_entities"}));
    assert!(
        turn.gate("memory:create_entities", &jit.expanded_in("s"))
            .is_err()
    );
}

#[test]
fn native_sections_list_only_what_is_not_declared() {
    let jit = jit();
    let turn = compile(&jit, "s", "what time is it in Tokyo?");
    let text = turn.section(false);
    assert!(text.contains("### nexus:route") && text.starts_with("## Tools"));
    let native = turn.section(true);
    assert!(!native.contains("### nexus:route"), "{native}");
    assert!(native.starts_with(nexus_jit::SECTION_HEADER));
}

#[test]
fn facts_carry_intents_recent_messages_and_tools_used_before() {
    let message = |role, content: Option<&str>, tool: Option<&str>| ChatMessage {
        id: String::new(),
        role,
        content: content.map(String::from),
        data: None,
        created_at: 0,
        tool_name: tool.map(String::from),
    };
    let earlier = vec![
        message(ChatRole::User, Some("one"), None),
        message(ChatRole::User, Some("two"), None),
        message(ChatRole::Tool, None, Some("time:get_current_time")),
        message(ChatRole::Tool, None, Some(EXPAND_TOOL)),
        message(ChatRole::Tool, None, Some(FIND_TOOLS)),
        message(ChatRole::Assistant, Some("three"), None),
        message(ChatRole::User, Some("four"), None),
    ];
    let facts = turn_facts("who calls checkout?", &earlier);
    assert_eq!(facts.intents, ["calls"]);
    assert_eq!(facts.recent_context, "two\nthree\nfour");
    assert_eq!(facts.used_tools, ["time:get_current_time"]);
}

/// Puts every tool in the `time` category with a fixed line.
struct TimeAnalyzer;

impl Analyzer for TimeAnalyzer {
    type Error = std::convert::Infallible;

    fn analyze(&self, tool: &ToolInfo) -> Result<nexus_jit::ToolAnalysis, Self::Error> {
        let mut analysis = nexus_jit::heuristic(tool);
        analysis.categories = vec!["time".into()];
        analysis.condensed = format!("{} (analysed)", tool.name);
        analysis.source = nexus_jit::AnalysisSource::Llm;
        Ok(analysis)
    }
}

#[test]
fn model_analyses_land_in_the_background_and_change_the_next_catalog() {
    let jit = jit();
    let before = compile(&jit, "s", "what is the hour?");
    let kv = before.compiled.decision("kv:get").map(|d| d.logic);
    let Some(due) = jit.start_analysis(&report()) else {
        panic!("every tool is due");
    };
    assert_eq!(due.len(), ToolName::ALL.len() + 8);
    // One analysis at a time.
    assert!(jit.start_analysis(&report()).is_none());
    assert_eq!(jit.analyse(&due, &TimeAnalyzer), due.len());
    let after = compile(&jit, "s", "what is the hour?");
    let now = after.compiled.decision("kv:get").map(|d| d.logic);
    assert!(now > kv, "{kv:?} → {now:?}");
    assert!(after.section(false).contains("(analysed)"));
    // Stored now, so nothing is due; a tool the model failed on is not asked again either.
    assert!(jit.start_analysis(&report()).is_none());
}
