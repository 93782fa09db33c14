//! The configuration file end to end: `nexus-bridge config path` and `config check` as a person
//! runs them (valid, broken and missing files, the environment over the file, keys never
//! printed), and the Chat tab without a model in headless Chromium (`tests/js/config-test.mjs`):
//! it names the file, a provider saved there is picked up without a restart, and answers.

use std::path::Path;
use std::process::{Command, Output};

use nexus_e2e::{TempDir, bridge_bin, run_js_on_sample, workspace_root};

use crate::chat_ui::start_sim;

/// Runs the bridge with `args` in a clean environment: no provider variable, the config folder
/// `home/.config`, plus `env`.
fn bridge(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(bridge_bin());
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .envs(env.iter().copied());
    command.output().expect("nexus-bridge runs")
}

fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn config_path_names_the_default_the_flag_or_the_variable() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let home = TempDir::new("config-path");
    let (out, _) = text(&bridge(&home.0, &["config", "path"], &[]));
    assert_eq!(
        out.trim(),
        home.0
            .join(".config/nexus/nexus.toml")
            .display()
            .to_string()
    );
    let (out, _) = text(&bridge(
        &home.0,
        &["config", "path", "--config", "/etc/x.toml"],
        &[],
    ));
    assert_eq!(out.trim(), "/etc/x.toml");
    let (out, _) = text(&bridge(
        &home.0,
        &["config", "path"],
        &[("NEXUS_CONFIG", "/srv/n.toml")],
    ));
    assert_eq!(out.trim(), "/srv/n.toml");
}

#[test]
fn config_check_prints_the_effective_settings_and_never_a_key() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let home = TempDir::new("config-check");
    // No file yet: the defaults, and success.
    let output = bridge(&home.0, &["config", "check"], &[]);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}\n{err}");
    assert!(
        out.contains("not there: defaults and the environment"),
        "{out}"
    );
    // The shipped example, with the environment over it.
    let dir = home.0.join(".config/nexus");
    std::fs::create_dir_all(&dir).unwrap();
    let example = workspace_root().join("docs/nexus.example.toml");
    std::fs::copy(&example, dir.join("nexus.toml")).unwrap();
    let output = bridge(
        &home.0,
        &["config", "check"],
        &[
            ("OPENAI_API_KEY", "sk-e2e-very-secret"),
            ("NEXUS_LLM_MODEL", "from-env"),
        ],
    );
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}\n{err}");
    assert!(!out.contains("very-secret") && !err.contains("very-secret"));
    for line in [
        "provider = \"openai\"",
        "model = \"from-env\"",
        "api_key = \"<redacted>, from OPENAI_API_KEY\"",
        "NEXUS_LLM_MODEL (llm.model)",
        "full_threshold = 70",
        "retention_days = \"forever (not set)\"",
    ] {
        assert!(out.contains(line), "{line} missing:\n{out}");
    }
}

#[test]
fn config_check_fails_naming_line_and_column_and_never_panics() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let home = TempDir::new("config-bad");
    let file = home.0.join("nexus.toml");
    let path = file.to_str().unwrap();
    for (content, expected) in [
        (
            "[llm]\nprovider = \"openai\"\ntemprature = 0.2\n",
            "line 3, column 1: unknown field `temprature`",
        ),
        ("[chat]\nretention_days = \"ten\"\n", "line 2, column 18"),
        (
            "[llm]\ntemperature = 9\n",
            "line 2, column 15: temperature 9",
        ),
        (
            "[rate_limits]\n\"write_file\" = 3\n",
            "line 2, column 1: rate limit `write_file` names no server",
        ),
        ("[llm\n", "line 1"),
        (
            "[llm]\nprovider = \"openai\"\napi_key_env = \"NOT_SET_ANYWHERE\"\n",
            "NOT_SET_ANYWHERE is not set",
        ),
    ] {
        std::fs::write(&file, content).unwrap();
        let output = bridge(&home.0, &["config", "check", "--config", path], &[]);
        let (out, err) = text(&output);
        assert_eq!(output.status.code(), Some(1), "{content}: {out}\n{err}");
        assert!(err.contains(expected), "{content}: {err}");
        assert!(err.contains(path), "the file is named: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let output = bridge(
        &home.0,
        &["config", "check", "--config", "/no/such/nexus.toml"],
        &[],
    );
    let (_, err) = text(&output);
    assert_eq!(output.status.code(), Some(1));
    assert!(err.contains("/no/such/nexus.toml: no such file"), "{err}");
}

#[test]
fn the_chat_tab_points_to_the_file_and_picks_up_a_provider_saved_there() {
    let _area = nexus_e2e::Area::enter(module_path!());
    let (_sim, llm) = start_sim();
    let shots = workspace_root().join("target/config-screenshots");
    let stdout = run_js_on_sample(
        "config-test.mjs",
        &[
            "--llm".as_ref(),
            llm.as_ref(),
            "--shots".as_ref(),
            shots.as_os_str(),
        ],
    );
    for step in [
        "ok  without a model the Chat tab names the configuration file and the section to add",
        "ok  a file with a mistake is named on the page with its line and column",
        "ok  a provider saved into the file is picked up without reloading the page or restarting the bridge",
        "ok  the picked-up provider answers, with the file's temperature and prompt addition, and its key stays on the bridge",
        "config test passed",
    ] {
        assert!(stdout.contains(step), "{step} missing:\n{stdout}");
    }
    for shot in [
        "config-1-no-model",
        "config-1-no-model-help",
        "config-2-picked-up",
        "config-2-picked-up-line",
        "config-3-answered",
    ] {
        assert!(
            shots.join(format!("{shot}.png")).is_file(),
            "{shot} missing"
        );
    }
}
