//! Provider vectors in SQLite, keyed by model and the SHA-256 of the text, so a re-indexed or
//! reloaded project asks the provider only for texts it has not embedded before.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

/// The cache's default place: `nexus/embeddings.sqlite3` in the user's data folder.
pub fn default_path() -> Option<PathBuf> {
    dirs::data_dir().map(|dir| dir.join("nexus").join("embeddings.sqlite3"))
}

/// The cache (or none, when even an in-memory database failed).
pub struct Cache {
    db: Option<Mutex<Connection>>,
}

impl Cache {
    /// Opens (creating folder, file and table as needed) the cache at `path`.
    pub fn open(path: &Path) -> Result<Cache, String> {
        let db = crate::sqlite::open(path)?;
        Self::init(db).map_err(|err| format!("{}: {err}", path.display()))
    }

    /// A cache in memory.
    pub fn in_memory() -> Result<Cache, String> {
        let db = Connection::open_in_memory().map_err(|err| err.to_string())?;
        Self::init(db).map_err(|err| err.to_string())
    }

    /// No cache at all.
    pub fn none() -> Cache {
        Cache { db: None }
    }

    fn init(db: Connection) -> rusqlite::Result<Cache> {
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "NORMAL")?;
        db.busy_timeout(std::time::Duration::from_secs(5))?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS vectors (
                model TEXT NOT NULL,
                text_sha256 BLOB NOT NULL,
                vector BLOB NOT NULL,
                PRIMARY KEY (model, text_sha256)
            ) WITHOUT ROWID;",
        )?;
        Ok(Cache {
            db: Some(Mutex::new(db)),
        })
    }

    /// The stored vector of `text` by `model`; a row that is not whole `f32`s counts as absent.
    pub fn get(&self, model: &str, text: &str) -> Option<Vec<f32>> {
        let db = self.db.as_ref()?.lock().ok()?;
        let blob: Vec<u8> = db
            .query_row(
                "SELECT vector FROM vectors WHERE model = ?1 AND text_sha256 = ?2",
                params![model, digest(text)],
                |row| row.get(0),
            )
            .optional()
            .ok()??;
        if blob.is_empty() || !blob.len().is_multiple_of(4) {
            return None;
        }
        Some(
            blob.chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        )
    }

    /// Stores the vector of `text` by `model`; a failure is logged, never fatal.
    pub fn put(&self, model: &str, text: &str, vector: &[f32]) {
        let Some(Ok(db)) = self.db.as_ref().map(Mutex::lock) else {
            return;
        };
        let blob: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
        if let Err(err) = db.execute(
            "INSERT OR REPLACE INTO vectors (model, text_sha256, vector) VALUES (?1, ?2, ?3)",
            params![model, digest(text), blob],
        ) {
            tracing::warn!("cannot cache a provider vector: {err}");
        }
    }
}

fn digest(text: &str) -> Vec<u8> {
    Sha256::digest(text.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_kept_per_model_and_text_across_opens() {
        let dir = std::env::temp_dir().join(format!("nexus-embed-cache-{}", std::process::id()));
        let path = dir.join("cache.sqlite3");
        let cache = Cache::open(&path).unwrap();
        assert_eq!(cache.get("m", "def f"), None);
        cache.put("m", "def f", &[1.0, -0.5]);
        assert_eq!(cache.get("m", "def f"), Some(vec![1.0, -0.5]));
        assert_eq!(cache.get("other", "def f"), None);
        assert_eq!(cache.get("m", "def g"), None);
        drop(cache);
        assert_eq!(
            Cache::open(&path).unwrap().get("m", "def f"),
            Some(vec![1.0, -0.5])
        );
        assert_eq!(Cache::none().get("m", "def f"), None);
        let _ = std::fs::remove_dir_all(dir);
    }
}
