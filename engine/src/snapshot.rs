//! Snapshots: a graph and its indexed files as one binary blob (a versioned header, then postcard),
//! saved by the worker to IndexedDB and read back on reload instead of indexing again; after it,
//! a log of the files changed since (so a save after a small change writes only that); beside
//! them, the graph's vectors (which model made them, for which snapshot), so a reload embeds
//! nothing.

use std::io::Read;

use serde::{Deserialize, Serialize};

use super::embed::VectorIndex;
use super::filter::{in_excluded_dir, is_secret};
use super::graph::{Graph, GraphParts, GraphPartsRef, NodeKind};
use super::ingest::Sources;
pub use super::piecewise::PIECE_BYTES;
use super::piecewise::PiecewiseInput;
use super::workspace::{FileRecord, Workspace, WorkspaceParts, WorkspacePartsRef};

/// Leads every snapshot; a blob that does not start with it is refused.
const MAGIC: &[u8; 8] = b"NXSNAP\0\0";
/// Bumped whenever the stored layout or meaning changes; older snapshots are then refused and
/// rebuilt (3: folders, files and communities carry their structural summary as their doc; 4:
/// each file's facts and content hash, so changes since are applied without indexing again;
/// 5: references that are not calls, in the graph and in each file's facts; 6: the resolution's
/// memo, so the first change after a restore resolves again only what it touched; 7: texts as
/// compressed pages; 8: Ruby calls' arguments, methods' parameters and `@x` set to one; 9: Zig
/// calls' arguments and `anytype`/`type` parameters).
pub const FORMAT_VERSION: u32 = 9;

#[derive(Serialize)]
struct BodyRef<'a> {
    saved_ms: f64,
    graph: GraphPartsRef<'a>,
    sources: &'a Sources,
    files: WorkspacePartsRef<'a>,
}

#[derive(Deserialize)]
struct Body {
    saved_ms: f64,
    graph: GraphParts,
    sources: Sources,
    files: WorkspaceParts,
}

/// A graph read back from a snapshot.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The restored graph.
    pub graph: Graph,
    /// The restored files: texts, facts and content hashes.
    pub workspace: Workspace,
    /// When it was saved (its log, when one was applied), in milliseconds since the Unix epoch.
    pub saved_ms: f64,
    /// When the full snapshot was saved (a log after it names this time).
    pub base_ms: f64,
    /// Descriptions written over summaries, from the log applied (node id, text).
    pub described: Vec<(String, String)>,
    /// Files the applied log changed since the full snapshot (0 without a log).
    pub logged_files: usize,
    /// Source files whose calls and references were resolved again to apply the log (the
    /// others kept the snapshot's; 0 without a log).
    pub resolved_files: usize,
}

/// Why a blob could not be read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotError {
    /// The blob does not start with the snapshot magic.
    NotASnapshot,
    /// The blob is another format version (the one given).
    OtherVersion(u32),
    /// The blob is damaged (what was wrong).
    Damaged(String),
    /// The blob holds a file that the current rules keep out (a newly listed secret or excluded
    /// folder): it was saved under older rules and is not served.
    KeptOut(String),
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SnapshotError::NotASnapshot => f.write_str("not a Nexus snapshot"),
            SnapshotError::OtherVersion(v) => write!(
                f,
                "snapshot format {v} is not format {FORMAT_VERSION}; the repository must be indexed again"
            ),
            SnapshotError::Damaged(why) => write!(f, "damaged snapshot: {why}"),
            SnapshotError::KeptOut(path) => write!(
                f,
                "the snapshot holds `{path}`, which Nexus now keeps out (a secret or an excluded folder); the repository must be indexed again"
            ),
        }
    }
}

impl std::error::Error for SnapshotError {}

/// Encodes a graph and its files.
pub fn encode(graph: &Graph, files: &Workspace, saved_ms: f64) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(encoded_len(graph, files, saved_ms)?);
    encode_into(graph, files, saved_ms, &mut |chunk| {
        out.extend_from_slice(chunk)
    })?;
    Ok(out)
}

/// The length of what `encode` writes, found without writing it.
pub fn encoded_len(graph: &Graph, files: &Workspace, saved_ms: f64) -> Result<usize, String> {
    let body = BodyRef {
        saved_ms,
        graph: graph.parts(),
        sources: files.sources(),
        files: files.parts(),
    };
    let size = postcard::serialize_with_flavor(&body, postcard::ser_flavors::Size::default())
        .map_err(|e| format!("cannot encode the snapshot: {e}"))?;
    Ok(MAGIC.len() + 4 + size)
}

/// Encodes a graph and its files as a run of chunks of at most [`CHUNK_BYTES`] handed to `sink`,
/// so that the whole blob never sits in this memory (wasm memory never shrinks).
pub fn encode_into(
    graph: &Graph,
    files: &Workspace,
    saved_ms: f64,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<(), String> {
    let body = BodyRef {
        saved_ms,
        graph: graph.parts(),
        sources: files.sources(),
        files: files.parts(),
    };
    write_chunks(MAGIC, FORMAT_VERSION, &body, sink)
        .map_err(|e| format!("cannot encode the snapshot: {e}"))
}

/// Writes a header (magic, version) and `body` as postcard through `sink` in chunks.
fn write_chunks(
    magic: &[u8],
    version: u32,
    body: &impl Serialize,
    sink: &mut dyn FnMut(&[u8]),
) -> postcard::Result<()> {
    let mut chunks = Chunks {
        buffer: Vec::with_capacity(CHUNK_BYTES),
        sink,
    };
    chunks.buffer.extend_from_slice(magic);
    chunks.buffer.extend_from_slice(&version.to_le_bytes());
    postcard::serialize_with_flavor(body, chunks)
}

/// Most bytes [`encode_into`] hands over at once.
pub const CHUNK_BYTES: usize = 256 * 1024;

/// A postcard output that passes on its bytes a chunk at a time.
struct Chunks<'a> {
    buffer: Vec<u8>,
    sink: &'a mut dyn FnMut(&[u8]),
}

impl Chunks<'_> {
    fn flush(&mut self) {
        if !self.buffer.is_empty() {
            (self.sink)(&self.buffer);
            self.buffer.clear();
        }
    }
}

impl postcard::ser_flavors::Flavor for Chunks<'_> {
    type Output = ();

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        if self.buffer.len() == CHUNK_BYTES {
            self.flush();
        }
        self.buffer.push(byte);
        Ok(())
    }

    fn try_extend(&mut self, bytes: &[u8]) -> postcard::Result<()> {
        if self.buffer.len() + bytes.len() > CHUNK_BYTES {
            self.flush();
        }
        if bytes.len() >= CHUNK_BYTES {
            for part in bytes.chunks(CHUNK_BYTES) {
                (self.sink)(part);
            }
        } else {
            self.buffer.extend_from_slice(bytes);
        }
        Ok(())
    }

    fn finalize(mut self) -> postcard::Result<()> {
        self.flush();
        Ok(())
    }
}

/// Decodes a blob written by `encode`; any other input is an error, never a panic.
pub fn decode(bytes: &[u8]) -> Result<Snapshot, SnapshotError> {
    decode_from(bytes)
}

/// Decodes a snapshot read from `source` a piece at a time ([`PIECE_BYTES`] at once): its
/// whole blob is never held beside the graph it becomes (a tab reads it from its stored Blob).
/// Any input other than a blob written by `encode` is an error, never a panic.
pub fn decode_from(source: impl Read) -> Result<Snapshot, SnapshotError> {
    let mut input = PiecewiseInput::new(source);
    let mut magic = Vec::new();
    if !input.take_into(MAGIC.len(), &mut magic) || magic != MAGIC {
        return Err(unreadable(input.failure()).unwrap_or(SnapshotError::NotASnapshot));
    }
    let mut version = Vec::new();
    let version = match input
        .take_into(4, &mut version)
        .then(|| <[u8; 4]>::try_from(version))
    {
        Some(Ok(version)) => u32::from_le_bytes(version),
        _ => {
            return Err(unreadable(input.failure()).unwrap_or_else(|| {
                SnapshotError::Damaged("the header ends before the format version".into())
            }));
        }
    };
    if version != FORMAT_VERSION {
        return Err(SnapshotError::OtherVersion(version));
    }
    let mut de = postcard::Deserializer::from_flavor(input);
    let body = Body::deserialize(&mut de);
    let failure = de.finalize().ok().flatten();
    let body = match (body, unreadable(failure)) {
        (_, Some(err)) => return Err(err),
        (Err(e), None) => return Err(SnapshotError::Damaged(e.to_string())),
        (Ok(body), None) => body,
    };
    let graph = Graph::from_parts(body.graph).map_err(SnapshotError::Damaged)?;
    if !body.sources.is_consistent() {
        return Err(SnapshotError::Damaged(
            "a text lies outside its page".into(),
        ));
    }
    // The rules may have grown since the snapshot was saved: it must not serve what they now
    // keep out, from its texts (`read`, `grep`) or its graph (`search`).
    let files = graph
        .nodes()
        .filter(|n| n.kind() == NodeKind::File)
        .map(|n| n.file());
    if let Some(path) = files
        .chain(body.sources.keys().map(String::as_str))
        .find(|path| is_secret(path) || in_excluded_dir(path))
    {
        return Err(SnapshotError::KeptOut(path.to_owned()));
    }
    let workspace =
        Workspace::from_parts(&graph.project, body.files, body.sources).ok_or_else(|| {
            SnapshotError::Damaged("the files' facts do not match their texts".into())
        })?;
    Ok(Snapshot {
        graph,
        workspace,
        saved_ms: body.saved_ms,
        base_ms: body.saved_ms,
        described: Vec::new(),
        logged_files: 0,
        resolved_files: 0,
    })
}

/// The error a source that could not be read gives, if it failed.
fn unreadable(failure: Option<std::io::Error>) -> Option<SnapshotError> {
    failure.map(|e| SnapshotError::Damaged(format!("cannot read the snapshot: {e}")))
}

/// Leads every log of changes since a snapshot.
const LOG_MAGIC: &[u8; 8] = b"NXLOG\0\0\0";

#[derive(Serialize)]
struct LogRef<'a> {
    base_ms: f64,
    saved_ms: f64,
    files: Vec<(&'a str, FileRecord)>,
    described: &'a [(String, String)],
}

#[derive(Deserialize)]
struct Log {
    base_ms: f64,
    saved_ms: f64,
    files: Vec<(String, FileRecord)>,
    described: Vec<(String, String)>,
}

/// Encodes the log of what changed in `files` since its full snapshot (saved at `base_ms`): each
/// changed path as it now is, and the descriptions written over summaries. It is written whole
/// at each save (its size grows with the files changed, not with the project); a full snapshot
/// replaces it when it grows (the worker's choice).
pub fn encode_log(
    files: &Workspace,
    base_ms: f64,
    saved_ms: f64,
    described: &[(String, String)],
) -> Result<Vec<u8>, String> {
    let body = LogRef {
        base_ms,
        saved_ms,
        files: files.records_since_saved(),
        described,
    };
    let mut out = Vec::new();
    write_chunks(LOG_MAGIC, FORMAT_VERSION, &body, &mut |chunk| {
        out.extend_from_slice(chunk)
    })
    .map_err(|e| format!("cannot encode the log of changes: {e}"))?;
    Ok(out)
}

/// Decodes a snapshot and, when given, the log saved after it: the log's files are put back
/// into the workspace (no file is parsed) and the graph is built again from every file's facts,
/// equal to the graph the log was saved from. A log written after another snapshot (its
/// `base_ms` differs) is ignored; a damaged log is an error.
pub fn decode_with_log(source: impl Read, log: Option<&[u8]>) -> Result<Snapshot, SnapshotError> {
    let snap = decode_from(source)?;
    let Some(log) = log else {
        return Ok(snap);
    };
    let rest = log
        .strip_prefix(LOG_MAGIC.as_slice())
        .ok_or(SnapshotError::NotASnapshot)?;
    let (version, body) = rest
        .split_first_chunk::<4>()
        .ok_or_else(|| SnapshotError::Damaged("the log ends before its format version".into()))?;
    let version = u32::from_le_bytes(*version);
    if version != FORMAT_VERSION {
        return Err(SnapshotError::OtherVersion(version));
    }
    let log: Log = postcard::from_bytes(body).map_err(|e| SnapshotError::Damaged(e.to_string()))?;
    if log.base_ms != snap.base_ms {
        return Ok(snap);
    }
    if let Some((path, _)) = log
        .files
        .iter()
        .find(|(path, record)| record.holds_text() && (is_secret(path) || in_excluded_dir(path)))
    {
        return Err(SnapshotError::KeptOut(path.clone()));
    }
    let Snapshot { mut workspace, .. } = snap;
    let logged_files = log.files.len();
    let logged: Vec<String> = log.files.iter().map(|(path, _)| path.clone()).collect();
    if !workspace.restore_records(log.files) {
        return Err(SnapshotError::Damaged(
            "the log's facts do not match its texts".into(),
        ));
    }
    let (mut graph, resolved_files) = workspace.graph(&logged);
    for (node, text) in &log.described {
        // A described node that is gone keeps no description (as in the live graph).
        let _ = super::summary::describe(&mut graph, node, text);
    }
    Ok(Snapshot {
        graph,
        workspace,
        saved_ms: log.saved_ms,
        base_ms: log.base_ms,
        described: log.described,
        logged_files,
        resolved_files,
    })
}

/// Leads every stored vector index.
const VECTORS_MAGIC: &[u8; 8] = b"NXVECS\0\0";
/// Bumped whenever the stored vectors' layout or meaning changes; older ones are then ignored.
pub const VECTORS_VERSION: u32 = 2;

#[derive(Serialize)]
struct VectorsRef<'a> {
    model: &'a str,
    saved_ms: f64,
    vectors: &'a VectorIndex,
}

/// A graph's vectors read back from storage.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SavedVectors {
    /// Which model made them (the built-in model's hash, or a provider and its model name).
    pub model: String,
    /// The `saved_ms` of the snapshot whose graph they were computed for.
    pub saved_ms: f64,
    /// The vectors.
    pub vectors: VectorIndex,
}

/// Encodes the vectors of the snapshot saved at `saved_ms`, made by `model`, in chunks of at most
/// [`CHUNK_BYTES`] (as [`encode_into`]).
pub fn encode_vectors_into(
    model: &str,
    saved_ms: f64,
    vectors: &VectorIndex,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<(), String> {
    let body = VectorsRef {
        model,
        saved_ms,
        vectors,
    };
    write_chunks(VECTORS_MAGIC, VECTORS_VERSION, &body, sink)
        .map_err(|e| format!("cannot encode the vectors: {e}"))
}

/// Encodes vectors as one blob (see [`encode_vectors_into`]).
pub fn encode_vectors(
    model: &str,
    saved_ms: f64,
    vectors: &VectorIndex,
) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    encode_vectors_into(model, saved_ms, vectors, &mut |chunk| {
        out.extend_from_slice(chunk)
    })?;
    Ok(out)
}

/// Decodes vectors written by [`encode_vectors_into`] for a graph of `node_count` nodes; every
/// length, node id and number is checked, so any other input is an error, never a panic.
pub fn decode_vectors(bytes: &[u8], node_count: usize) -> Result<SavedVectors, SnapshotError> {
    let rest = bytes
        .strip_prefix(VECTORS_MAGIC.as_slice())
        .ok_or(SnapshotError::NotASnapshot)?;
    let (version, body) = rest.split_first_chunk::<4>().ok_or_else(|| {
        SnapshotError::Damaged("the vectors' header ends before the format version".into())
    })?;
    let version = u32::from_le_bytes(*version);
    if version != VECTORS_VERSION {
        return Err(SnapshotError::OtherVersion(version));
    }
    let (saved, rest): (SavedVectors, &[u8]) =
        postcard::take_from_bytes(body).map_err(|e| SnapshotError::Damaged(e.to_string()))?;
    if !rest.is_empty() {
        return Err(SnapshotError::Damaged(format!(
            "{} bytes after the vectors",
            rest.len()
        )));
    }
    let mut saved = saved;
    saved
        .vectors
        .check(node_count)
        .map_err(|e| SnapshotError::Damaged(format!("vectors: {e}")))?;
    saved.vectors.prepare();
    Ok(saved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{SourceFile, index_workspace};

    fn indexed() -> (Graph, Workspace) {
        let files = vec![
            SourceFile {
                path: "shop/cart.py".into(),
                bytes: b"from shop.pay import charge\n\nclass Cart:\n    def checkout(self):\n        charge(1)\n".to_vec(),
            },
            SourceFile {
                path: "shop/pay.py".into(),
                bytes: b"def charge(x):\n    return x\n".to_vec(),
            },
        ];
        let (graph, _, files) =
            index_workspace("shop", files, &|| 0.0, &mut |_, _, _| true).unwrap();
        (graph, files)
    }

    #[test]
    fn chunked_encoding_is_the_whole_blob_in_bounded_pieces() {
        let (graph, mut sources) = indexed();
        // Texts are kept compressed: lines that do not repeat keep the file over a chunk.
        let mut big = String::new();
        let mut n = 0u64;
        while big.len() < 3 * CHUNK_BYTES {
            n += 1;
            big.push_str(&format!(
                "# {:016x}\n",
                crate::content_hash(&n.to_le_bytes())
            ));
        }
        sources.insert_text("big.md", &big);
        let mut whole = Vec::new();
        let mut sizes = Vec::new();
        encode_into(&graph, &sources, 7.0, &mut |chunk| {
            sizes.push(chunk.len());
            whole.extend_from_slice(chunk);
        })
        .unwrap();
        assert!(sizes.len() > 3, "{sizes:?}");
        assert!(
            sizes.iter().all(|&n| n > 0 && n <= CHUNK_BYTES),
            "{sizes:?}"
        );
        let body = BodyRef {
            saved_ms: 7.0,
            graph: graph.parts(),
            sources: sources.sources(),
            files: sources.parts(),
        };
        let mut reference = MAGIC.to_vec();
        reference.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        let reference = postcard::to_extend(&body, reference).unwrap();
        assert_eq!(whole, reference);
        assert_eq!(encoded_len(&graph, &sources, 7.0).unwrap(), whole.len());
        assert_eq!(encode(&graph, &sources, 7.0).unwrap(), whole);
        let back = decode(&whole).unwrap();
        assert_eq!(back.workspace.sources(), sources.sources());
    }

    #[test]
    fn round_trip_keeps_nodes_edges_lookups_and_files() {
        let (graph, sources) = indexed();
        let blob = encode(&graph, &sources, 1234.0).unwrap();
        let back = decode(&blob).unwrap();
        assert_eq!(back.saved_ms, 1234.0);
        assert_eq!(back.workspace.sources(), sources.sources());
        assert_eq!(back.graph.project, "shop");
        assert_eq!(back.graph.node_count(), graph.node_count());
        assert_eq!(back.graph.edges(), graph.edges());
        assert_eq!(back.graph.communities, graph.communities);
        assert_eq!(back.graph.processes, graph.processes);
        let charge = back.graph.find_id("Function:shop/pay.py:charge").unwrap();
        assert_eq!(Some(charge), graph.find_id("Function:shop/pay.py:charge"));
        let callers: Vec<String> = back
            .graph
            .incoming(charge)
            .filter_map(|e| back.graph.node(e.from))
            .map(|n| n.qualified().to_owned())
            .collect();
        assert!(callers.contains(&"Cart.checkout".to_owned()), "{callers:?}");
        assert_eq!(
            back.graph.nodes_named("charge"),
            graph.nodes_named("charge")
        );
    }

    #[test]
    fn a_snapshot_holding_a_file_now_kept_out_is_refused() {
        let (graph, sources) = indexed();
        for kept_out in [
            "deploy/secrets.toml",
            "infra/terraform.tfstate",
            "ops/.VAULT-TOKEN",
            "web/node_modules/x.js",
        ] {
            let mut old = sources.clone();
            old.insert_text(kept_out, "token = 1\n");
            let blob = encode(&graph, &old, 0.0).unwrap();
            assert_eq!(
                decode(&blob).unwrap_err(),
                SnapshotError::KeptOut(kept_out.to_owned())
            );
        }
        assert!(decode(&encode(&graph, &sources, 0.0).unwrap()).is_ok());
    }

    #[test]
    fn foreign_old_and_damaged_blobs_are_clear_errors() {
        let (graph, sources) = indexed();
        let blob = encode(&graph, &sources, 0.0).unwrap();
        assert_eq!(
            decode(b"PK\x03\x04 a zip").unwrap_err(),
            SnapshotError::NotASnapshot
        );
        let mut old = blob.clone();
        old[MAGIC.len()] = 0;
        assert_eq!(decode(&old).unwrap_err(), SnapshotError::OtherVersion(0));
        for cut in [MAGIC.len() + 2, blob.len() / 2, blob.len() - 1] {
            assert!(matches!(
                decode(&blob[..cut]).unwrap_err(),
                SnapshotError::Damaged(_)
            ));
        }
    }

    /// A source that hands over at most `step` bytes per read, and fails after `fail_after`.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
        fail_after: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.fail_after == 0 {
                return Err(std::io::Error::other("the store went away"));
            }
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            self.fail_after = self.fail_after.saturating_sub(n);
            Ok(n)
        }
    }

    #[test]
    fn a_snapshot_read_in_pieces_is_the_one_read_whole_and_a_failed_read_is_named() {
        let (graph, sources) = indexed();
        let blob = encode(&graph, &sources, 5.0).unwrap();
        let whole = decode(&blob).unwrap();
        for step in [1, 7, 4096] {
            let source = Trickle {
                bytes: &blob,
                step,
                fail_after: usize::MAX,
            };
            let back = decode_from(source).unwrap();
            assert_eq!(back.saved_ms, 5.0);
            assert_eq!(back.graph.edges(), whole.graph.edges());
            assert_eq!(back.graph.node_count(), whole.graph.node_count());
            assert_eq!(back.workspace.sources(), whole.workspace.sources());
            assert_eq!(back.workspace.facts(), whole.workspace.facts());
        }
        for fail_after in [3, MAGIC.len() + 2, blob.len() / 2] {
            let source = Trickle {
                bytes: &blob,
                step: 5,
                fail_after,
            };
            let err = decode_from(source).unwrap_err();
            assert!(
                err.to_string().contains("the store went away"),
                "{fail_after}: {err}"
            );
        }
    }

    /// Rows around a circle (plus a shared part), so that each keeps its own direction once the
    /// common component is removed.
    fn row(n: u32) -> Vec<f32> {
        let angle = n as f32;
        vec![angle.cos(), angle.sin(), 1.0, -0.5]
    }

    fn vectors(nodes: u32) -> VectorIndex {
        let rows = (0..nodes)
            .map(|n| (n, u64::from(n) * 7919, row(n)))
            .collect();
        VectorIndex::from_vectors(4, rows).unwrap()
    }

    #[test]
    fn vectors_round_trip_with_their_model_and_snapshot() {
        let index = vectors(5);
        let blob = encode_vectors("builtin:abc", 42.0, &index).unwrap();
        let back = decode_vectors(&blob, 5).unwrap();
        assert_eq!(
            back,
            SavedVectors {
                model: "builtin:abc".into(),
                saved_ms: 42.0,
                vectors: index.clone(),
            }
        );
        let q = crate::embed::unit(&row(4));
        assert_eq!(back.vectors.search(&q, 1, &|_| true)[0].node, 4);
        let mut sizes = Vec::new();
        let mut whole = Vec::new();
        encode_vectors_into("builtin:abc", 42.0, &index, &mut |c| {
            sizes.push(c.len());
            whole.extend_from_slice(c);
        })
        .unwrap();
        assert_eq!(whole, blob);
        assert!(sizes.iter().all(|&n| n <= CHUNK_BYTES));
    }

    #[test]
    fn vectors_that_do_not_fit_are_clear_errors() {
        let blob = encode_vectors("m", 1.0, &vectors(5)).unwrap();
        // Node 4 is not in a graph of 4 nodes.
        assert!(
            matches!(decode_vectors(&blob, 4), Err(SnapshotError::Damaged(e)) if e.contains("node 4"))
        );
        assert_eq!(
            decode_vectors(b"NXSNAP\0\0xxxx", 5).unwrap_err(),
            SnapshotError::NotASnapshot
        );
        let mut other = blob.clone();
        other[VECTORS_MAGIC.len()] = 9;
        assert_eq!(
            decode_vectors(&other, 5).unwrap_err(),
            SnapshotError::OtherVersion(9)
        );
        for cut in [VECTORS_MAGIC.len() + 2, blob.len() / 2, blob.len() - 1] {
            assert!(matches!(
                decode_vectors(&blob[..cut], 5).unwrap_err(),
                SnapshotError::Damaged(_)
            ));
        }
        let mut longer = blob.clone();
        longer.push(0);
        assert!(matches!(
            decode_vectors(&longer, 5),
            Err(SnapshotError::Damaged(_))
        ));
        assert!(VectorIndex::from_vectors(4, vec![(0, 0, vec![1.0])]).is_err());
        assert!(VectorIndex::from_vectors(2, vec![(0, 0, vec![1.0, f32::NAN])]).is_err());
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn flipped_bytes_never_panic(flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
                let (graph, sources) = indexed();
                let mut blob = encode(&graph, &sources, 0.0).unwrap();
                for (at, value) in flips {
                    let len = blob.len();
                    blob[MAGIC.len() + 4 + at % (len - MAGIC.len() - 4)] = value;
                }
                let _ = decode(&blob);
            }

            #[test]
            fn flipped_log_bytes_never_panic(flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
                let (graph, mut ws) = indexed();
                let base = encode(&graph, &ws, 1.0).unwrap();
                ws.mark_saved();
                changed(&mut ws, vec![write("shop/pay.py", "def charge(y):\n    return y\n")]);
                let mut log = encode_log(&ws, 1.0, 2.0, &[]).unwrap();
                let head = LOG_MAGIC.len() + 4;
                for (at, value) in flips {
                    let len = log.len();
                    log[head + at % (len - head)] = value;
                }
                let _ = decode_with_log(&base[..], Some(&log));
            }

            #[test]
            fn damaged_vectors_are_refused_or_whole(
                flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
                node_count in 0usize..12,
            ) {
                let mut blob = encode_vectors("builtin:abc", 3.0, &vectors(8)).unwrap();
                let head = VECTORS_MAGIC.len() + 4;
                for (at, value) in flips {
                    let len = blob.len();
                    blob[head + at % (len - head)] = value;
                }
                if let Ok(saved) = decode_vectors(&blob, node_count) {
                    // Whatever decodes is whole: it can be searched and checked again.
                    prop_assert!(saved.vectors.check(node_count).is_ok());
                    let q = vec![0.5; saved.vectors.dims()];
                    let hits = saved.vectors.search(&q, 3, &|_| true);
                    prop_assert!(hits.iter().all(|h| (h.node as usize) < node_count));
                }
            }

            #[test]
            fn arbitrary_vector_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
                let mut blob = VECTORS_MAGIC.to_vec();
                blob.extend_from_slice(&VECTORS_VERSION.to_le_bytes());
                blob.extend_from_slice(&tail);
                if let Ok(saved) = decode_vectors(&blob, 64) {
                    prop_assert!(saved.vectors.check(64).is_ok());
                }
            }

            #[test]
            fn arbitrary_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
                let mut blob = MAGIC.to_vec();
                blob.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
                blob.extend_from_slice(&tail);
                let _ = decode(&blob);
            }
        }
    }

    fn write(path: &str, text: &str) -> crate::FileChange {
        crate::FileChange::Write(SourceFile {
            path: path.into(),
            bytes: text.as_bytes().to_vec(),
        })
    }

    /// Applies changes as a live update does, returning the new graph.
    fn changed(ws: &mut Workspace, changes: Vec<crate::FileChange>) -> Graph {
        let (graph, _) = ws.apply(changes, &|| 0.0, &mut |_, _, _| true).unwrap();
        graph.expect("the facts changed").0
    }

    #[test]
    fn a_log_after_a_snapshot_brings_back_the_graph_it_was_saved_from() {
        let (graph, mut ws) = indexed();
        let base = encode(&graph, &ws, 5.0).unwrap();
        ws.mark_saved();
        let graph = changed(
            &mut ws,
            vec![
                write(
                    "shop/pay.py",
                    "def charge(x):\n    return refund(x)\n\ndef refund(x):\n    return x\n",
                ),
                write(
                    "shop/new.py",
                    "from shop.pay import refund\n\ndef undo():\n    refund(2)\n",
                ),
                write("NOTES.md", "# notes"),
                write(".env", "KEY=1"),
            ],
        );
        let described = vec![(
            "File:shop/pay.py".to_owned(),
            "Takes and gives back money.".to_owned(),
        )];
        let mut live = graph;
        crate::summary::describe(&mut live, &described[0].0, &described[0].1).unwrap();
        let log = encode_log(&ws, 5.0, 9.0, &described).unwrap();
        let back = decode_with_log(&base[..], Some(&log)).unwrap();
        assert_eq!(back.graph.canonical_dump(), live.canonical_dump());
        assert_eq!(back.workspace.sources(), ws.sources());
        assert_eq!(back.workspace.stats(), ws.stats());
        assert_eq!(
            (back.saved_ms, back.base_ms, back.logged_files),
            (9.0, 5.0, 4)
        );
        assert_eq!(back.described, described);
        // The restored workspace still counts the logged files as changed: a later log holds
        // them as well as what changes next.
        let mut ws = back.workspace;
        let live = changed(
            &mut ws,
            vec![crate::FileChange::Remove("shop/cart.py".into())],
        );
        let log = encode_log(&ws, 5.0, 11.0, &[]).unwrap();
        let again = decode_with_log(&base[..], Some(&log)).unwrap();
        assert_eq!(again.graph.canonical_dump(), live.canonical_dump());
        assert_eq!(again.logged_files, 5);
    }

    #[test]
    fn a_restored_snapshot_resolves_again_only_what_a_change_touched() {
        let mut files: std::collections::BTreeMap<&str, &str> = [
            ("a.py", "def f():\n    return 1\n"),
            ("b.py", "from a import f\n\ndef g():\n    return f()\n"),
            ("c.py", "def h():\n    return 2\n"),
        ]
        .into_iter()
        .collect();
        let full = |files: &std::collections::BTreeMap<&str, &str>| {
            let sources = files
                .iter()
                .map(|(p, t)| SourceFile {
                    path: (*p).into(),
                    bytes: t.as_bytes().to_vec(),
                })
                .collect();
            index_workspace("p", sources, &|| 0.0, &mut |_, _, _| true).unwrap()
        };
        let (graph, _, ws) = full(&files);
        let base = encode(&graph, &ws, 3.0).unwrap();
        let edited = "def h():\n    return 2\n\ndef k():\n    return h()\n";
        files.insert("c.py", edited);
        let (expected, _, _) = full(&files);
        // A change after a restore: the edited file alone is resolved again.
        let mut restored = decode(&base).unwrap().workspace;
        let (graph, applied) = restored
            .apply(vec![write("c.py", edited)], &|| 0.0, &mut |_, _, _| true)
            .unwrap();
        assert_eq!(applied.resolved, 1);
        let graph = graph.expect("the facts changed").0;
        assert_eq!(graph.canonical_dump(), expected.canonical_dump());
        // A log after the snapshot is applied the same way on decoding.
        let mut ws = decode(&base).unwrap().workspace;
        ws.mark_saved();
        let live = changed(&mut ws, vec![write("c.py", edited)]);
        let log = encode_log(&ws, 3.0, 4.0, &[]).unwrap();
        let back = decode_with_log(&base[..], Some(&log)).unwrap();
        assert_eq!(back.resolved_files, 1);
        assert_eq!(back.graph.canonical_dump(), live.canonical_dump());
        assert_eq!(back.graph.canonical_dump(), expected.canonical_dump());
        // The memo restored keeps working for the change after.
        let mut ws = back.workspace;
        let (_, applied) = ws
            .apply(
                vec![write("a.py", "def f():\n    return 3\n")],
                &|| 0.0,
                &mut |_, _, _| true,
            )
            .unwrap();
        assert_eq!(applied.resolved, 2, "a.py and b.py, which calls into it");
    }

    #[test]
    fn a_log_of_another_snapshot_is_ignored_and_a_damaged_one_refused() {
        let (graph, mut ws) = indexed();
        let base = encode(&graph, &ws, 5.0).unwrap();
        ws.mark_saved();
        changed(
            &mut ws,
            vec![write("shop/pay.py", "def charge(y):\n    pass\n")],
        );
        let other = encode_log(&ws, 4.0, 9.0, &[]).unwrap();
        let back = decode_with_log(&base[..], Some(&other)).unwrap();
        assert_eq!(back.graph.canonical_dump(), graph.canonical_dump());
        assert_eq!((back.saved_ms, back.logged_files), (5.0, 0));
        let log = encode_log(&ws, 5.0, 9.0, &[]).unwrap();
        for cut in [0, 8, 12, log.len() / 2, log.len() - 1] {
            assert!(
                decode_with_log(&base[..], Some(&log[..cut])).is_err(),
                "cut at {cut}"
            );
        }
        let mut garbage = log.clone();
        garbage.truncate(12);
        garbage.extend(std::iter::repeat_n(0xff, 64));
        assert!(decode_with_log(&base[..], Some(&garbage)).is_err());
    }
}
