//! Latency of `context` over MCP stdio and over Streamable HTTP (`/mcp`, 2026-07-28) through the
//! same hub and tab, one call at a time, calls of the two alternating: p50/p99 of each.
//! Usage: `mcp-http-bench [CALLS]`; needs NEXUS_BRIDGE_BIN like the tests. The tab is the echo
//! tab, so the figures are the transports' (the tab's own work is the same on both).

use std::time::{Duration, Instant};

use nexus_e2e::tab::{EchoTab, TabBehaviour};
use nexus_e2e::{McpBridge, TempDir, free_port};
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

/// Calls before timing starts (connections warm, allocations settled).
const WARM_UP: usize = 50;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000)
        .max(1);
    // reqwest needs a TLS provider when built with the bridge's features (one workspace build).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let data = TempDir::new("mcp-http-bench");
    let data_home = data.0.display().to_string();
    let port = free_port();
    let bridge = McpBridge::start_with_env(port, &[], &[("XDG_DATA_HOME", &data_home)]).await;
    let tab = EchoTab::start(port, TabBehaviour::default());
    tab.log.wait_welcomes(1, Duration::from_secs(10)).await;
    let token = std::fs::read_to_string(data.0.join("nexus/mcp-token")).expect("the MCP token");
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("http://127.0.0.1:{port}/mcp"))
            .auth_header(token.trim().to_owned());
    let http = ClientConfig::default()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("server/discover over HTTP");
    let params = CallToolRequestParams::new("context").with_arguments(
        serde_json::json!({"focus": "stats"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );

    let mut stdio_times = Vec::with_capacity(calls);
    let mut http_times = Vec::with_capacity(calls);
    for i in 0..WARM_UP + calls {
        let started = Instant::now();
        let result = bridge
            .client
            .call_tool(params.clone())
            .await
            .expect("stdio call");
        let stdio = started.elapsed();
        assert_ne!(result.is_error, Some(true), "stdio call failed");
        let started = Instant::now();
        let result = http.call_tool(params.clone()).await.expect("HTTP call");
        let over_http = started.elapsed();
        assert_ne!(result.is_error, Some(true), "HTTP call failed");
        if i >= WARM_UP {
            stdio_times.push(stdio);
            http_times.push(over_http);
        }
    }
    let (stdio_p50, stdio_p99) = percentiles(&mut stdio_times);
    let (http_p50, http_p99) = percentiles(&mut http_times);
    println!("context, {calls} calls each, one at a time, alternating (echo tab):");
    println!(
        "  stdio: p50 {:.3} ms, p99 {:.3} ms",
        ms(stdio_p50),
        ms(stdio_p99)
    );
    println!(
        "  HTTP:  p50 {:.3} ms, p99 {:.3} ms",
        ms(http_p50),
        ms(http_p99)
    );
    println!(
        "  HTTP adds p50 {:+.3} ms, p99 {:+.3} ms",
        ms(http_p50) - ms(stdio_p50),
        ms(http_p99) - ms(stdio_p99)
    );
    let _ = http.cancel().await;
    bridge.stop().await;
}

fn percentiles(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.50), at(0.99))
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
