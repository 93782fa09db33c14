//! The working tree's changes against a git commit as the bridge sends them, and their reading in
//! the graph: which symbols each hunk touches, which were added or deleted, which files are not in it.

use std::collections::HashSet;

use serde::Deserialize;

use nexus_engine::{Graph, NodeKind, NodeRef, Sources, outline};

/// Old texts longer than this are not outlined (the indexer skips files this large too).
const MAX_OLD_TEXT_BYTES: usize = nexus_engine::DEFAULT_MAX_FILE_BYTES;

/// The working tree's changes against a commit, as the bridge's `GET /api/repo/git-diff?base=REF`
/// answers them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct WorkingChanges {
    /// The commit compared with, as asked (`HEAD`, `main`, a sha).
    pub base: String,
    /// The sha it resolved to.
    pub commit: String,
    /// One entry per changed file.
    pub files: Vec<ChangedFile>,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ChangedFile {
    /// Its repository-relative path in the working tree (its old path when deleted).
    pub path: String,
    /// How it changed.
    pub status: FileStatus,
    /// Its path at the base, for a rename.
    #[serde(default)]
    pub old_path: Option<String>,
    /// `git diff --unified=0` hunks.
    #[serde(default)]
    pub hunks: Vec<Hunk>,
    /// Its text at the base; absent for added or binary files.
    #[serde(default)]
    pub old_text: Option<String>,
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    /// Changed in place.
    Modified,
    /// New since the base.
    Added,
    /// Gone since the base.
    Deleted,
    /// Moved from `old_path`, perhaps changed too.
    Renamed,
}

impl FileStatus {
    /// Its name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Modified => "modified",
            FileStatus::Added => "added",
            FileStatus::Deleted => "deleted",
            FileStatus::Renamed => "renamed",
        }
    }
}

/// One `--unified=0` hunk: `old_lines` lines from `old_start` became `new_lines` lines from
/// `new_start`; a side with 0 lines means an insertion or deletion after that line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Hunk {
    /// First line on the base side.
    pub old_start: u32,
    /// Lines on the base side.
    pub old_lines: u32,
    /// First line in the working tree.
    pub new_start: u32,
    /// Lines in the working tree.
    pub new_lines: u32,
}

/// What happened to a symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    Modified,
    Added,
    Deleted,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Modified => "modified",
            Change::Added => "added",
            Change::Deleted => "deleted",
        }
    }
}

/// A changed symbol: in the graph (modified, added) or only at the base (deleted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedSymbol {
    pub change: Change,
    pub kind: NodeKind,
    /// Its stable id (for a deleted symbol, the id it had).
    pub id: String,
    /// `path:line`, at the base for a deleted symbol.
    pub at: String,
    /// Its node, when it is in the graph.
    pub node: Option<u32>,
}

/// A changed file as the graph sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub status: FileStatus,
    /// Its path at the base, when it was renamed.
    pub old_path: Option<String>,
    /// Whether the graph has the file (or, deleted, whether its old text had definitions); hunks
    /// of a file outside the graph are not read.
    pub in_graph: bool,
    /// Lines outside every symbol changed.
    pub outside_symbols: bool,
    /// Hunks past the end of the file, ignored.
    pub ignored_hunks: usize,
}

/// Every changed symbol and file.
#[derive(Debug, Default)]
pub struct Changes {
    pub symbols: Vec<ChangedSymbol>,
    pub files: Vec<FileChange>,
}

/// Reads `changes` in the graph `g` (whose files' texts are `sources`); a path given twice is
/// read once.
pub fn read(g: &Graph, sources: &Sources, changes: &WorkingChanges) -> Changes {
    let mut out = Changes::default();
    let mut seen = HashSet::new();
    for file in &changes.files {
        if seen.insert(clean(&file.path)) {
            read_file(g, sources, file, &mut out);
        }
    }
    out
}

fn clean(path: &str) -> &str {
    path.trim().trim_start_matches("./")
}

fn read_file(g: &Graph, sources: &Sources, file: &ChangedFile, out: &mut Changes) {
    let path = clean(&file.path);
    let old_path = file.old_path.as_deref().map_or(path, clean);
    let old = file
        .old_text
        .as_deref()
        .filter(|t| t.len() <= MAX_OLD_TEXT_BYTES)
        .map(|t| outline(old_path, t));
    let current: Vec<NodeRef> = if file.status == FileStatus::Deleted {
        Vec::new()
    } else {
        g.nodes_in_file(path)
            .iter()
            .filter_map(|&n| g.node(n))
            .filter(|n| n.kind().is_symbol())
            .collect()
    };
    let in_graph = match file.status {
        FileStatus::Deleted => old.as_ref().is_some_and(|o| !o.is_empty()),
        _ => g.find_id(&format!("File:{path}")).is_some(),
    };
    let mut entry = FileChange {
        path: path.to_owned(),
        status: file.status,
        old_path: (old_path != path).then(|| old_path.to_owned()),
        in_graph,
        outside_symbols: false,
        ignored_hunks: 0,
    };
    let changed = |change, n: &NodeRef| ChangedSymbol {
        change,
        kind: n.kind(),
        id: n.stable_id(),
        at: n.location(),
        node: Some(n.id),
    };
    match file.status {
        FileStatus::Added => out
            .symbols
            .extend(current.iter().map(|n| changed(Change::Added, n))),
        FileStatus::Deleted => {}
        FileStatus::Modified | FileStatus::Renamed => {
            let old_names: Option<HashSet<&str>> = old
                .as_ref()
                .map(|o| o.iter().map(|d| d.qualified.as_str()).collect());
            let is_new = |n: &NodeRef| {
                old_names
                    .as_ref()
                    .is_some_and(|o| !o.contains(n.qualified()))
            };
            let last_line = sources
                .get(path)
                .map(|t| u32::try_from(t.lines().count()).unwrap_or(u32::MAX).max(1));
            let spans: Vec<(u32, u32)> = current
                .iter()
                .map(|n| (n.start_line(), n.end_line()))
                .collect();
            let touched = Touched::new(&spans);
            let mut hit = vec![false; current.len()];
            for hunk in file.hunks.iter().filter(|_| in_graph) {
                let Some((lo, hi)) = new_side(hunk, last_line) else {
                    entry.ignored_hunks += 1;
                    continue;
                };
                entry.outside_symbols |= touched.mark(lo, hi, &mut hit);
            }
            for (n, _) in current.iter().zip(hit).filter(|(_, hit)| *hit) {
                let change = if is_new(n) {
                    Change::Added
                } else {
                    Change::Modified
                };
                out.symbols.push(changed(change, n));
            }
        }
    }
    // A file outside the graph has no current symbols to compare with: none is called deleted.
    let compare_old = match file.status {
        FileStatus::Added => false,
        FileStatus::Deleted => true,
        FileStatus::Modified | FileStatus::Renamed => in_graph,
    };
    if compare_old {
        let now: HashSet<&str> = current.iter().map(|n| n.qualified()).collect();
        out.symbols.extend(
            old.iter()
                .flatten()
                .filter(|d| !now.contains(d.qualified.as_str()))
                .map(|d| ChangedSymbol {
                    change: Change::Deleted,
                    kind: d.kind,
                    id: format!("{}:{old_path}:{}", d.kind, d.qualified),
                    at: format!("{old_path}:{}", d.start_line),
                    node: None,
                }),
        );
    }
    out.files.push(entry);
}

/// The lines a hunk touches in the working tree, clipped to `1..=last_line`: its new lines, or
/// for a pure deletion after line N, lines N and N + 1. `None` when it lies past the end.
fn new_side(hunk: &Hunk, last_line: Option<u32>) -> Option<(u32, u32)> {
    let lo = hunk.new_start;
    let hi = match hunk.new_lines {
        0 => lo.saturating_add(1),
        n => lo.saturating_add(n - 1),
    };
    let last = last_line.unwrap_or(u32::MAX);
    let lo = lo.max(1);
    (lo <= last).then_some((lo, hi.min(last).max(lo)))
}

/// Symbol spans of one file, each with the spans nested inside it, so a changed line is
/// attributed to the innermost symbols that hold it (a class counts only for lines outside its
/// methods).
struct Touched<'s> {
    spans: &'s [(u32, u32)],
    /// For each span, the spans strictly inside it, by start line.
    inner: Vec<Vec<(u32, u32)>>,
    /// Every span, by start line: what covers lines of the file.
    all: Vec<(u32, u32)>,
}

impl<'s> Touched<'s> {
    fn new(spans: &'s [(u32, u32)]) -> Touched<'s> {
        let mut all = spans.to_vec();
        all.sort_unstable();
        let inner = spans
            .iter()
            .map(|&(start, end)| {
                let from = all.partition_point(|&(s, _)| s < start);
                all.get(from..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|&&(s, _)| s <= end)
                    .copied()
                    .filter(|&(s, e)| e <= end && (s, e) != (start, end))
                    .collect()
            })
            .collect();
        Touched { spans, inner, all }
    }

    /// Marks in `hit` the symbols with a line in `lo..=hi` not inside a nested symbol; true when
    /// some of those lines are outside every symbol.
    fn mark(&self, lo: u32, hi: u32, hit: &mut [bool]) -> bool {
        for (i, &(start, end)) in self.spans.iter().enumerate() {
            if start > hi || end < lo || start > end {
                continue;
            }
            if !covered(lo.max(start), hi.min(end), &self.inner[i])
                && let Some(h) = hit.get_mut(i)
            {
                *h = true;
            }
        }
        !covered(lo, hi, &self.all)
    }
}

/// Whether `spans` (sorted by start) cover every line of `lo..=hi`.
fn covered(lo: u32, hi: u32, spans: &[(u32, u32)]) -> bool {
    let mut next = u64::from(lo);
    for &(start, end) in spans {
        if u64::from(start) > next {
            break;
        }
        next = next.max(u64::from(end) + 1);
        if next > u64::from(hi) {
            return true;
        }
    }
    next > u64::from(hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(new_start: u32, new_lines: u32) -> Hunk {
        Hunk {
            old_start: new_start,
            old_lines: 1,
            new_start,
            new_lines,
        }
    }

    #[test]
    fn the_wire_format_parses() {
        let json = r#"{"base": "HEAD", "commit": "0123456789abcdef", "files": [
            {"path": "x.py", "status": "modified", "old_path": null,
             "hunks": [{"old_start": 3, "old_lines": 2, "new_start": 3, "new_lines": 5}], "old_text": "a\n"},
            {"path": "y.py", "status": "renamed", "old_path": "old.py", "hunks": [], "old_text": null},
            {"path": "z.md", "status": "added"}, {"path": "w.py", "status": "deleted"}]}"#;
        let parsed: WorkingChanges = serde_json::from_str(json).unwrap();
        assert_eq!(parsed.files.len(), 4);
        assert_eq!(
            parsed.files[0].hunks,
            [hunk(3, 5)].map(|h| Hunk { old_lines: 2, ..h })
        );
        assert_eq!(parsed.files[1].old_path.as_deref(), Some("old.py"));
        assert_eq!(
            parsed.files.iter().map(|f| f.status).collect::<Vec<_>>(),
            [
                FileStatus::Modified,
                FileStatus::Renamed,
                FileStatus::Added,
                FileStatus::Deleted
            ]
        );
        assert!(serde_json::from_str::<WorkingChanges>(r#"{"base": "HEAD"}"#).is_err());
    }

    #[test]
    fn hunks_become_clipped_line_ranges() {
        assert_eq!(new_side(&hunk(3, 5), Some(100)), Some((3, 7)));
        assert_eq!(new_side(&hunk(4, 0), Some(100)), Some((4, 5)));
        assert_eq!(new_side(&hunk(0, 0), Some(100)), Some((1, 1)));
        assert_eq!(new_side(&hunk(90, 50), Some(100)), Some((90, 100)));
        assert_eq!(new_side(&hunk(101, 1), Some(100)), None);
        assert_eq!(
            new_side(&hunk(u32::MAX, u32::MAX), None),
            Some((u32::MAX, u32::MAX))
        );
    }

    #[test]
    fn lines_go_to_the_innermost_symbols_and_the_rest_to_the_file() {
        // A class on 3..=13 with methods on 4..=5 and 7..=10; a function on 15..=17.
        let spans = [(3, 13), (4, 5), (7, 10), (15, 17)];
        let touched = Touched::new(&spans);
        let marked = |lo, hi| {
            let mut hit = vec![false; spans.len()];
            let outside = touched.mark(lo, hi, &mut hit);
            (hit, outside)
        };
        assert_eq!(marked(8, 8), (vec![false, false, true, false], false));
        assert_eq!(marked(6, 6), (vec![true, false, false, false], false));
        assert_eq!(marked(5, 7), (vec![true, true, true, false], false));
        assert_eq!(marked(14, 16), (vec![false, false, false, true], true));
        assert_eq!(marked(1, 1), (vec![false; 4], true));
        assert_eq!(marked(1, u32::MAX), (vec![true; 4], true));
    }
}
