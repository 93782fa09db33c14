//! Load and failover scenarios over real processes, shared by the end-to-end tests (small counts)
//! and the `relay-bench` program (full counts). They measure; callers assert or print.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::json;
use tokio::task::JoinHandle;

use crate::tab::{EchoTab, TabBehaviour, echo_text};
use crate::{McpBridge, ServeProcess, free_port, text_of};

/// Latency percentile `p` (0–100) of sorted samples.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// What a load run saw.
#[derive(Debug, Default)]
pub struct LoadReport {
    pub calls: usize,
    pub ok: usize,
    /// Answers that belong to another call.
    pub misrouted: usize,
    /// Calls that got an error or no answer, with what they got.
    pub failed: Vec<String>,
    pub latencies: Vec<Duration>,
    pub elapsed: Duration,
}

impl LoadReport {
    pub fn summary(&self) -> String {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        format!(
            "{} calls in {:.2?} ({:.0} calls/s): ok {}, failed {}, misrouted {}; latency p50 {:.2?}, p99 {:.2?}, max {:.2?}",
            self.calls,
            self.elapsed,
            self.calls as f64 / self.elapsed.as_secs_f64().max(1e-9),
            self.ok,
            self.failed.len(),
            self.misrouted,
            percentile(&sorted, 50.0),
            percentile(&sorted, 99.0),
            sorted.last().copied().unwrap_or_default(),
        )
    }
}

/// `peers` bridge processes join a `serve` hub and each makes `calls` calls, `in_flight` at a
/// time, answered by an echo tab; every answer is checked against its own request.
pub async fn load(peers: usize, calls: usize, in_flight: usize) -> LoadReport {
    let port = free_port();
    let _hub = ServeProcess::start(port).await;
    let tab = EchoTab::start(port, TabBehaviour::default());
    tab.log.wait_welcomes(1, Duration::from_secs(10)).await;
    let mut bridges = Vec::new();
    for _ in 0..peers {
        let bridge = McpBridge::start(port).await;
        bridge.wait_mode("peer", Duration::from_secs(10)).await;
        bridges.push(Arc::new(bridge));
    }
    let started = Instant::now();
    let tasks: Vec<JoinHandle<LoadReport>> = bridges
        .iter()
        .enumerate()
        .map(|(p, bridge)| {
            let bridge = bridge.clone();
            tokio::spawn(async move { one_peer_load(&bridge, p, calls, in_flight).await })
        })
        .collect();
    let mut report = LoadReport::default();
    for task in tasks {
        let part = task.await.expect("load task");
        report.calls += part.calls;
        report.ok += part.ok;
        report.misrouted += part.misrouted;
        report.failed.extend(part.failed);
        report.latencies.extend(part.latencies);
    }
    report.elapsed = started.elapsed();
    for bridge in bridges {
        bridge.quit().await;
    }
    report
}

async fn one_peer_load(
    bridge: &McpBridge,
    peer: usize,
    calls: usize,
    in_flight: usize,
) -> LoadReport {
    let results: Vec<(Duration, Result<String, String>, serde_json::Value)> =
        futures_util::stream::iter(0..calls)
            .map(|seq| async move {
                let args = json!({ "query": format!("p{peer}-s{seq}"), "limit": seq % 50 + 1 });
                let started = Instant::now();
                let result = match bridge.try_call("search", args.clone()).await {
                    Ok(result) if result.is_error != Some(true) => Ok(text_of(&result)),
                    Ok(result) => Err(text_of(&result)),
                    Err(err) => Err(err.to_string()),
                };
                (started.elapsed(), result, args)
            })
            .buffer_unordered(in_flight.max(1))
            .collect()
            .await;
    let mut report = LoadReport {
        calls,
        ..LoadReport::default()
    };
    for (latency, result, args) in results {
        report.latencies.push(latency);
        match result {
            Ok(text) if text == echo_text("search", &args) => report.ok += 1,
            Ok(_) => report.misrouted += 1,
            Err(err) => report.failed.push(err),
        }
    }
    report
}

/// What a failover run saw.
#[derive(Debug, Default)]
pub struct FailoverReport {
    /// From the hub's end to another bridge reporting itself the hub.
    pub takeovers: Vec<Duration>,
    /// From the hub's end to the tab welcomed by the new hub.
    pub tab_back: Vec<Duration>,
    /// From the hub's end until every surviving bridge had a call answered again.
    pub resumed: Vec<Duration>,
    pub ok: usize,
    pub misrouted: usize,
    /// Failed calls by error code (or transport failure).
    pub errors: HashMap<String, usize>,
    /// Calls whose answer took longer than the failover bound: waited instead of failing fast.
    pub slow: usize,
}

impl FailoverReport {
    pub fn summary(&self) -> String {
        let stats = |samples: &[Duration]| {
            let mut sorted = samples.to_vec();
            sorted.sort();
            format!(
                "min {:.0?}, median {:.0?}, max {:.0?}",
                sorted.first().copied().unwrap_or_default(),
                percentile(&sorted, 50.0),
                sorted.last().copied().unwrap_or_default()
            )
        };
        format!(
            "{} hub exits: new hub after {}; tab back after {}; calls resumed after {}; calls ok {}, misrouted {}, slow {}, errors {:?}",
            self.takeovers.len(),
            stats(&self.takeovers),
            stats(&self.tab_back),
            stats(&self.resumed),
            self.ok,
            self.misrouted,
            self.slow,
            self.errors
        )
    }
}

/// A caller that calls in a loop until stopped, recording every outcome.
struct Caller {
    stop: Arc<AtomicBool>,
    task: JoinHandle<FailoverReport>,
}

/// Answers slower than this count as `slow`: a call in flight at a hub exit must fail fast.
pub const FAILOVER_CALL_BOUND: Duration = Duration::from_secs(5);

fn spawn_caller(bridge: Arc<McpBridge>, tag: usize) -> Caller {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let task = tokio::spawn(async move {
        let mut report = FailoverReport::default();
        let mut seq = 0u64;
        while !flag.load(Ordering::Relaxed) {
            seq += 1;
            let args = json!({ "query": format!("c{tag}-s{seq}") });
            let started = Instant::now();
            let result = bridge.try_call("search", args.clone()).await;
            if started.elapsed() > FAILOVER_CALL_BOUND {
                report.slow += 1;
            }
            match result {
                Ok(result) if result.is_error != Some(true) => {
                    if text_of(&result) == echo_text("search", &args) {
                        report.ok += 1;
                    } else {
                        report.misrouted += 1;
                    }
                }
                Ok(result) => {
                    let text = text_of(&result);
                    let code = text
                        .strip_prefix("Error ")
                        .and_then(|t| t.split(':').next())
                        .unwrap_or("?")
                        .to_owned();
                    let code = if text.contains("(retryable)") {
                        code
                    } else {
                        format!("{code} (not retryable)")
                    };
                    *report.errors.entry(code).or_default() += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                // The bridge process itself was killed: this caller is done.
                Err(_) => break,
            }
        }
        report
    });
    Caller { stop, task }
}

/// Three bridges share a hub and call without pause; the hub is ended `rounds` times (killed,
/// or its agent quits, alternately) and a fresh bridge joins after each round.
pub async fn failover(rounds: usize, bridges_alive: usize) -> FailoverReport {
    let port = free_port();
    let mut bridges: Vec<Arc<McpBridge>> = Vec::new();
    for i in 0..bridges_alive {
        let bridge = McpBridge::start(port).await;
        let mode = if i == 0 { "hub" } else { "peer" };
        bridge.wait_mode(mode, Duration::from_secs(10)).await;
        bridges.push(Arc::new(bridge));
    }
    let tab = EchoTab::start(port, TabBehaviour::default());
    tab.log.wait_welcomes(1, Duration::from_secs(10)).await;
    let mut callers: Vec<Caller> = bridges
        .iter()
        .enumerate()
        .map(|(i, b)| spawn_caller(b.clone(), i))
        .collect();
    let mut report = FailoverReport::default();
    for round in 0..rounds {
        let mut hub_index = None;
        for (i, bridge) in bridges.iter().enumerate() {
            if bridge.health().await["mode"] == "hub" {
                hub_index = Some(i);
            }
        }
        let hub = bridges.remove(hub_index.expect("one bridge is the hub"));
        let ended = Instant::now();
        if round % 2 == 0 {
            hub.kill();
        } else {
            hub.quit().await;
        }
        let new_hub = wait_for_new_hub(&bridges, ended).await;
        report.takeovers.push(new_hub);
        let welcomed = tab
            .log
            .wait_welcomes(round + 2, Duration::from_secs(10))
            .await;
        report
            .tab_back
            .push(welcomed.saturating_duration_since(ended));
        report.resumed.push(wait_resumed(&bridges, ended).await);
        let bridge = Arc::new(McpBridge::start(port).await);
        bridge.wait_mode("peer", Duration::from_secs(10)).await;
        callers.push(spawn_caller(bridge.clone(), 100 + round));
        bridges.push(bridge);
    }
    for caller in &callers {
        caller.stop.store(true, Ordering::Relaxed);
    }
    for caller in callers {
        let part = caller.task.await.expect("caller task");
        report.ok += part.ok;
        report.misrouted += part.misrouted;
        report.slow += part.slow;
        for (code, n) in part.errors {
            *report.errors.entry(code).or_default() += n;
        }
    }
    for bridge in bridges {
        bridge.quit().await;
    }
    report
}

/// Time from `since` until one of `bridges` says it is the hub.
async fn wait_for_new_hub(bridges: &[Arc<McpBridge>], since: Instant) -> Duration {
    loop {
        for bridge in bridges {
            if bridge.health().await["mode"] == "hub" {
                return since.elapsed();
            }
        }
        assert!(
            since.elapsed() < Duration::from_secs(10),
            "no bridge became the hub within 10 s"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Time from `since` until every bridge answered a fresh call.
async fn wait_resumed(bridges: &[Arc<McpBridge>], since: Instant) -> Duration {
    for (i, bridge) in bridges.iter().enumerate() {
        loop {
            let args = json!({ "query": format!("resume-{i}") });
            if let Ok(result) = bridge.try_call("search", args.clone()).await
                && result.is_error != Some(true)
            {
                assert_eq!(text_of(&result), echo_text("search", &args), "misrouted");
                break;
            }
            assert!(
                since.elapsed() < Duration::from_secs(10),
                "bridge {} made no successful call within 10 s of the hub's end",
                bridge.pid
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    since.elapsed()
}
