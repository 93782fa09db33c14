//! Benchmark of the bridge relay with real processes: one call at a time through a peer (latency),
//! 8 peers × 2,000 calls through one hub to an echo tab (p50/p99 latency, throughput), then 20 hub
//! exits while calls run (takeover times).
//! Usage: `relay-bench [CALLS_PER_PEER] [HUB_EXITS]`; needs NEXUS_BRIDGE_BIN like the tests.

use nexus_e2e::scenarios::{failover, load};

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let calls = args.next().and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let exits = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);

    let report = load(1, calls, 1).await;
    println!("unloaded, 1 peer, one call at a time: {}", report.summary());

    let report = load(8, calls, 32).await;
    println!(
        "load, 8 peers x {calls} calls, 32 in flight each: {}",
        report.summary()
    );
    if let Some(example) = report.failed.first() {
        println!("  first failure: {example}");
    }

    let report = failover(exits, 3).await;
    println!(
        "failover, 3 bridges calling without pause: {}",
        report.summary()
    );
    let mut takeovers = report.takeovers.clone();
    takeovers.sort();
    println!(
        "  takeover times: {:?}",
        takeovers
            .iter()
            .map(|d| format!("{:.0?}", d))
            .collect::<Vec<_>>()
    );
    let within = report
        .takeovers
        .iter()
        .filter(|d| d.as_secs_f64() < 2.0)
        .count();
    println!("  new hub within 2 s: {within}/{}", report.takeovers.len());
}
