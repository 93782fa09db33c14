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

/// File names (lowercase) that hold secrets by convention.
pub const SECRET_NAMES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".htpasswd",
    ".git-credentials",
    ".vault-token",
    ".s3cfg",
    ".dockercfg",
    "credentials",
    "credentials.json",
    "application_default_credentials.json",
    "secrets.json",
    "secrets.yaml",
    "secrets.yml",
    "secrets.toml",
    "terraform.tfstate",
    "terraform.tfstate.backup",
];

/// File name endings (lowercase) of secrets: private keys, certificates with keys, key stores,
/// Terraform variables.
pub const SECRET_SUFFIXES: &[&str] = &[
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".ppk",
    ".keystore",
    ".jks",
    ".tfvars",
    ".tfstate",
];

/// File name beginnings (lowercase) of secrets: `.env`, `.env.production`, ….
pub const SECRET_PREFIXES: &[&str] = &[".env"];

/// (folder, file name) pairs, lowercase, that are secrets only in that folder.
pub const SECRET_IN_DIR: &[(&str, &str)] = &[
    (".kube", "config"),
    (".docker", "config.json"),
    (".aws", "config"),
    (".ssh", "config"),
];

/// True for files that hold secrets by convention (the lists above), compared case-insensitively.
/// The one list the engine's filter, `read`/`grep`/`search` and the bridge's archive all use.
pub fn is_secret(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let mut parts = lower.rsplit(['/', '\\']);
    let name = parts.next().unwrap_or_default();
    let dir = parts.next().unwrap_or_default();
    SECRET_PREFIXES.iter().any(|p| name.starts_with(p))
        || SECRET_SUFFIXES.iter().any(|s| name.ends_with(s))
        || SECRET_NAMES.contains(&name)
        || SECRET_IN_DIR.iter().any(|&(d, n)| d == dir && n == name)
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
            ".git-credentials",
            ".PGPASS",
            "etc/.htpasswd",
            "keys/putty.PPK",
            "id_ed25519_sk",
            "id_ecdsa_sk",
            ".kube/config",
            "home/.docker/config.json",
            "infra/terraform.tfstate",
            "prod.tfvars",
            "gcloud/application_default_credentials.json",
            ".vault-token",
            ".s3cfg",
            "app/Secrets.toml",
            ".npmrc",
            ".pypirc",
            ".netrc",
            ".aws/credentials",
            "tls/server.KEY",
            "store.p12",
            "release.keystore",
            "win\\.ENV",
        ] {
            assert!(is_secret(secret), "{secret}");
        }
        for plain in [
            "src/environment.py",
            "config.json",
            "kube/config.py",
            "src/keys.py",
            "docs/credentials.md",
        ] {
            assert!(!is_secret(plain), "{plain}");
        }
        assert!(in_excluded_dir("web/node_modules/x.js") && in_excluded_dir(".git/config"));
        assert!(!in_excluded_dir("src/builder.rs"));
    }
}
