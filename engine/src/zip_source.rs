//! Reads a ZIP archive into source files, with limits against ZIP bombs (entry count, total
//! uncompressed size, per-entry size) and a clear error for archives that cannot be read.

use std::io::{Cursor, Read};

use super::filter::DEFAULT_MAX_FILE_BYTES;
use super::ingest::SourceFile;

/// At most this many entries are read from one archive.
pub const MAX_ENTRIES: usize = 200_000;
/// At most this many uncompressed bytes are read from one archive in total.
pub const MAX_TOTAL_BYTES: u64 = 2 * 1024 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZipError {
    Unreadable(String),
    TooManyEntries(usize),
    TooLarge(u64),
}

impl std::fmt::Display for ZipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ZipError::Unreadable(why) => write!(f, "the ZIP archive cannot be read: {why}"),
            ZipError::TooManyEntries(n) => write!(
                f,
                "the ZIP archive has {n} entries; at most {MAX_ENTRIES} are read"
            ),
            ZipError::TooLarge(n) => write!(
                f,
                "the ZIP archive expands to over {n} bytes; at most {MAX_TOTAL_BYTES} are read"
            ),
        }
    }
}

/// What reading skipped, besides returning the files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ZipReport {
    pub entries: usize,
    pub skipped_large: usize,
    pub skipped_unreadable: usize,
}

/// How an archive's entry names become paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZipPaths {
    /// A single top-level folder shared by every entry is stripped, so `repo-main/src/a.py`
    /// becomes `src/a.py` (an archive a person made or downloaded).
    StripCommonRoot,
    /// Entry names are the paths (the bridge's archives of its repository, whose paths must
    /// match its listing even when every file lies in one folder).
    AsWritten,
}

/// Extracts the files of an archive. A single top-level folder shared by every entry is
/// stripped, so `repo-main/src/a.py` becomes `src/a.py`. Oversized entries are skipped (the
/// ingest filter would drop them anyway) without being decompressed.
pub fn read_zip(bytes: &[u8]) -> Result<(Vec<SourceFile>, ZipReport), ZipError> {
    read_zip_from(Cursor::new(bytes), ZipPaths::StripCommonRoot)
}

/// `read_zip` over any seekable reader (the worker reads straight from a JS buffer, so the
/// archive is never copied whole into wasm memory), with entry names read as `paths` says.
pub fn read_zip_from(
    reader: impl std::io::Read + std::io::Seek,
    paths: ZipPaths,
) -> Result<(Vec<SourceFile>, ZipReport), ZipError> {
    let mut archive =
        zip::ZipArchive::new(reader).map_err(|e| ZipError::Unreadable(e.to_string()))?;
    if archive.len() > MAX_ENTRIES {
        return Err(ZipError::TooManyEntries(archive.len()));
    }
    let mut report = ZipReport {
        entries: archive.len(),
        ..ZipReport::default()
    };
    let mut files = Vec::new();
    let mut total: u64 = 0;
    for i in 0..archive.len() {
        let mut entry = match archive.by_index(i) {
            Ok(entry) => entry,
            Err(_) => {
                report.skipped_unreadable += 1;
                continue;
            }
        };
        if entry.is_dir() || entry.is_symlink() {
            continue;
        }
        let Some(path) = entry
            .enclosed_name()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
        else {
            report.skipped_unreadable += 1;
            continue;
        };
        if entry.size() > DEFAULT_MAX_FILE_BYTES as u64 {
            report.skipped_large += 1;
            continue;
        }
        let mut content = Vec::with_capacity(entry.size() as usize);
        // Read at most one byte past the declared size: a lying header cannot inflate further.
        let limit = DEFAULT_MAX_FILE_BYTES as u64 + 1;
        if (&mut entry).take(limit).read_to_end(&mut content).is_err() {
            report.skipped_unreadable += 1;
            continue;
        }
        if content.len() as u64 > DEFAULT_MAX_FILE_BYTES as u64 {
            report.skipped_large += 1;
            continue;
        }
        total += content.len() as u64;
        if total > MAX_TOTAL_BYTES {
            return Err(ZipError::TooLarge(MAX_TOTAL_BYTES));
        }
        files.push(SourceFile {
            path,
            bytes: content,
        });
    }
    if paths == ZipPaths::StripCommonRoot {
        strip_common_root(&mut files);
    }
    Ok((files, report))
}

fn strip_common_root(files: &mut [SourceFile]) {
    let Some(first) = files.first() else { return };
    let Some((root, _)) = first.path.split_once('/') else {
        return;
    };
    let prefix = format!("{root}/");
    if files.iter().all(|f| f.path.starts_with(&prefix)) {
        for f in files.iter_mut() {
            f.path = f.path[prefix.len()..].to_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn archive(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut out);
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            for (name, data) in entries {
                w.start_file(*name, options).unwrap();
                w.write_all(data).unwrap();
            }
            w.finish().unwrap();
        }
        out.into_inner()
    }

    #[test]
    fn archives_of_the_bridge_keep_their_paths() {
        let mut zip = Vec::new();
        {
            let mut w = zip::ZipWriter::new(std::io::Cursor::new(&mut zip));
            let opts = zip::write::SimpleFileOptions::default();
            for name in ["app/a.py", "app/b.py"] {
                w.start_file(name, opts).unwrap();
                w.write_all(b"x = 1\n").unwrap();
            }
            w.finish().unwrap();
        }
        let (files, _) = read_zip_from(Cursor::new(&zip), ZipPaths::AsWritten).unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["app/a.py", "app/b.py"]);
        let (files, _) = read_zip(&zip).unwrap();
        assert_eq!(
            files[0].path, "a.py",
            "a person's archive loses its one top folder"
        );
    }

    #[test]
    fn files_come_out_with_the_common_root_stripped() {
        let zip = archive(&[
            ("repo-main/src/a.py", b"def a(): pass"),
            ("repo-main/README.md", b"hi"),
        ]);
        let (files, report) = read_zip(&zip).unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["src/a.py", "README.md"]);
        assert_eq!(report.entries, 2);
    }

    #[test]
    fn oversized_entries_are_skipped_without_inflating() {
        let big = vec![b'a'; DEFAULT_MAX_FILE_BYTES + 10];
        let zip = archive(&[("big.py", &big), ("ok.py", b"x = 1")]);
        let (files, report) = read_zip(&zip).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(report.skipped_large, 1);
    }

    #[test]
    fn corrupt_and_truncated_archives_are_clear_errors() {
        assert!(matches!(
            read_zip(b"not a zip at all"),
            Err(ZipError::Unreadable(_))
        ));
        let zip = archive(&[("a.py", b"def a(): pass")]);
        assert!(matches!(
            read_zip(&zip[..zip.len() / 2]),
            Err(ZipError::Unreadable(_))
        ));
        assert!(matches!(read_zip(&[]), Err(ZipError::Unreadable(_))));
        let message = read_zip(b"PK\x05\x06garbage").unwrap_err().to_string();
        assert!(
            message.starts_with("the ZIP archive cannot be read"),
            "{message}"
        );
    }

    #[test]
    fn path_traversal_entries_are_not_returned() {
        let zip = archive(&[("../escape.py", b"x = 1"), ("safe/a.py", b"y = 2")]);
        let (files, report) = read_zip(&zip).unwrap();
        assert!(
            files.iter().all(|f| !f.path.contains("..")),
            "{:?}",
            files.iter().map(|f| &f.path).collect::<Vec<_>>()
        );
        assert_eq!(report.skipped_unreadable, 1);
    }
}
