//! The UI as a person uses it: the real bridge serves a fixture repository and the built UI,
//! and a playwright-core script in headless Chromium searches, clicks a node in the graph, reads
//! code, runs Cypher, follows a process, asks a question and watches an agent's call light up,
//! checking the DOM at each step and taking screenshots it checks are not blank.

use std::process::Command;

use nexus_e2e::{bridge_bin, free_port, ui_dir, workspace_root};

#[test]
fn a_person_walks_the_graph_through_the_ui() {
    let root = workspace_root();
    let shots = root.join("target/ui-screenshots");
    let output = Command::new("node")
        .arg(root.join("tests/js/ui-test.mjs"))
        .arg("--repo")
        .arg(root.join("examples/sample-shop"))
        .arg("--ui")
        .arg(ui_dir())
        .arg("--bridge")
        .arg(bridge_bin())
        .arg("--port")
        .arg(free_port().to_string())
        .arg("--shots")
        .arg(&shots)
        .output()
        .expect("node runs (scripts/setup.sh installs it)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("ui test passed"), "{stdout}\n{stderr}");
    for shot in [
        "1-loaded-dark",
        "2-selected",
        "3-code",
        "4-cypher",
        "5-activity",
    ] {
        assert!(
            shots.join(format!("{shot}.png")).is_file(),
            "{shot} missing"
        );
    }
}
