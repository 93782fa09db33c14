//! Load through the hub: 8 peer bridges, many calls in flight, an echo tab answering; every
//! answer is checked against its own request: 8 × 2,000 calls (`NEXUS_LOAD_CALLS` changes the
//! count per peer; `relay-bench` prints the same figures from a release build).

use nexus_e2e::scenarios::load;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_peers_lose_and_misroute_nothing() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let calls = std::env::var("NEXUS_LOAD_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let report = load(8, calls, 32).await;
    eprintln!("load: {}", report.summary());
    assert_eq!(report.calls, 8 * calls);
    assert_eq!(report.misrouted, 0);
    assert!(
        report.failed.is_empty(),
        "{} failed, e.g. {:?}",
        report.failed.len(),
        report.failed.first()
    );
    assert_eq!(report.ok, 8 * calls);
}
