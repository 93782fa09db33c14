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

/// `config` with every tool allowed to run unasked (top-level `allow: ["*"]`) unless it states a
/// policy: these tests are about hosting, not confirmation.
fn allow_all(mut config: Value) -> Value {
    if let Value::Object(root) = &mut config
        && !["allow", "confirm", "deny"]
            .iter()
            .any(|k| root.contains_key(*k))
    {
        root.insert("allow".into(), json!(["*"]));
    }
    config
}

/// A bridge hosting `config`, with its stderr kept in a file for log checks.
struct Hosting {
    bridge: McpBridge,
    stderr: PathBuf,
    /// Holds `mcp.json` and the log.
    dir: TempDir,
}

/// How a test starts the bridge beyond its config: extra variables and the folder it runs in.
#[derive(Default)]
struct Launch<'a> {
    env: &'a [(&'a str, &'a str)],
    cwd: Option<&'a Path>,
    /// Programs copied beside `mcp.json` (name, source), executable.
    beside: &'a [(&'a str, &'a Path)],
}

impl Hosting {
    async fn start(config: Value, extra: &[&str]) -> Hosting {
        Self::start_on(free_port(), config, extra).await
    }

    async fn start_on(port: u16, config: Value, extra: &[&str]) -> Hosting {
        Self::start_with(port, config, extra, Launch::default()).await
    }

    async fn start_with(port: u16, config: Value, extra: &[&str], launch: Launch<'_>) -> Hosting {
        let dir = TempDir::new("hosted");
        let path = dir.0.join("mcp.json");
        std::fs::write(&path, allow_all(config).to_string()).expect("write config");
        for (name, source) in launch.beside {
            use std::os::unix::fs::PermissionsExt;
            let copy = dir.0.join(name);
            std::fs::copy(source, &copy).expect("copy beside the config");
            std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755))
                .expect("make it executable");
        }
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
            .env("NEXUS_LOG", "info")
            // Hosted servers' private folders go to the test's folder, not the user's.
            .env("XDG_DATA_HOME", dir.0.join("data"))
            .envs(launch.env.iter().copied());
        if let Some(cwd) = launch.cwd {
            command.current_dir(cwd);
        }
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
            dir,
        }
    }

    async fn hosted(&self) -> Value {
        self.bridge.health().await["hosted"].clone()
    }

    async fn server(&self, id: &str) -> Value {
        server_in(&self.hosted().await, id)
    }

    /// Waits until server `id` is `failed`, and checks its last error says `why`.
    async fn failed_with(&self, id: &str, within: Duration, why: &str) {
        let server = server_in(&self.wait_state(&[id], "failed", within).await, id);
        assert!(
            server["last_error"].as_str().unwrap_or("").contains(why),
            "{server:#}"
        );
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

    // One registry: qualified names, Nexus's own 17 as the server `nexus`, metrics per tool.
    let servers = hosted["servers"].as_array().expect("servers");
    let nexus = servers.iter().find(|s| s["id"] == "nexus").expect("nexus");
    assert_eq!(nexus["tool_count"], 17);
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
async fn a_tool_over_its_rate_limit_fails_clearly_and_a_saved_file_changes_the_limit() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let settings = TempDir::new("rate-limits");
    let file = settings.0.join("nexus.toml");
    std::fs::write(&file, "[rate_limits]\n\"everything:echo\" = 2\n").expect("write nexus.toml");
    let config = json!({"servers": {"everything": {"transport": "stdio",
        "command": node_bin("mcp-server-everything"), "args": ["stdio"]}}});
    let path = file.to_str().expect("a UTF-8 path");
    let host = Hosting::start(config, &["--expose-hosted", "--config", path]).await;
    host.wait_state(&["everything"], "online", Duration::from_secs(30))
        .await;
    let echo = || host.call("everything__echo", json!({"message": "hi"}));
    ok_text(&echo().await);
    ok_text(&echo().await);
    let text = err_text(&echo().await);
    assert!(text.contains("RateLimited"), "{text}");
    assert!(
        text.contains("`everything:echo` may run at most 2 times a minute"),
        "{text}"
    );
    assert!(text.contains("retry in about"), "{text}");
    // Other tools keep their own count (none here).
    ok_text(
        &host
            .call("everything__get-sum", json!({"a": 2, "b": 3}))
            .await,
    );
    // A saved file changes the limit while the bridge runs.
    std::fs::write(&file, "[rate_limits]\n\"everything:*\" = 5\n").expect("rewrite nexus.toml");
    let started = Instant::now();
    loop {
        let result = echo().await;
        if result.is_error != Some(true) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the new limit was not picked up: {}",
            text_of(&result)
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
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
    let short = &server_in(&hosted, "short");
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
    assert_eq!(listed.len(), 17);
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

        // A result whose frame would pass the cap (quotes double with each escaping) comes cut,
        // with a note, in a frame the page accepts.
        let quotes = "\"".repeat(300_000);
        send(
            &mut page,
            &call("ui-5", "m:echo", json!({"message": quotes})),
        )
        .await;
        let frame_bytes = loop {
            let message = tokio::time::timeout(Duration::from_secs(20), page.next())
                .await
                .expect("no frame within 20 s")
                .expect("socket open")
                .expect("socket ok");
            let Message::Text(text) = message else {
                continue;
            };
            if let Ok(Frame::HostedResult { id, outcome, .. }) = Frame::decode(text.as_str())
                && id == "ui-5"
            {
                let Outcome::Ok(output) = outcome else {
                    panic!("{outcome:?}")
                };
                assert!(
                    output.text.contains("[cut: the result is 300000 bytes"),
                    "cut without a note"
                );
                break text.len();
            }
        };
        assert!(
            frame_bytes <= nexus_shared::limits::MAX_FRAME_BYTES,
            "{frame_bytes}"
        );

        // Not exposed: the bridge's MCP client sees Nexus's 17 tools only.
        let listed = host
            .bridge
            .client
            .list_all_tools()
            .await
            .expect("tools/list");
        assert_eq!(listed.len(), 17);

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
        let m = server_in(&status["hosted"], "m");
        assert_eq!(m["state"], "online");
        assert_eq!(m["tool_count"], 6);
        assert_eq!(tool(&m, "m:echo")["performance"]["calls"], 3, "{m:#}");
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

/// An agent's MCP client whose user answers every elicitation with `run: yes`, or declines.
#[derive(Clone)]
struct Elicitor {
    yes: bool,
    protocol: rmcp::model::ProtocolVersion,
    asked: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl rmcp::ClientHandler for Elicitor {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut capabilities = rmcp::model::ClientCapabilities::default();
        capabilities.elicitation = Some(
            rmcp::model::ElicitationCapability::new()
                .with_form(rmcp::model::FormElicitationCapability::default()),
        );
        rmcp::model::ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("elicitor", "1.0.0"),
        )
        .with_protocol_version(self.protocol.clone())
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        if let rmcp::model::ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(message.clone());
        }
        Ok(if self.yes {
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                .with_content(json!({"run": true}))
        } else {
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Decline)
        })
    }
}

/// `py` (no annotations: its tools need confirmation) with `huge` denied, exposed to agents.
fn confirming_config() -> Value {
    json!({"servers": {"py": misbehave(&[], json!({}))}, "expose": true, "deny": ["py:huge"]})
}

#[tokio::test]
async fn exposed_tools_follow_the_policy_denied_hidden_confirmed_by_elicitation_or_refused() {
    let _area = nexus_e2e::Area::enter(module_path!());
    // A client that cannot ask its user: the tool is listed but refused, naming the setting.
    let host = Hosting::start(confirming_config(), &[]).await;
    host.wait_state(&["py"], "online", Duration::from_secs(20))
        .await;
    let listed = host
        .bridge
        .client
        .list_all_tools()
        .await
        .expect("tools/list");
    let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
    assert!(names.contains(&"py__echo".to_owned()), "{names:?}");
    assert!(
        !names.iter().any(|n| n == "py__huge"),
        "denied but listed: {names:?}"
    );
    let refused = err_text(&host.call("py__echo", json!({"message": "hi"})).await);
    assert!(
        refused.contains("needs the user's confirmation")
            && refused.contains("add \"echo\" to `allow` of server `py` in"),
        "{refused}"
    );
    let hidden = err_text(&host.call("py__huge", json!({"bytes": 10})).await);
    assert!(hidden.contains("`py:huge` is denied"), "{hidden}");
    // A peer exposes the hub's tools under the same policy.
    let peer = Hosting::start_on(host.bridge.port, confirming_config(), &[]).await;
    peer.bridge.wait_mode("peer", Duration::from_secs(10)).await;
    let started = Instant::now();
    let names = loop {
        let listed = peer
            .bridge
            .client
            .list_all_tools()
            .await
            .expect("tools/list");
        let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
        if names.iter().any(|n| n == "py__echo") || started.elapsed() > Duration::from_secs(10) {
            break names;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(names.contains(&"py__echo".to_owned()), "{names:?}");
    assert!(
        !names.iter().any(|n| n == "py__huge"),
        "the peer lists a denied tool: {names:?}"
    );
    let refused = err_text(&peer.call("py__echo", json!({"message": "hi"})).await);
    assert!(
        refused.contains("needs the user's confirmation"),
        "{refused}"
    );

    // Clients that can ask: yes runs it, no refuses it; both protocol generations (a question in
    // the call's result and the client's retry, and `elicitation/create` during the call).
    for protocol in [
        rmcp::model::ProtocolVersion::V_2026_07_28,
        rmcp::model::ProtocolVersion::V_2025_06_18,
    ] {
        for yes in [true, false] {
            let dir = TempDir::new("hosted-elicit");
            let path = dir.0.join("mcp.json");
            std::fs::write(&path, confirming_config().to_string()).expect("write config");
            let port = free_port();
            let mut command = bridge_command();
            command
                .arg("--port")
                .arg(port.to_string())
                .arg("--mcp-config")
                .arg(&path);
            let (transport, _) = TokioChildProcess::builder(command)
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn nexus-bridge");
            let elicitor = Elicitor {
                yes,
                protocol: protocol.clone(),
                asked: Default::default(),
            };
            let client = elicitor.clone().serve(transport).await.expect("initialize");
            let started = Instant::now();
            let mut params = CallToolRequestParams::new("py__echo");
            if let Value::Object(args) = json!({"message": "confirmed"}) {
                params = params.with_arguments(args);
            }
            let result = loop {
                let result = client.call_tool(params.clone()).await.expect("tools/call");
                // The hosted server may still be starting.
                if !text_of(&result).contains("no tool")
                    || started.elapsed() > Duration::from_secs(20)
                {
                    break result;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            };
            let asked = elicitor.asked.lock().map(|a| a.clone()).unwrap_or_default();
            assert_eq!(asked.len(), 1, "{protocol:?} {yes}: {asked:?}");
            assert!(
                asked[0].contains("`py:echo`") && asked[0].contains("\"message\": \"confirmed\""),
                "{}",
                asked[0]
            );
            if yes {
                assert!(ok_text(&result).contains("confirmed"), "{protocol:?}");
            } else {
                assert!(
                    err_text(&result).contains("the user declined `py:echo`"),
                    "{protocol:?}"
                );
            }
            let _ = client.cancel().await;
        }
    }
}

/// A 2026-07-28 agent's MCP client whose user fills in every form with `answer` (rmcp's client
/// answers an `input_required` result through `create_elicitation` and retries the call).
#[derive(Clone)]
struct FormFiller {
    answer: Value,
    asked: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl rmcp::ClientHandler for FormFiller {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut capabilities = rmcp::model::ClientCapabilities::default();
        capabilities.elicitation = Some(
            rmcp::model::ElicitationCapability::new()
                .with_form(rmcp::model::FormElicitationCapability::default()),
        );
        rmcp::model::ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("form-filler", "1.0.0"),
        )
        .with_protocol_version(rmcp::model::ProtocolVersion::V_2026_07_28)
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        if let rmcp::model::ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(message.clone());
        }
        Ok(
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                .with_content(self.answer.clone()),
        )
    }
}

#[tokio::test]
async fn a_hosted_servers_question_reaches_a_2026_agent_through_input_required_rounds() {
    let _area = nexus_e2e::Area::enter(module_path!());
    // server-everything asks `elicitation/create` during the call; the agent speaks 2026-07-28,
    // which takes no requests during a call: the bridge parks the call and asks in its result.
    let config = json!({
        "servers": {"everything": {"command": node_bin("mcp-server-everything"), "args": ["stdio"],
                                   "allow": ["trigger-elicitation-request"]}},
        "expose": true
    });
    let dir = TempDir::new("hosted-rounds");
    let path = dir.0.join("mcp.json");
    std::fs::write(&path, config.to_string()).expect("write config");
    let port = free_port();
    let mut command = bridge_command();
    command
        .arg("--port")
        .arg(port.to_string())
        .arg("--mcp-config")
        .arg(&path);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn nexus-bridge");
    let user = FormFiller {
        answer: json!({"name": "Ada"}),
        asked: Default::default(),
    };
    let client = user.clone().serve(transport).await.expect("discover");
    let params = CallToolRequestParams::new("everything__trigger-elicitation-request");
    let started = Instant::now();
    let result = loop {
        let result = client.call_tool(params.clone()).await.expect("tools/call");
        // The hosted server may still be starting.
        if !text_of(&result).contains("no tool") || started.elapsed() > Duration::from_secs(30) {
            break result;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let asked = user.asked.lock().map(|a| a.clone()).unwrap_or_default();
    assert_eq!(
        asked,
        ["Please provide inputs for the following fields:"],
        "the server's own question, once"
    );
    let text = ok_text(&result);
    // The user's answer, with the form's defaults for what it left out (SEP-1034).
    assert!(
        text.contains("- Name: Ada") && text.contains("- Favorite Integer: 42"),
        "{text}"
    );
    let _ = client.cancel().await;
}

/// Provider keys the bridge is started with in the least-privilege test; none may reach a server.
const PROVIDER_KEYS: [(&str, &str); 4] = [
    ("ANTHROPIC_API_KEY", "sk-ant-e2e-key-0123456789"),
    ("OPENAI_API_KEY", "sk-openai-e2e-key-0123456789"),
    ("GEMINI_API_KEY", "gemini-e2e-key-0123456789"),
    ("NEXUS_EMBED_API_KEY", "embed-e2e-key-0123456789"),
];

fn read_dump(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("{} not written: {err}", path.display()));
    serde_json::from_str(&text).expect("dump is JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hosted_servers_get_a_private_folder_and_no_provider_key() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let project = TempDir::new("hosted-project");
    std::fs::write(
        project.0.join("decoy.py"),
        "raise SystemExit('ran the repository')",
    )
    .expect("decoy");
    let data = TempDir::new("hosted-data");
    let dumps = TempDir::new("hosted-dumps");
    let plain_dump = dumps.0.join("plain.json");
    let rel_dump = dumps.0.join("rel.json");
    let data_home = data.0.display().to_string();
    let mut env: Vec<(&str, &str)> = PROVIDER_KEYS.to_vec();
    env.extend([
        ("XDG_DATA_HOME", data_home.as_str()),
        ("NEXUS_LLM_PROVIDER", "anthropic"),
        // A key under an inherited name is still not passed on.
        ("LC_SMUGGLED", PROVIDER_KEYS[0].1),
    ]);
    let config = json!({"mcpServers": {
        "plain": misbehave(
            &["--dump-env", &plain_dump.display().to_string()],
            json!({"PASSED": "configured"})
        ),
        "rel": {"command": "./misbehave.py", "cwd": ".",
                "args": ["--dump-env", rel_dump.display().to_string()]}
    }});
    let script = root().join("tests/servers/misbehave.py");
    let launch = Launch {
        env: &env,
        cwd: Some(&project.0),
        beside: &[("misbehave.py", &script)],
    };
    let host = Hosting::start_with(free_port(), config, &[], launch).await;
    host.wait_state(&["plain", "rel"], "online", Duration::from_secs(30))
        .await;

    let plain = read_dump(&plain_dump);
    let cwd = PathBuf::from(plain["cwd"].as_str().expect("cwd"));
    let private = data.0.join("nexus/hosted/plain");
    assert_eq!(
        cwd.canonicalize().expect("cwd exists"),
        private.canonicalize().expect("private folder exists"),
        "not the bridge's folder {}",
        project.0.display()
    );
    assert_eq!(plain["cwd_entries"], json!([]), "an empty folder");
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &Path| std::fs::metadata(path).expect("mode").permissions().mode() & 0o777;
    assert_eq!(mode(&private), 0o700);
    assert_eq!(mode(&data.0.join("nexus")), 0o700);

    let child_env = plain["env"].as_object().expect("env");
    let text = plain["env"].to_string();
    for (name, key) in PROVIDER_KEYS {
        assert!(!child_env.contains_key(name), "{name} reached the server");
        assert!(
            !text.contains(key),
            "the value of {name} reached the server"
        );
    }
    let names: Vec<&str> = child_env.keys().map(String::as_str).collect();
    assert!(
        names
            .iter()
            .all(|n| !n.starts_with("NEXUS_") && *n != "XDG_RUNTIME_DIR"),
        "{names:?}"
    );
    assert_eq!(
        child_env["PASSED"], "configured",
        "the server's own env is passed"
    );
    assert!(
        child_env.contains_key("PATH") && child_env.contains_key("HOME"),
        "{names:?}"
    );

    // A relative command and `cwd` resolve beside the config file, not in the bridge's folder.
    let rel = read_dump(&rel_dump);
    let rel_cwd = PathBuf::from(rel["cwd"].as_str().expect("cwd"));
    assert_eq!(
        rel_cwd.canonicalize().expect("cwd exists"),
        host.dir.0.canonicalize().expect("config folder")
    );
    let log = host.log();
    for (_, key) in PROVIDER_KEYS {
        assert!(!log.contains(key), "a key reached the log");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_lines_and_silent_discovery_fail_the_server_and_memory_stays_bounded() {
    let _area = nexus_e2e::Area::enter(module_path!());
    const GIB: &str = "1073741824";
    let mut silent = misbehave(&["--no-list"], json!({}));
    silent["startTimeoutMs"] = json!(1000);
    let config = json!({"mcpServers": {
        "longout": misbehave(&["--long-stdout", GIB], json!({})),
        "longerr": misbehave(&["--long-stderr", GIB], json!({})),
        "nolist": silent,
    }});
    let started = Instant::now();
    let host = Hosting::start(config, &["--expose-hosted"]).await;
    host.failed_with(
        "nolist",
        Duration::from_secs(10),
        "not `tools/list` and `prompts/get` within 1000 ms",
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    host.failed_with(
        "longout",
        Duration::from_secs(30),
        "stdout line longer than 8388608 bytes",
    )
    .await;
    // A gigabyte on stderr is read and dropped: the server comes up and answers.
    host.wait_state(&["longerr"], "online", Duration::from_secs(120))
        .await;
    let echo = host
        .call("longerr__echo", json!({"message": "after a long line"}))
        .await;
    assert_eq!(ok_text(&echo), "after a long line");
    let log = host.log();
    // The whole gigabyte went through: 4 KiB logged, the rest counted.
    assert!(
        log.contains("(1073737728 more bytes not logged)"),
        "stderr line not cut"
    );
    assert!(log.len() < 1_000_000, "the log holds {} bytes", log.len());

    let status = std::fs::read_to_string(format!("/proc/{}/status", host.bridge.pid))
        .expect("bridge status");
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    eprintln!("bridge peak RSS (VmHWM): {peak_kb} kB");
    assert!(peak_kb < 200 * 1024, "peak RSS {peak_kb} kB");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_never_answered_leaves_the_old_list_and_the_server_working() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let mut server = misbehave(&["--no-relist"], json!({}));
    server["startTimeoutMs"] = json!(1000);
    let host = Hosting::start(json!({"mcpServers": {"m": server}}), &["--expose-hosted"]).await;
    host.wait_state(&["m"], "online", Duration::from_secs(30))
        .await;
    ok_text(&host.call("m__grow", json!({})).await);
    // The re-list waits beside the session: calls go on meanwhile, and after the deadline the
    // old list stays.
    let echo = host.call("m__echo", json!({"message": "meanwhile"})).await;
    assert_eq!(ok_text(&echo), "meanwhile");
    let started = Instant::now();
    while !host.log().contains("got no answer within 1000 ms") {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{}",
            host.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let m = host.server("m").await;
    assert_eq!(m["state"], "online", "{m:#}");
    assert_eq!(m["tool_count"], 6, "{m:#}");
}

/// Server `id`'s entry in a health report's hosted part, or null.
fn server_in(hosted: &Value, id: &str) -> Value {
    hosted["servers"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["id"] == id).cloned())
        .unwrap_or(Value::Null)
}
