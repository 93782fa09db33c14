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

/// A repository above the bridge's stream threshold (lowered here to 50 files) goes to the tab in
/// batches the worker parses as they arrive; a file over the size cap is named as left out in the
/// status; the graph is saved, restored on reload and indexed again the same way.
#[test]
fn a_repository_above_the_threshold_streams_in_batches_and_names_what_it_left_out() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let stdout = run_js_on_sample(
        "browser-bench.mjs",
        &[
            "--synthetic".as_ref(),
            "120".as_ref(),
            "--oversized".as_ref(),
            "--stream-threshold".as_ref(),
            "50".as_ref(),
            "--symbol".as_ref(),
            "entry_1".as_ref(),
            "--reloads".as_ref(),
            "1".as_ref(),
            "--check".as_ref(),
            "--expect-batches".as_ref(),
        ],
    );
    assert!(
        stdout.contains("transfer and parse of 25 batches"),
        "{stdout}"
    );
    assert!(
        stdout.contains("files left out: 1; 1 larger than"),
        "{stdout}"
    );
    assert!(stdout.contains("saved to browser storage"), "{stdout}");
    assert_eq!(stdout.matches("restored in").count(), 1, "{stdout}");
}
