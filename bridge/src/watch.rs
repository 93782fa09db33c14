//! Watches the `--repo` folder (notify, recursive) and reports which served files changed, in
//! debounced, numbered batches; the decisions (`Tracker`, `Debounce`) are plain, untimed code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nexus_shared::source_rules::{in_excluded_dir, is_secret};
use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::repo::{Repo, Rules, Stat};

/// A batch is flushed after this long without events…
pub const QUIET: Duration = Duration::from_millis(100);
/// …but at most this long after its first event, so continuous writes cannot starve it.
pub const MAX_DELAY: Duration = Duration::from_secs(1);

/// One flushed batch: relative `/` paths, sorted; never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoBatch {
    pub seq: u64,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
    pub rescan: bool,
}

/// What the watcher holds back, as the hub sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PendingView {
    /// Paths buffered and not flushed, or flushed and not yet handed to the hub.
    pub paths: Vec<String>,
    /// When the last batch was flushed, in ms since the epoch.
    pub last_flush_ms: Option<u64>,
    pub rescans: u64,
}

#[derive(Default)]
struct Shared {
    buffered: BTreeSet<String>,
    /// Flushed batches the hub has not taken yet, by seq.
    in_flight: BTreeMap<u64, Vec<String>>,
    last_flush_ms: Option<u64>,
    rescans: u64,
}

/// The watcher's state shared with the hub: its buffer and the batches on their way.
#[derive(Clone, Default)]
pub struct WatchHandle(Arc<Mutex<Shared>>);

impl WatchHandle {
    fn shared(&self) -> MutexGuard<'_, Shared> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Paths in the debounce buffer or on their way to the hub, and the last flush time.
    pub fn pending(&self) -> PendingView {
        let shared = self.shared();
        let mut paths: BTreeSet<String> = shared.buffered.clone();
        paths.extend(shared.in_flight.values().flatten().cloned());
        PendingView {
            paths: paths.into_iter().collect(),
            last_flush_ms: shared.last_flush_ms,
            rescans: shared.rescans,
        }
    }

    /// True when nothing is buffered and every flushed batch reached the hub.
    pub fn is_settled(&self) -> bool {
        let shared = self.shared();
        shared.buffered.is_empty() && shared.in_flight.is_empty()
    }

    /// Events for `path` (relative, or the root as `""`) are in the buffer.
    pub fn buffered(&self, path: String) {
        self.shared().buffered.insert(path);
    }

    /// The buffer was flushed into `batch` (`None` when nothing served changed).
    pub fn flushed(&self, batch: Option<&RepoBatch>) {
        let mut shared = self.shared();
        shared.buffered.clear();
        if let Some(batch) = batch {
            let paths = batch.changed.iter().chain(&batch.removed).cloned();
            shared.in_flight.insert(batch.seq, paths.collect());
            shared.last_flush_ms = Some(epoch_ms());
            shared.rescans += u64::from(batch.rescan);
        }
    }

    /// The hub took batch `seq` (sent it to the tab, or dropped it for want of one).
    pub fn taken(&self, seq: u64) {
        self.shared().in_flight.remove(&seq);
    }
}

fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Paths touched since the last flush.
#[derive(Debug, Default)]
pub struct Touched {
    paths: BTreeSet<PathBuf>,
    /// Events were lost (queue overflow, watcher error): compare the whole folder.
    rescan: bool,
}

impl Touched {
    pub fn path(&mut self, path: PathBuf) {
        self.paths.insert(path);
    }

    pub fn lost_events(&mut self) {
        self.rescan = true;
    }
}

/// When to flush: `QUIET` after the last event, at most `MAX_DELAY` after the first.
#[derive(Debug, Default)]
pub struct Debounce {
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Debounce {
    pub fn touch(&mut self, now: Instant) {
        self.first.get_or_insert(now);
        self.last = Some(now);
    }

    /// When the buffer is due, if it holds anything.
    pub fn deadline(&self) -> Option<Instant> {
        Some((self.last? + QUIET).min(self.first? + MAX_DELAY))
    }

    pub fn reset(&mut self) {
        *self = Debounce::default();
    }
}

/// The manifest of served files and the decisions that turn touched paths into a batch.
pub struct Tracker {
    repo: Repo,
    manifest: BTreeMap<String, Stat>,
    seq: u64,
}

impl Tracker {
    /// Lists the folder once: the manifest later events are compared with.
    pub fn new(repo: Repo) -> Self {
        let manifest = repo.scan("");
        Tracker {
            repo,
            manifest,
            seq: 0,
        }
    }

    /// The batch for `touched`, or `None` when no served file changed. A touched file that is
    /// served is `changed` (even with the same size and mtime); one that is no longer served is
    /// `removed` if it was listed. A folder is rescanned; a `.gitignore`, the root or lost
    /// events rescan everything.
    pub fn apply(&mut self, touched: Touched) -> Option<RepoBatch> {
        let mut changed = BTreeSet::new();
        let mut removed = BTreeSet::new();
        let relative: Vec<Option<String>> = touched
            .paths
            .iter()
            .map(|p| self.repo.relative(p))
            .collect();
        let full = touched.rescan
            || relative.iter().any(|r| match r {
                None => false,
                Some(r) => r == ".gitignore" || r.ends_with("/.gitignore"),
            })
            || touched.paths.iter().any(|p| p == &self.repo.root);
        if full {
            let fresh = self.repo.scan("");
            let old = std::mem::take(&mut self.manifest);
            diff(&old, &fresh, &mut changed, &mut removed);
            self.manifest = fresh;
        }
        let mut rules = Rules::new(&self.repo);
        for (path, relative) in touched.paths.iter().zip(relative) {
            let Some(relative) = relative else { continue };
            if full {
                // Listed already; content may differ with the same size and mtime.
                if self.manifest.contains_key(&relative) {
                    changed.insert(relative);
                }
                continue;
            }
            if is_folder(path) {
                let fresh = self.repo.scan(&relative);
                let old = take_under(&mut self.manifest, &relative);
                diff(&old, &fresh, &mut changed, &mut removed);
                self.manifest.extend(fresh);
                continue;
            }
            // A folder that went away (or became a symlink) takes its files with it.
            for gone in take_under(&mut self.manifest, &relative).into_keys() {
                removed.insert(gone);
            }
            match rules.stat(&relative) {
                Some(stat) => {
                    self.manifest.insert(relative.clone(), stat);
                    changed.insert(relative);
                }
                None => {
                    if self.manifest.remove(&relative).is_some() {
                        removed.insert(relative);
                    }
                }
            }
        }
        for path in &changed {
            removed.remove(path);
        }
        if changed.is_empty() && removed.is_empty() {
            return None;
        }
        self.seq += 1;
        Some(RepoBatch {
            seq: self.seq,
            changed: changed.into_iter().collect(),
            removed: removed.into_iter().collect(),
            rescan: touched.rescan,
        })
    }
}

/// Removes and returns the manifest's entries below folder `dir`.
fn take_under(manifest: &mut BTreeMap<String, Stat>, dir: &str) -> BTreeMap<String, Stat> {
    let prefix = format!("{dir}/");
    let keys: Vec<String> = manifest
        .range(prefix.clone()..)
        .take_while(|(key, _)| key.starts_with(&prefix))
        .map(|(key, _)| key.clone())
        .collect();
    keys.into_iter()
        .filter_map(|key| manifest.remove_entry(&key))
        .collect()
}

fn is_folder(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Files new or with another size or mtime in `fresh` are changed; files only in `old` removed.
fn diff(
    old: &BTreeMap<String, Stat>,
    fresh: &BTreeMap<String, Stat>,
    changed: &mut BTreeSet<String>,
    removed: &mut BTreeSet<String>,
) {
    for (path, stat) in fresh {
        if old.get(path) != Some(stat) {
            changed.insert(path.clone());
        }
    }
    for path in old.keys() {
        if !fresh.contains_key(path) {
            removed.insert(path.clone());
        }
    }
}

/// Starts watching `repo`: batches arrive on the receiver; the handle shows what is pending.
/// The watch ends when the receiver is dropped.
pub fn start(repo: Repo) -> Result<(WatchHandle, mpsc::UnboundedReceiver<RepoBatch>), String> {
    let (raw_tx, raw_rx) = std::sync::mpsc::channel();
    // Symlinks are never followed: a link to `$HOME` or `/` must not put watches out there.
    let config = notify::Config::default().with_follow_symlinks(false);
    let mut watcher = notify::RecommendedWatcher::new(raw_tx, config)
        .map_err(|err| format!("cannot start watching {}: {err}", repo.root.display()))?;
    watcher
        .watch(&repo.root, RecursiveMode::Recursive)
        .map_err(|err| format!("cannot watch {}: {err}", repo.root.display()))?;
    let handle = WatchHandle::default();
    let (tx, rx) = mpsc::unbounded_channel();
    let shared = handle.clone();
    std::thread::Builder::new()
        .name("nexus-repo-watch".into())
        .spawn(move || {
            // Listed after the watch began: nothing changes unseen in between.
            let tracker = Tracker::new(repo);
            run(watcher, raw_rx, tracker, shared, tx);
        })
        .map_err(|err| format!("cannot start the watcher thread: {err}"))?;
    Ok((handle, rx))
}

type RawEvent = notify::Result<notify::Event>;

fn run(
    watcher: notify::RecommendedWatcher,
    raw: std::sync::mpsc::Receiver<RawEvent>,
    mut tracker: Tracker,
    handle: WatchHandle,
    tx: mpsc::UnboundedSender<RepoBatch>,
) {
    let _watcher = watcher;
    let mut touched = Touched::default();
    let mut debounce = Debounce::default();
    loop {
        let event = match debounce.deadline() {
            Some(at) => raw.recv_timeout(at.saturating_duration_since(Instant::now())),
            None => raw.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match event {
            Ok(event) => {
                if intake(event, &tracker.repo, &mut touched, &handle) {
                    debounce.touch(Instant::now());
                }
                if debounce.deadline().is_none_or(|at| at > Instant::now()) {
                    continue;
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        debounce.reset();
        let batch = tracker.apply(std::mem::take(&mut touched));
        handle.flushed(batch.as_ref());
        if let Some(batch) = batch {
            tracing::debug!(
                seq = batch.seq,
                changed = batch.changed.len(),
                removed = batch.removed.len(),
                rescan = batch.rescan,
                "repository changed"
            );
            if tx.send(batch).is_err() {
                return;
            }
        }
    }
}

/// Buffers one raw event; true when it touched something worth a flush. Errors and notify's
/// rescan flag (queue overflow) mean lost events: the next flush compares the whole folder.
fn intake(event: RawEvent, repo: &Repo, touched: &mut Touched, handle: &WatchHandle) -> bool {
    let event = match event {
        Ok(event) => event,
        Err(err) => {
            tracing::warn!(%err, "repository watcher error; rescanning");
            touched.lost_events();
            handle.buffered(String::new());
            return true;
        }
    };
    if event.need_rescan() {
        tracing::warn!("the repository watcher lost events; rescanning");
        touched.lost_events();
        handle.buffered(String::new());
        return true;
    }
    // Opening and reading (ours too) change nothing.
    if let EventKind::Access(kind) = event.kind
        && kind != AccessKind::Close(AccessMode::Write)
    {
        return false;
    }
    let mut any = false;
    for path in event.paths {
        let relative = repo.relative(&path);
        if relative.as_deref().is_some_and(in_excluded_dir) {
            continue;
        }
        if relative.is_none() && path != repo.root {
            continue;
        }
        // A secret is never served: its name is not shown as pending and holds no call (the
        // tracker still sees the event, for a served file renamed to it).
        if !relative.as_deref().is_some_and(is_secret) {
            handle.buffered(relative.unwrap_or_default());
        }
        touched.path(path);
        any = true;
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;
    use nexus_shared::source_rules::MAX_FILE_BYTES;

    struct Fixture {
        _dir: tempfile::TempDir,
        root: PathBuf,
        tracker: Tracker,
    }

    fn fixture(files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            write(dir.path(), path, text);
        }
        let repo = Repo::open(dir.path()).unwrap();
        Fixture {
            root: repo.root.clone(),
            tracker: Tracker::new(repo),
            _dir: dir,
        }
    }

    fn write(root: &Path, path: &str, text: &str) {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    impl Fixture {
        fn apply(&mut self, paths: &[&str]) -> Option<RepoBatch> {
            let mut touched = Touched::default();
            for path in paths {
                touched.path(self.root.join(path));
            }
            self.tracker.apply(touched)
        }
    }

    fn batch(seq: u64, changed: &[&str], removed: &[&str], rescan: bool) -> Option<RepoBatch> {
        Some(RepoBatch {
            seq,
            changed: changed.iter().map(|s| s.to_string()).collect(),
            removed: removed.iter().map(|s| s.to_string()).collect(),
            rescan,
        })
    }

    #[test]
    fn append_new_file_rename_and_delete() {
        let mut f = fixture(&[("a.py", "a\n"), ("b.py", "b\n")]);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(f.root.join("a.py"))
            .unwrap();
        std::io::Write::write_all(&mut file, b"more\n").unwrap();
        assert_eq!(f.apply(&["a.py"]), batch(1, &["a.py"], &[], false));
        write(&f.root, "src/new.py", "n\n");
        assert_eq!(
            f.apply(&["src/new.py"]),
            batch(2, &["src/new.py"], &[], false)
        );
        std::fs::rename(f.root.join("b.py"), f.root.join("c.py")).unwrap();
        assert_eq!(
            f.apply(&["b.py", "c.py"]),
            batch(3, &["c.py"], &["b.py"], false)
        );
        std::fs::remove_file(f.root.join("c.py")).unwrap();
        assert_eq!(f.apply(&["c.py"]), batch(4, &[], &["c.py"], false));
        // Touching what is not served and was not listed gives no batch.
        write(&f.root, "node_modules/x.js", "x");
        assert_eq!(f.apply(&["node_modules/x.js", "gone.py"]), None);
    }

    #[test]
    fn a_hundred_files_at_once_are_one_batch() {
        let mut f = fixture(&[]);
        let names: Vec<String> = (0..100).map(|i| format!("pkg/m{i:03}.py")).collect();
        for name in &names {
            write(&f.root, name, "x\n");
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let got = f.apply(&refs).unwrap();
        assert_eq!(got.changed, names);
        // A new folder's event alone (how a checkout or a move shows up) rescans it.
        write(&f.root, "moved/inner/x.py", "x\n");
        assert_eq!(
            f.apply(&["moved"]),
            batch(2, &["moved/inner/x.py"], &[], false)
        );
        std::fs::rename(f.root.join("moved"), f.root.join("elsewhere")).unwrap();
        assert_eq!(
            f.apply(&["moved", "elsewhere"]),
            batch(3, &["elsewhere/inner/x.py"], &["moved/inner/x.py"], false)
        );
    }

    #[test]
    fn a_file_renamed_to_a_secret_or_grown_past_the_cap_is_removed() {
        let mut f = fixture(&[("config.py", "x"), ("big.py", "small")]);
        std::fs::rename(f.root.join("config.py"), f.root.join(".env")).unwrap();
        assert_eq!(
            f.apply(&["config.py", ".env"]),
            batch(1, &[], &["config.py"], false)
        );
        std::fs::write(f.root.join("big.py"), vec![b'a'; MAX_FILE_BYTES + 1]).unwrap();
        assert_eq!(f.apply(&["big.py"]), batch(2, &[], &["big.py"], false));
    }

    #[test]
    fn a_gitignore_change_rescans_everything() {
        let mut f = fixture(&[("gen/out.py", "x"), ("src/a.py", "a")]);
        write(&f.root, ".gitignore", "gen/\n");
        assert_eq!(
            f.apply(&[".gitignore"]),
            batch(1, &[".gitignore"], &["gen/out.py"], false)
        );
        std::fs::write(f.root.join(".gitignore"), "").unwrap();
        assert_eq!(
            f.apply(&[".gitignore"]),
            batch(2, &[".gitignore", "gen/out.py"], &[], false)
        );
    }

    #[test]
    fn lost_events_rescan_finds_the_changes() {
        let mut f = fixture(&[("a.py", "a"), ("b.py", "b")]);
        std::fs::write(f.root.join("a.py"), "longer").unwrap();
        std::fs::remove_file(f.root.join("b.py")).unwrap();
        write(&f.root, "c.py", "c");
        let mut touched = Touched::default();
        touched.lost_events();
        assert_eq!(
            f.tracker.apply(touched),
            batch(1, &["a.py", "c.py"], &["b.py"], true)
        );
        // The overflow as notify reports it, through the intake.
        let handle = WatchHandle::default();
        let mut touched = Touched::default();
        let overflow = notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        assert!(intake(Ok(overflow), &f.tracker.repo, &mut touched, &handle));
        assert!(!handle.is_settled());
        assert_eq!(f.tracker.apply(touched), None);
    }

    #[test]
    fn reads_and_excluded_folders_are_not_buffered() {
        let f = fixture(&[("a.py", "a")]);
        let handle = WatchHandle::default();
        let mut touched = Touched::default();
        let read = notify::Event::new(EventKind::Access(AccessKind::Open(
            notify::event::AccessMode::Read,
        )))
        .add_path(f.root.join("a.py"));
        let git = notify::Event::new(EventKind::Any).add_path(f.root.join(".git/index.lock"));
        assert!(!intake(Ok(read), &f.tracker.repo, &mut touched, &handle));
        assert!(!intake(Ok(git), &f.tracker.repo, &mut touched, &handle));
        assert!(touched.paths.is_empty() && !touched.rescan && handle.is_settled());
        let write = notify::Event::new(EventKind::Any).add_path(f.root.join("a.py"));
        assert!(intake(Ok(write), &f.tracker.repo, &mut touched, &handle));
        assert_eq!(handle.pending().paths, ["a.py"]);
    }

    #[test]
    fn debounce_waits_for_quiet_but_not_past_the_bound() {
        let start = Instant::now();
        let mut debounce = Debounce::default();
        assert_eq!(debounce.deadline(), None);
        debounce.touch(start);
        assert_eq!(debounce.deadline(), Some(start + QUIET));
        // Continuous events every 50 ms push the deadline on, up to MAX_DELAY.
        let mut now = start;
        for _ in 0..40 {
            now += Duration::from_millis(50);
            debounce.touch(now);
        }
        assert_eq!(debounce.deadline(), Some(start + MAX_DELAY));
        debounce.reset();
        assert_eq!(debounce.deadline(), None);
    }

    #[test]
    fn the_handle_shows_buffered_and_in_flight_paths() {
        let handle = WatchHandle::default();
        handle.buffered("a.py".into());
        assert_eq!(handle.pending().paths, ["a.py"]);
        let sent = batch(1, &["a.py"], &["b.py"], false).unwrap();
        handle.flushed(Some(&sent));
        let view = handle.pending();
        assert_eq!(view.paths, ["a.py", "b.py"]);
        assert!(view.last_flush_ms.is_some());
        assert!(!handle.is_settled());
        handle.taken(1);
        assert!(handle.is_settled());
    }

    #[tokio::test]
    async fn the_watcher_reports_a_burst_as_one_batch() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.py", "a");
        let repo = Repo::open(dir.path()).unwrap();
        let (handle, mut rx) = start(repo.clone()).unwrap();
        // Let the thread list the folder first.
        tokio::time::sleep(Duration::from_millis(200)).await;
        for i in 0..100 {
            write(&repo.root, &format!("burst/f{i}.py"), "x");
        }
        std::fs::remove_file(repo.root.join("a.py")).unwrap();
        let got = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(got.seq, 1);
        assert_eq!(got.changed.len(), 100);
        assert_eq!(got.removed, ["a.py"]);
        handle.taken(got.seq);
        assert!(handle.is_settled());
        assert!(handle.pending().last_flush_ms.is_some());
    }
}
