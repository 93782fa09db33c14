//! Fingerprints of a graph for `diff`: a hash per indexed file and per symbol (its kind, signature
//! and body text), so two snapshots compare without keeping both graphs in memory.

use std::collections::BTreeMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use super::graph::{Graph, NodeKind, NodeRef};
use super::ingest::Sources;
use super::texts::Text;

/// What identifies a version of one symbol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolPrint {
    /// The symbol's kind.
    pub kind: NodeKind,
    /// `path:line` where it starts.
    pub location: String,
    hash: u64,
}

/// Hashes of one indexed version of a project. Stored fingerprints are tagged with the build's
/// format and the standard hasher's output is only compared within one build's tag, so hashes
/// from another Rust version are never compared (`from_bytes` refuses them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The project the fingerprint was taken of.
    pub project: String,
    /// When its snapshot was saved, in milliseconds since the Unix epoch.
    pub saved_ms: f64,
    files: BTreeMap<String, u64>,
    symbols: BTreeMap<String, SymbolPrint>,
}

/// Identifies how this build hashes: the hash of a fixed text, which changes if the standard
/// hasher does.
fn build_tag() -> u64 {
    hash_of("nexus fingerprint format 1")
}

fn hash_of(value: impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// Byte offsets where each line of a text starts.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// The text of lines `start..=end` (1-based), given the line starts of `text`.
fn body<'t>(text: &'t str, starts: &[usize], start: u32, end: u32) -> &'t str {
    let from = starts.get(start.saturating_sub(1) as usize).copied();
    let to = starts.get(end as usize).copied().unwrap_or(text.len());
    from.and_then(|from| text.get(from..to.max(from)))
        .unwrap_or("")
}

fn symbol_hash(node: &NodeRef, text: Option<(&str, &[usize])>) -> u64 {
    let mut hasher = DefaultHasher::new();
    node.kind().hash(&mut hasher);
    node.signature().hash(&mut hasher);
    match text {
        Some((text, starts)) => {
            body(text, starts, node.start_line(), node.end_line()).hash(&mut hasher)
        }
        None => (node.end_line().saturating_sub(node.start_line())).hash(&mut hasher),
    }
    hasher.finish()
}

/// A file's text with the byte offset of each line's start.
type Lines = (Text, Vec<usize>);

impl Fingerprint {
    /// Takes the fingerprint of a graph and its files' text.
    pub fn of(graph: &Graph, sources: &Sources, saved_ms: f64) -> Fingerprint {
        let files = sources
            .iter()
            .map(|(path, text)| (path.clone(), hash_of(&*text)))
            .collect();
        // One file's text and line starts at a time: symbols come file by file.
        let mut current: Option<(&str, Option<Lines>)> = None;
        let mut symbols = BTreeMap::new();
        for n in graph.nodes().filter(|n| n.kind().is_symbol()) {
            if current.as_ref().map(|c| c.0) != Some(n.file()) {
                let read = sources.get(n.file()).map(|text| {
                    let starts = line_starts(&text);
                    (text, starts)
                });
                current = Some((n.file(), read));
            }
            let text = current
                .as_ref()
                .and_then(|c| c.1.as_ref())
                .map(|(text, starts)| (&**text, starts.as_slice()));
            let print = SymbolPrint {
                kind: n.kind(),
                location: n.location(),
                hash: symbol_hash(&n, text),
            };
            symbols.insert(n.stable_id(), print);
        }
        Fingerprint {
            project: graph.project.clone(),
            saved_ms,
            files,
            symbols,
        }
    }

    /// The fingerprint as bytes to store: this build's tag, then postcard.
    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        postcard::to_extend(self, build_tag().to_le_bytes().to_vec())
            .map_err(|e| format!("cannot encode the fingerprint: {e}"))
    }

    /// Reads bytes from `to_bytes`; `None` for damaged ones or ones from another build.
    pub fn from_bytes(bytes: &[u8]) -> Option<Fingerprint> {
        let (tag, body) = bytes.split_first_chunk::<8>()?;
        if u64::from_le_bytes(*tag) != build_tag() {
            return None;
        }
        postcard::from_bytes(body).ok()
    }

    /// Files fingerprinted.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// Symbols fingerprinted.
    pub fn symbol_count(&self) -> usize {
        self.symbols.len()
    }
}

/// One changed symbol: its stable id and where it is (now, or last, for deleted ones).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedSymbol {
    /// The symbol's stable id.
    pub id: String,
    /// Where it is (`path:line`).
    pub location: String,
}

/// What changed from one fingerprint to the next; every list is sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphDiff {
    /// Files only in the current graph.
    pub files_added: Vec<String>,
    /// Files in both whose text changed.
    pub files_modified: Vec<String>,
    /// Files only in the previous graph.
    pub files_deleted: Vec<String>,
    /// Symbols only in the current graph.
    pub symbols_added: Vec<ChangedSymbol>,
    /// Symbols in both whose kind, signature or body changed.
    pub symbols_modified: Vec<ChangedSymbol>,
    /// Symbols only in the previous graph.
    pub symbols_deleted: Vec<ChangedSymbol>,
}

impl GraphDiff {
    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.files_added.is_empty()
            && self.files_modified.is_empty()
            && self.files_deleted.is_empty()
            && self.symbols_added.is_empty()
            && self.symbols_modified.is_empty()
            && self.symbols_deleted.is_empty()
    }
}

/// Compares two versions of a project.
pub fn diff(previous: &Fingerprint, current: &Fingerprint) -> GraphDiff {
    let mut out = GraphDiff::default();
    for (path, hash) in &current.files {
        match previous.files.get(path) {
            None => out.files_added.push(path.clone()),
            Some(old) if old != hash => out.files_modified.push(path.clone()),
            Some(_) => {}
        }
    }
    out.files_deleted = previous
        .files
        .keys()
        .filter(|p| !current.files.contains_key(*p))
        .cloned()
        .collect();
    let changed = |id: &String, print: &SymbolPrint| ChangedSymbol {
        id: id.clone(),
        location: print.location.clone(),
    };
    for (id, print) in &current.symbols {
        match previous.symbols.get(id) {
            None => out.symbols_added.push(changed(id, print)),
            Some(old) if old.hash != print.hash => out.symbols_modified.push(changed(id, print)),
            Some(_) => {}
        }
    }
    out.symbols_deleted = previous
        .symbols
        .iter()
        .filter(|(id, _)| !current.symbols.contains_key(*id))
        .map(|(id, print)| changed(id, print))
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{index_with_sources, source_files};

    fn print_of(files: &[(&str, &str)]) -> Fingerprint {
        let (graph, _, sources) =
            index_with_sources("shop", source_files(files), &|| 0.0, &mut |_, _, _| true).unwrap();
        Fingerprint::of(&graph, &sources, 0.0)
    }

    #[test]
    fn added_modified_deleted_files_and_symbols() {
        let before = print_of(&[
            (
                "cart.py",
                "def total():\n    return 1\n\ndef tax():\n    return 2\n",
            ),
            ("old.py", "def gone():\n    pass\n"),
            ("same.py", "def keep():\n    pass\n"),
        ]);
        let after = print_of(&[
            (
                "cart.py",
                "\n\ndef total():\n    return 1\n\ndef tax():\n    return 3\n\ndef fresh():\n    pass\n",
            ),
            ("new.py", "def born():\n    pass\n"),
            ("same.py", "def keep():\n    pass\n"),
        ]);
        let d = diff(&before, &after);
        assert_eq!(d.files_added, ["new.py"]);
        assert_eq!(d.files_modified, ["cart.py"]);
        assert_eq!(d.files_deleted, ["old.py"]);
        let ids = |list: &[ChangedSymbol]| list.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
        assert_eq!(
            ids(&d.symbols_added),
            ["Function:cart.py:fresh", "Function:new.py:born"]
        );
        // `total` moved down two lines but its text is unchanged: not modified.
        assert_eq!(ids(&d.symbols_modified), ["Function:cart.py:tax"]);
        assert_eq!(d.symbols_modified[0].location, "cart.py:6");
        assert_eq!(ids(&d.symbols_deleted), ["Function:old.py:gone"]);
        assert!(diff(&after, &after).is_empty());
    }

    #[test]
    fn stored_fingerprints_round_trip_and_foreign_bytes_are_refused() {
        let print = print_of(&[("cart.py", "def total():\n    return 1\n")]);
        let bytes = print.to_bytes().unwrap();
        assert_eq!(Fingerprint::from_bytes(&bytes), Some(print));
        assert_eq!(Fingerprint::from_bytes(&bytes[..bytes.len() / 2]), None);
        assert_eq!(Fingerprint::from_bytes(b"short"), None);
        let mut other_build = bytes.clone();
        other_build[0] ^= 1;
        assert_eq!(Fingerprint::from_bytes(&other_build), None);
    }
}
