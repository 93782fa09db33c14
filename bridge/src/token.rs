//! The hub's token file: `{port, token, pid}` as JSON, mode 0600, in the user's runtime (else
//! cache) directory. The hub writes it when it binds; peers and `status` read it to join.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use nexus_shared::Token;
use serde::{Deserialize, Serialize};

/// What the hub tells processes of its own user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HubFile {
    pub port: u16,
    pub token: Token,
    pub pid: u32,
}

/// `$XDG_RUNTIME_DIR/nexus`, else `$XDG_CACHE_HOME/nexus`, else `$HOME/.cache/nexus`.
/// `env` reads one environment variable (injected for tests).
pub fn dir_from(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let absolute = |name: &str| {
        env(name)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    absolute("XDG_RUNTIME_DIR")
        .or_else(|| absolute("XDG_CACHE_HOME"))
        .or_else(|| absolute("HOME").map(|home| home.join(".cache")))
        .map(|base| base.join("nexus"))
}

/// The token file of the hub on `port` for the current user.
pub fn path(port: u16) -> Result<PathBuf, String> {
    dir_from(|name| std::env::var_os(name))
        .map(|dir| dir.join(format!("hub-{port}.json")))
        .ok_or_else(|| {
            "neither XDG_RUNTIME_DIR nor HOME is set, so there is no private place for the hub's token file".into()
        })
}

/// 32 bytes from the operating system's random source, as 64 hex digits.
pub fn generate() -> Result<Token, String> {
    random_bytes().map(|bytes| Token(nexus_shared::proof::hex(&bytes)))
}

/// 32 bytes from the operating system's random source (tokens and proof nonces).
pub fn random_bytes() -> Result<[u8; 32], String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|err| format!("the operating system gave no random bytes: {err}"))?;
    Ok(bytes)
}

/// Writes the file readable by this user only (directory 0700, file 0600), atomically: readers
/// see the old file or the new one, never a half-written one.
pub fn write(path: &Path, file: &HubFile) -> std::io::Result<()> {
    let text = serde_json::to_string(file).map_err(std::io::Error::other)?;
    let temp = write_private_temp(path, text.as_bytes())?;
    std::fs::rename(&temp, path)
}

/// Writes `bytes` to a fresh temporary file beside `path`, readable by this user only (folder
/// 0700, file 0600) and synced, for the caller to move or link into place.
pub fn write_private_temp(path: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let temp = path.with_file_name(name);
    let _ = std::fs::remove_file(&temp);
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp)?;
    out.write_all(bytes)?;
    out.sync_all()?;
    Ok(temp)
}

/// Reads the file; refuses one that other users could read, that names another port, or whose
/// process is gone (a hub killed before it could remove its file).
pub fn read(path: &Path, port: u16) -> Result<HubFile, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|err| format!("cannot read {shown}: {err}"))?;
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(format!(
            "{shown} is readable by other users; refusing its token (the next hub rewrites it)"
        ));
    }
    let text =
        std::fs::read_to_string(path).map_err(|err| format!("cannot read {shown}: {err}"))?;
    let file: HubFile =
        serde_json::from_str(&text).map_err(|err| format!("{shown} is not a hub file: {err}"))?;
    if file.port != port {
        return Err(format!("{shown} is for port {}, not {port}", file.port));
    }
    if !process_exists(file.pid) {
        return Err(format!(
            "{shown} names process {}, which is gone; the file is ignored",
            file.pid
        ));
    }
    Ok(file)
}

/// True while a process with this id exists (signal 0 checks without signalling; `EPERM` means
/// it exists under another user).
fn process_exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    alive || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Removes the file if this process wrote it. Call it while still holding the port, so that a
/// newer hub's file is never removed.
pub fn remove_if_ours(path: &Path, port: u16) {
    if read(path, port).is_ok_and(|file| file.pid == std::process::id()) {
        let _ = std::fs::remove_file(path);
    }
}

/// Compares a presented token with the hub's in constant time.
pub fn matches(expected: &Token, given: Option<&Token>) -> bool {
    let Some(given) = given else {
        return false;
    };
    let (a, b) = (expected.0.as_bytes(), given.0.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(label: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("nexus-token-test-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn runtime_dir_first_then_cache_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        assert_eq!(
            dir_from(env(&[
                ("XDG_RUNTIME_DIR", "/run/user/7"),
                ("HOME", "/home/a")
            ])),
            Some(PathBuf::from("/run/user/7/nexus"))
        );
        assert_eq!(
            dir_from(env(&[("XDG_CACHE_HOME", "/c"), ("HOME", "/home/a")])),
            Some(PathBuf::from("/c/nexus"))
        );
        assert_eq!(
            dir_from(env(&[("XDG_RUNTIME_DIR", "relative"), ("HOME", "/home/a")])),
            Some(PathBuf::from("/home/a/.cache/nexus"))
        );
        assert_eq!(dir_from(env(&[])), None);
    }

    #[test]
    fn written_file_is_private_and_reads_back() {
        let dir = temp_dir("rw");
        let path = dir.join("nexus/hub-4000.json");
        let file = HubFile {
            port: 4000,
            token: generate().unwrap(),
            pid: std::process::id(),
        };
        write(&path, &file).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        assert_eq!(read(&path, 4000).unwrap(), file);
        assert!(read(&path, 4001).unwrap_err().contains("port 4000"));

        // Rewriting replaces the token; no temporary file is left behind.
        let newer = HubFile {
            token: generate().unwrap(),
            ..file.clone()
        };
        write(&path, &newer).unwrap();
        assert_eq!(read(&path, 4000).unwrap(), newer);
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );

        remove_if_ours(&path, 4000);
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn files_others_can_read_or_garbage_are_refused() {
        let dir = temp_dir("bad");
        let path = dir.join("nexus/hub-4000.json");
        let file = HubFile {
            port: 4000,
            token: generate().unwrap(),
            pid: 1,
        };
        write(&path, &file).unwrap();
        remove_if_ours(&path, 4000);
        assert!(path.exists(), "another process's file is kept");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(read(&path, 4000).unwrap_err().contains("other users"));
        std::fs::write(&path, "{ nope").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(read(&path, 4000).unwrap_err().contains("not a hub file"));
        assert!(read(&dir.join("missing.json"), 4000).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_whose_process_is_gone_is_ignored() {
        let dir = temp_dir("gone");
        let path = dir.join("nexus/hub-4000.json");
        // A process that ran and ended: its id is free (until reused, which takes a while).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let file = HubFile {
            port: 4000,
            token: generate().unwrap(),
            pid,
        };
        write(&path, &file).unwrap();
        assert!(read(&path, 4000).unwrap_err().contains("is gone"));
        let ours = HubFile {
            pid: std::process::id(),
            ..file
        };
        write(&path, &ours).unwrap();
        assert_eq!(read(&path, 4000).unwrap(), ours);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn tokens_are_random_hex_and_compared_exactly() {
        let a = generate().unwrap();
        let b = generate().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.0.len(), 64);
        assert!(a.0.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(matches(&a, Some(&a.clone())));
        assert!(!matches(&a, Some(&b)));
        assert!(!matches(&a, None));
        assert!(!matches(&a, Some(&Token(a.0[..63].into()))));
        assert!(!matches(&a, Some(&Token(String::new()))));
    }
}
