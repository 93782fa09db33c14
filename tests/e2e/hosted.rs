//! The bridge as an MCP host, with real servers started by the tests: the npm reference servers
//! (stdio and streamable HTTP), a PyPI server, and a misbehaving one (`servers/misbehave.py`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use nexus_e2e::{
    McpBridge, ProgressLog, TempDir, bridge_command, free_port, text_of, wait_port_open,
};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest};
use rmcp::service::PeerRequestOptions;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

fn root() -> PathBuf {
    nexus_e2e::workspace_root()
}

pub(crate) fn node_bin(name: &str) -> String {
    let path = root().join("tests/js/node_modules/.bin").join(name);
    assert!(
        path.is_file(),
        "{} is missing: run scripts/setup.sh (npm ci in tests/js)",
        path.display()
    );
    path.display().to_string()
}

fn python_server() -> String {
    let path = root().join("tests/py/.venv/bin/mcp-server-time");
    assert!(
        path.is_file(),
        "{} is missing: run scripts/setup.sh (the tests' Python venv)",
        path.display()
    );
    path.display().to_string()
}

fn misbehave(extra: &[&str], env: Value) -> Value {
    let mut args = vec![
        root()
            .join("tests/servers/misbehave.py")
            .display()
            .to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    json!({"command": "python3", "args": args, "env": env})
}

/// A bridge hosting `config`, with its stderr kept in a file for log checks.
struct Hosting {
    bridge: McpBridge,
    stderr: PathBuf,
    _dir: TempDir,
}

impl Hosting {
    async fn start(config: Value, extra: &[&str]) -> Hosting {
        Self::start_on(free_port(), config, extra).await
    }

    async fn start_on(port: u16, config: Value, extra: &[&str]) -> Hosting {
        let dir = TempDir::new("hosted");
        let path = dir.0.join("mcp.json");
        std::fs::write(&path, config.to_string()).expect("write config");
        let stderr = dir.0.join("stderr.log");
        let log = std::fs::File::create(&stderr).expect("stderr file");
        let mut command = bridge_command();
        command
            .arg("--port")
            .arg(port.to_string())
            .arg("--mcp-config")
            .arg(&path)
            .args(extra)
            .env("NEXUS_TEST_SECRET", "hunter2-secret")
            .env("NEXUS_LOG", "info");
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::from(log))
            .spawn()
            .expect("spawn nexus-bridge");
        let pid = transport.id().expect("pid");
        let progress = ProgressLog::default();
        let client = progress
            .clone()
            .serve(transport)
            .await
            .expect("MCP initialize");
        wait_port_open(port, Duration::from_secs(10)).await;
        Hosting {
            bridge: McpBridge {
                client,
                port,
                pid,
                progress,
            },
            stderr,
            _dir: dir,
        }
    }

    async fn hosted(&self) -> Value {
        self.bridge.health().await["hosted"].clone()
    }

    async fn server(&self, id: &str) -> Value {
        let hosted = self.hosted().await;
        hosted["servers"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["id"] == id).cloned())
            .unwrap_or(Value::Null)
    }

    /// Waits until every named server is in `state`; returns the last health's hosted part.
    async fn wait_state(&self, ids: &[&str], state: &str, within: Duration) -> Value {
        let started = Instant::now();
        loop {
            let hosted = self.hosted().await;
            let all = ids.iter().all(|id| {
                hosted["servers"]
                    .as_array()
                    .is_some_and(|s| s.iter().any(|s| s["id"] == *id && s["state"] == state))
            });
            if all {
                return hosted;
            }
            assert!(
                started.elapsed() < within,
                "servers {ids:?} not {state} after {within:?}: {hosted:#}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        self.bridge.call(tool, args).await
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

fn ok_text(result: &CallToolResult) -> String {
    assert_ne!(result.is_error, Some(true), "{}", text_of(result));
    text_of(result)
}

fn err_text(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{}", text_of(result));
    text_of(result)
}

fn tool<'a>(server: &'a Value, name: &str) -> &'a Value {
    server["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no tool {name} in {server:#}"))
}

/// `mcp-server-everything streamableHttp` on a free port; killed on drop.
struct HttpEverything {
    _child: tokio::process::Child,
    url: String,
}

impl HttpEverything {
    async fn start() -> HttpEverything {
        let port = free_port();
        let child = tokio::process::Command::new(node_bin("mcp-server-everything"))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start server-everything over HTTP");
        wait_port_open(port, Duration::from_secs(20)).await;
        HttpEverything {
            _child: child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_server_lists_qualified_tools_and_answers() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let http = HttpEverything::start().await;
    let files = TempDir::new("hosted-files");
    std::fs::write(files.0.join("hello.txt"), "hello from the filesystem").expect("write");
    let memory_file = files.0.join("memory.jsonl");
    let config = json!({
        "mcpServers": {
            "everything": {"command": node_bin("mcp-server-everything"), "args": ["stdio"],
                           "env": {"NEXUS_PASSED": "${NEXUS_TEST_SECRET}"}},
            "web": {"url": http.url, "headers": {"X-Test": "${NEXUS_TEST_SECRET}"}},
            "fs": {"command": node_bin("mcp-server-filesystem"), "args": [files.0.display().to_string()]},
            "memory": {"command": node_bin("mcp-server-memory"),
                       "env": {"MEMORY_FILE_PATH": memory_file.display().to_string()}},
            "time": {"command": python_server(), "args": ["--local-timezone", "Europe/Paris"]},
            "bad": misbehave(&[], json!({}))
        }
    });
    let host = Hosting::start(config, &["--expose-hosted"]).await;
    let ids = ["everything", "web", "fs", "memory", "time", "bad"];
    let hosted = host
        .wait_state(&ids, "online", Duration::from_secs(60))
        .await;

    // One registry: qualified names, Nexus's own 16 as the server `nexus`, metrics per tool.
    let servers = hosted["servers"].as_array().expect("servers");
    let nexus = servers.iter().find(|s| s["id"] == "nexus").expect("nexus");
    assert_eq!(nexus["tool_count"], 16);
    let everything = servers.iter().find(|s| s["id"] == "everything").expect("e");
    assert_eq!(everything["transport"], "stdio");
    let echo = tool(everything, "everything:echo");
    assert_eq!(echo["reliability"]["circuit"], "closed");
    assert!(echo["input_schema"]["properties"]["message"].is_object());
    // Guidance: the server's own `tool-descriptions` prompt, else a generated fallback.
    let bad = servers.iter().find(|s| s["id"] == "bad").expect("bad");
    assert_eq!(bad["guidance_generated"], false, "{bad:#}");
    assert!(
        bad["guidance"]
            .as_str()
            .unwrap_or("")
            .contains("never call hang")
    );
    assert_eq!(everything["guidance_generated"], true);
    assert!(
        everything["guidance"]
            .as_str()
            .unwrap_or("")
            .contains("everything:echo")
    );

    // Exposed to this bridge's MCP client as server__tool.
    let listed: Vec<String> = host
        .bridge
        .client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    for name in [
        "search",
        "everything__echo",
        "web__echo",
        "fs__read_text_file",
        "memory__read_graph",
        "time__get_current_time",
        "bad__echo",
    ] {
        assert!(listed.iter().any(|l| l == name), "{name} not in {listed:?}");
    }

    // A call per server.
    let echo = host
        .call("everything__echo", json!({"message": "hi stdio"}))
        .await;
    assert!(ok_text(&echo).contains("hi stdio"));
    let echo = host.call("web__echo", json!({"message": "hi http"})).await;
    assert!(ok_text(&echo).contains("hi http"));
    let env = host.call("everything__get-env", json!({})).await;
    assert!(
        ok_text(&env).contains("hunter2-secret"),
        "env reaches the child"
    );
    let read = host
        .call(
            "fs__read_text_file",
            json!({"path": files.0.join("hello.txt").display().to_string()}),
        )
        .await;
    assert!(ok_text(&read).contains("hello from the filesystem"));
    let created = host
        .call(
            "memory__create_entities",
            json!({"entities": [{"name": "Nexus", "entityType": "project", "observations": ["hosts MCP servers"]}]}),
        )
        .await;
    ok_text(&created);
    let graph = host.call("memory__read_graph", json!({})).await;
    assert!(ok_text(&graph).contains("hosts MCP servers"));
    let time = host
        .call("time__get_current_time", json!({"timezone": "UTC"}))
        .await;
    assert!(ok_text(&time).contains("UTC"));
    let echo = host
        .call("bad__echo", json!({"message": "hi python"}))
        .await;
    assert_eq!(ok_text(&echo), "hi python");

    // Metrics moved; the collision of `echo` was logged; secrets never were.
    let everything = host.server("everything").await;
    let echo = tool(&everything, "everything:echo");
    assert_eq!(echo["performance"]["calls"], 1);
    assert_eq!(echo["reliability"]["successes"], 1);
    assert!(echo["performance"]["avg_ms"].as_f64().is_some());
    let log = host.log();
    assert!(log.contains("tool name collision"), "{log}");
    assert!(log.contains("everything:echo"), "{log}");
    assert!(!log.contains("hunter2"), "a secret reached the log");
    drop(http);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_come_back_with_their_paths() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let config = json!({"servers": {"everything": {"transport": "stdio",
        "command": node_bin("mcp-server-everything"), "args": ["stdio"]}}});
    let host = Hosting::start(config, &["--expose-hosted"]).await;
    host.wait_state(&["everything"], "online", Duration::from_secs(30))
        .await;
    let text = err_text(&host.call("everything__get-sum", json!({"a": "one"})).await);
    assert!(text.contains("ToolValidation"), "{text}");
    assert!(text.contains("/a: "), "{text}");
    assert!(text.contains("\"b\" is a required property"), "{text}");
    // Validation failures are the caller's, not the tool's: nothing is recorded against it.
    let server = host.server("everything").await;
    assert_eq!(
        tool(&server, "everything:get-sum")["reliability"]["failures"],
        0
    );
    let sum = host
        .call("everything__get-sum", json!({"a": 2, "b": 3}))
        .await;
    assert!(ok_text(&sum).contains('5'));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_and_cancellation_reach_the_server() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let dir = TempDir::new("hosted-cancel");
    let log = dir.0.join("calls.log");
    let mut server = misbehave(&[], json!({"MISBEHAVE_LOG": log.display().to_string()}));
    server["timeoutMs"] = json!(400);
    let host = Hosting::start(
        json!({"mcpServers": {"slow": server}}),
        &["--expose-hosted"],
    )
    .await;
    host.wait_state(&["slow"], "online", Duration::from_secs(30))
        .await;

    let started = Instant::now();
    let text = err_text(&host.call("slow__hang", json!({})).await);
    let took = started.elapsed();
    assert!(
        text.contains("ToolExecution") && text.contains("timed out after 400 ms"),
        "{text}"
    );
    assert!(
        text.contains("slow:hang") && text.contains("(request h"),
        "{text}"
    );
    assert!(
        took >= Duration::from_millis(400) && took < Duration::from_secs(3),
        "{took:?}"
    );
    wait_for_line(&log, "cancelled", 1).await;

    // The client cancels: the bridge forwards notifications/cancelled to the server.
    let mut params = CallToolRequestParams::new("slow__hang");
    params = params.with_arguments(serde_json::Map::new());
    let handle = host
        .bridge
        .client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("send");
    wait_for_line(&log, "call hang", 2).await;
    handle.cancel(Some("test".into())).await.expect("cancel");
    wait_for_line(&log, "cancelled", 2).await;
    // The server still answers afterwards.
    let echo = host
        .call("slow__echo", json!({"message": "still here"}))
        .await;
    assert_eq!(ok_text(&echo), "still here");
}

async fn wait_for_line(log: &Path, needle: &str, count: usize) {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.lines().filter(|l| l.starts_with(needle)).count() >= count {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{count}× `{needle}` not in the server's log: {text}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashing_tool_opens_its_circuit_which_half_opens_and_closes() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let dir = TempDir::new("hosted-crash");
    let crash = dir.0.join("crash-now");
    std::fs::write(&crash, "").expect("crash file");
    let server = misbehave(
        &[],
        json!({"MISBEHAVE_CRASH_FILE": crash.display().to_string()}),
    );
    let config =
        json!({"mcpServers": {"crashy": server}, "circuit": {"failures": 5, "cooldownMs": 1500}});
    let host = Hosting::start(config, &["--expose-hosted"]).await;
    host.wait_state(&["crashy"], "online", Duration::from_secs(30))
        .await;
    for i in 0..5 {
        let text = err_text(&host.call("crashy__flaky", json!({})).await);
        assert!(text.contains("ToolExecution"), "call {i}: {text}");
    }
    let server = host.server("crashy").await;
    assert_eq!(
        tool(&server, "crashy:flaky")["reliability"]["circuit"],
        "open"
    );
    assert_eq!(tool(&server, "crashy:flaky")["reliability"]["failures"], 5);
    let started = Instant::now();
    let text = err_text(&host.call("crashy__flaky", json!({})).await);
    assert!(
        text.contains("CircuitOpen") && text.contains("paused"),
        "{text}"
    );
    assert!(started.elapsed() < Duration::from_millis(200));
    // Other tools of the server are not affected.
    host.wait_state(&["crashy"], "online", Duration::from_secs(10))
        .await;
    let echo = host.call("crashy__echo", json!({"message": "fine"})).await;
    assert_eq!(ok_text(&echo), "fine");

    std::fs::remove_file(&crash).expect("stop crashing");
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let server = host.server("crashy").await;
    assert_eq!(
        tool(&server, "crashy:flaky")["reliability"]["circuit"],
        "half_open"
    );
    let trial = host.call("crashy__flaky", json!({})).await;
    assert_eq!(ok_text(&trial), "ok");
    let server = host.server("crashy").await;
    let flaky = tool(&server, "crashy:flaky");
    assert_eq!(flaky["reliability"]["circuit"], "closed");
    assert_eq!(
        flaky["reliability"]["recent_failures"], 4,
        "a success decrements"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_is_restarted_and_its_tools_stay_listed() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let dir = TempDir::new("hosted-restart");
    let log = dir.0.join("calls.log");
    let server = misbehave(
        &["--crash-after", "2"],
        json!({"MISBEHAVE_LOG": log.display().to_string()}),
    );
    let host = Hosting::start(
        json!({"mcpServers": {"short": server}}),
        &["--expose-hosted"],
    )
    .await;
    host.wait_state(&["short"], "online", Duration::from_secs(30))
        .await;
    for i in 0..2 {
        let echo = host
            .call("short__echo", json!({"message": format!("m{i}")}))
            .await;
        assert_eq!(ok_text(&echo), format!("m{i}"));
    }
    // The third call crashes the process; the one retry reaches the restarted server.
    let echo = host.call("short__echo", json!({"message": "after"})).await;
    assert_eq!(ok_text(&echo), "after");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("pid")).count(),
        2,
        "{text}"
    );

    // Killed from outside: offline with its tools kept, then back.
    let pid = text
        .lines()
        .filter_map(|l| l.strip_prefix("pid "))
        .next_back()
        .expect("pid")
        .to_owned();
    let status = std::process::Command::new("kill")
        .args(["-9", &pid])
        .status()
        .expect("kill");
    assert!(status.success());
    let hosted = host
        .wait_state(&["short"], "reconnecting", Duration::from_secs(5))
        .await;
    let short = hosted["servers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["id"] == "short"))
        .expect("short");
    assert_eq!(short["tool_count"], 6, "tools stay listed: {short:#}");
    let listed = host
        .bridge
        .client
        .list_all_tools()
        .await
        .expect("tools/list");
    let echo = listed
        .iter()
        .find(|t| t.name == "short__echo")
        .expect("listed");
    assert!(
        echo.description
            .as_deref()
            .unwrap_or("")
            .starts_with("[offline")
    );
    host.wait_state(&["short"], "online", Duration::from_secs(10))
        .await;
    let echo = host.call("short__echo", json!({"message": "back"})).await;
    assert_eq!(ok_text(&echo), "back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_huge_results_and_list_changes_are_handled() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let config = json!({"mcpServers": {
        "noisy": misbehave(&["--garbage"], json!({})),
        "big": misbehave(&[], json!({}))
    }});
    let host = Hosting::start(config, &["--expose-hosted"]).await;
    host.wait_state(&["noisy", "big"], "online", Duration::from_secs(30))
        .await;
    let echo = host
        .call("noisy__echo", json!({"message": "through noise"}))
        .await;
    assert_eq!(ok_text(&echo), "through noise");

    let text = err_text(&host.call("big__huge", json!({"bytes": 3_000_000})).await);
    assert!(text.contains("over the 1048576-byte limit"), "{text}");
    let small = host.call("big__huge", json!({"bytes": 10})).await;
    assert_eq!(ok_text(&small), "x".repeat(10));

    // notifications/tools/list_changed: the registry lists the new tool.
    ok_text(&host.call("big__grow", json!({})).await);
    let started = Instant::now();
    loop {
        let big = host.server("big").await;
        if big["tool_count"] == 7 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "{big:#}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let grown = host.call("big__grown6", json!({})).await;
    assert_eq!(ok_text(&grown), "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_configs_are_reported_precisely_and_the_rest_start() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let config = json!({"mcpServers": {
        "good": misbehave(&[], json!({})),
        "no-command": {"args": ["x"]},
        "bad-args": {"command": "python3", "args": "not a list"},
        "bad-env": {"command": "python3", "env": {"KEY": "${NEXUS_NOT_SET_ANYWHERE}"}},
        "bad-url": {"url": "localhost:3000"},
        "bad-timeout": {"command": "python3", "timeoutMs": "soon"},
        "missing-binary": {"command": "/no/such/mcp-server"},
        "tls": {"url": format!("https://127.0.0.1:{}/mcp", free_port()), "startTimeoutMs": 5000},
        "silent": {"command": "python3", "startTimeoutMs": 500,
                   "args": [root().join("tests/servers/misbehave.py").display().to_string(), "--silent"]}
    }});
    let host = Hosting::start(config, &["--expose-hosted"]).await;
    host.wait_state(&["good"], "online", Duration::from_secs(30))
        .await;
    for (id, expect) in [
        (
            "no-command",
            "field `command` (stdio) or `url` (http) is required",
        ),
        ("bad-args", "field `args` must be an array"),
        (
            "bad-env",
            "field `env.KEY`: environment variable `NEXUS_NOT_SET_ANYWHERE` is not set",
        ),
        ("bad-url", "field `url` must start with http"),
        (
            "bad-timeout",
            "field `timeoutMs` must be a positive whole number",
        ),
    ] {
        let server = host.server(id).await;
        assert_eq!(server["state"], "invalid", "{server:#}");
        let error = server["last_error"].as_str().unwrap_or("");
        assert!(error.contains("mcp.json: server `"), "{error}");
        assert!(error.contains(&format!("server `{id}`")), "{error}");
        assert!(error.contains(expect), "{id}: {error}");
    }
    let started = Instant::now();
    loop {
        let missing = host.server("missing-binary").await;
        let silent = host.server("silent").await;
        let tls = host.server("tls").await;
        let missing_error = missing["last_error"].as_str().unwrap_or("");
        let silent_error = silent["last_error"].as_str().unwrap_or("");
        let tls_error = tls["last_error"].as_str().unwrap_or("");
        if missing_error.contains("cannot start `/no/such/mcp-server`")
            && silent_error.contains("within 500 ms")
            && tls_error.contains("MCP initialize with https://127.0.0.1:")
        {
            assert_ne!(missing["state"], "online");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{missing:#} {silent:#} {tls:#}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let echo = host.call("good__echo", json!({"message": "works"})).await;
    assert_eq!(ok_text(&echo), "works");

    // A broken file: no hosted server, a precise error, Nexus's own tools unaffected.
    let broken = Hosting::start(
        json!({"servers": {"x": {"command": "y"}}, "expose": "yes"}),
        &[],
    )
    .await;
    let hosted = broken.hosted().await;
    let error = hosted["config_error"].as_str().unwrap_or("");
    assert!(
        error.contains("mcp.json: `expose` must be true or false"),
        "{hosted:#}"
    );
    let listed = broken
        .bridge
        .client
        .list_all_tools()
        .await
        .expect("tools/list");
    assert_eq!(listed.len(), 16);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_hub_hosts_and_a_new_hub_brings_the_registry_back() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let port = free_port();
    let config = json!({"mcpServers": {"m": misbehave(&[], json!({}))}, "expose": true});
    let hub = Hosting::start_on(port, config.clone(), &[]).await;
    hub.bridge.wait_mode("hub", Duration::from_secs(5)).await;
    hub.wait_state(&["m"], "online", Duration::from_secs(30))
        .await;
    let peer = Hosting::start_on(port, config, &[]).await;
    peer.bridge.wait_mode("peer", Duration::from_secs(5)).await;
    assert_eq!(
        peer.server("m").await["state"],
        "idle",
        "a peer runs no servers"
    );
    // A peer's MCP client sees and calls the hub's hosted tools.
    let listed = peer
        .bridge
        .client
        .list_all_tools()
        .await
        .expect("tools/list");
    assert!(listed.iter().any(|t| t.name == "m__echo"), "{listed:?}");
    let echo = peer
        .call("m__echo", json!({"message": "via the hub"}))
        .await;
    assert_eq!(ok_text(&echo), "via the hub");
    let text = err_text(&peer.call("m__echo", json!({"message": 1})).await);
    assert!(
        text.contains("ToolValidation") && text.contains("/message"),
        "{text}"
    );

    hub.bridge.quit().await;
    peer.bridge.wait_mode("hub", Duration::from_secs(10)).await;
    peer.wait_state(&["m"], "online", Duration::from_secs(30))
        .await;
    let echo = peer.call("m__echo", json!({"message": "new hub"})).await;
    assert_eq!(ok_text(&echo), "new hub");
}

mod page {
    //! The page's side of the wire: a raw browser socket asking the hub for the registry.
    use super::*;
    use futures_util::{SinkExt, StreamExt};
    use nexus_shared::{ErrorCode, Frame, Outcome, Role};
    use tokio_tungstenite::connect_async;
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;

    type Socket = tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >;

    async fn send(socket: &mut Socket, frame: &Frame) {
        socket
            .send(Message::Text(frame.encode().into()))
            .await
            .expect("send");
    }

    async fn next(socket: &mut Socket) -> Frame {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(20), socket.next())
                .await
                .expect("no frame within 20 s")
                .expect("socket open")
                .expect("socket ok");
            if let Message::Text(text) = message {
                match Frame::decode(text.as_str()).expect("hub sent a bad frame") {
                    Frame::Ping { .. } => continue,
                    frame => return frame,
                }
            }
        }
    }

    async fn tab(port: u16) -> Socket {
        let mut request = format!("ws://127.0.0.1:{port}/ws")
            .into_client_request()
            .expect("request");
        request.headers_mut().insert(
            "Origin",
            format!("http://127.0.0.1:{port}").parse().expect("origin"),
        );
        let mut socket = connect_async(request).await.expect("connect").0;
        let (hello, proof) = nexus_e2e::proof::hello(Role::Browser, port, "test-page");
        send(&mut socket, &hello).await;
        let challenge = next(&mut socket).await;
        let prove = nexus_e2e::proof::prove(&proof, &challenge, &nexus_e2e::browser_secret())
            .expect("the hub proves the browser secret");
        send(&mut socket, &prove).await;
        assert!(matches!(next(&mut socket).await, Frame::Welcome { .. }));
        socket
    }

    fn call(id: &str, tool: &str, args: Value) -> Frame {
        let Value::Object(args) = args else {
            panic!("object args")
        };
        Frame::HostedCall {
            id: id.into(),
            tool: tool.into(),
            args,
            timeout_ms: None,
        }
    }

    /// The next `HostedResult` of `id`, and whether an `Activity` for `tool` came first.
    async fn result(socket: &mut Socket, id: &str, tool: &str) -> (Outcome, bool) {
        let mut activity = false;
        loop {
            match next(socket).await {
                Frame::Activity { agent, tool: t, .. } if agent == "ui" && t == tool => {
                    activity = true
                }
                Frame::HostedResult {
                    id: got, outcome, ..
                } if got == id => {
                    return (outcome, activity);
                }
                _ => {}
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_page_lists_and_calls_hosted_tools_and_status_reports_them() {
        let _area = nexus_e2e::Area::enter(module_path!());
        let config = json!({"mcpServers": {"m": misbehave(&[], json!({}))}});
        let host = Hosting::start(config, &[]).await;
        let mut page = tab(host.bridge.port).await;
        send(&mut page, &Frame::HostedList { watch: true }).await;
        // Pushed again on every change until `m` is online.
        loop {
            if let Frame::Hosted { registry } = next(&mut page).await {
                let servers = registry["servers"].as_array().cloned().unwrap_or_default();
                assert!(servers.iter().any(|s| s["id"] == "nexus"));
                if servers
                    .iter()
                    .any(|s| s["id"] == "m" && s["state"] == "online")
                {
                    break;
                }
            }
        }
        send(
            &mut page,
            &call("ui-1", "m:echo", json!({"message": "from the page"})),
        )
        .await;
        let (outcome, _) = result(&mut page, "ui-1", "m:echo").await;
        let Outcome::Ok(output) = outcome else {
            panic!("{outcome:?}")
        };
        let answer: Value = serde_json::from_str(&output.text).expect("result JSON");
        assert_eq!(answer["content"][0]["text"], "from the page");

        send(&mut page, &call("ui-2", "m:echo", json!({"message": 3}))).await;
        let (outcome, activity) = result(&mut page, "ui-2", "m:echo").await;
        let Outcome::Err(err) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert!(
            err.message.contains("/message: 3 is not of type"),
            "{}",
            err.message
        );
        assert!(activity, "hosted calls reach the activity feed");

        // Unqualified and unique: resolves. Unknown: the error suggests names.
        send(
            &mut page,
            &call("ui-3", "echo", json!({"message": "short"})),
        )
        .await;
        let (outcome, _) = result(&mut page, "ui-3", "m:echo").await;
        assert!(
            matches!(outcome, Outcome::Ok(ref o) if o.text.contains("short")),
            "{outcome:?}"
        );
        send(&mut page, &call("ui-4", "m:ech", json!({}))).await;
        let (outcome, _) = result(&mut page, "ui-4", "m:ech").await;
        let Outcome::Err(err) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(err.code, ErrorCode::UnknownTool);
        assert!(err.hint.unwrap_or_default().contains("m:echo"));

        // Not exposed: the bridge's MCP client sees Nexus's 16 tools only.
        let listed = host
            .bridge
            .client
            .list_all_tools()
            .await
            .expect("tools/list");
        assert_eq!(listed.len(), 16);

        // `nexus-bridge status` lists the servers and per-tool metrics.
        let output = bridge_command()
            .arg("status")
            .arg("--port")
            .arg(host.bridge.port.to_string())
            .output()
            .await
            .expect("run status");
        assert!(output.status.success(), "{output:?}");
        let status: Value = serde_json::from_slice(&output.stdout).expect("status JSON");
        let m = status["hosted"]["servers"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["id"] == "m"))
            .cloned()
            .unwrap_or_else(|| panic!("{status:#}"));
        assert_eq!(m["state"], "online");
        assert_eq!(m["tool_count"], 6);
        assert_eq!(tool(&m, "m:echo")["performance"]["calls"], 2, "{m:#}");
        assert_eq!(tool(&m, "m:hang")["performance"]["calls"], 0, "{m:#}");
    }
}

/// An MCP client that counts `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct ListChanges(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl rmcp::ClientHandler for ListChanges {
    async fn on_tool_list_changed(
        &self,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exposed_clients_hear_when_hosted_tools_appear() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let dir = TempDir::new("hosted-notify");
    let path = dir.0.join("mcp.json");
    let config = json!({"mcpServers": {"m": misbehave(&[], json!({}))}, "expose": true});
    std::fs::write(&path, config.to_string()).expect("write config");
    let mut command = bridge_command();
    command
        .arg("--port")
        .arg(free_port().to_string())
        .arg("--mcp-config")
        .arg(&path);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn nexus-bridge");
    let changes = ListChanges::default();
    let client = changes.clone().serve(transport).await.expect("initialize");
    let started = Instant::now();
    loop {
        let seen = changes.0.load(std::sync::atomic::Ordering::SeqCst);
        let tools = client.list_all_tools().await.expect("tools/list");
        if seen > 0 && tools.iter().any(|t| t.name == "m__echo") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no list_changed ({seen}) or no m__echo in {} tools",
            tools.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = client.cancel().await;
}
