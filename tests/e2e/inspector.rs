//! The MCP Inspector CLI (npm `@modelcontextprotocol/inspector`, pinned in tests/js) against the
//! built bridge, over stdio and over Streamable HTTP (`/mcp` with the bearer token): a real
//! third-party MCP client lists the tools and makes a call.

use std::process::Command;
use std::time::{Duration, Instant};

use nexus_e2e::{McpBridge, TempDir, bridge_bin, free_port, ui_dir, workspace_root};

/// The Inspector's CLI run by the pinned Node (the Inspector needs Node ≥ 22.19).
fn inspector_command() -> Command {
    let js = workspace_root().join("tests/js");
    let launcher =
        js.join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    assert!(
        launcher.exists(),
        "MCP Inspector is not installed: run scripts/setup.sh"
    );
    let pinned = js.join("node_modules/node/bin/node");
    let mut command = Command::new(if pinned.exists() {
        pinned
    } else {
        "node".into()
    });
    command.current_dir(&js).arg(launcher).arg("--cli");
    command
}

/// The Inspector's JSON answer (stdout). It exits 1 for a call answered with `isError`, so only
/// a listing must exit 0.
fn run(mut command: Command, listing: bool) -> serde_json::Value {
    let output = command.output().expect("run the MCP Inspector");
    assert!(
        output.status.success() || !listing,
        "inspector failed: {}{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "inspector printed no JSON ({err}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// The Inspector starting the bridge over stdio, with `method_args`.
fn inspector(port: u16, method_args: &[&str]) -> serde_json::Value {
    let mut command = inspector_command();
    command
        .arg(bridge_bin())
        .args(["--port", &port.to_string()])
        .args(method_args)
        .arg("-e")
        .arg(format!("NEXUS_UI_DIR={}", ui_dir().display()));
    run(command, method_args.contains(&"tools/list"))
}

/// The Inspector against a running bridge's `/mcp`, with the given `Authorization` value.
fn inspector_http(port: u16, authorization: &str, method_args: &[&str]) -> std::process::Output {
    let mut command = inspector_command();
    command
        .arg(format!("http://127.0.0.1:{port}/mcp"))
        .args(["--transport", "http"])
        .arg("--header")
        .arg(format!("Authorization: {authorization}"))
        .args(method_args);
    command.output().expect("run the MCP Inspector")
}

fn assert_seventeen_tools(listed: &serde_json::Value) {
    let tools = listed["tools"].as_array().expect("tools array");
    assert_eq!(tools.len(), 17, "{listed:#}");
    assert!(tools.iter().all(|t| t["inputSchema"]["type"] == "object"));
}

#[test]
fn inspector_lists_seventeen_tools_and_calls_one() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let listed = inspector(free_port(), &["--method", "tools/list"]);
    assert_seventeen_tools(&listed);
    let tools = listed["tools"].as_array().expect("tools array");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let size = serde_json::json!({ "tools": tools }).to_string().len();
    assert!(size <= 8 * 1024, "tools/list is {size} bytes: {names:?}");

    let port = free_port();
    let called = inspector(
        port,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "context",
            "--tool-arg",
            "focus=stats",
        ],
    );
    assert_eq!(called["isError"], true);
    let text = called["content"][0]["text"].as_str().unwrap_or_default();
    // The hint names the command that prints the link, never the link with its secret.
    assert!(
        text.contains("NO_BROWSER")
            && text.contains(&format!("nexus-bridge status --link --port {port}"))
            && !text.contains("token="),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspector_over_http_lists_seventeen_tools_and_needs_the_token() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let data = TempDir::new("inspector-http");
    let data_home = data.0.display().to_string();
    let port = free_port();
    let bridge = McpBridge::start_with_env(port, &[], &[("XDG_DATA_HOME", &data_home)]).await;
    let token_path = data.0.join("nexus/mcp-token");
    let started = Instant::now();
    let token = loop {
        match std::fs::read_to_string(&token_path) {
            Ok(text) if text.trim().len() == 64 => break text.trim().to_owned(),
            _ => {
                assert!(started.elapsed() < Duration::from_secs(10), "no MCP token");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    };
    let bearer = format!("Bearer {token}");

    let listed =
        tokio::task::block_in_place(|| inspector_http(port, &bearer, &["--method", "tools/list"]));
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    assert_seventeen_tools(&listed);
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"find_usages") && names.contains(&"context"),
        "{names:?}"
    );

    let called = tokio::task::block_in_place(|| {
        inspector_http(
            port,
            &bearer,
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "context",
                "--tool-arg",
                "focus=stats",
            ],
        )
    });
    let called: serde_json::Value = serde_json::from_slice(&called.stdout).expect("JSON");
    assert_eq!(called["isError"], true, "{called:#}");
    let text = called["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("NO_BROWSER"), "{text}");

    let refused = tokio::task::block_in_place(|| {
        inspector_http(port, "Bearer not-the-token", &["--method", "tools/list"])
    });
    assert!(!refused.status.success(), "a wrong token was accepted");
    bridge.stop().await;
}
