//! How a hosted stdio server's process is set up: it runs in its `cwd` or an empty private folder
//! (never the bridge's), with a cleared environment holding only an allow-list plus its `env`.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::config::Secret;

/// Variables a hosted server inherits from the bridge, when set: what finding programs, a home,
/// the user's locale and a temporary folder need (`npx`, `uvx`, `python -m`), and what Windows
/// programs cannot start without. Every other variable (API keys, tokens, `NEXUS_*`, proxies,
/// `XDG_RUNTIME_DIR` where the hub's files are) must be passed in the server's `env`.
pub const INHERITED: [&str; 24] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "TEMP",
    "TMP",
];
/// Inherited too: every variable with this prefix (`LC_ALL`, `LC_CTYPE`, …).
pub const INHERITED_PREFIX: &str = "LC_";
/// The variables the bridge reads provider keys from: their values never reach a server through
/// inheritance, whatever variable holds them.
pub const PROVIDER_KEYS: [&str; 4] = [
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "NEXUS_EMBED_API_KEY",
];
/// Shorter values are not treated as keys when scrubbing (they would match ordinary values).
const MIN_KEY_CHARS: usize = 8;

/// The folder a server runs in: its configured `cwd` (already resolved beside the config file),
/// else its empty private folder in the data folder.
pub fn working_folder(id: &str, cwd: Option<&Path>) -> Result<PathBuf, String> {
    match cwd {
        Some(cwd) => Ok(cwd.to_path_buf()),
        None => crate::data::hosted_folder(id),
    }
}

/// The command for one server: cleared environment, the allow-list from the bridge's own
/// environment, then the server's `env`; started in `cwd`.
pub fn command(
    program: &str,
    args: &[String],
    env: &[(String, Secret)],
    cwd: &Path,
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .env_clear()
        .envs(inherited(std::env::vars_os()))
        .envs(env.iter().map(|(name, value)| (name, &value.0)))
        .current_dir(cwd)
        .kill_on_drop(true);
    cmd
}

/// The part of `vars` a server inherits: allow-listed names only, `PATH` without empty or
/// relative entries (they would resolve in the server's folder), and no variable whose value
/// holds a provider key.
pub fn inherited(vars: impl Iterator<Item = (OsString, OsString)>) -> Vec<(OsString, OsString)> {
    let vars: Vec<(OsString, OsString)> = vars.collect();
    let keys: Vec<&[u8]> = vars
        .iter()
        .filter(|(name, _)| {
            name.to_str()
                .is_some_and(|name| PROVIDER_KEYS.contains(&name))
        })
        .map(|(_, value)| value.as_encoded_bytes())
        .filter(|value| value.len() >= MIN_KEY_CHARS)
        .collect();
    let holds_key = |value: &OsStr| {
        let value = value.as_encoded_bytes();
        keys.iter()
            .any(|key| value.windows(key.len()).any(|part| part == *key))
    };
    vars.iter()
        .filter(|(name, value)| name.to_str().is_some_and(allowed) && !holds_key(value))
        .map(|(name, value)| {
            if name == "PATH" {
                (name.clone(), absolute_entries(value))
            } else {
                (name.clone(), value.clone())
            }
        })
        .collect()
}

fn allowed(name: &str) -> bool {
    INHERITED.contains(&name) || name.starts_with(INHERITED_PREFIX)
}

fn absolute_entries(path: &OsStr) -> OsString {
    let entries: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|entry| entry.is_absolute())
        .collect();
    std::env::join_paths(entries).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(list: &[(&str, &str)]) -> impl Iterator<Item = (OsString, OsString)> {
        list.iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect::<Vec<_>>()
            .into_iter()
    }

    fn names(kept: &[(OsString, OsString)]) -> Vec<&str> {
        kept.iter().filter_map(|(k, _)| k.to_str()).collect()
    }

    #[test]
    fn only_the_allow_list_is_inherited() {
        let kept = inherited(vars(&[
            ("PATH", "/usr/bin"),
            ("HOME", "/home/me"),
            ("LC_ALL", "C.UTF-8"),
            ("LANG", "en_US.UTF-8"),
            ("ANTHROPIC_API_KEY", "sk-ant-secret-value"),
            ("OPENAI_API_KEY", "sk-openai-secret"),
            ("GEMINI_API_KEY", "gm-secret-value"),
            ("NEXUS_EMBED_API_KEY", "embed-secret-value"),
            ("NEXUS_LLM_PROVIDER", "openai"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("GITHUB_TOKEN", "ghp"),
            ("HTTPS_PROXY", "http://user:pw@proxy"),
            ("XDG_RUNTIME_DIR", "/run/user/1000"),
            ("LD_PRELOAD", "/tmp/evil.so"),
            ("NODE_OPTIONS", "--require /tmp/evil.js"),
        ]));
        assert_eq!(names(&kept), ["PATH", "HOME", "LC_ALL", "LANG"]);
    }

    #[test]
    fn a_provider_key_under_an_allowed_name_is_dropped() {
        let kept = inherited(vars(&[
            ("OPENAI_API_KEY", "sk-openai-secret"),
            ("LC_SMUGGLED", "sk-openai-secret"),
            ("TERM", "xterm prefix sk-openai-secret suffix"),
            ("LANG", "C"),
            // A key shorter than MIN_KEY_CHARS is not a key to look for.
            ("GEMINI_API_KEY", "C"),
        ]));
        assert_eq!(names(&kept), ["LANG"]);
    }

    #[test]
    fn path_keeps_absolute_entries_only() {
        let kept = inherited(vars(&[("PATH", "/usr/bin::.:bin:/opt/x/bin")]));
        assert_eq!(kept[0].1, OsString::from("/usr/bin:/opt/x/bin"));
    }

    #[test]
    fn a_configured_cwd_wins_over_the_private_folder() {
        assert_eq!(
            working_folder("s", Some(Path::new("/w"))),
            Ok(PathBuf::from("/w"))
        );
    }
}
