//! Reading a folder from disk into the (path, bytes) pairs the engine ingests, for native
//! programs (benchmarks, the accuracy benchmark). The browser never calls it: the engine does no I/O.

use std::path::Path;

use crate::ingest::SourceFile;

/// Every regular file under `root`, with paths relative to it and `/` separators; unreadable
/// entries are skipped.
pub fn read_tree(root: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && let Ok(bytes) = std::fs::read(&path)
                && let Ok(relative) = path.strip_prefix(root)
            {
                files.push(SourceFile {
                    path: relative.to_string_lossy().replace('\\', "/"),
                    bytes,
                });
            }
        }
    }
    files
}
