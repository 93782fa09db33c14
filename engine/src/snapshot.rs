//! Snapshots: a graph and its indexed files as one binary blob (a versioned header, then postcard),
//! saved by the worker to IndexedDB and read back on reload instead of indexing again.

use serde::{Deserialize, Serialize};

use super::filter::{in_excluded_dir, is_secret};
use super::graph::{Graph, GraphParts, GraphPartsRef, NodeKind};
use super::ingest::Sources;

/// Leads every snapshot; a blob that does not start with it is refused.
const MAGIC: &[u8; 8] = b"NXSNAP\0\0";
/// Bumped whenever the stored layout or meaning changes; older snapshots are then refused and
/// rebuilt (3: folders, files and communities carry their structural summary as their doc).
pub const FORMAT_VERSION: u32 = 3;

#[derive(Serialize)]
struct BodyRef<'a> {
    saved_ms: f64,
    graph: GraphPartsRef<'a>,
    sources: &'a Sources,
}

#[derive(Deserialize)]
struct Body {
    saved_ms: f64,
    graph: GraphParts,
    sources: Sources,
}

/// A graph read back from a snapshot.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The restored graph.
    pub graph: Graph,
    /// The restored file texts.
    pub sources: Sources,
    /// When it was saved, in milliseconds since the Unix epoch.
    pub saved_ms: f64,
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
pub fn encode(graph: &Graph, sources: &Sources, saved_ms: f64) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(encoded_len(graph, sources, saved_ms)?);
    encode_into(graph, sources, saved_ms, &mut |chunk| {
        out.extend_from_slice(chunk)
    })?;
    Ok(out)
}

/// The length of what `encode` writes, found without writing it.
pub fn encoded_len(graph: &Graph, sources: &Sources, saved_ms: f64) -> Result<usize, String> {
    let body = BodyRef {
        saved_ms,
        graph: graph.parts(),
        sources,
    };
    let size = postcard::serialize_with_flavor(&body, postcard::ser_flavors::Size::default())
        .map_err(|e| format!("cannot encode the snapshot: {e}"))?;
    Ok(MAGIC.len() + 4 + size)
}

/// Encodes a graph and its files as a run of chunks of at most [`CHUNK_BYTES`] handed to `sink`,
/// so that the whole blob never sits in this memory (wasm memory never shrinks).
pub fn encode_into(
    graph: &Graph,
    sources: &Sources,
    saved_ms: f64,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<(), String> {
    let body = BodyRef {
        saved_ms,
        graph: graph.parts(),
        sources,
    };
    let mut chunks = Chunks {
        buffer: Vec::with_capacity(CHUNK_BYTES),
        sink,
    };
    chunks.buffer.extend_from_slice(MAGIC);
    chunks
        .buffer
        .extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    postcard::serialize_with_flavor(&body, chunks)
        .map_err(|e| format!("cannot encode the snapshot: {e}"))
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
    let rest = bytes
        .strip_prefix(MAGIC.as_slice())
        .ok_or(SnapshotError::NotASnapshot)?;
    let (version, body) = rest.split_first_chunk::<4>().ok_or_else(|| {
        SnapshotError::Damaged("the header ends before the format version".into())
    })?;
    let version = u32::from_le_bytes(*version);
    if version != FORMAT_VERSION {
        return Err(SnapshotError::OtherVersion(version));
    }
    let body: Body =
        postcard::from_bytes(body).map_err(|e| SnapshotError::Damaged(e.to_string()))?;
    let graph = Graph::from_parts(body.graph).map_err(SnapshotError::Damaged)?;
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
    Ok(Snapshot {
        graph,
        sources: body.sources,
        saved_ms: body.saved_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{SourceFile, index_with_sources};

    fn indexed() -> (Graph, Sources) {
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
        let (graph, _, sources) =
            index_with_sources("shop", files, &|| 0.0, &mut |_, _, _| true).unwrap();
        (graph, sources)
    }

    #[test]
    fn chunked_encoding_is_the_whole_blob_in_bounded_pieces() {
        let (graph, mut sources) = indexed();
        let mut big = String::new();
        while big.len() < 3 * CHUNK_BYTES {
            big.push_str("# a long comment line that makes this file larger than one chunk\n");
        }
        sources.insert("big.py".into(), big);
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
            sources: &sources,
        };
        let mut reference = MAGIC.to_vec();
        reference.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        let reference = postcard::to_extend(&body, reference).unwrap();
        assert_eq!(whole, reference);
        assert_eq!(encoded_len(&graph, &sources, 7.0).unwrap(), whole.len());
        assert_eq!(encode(&graph, &sources, 7.0).unwrap(), whole);
        let back = decode(&whole).unwrap();
        assert_eq!(back.sources, sources);
    }

    #[test]
    fn round_trip_keeps_nodes_edges_lookups_and_files() {
        let (graph, sources) = indexed();
        let blob = encode(&graph, &sources, 1234.0).unwrap();
        let back = decode(&blob).unwrap();
        assert_eq!(back.saved_ms, 1234.0);
        assert_eq!(back.sources, sources);
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
            old.insert(kept_out.to_owned(), "token = 1\n".to_owned());
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
            fn arbitrary_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
                let mut blob = MAGIC.to_vec();
                blob.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
                blob.extend_from_slice(&tail);
                let _ = decode(&blob);
            }
        }
    }
}
