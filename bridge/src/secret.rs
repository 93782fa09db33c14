//! The browser's secret: 64 hex digits in a 0600 file beside the hub's token file, created once
//! and kept, so the link with it (`/?token=…`) keeps working across hub restarts and takeovers.
//! Only `serve` (once) and `status --link` print the link; hints name the command instead.

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

/// The command that prints the link to the hub on `port`: what hints and logs name instead of
/// the link itself, which would carry the secret into agents' transcripts.
pub fn link_command(port: u16) -> String {
    if port == nexus_shared::limits::DEFAULT_PORT {
        "nexus-bridge status --link".into()
    } else {
        format!("nexus-bridge status --link --port {port}")
    }
}

/// Writes a page that sends the browser on to `url`, readable by this user only, beside the
/// secret (`open-PORT.html`): `serve --open` opens this file, so the secret is never on a
/// command line (which every user can read in /proc). Returns its path.
pub fn redirect_file(port: u16, url: &str) -> Result<PathBuf, String> {
    let path = path()?.with_file_name(format!("open-{port}.html"));
    let page = format!(
        "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">\
         <meta http-equiv=\"refresh\" content=\"0;url={url}\"><title>Nexus</title>\
         <p><a href=\"{url}\">Open Nexus</a></p>\n"
    );
    let temp = token::write_private_temp(&path, page.as_bytes())
        .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    std::fs::rename(&temp, &path)
        .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    Ok(path)
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

    #[test]
    fn the_link_command_names_the_port_unless_it_is_the_default() {
        assert_eq!(link_command(54319), "nexus-bridge status --link");
        assert_eq!(link_command(4000), "nexus-bridge status --link --port 4000");
    }
}
