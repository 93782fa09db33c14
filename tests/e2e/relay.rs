//! The whole chain with real parts: rmcp's client starts the real `nexus-bridge`, the real UI runs
//! in headless Chromium, and tool calls are answered inside the browser tab, also for a peer
//! bridge that takes over when the hub's agent quits.

use std::time::{Duration, Instant};

use nexus_e2e::{Browser, McpBridge, free_port, text_of, ui_url};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_are_answered_by_the_tab_and_survive_browser_loss_and_hub_handover() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let port = free_port();
    let bridge = McpBridge::start(port).await;

    // The catalog is listed without any browser.
    let tools = bridge.client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 17);
    let description_chars: usize = tools
        .iter()
        .map(|t| t.description.as_deref().unwrap_or_default().len())
        .sum();
    assert!(
        description_chars / 4 <= 480,
        "descriptions: {} tokens",
        description_chars / 4
    );
    let info = bridge.client.peer_info().expect("server info");
    assert!(
        info.instructions
            .as_deref()
            .unwrap_or_default()
            .contains("route")
    );

    // No browser: an immediate isError that says what to open.
    let started = Instant::now();
    let result = bridge.call("context", json!({})).await;
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(result.is_error, Some(true));
    let text = text_of(&result);
    // It names the command that prints the link, never the link with its secret.
    assert!(
        text.contains("NO_BROWSER")
            && text.contains(&format!("`nexus-bridge status --link --port {port}`"))
            && !text.contains(&nexus_e2e::browser_secret()),
        "{text}"
    );

    // A real tab answers.
    let browser = Browser::open(&ui_url(port));
    let answer = bridge
        .call_until_ok("context", json!({}), Duration::from_secs(60))
        .await;
    assert!(answer.starts_with("# sample-shop\n3 files"), "{answer}");
    let focused = bridge
        .call_until_ok(
            "context",
            json!({"focus": "structure"}),
            Duration::from_secs(5),
        )
        .await;
    assert!(
        focused.contains("## Structure") && !focused.contains("## Schema"),
        "{focused}"
    );

    // Search runs in the tab's engine worker over the loaded graph.
    let found = bridge
        .call_until_ok(
            "search",
            json!({"query": "checkout", "group_by_process": false}),
            Duration::from_secs(5),
        )
        .await;
    // The agent's connection has a session: a symbol by its qualified name, its file given
    // once with an alias.
    assert!(
        found.contains("- Method `Cart.checkout` — f") && found.contains("=shop/cart.py:"),
        "{found}"
    );

    // Errors computed in the tab come back as isError with their code.
    let result = bridge
        .call("deep_dive", json!({"name": "no_such_symbol_anywhere"}))
        .await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        text_of(&result).contains("NOT_FOUND"),
        "{}",
        text_of(&result)
    );
    let result = bridge.call("context", json!({"focus": "everything"})).await;
    assert!(
        text_of(&result).contains("INVALID_PARAMS"),
        "{}",
        text_of(&result)
    );
    let result = bridge.call("teleport", json!({})).await;
    assert!(
        text_of(&result).contains("UNKNOWN_TOOL"),
        "{}",
        text_of(&result)
    );

    // The browser goes away: the next call fails fast.
    browser.close().await;
    let started = Instant::now();
    let result = bridge.call("context", json!({})).await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(result.is_error, Some(true), "{}", text_of(&result));

    // A tab is open and a second agent's bridge joins as a peer: its calls reach the real tab.
    let browser = Browser::open(&ui_url(port));
    bridge
        .call_until_ok("context", json!({}), Duration::from_secs(60))
        .await;
    let peer = McpBridge::start(port).await;
    let health = peer.wait_mode("peer", Duration::from_secs(10)).await;
    assert_eq!(health["browser_connected"], true, "{health}");
    let answer = peer
        .call_until_ok("context", json!({}), Duration::from_secs(10))
        .await;
    assert!(answer.starts_with("# sample-shop"), "{answer}");

    // The hub's agent quits: the peer takes over and the page reconnects to it by itself.
    let ended = Instant::now();
    bridge.quit().await;
    peer.wait_mode("hub", Duration::from_secs(2)).await;
    let took_over = ended.elapsed();
    let answer = peer
        .call_until_ok("context", json!({}), Duration::from_secs(30))
        .await;
    assert!(answer.starts_with("# sample-shop"), "{answer}");
    eprintln!(
        "peer took over in {took_over:?}; the tab answered it {:?} after the hub ended",
        ended.elapsed()
    );
    browser.close().await;
    peer.stop().await;
}
