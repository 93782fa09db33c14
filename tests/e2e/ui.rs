//! The UI as a person uses it: the real bridge serves a fixture repository and the built UI,
//! and a playwright-core script in headless Chromium searches, clicks a node in the graph, reads
//! code, runs Cypher, follows a process, asks a question and watches an agent's call light up,
//! checking the DOM at each step and taking screenshots it checks are not blank; and the first
//! picture a new user sees, at two window sizes, shows every node whole.

use nexus_e2e::{run_js_on_sample, workspace_root};

#[test]
fn a_person_walks_the_graph_through_the_ui() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let shots = workspace_root().join("target/ui-screenshots");
    let stdout = run_js_on_sample("ui-test.mjs", &["--shots".as_ref(), shots.as_os_str()]);
    assert!(stdout.contains("ui test passed"), "{stdout}");
    for shot in [
        "1-loaded-dark",
        "2-selected",
        "3-code",
        "4-cypher",
        "5-activity",
    ] {
        assert!(
            shots.join(format!("{shot}.png")).is_file(),
            "{shot} missing"
        );
    }
}

#[test]
fn the_first_picture_fits_the_window() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let shots = workspace_root().join("target/first-run-screenshots");
    let stdout = run_js_on_sample(
        "first-run-test.mjs",
        &["--shots".as_ref(), shots.as_os_str()],
    );
    assert!(stdout.contains("first-run test passed"), "{stdout}");
    for shot in ["first-1280x800", "first-1600x1000"] {
        assert!(
            shots.join(format!("{shot}.png")).is_file(),
            "{shot} missing"
        );
    }
}
