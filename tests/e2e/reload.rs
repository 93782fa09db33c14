//! Reload restores the graph: the real bridge serves a repository, the real UI in headless
//! Chromium (driven by playwright-core) indexes it and saves a snapshot to IndexedDB, and after a
//! page reload the worker restores that snapshot instead of indexing again. Before that, the
//! worker's embeddings of the graph answer a search by meaning.

use nexus_e2e::run_js_on_sample;

#[test]
fn a_reloaded_page_restores_the_saved_graph() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let stdout = run_js_on_sample(
        "browser-bench.mjs",
        &[
            "--reloads".as_ref(),
            "2".as_ref(),
            "--check".as_ref(),
            "--semantic".as_ref(),
            "take money from a credit card".as_ref(),
        ],
    );
    assert!(
        stdout.contains("embeddings: semantic search answered"),
        "{stdout}"
    );
    assert!(stdout.contains("shop/payment.py"), "{stdout}");
    assert!(stdout.contains("saved to browser storage"), "{stdout}");
    assert_eq!(stdout.matches("restored in").count(), 2, "{stdout}");
}
