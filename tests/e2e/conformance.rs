//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`, pinned in
//! `tests/js/package.json`) in both directions: its server scenarios against `/mcp` of a bridge
//! built with the suite's fixtures (`nexus-bridge-conformance`, feature `conformance-fixtures`),
//! and its client scenarios against the bridge's MCP host (`conformance-client`, tests/src/bin).
//!
//! The suite judges each run against an expected-failures file in `tests/conformance/` (a
//! failure not listed, or a listed one that now passes, fails its run); every scenario's result
//! is printed (`--nocapture` to read them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use nexus_e2e::{McpBridge, TempDir, bridge_bin, bridge_command_of, free_port, workspace_root};

/// The server runs: the suite's `active` scenarios (2025-11-25 wire) and what 2026-07-28 requires.
const SERVER_RUNS: &[(&str, &[&str])] = &[
    ("active", &[]),
    ("2026-07-28", &["--requirements", "2026-07-28"]),
];

/// The client scenarios that apply to how Nexus hosts servers (an HTTP server named in mcp.json,
/// with a static bearer at most), with the spec version each runs at. Left out: `auth/*`, the
/// OAuth flows (Nexus's host sends a bearer from the environment and does no OAuth), and the
/// `sep-2640-*` skills extension (Nexus hosts no skills).
const CLIENT_SCENARIOS: &[&str] = &[
    "initialize@2025-11-25",
    "tools_call",
    "sse-retry@2025-11-25",
    "elicitation-sep1034-client-defaults@2025-11-25",
    "request-metadata",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
    "sep-2322-client-request-state",
];

fn js_dir() -> PathBuf {
    let js = workspace_root().join("tests/js");
    assert!(
        js.join("node_modules/@modelcontextprotocol/conformance")
            .exists(),
        "the conformance suite is not installed: run scripts/setup.sh"
    );
    js
}

/// The expected-failures file of a run (`tests/conformance/<name>.yaml`).
fn expected_failures(name: &str) -> PathBuf {
    let path = workspace_root().join(format!("tests/conformance/{name}.yaml"));
    assert!(path.is_file(), "{} is missing", path.display());
    path
}

/// `nexus-bridge-conformance`, built (or found fresh) beside the bridge the tests use.
fn conformance_bridge() -> PathBuf {
    let bin = bridge_bin().with_file_name("nexus-bridge-conformance");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(workspace_root())
        .args([
            "build",
            "--locked",
            "-p",
            "nexus-bridge",
            "--features",
            "conformance-fixtures",
            "--bin",
            "nexus-bridge-conformance",
        ])
        .status()
        .expect("run cargo build");
    assert!(status.success(), "building nexus-bridge-conformance failed");
    assert!(bin.is_file(), "{} is missing", bin.display());
    bin
}

/// Each scenario's line (`PASS …` or `FAIL …`) by name, and the suite's verdict lines.
struct Run {
    scenarios: BTreeMap<String, String>,
    verdict: Vec<String>,
    stdout: String,
}

fn parse(stdout: String) -> Run {
    let scenarios = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("scenario "))
        .filter_map(|line| line.split_once(' '))
        .map(|(name, rest)| (name.to_owned(), rest.to_owned()))
        .collect();
    let verdict = stdout
        .lines()
        .filter(|line| line.starts_with("exit ") || line.starts_with("suite exit"))
        .map(str::to_owned)
        .collect();
    Run {
        scenarios,
        verdict,
        stdout,
    }
}

fn run_server_suite(port: u16, token_file: &Path, name: &str, args: &[&str]) -> Run {
    let output_dir = TempDir::new("conformance");
    let output = Command::new("node")
        .current_dir(js_dir())
        .arg("conformance-run.mjs")
        .arg(port.to_string())
        .arg(token_file)
        .arg(&output_dir.0)
        .arg("--expected-failures")
        .arg(expected_failures(&format!("server-{name}")))
        .args(args)
        .output()
        .expect("run node conformance-run.mjs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        stdout.contains("suite exit"),
        "the suite did not run: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    parse(stdout)
}

fn print(direction: &str, run: &Run) {
    let passed = run
        .scenarios
        .values()
        .filter(|r| r.starts_with("PASS"))
        .count();
    eprintln!(
        "conformance ({direction}): {passed} of {} scenarios pass",
        run.scenarios.len()
    );
    for (name, result) in &run.scenarios {
        eprintln!("  {name} {result}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_conformance_suite_passes_against_mcp_over_http() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let bin = conformance_bridge();
    let data = TempDir::new("conformance-data");
    let data_home = data.0.display().to_string();
    let port = free_port();
    let mut command = bridge_command_of(&bin);
    command.env("XDG_DATA_HOME", &data_home);
    let bridge = McpBridge::start_command(command, port).await;
    let token_file = data.0.join("nexus/mcp-token");
    let started = Instant::now();
    while !token_file.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no MCP token file"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Both runs at once: most of a run is waiting on the bridge.
    let runs = tokio::task::block_in_place(|| {
        std::thread::scope(|scope| {
            let handles: Vec<_> = SERVER_RUNS
                .iter()
                .map(|(name, args)| {
                    let token_file = &token_file;
                    scope.spawn(move || (*name, run_server_suite(port, token_file, name, args)))
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().expect("suite thread"))
                .collect::<Vec<_>>()
        })
    });
    let mut failed = Vec::new();
    for (name, run) in &runs {
        print(&format!("server, {name}"), run);
        if !run.verdict.iter().any(|line| line == "suite exit 0") {
            failed.push(format!("server {name}: {:?}\n{}", run.verdict, run.stdout));
        }
    }
    bridge.stop().await;
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn the_official_conformance_suite_passes_against_the_mcp_host() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let client = bridge_bin().with_file_name("conformance-client");
    assert!(
        client.is_file(),
        "{} is missing: run `cargo build -p nexus-e2e --bins` (scripts/test.sh does)",
        client.display()
    );
    let output_dir = TempDir::new("conformance-client");
    let output = Command::new("node")
        .current_dir(js_dir())
        .arg("conformance-client-run.mjs")
        .arg(&client)
        .arg(&output_dir.0)
        .arg(expected_failures("client"))
        .args(CLIENT_SCENARIOS)
        .env("NEXUS_BRIDGE_BIN", bridge_bin())
        .output()
        .expect("run node conformance-client-run.mjs");
    let run = parse(String::from_utf8_lossy(&output.stdout).into_owned());
    assert!(
        run.stdout.contains("suite exit"),
        "the suite did not run: {}\n{}",
        run.stdout,
        String::from_utf8_lossy(&output.stderr)
    );
    print("client", &run);
    let failed: Vec<&String> = run
        .verdict
        .iter()
        .filter(|line| line.starts_with("exit ") && !line.ends_with(" 0"))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}\n{}", run.stdout);
}
