//! The UI's Tools panel against a real hosted server: a bridge with an `mcp.json` hosting
//! `server-everything` over stdio, driven in headless Chromium by `tests/js/tools-test.mjs`.

use nexus_e2e::{TempDir, run_js_on_sample};
use serde_json::json;

use crate::hosted::node_bin;

#[test]
fn a_person_calls_a_hosted_tool_from_the_tools_panel() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let dir = TempDir::new("tools-ui");
    let config = dir.0.join("mcp.json");
    let servers = json!({"servers": {"everything": {"transport": "stdio",
        "command": node_bin("mcp-server-everything"), "args": ["stdio"]}}});
    std::fs::write(&config, servers.to_string()).expect("write mcp.json");
    let stdout = run_js_on_sample("tools-test.mjs", &["--config".as_ref(), config.as_os_str()]);
    for step in [
        "ok  the Tools tab lists the hosted server online with its tools",
        "ok  calling echo shows the echoed text",
        "tools test passed",
    ] {
        assert!(stdout.contains(step), "{step} missing:\n{stdout}");
    }
}
