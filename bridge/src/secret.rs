//! The browser's secret: 64 hex digits in a 0600 file beside the hub's token file, created once
//! and kept, so the link with it (`/?token=…`) keeps working across hub restarts and takeovers.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use nexus_shared::Token;

use crate::token;

/// The browser secret's file for the current user.
pub fn path() -> Result<PathBuf, String> {
    token::path(0).map(|p| p.with_file_name("browser-token"))
}

/// Reads the secret, or creates it when the file is missing; a damaged file or one others could
/// read is replaced. Hubs starting at once agree: the first file linked into place wins.
pub fn load_or_create(path: &Path) -> Result<Token, String> {
    for _ in 0..3 {
        if let Ok(token) = read(path) {
            return Ok(token);
        }
        if std::fs::symlink_metadata(path).is_ok() {
            // Present but not trusted (damaged or readable by others): start afresh.
            let _ = std::fs::remove_file(path);
        }
        let token = token::generate()?;
        match create(path, &token) {
            Ok(()) => return Ok(token),
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(format!("cannot write {}: {err}", path.display())),
        }
    }
    read(path)
}

/// Reads the secret; refuses a file other users could read or one that is not 64 hex digits.
pub fn read(path: &Path) -> Result<Token, String> {
    let shown = path.display();
    let meta = std::fs::symlink_metadata(path).map_err(|err| format!("{shown}: {err}"))?;
    if !meta.is_file() || meta.permissions().mode() & 0o077 != 0 {
        return Err(format!("{shown} is not a private file"));
    }
    let text = std::fs::read_to_string(path).map_err(|err| format!("{shown}: {err}"))?;
    let text = text.trim();
    if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("{shown} holds no secret"));
    }
    Ok(Token(text.to_owned()))
}

/// Creates the file with the secret (folder 0700, file 0600), fully written before it appears;
/// `AlreadyExists` when another process created it first.
fn create(path: &Path, token: &Token) -> std::io::Result<()> {
    let temp = token::write_private_temp(path, token.0.as_bytes())?;
    let linked = std::fs::hard_link(&temp, path);
    let _ = std::fs::remove_file(&temp);
    linked
}

/// The address that opens the UI with its secret.
pub fn url(port: u16, token: &Token) -> String {
    format!("http://127.0.0.1:{port}/?token={}", token.0)
}

/// The secret URL of the hub on `port` when this user's secret file exists, else the bare address.
pub fn url_or_plain(port: u16) -> String {
    match path().and_then(|p| read(&p)) {
        Ok(token) => url(port, &token),
        Err(_) => format!("http://127.0.0.1:{port}/"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_once_private_and_kept() {
        let dir = std::env::temp_dir().join(format!("nexus-secret-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("nexus/browser-token");
        let first = load_or_create(&path).unwrap();
        assert_eq!(first.0.len(), 64);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(load_or_create(&path).unwrap(), first);
        // Readable by others: not trusted, replaced by a new secret.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(read(&path).is_err());
        let second = load_or_create(&path).unwrap();
        assert_ne!(second, first);
        std::fs::write(&path, "short").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(read(&path).is_err());
        assert!(url(54319, &second).ends_with(&second.0));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
