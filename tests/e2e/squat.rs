//! Port squatting with real processes (`js/squat-test.mjs`): the hub exits on SIGTERM, `squat-hub`
//! takes its port and speaks the protocol without the secret; the tab in headless Chromium, a
//! peer bridge and `status` send it no secret or proof and answer no `Call`; the real hub back on
//! the port is trusted again without a new link.

use nexus_e2e::run_js_on_sample;

#[test]
fn a_program_on_the_hubs_port_learns_nothing_and_the_hub_is_trusted_again() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let squat = std::ffi::OsStr::new(env!("CARGO_BIN_EXE_squat-hub"));
    let stdout = run_js_on_sample("squat-test.mjs", &["--squat".as_ref(), squat]);
    assert!(stdout.contains("squat test passed"), "{stdout}");
    for check in [
        "the tab proves the secret to its hub and is welcomed",
        "SIGTERM stops the hub and removes its hub file",
        "the tab meets the squatter, says another program holds the port, and answers nothing",
        "a peer bridge and `status` refuse the squatter: no token, no proof",
        "the squatter received no secret, no token, no proof and no answer",
        "the real hub back on the port is trusted again without a new link",
    ] {
        assert!(
            stdout.contains(&format!("ok  {check}")),
            "{check}: {stdout}"
        );
    }
}
