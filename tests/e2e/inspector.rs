//! The MCP Inspector CLI (npm `@modelcontextprotocol/inspector`) against the built bridge:
//! a real third-party MCP client lists the tools and makes a call.

use std::process::Command;

use nexus_e2e::{bridge_bin, free_port, ui_dir, workspace_root};

fn inspector(port: u16, method_args: &[&str]) -> serde_json::Value {
    let js = workspace_root().join("tests/js");
    assert!(
        js.join("node_modules/.bin/mcp-inspector").exists(),
        "MCP Inspector is not installed: run scripts/setup.sh"
    );
    let output = Command::new("npx")
        .current_dir(&js)
        .args(["--no-install", "mcp-inspector", "--cli"])
        .arg(bridge_bin())
        .args(["--port", &port.to_string()])
        .args(method_args)
        .env("NEXUS_UI_DIR", ui_dir())
        .output()
        .expect("run npx mcp-inspector");
    assert!(
        output.status.success(),
        "inspector failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "inspector printed no JSON ({err}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

#[test]
fn inspector_lists_seventeen_tools_and_calls_one() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let listed = inspector(free_port(), &["--method", "tools/list"]);
    let tools = listed["tools"].as_array().expect("tools array");
    assert_eq!(tools.len(), 17);
    assert!(tools.iter().all(|t| t["inputSchema"]["type"] == "object"));
    let size = listed.to_string().len();
    assert!(size <= 8 * 1024, "tools/list is {size} bytes");

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
