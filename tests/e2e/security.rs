//! Attacks in real headless Chromium (`js/security-test.mjs`): a fake hub named in `?hub=`, the
//! hash or a message; framing headers on every route; cross-site archive fetches and frames;
//! every secret file name kept out of search, grep, read and the archive; 50 concurrent
//! archive requests; a costly grep followed at once by another call.

use nexus_e2e::run_js_on_sample;

#[test]
fn web_pages_and_repository_content_cannot_reach_the_repository() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let stdout = run_js_on_sample("security-test.mjs", &[]);
    assert!(stdout.contains("security test passed"), "{stdout}");
    for check in [
        "a fake hub named in the address",
        "every route sends X-Frame-Options",
        "another site can neither frame the UI nor fetch the archive",
        "no secret is searched, grepped, read or archived",
        "50 concurrent archive requests",
        "a costly grep is cut at its budget and the next call answers within 100 ms",
    ] {
        assert!(
            stdout.contains(&format!("ok  {check}")),
            "{check}: {stdout}"
        );
    }
}
