//! The worker's IndexedDB store of snapshots: per project the current blob, the log of files
//! changed since it, the one before it and that one's fingerprint (what `diff` needs), the
//! vectors of its graph, plus which project was open last; stored blobs are read whole or a piece
//! at a time (`StoredReader`, for decoding a snapshot beside nothing but what it becomes).

use js_sys::{ArrayBuffer, Uint8Array};
use rexie::{ObjectStore, Rexie, TransactionMode};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, FileReaderSync};

const DATABASE: &str = "nexus";
const SNAPSHOTS: &str = "snapshots";
const LAST_PROJECT: &str = "last";

/// Which snapshot of a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Current,
    Previous,
    /// The fingerprint of `Previous`, read on reload instead of decoding that whole blob.
    PreviousPrint,
    /// The vectors of the project's graph (tagged with the snapshot they were made for).
    Vectors,
    /// The files changed since `Current` (`snapshot::encode_log`), rewritten at each save until
    /// a full snapshot replaces both.
    Log,
}

fn key(slot: Slot, project: &str) -> JsValue {
    let prefix = match slot {
        Slot::Current => "current",
        Slot::Previous => "previous",
        Slot::PreviousPrint => "previous-print",
        Slot::Vectors => "vectors",
        Slot::Log => "log",
    };
    JsValue::from_str(&format!("{prefix}/{project}"))
}

fn failed(what: &str, err: rexie::Error) -> String {
    format!("browser storage: cannot {what}: {err}")
}

/// An open snapshot database.
pub struct SnapshotStore {
    db: Rexie,
}

impl SnapshotStore {
    pub async fn open() -> Result<SnapshotStore, String> {
        let db = Rexie::builder(DATABASE)
            .version(1)
            .add_object_store(ObjectStore::new(SNAPSHOTS))
            .build()
            .await
            .map_err(|e| failed("open the database", e))?;
        Ok(SnapshotStore { db })
    }

    /// The project saved last, if any.
    pub async fn last_project(&self) -> Result<Option<String>, String> {
        let value = self.get(JsValue::from_str(LAST_PROJECT)).await?;
        Ok(value.and_then(|v| v.as_string()))
    }

    /// A reader of one stored blob that reads it a piece at a time as it is asked (for decoding
    /// a snapshot without its whole blob in wasm memory).
    pub async fn reader(&self, slot: Slot, project: &str) -> Result<Option<StoredReader>, String> {
        match self.get(key(slot, project)).await? {
            Some(value) => StoredReader::new(value).map(Some),
            None => Ok(None),
        }
    }

    /// One stored blob.
    pub async fn load(&self, slot: Slot, project: &str) -> Result<Option<Vec<u8>>, String> {
        match self.get(key(slot, project)).await? {
            Some(value) => bytes_of(&value).await.map(Some),
            None => Ok(None),
        }
    }

    async fn get(&self, key: JsValue) -> Result<Option<JsValue>, String> {
        let tx = self
            .db
            .transaction(&[SNAPSHOTS], TransactionMode::ReadOnly)
            .map_err(|e| failed("read", e))?;
        let store = tx.store(SNAPSHOTS).map_err(|e| failed("read", e))?;
        let value = store.get(key).await.map_err(|e| failed("read", e))?;
        Ok(value.filter(|v| !v.is_undefined() && !v.is_null()))
    }

    /// Saves `blob` as the project's current snapshot, keeps the one it replaces as previous, and
    /// marks the project as the last one; all in one transaction. Returns the replaced value, left
    /// outside wasm memory (read it with [`StoredReader`] only if it is needed).
    pub async fn save(&self, project: &str, blob: &Blob) -> Result<Option<JsValue>, String> {
        let tx = self
            .db
            .transaction(&[SNAPSHOTS], TransactionMode::ReadWrite)
            .map_err(|e| failed("save", e))?;
        let store = tx.store(SNAPSHOTS).map_err(|e| failed("save", e))?;
        let replaced = store
            .get(key(Slot::Current, project))
            .await
            .map_err(|e| failed("save", e))?
            .filter(|v| !v.is_undefined() && !v.is_null());
        if let Some(old) = &replaced {
            store
                .put(old, Some(&key(Slot::Previous, project)))
                .await
                .map_err(|e| failed("keep the previous snapshot", e))?;
        }
        store
            .put(blob, Some(&key(Slot::Current, project)))
            .await
            .map_err(|e| failed("save the snapshot", e))?;
        // A log belongs to the snapshot it followed.
        store
            .delete(key(Slot::Log, project))
            .await
            .map_err(|e| failed("drop the log of changes", e))?;
        store
            .put(
                &JsValue::from_str(project),
                Some(&JsValue::from_str(LAST_PROJECT)),
            )
            .await
            .map_err(|e| failed("save", e))?;
        tx.done().await.map_err(|e| failed("save", e))?;
        Ok(replaced)
    }

    /// Saves the fingerprint of the project's previous snapshot.
    pub async fn save_previous_print(&self, project: &str, print: &[u8]) -> Result<(), String> {
        self.put(Slot::PreviousPrint, project, &Uint8Array::from(print))
            .await
    }

    /// Saves the log of files changed since the project's current snapshot.
    pub async fn save_log(&self, project: &str, log: &[u8]) -> Result<(), String> {
        self.put(Slot::Log, project, &Uint8Array::from(log)).await
    }

    /// Saves the vectors of the project's graph (a Blob written by `snapshot::encode_vectors_into`).
    pub async fn save_vectors(&self, project: &str, blob: &Blob) -> Result<(), String> {
        self.put(Slot::Vectors, project, blob).await
    }

    async fn put(&self, slot: Slot, project: &str, value: &JsValue) -> Result<(), String> {
        let tx = self
            .db
            .transaction(&[SNAPSHOTS], TransactionMode::ReadWrite)
            .map_err(|e| failed("save", e))?;
        let store = tx.store(SNAPSHOTS).map_err(|e| failed("save", e))?;
        store
            .put(value, Some(&key(slot, project)))
            .await
            .map_err(|e| failed("save", e))?;
        tx.done().await.map_err(|e| failed("save", e))?;
        Ok(())
    }
}

/// A stored value read synchronously from where it is, a piece per `read`: a `Blob` (read from
/// the browser's store through `FileReaderSync`, which only workers have) or a `Uint8Array`.
pub struct StoredReader {
    value: JsValue,
    at: f64,
    size: f64,
}

impl StoredReader {
    pub fn new(value: JsValue) -> Result<StoredReader, String> {
        let size = if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
            f64::from(bytes.length())
        } else if let Some(blob) = value.dyn_ref::<Blob>() {
            blob.size()
        } else {
            return Err("browser storage: a stored snapshot is neither a Blob nor bytes".into());
        };
        Ok(StoredReader {
            value,
            at: 0.0,
            size,
        })
    }

    /// The stored value's size in bytes.
    pub fn size(&self) -> u64 {
        self.size as u64
    }

    /// Bytes `at..end` of the value (at most [`READ_STEP`]).
    fn piece(&self, end: f64) -> Result<Uint8Array, JsValue> {
        if let Some(bytes) = self.value.dyn_ref::<Uint8Array>() {
            return Ok(bytes.subarray(self.at as u32, end as u32));
        }
        let blob: &Blob = self.value.unchecked_ref();
        let part = blob.slice_with_f64_and_f64(self.at, end)?;
        let buffer = FileReaderSync::new()?.read_as_array_buffer(&part)?;
        Ok(Uint8Array::new(&buffer))
    }
}

impl std::io::Read for StoredReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = (buf.len() as f64).min(READ_STEP);
        let end = (self.at + want).min(self.size);
        if end <= self.at {
            return Ok(0);
        }
        let piece = self.piece(end).map_err(|e| {
            std::io::Error::other(format!("browser storage: cannot read a snapshot: {e:?}"))
        })?;
        let n = (piece.length() as usize).min(buf.len());
        if n == 0 {
            return Err(std::io::Error::other(
                "browser storage: a stored snapshot ended before its size",
            ));
        }
        piece.subarray(0, n as u32).copy_to(&mut buf[..n]);
        self.at += n as f64;
        Ok(n)
    }
}

/// Bytes read from a Blob per step, so that no whole copy of a snapshot sits in JS memory.
const READ_STEP: f64 = 4.0 * 1024.0 * 1024.0;

/// The bytes of a stored value: a `Blob` (how snapshots are saved) or a `Uint8Array` (how
/// fingerprints are, and snapshots were).
pub async fn bytes_of(value: &JsValue) -> Result<Vec<u8>, String> {
    if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    let blob = value
        .dyn_ref::<Blob>()
        .ok_or("browser storage: a stored snapshot is neither a Blob nor bytes")?;
    let size = blob.size();
    let mut out = Vec::with_capacity(size as usize);
    let mut at = 0.0;
    while at < size {
        let end = (at + READ_STEP).min(size);
        let read = |e: JsValue| format!("browser storage: cannot read a snapshot: {e:?}");
        let part = blob.slice_with_f64_and_f64(at, end).map_err(read)?;
        let buffer: ArrayBuffer = JsFuture::from(part.array_buffer())
            .await
            .map_err(read)?
            .dyn_into()
            .map_err(read)?;
        out.extend_from_slice(&Uint8Array::new(&buffer).to_vec());
        at = end;
    }
    Ok(out)
}

#[cfg(all(test, target_arch = "wasm32"))]
mod wasm_tests;
