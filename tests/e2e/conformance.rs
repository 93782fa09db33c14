//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`, pinned in
//! `tests/js/package.json`) runs its server scenarios against a real bridge's `/mcp`.
//!
//! Each scenario's result is printed (run with `--nocapture` to read them). Scenarios that need
//! the suite's fixture tools, prompts and resources (`test_image_content`, `test://static-text`, …)
//! fail: the bridge serves Nexus's tools only. The scenarios the bridge passes are held here, so a
//! regression fails the test; a scenario that starts passing is reported to be added.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use nexus_e2e::{McpBridge, TempDir, free_port, workspace_root};

/// Scenarios the bridge passes without fixtures, by requirement set.
const PASSING: &[(&str, &[&str])] = &[
    (
        "active",
        &[
            "completion-complete",
            "dns-rebinding-protection",
            "ping",
            "prompts-list",
            "resources-list",
            "server-initialize",
            "server-session-lifecycle",
            "server-sse-multiple-streams",
            "tools-call-error",
            "tools-call-simple-text",
            "tools-list",
        ],
    ),
    (
        "2026-07-28",
        &[
            "caching",
            "completion-complete",
            "dns-rebinding-protection",
            "http-header-validation",
            "input-required-result-ignore-extra-params",
            "input-required-result-missing-input-response",
            "input-required-result-unsupported-methods",
            "input-required-result-validate-input",
            "prompts-list",
            "resources-list",
            "sep-2164-resource-not-found",
            "server-sse-multiple-streams",
            "tools-call-error",
            "tools-call-simple-text",
            "tools-list",
        ],
    ),
];

/// Runs the suite once; returns each scenario's line (`PASS …` or `FAIL …`) by name.
fn run_suite(port: u16, token_file: &std::path::Path, set: &str) -> BTreeMap<String, String> {
    let js = workspace_root().join("tests/js");
    assert!(
        js.join("node_modules/@modelcontextprotocol/conformance")
            .exists(),
        "the conformance suite is not installed: run scripts/setup.sh"
    );
    let output_dir = TempDir::new("conformance");
    let mut command = Command::new("node");
    command
        .current_dir(&js)
        .arg("conformance-run.mjs")
        .arg(port.to_string())
        .arg(token_file)
        .arg(&output_dir.0);
    if set != "active" {
        command.args(["--requirements", set]);
    }
    let output = command.output().expect("run node conformance-run.mjs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        stdout.contains("suite exit"),
        "the suite did not run: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .filter_map(|line| line.strip_prefix("scenario "))
        .filter_map(|line| line.split_once(' '))
        .map(|(name, rest)| (name.to_owned(), rest.to_owned()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_conformance_suite_runs_against_mcp_over_http() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let data = TempDir::new("conformance-data");
    let data_home = data.0.display().to_string();
    let port = free_port();
    let bridge = McpBridge::start_with_env(port, &[], &[("XDG_DATA_HOME", &data_home)]).await;
    let token_file = data.0.join("nexus/mcp-token");
    let started = Instant::now();
    while !token_file.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no MCP token file"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let mut regressions = Vec::new();
    for (set, passing) in PASSING {
        let results = run_suite(port, &token_file, set);
        let passed = results.values().filter(|r| r.starts_with("PASS")).count();
        eprintln!(
            "conformance ({set}): {passed} of {} scenarios pass",
            results.len()
        );
        for (name, result) in &results {
            eprintln!("  {name} {result}");
            if result.starts_with("PASS") && !passing.contains(&name.as_str()) {
                eprintln!("    (now passes: add it to PASSING)");
            }
        }
        for name in *passing {
            match results.get(*name) {
                Some(result) if result.starts_with("PASS") => {}
                other => regressions.push(format!("{set}/{name}: {other:?}")),
            }
        }
    }
    bridge.stop().await;
    assert!(regressions.is_empty(), "{regressions:#?}");
}
