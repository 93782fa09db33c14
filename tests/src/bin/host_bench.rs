//! Benchmark of the bridge as an MCP host with real servers: `everything:echo` called directly
//! and through the bridge (p50/p99, the coordinator's overhead), start-up with 5 servers, and memory
//! per idle server connection. Usage: `host-bench [CALLS]`; needs NEXUS_BRIDGE_BIN and `scripts/setup.sh`.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use nexus_e2e::{McpBridge, ProgressLog, TempDir, bridge_command, free_port, workspace_root};
use rmcp::RoleClient;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::process::Command;

fn node_bin(name: &str) -> String {
    workspace_root()
        .join("tests/js/node_modules/.bin")
        .join(name)
        .display()
        .to_string()
}

fn five_servers(dir: &std::path::Path) -> Value {
    let misbehave: PathBuf = workspace_root().join("tests/servers/misbehave.py");
    json!({"mcpServers": {
        "everything": {"command": node_bin("mcp-server-everything"), "args": ["stdio"]},
        "fs": {"command": node_bin("mcp-server-filesystem"), "args": [dir.display().to_string()]},
        "memory": {"command": node_bin("mcp-server-memory"),
                   "env": {"MEMORY_FILE_PATH": dir.join("memory.jsonl").display().to_string()}},
        "time": {"command": workspace_root().join("tests/py/.venv/bin/mcp-server-time").display().to_string()},
        "misbehave": {"command": "python3", "args": [misbehave.display().to_string()]}
    }, "expose": true, "allow": ["*"]})
}

async fn echo_latencies(
    client: &RunningService<RoleClient, ProgressLog>,
    tool: &str,
    calls: usize,
) -> Vec<Duration> {
    let mut out = Vec::with_capacity(calls);
    for i in 0..calls {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(args) = json!({"message": format!("ping {i}")}) {
            params = params.with_arguments(args);
        }
        let started = Instant::now();
        let result = client.call_tool(params).await;
        out.push(started.elapsed());
        match result {
            Ok(result) if result.is_error != Some(true) => {}
            other => panic!("{tool} failed: {other:?}"),
        }
    }
    out.sort();
    out
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(index).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// Resident memory of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for task in tasks.flatten() {
            if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
                out.extend(
                    text.split_whitespace()
                        .filter_map(|p| p.parse::<u32>().ok()),
                );
            }
        }
    }
    out
}

async fn start_bridge(config: &Value, dir: &std::path::Path) -> (McpBridge, Instant) {
    let path = dir.join("mcp.json");
    std::fs::write(&path, config.to_string()).expect("write config");
    let port = free_port();
    let mut command = bridge_command();
    command
        .arg("--port")
        .arg(port.to_string())
        .arg("--mcp-config")
        .arg(&path)
        .env("NEXUS_LOG", "warn");
    let started = Instant::now();
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn nexus-bridge");
    let pid = transport.id().expect("pid");
    let progress = ProgressLog::default();
    let client = progress.clone().serve(transport).await.expect("initialize");
    nexus_e2e::wait_port_open(port, Duration::from_secs(10)).await;
    (
        McpBridge {
            client,
            port,
            pid,
            progress,
        },
        started,
    )
}

async fn wait_online(bridge: &McpBridge, count: usize) {
    let started = Instant::now();
    loop {
        let health = bridge.health().await;
        let online = health["hosted"]["servers"]
            .as_array()
            .map(|s| {
                s.iter()
                    .filter(|s| s["id"] != "nexus" && s["state"] == "online")
                    .count()
            })
            .unwrap_or(0);
        if online >= count {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "{health:#}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000);
    let dir = TempDir::new("host-bench");

    // Direct: an rmcp client and server-everything over stdio.
    let mut command = Command::new(node_bin("mcp-server-everything"));
    command.arg("stdio");
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("start server-everything");
    let direct = ProgressLog::default()
        .serve(transport)
        .await
        .expect("initialize server-everything");
    echo_latencies(&direct, "echo", 50).await;
    let direct_times = echo_latencies(&direct, "echo", calls).await;
    let _ = direct.cancel().await;

    // Through the bridge: the same server hosted, called as everything__echo.
    let config = json!({"mcpServers": {"everything":
        {"command": node_bin("mcp-server-everything"), "args": ["stdio"]}}, "expose": true});
    let (bridge, _) = start_bridge(&config, &dir.0).await;
    wait_online(&bridge, 1).await;
    echo_latencies(&bridge.client, "everything__echo", 50).await;
    let hosted_times = echo_latencies(&bridge.client, "everything__echo", calls).await;
    bridge.stop().await;

    let (d50, d99) = (pct(&direct_times, 0.5), pct(&direct_times, 0.99));
    let (h50, h99) = (pct(&hosted_times, 0.5), pct(&hosted_times, 0.99));
    println!("everything:echo, {calls} calls one at a time over stdio:");
    println!(
        "  direct (rmcp client -> server):         p50 {}  p99 {}",
        ms(d50),
        ms(d99)
    );
    println!(
        "  hosted (rmcp client -> bridge -> server): p50 {}  p99 {}",
        ms(h50),
        ms(h99)
    );
    println!(
        "  coordinator overhead per call:          p50 {}  p99 {}",
        ms(h50.saturating_sub(d50)),
        ms(h99.saturating_sub(d99))
    );

    // Start-up and memory: no servers, then five.
    let (idle, _) = start_bridge(&json!({"mcpServers": {}}), &dir.0).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let bare_rss = rss_kib(idle.pid);
    idle.stop().await;

    let (bridge, started) = start_bridge(&five_servers(&dir.0), &dir.0).await;
    wait_online(&bridge, 5).await;
    let startup = started.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let hosting_rss = rss_kib(bridge.pid);
    let kids = children(bridge.pid);
    let kids_rss: u64 = kids.iter().map(|&p| rss_kib(p)).sum();
    println!("start-up with 5 servers (3 Node, 2 Python), spawn to all online: {startup:.0?}");
    println!(
        "memory: bridge {bare_rss} KiB with no servers, {hosting_rss} KiB with 5 idle -> {} KiB per idle connection in the bridge",
        hosting_rss.saturating_sub(bare_rss) / 5
    );
    println!(
        "  the {} server processes themselves: {} KiB in all, {} KiB each on average",
        kids.len(),
        kids_rss,
        kids_rss / kids.len().max(1) as u64
    );
    bridge.stop().await;
}
