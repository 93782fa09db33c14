//! Serves the `--repo` folder to the page, read-only and on loopback only: `GET /api/repo` names
//! it, `GET /api/repo.zip` streams it as an uncompressed ZIP without excluded folders, secrets,
//! symlinks or files over 1 MB. The page indexes it by itself when it has no graph yet.

use std::io::Write;
use std::path::{Path, PathBuf};

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use nexus_shared::source_rules::{MAX_FILE_BYTES, in_excluded_dir, is_secret};

/// At most this many files are served from one repository.
pub const MAX_FILES: usize = 200_000;

/// The repository the bridge offers, checked at start-up.
#[derive(Debug, Clone)]
pub struct Repo {
    pub root: PathBuf,
    pub name: String,
}

impl Repo {
    /// Checks that `path` is a readable folder.
    pub fn open(path: &Path) -> Result<Repo, String> {
        let root = path
            .canonicalize()
            .map_err(|err| format!("--repo {}: {err}", path.display()))?;
        if !root.is_dir() {
            return Err(format!("--repo {}: not a folder", path.display()));
        }
        let name = root.file_name().map_or_else(
            || "repository".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok(Repo { root, name })
    }

    /// Relative paths of the files served, in order, without following symlinks.
    pub fn files(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![self.root.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                let Ok(relative) = path.strip_prefix(&self.root) else {
                    continue;
                };
                let relative = relative.to_string_lossy().replace('\\', "/");
                if kind.is_symlink() || in_excluded_dir(&relative) {
                    continue;
                }
                if kind.is_dir() {
                    stack.push(path);
                } else if kind.is_file()
                    && !is_secret(&relative)
                    && entry
                        .metadata()
                        .is_ok_and(|m| m.len() <= MAX_FILE_BYTES as u64)
                {
                    out.push(relative);
                }
                if out.len() >= MAX_FILES {
                    return out;
                }
            }
        }
        out.sort();
        out
    }

    /// The files as an uncompressed ZIP (fast to write and read on loopback).
    pub fn zip(&self) -> std::io::Result<Vec<u8>> {
        let mut cursor = std::io::Cursor::new(Vec::new());
        {
            let mut writer = zip::ZipWriter::new(&mut cursor);
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored)
                .large_file(false);
            for relative in self.files() {
                // A file that vanished or cannot be read is skipped; the rest is still served.
                let Ok(bytes) = std::fs::read(self.root.join(&relative)) else {
                    continue;
                };
                writer
                    .start_file(relative, options)
                    .map_err(std::io::Error::other)?;
                writer.write_all(&bytes)?;
            }
            writer.finish().map_err(std::io::Error::other)?;
        }
        Ok(cursor.into_inner())
    }
}

/// True when the request is addressed to this machine's loopback name (no DNS rebinding).
pub fn loopback_host(headers: &HeaderMap) -> bool {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let name = host.rsplit_once(':').map_or(host, |(n, _)| n);
    matches!(name, "127.0.0.1" | "localhost" | "[::1]")
}

pub async fn info(repo: Option<Repo>, headers: HeaderMap) -> Response {
    if !loopback_host(&headers) {
        return StatusCode::FORBIDDEN.into_response();
    }
    match repo {
        Some(repo) => axum::Json(serde_json::json!({ "name": repo.name })).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            "this bridge serves no repository (start it with --repo PATH)",
        )
            .into_response(),
    }
}

pub async fn archive(repo: Option<Repo>, headers: HeaderMap) -> Response {
    if !loopback_host(&headers) {
        return StatusCode::FORBIDDEN.into_response();
    }
    let Some(repo) = repo else {
        return (StatusCode::NOT_FOUND, "this bridge serves no repository").into_response();
    };
    match tokio::task::spawn_blocking(move || repo.zip()).await {
        Ok(Ok(bytes)) => ([(header::CONTENT_TYPE, "application/zip")], bytes).into_response(),
        Ok(Err(err)) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot read the repository: {err}"),
        )
            .into_response(),
        Err(err) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot read the repository: {err}"),
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_source_but_not_secrets_excluded_folders_large_files_or_symlinks() {
        let dir = std::env::temp_dir().join(format!("nexus-repo-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, size) in [
            ("src/a.py", 10),
            ("node_modules/x.js", 10),
            (".env", 10),
            ("big.py", MAX_FILE_BYTES + 1),
            ("docs/readme.md", 10),
        ] {
            let full = dir.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, vec![b'a'; size]).unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(&dir, dir.join("src/loop")).unwrap();
        let repo = Repo::open(&dir).unwrap();
        assert_eq!(repo.files(), ["docs/readme.md", "src/a.py"]);
        let zip = repo.zip().unwrap();
        assert!(zip.starts_with(b"PK"));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(Repo::open(&dir).is_err());
    }

    #[test]
    fn only_loopback_hosts_are_answered() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, "127.0.0.1:54319".parse().unwrap());
        assert!(loopback_host(&headers));
        headers.insert(header::HOST, "evil.example:54319".parse().unwrap());
        assert!(!loopback_host(&headers));
    }
}
