use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use super::*;
use crate::chat::Live;
use crate::chat::config::Setup;

const EXAMPLE: &str = include_str!("../../../docs/nexus.example.toml");

fn table(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

fn at(text: &str) -> ConfigError {
    parse(Path::new("/c/nexus.toml"), text).unwrap_err()
}

#[test]
fn the_shipped_example_is_valid_and_holds_the_defaults() {
    let loaded = parse(Path::new("/c/nexus.toml"), EXAMPLE).unwrap();
    assert_eq!(loaded.file.tool_selection, ToolSelection::default());
    assert_eq!(loaded.file.llm.provider, Some(ProviderKind::OpenAi));
    assert_eq!(loaded.quotas.entries().count(), 0);
    let live = Live::read(&loaded, &table(&[("OPENAI_API_KEY", "sk-secret")]));
    assert_eq!(live.limits, crate::chat::config::TurnLimits::default());
    // Every commented-out key is a real key: uncommented, the file still reads.
    let uncommented: String = EXAMPLE
        .lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(rest) if rest.contains(" = ") && !rest.starts_with("score") => rest,
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let err = parse(Path::new("/c/nexus.toml"), &uncommented).unwrap_err();
    // The only failure is the rules file, which the example names but does not ship.
    assert!(err.message.contains("my.rules"), "{err}");
}

#[test]
fn unknown_keys_and_wrong_types_name_line_and_column() {
    let err = at("[llm]\nprovider = \"openai\"\nmodle = \"x\"\n");
    assert_eq!((err.line, err.column), (Some(3), Some(1)), "{err}");
    assert!(err.message.contains("modle"), "{err}");
    assert!(
        err.to_string()
            .starts_with("/c/nexus.toml, line 3, column 1: ")
    );
    let err = at("[llm]\ntemperature = \"hot\"\n");
    assert_eq!((err.line, err.column), (Some(2), Some(15)), "{err}");
    let err = at("[chat]\nretention_days = 0\n");
    assert_eq!(err.line, Some(2), "{err}");
    let err = at("[tool_selection]\ntoken_budget = -5\n");
    assert_eq!(err.line, Some(2), "{err}");
    let err = at("[mystery]\n");
    assert_eq!(err.line, Some(1), "{err}");
    let err = at("[llm\n");
    assert_eq!(err.line, Some(1), "{err}");
}

#[test]
fn meaningless_values_name_their_line() {
    let err = at("[llm]\nprovider = \"bard\"\n");
    assert_eq!(err.line, Some(2));
    assert!(err.message.contains("not a provider"), "{err}");
    let err = at("[llm]\n\ntemperature = 3.5\n");
    assert_eq!(err.line, Some(3));
    assert!(err.message.contains("0 to 2"), "{err}");
    let err = at("[tool_selection]\nfull_threshold = 30\ncondensed_threshold = 40\n");
    assert_eq!(err.line, Some(3), "{err}");
    assert!(err.message.contains("must not rise"), "{err}");
    let err = at("[rate_limits]\n\"a:b\" = 3\n\"write_file\" = 10\n");
    assert_eq!(err.line, Some(3), "{err}");
    assert!(err.message.contains("names no server"), "{err}");
    let err = at("[rate_limits]\n\"fs:x\" = 0\n");
    assert_eq!(err.line, Some(2), "{err}");
}

#[test]
fn a_rules_file_is_read_beside_the_file_and_its_errors_name_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.rules"), "boost(T, 5) :- \n").unwrap();
    let path = dir.path().join("nexus.toml");
    let err = parse(&path, "[tool_selection]\nrules_file = \"bad.rules\"\n").unwrap_err();
    assert_eq!(err.line, Some(2), "{err}");
    assert!(err.message.contains("bad.rules"), "{err}");
    assert!(err.message.contains("line 1"), "{err}");
    let err = parse(&path, "[tool_selection]\nrules_file = \"none.rules\"\n").unwrap_err();
    assert!(err.message.contains("cannot read"), "{err}");
}

#[test]
fn a_missing_file_is_the_defaults_and_the_path_follows_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent.toml");
    let loaded = load(&path).unwrap();
    assert!(!loaded.exists);
    assert_eq!(loaded.file, FileSettings::default());
    assert_eq!(resolve_path(Some(&path)), path);
    assert!(resolve_path(None).ends_with("nexus/nexus.toml"));
    std::fs::write(&path, [0xff, 0xfe]).unwrap();
    assert!(load(&path).unwrap_err().message.contains("UTF-8"));
}

#[test]
fn the_environment_wins_over_the_file_which_wins_over_the_defaults() {
    let file = parse(
        Path::new("/c/nexus.toml"),
        "[llm]\nprovider = \"openai\"\nmodel = \"from-file\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\
         temperature = 0.5\ntimeout_ms = 700\nmax_rounds = 3\nsystem_prompt_addition = \"Be brief.\"\n\
         [chat]\nretention_days = 30\n",
    )
    .unwrap();
    let live = Live::read(&file, &table(&[]));
    let Setup::Ready(config) = &live.setup else {
        panic!("{:?}", live.setup)
    };
    assert_eq!(config.model, "from-file");
    assert_eq!(config.base_url, "http://127.0.0.1:9/v1");
    assert_eq!(config.temperature, Some(0.5));
    assert_eq!(config.prompt_addition.as_deref(), Some("Be brief."));
    assert_eq!(live.limits.request_timeout, Duration::from_millis(700));
    assert_eq!(live.limits.max_rounds, 3);
    assert_eq!(live.limits.context_tokens, 24_000, "default");
    assert_eq!(live.retention_days, Some(30));
    let env = table(&[
        ("NEXUS_LLM_MODEL", "from-env"),
        ("NEXUS_LLM_TEMPERATURE", "0.1"),
        ("NEXUS_LLM_TIMEOUT_MS", "900"),
        ("NEXUS_CHAT_RETENTION_DAYS", "7"),
        ("NEXUS_LLM_PROVIDER", "gemini"),
        ("GEMINI_API_KEY", "g-secret"),
    ]);
    let live = Live::read(&file, &env);
    let Setup::Ready(config) = &live.setup else {
        panic!("{:?}", live.setup)
    };
    assert_eq!(config.kind, ProviderKind::Gemini);
    assert_eq!(config.model, "from-env");
    assert_eq!(
        config.base_url, "http://127.0.0.1:9/v1",
        "file, not overridden"
    );
    assert_eq!(config.temperature, Some(0.1));
    assert_eq!(config.key.expose(), "g-secret");
    assert_eq!(live.limits.request_timeout, Duration::from_millis(900));
    assert_eq!(live.retention_days, Some(7));
}

#[test]
fn keys_come_from_the_named_variable_or_a_private_file_never_the_file_itself() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("openai.key");
    std::fs::write(&key, "sk-from-file\n").unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let path = dir.path().join("nexus.toml");
    let text =
        "[llm]\nprovider = \"openai\"\napi_key_env = \"MY_KEY\"\napi_key_file = \"openai.key\"\n";
    let loaded = parse(&path, text).unwrap();
    let from = |env: &[(&str, &str)]| match Live::read(&loaded, &table(env)).setup {
        Setup::Ready(config) => Ok((config.key.expose().to_owned(), config.key_source)),
        Setup::Missing(why) => Err(why),
    };
    assert_eq!(
        from(&[("MY_KEY", "sk-from-env"), ("OPENAI_API_KEY", "sk-other")]).unwrap(),
        ("sk-from-env".into(), "MY_KEY".into())
    );
    let (key_text, source) = from(&[("OPENAI_API_KEY", "sk-other")]).unwrap();
    assert_eq!(
        key_text, "sk-from-file",
        "api_key_env names the only variable"
    );
    assert!(source.ends_with("openai.key"));
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let why = from(&[]).unwrap_err();
    assert!(why.contains("chmod 600"), "{why}");
    let report = check::report(&Ok(loaded.clone()), &table(&[])).unwrap_err();
    assert!(report.contains("cannot use"), "{report}");
}

#[test]
fn the_check_report_shows_effective_settings_and_never_a_key() {
    let loaded = parse(
        Path::new("/c/nexus.toml"),
        "[llm]\nprovider = \"openai\"\n[rate_limits]\n\"fs:write\" = 5\n",
    )
    .unwrap();
    let env = table(&[
        ("OPENAI_API_KEY", "sk-very-secret"),
        ("NEXUS_LLM_MODEL", "m-env"),
    ]);
    let report = check::report(&Ok(loaded), &env).unwrap();
    assert!(!report.contains("very-secret"), "{report}");
    assert!(
        report.contains("<redacted>, from OPENAI_API_KEY"),
        "{report}"
    );
    assert!(report.contains("model = \"m-env\""), "{report}");
    assert!(report.contains("NEXUS_LLM_MODEL (llm.model)"), "{report}");
    assert!(report.contains("\"fs:write\" = 5"), "{report}");
    assert!(report.contains("[tool_selection]"), "{report}");
    assert!(report.contains("logic_weight = 0.7\n"), "{report}");
    // The report is TOML itself.
    let body: String = report
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(toml::from_str::<toml::Table>(&body).is_ok(), "{body}");
}

#[test]
fn line_and_column_count_characters() {
    assert_eq!(line_column("ab\ncé\nx", 0), (1, 1));
    assert_eq!(line_column("ab\ncé\nx", 3), (2, 1));
    assert_eq!(line_column("ab\ncé\nx", 7), (3, 1));
    assert_eq!(line_column("ab\ncé\nx", 5), (2, 2), "inside é: its start");
    assert_eq!(line_column("ab", 99), (1, 3));
}

mod never_panics {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn on_any_text(text in ".{0,400}") {
            let _ = parse(Path::new("/c/nexus.toml"), &text);
        }

        #[test]
        fn on_the_example_with_a_piece_replaced(at in 0usize..4000, len in 0usize..20, with in ".{0,20}") {
            let mut text = EXAMPLE.to_owned();
            let mut start = at.min(text.len());
            while !text.is_char_boundary(start) { start -= 1; }
            let mut end = (start + len).min(text.len());
            while !text.is_char_boundary(end) { end -= 1; }
            text.replace_range(start..end, &with);
            if let Err(err) = parse(Path::new("/c/nexus.toml"), &text) {
                prop_assert!(!err.message.is_empty());
                if let Some(line) = err.line {
                    prop_assert!(line <= text.lines().count() + 1);
                }
            }
        }

        #[test]
        fn on_toml_shaped_sections(key in "[a-z_]{1,20}", value in prop_oneof![
            Just("1".to_owned()), Just("-1".to_owned()), Just("1e400".to_owned()), Just("nan".to_owned()),
            Just("\"x\"".to_owned()), Just("[1, \"a\"]".to_owned()), Just("{ a = 1 }".to_owned()),
            Just("true".to_owned()), Just("1979-05-27".to_owned()), Just("18446744073709551616".to_owned()),
        ], section in prop_oneof![Just("llm"), Just("tool_selection"), Just("chat"), Just("rate_limits")]) {
            let text = format!("[{section}]\n{key} = {value}\n");
            let _ = parse(Path::new("/c/nexus.toml"), &text);
            let quoted = format!("[{section}]\n\"{key}:{key}\" = {value}\n");
            let _ = parse(Path::new("/c/nexus.toml"), &quoted);
        }
    }
}
