//! Port squatting with real processes (`js/squat-test.mjs`): the hub exits on SIGTERM, `squat-hub`
//! takes its port and speaks the protocol without the secret; the tab in headless Chromium, a
//! peer bridge and `status` send it no secret or proof and answer no `Call`; the real hub back on
//! the port is trusted again without a new link. A port another user listens on is refused
//! before a word is sent.

use nexus_e2e::run_js_on_sample;

#[test]
fn a_program_on_the_hubs_port_learns_nothing_and_the_hub_is_trusted_again() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let squat = std::ffi::OsStr::new(env!("CARGO_BIN_EXE_squat-hub"));
    let stdout = run_js_on_sample("squat-test.mjs", &["--squat".as_ref(), squat]);
    assert!(stdout.contains("squat test passed"), "{stdout}");
    for check in [
        "the tab proves the secret to its hub and is welcomed",
        "a link with another token does not replace the kept secret",
        "SIGTERM stops the hub and removes its hub file",
        "the tab meets the squatter, says another program holds the port, and answers nothing",
        "a peer bridge and `status` refuse the squatter: no token, no proof",
        "the squatter received no secret, no token, no proof and no answer",
        "the real hub back on the port is trusted again without a new link",
        "a new secret replaces the kept one once its hub proves it",
    ] {
        assert!(
            stdout.contains(&format!("ok  {check}")),
            "{check}: {stdout}"
        );
    }
}

/// Runs as root only (it starts the squatter as user 65534 with `setpriv`); says so otherwise.
#[tokio::test]
async fn a_port_another_user_listens_on_is_refused_before_any_word() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root || !std::path::Path::new("/usr/bin/setpriv").exists() {
        eprintln!("skipped: needs root and setpriv to run a program as another user");
        return;
    }
    let port = nexus_e2e::free_port();
    let dir = nexus_e2e::TempDir::new("squat-other-user");
    let log = dir.0.join("squat.log");
    std::fs::write(&log, "").unwrap();
    use std::os::unix::fs::PermissionsExt;
    for (path, mode) in [(&dir.0, 0o777), (&log, 0o666)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let mut squatter = tokio::process::Command::new("/usr/bin/setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_squat-hub"))
        .arg(port.to_string())
        .arg(&log)
        .kill_on_drop(true)
        .spawn()
        .expect("start squat-hub as user 65534");
    nexus_e2e::wait_port_open(port, std::time::Duration::from_secs(10)).await;
    // A hub file of this user that names the squatter's (live) process.
    let file = nexus_e2e::token_file(port);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let pid = squatter.id().unwrap();
    let token = "ab".repeat(32);
    std::fs::write(
        &file,
        format!(r#"{{"port":{port},"token":"{token}","pid":{pid}}}"#),
    )
    .unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let output = nexus_e2e::bridge_command()
        .args(["status", "--port", &port.to_string()])
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("another program holds port {port}"))
            && stderr.contains("belongs to user 65534"),
        "{stderr}"
    );
    // Refused before connecting: the squatter heard nothing at all.
    let heard = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(heard.is_empty(), "{heard}");
    let _ = squatter.kill().await;
    let _ = std::fs::remove_file(&file);
}
