//! Reload restores the graph: the real bridge serves a repository, the real UI in headless
//! Chromium (driven by playwright-core) indexes it and saves a snapshot to IndexedDB, and after a
//! page reload the worker restores that snapshot instead of indexing again.

use std::process::Command;

use nexus_e2e::{bridge_bin, free_port, ui_dir, workspace_root};

#[test]
fn a_reloaded_page_restores_the_saved_graph() {
    let root = workspace_root();
    let output = Command::new("node")
        .arg(root.join("tests/js/browser-bench.mjs"))
        .arg("--repo")
        .arg(root.join("examples/sample-shop"))
        .arg("--ui")
        .arg(ui_dir())
        .arg("--bridge")
        .arg(bridge_bin())
        .args([
            "--port",
            &free_port().to_string(),
            "--reloads",
            "2",
            "--check",
        ])
        .output()
        .expect("node runs (scripts/setup.sh installs it)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("saved to browser storage"),
        "{stdout}\n{stderr}"
    );
    assert_eq!(
        stdout.matches("restored in").count(),
        2,
        "{stdout}\n{stderr}"
    );
}
