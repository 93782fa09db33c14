//! Which files of a source tree get indexed: `.gitignore` rules (nested files too), default
//! excludes, secrets (never indexed), binary files and files over the size cap.

use ignore::gitignore::{Gitignore, GitignoreBuilder};

pub use nexus_shared::source_rules::{
    MAX_FILE_BYTES as DEFAULT_MAX_FILE_BYTES, in_excluded_dir, is_secret,
};

/// Why a file was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    Excluded,
    Ignored,
    Secret,
    Binary,
    TooLarge,
    NotSource,
}

/// A NUL byte in the first 8 KiB marks a binary file.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|&b| b == 0)
}

/// `.gitignore` rules collected from the tree, each applying below its own folder.
pub struct Filter {
    ignores: Vec<(String, Gitignore)>,
    /// Files larger than this many bytes are skipped.
    pub max_file_bytes: usize,
}

impl Filter {
    /// Builds the rules from every `.gitignore` among `files` (path, content).
    pub fn new<'a>(
        gitignores: impl Iterator<Item = (&'a str, &'a [u8])>,
        max_file_bytes: usize,
    ) -> Filter {
        let mut filter = Filter {
            ignores: Vec::new(),
            max_file_bytes,
        };
        for (path, content) in gitignores {
            filter.add_gitignore(path, content);
        }
        filter
    }

    /// Adds the rules of one `.gitignore` (its path and content); they apply below its folder.
    /// A walk that reads a folder's `.gitignore` before the rest of it can then skip what it
    /// names without reading it.
    pub fn add_gitignore(&mut self, path: &str, content: &[u8]) {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        let mut builder = GitignoreBuilder::new(if dir.is_empty() { "/" } else { dir });
        for line in String::from_utf8_lossy(content).lines() {
            // A malformed pattern is skipped; the rest of the file still applies.
            let _ = builder.add_line(None, line);
        }
        if let Ok(ignore) = builder.build() {
            self.ignores.push((dir.to_owned(), ignore));
        }
    }

    /// Decides on a path before its content is read (folders, secrets, ignore rules).
    pub fn check_path(&self, path: &str) -> Result<(), Skip> {
        if in_excluded_dir(path) {
            return Err(Skip::Excluded);
        }
        if is_secret(path) {
            return Err(Skip::Secret);
        }
        if self.ignored(path, false) {
            return Err(Skip::Ignored);
        }
        Ok(())
    }

    /// Decides on a folder before it is listed: an excluded or ignored folder is not entered.
    pub fn check_dir(&self, path: &str) -> Result<(), Skip> {
        if in_excluded_dir(path) {
            return Err(Skip::Excluded);
        }
        if self.ignored(path, true) {
            return Err(Skip::Ignored);
        }
        Ok(())
    }

    /// Whether a `.gitignore` above `path` ignores it or one of its folders.
    fn ignored(&self, path: &str, is_dir: bool) -> bool {
        self.ignores.iter().any(|(dir, ignore)| {
            let relative = if dir.is_empty() {
                Some(path)
            } else {
                path.strip_prefix(dir.as_str())
                    .and_then(|rest| rest.strip_prefix('/'))
            };
            relative.is_some_and(|relative| {
                ignore
                    .matched_path_or_any_parents(relative, is_dir)
                    .is_ignore()
            })
        })
    }

    /// Decides on a file with its content.
    pub fn check(&self, path: &str, bytes: &[u8]) -> Result<(), Skip> {
        self.check_path(path)?;
        if bytes.len() > self.max_file_bytes {
            return Err(Skip::TooLarge);
        }
        if is_binary(bytes) {
            return Err(Skip::Binary);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_gitignores_apply_below_their_folder() {
        let root: &[u8] = b"*.log\n/generated/\n[invalid\n";
        let nested: &[u8] = b"fixtures/\n!keep.log\n";
        let filter = Filter::new(
            [(".gitignore", root), ("pkg/.gitignore", nested)].into_iter(),
            DEFAULT_MAX_FILE_BYTES,
        );
        assert_eq!(filter.check_path("app.log"), Err(Skip::Ignored));
        assert_eq!(filter.check_path("generated/a.py"), Err(Skip::Ignored));
        assert_eq!(filter.check_path("pkg/fixtures/x.py"), Err(Skip::Ignored));
        assert_eq!(filter.check_path("other/fixtures/x.py"), Ok(()));
        assert_eq!(filter.check_path("src/main.py"), Ok(()));
    }

    #[test]
    fn defaults_secrets_binaries_and_size() {
        let filter = Filter::new(std::iter::empty(), 10);
        assert_eq!(
            filter.check_path("a/node_modules/x.js"),
            Err(Skip::Excluded)
        );
        assert_eq!(filter.check_path(".git/config"), Err(Skip::Excluded));
        assert_eq!(
            filter.check_path("deploy/.env.production"),
            Err(Skip::Secret)
        );
        assert_eq!(filter.check_path("certs/server.pem"), Err(Skip::Secret));
        assert_eq!(filter.check("a.py", b"x\0y"), Err(Skip::Binary));
        assert_eq!(filter.check("a.py", b"0123456789ab"), Err(Skip::TooLarge));
        assert_eq!(filter.check("a.py", b"ok"), Ok(()));
    }

    #[test]
    fn folders_are_judged_before_they_are_listed_as_each_gitignore_is_read() {
        let mut filter = Filter::new(std::iter::empty(), DEFAULT_MAX_FILE_BYTES);
        assert_eq!(filter.check_dir("generated"), Ok(()));
        filter.add_gitignore(".gitignore", b"generated/\n*.log\n");
        assert_eq!(filter.check_dir("generated"), Err(Skip::Ignored));
        assert_eq!(filter.check_dir("src/generated"), Err(Skip::Ignored));
        // `generated/` names folders only: a file of that name stays.
        assert_eq!(filter.check_path("generated"), Ok(()));
        assert_eq!(filter.check_dir("node_modules"), Err(Skip::Excluded));
        assert_eq!(filter.check_dir("src"), Ok(()));
        filter.add_gitignore("src/.gitignore", b"local/\nscratch.py\n");
        assert_eq!(filter.check_dir("src/local"), Err(Skip::Ignored));
        assert_eq!(filter.check_dir("local"), Ok(()));
        assert_eq!(filter.check_path("src/scratch.py"), Err(Skip::Ignored));
        assert_eq!(filter.check_path("srcx/scratch.py"), Ok(()));
        assert_eq!(filter.check_path("src/app.log"), Err(Skip::Ignored));
        assert_eq!(filter.check_path("src/main.py"), Ok(()));
    }
}
