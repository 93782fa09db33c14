//! `/mcp` on the hub's port with rmcp's Streamable HTTP client against the real bridge: the same
//! tools as stdio, calls through the tab, 2026-07-28 and 2025-06-18 clients, token and origin.

use std::time::{Duration, Instant};

use nexus_e2e::tab::{EchoTab, TabBehaviour, echo_text};
use nexus_e2e::{McpBridge, ProgressLog, TempDir, free_port, text_of};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, ProtocolVersion, TaskStatus, Tool,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, Peer, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

/// The user's MCP token, as the hub created it in the data folder.
fn mcp_token(data_home: &std::path::Path) -> String {
    let path = data_home.join("nexus/mcp-token");
    let started = Instant::now();
    loop {
        match std::fs::read_to_string(&path) {
            Ok(text) if text.trim().len() == 64 => {
                let mode = std::os::unix::fs::PermissionsExt::mode(
                    &std::fs::metadata(&path)
                        .expect("token file metadata")
                        .permissions(),
                );
                assert_eq!(mode & 0o777, 0o600, "{} is not private", path.display());
                return text.trim().to_owned();
            }
            _ if started.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            other => panic!("no MCP token in {}: {other:?}", path.display()),
        }
    }
}

/// reqwest builds no client before a TLS provider is installed when the workspace's features
/// are unified (the bridge's `rustls-no-provider`), as in `cargo test --workspace`.
fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn transport(port: u16, token: &str) -> StreamableHttpClientTransport<reqwest::Client> {
    install_tls_provider();
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("http://127.0.0.1:{port}/mcp"))
            .auth_header(token.to_owned());
    StreamableHttpClientTransport::from_config(config)
}

/// A client at 2026-07-28 (`server/discover`, no `initialize`) that keeps progress reports.
async fn current_client(port: u16, token: &str) -> RunningService<RoleClient, ProgressLog> {
    ProgressLog::default()
        .serve_with_lifecycle(
            transport(port, token),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("server/discover over HTTP")
}

/// A client at 2026-07-28 that declares the tasks extension (SEP-2663).
async fn tasks_client(port: u16, token: &str) -> RunningService<RoleClient, ClientConfig> {
    let capabilities: ClientCapabilities =
        serde_json::from_value(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
            .expect("capabilities");
    ClientConfig::new(capabilities, Implementation::new("tasks-client", "1.0.0"))
        .serve_with_lifecycle(
            transport(port, token),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("server/discover over HTTP with the tasks extension")
}

/// A client as Claude Desktop is today: `initialize` at 2025-06-18.
async fn older_client(port: u16, token: &str) -> RunningService<RoleClient, ClientConfig> {
    ClientConfig::default()
        .with_protocol_version(ProtocolVersion::V_2025_06_18)
        .serve(transport(port, token))
        .await
        .expect("initialize at 2025-06-18 over HTTP")
}

/// The protocol version the client and the bridge agreed on.
fn negotiated(client: &Peer<RoleClient>) -> Option<ProtocolVersion> {
    client.peer_info().map(|info| info.protocol_version.clone())
}

fn names_and_schemas(tools: &[Tool]) -> Vec<(String, serde_json::Value)> {
    tools
        .iter()
        .map(|tool| (tool.name.to_string(), json!(tool.input_schema)))
        .collect()
}

async fn call(
    client: &Peer<RoleClient>,
    tool: &str,
    args: serde_json::Value,
) -> rmcp::model::CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let serde_json::Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    client
        .call_tool(params)
        .await
        .expect("tools/call over HTTP")
}

/// The status of a bare POST to `/mcp` with these headers.
async fn post_status(port: u16, headers: &[(&str, &str)]) -> u16 {
    install_tls_provider();
    let mut request = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("POST /mcp").status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_serves_the_stdio_tools_through_the_tab_for_old_and_new_clients() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let data = TempDir::new("mcp-http-data");
    let data_home = data.0.display().to_string();
    let port = free_port();
    let bridge = McpBridge::start_with_env(port, &[], &[("XDG_DATA_HOME", &data_home)]).await;
    let token = mcp_token(&data.0);

    // Refusals: no token, a wrong one, the browser's secret; a foreign origin even with the token.
    let bearer = format!("Bearer {token}");
    assert_eq!(post_status(port, &[]).await, 401);
    let wrong = format!("Bearer {}", "0".repeat(64));
    assert_eq!(post_status(port, &[("authorization", &wrong)]).await, 401);
    let browser = format!("Bearer {}", nexus_e2e::browser_secret());
    assert_eq!(post_status(port, &[("authorization", &browser)]).await, 401);
    let foreign = [
        ("authorization", bearer.as_str()),
        ("origin", "https://evil.example"),
    ];
    assert_eq!(post_status(port, &foreign).await, 403);
    let rebound = [("authorization", bearer.as_str()), ("host", "evil.example")];
    assert_eq!(post_status(port, &rebound).await, 403);

    // The same tools, in the same order, as stdio.
    let over_stdio = bridge
        .client
        .list_all_tools()
        .await
        .expect("tools/list on stdio");
    let current = current_client(port, &token).await;
    assert_eq!(negotiated(&current), Some(ProtocolVersion::V_2026_07_28));
    let over_http = current
        .list_all_tools()
        .await
        .expect("tools/list over HTTP");
    assert_eq!(over_http.len(), 17);
    assert_eq!(
        names_and_schemas(&over_http),
        names_and_schemas(&over_stdio)
    );
    let again = current.list_all_tools().await.expect("tools/list again");
    assert_eq!(names_and_schemas(&again), names_and_schemas(&over_http));

    // No tab yet: an isError result, not a protocol error.
    let result = call(&current, "context", json!({})).await;
    assert_eq!(result.is_error, Some(true), "{}", text_of(&result));
    assert!(
        text_of(&result).contains("NO_BROWSER"),
        "{}",
        text_of(&result)
    );

    // Through the tab.
    let behaviour = TabBehaviour {
        with_progress: ["deep_dive".to_owned()].into(),
        silent: ["explore".to_owned()].into(),
        ..TabBehaviour::default()
    };
    let tab = EchoTab::start(port, behaviour);
    tab.log.wait_welcomes(1, Duration::from_secs(10)).await;
    let args = json!({"focus": "stats"});
    let result = call(&current, "context", args.clone()).await;
    assert_ne!(result.is_error, Some(true), "{}", text_of(&result));
    assert_eq!(text_of(&result), echo_text("context", &args));
    let unknown = call(&current, "no_such_tool", json!({})).await;
    assert_eq!(unknown.is_error, Some(true));

    // Progress the tab reports reaches the HTTP client, before the answer.
    let args = json!({"symbol": "cart"});
    let result = call(&current, "deep_dive", args.clone()).await;
    assert_eq!(text_of(&result), echo_text("deep_dive", &args));
    let started = Instant::now();
    let mut received = Vec::new();
    while received.len() < 2 && started.elapsed() < Duration::from_secs(5) {
        received.extend(current.service().take());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut steps: Vec<f64> = received.iter().map(|p| p.progress).collect();
    steps.sort_by(f64::total_cmp);
    assert_eq!(steps, [1.0, 2.0], "{received:?}");

    // A client that gives up on a call: the tab is told to stop that very call.
    let dropped = tokio::time::timeout(
        Duration::from_millis(300),
        call(&current, "explore", json!({"target": "x"})),
    )
    .await;
    assert!(dropped.is_err(), "the silent tab answered");
    let (asked, _) = tab
        .log
        .calls()
        .into_iter()
        .rev()
        .find(|(_, tool)| tool == "explore")
        .expect("the tab got the call");
    let started = Instant::now();
    while !tab.log.cancels().contains(&asked) {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no Cancel for {asked}: {:?}",
            tab.log.cancels()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // A 2025-06-18 client (initialize handshake) sees and calls the same.
    let older = older_client(port, &token).await;
    assert_eq!(negotiated(&older), Some(ProtocolVersion::V_2025_06_18));
    let listed = older
        .list_all_tools()
        .await
        .expect("tools/list at 2025-06-18");
    assert_eq!(names_and_schemas(&listed), names_and_schemas(&over_stdio));
    let result = call(&older, "context", args.clone()).await;
    assert_eq!(text_of(&result), echo_text("context", &args));

    let _ = current.cancel().await;
    let _ = older.cancel().await;
    bridge.stop().await;
}

/// The health report's entry for hosted server `id`, once it is online.
async fn online_server(bridge: &McpBridge, id: &str) -> serde_json::Value {
    let started = Instant::now();
    loop {
        let health = bridge.health().await;
        let servers = health["hosted"]["servers"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if let Some(server) = servers.into_iter().find(|s| s["id"] == id) {
            if server["state"] == "online" {
                return server;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{id} not online: {server:#}"
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_hosts_another_bridges_mcp_at_2026_07_28_with_a_bearer_from_the_environment() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let served_data = TempDir::new("mcp-http-served");
    let served_home = served_data.0.display().to_string();
    let served_port = free_port();
    let served =
        McpBridge::start_with_env(served_port, &[], &[("XDG_DATA_HOME", &served_home)]).await;
    let token = mcp_token(&served_data.0);
    let tab = EchoTab::start(served_port, TabBehaviour::default());
    tab.log.wait_welcomes(1, Duration::from_secs(10)).await;

    let dir = TempDir::new("mcp-http-hosting");
    let url = format!("http://127.0.0.1:{served_port}/mcp");
    let config = json!({"mcpServers": {
        "nx": {"url": url, "headers": {"Authorization": "Bearer ${NEXUS_TEST_MCP_TOKEN}"}, "allow": ["*"]},
        "locked": {"url": url, "headers": {"Authorization": "Bearer not-the-token"}}
    }});
    let config_path = dir.0.join("mcp.json");
    std::fs::write(&config_path, config.to_string()).expect("write mcp.json");
    let hosting_home = dir.0.join("data").display().to_string();
    let hosting = McpBridge::start_with_env(
        free_port(),
        &[
            "--mcp-config",
            &config_path.display().to_string(),
            "--expose-hosted",
        ],
        &[
            ("XDG_DATA_HOME", &hosting_home),
            ("NEXUS_TEST_MCP_TOKEN", &token),
        ],
    )
    .await;

    let nx = online_server(&hosting, "nx").await;
    assert_eq!(nx["transport"], "http");
    assert_eq!(nx["protocol"], "2026-07-28", "{nx:#}");
    assert_eq!(nx["tool_count"], 17);
    let args = json!({"focus": "stats"});
    let result = hosting.call("nx__context", args.clone()).await;
    assert_ne!(result.is_error, Some(true), "{}", text_of(&result));
    assert_eq!(text_of(&result), echo_text("context", &args));

    // The wrong token never gets the server online, and the log never shows the right one.
    let health = hosting.health().await;
    let servers = health["hosted"]["servers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let locked = servers
        .iter()
        .find(|s| s["id"] == "locked")
        .expect("locked");
    assert_ne!(locked["state"], "online", "{locked:#}");
    assert!(
        !health.to_string().contains(&token),
        "the token is in health"
    );

    hosting.stop().await;
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_call_becomes_a_task_for_a_client_with_the_tasks_extension() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let data = TempDir::new("mcp-http-tasks");
    let data_home = data.0.display().to_string();
    let port = free_port();
    let bridge = McpBridge::start_with_env(port, &[], &[("XDG_DATA_HOME", &data_home)]).await;
    let token = mcp_token(&data.0);
    let behaviour = TabBehaviour {
        silent: ["grep".to_owned()].into(),
        ..TabBehaviour::default()
    };
    let tab = EchoTab::start(port, behaviour);
    tab.log.wait_welcomes(1, Duration::from_secs(10)).await;
    let client = tasks_client(port, &token).await;
    let params = |tool: &str, args: serde_json::Value| {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let serde_json::Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        params
    };

    // A long tool that answers at once: in the call, no task.
    let args = json!({"symbol": "cart"});
    let fast = client
        .call_tool_once(params("deep_dive", args.clone()))
        .await
        .expect("tools/call");
    let CallToolResponse::Complete(result) = fast else {
        panic!("a quick call answers in the call: {fast:?}");
    };
    assert_eq!(text_of(&result), echo_text("deep_dive", &args));

    // One the tab leaves unanswered past the shortcut: a task, working until cancelled, and the
    // tab is told to stop the call.
    let slow = client
        .call_tool_once(params("grep", json!({"pattern": "cart"})))
        .await
        .expect("tools/call");
    let CallToolResponse::Task(created) = slow else {
        panic!("a call past 0.5 s becomes a task: {slow:?}");
    };
    let id = created.task.task_id.clone();
    let got = client
        .get_task(GetTaskParams::new(id.clone()))
        .await
        .expect("tasks/get");
    assert_eq!(got.task.status(), TaskStatus::Working);
    client
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .expect("tasks/cancel");
    let started = Instant::now();
    loop {
        let got = client
            .get_task(GetTaskParams::new(id.clone()))
            .await
            .expect("tasks/get");
        if got.task.status() == TaskStatus::Cancelled {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "not cancelled: {:?}",
            got.task.status()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let started = Instant::now();
    while tab.log.cancels().is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the tab was not told to stop"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // A client without the extension gets no task and may not read one (-32021).
    let plain = current_client(port, &token).await;
    let refused = plain
        .get_task(GetTaskParams::new(id))
        .await
        .expect_err("tasks/get without the extension");
    assert!(format!("{refused:?}").contains("-32021"), "{refused:?}");
    bridge.stop().await;
}
