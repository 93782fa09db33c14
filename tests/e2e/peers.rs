//! Several bridges sharing one hub: calls relayed by peers with progress and cancellation, the
//! circuit breaker, health as an MCP resource and `nexus-bridge status`, and hub failover.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use nexus_e2e::scenarios::{FAILOVER_CALL_BOUND, failover};
use nexus_e2e::tab::{EchoTab, TabBehaviour, echo_text};
use nexus_e2e::{McpBridge, ServeProcess, bridge_command, free_port, text_of, token_file};
use serde_json::json;

fn behaviour() -> TabBehaviour {
    TabBehaviour {
        silent: HashSet::from(["explore".to_owned(), "trace_flow".to_owned()]),
        with_progress: HashSet::from(["deep_dive".to_owned()]),
        project: Some("shop".into()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_relays_through_the_hub_with_progress_cancel_and_breaker() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let port = free_port();
    let hub = McpBridge::start(port).await;
    hub.wait_mode("hub", Duration::from_secs(5)).await;
    let tab = EchoTab::start(port, behaviour());
    tab.log.wait_welcomes(1, Duration::from_secs(5)).await;
    let peer = McpBridge::start_with(port, &["--heavy-timeout-ms", "150"]).await;
    let health = peer.wait_mode("peer", Duration::from_secs(5)).await;

    // Health: the peer sees the hub's tab, its graph and the peer count.
    assert_eq!(health["browser_connected"], true, "{health}");
    assert_eq!(health["graph"]["project"], "shop", "{health}");
    assert_eq!(health["peers"], 1, "{health}");
    assert_eq!(health["circuits"]["impact"], "closed", "{health}");
    let health = hub.health().await;
    assert_eq!(health["mode"], "hub");
    assert_eq!(health["peers"], 1);
    assert_eq!(health["graph_loaded"], true);
    let resources = peer
        .client
        .list_all_resources()
        .await
        .expect("resources/list");
    assert!(resources.iter().any(|r| r.uri == "nexus://health"));

    // Both agents' calls reach the tab and come back to the one that asked.
    for (who, bridge) in [("hub", &hub), ("peer", &peer)] {
        let args = json!({ "query": who });
        let result = bridge.call("search", args.clone()).await;
        assert_eq!(text_of(&result), echo_text("search", &args), "{who}");
    }

    // Progress reported by the tab reaches the asking client as MCP progress notifications,
    // through the hub's own relay and through a peer.
    for bridge in [&hub, &peer] {
        bridge.progress.take();
        let args = json!({ "symbol": "cart" });
        let result = bridge.call("deep_dive", args.clone()).await;
        assert_eq!(text_of(&result), echo_text("deep_dive", &args));
        // rmcp's client handles notifications concurrently: wait for both, compare in order.
        let started = Instant::now();
        let mut received = Vec::new();
        while received.len() < 2 && started.elapsed() < Duration::from_secs(5) {
            received.extend(bridge.progress.take());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let mut steps: Vec<(f64, Option<f64>, Option<String>)> = received
            .iter()
            .map(|p| (p.progress, p.total, p.message.clone()))
            .collect();
        steps.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(
            steps,
            [
                (1.0, Some(2.0), Some("step 1".into())),
                (2.0, Some(2.0), Some("step 2".into()))
            ]
        );
    }

    // The peer's client cancels: the tab is told to stop that very call.
    let dropped = tokio::time::timeout(
        Duration::from_millis(300),
        peer.try_call("explore", json!({ "target": "x" })),
    )
    .await;
    assert!(dropped.is_err(), "the silent tab answered");
    let started = Instant::now();
    let (asked, _) = tab
        .log
        .calls()
        .into_iter()
        .rev()
        .find(|(_, tool)| tool == "explore")
        .expect("the tab got the call");
    while !tab.log.cancels().contains(&asked) {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no Cancel for {asked}: {:?}",
            tab.log.cancels()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // A heavy tool that never answers times out at the peer's heavy deadline, five times in a
    // row, and then its circuit opens: answered at once, the tool named, other tools unaffected.
    for _ in 0..5 {
        let started = Instant::now();
        let result = peer.call("trace_flow", json!({ "from": "a" })).await;
        let text = text_of(&result);
        assert!(
            text.contains("TIMEOUT") && text.contains("150 ms"),
            "{text}"
        );
        assert!(started.elapsed() < Duration::from_secs(2));
    }
    let started = Instant::now();
    let text = text_of(&peer.call("trace_flow", json!({ "from": "a" })).await);
    assert!(started.elapsed() < Duration::from_millis(500));
    assert!(
        text.contains("CIRCUIT_OPEN") && text.contains("`trace_flow`"),
        "{text}"
    );
    assert_eq!(peer.health().await["circuits"]["trace_flow"], "open");
    let args = json!({ "query": "still fine" });
    let result = peer.call("search", args.clone()).await;
    assert_eq!(text_of(&result), echo_text("search", &args));
    // The hub's own circuit for that tool is untouched: breakers are per agent.
    assert_eq!(hub.health().await["circuits"]["trace_flow"], "closed");

    peer.quit().await;
    hub.quit().await;
}

#[tokio::test]
async fn status_reports_the_hub_and_fails_without_one() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let port = free_port();
    let output = bridge_command()
        .args(["status", "--port", &port.to_string()])
        .output()
        .await
        .unwrap();
    assert!(!output.status.success(), "status succeeded without a hub");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no Nexus hub"), "{stderr}");

    let _hub = ServeProcess::start(port).await;
    let tab = EchoTab::start(port, behaviour());
    tab.log.wait_welcomes(1, Duration::from_secs(5)).await;
    let started = Instant::now();
    let report = loop {
        let output = bridge_command()
            .args(["status", "--port", &port.to_string()])
            .output()
            .await
            .unwrap();
        assert!(output.status.success());
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("status prints JSON");
        if report["graph_loaded"] == true || started.elapsed() > Duration::from_secs(5) {
            break report;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(report["mode"], "hub");
    assert_eq!(report["browser_connected"], true);
    assert_eq!(report["graph"]["project"], "shop");
    assert_eq!(report["graph"]["nodes"], 10);
    assert_eq!(report["peers"], 0, "status does not count itself as a peer");
    assert!(report["pid"].as_u64().is_some());
    // The token file is private to the user and never printed.
    let token = std::fs::read_to_string(token_file(port)).unwrap();
    let mode = std::fs::metadata(token_file(port)).unwrap().permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
        0o600
    );
    let value: serde_json::Value = serde_json::from_str(&token).unwrap();
    assert!(
        !report
            .to_string()
            .contains(value["token"].as_str().unwrap())
    );
    // The link with the browser's secret is printed only when asked for (`--link`), never
    // with the report: an agent that runs `status` for health does not copy the secret.
    let output = bridge_command()
        .args(["status", "--port", &port.to_string()])
        .output()
        .await
        .unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!printed.contains(&nexus_e2e::browser_secret()), "{printed}");
    assert!(
        printed.contains(&format!("`nexus-bridge status --link --port {port}`")),
        "{printed}"
    );
    let output = bridge_command()
        .args(["status", "--link", "--port", &port.to_string()])
        .output()
        .await
        .unwrap();
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        nexus_e2e::ui_url(port)
    );
}

#[tokio::test]
async fn serve_refuses_a_taken_port_clearly() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let port = free_port();
    let _hub = ServeProcess::start(port).await;
    let output = bridge_command()
        .args(["serve", "--port", &port.to_string()])
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{stderr}"
    );
}

/// The hub exits 20 times while calls run (`NEXUS_FAILOVER_ROUNDS` changes the count).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_hub_exits_a_peer_takes_over_within_two_seconds() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let rounds = std::env::var("NEXUS_FAILOVER_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let report = failover(rounds, 3).await;
    eprintln!("failover: {}", report.summary());
    assert_eq!(report.takeovers.len(), rounds);
    // The typical takeover is within two seconds; a single round on a loaded 2-core machine may
    // take one more backoff step (CI once saw 2.39 s), never more than that.
    let mut sorted = report.takeovers.clone();
    sorted.sort_unstable();
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or_default();
    assert!(
        median < Duration::from_secs(2),
        "median takeover {median:?}: {}",
        report.summary()
    );
    for (round, takeover) in report.takeovers.iter().enumerate() {
        assert!(
            *takeover < Duration::from_secs(5),
            "round {round}: new hub after {takeover:?}"
        );
    }
    assert_eq!(report.misrouted, 0);
    assert_eq!(
        report.slow, 0,
        "calls waited more than {FAILOVER_CALL_BOUND:?}"
    );
    assert!(report.ok > 0);
    // Calls caught by a hub's exit fail fast with a retryable error; none times out.
    for code in report.errors.keys() {
        assert!(
            code == "LINK_LOST" || code == "NO_BROWSER",
            "unexpected failures: {:?}",
            report.errors
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tab_link_comes_back_within_the_backoff_bound() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let port = free_port();
    let first = McpBridge::start(port).await;
    first.wait_mode("hub", Duration::from_secs(5)).await;
    let tab = EchoTab::start(port, TabBehaviour::default());
    tab.log.wait_welcomes(1, Duration::from_secs(5)).await;
    let args = json!({ "query": "before" });
    assert_eq!(
        text_of(&first.call("search", args.clone()).await),
        echo_text("search", &args)
    );

    // The only bridge exits: the link drops, and nothing serves the port for a while.
    first.quit().await;
    let down = Duration::from_millis(1_000);
    tokio::time::sleep(down).await;
    let second = McpBridge::start(port).await;
    let restored = Instant::now();
    let welcomed = tab.log.wait_welcomes(2, Duration::from_secs(10)).await;
    let back = welcomed.saturating_duration_since(restored);
    // Within 1 s down the tab made at most two attempts, so its next wait is at most the third
    // step of the backoff (2 s); a little slack covers process start-up.
    let bound =
        Duration::from_millis(nexus_shared::reconnect::ReconnectPolicy::default().step_ms(3) + 300);
    eprintln!("tab back {back:?} after the hub returned (bound {bound:?})");
    assert!(back <= bound, "tab back after {back:?}, bound {bound:?}");
    let args = json!({ "query": "after" });
    let result = second.call("search", args.clone()).await;
    assert_eq!(text_of(&result), echo_text("search", &args));
    second.quit().await;
}

fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_leaves_a_hub_that_hangs_and_rejoins_when_it_resumes() {
    let _area = nexus_e2e::Area::enter(module_path!());
    const HEARTBEAT_MS: u64 = 200;
    let port = free_port();
    let beat = ["--heartbeat-ms", "200"];
    let hub = McpBridge::start_with(port, &beat).await;
    hub.wait_mode("hub", Duration::from_secs(5)).await;
    let tab = EchoTab::start(port, TabBehaviour::default());
    tab.log.wait_welcomes(1, Duration::from_secs(5)).await;
    let peer = McpBridge::start_with(port, &beat).await;
    peer.wait_mode("peer", Duration::from_secs(5)).await;

    // The hub hangs (stopped, its port still held): the peer's heartbeat notices.
    signal(hub.pid, "STOP");
    let stopped = Instant::now();
    let health = peer.wait_mode("joining", Duration::from_secs(3)).await;
    let detected = stopped.elapsed();
    eprintln!("peer left the hung hub after {detected:?}: {health}");
    // Dead two intervals after the last answered ping, which was sent up to one interval
    // before the hang: between one and three intervals, plus scheduling slack.
    assert!(
        detected >= Duration::from_millis(HEARTBEAT_MS)
            && detected < Duration::from_millis(5 * HEARTBEAT_MS),
        "{detected:?}"
    );
    // It cannot take the port from a live process, and its calls fail clearly, not hang.
    let started = Instant::now();
    let result = peer.call("search", json!({ "query": "during" })).await;
    let text = text_of(&result);
    assert!(
        text.contains("NO_BROWSER") && text.contains("looking for the Nexus hub"),
        "{text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(peer.health().await["mode"], "joining");

    // The hub resumes: the peer rejoins and its calls are answered again.
    signal(hub.pid, "CONT");
    let args = json!({ "query": "after" });
    let answer = peer
        .call_until_ok("search", args.clone(), Duration::from_secs(15))
        .await;
    assert_eq!(answer, echo_text("search", &args));
    assert_eq!(peer.health().await["mode"], "peer");
    peer.quit().await;
    hub.quit().await;
}
