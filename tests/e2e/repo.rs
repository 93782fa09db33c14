//! One command shows a real graph: the bridge serves a repository (`--repo`), the real UI in
//! headless Chromium indexes it in its engine worker by itself, and an agent's calls are answered
//! from that graph.

use std::time::Duration;

use nexus_e2e::{Browser, McpBridge, free_port, ui_url, workspace_root};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_indexes_the_bridge_repository_and_answers_from_it() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let port = free_port();
    let repo = workspace_root().join("examples/sample-shop");
    let repo = repo.to_string_lossy();
    let bridge = McpBridge::start_with(port, &["--repo", &repo]).await;
    let browser = Browser::open(&ui_url(port));

    // The sample graph answers first; the indexed repository replaces it.
    let mut context = String::new();
    for _ in 0..300 {
        context = bridge
            .call_until_ok(
                "context",
                json!({"focus": "stats"}),
                Duration::from_secs(60),
            )
            .await;
        if context.starts_with("# sample-shop\n")
            && context.contains("Function")
            && !context.contains("3 files")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(context.contains("6 files"), "{context}");

    let found = bridge
        .call_until_ok(
            "search",
            json!({"query": "charge card", "group_by_process": false}),
            Duration::from_secs(5),
        )
        .await;
    assert!(
        found.contains("- Function `charge` — f") && found.contains("=shop/payment.py:"),
        "{found}"
    );

    let impact = bridge
        .call_until_ok(
            "impact",
            json!({"target": "validate_card"}),
            Duration::from_secs(5),
        )
        .await;
    // The bridge keeps one tools session per MCP connection: `charge`, returned by the search
    // above, is named by its short name without repeating what the agent was told.
    assert!(
        impact.contains("## depth 1 — WILL BREAK\n- seen before: `charge`"),
        "{impact}"
    );
    assert!(impact.contains("`Cart.checkout`"), "{impact}");

    let read = bridge
        .call_until_ok(
            "read",
            json!({"path": "shop/pricing.py", "start_line": 3, "end_line": 3}),
            Duration::from_secs(5),
        )
        .await;
    assert!(read.contains("3 | MEMBER_DISCOUNT = 0.1"), "{read}");

    let refused = bridge
        .call("read", json!({"path": "../../etc/passwd"}))
        .await;
    assert_eq!(refused.is_error, Some(true));

    // Every tool, through the real bridge, answered by the tab from the indexed repository.
    let expectations: [(&str, serde_json::Value, &str); 17] = [
        ("context", json!({}), "# sample-shop"),
        ("search", json!({"query": "discount"}), "`apply_discount`"),
        (
            "cypher",
            json!({"query": "MATCH (a)-[:CALLS]->(b {name: 'validate_card'}) RETURN a.name"}),
            "charge",
        ),
        (
            "grep",
            json!({"pattern": "MEMBER_DISCOUNT", "file_pattern": "*.py"}),
            "shop/pricing.py:3",
        ),
        (
            "read",
            json!({"path": "shop/app.py", "include_deps": true}),
            "shop/cart.py",
        ),
        ("explore", json!({"name": "Cart.checkout"}), "charge"),
        ("overview", json!({}), "sample-shop"),
        (
            "impact",
            json!({"target": "apply_discount"}),
            "`Cart.total`",
        ),
        (
            "highlight",
            json!({"ids": ["Function:shop/payment.py:charge"]}),
            "Highlighted 1 node",
        ),
        ("diff", json!({}), "sample-shop"),
        ("deep_dive", json!({"name": "charge"}), "validate_card"),
        (
            "review_file",
            json!({"path": "shop/cart.py"}),
            "Cart.checkout",
        ),
        (
            "trace_flow",
            json!({"from": "main", "to": "validate_card"}),
            "charge",
        ),
        (
            "find_similar",
            json!({"name": "validate_card"}),
            "Function:",
        ),
        (
            "test_impact",
            json!({"changed_files": ["shop/payment.py"]}),
            "tests/test_cart.py",
        ),
        (
            "find_usages",
            json!({"target": "PaymentGateway"}),
            "import in `File:shop/cart.py`",
        ),
        (
            "route",
            json!({"query": "who calls validate_card"}),
            "charge",
        ),
    ];
    let tools = bridge.client.list_all_tools().await.expect("tools/list");
    for tool in &tools {
        assert!(
            expectations.iter().any(|(name, _, _)| *name == tool.name),
            "no end-to-end call for {}",
            tool.name
        );
    }
    for (tool, args, expected) in expectations {
        let answer = bridge
            .call_until_ok(tool, args, Duration::from_secs(10))
            .await;
        assert!(answer.contains(expected), "{tool}: {answer}");
    }

    browser.close().await;
    bridge.quit().await;
}
