//! Serves the `--repo` folder to the page, read-only and on loopback only: its name, a streamed ZIP
//! of it or of chosen files, a manifest with hashes; never excluded folders, ignored files,
//! secrets, symlinks, special files or files over 1 MB (`Rules` decides, path by path).

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use nexus_shared::source_rules::{MAX_FILE_BYTES, in_excluded_dir, is_secret};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// At most this many files are served from one repository; the rest are left out, each named.
pub const MAX_FILES: usize = 1_000_000;
/// Repositories with more files than this are sent to the tab in batches
/// (`POST /api/repo/files`) rather than as one archive; `--stream-threshold` changes it.
pub const STREAM_THRESHOLD: usize = 20_000;
/// At most this many bytes of file contents go into one archive; the rest is left out.
pub const MAX_ARCHIVE_BYTES: u64 = 256 * 1024 * 1024;
/// The archive is sent in chunks of this size, at most `CHUNKS_AHEAD` ahead of the client.
const CHUNK_BYTES: usize = 64 * 1024;
const CHUNKS_AHEAD: usize = 4;

/// The repository the bridge offers, checked at start-up.
#[derive(Debug, Clone)]
pub struct Repo {
    pub root: PathBuf,
    pub name: String,
    /// Above this many files the page streams the repository in batches.
    pub stream_threshold: usize,
}

/// A file the listing found but does not serve although no rule keeps it out (too large, a name
/// a ZIP cannot carry, past `MAX_FILES`): named in the manifest so the page can say so.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LeftOut {
    pub path: String,
    pub size: u64,
    pub why: &'static str,
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
        Ok(Repo {
            root,
            name,
            stream_threshold: STREAM_THRESHOLD,
        })
    }

    /// Relative paths of the files served, in order, without following symlinks. `.gitignore`
    /// files apply below their folder, as in the engine's filter.
    pub fn files(&self) -> Vec<String> {
        self.scan("").into_keys().collect()
    }

    /// The files served under the folder `dir` (relative, `""` for the root) with their size
    /// and modification time; empty when that folder itself is not served.
    pub fn scan(&self, dir: &str) -> BTreeMap<String, Stat> {
        self.scan_reporting(dir, &mut Vec::new())
    }

    /// [`Repo::scan`], also naming in `left_out` the files no rule keeps out that are still not
    /// served: over `MAX_FILE_BYTES`, a name that is not UTF-8 or holds a backslash, or past
    /// `MAX_FILES`.
    pub fn scan_reporting(&self, dir: &str, left_out: &mut Vec<LeftOut>) -> BTreeMap<String, Stat> {
        let mut out = BTreeMap::new();
        let Some(ignores) = Rules::new(self).inside(dir) else {
            return out;
        };
        let mut stack: Vec<(PathBuf, Vec<Arc<Gitignore>>)> = vec![(self.root.join(dir), ignores)];
        let mut first = true;
        let mut unnamed = 0usize;
        while let Some((dir, mut ignores)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            // The start folder's own rules are in its chain already.
            if !std::mem::take(&mut first)
                && let Some(ignore) = self.gitignore(&dir)
            {
                ignores.push(Arc::new(ignore));
            }
            for entry in entries.flatten() {
                let (Ok(kind), Ok(meta)) = (entry.file_type(), entry.metadata()) else {
                    continue;
                };
                let path = entry.path();
                let Some(relative) = self.relative(&path) else {
                    unnamed += 1;
                    if kind.is_file() {
                        left_out.push(LeftOut {
                            path: path
                                .strip_prefix(&self.root)
                                .unwrap_or(&path)
                                .to_string_lossy()
                                .into_owned(),
                            size: meta.len(),
                            why: "its name is not UTF-8 or holds a backslash",
                        });
                    }
                    continue;
                };
                if kind.is_dir() {
                    if !in_excluded_dir(&relative) && !ignored(&ignores, &path, true) {
                        stack.push((path, ignores.clone()));
                    }
                } else if let Some(stat) = served_file(&relative, &path, &meta, &ignores) {
                    if out.len() >= MAX_FILES {
                        left_out.push(LeftOut {
                            path: relative,
                            size: stat.size,
                            why: "past the bridge's file count cap",
                        });
                    } else {
                        out.insert(relative, stat);
                    }
                } else if meta.is_file()
                    && meta.len() > MAX_FILE_BYTES as u64
                    && !in_excluded_dir(&relative)
                    && !is_secret(&relative)
                    && !ignored(&ignores, &path, false)
                {
                    left_out.push(LeftOut {
                        path: relative,
                        size: meta.len(),
                        why: "larger than the 1 MB file size cap",
                    });
                }
            }
        }
        if unnamed > 0 {
            tracing::warn!(
                "{unnamed} files or folders of the repository are not served: their names hold a backslash (a ZIP reader would take it for `/`) or are not UTF-8"
            );
        }
        out
    }

    /// `path` relative to the root, `/`-separated; `None` outside it, for the root itself, and
    /// for a name that is not UTF-8 or holds a backslash: a ZIP reader takes `\\` for `/`, so
    /// `a\\b` would stand for `a/b`, which the rules may keep out (such files are not served).
    pub fn relative(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.root).ok()?.to_str()?;
        (!relative.is_empty() && !relative.contains('\\')).then(|| relative.to_owned())
    }

    /// The rules of `dir/.gitignore`, if it has one.
    fn gitignore(&self, dir: &Path) -> Option<Gitignore> {
        let bytes = self.read(&dir.join(".gitignore")).ok()?;
        let mut builder = GitignoreBuilder::new(dir);
        for line in String::from_utf8_lossy(&bytes).lines() {
            // A malformed pattern is skipped; the rest of the file still applies.
            let _ = builder.add_line(None, line);
        }
        builder.build().ok()
    }

    /// Reads one file of the repository: never through a symlink, only a regular file, only
    /// inside the root (checked on the open file), and at most `MAX_FILE_BYTES`.
    pub fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.read_stat(path).map(|(bytes, _)| bytes)
    }

    /// [`Repo::read`], also giving the size and modification time the open file had before it
    /// was read (what a hash of these bytes is cached under).
    fn read_stat(&self, path: &Path) -> std::io::Result<(Vec<u8>, Stat)> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(std::io::Error::other("not a regular file"));
        }
        if !self.holds(&file, path) {
            return Err(std::io::Error::other("outside the repository"));
        }
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES as u64 + 1)
            .read_to_end(&mut bytes)?;
        if bytes.len() > MAX_FILE_BYTES {
            return Err(std::io::Error::other("larger than the size cap"));
        }
        Ok((bytes, Stat::of(&meta)))
    }

    /// True when the open file really lies under the root (a folder on the way may have been
    /// swapped for a symlink after the listing).
    fn holds(&self, file: &std::fs::File, path: &Path) -> bool {
        use std::os::fd::AsRawFd;
        let real = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
            .or_else(|_| path.canonicalize());
        real.is_ok_and(|real| real.starts_with(&self.root))
    }

    /// Writes the files as an uncompressed ZIP (fast to write and read on loopback) to `out`,
    /// until `MAX_ARCHIVE_BYTES` of contents; stops at the first write error (client gone).
    pub fn zip_to(&self, out: impl Write) -> std::io::Result<()> {
        self.zip_files(self.files(), out, None)
    }

    /// Writes the named files as an uncompressed ZIP to `out`, in the order given, each read
    /// through [`Repo::read`]; the caller has checked them against the serving rules. With
    /// `hashes`, each file's hash goes into that cache as it is read, so a manifest after the
    /// transfer reads none of them again.
    pub fn zip_files(
        &self,
        paths: impl IntoIterator<Item = String>,
        out: impl Write,
        hashes: Option<&HashCache>,
    ) -> std::io::Result<()> {
        let mut writer = zip::ZipWriter::new_stream(out);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(false);
        let mut total = 0u64;
        for relative in paths {
            // A file that vanished, changed kind or grew past the cap is skipped.
            let Ok((bytes, stat)) = self.read_stat(&self.root.join(&relative)) else {
                continue;
            };
            if let Some(cache) = hashes {
                let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
                lock(&cache.0).insert(relative.clone(), (stat, hash));
            }
            total += bytes.len() as u64;
            if total > MAX_ARCHIVE_BYTES {
                tracing::warn!(
                    "the repository has over {MAX_ARCHIVE_BYTES} bytes of files; the rest is left out"
                );
                break;
            }
            writer
                .start_file(relative, options)
                .map_err(std::io::Error::other)?;
            writer.write_all(&bytes)?;
        }
        writer.finish().map_err(std::io::Error::other)?;
        Ok(())
    }
}

/// A served file's size and modification time (nanoseconds since the epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub size: u64,
    pub mtime_ns: u64,
}

impl Stat {
    fn of(meta: &std::fs::Metadata) -> Stat {
        use std::os::unix::fs::MetadataExt;
        let mtime_ns = (meta.mtime().max(0) as u64)
            .saturating_mul(1_000_000_000)
            .saturating_add(meta.mtime_nsec().max(0) as u64);
        Stat {
            size: meta.len(),
            mtime_ns,
        }
    }
}

/// The serving rules for single paths, remembering the `.gitignore` chain of each folder seen.
pub struct Rules<'a> {
    repo: &'a Repo,
    /// Folder (relative, `""` for the root) → the rules applying to its entries; `None` when
    /// the folder itself is not served.
    chains: HashMap<String, Option<Vec<Arc<Gitignore>>>>,
    /// Folder → the names of its entries as the disk spells them.
    names: HashMap<String, std::collections::HashSet<std::ffi::OsString>>,
}

impl<'a> Rules<'a> {
    pub fn new(repo: &'a Repo) -> Self {
        Rules {
            repo,
            chains: HashMap::new(),
            names: HashMap::new(),
        }
    }

    /// Whether folder `dir` holds an entry spelled exactly `name`. On a case-insensitive file
    /// system `.GIT/config` opens `.git/config`, which the rules (compared as spelled) would not
    /// recognise as excluded: only names as the disk spells them are served.
    fn spelled(&mut self, dir: &str, name: &str) -> bool {
        let root = &self.repo.root;
        self.names
            .entry(dir.to_owned())
            .or_insert_with(|| {
                std::fs::read_dir(root.join(dir))
                    .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
                    .unwrap_or_default()
            })
            .contains(std::ffi::OsStr::new(name))
    }

    /// The file `relative` with its size and modification time, when it is served now: a clean
    /// relative path, every folder on the way served, a regular file (not a symlink), neither
    /// excluded, ignored nor a secret, at most `MAX_FILE_BYTES`.
    pub fn stat(&mut self, relative: &str) -> Option<Stat> {
        if !clean(relative) {
            return None;
        }
        let (parent, name) = relative.rsplit_once('/').unwrap_or(("", relative));
        let ignores = self.inside(parent)?;
        if !self.spelled(parent, name) {
            return None;
        }
        let path = self.repo.root.join(relative);
        let meta = std::fs::symlink_metadata(&path).ok()?;
        served_file(relative, &path, &meta, &ignores)
    }

    /// Whether `relative` would be served if it existed now (a deleted file: its old text is
    /// shown only then): clean, neither excluded nor a secret, and not ignored by the rules of
    /// its nearest existing folder and those above it.
    pub fn would_serve(&mut self, relative: &str) -> bool {
        if !clean(relative) || in_excluded_dir(relative) || is_secret(relative) {
            return false;
        }
        let parts: Vec<&str> = relative.split('/').collect();
        let mut depth = parts.len() - 1;
        loop {
            let dir = parts[..depth].join("/");
            if let Some(ignores) = self.inside(&dir) {
                return (depth + 1..=parts.len()).all(|k| {
                    let path = self.repo.root.join(parts[..k].join("/"));
                    !ignored(&ignores, &path, k < parts.len())
                });
            }
            // A folder that exists but is not served (ignored, excluded, a symlink) serves
            // nothing below it; a missing one is looked past.
            if depth == 0 || std::fs::symlink_metadata(self.repo.root.join(&dir)).is_ok() {
                return false;
            }
            depth -= 1;
        }
    }

    /// The `.gitignore` rules that apply to the entries of folder `dir`, or `None` when that
    /// folder is not served (missing, a symlink, excluded or ignored, or one above it is).
    fn inside(&mut self, dir: &str) -> Option<Vec<Arc<Gitignore>>> {
        if let Some(chain) = self.chains.get(dir) {
            return chain.clone();
        }
        let path = self.repo.root.join(dir);
        let chain = if dir.is_empty() {
            Some(
                self.repo
                    .gitignore(&path)
                    .map(Arc::new)
                    .into_iter()
                    .collect(),
            )
        } else if !clean(dir) {
            None
        } else {
            let (parent, name) = dir.rsplit_once('/').unwrap_or(("", dir));
            let spelled = self.inside(parent).is_some() && self.spelled(parent, name);
            self.inside(parent)
                .filter(|_| spelled)
                .and_then(|mut ignores| {
                    let meta = std::fs::symlink_metadata(&path).ok()?;
                    if !meta.is_dir() || in_excluded_dir(dir) || ignored(&ignores, &path, true) {
                        return None;
                    }
                    if let Some(ignore) = self.repo.gitignore(&path) {
                        ignores.push(Arc::new(ignore));
                    }
                    Some(ignores)
                })
        };
        self.chains.insert(dir.to_owned(), chain.clone());
        chain
    }
}

/// True for a relative `/`-separated path without empty, `.` or `..` parts.
fn clean(relative: &str) -> bool {
    !relative.is_empty()
        && !relative.contains(['\\', '\0'])
        && relative
            .split('/')
            .all(|part| !matches!(part, "" | "." | ".."))
}

fn ignored(ignores: &[Arc<Gitignore>], path: &Path, is_dir: bool) -> bool {
    ignores.iter().any(|i| i.matched(path, is_dir).is_ignore())
}

/// The file's stat when the listing serves it (its folders already checked).
fn served_file(
    relative: &str,
    path: &Path,
    meta: &std::fs::Metadata,
    ignores: &[Arc<Gitignore>],
) -> Option<Stat> {
    let served = meta.is_file()
        && meta.len() <= MAX_FILE_BYTES as u64
        && !in_excluded_dir(relative)
        && !is_secret(relative)
        && !ignored(ignores, path, false);
    served.then(|| Stat::of(meta))
}

/// A `Write` that hands fixed-size chunks to the response body; fails once the client is gone.
struct ChunkSender {
    buffer: Vec<u8>,
    tx: mpsc::Sender<Bytes>,
}

impl ChunkSender {
    fn send(&mut self) -> std::io::Result<()> {
        let chunk = Bytes::from(std::mem::replace(
            &mut self.buffer,
            Vec::with_capacity(CHUNK_BYTES),
        ));
        self.tx
            .blocking_send(chunk)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    }
}

impl Write for ChunkSender {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let room = CHUNK_BYTES - self.buffer.len();
        let taken = data.len().min(room);
        self.buffer.extend_from_slice(&data[..taken]);
        if self.buffer.len() >= CHUNK_BYTES {
            self.send()?;
        }
        Ok(taken)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.send()
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

/// `GET /api/repo`: the repository's name, how many files of how many bytes it serves, and the
/// page's choice of transfer: one archive, or batches when it has more than `stream_threshold`
/// files or more than `archive_cap` bytes.
pub async fn info(repo: Option<Repo>) -> Response {
    let Some(repo) = repo else {
        return (
            StatusCode::NOT_FOUND,
            "this bridge serves no repository (start it with --repo PATH)",
        )
            .into_response();
    };
    let listed = tokio::task::spawn_blocking(move || {
        let files = repo.scan("");
        let bytes: u64 = files.values().map(|stat| stat.size).sum();
        serde_json::json!({
            "name": repo.name,
            "files": files.len(),
            "bytes": bytes,
            "stream_threshold": repo.stream_threshold,
            "archive_cap": MAX_ARCHIVE_BYTES,
        })
    })
    .await;
    match listed {
        Ok(info) => axum::Json(info).into_response(),
        Err(err) => {
            tracing::error!(%err, "the repository listing failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "the listing failed").into_response()
        }
    }
}

/// Streams the archive. One at a time (`busy` holds one permit): a second request while one
/// runs gets 429. The writer thread stops as soon as the client stops reading.
pub async fn archive(repo: Option<Repo>, busy: Arc<Semaphore>) -> Response {
    let Some(repo) = repo else {
        return no_repo();
    };
    let Ok(permit) = busy.try_acquire_owned() else {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            "an archive of the repository is being sent; retry when it ends",
        )
            .into_response();
    };
    stream_zip(permit, move |out| repo.zip_to(out))
}

/// At most this many paths in one `POST /api/repo/files`.
pub const MAX_REQUESTED_PATHS: usize = 100_000;
/// Largest body of `POST /api/repo/files`.
pub const MAX_REQUEST_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FilesRequest {
    paths: Vec<String>,
}

/// `POST /api/repo/files`: the named files that are served now, as a streamed ZIP; the others
/// (missing, secret, ignored, excluded, symlinked, over the cap, not a clean relative path) are
/// left out without a word. Requests wait their turn (`busy` holds one permit).
pub async fn files(
    repo: Option<Repo>,
    busy: Arc<Semaphore>,
    hashes: Arc<HashCache>,
    body: Bytes,
) -> Response {
    let Some(repo) = repo else {
        return no_repo();
    };
    let request: FilesRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(err) => {
            return bad_request(&format!(
                "the body must be JSON `{{\"paths\": [\"a/b.py\", …]}}`: {err}"
            ));
        }
    };
    if request.paths.len() > MAX_REQUESTED_PATHS {
        return bad_request(&format!(
            "{} paths asked for; at most {MAX_REQUESTED_PATHS} per request",
            request.paths.len()
        ));
    }
    let Ok(permit) = busy.acquire_owned().await else {
        return (StatusCode::SERVICE_UNAVAILABLE, "the bridge is stopping").into_response();
    };
    let mut paths = request.paths;
    paths.sort();
    paths.dedup();
    stream_zip(permit, move |out| {
        let mut rules = Rules::new(&repo);
        let served: Vec<String> = paths
            .into_iter()
            .filter(|path| rules.stat(path).is_some())
            .collect();
        repo.zip_files(served, out, Some(&hashes))
    })
}

/// File hashes by path, valid while the file's size and modification time stay the same.
#[derive(Default)]
pub struct HashCache(Mutex<HashMap<String, (Stat, u64)>>);

#[derive(Debug, serde::Serialize)]
struct ManifestFile {
    path: String,
    size: u64,
    mtime_ms: u64,
    /// Absent when the manifest was asked for without hashes.
    #[serde(skip_serializing_if = "Option::is_none")]
    hash: Option<String>,
}

/// The query of `GET /api/repo/manifest`.
#[derive(Debug, serde::Deserialize)]
pub struct ManifestQuery {
    /// `false`: the listing alone, no file read (a page that fetches every file anyway starts
    /// sooner; the hashes are cached as the files are sent). Default `true`.
    #[serde(default = "with_hashes")]
    hashes: bool,
}

fn with_hashes() -> bool {
    true
}

/// `GET /api/repo/manifest`: every served file with its size, modification time and xxh3-64
/// hash, sorted by path. Unchanged files (same size and mtime) are not read again.
pub async fn manifest(repo: Option<Repo>, cache: Arc<HashCache>, query: ManifestQuery) -> Response {
    let Some(repo) = repo else {
        return no_repo();
    };
    let name = repo.name.clone();
    let listed = tokio::task::spawn_blocking(move || match query.hashes {
        true => manifest_files(&repo, &cache),
        false => listed_files(&repo),
    })
    .await;
    match listed {
        Ok((files, left_out)) => axum::Json(serde_json::json!({
            "name": name,
            "files": files,
            "left_out": left_out,
        }))
        .into_response(),
        Err(err) => {
            tracing::error!(%err, "the manifest task failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "the manifest failed").into_response()
        }
    }
}

/// The served files with their hashes, and the files left out (`LeftOut`).
fn manifest_files(repo: &Repo, cache: &HashCache) -> (Vec<ManifestFile>, Vec<LeftOut>) {
    let known = std::mem::take(&mut *lock(&cache.0));
    let mut fresh = HashMap::new();
    let mut files = Vec::new();
    let mut left_out = Vec::new();
    for (path, stat) in repo.scan_reporting("", &mut left_out) {
        let hash = match known.get(&path) {
            Some(&(cached, hash)) if cached == stat => hash,
            // A file that vanished or changed kind since the listing is left out.
            _ => match repo.read(&repo.root.join(&path)) {
                Ok(bytes) => xxhash_rust::xxh3::xxh3_64(&bytes),
                Err(_) => {
                    left_out.push(LeftOut {
                        path,
                        size: stat.size,
                        why: "unreadable, or changed while listed",
                    });
                    continue;
                }
            },
        };
        fresh.insert(path.clone(), (stat, hash));
        files.push(ManifestFile {
            path,
            size: stat.size,
            mtime_ms: stat.mtime_ns / 1_000_000,
            hash: Some(format!("{hash:016x}")),
        });
    }
    *lock(&cache.0) = fresh;
    left_out.sort_by(|a, b| a.path.cmp(&b.path));
    (files, left_out)
}

/// The served files without hashes (no file is read), and the files left out.
fn listed_files(repo: &Repo) -> (Vec<ManifestFile>, Vec<LeftOut>) {
    let mut left_out = Vec::new();
    let files = repo
        .scan_reporting("", &mut left_out)
        .into_iter()
        .map(|(path, stat)| ManifestFile {
            path,
            size: stat.size,
            mtime_ms: stat.mtime_ns / 1_000_000,
            hash: None,
        })
        .collect();
    left_out.sort_by(|a, b| a.path.cmp(&b.path));
    (files, left_out)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `write` on a blocking thread into a chunked response body, holding `permit` until done.
fn stream_zip(
    permit: OwnedSemaphorePermit,
    write: impl FnOnce(&mut ChunkSender) -> std::io::Result<()> + Send + 'static,
) -> Response {
    let (tx, rx) = mpsc::channel::<Bytes>(CHUNKS_AHEAD);
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let mut out = ChunkSender {
            buffer: Vec::with_capacity(CHUNK_BYTES),
            tx,
        };
        if let Err(err) = write(&mut out).and_then(|()| out.flush()) {
            tracing::info!(%err, "repository archive stopped");
        }
    });
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|chunk| (Ok::<_, std::io::Error>(chunk), rx))
    });
    (
        [(header::CONTENT_TYPE, "application/zip")],
        Body::from_stream(body),
    )
        .into_response()
}

fn no_repo() -> Response {
    (StatusCode::NOT_FOUND, "this bridge serves no repository").into_response()
}

/// A 400 answer with `{"error": message}`.
pub fn bad_request(message: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        axum::Json(serde_json::json!({ "error": message })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive_names(repo: &Repo) -> Vec<String> {
        let mut bytes = Vec::new();
        repo.zip_to(&mut bytes).unwrap();
        let archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let mut names: Vec<String> = archive
            .file_names()
            .map(|name| name.unwrap().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn only_names_spelled_as_on_disk_are_served() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("Src")).unwrap();
        std::fs::write(dir.path().join("Src/Main.py"), "x = 1\n").unwrap();
        let repo = Repo::open(dir.path()).unwrap();
        let mut rules = Rules::new(&repo);
        assert!(rules.stat("Src/Main.py").is_some());
        // What a case-insensitive file system would open all the same.
        assert!(!rules.spelled("", "src") && !rules.spelled("Src", "main.py"));
        assert!(rules.spelled("", "Src") && rules.spelled("Src", "Main.py"));
    }

    #[test]
    fn serves_source_but_not_secrets_ignored_excluded_large_files_or_symlinks() {
        let dir = std::env::temp_dir().join(format!("nexus-repo-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, size) in [
            ("src/a.py", 10),
            ("node_modules/x.js", 10),
            (".env", 10),
            ("Terraform.TFSTATE", 10),
            ("big.py", MAX_FILE_BYTES + 1),
            ("docs/readme.md", 10),
            ("generated/out.py", 10),
            ("src/.gitignore", 0),
            ("src/local.py", 10),
        ] {
            let full = dir.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, vec![b'a'; size]).unwrap();
        }
        std::fs::write(dir.join(".gitignore"), "generated/\n").unwrap();
        std::fs::write(dir.join("src/.gitignore"), "local.py\n").unwrap();
        std::os::unix::fs::symlink(&dir, dir.join("src/loop")).unwrap();
        let repo = Repo::open(&dir).unwrap();
        let served = [".gitignore", "docs/readme.md", "src/.gitignore", "src/a.py"];
        assert_eq!(repo.files(), served);
        assert_eq!(archive_names(&repo), served);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(Repo::open(&dir).is_err());
    }

    #[test]
    fn a_name_with_a_backslash_never_stands_for_an_ignored_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/b"), "ignored secret").unwrap();
        std::fs::write(dir.path().join("a\\b"), "decoy").unwrap();
        std::fs::create_dir_all(dir.path().join("c\\d")).unwrap();
        std::fs::write(dir.path().join("c\\d/e.py"), "x").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "a/\n").unwrap();
        std::fs::write(dir.path().join("ok.py"), "x").unwrap();
        let repo = Repo::open(dir.path()).unwrap();
        assert_eq!(repo.files(), [".gitignore", "ok.py"]);
        assert_eq!(archive_names(&repo), [".gitignore", "ok.py"]);
        assert_eq!(repo.relative(&dir.path().join("a\\b")), None);
        let mut rules = Rules::new(&repo);
        assert!(!rules.would_serve("a\\b") && !rules.would_serve("a/b"));
    }

    #[test]
    fn files_swapped_after_listing_are_not_followed() {
        let dir = std::env::temp_dir().join(format!("nexus-swap-test-{}", std::process::id()));
        let outside = dir.with_extension("outside");
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
        std::fs::create_dir_all(dir.join("repo/sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("x.py"), "outside").unwrap();
        std::fs::write(dir.join("repo/fifo.py"), "a").unwrap();
        std::fs::write(dir.join("repo/link.py"), "a").unwrap();
        std::fs::write(dir.join("repo/sub/x.py"), "a").unwrap();
        let repo = Repo::open(&dir.join("repo")).unwrap();
        // Swaps between listing and reading: a FIFO, a symlinked file, a symlinked folder.
        std::fs::remove_file(dir.join("repo/fifo.py")).unwrap();
        let fifo = std::ffi::CString::new(dir.join("repo/fifo.py").to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        std::fs::remove_file(dir.join("repo/link.py")).unwrap();
        std::os::unix::fs::symlink(outside.join("x.py"), dir.join("repo/link.py")).unwrap();
        std::fs::remove_dir_all(dir.join("repo/sub")).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("repo/sub")).unwrap();
        for name in ["fifo.py", "link.py", "sub/x.py"] {
            assert!(repo.read(&repo.root.join(name)).is_err(), "{name}");
        }
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
    }

    #[test]
    fn a_growing_file_is_read_through_the_cap() {
        let dir = std::env::temp_dir().join(format!("nexus-grow-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.py"), vec![b'a'; MAX_FILE_BYTES + 10]).unwrap();
        let repo = Repo::open(&dir).unwrap();
        assert!(repo.read(&repo.root.join("a.py")).is_err());
        std::fs::write(dir.join("a.py"), b"ok").unwrap();
        assert_eq!(repo.read(&repo.root.join("a.py")).unwrap(), b"ok");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn only_loopback_hosts_are_answered() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, "127.0.0.1:54319".parse().unwrap());
        assert!(loopback_host(&headers));
        headers.insert(header::HOST, "evil.example:54319".parse().unwrap());
        assert!(!loopback_host(&headers));
    }

    #[tokio::test]
    async fn chosen_files_are_zipped_when_served_their_hashes_cached_and_bad_requests_are_400() {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("a.py", "a"),
            ("src/b.py", "b"),
            (".env", "KEY=1"),
            ("node_modules/x.js", "x"),
            ("ignored.py", "i"),
            (".gitignore", "ignored.py\n"),
        ] {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        std::os::unix::fs::symlink(dir.path().join("a.py"), dir.path().join("link.py")).unwrap();
        let repo = Repo::open(dir.path()).unwrap();
        let busy = Arc::new(Semaphore::new(1));
        let hashes = Arc::new(HashCache::default());
        let body = serde_json::json!({ "paths": [
            "src/b.py", "a.py", "a.py", "../a.py", "/etc/passwd", ".env", "node_modules/x.js",
            "ignored.py", "missing.py", "link.py", "src/../a.py", "src"
        ]});
        let response = files(
            Some(repo.clone()),
            busy.clone(),
            hashes.clone(),
            body.to_string().into(),
        )
        .await;
        assert_eq!(response.status(), StatusCode::OK);
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let names: Vec<String> = archive
            .file_names()
            .map(|name| name.unwrap().into_owned())
            .collect();
        assert_eq!(names, ["a.py", "src/b.py"]);
        // The files sent are hashed on the way: a manifest after the transfer reads none of them
        // again (a file rewritten under the same size and mtime keeps the hash it was sent with).
        let mut cached: Vec<String> = lock(&hashes.0).keys().cloned().collect();
        cached.sort();
        assert_eq!(cached, ["a.py", "src/b.py"]);
        let path = dir.path().join("a.py");
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::write(&path, "z").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        let (listed, _) = manifest_files(&repo, &hashes);
        let a = listed.iter().find(|f| f.path == "a.py").unwrap();
        assert_eq!(
            a.hash,
            Some(format!("{:016x}", xxhash_rust::xxh3::xxh3_64(b"a")))
        );
        for bad in ["not json", r#"{"paths": "a.py"}"#, r#"{"files": []}"#] {
            let response =
                files(Some(repo.clone()), busy.clone(), hashes.clone(), bad.into()).await;
            assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad}");
        }
    }

    #[test]
    fn the_manifest_hashes_files_and_reuses_hashes_of_unchanged_ones() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "one").unwrap();
        std::fs::write(dir.path().join(".env"), "KEY=1").unwrap();
        let repo = Repo::open(dir.path()).unwrap();
        let cache = HashCache::default();
        let (first, left_out) = manifest_files(&repo, &cache);
        assert!(left_out.is_empty(), "{left_out:?}");
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].path, "a.py");
        assert_eq!(first[0].size, 3);
        assert_eq!(
            first[0].hash,
            Some(format!("{:016x}", xxhash_rust::xxh3::xxh3_64(b"one")))
        );
        assert!(first[0].mtime_ms > 1_600_000_000_000);
        // Same size and mtime: the cached hash stands (the file is not read again).
        let path = dir.path().join("a.py");
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::write(&path, "two").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(mtime).unwrap();
        assert_eq!(manifest_files(&repo, &cache).0[0].hash, first[0].hash);
        file.set_modified(mtime + std::time::Duration::from_secs(1))
            .unwrap();
        let (third, _) = manifest_files(&repo, &cache);
        assert_eq!(
            third[0].hash,
            Some(format!("{:016x}", xxhash_rust::xxh3::xxh3_64(b"two")))
        );
    }

    #[test]
    fn the_manifest_names_files_left_out_but_never_secrets_or_ignored_files() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![b'a'; MAX_FILE_BYTES + 1];
        std::fs::write(dir.path().join("a.py"), "ok").unwrap();
        std::fs::write(dir.path().join("huge.h"), &big).unwrap();
        std::fs::write(dir.path().join("ignored.h"), &big).unwrap();
        std::fs::write(dir.path().join(".gitignore"), "ignored.h\n").unwrap();
        std::fs::write(dir.path().join("id_rsa"), &big).unwrap();
        std::fs::create_dir(dir.path().join("node_modules")).unwrap();
        std::fs::write(dir.path().join("node_modules/x.js"), &big).unwrap();
        std::fs::write(dir.path().join("back\\slash.py"), "x").unwrap();
        let repo = Repo::open(dir.path()).unwrap();
        let (files, left_out) = manifest_files(&repo, &HashCache::default());
        let served: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(served, [".gitignore", "a.py"]);
        // Without hashes: the same files and the same left out, no hash.
        let (listed, listed_left_out) = listed_files(&repo);
        let paths: Vec<&str> = listed.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, served);
        assert!(listed.iter().all(|f| f.hash.is_none()));
        assert_eq!(listed_left_out, left_out);
        let named: Vec<(&str, &str)> = left_out.iter().map(|l| (l.path.as_str(), l.why)).collect();
        assert_eq!(
            named,
            [
                (
                    "back\\slash.py",
                    "its name is not UTF-8 or holds a backslash"
                ),
                ("huge.h", "larger than the 1 MB file size cap"),
            ]
        );
        assert_eq!(left_out[1].size, big.len() as u64);
    }
}
