//! What the tab honours, in real headless Chromium (`js/tab-test.mjs`): a `Cancel` stops the
//! call its engine worker runs; a picked folder's `.gitignore` keeps files from being read.

use nexus_e2e::run_js_on_sample;

#[test]
fn a_cancel_stops_the_running_call_and_ignored_files_stay_unread() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let stdout = run_js_on_sample("tab-test.mjs", &[]);
    assert!(stdout.contains("tab test passed"), "{stdout}");
    for check in [
        "the page is cross-origin isolated",
        "a cancelled grep stops at once: the next call answers long before",
        "a picked folder's .gitignore, secrets and excluded folders keep files unread",
    ] {
        assert!(
            stdout.contains(&format!("ok  {check}")),
            "{check}: {stdout}"
        );
    }
}
