//! Host tests without servers: name resolution, collisions, metrics kept across tool lists, the
//! report, exposure names, validation before any call, an offline server tripping its circuit,
//! and the allow / confirm / deny policy over annotations.

use std::path::Path;

use super::*;
use crate::breaker::Breakers;
use crate::call::CallIds;
use crate::deadline::Deadlines;
use crate::hub::Hub;

fn host(config: &str) -> Arc<Host> {
    let hub = Arc::new(Hub::new(Arc::new(CallIds::new()), 54319));
    let deadlines = Deadlines {
        quick: Duration::from_millis(100),
        heavy: Duration::from_millis(100),
    };
    let relay = Arc::new(Relay::new(hub, deadlines, Breakers::default(), 54319));
    let config = config::parse(Path::new("/m.json"), config, &|_| None);
    Host::new(relay, Some(config), false)
}

fn tool(name: &str) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {"message": {"type": "string"}, "n": {"type": "integer", "minimum": 1}},
        "required": ["message"]
    });
    let Value::Object(schema) = schema else {
        panic!("object")
    };
    Tool::new(name.to_owned(), "test tool", schema)
}

fn two_servers() -> Arc<Host> {
    let host = host(r#"{"servers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#);
    host.install("a", vec![tool("echo"), tool("only_a")]);
    host.install("b", vec![tool("echo"), tool("search")]);
    host
}

#[test]
fn qualified_names_resolve_and_unique_unqualified_ones_too() {
    let host = two_servers();
    assert_eq!(host.resolve("a:echo"), Ok(("a".into(), "echo".into())));
    assert_eq!(host.resolve("only_a"), Ok(("a".into(), "only_a".into())));
    assert_eq!(
        host.resolve("nexus:context"),
        Ok(("nexus".into(), "context".into()))
    );
    // `search` is both Nexus's and b's: ambiguous, with both candidates.
    let Err(HostError::Ambiguous { candidates, .. }) = host.resolve("search") else {
        panic!("ambiguous expected")
    };
    assert_eq!(candidates, ["b:search", "nexus:search"]);
    let Err(HostError::Ambiguous { candidates, .. }) = host.resolve("echo") else {
        panic!("ambiguous expected")
    };
    assert_eq!(candidates, ["a:echo", "b:echo"]);
    let Err(HostError::ToolNotFound { candidates, .. }) = host.resolve("a:ech") else {
        panic!("not found expected")
    };
    assert!(candidates.contains(&"a:echo".to_owned()), "{candidates:?}");
    assert!(matches!(
        host.resolve("zzz"),
        Err(HostError::ToolNotFound { .. })
    ));
    assert!(matches!(
        host.resolve("c:echo"),
        Err(HostError::ToolNotFound { .. })
    ));
}

#[test]
fn a_new_tool_list_keeps_metrics_of_tools_that_remain() {
    let host = two_servers();
    {
        let mut servers = host.servers();
        let stats = &mut servers
            .get_mut("a")
            .unwrap()
            .tools
            .get_mut("echo")
            .unwrap()
            .stats;
        stats.success(false, Duration::from_millis(5), 1);
    }
    host.install("a", vec![tool("echo"), tool("new_one")]);
    let report = host.report();
    let a = &report["servers"].as_array().unwrap()[0];
    assert_eq!(a["id"], "a");
    assert_eq!(a["tool_count"], 2);
    assert_eq!(a["tools"][0]["name"], "a:echo");
    assert_eq!(a["tools"][0]["performance"]["calls"], 1);
    assert_eq!(a["tools"][1]["name"], "a:new_one");
    assert!(host.resolve("a:only_a").is_err());
}

#[test]
fn invalid_entries_and_nexus_tools_are_in_the_report() {
    let host = host(r#"{"servers": {"ok": {"command": "x"}, "bad": {"url": 3}}}"#);
    let report = host.report();
    let servers = report["servers"].as_array().unwrap();
    let ids: Vec<_> = servers.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["bad", "nexus", "ok"]);
    assert_eq!(servers[0]["state"], "invalid");
    assert!(
        servers[0]["last_error"]
            .as_str()
            .unwrap()
            .contains("field `url`")
    );
    assert_eq!(servers[1]["tool_count"], ToolName::ALL.len());
    assert_eq!(servers[1]["state"], "offline");
    assert_eq!(servers[2]["state"], "idle");
    assert_eq!(report["config"], "/m.json");
}

#[test]
fn exposed_names_follow_the_mcp_rules_and_map_back() {
    let host = two_servers();
    let names: Vec<String> = host
        .exposed_tools()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["a__echo", "a__only_a", "b__echo", "b__search"]);
    assert_eq!(
        host.qualified_from_exposed("b__search").as_deref(),
        Some("b:search")
    );
    assert_eq!(host.qualified_from_exposed("nexus__search"), None);
    assert_eq!(host.qualified_from_exposed("a__nope"), None);
    assert_eq!(exposed_name("s", "bad name"), None);
    assert_eq!(exposed_name("s", "ok.v2-x").as_deref(), Some("s__ok.v2-x"));
    // Offline servers' tools say so.
    let tools = host.exposed_tools();
    assert!(
        tools[0]
            .description
            .as_deref()
            .unwrap_or("")
            .starts_with("[offline")
    );
}

#[tokio::test]
async fn bad_arguments_fail_validation_with_paths_before_any_call() {
    let host = two_servers();
    let mut args = Map::new();
    args.insert("n".into(), json!(0));
    let err = host
        .execute(CallRequest {
            name: "a:echo".into(),
            args,
            timeout: None,
            caller: "test".into(),
            approved: true,
            session: None,
            asker: None,
        })
        .await
        .expect_err("invalid");
    let HostError::ToolValidation { tool, errors } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(tool, "a:echo");
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors.iter().any(|e| e.starts_with("/n: ")), "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("/: ") && e.contains("message")),
        "{errors:?}"
    );
    // A validation failure is the caller's mistake, not the tool's: no failure recorded.
    assert_eq!(
        host.report()["servers"][0]["tools"][0]["reliability"]["failures"],
        0
    );
}

#[test]
fn a_null_for_an_unused_argument_is_left_out_and_a_null_the_schema_allows_is_sent() {
    let schema = json!({
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "verbose": {"type": "boolean"},
            "tag": {"type": ["string", "null"]}
        },
        "required": ["q"]
    });
    let validator = jsonschema::validator_for(&schema).expect("a schema");
    let args = |v: Value| v.as_object().cloned().expect("an object");
    assert_eq!(
        valid_arguments(&validator, args(json!({"q": "x", "verbose": null}))),
        Ok(args(json!({"q": "x"})))
    );
    assert_eq!(
        valid_arguments(&validator, args(json!({"q": "x", "tag": null}))),
        Ok(args(json!({"q": "x", "tag": null})))
    );
    // A required argument given as null stays the caller's mistake, named by its path.
    let errors = valid_arguments(&validator, args(json!({"q": null}))).expect_err("required");
    assert!(errors.iter().any(|e| e.starts_with("/q: ")), "{errors:?}");
    // Leaving nulls out never hides another wrong value.
    assert!(valid_arguments(&validator, args(json!({"q": 1, "verbose": null}))).is_err());
}

#[tokio::test]
async fn an_offline_server_fails_fast_and_counts_toward_its_circuit() {
    let host = host(
        r#"{"servers": {"a": {"command": "x"}}, "circuit": {"failures": 2, "cooldownMs": 60000}}"#,
    );
    host.install("a", vec![tool("echo")]);
    let call = || CallRequest {
        name: "a:echo".into(),
        args: [("message".to_owned(), json!("hi"))].into_iter().collect(),
        timeout: Some(Duration::from_millis(50)),
        caller: "test".into(),
        approved: true,
        session: None,
        asker: None,
    };
    for _ in 0..2 {
        let err = host.execute(call()).await.expect_err("offline");
        assert!(
            matches!(&err, HostError::ToolExecution { message, request_id, .. } if message.contains("offline") && request_id.starts_with('h')),
            "{err:?}"
        );
    }
    let err = host.execute(call()).await.expect_err("open");
    assert!(
        matches!(err, HostError::CircuitOpen { failures: 2, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn the_policy_gates_calls_hides_denied_tools_and_shows_in_the_report() {
    let host = host(r#"{"servers": {"a": {"command": "x", "deny": ["wipe"], "allow": ["echo"]}}}"#);
    let mut read = tool("read");
    read.annotations = Some(rmcp::model::ToolAnnotations::new().read_only(true));
    let mut gentle = tool("touch");
    gentle.annotations = Some(
        rmcp::model::ToolAnnotations::new()
            .read_only(false)
            .destructive(false),
    );
    host.install(
        "a",
        vec![tool("echo"), tool("write"), tool("wipe"), read, gentle],
    );
    let call = |name: &str, approved: bool| CallRequest {
        name: name.into(),
        args: [("message".to_owned(), json!("hi"))].into_iter().collect(),
        timeout: Some(Duration::from_millis(50)),
        caller: "test".into(),
        approved,
        session: None,
        asker: None,
    };
    // No annotation: it needs confirmation, and nothing reaches the (offline) server unasked.
    let err = host
        .execute(call("a:write", false))
        .await
        .expect_err("unasked");
    let HostError::NeedsConfirmation { allow, why, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(allow, "add \"write\" to `allow` of server `a` in /m.json");
    assert!(why.contains("readOnlyHint"), "{why}");
    assert_eq!(
        err.to_tool_error().code,
        nexus_shared::ErrorCode::NotAllowed
    );
    // Approved, it goes on to the server (offline here).
    let err = host
        .execute(call("a:write", true))
        .await
        .expect_err("offline");
    assert!(matches!(err, HostError::ToolExecution { .. }), "{err:?}");
    // Denied: never runs, even approved.
    let err = host
        .execute(call("a:wipe", true))
        .await
        .expect_err("denied");
    assert!(
        matches!(&err, HostError::Denied { why, .. } if why.contains("`wipe` in `deny` of server `a`")),
        "{err:?}"
    );
    // Allowed and read-only tools run unasked (offline here, so they fail at the server).
    for name in ["a:echo", "a:read"] {
        let err = host.execute(call(name, false)).await.expect_err("offline");
        assert!(
            matches!(err, HostError::ToolExecution { .. }),
            "{name}: {err:?}"
        );
    }
    let exposed: Vec<String> = host
        .exposed_tools()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(exposed, ["a__echo", "a__read", "a__touch", "a__write"]);
    let report = host.report();
    let policy = |name: &str| {
        report["servers"][0]["tools"]
            .as_array()
            .and_then(|tools| tools.iter().find(|t| t["name"] == name).cloned())
            .unwrap_or_default()
    };
    assert_eq!(policy("a:wipe")["policy"], "deny");
    assert_eq!(policy("a:write")["policy"], "confirm");
    assert_eq!(policy("a:write")["destructive"], true);
    assert_eq!(policy("a:touch")["destructive"], false);
    assert_eq!(policy("a:read")["policy"], "allow");
    assert_eq!(policy("a:read")["read_only"], true);
    // Nexus's own tools run unasked.
    let nexus = host.gatekeeping("nexus:search").expect("nexus:search");
    assert_eq!(nexus.verdict.action, Action::Allow);
}
