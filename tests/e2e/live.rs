//! The graph follows the disk, in real headless Chromium with the real bridge (`js/live-test.mjs`):
//! edits, new files, renames, deletions, a 100-file burst, a file that becomes a secret or grows
//! past the cap, changes made while the tab was closed, and `diff` against git HEAD.

use nexus_e2e::run_js_on_sample;

#[test]
fn every_change_on_disk_shows_in_answers_and_a_reopened_tab_catches_up() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let stdout = run_js_on_sample("live-test.mjs", &[]);
    assert!(stdout.contains("live test passed"), "{stdout}");
    for check in [
        "a function appended to a file shows with its call edge",
        "a new file shows, its import resolved",
        "a renamed file moves",
        "a deleted file leaves the graph",
        "a burst of 100 new files arrives whole",
        "a file renamed to a secret and a file grown past the cap leave the graph and grep",
        "diff with base HEAD names what changed since the commit",
        "changes made while the tab was closed are applied when it opens again",
    ] {
        assert!(
            stdout.contains(&format!("ok  {check}")),
            "{check}: {stdout}"
        );
    }
}
