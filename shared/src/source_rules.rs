//! What never leaves a repository folder: excluded folders and secret files. The bridge applies
//! these when it serves a repository, and the engine applies them again when it indexes.

/// Folders never indexed or served, wherever they appear.
pub const EXCLUDED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "target",
    "dist",
    "build",
    "vendor",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".next",
    ".nuxt",
    "coverage",
    ".idea",
    ".vscode",
    "bower_components",
    ".gradle",
    "out",
];

/// Largest file indexed or served, in bytes.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;

/// True for files that hold secrets by convention: `.env*`, keys, certificates, credentials.
pub fn is_secret(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    name.starts_with(".env")
        || [".pem", ".key", ".p12", ".pfx", ".keystore", ".jks"]
            .iter()
            .any(|ext| name.ends_with(ext))
        || matches!(
            name.as_str(),
            "id_rsa"
                | "id_dsa"
                | "id_ecdsa"
                | "id_ed25519"
                | ".netrc"
                | ".npmrc"
                | ".pypirc"
                | "credentials"
                | "credentials.json"
                | "secrets.json"
                | "secrets.yaml"
                | "secrets.yml"
        )
}

/// True when any folder of the path is excluded.
pub fn in_excluded_dir(path: &str) -> bool {
    path.split('/').any(|part| EXCLUDED_DIRS.contains(&part))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_and_excluded_folders() {
        for secret in [
            ".env",
            "deploy/.env.production",
            "certs/server.pem",
            "home/.ssh/id_ed25519",
            "Credentials.json",
        ] {
            assert!(is_secret(secret), "{secret}");
        }
        assert!(!is_secret("src/environment.py"));
        assert!(in_excluded_dir("web/node_modules/x.js") && in_excluded_dir(".git/config"));
        assert!(!in_excluded_dir("src/builder.rs"));
    }
}
