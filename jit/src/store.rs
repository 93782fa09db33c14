//! The analyses of tools in SQLite, keyed by server and name and valid for one schema hash:
//! they survive a restart, a changed tool is analysed again, an unanalysed one gets heuristics.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use crate::analysis::{Analyzer, ToolAnalysis, heuristic};
use crate::compile::AnalysedTool;
use crate::tool::{ToolInfo, ToolKey, schema_hash};

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused.
    #[error("analysis store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored analysis could not be written or read as JSON.
    #[error("analysis store: bad analysis JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Tools with the metadata to use now, and the tools still waiting for a (better) analysis.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysed {
    /// Every tool asked about: stored analysis, else heuristic.
    pub tools: Vec<AnalysedTool>,
    /// Tools with no stored analysis for their current schema hash.
    pub pending: Vec<ToolKey>,
}

fn text_hash(text: &str) -> String {
    schema_hash(text, &serde_json::Map::new())
}

/// What a [`AnalysisStore::refresh`] did.
#[derive(Debug)]
pub struct Refreshed<E> {
    /// Analyses stored.
    pub stored: usize,
    /// Tools the analyzer failed on, with its error.
    pub failed: Vec<(ToolKey, E)>,
}

/// The SQLite store of tool analyses.
#[derive(Debug)]
pub struct AnalysisStore {
    db: Connection,
}

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS tool_analysis (
    server TEXT NOT NULL,
    name TEXT NOT NULL,
    schema_hash TEXT NOT NULL,
    analysis TEXT NOT NULL,
    PRIMARY KEY (server, name)
);
CREATE TABLE IF NOT EXISTS tool_embedding (
    server TEXT NOT NULL,
    name TEXT NOT NULL,
    embedder TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (server, name, embedder)
)";

impl AnalysisStore {
    /// Opens (creating when missing) the store at `path`.
    pub fn open(path: &Path) -> Result<AnalysisStore, StoreError> {
        AnalysisStore::with(Connection::open(path)?)
    }

    /// A store that lives as long as this value (tests, or no writable directory).
    pub fn in_memory() -> Result<AnalysisStore, StoreError> {
        AnalysisStore::with(Connection::open_in_memory()?)
    }

    fn with(db: Connection) -> Result<AnalysisStore, StoreError> {
        db.execute_batch(SCHEMA)?;
        Ok(AnalysisStore { db })
    }

    /// The stored analysis of `key`, if one was stored for this schema hash.
    pub fn get(&self, key: &ToolKey) -> Result<Option<ToolAnalysis>, StoreError> {
        let json: Option<String> = self
            .db
            .query_row(
                "SELECT analysis FROM tool_analysis WHERE server = ?1 AND name = ?2 AND schema_hash = ?3",
                params![key.server, key.name, key.schema_hash],
                |row| row.get(0),
            )
            .optional()?;
        Ok(match json {
            Some(text) => Some(serde_json::from_str(&text)?),
            None => None,
        })
    }

    /// Stores `analysis` for `key`, replacing any analysis of an earlier schema.
    pub fn put(&self, key: &ToolKey, analysis: &ToolAnalysis) -> Result<(), StoreError> {
        self.db.execute(
            "INSERT OR REPLACE INTO tool_analysis (server, name, schema_hash, analysis) VALUES (?1, ?2, ?3, ?4)",
            params![key.server, key.name, key.schema_hash, serde_json::to_string(analysis)?],
        )?;
        Ok(())
    }

    /// The stored vector of `key`'s tool by `embedder`, if one was stored for this `text`
    /// (the tool's description and analysis, which change with its schema and analysis).
    pub fn embedding(
        &self,
        key: &ToolKey,
        embedder: &str,
        text: &str,
    ) -> Result<Option<Vec<f32>>, StoreError> {
        let blob: Option<Vec<u8>> = self
            .db
            .query_row(
                "SELECT vector FROM tool_embedding WHERE server = ?1 AND name = ?2 AND embedder = ?3 AND text_hash = ?4",
                params![key.server, key.name, embedder, text_hash(text)],
                |row| row.get(0),
            )
            .optional()?;
        Ok(blob.map(|bytes| {
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }))
    }

    /// Stores `vector` as the embedding of `key`'s `text` by `embedder` (little-endian
    /// `f32`s), replacing one of an earlier text.
    pub fn put_embedding(
        &self,
        key: &ToolKey,
        embedder: &str,
        text: &str,
        vector: &[f32],
    ) -> Result<(), StoreError> {
        let bytes: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.db.execute(
            "INSERT OR REPLACE INTO tool_embedding (server, name, embedder, text_hash, vector) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![key.server, key.name, embedder, text_hash(text), bytes],
        )?;
        Ok(())
    }

    /// Analyses the tools that have no stored analysis for their schema with `analyzer` and
    /// stores each result. A tool the analyzer fails on keeps its heuristic metadata and stays
    /// pending; its error is returned for the caller to log.
    pub fn refresh<A: Analyzer>(
        &self,
        tools: &[ToolInfo],
        analyzer: &A,
    ) -> Result<Refreshed<A::Error>, StoreError> {
        let mut stored = 0;
        let mut failed = Vec::new();
        for tool in tools {
            let key = tool.key();
            if self.get(&key)?.is_some() {
                continue;
            }
            match analyzer.analyze(tool) {
                Ok(analysis) => {
                    self.put(&key, &analysis)?;
                    stored += 1;
                }
                Err(e) => failed.push((key, e)),
            }
        }
        Ok(Refreshed { stored, failed })
    }

    /// Metadata for every tool without waiting: the stored analysis when its schema hash
    /// matches, else the heuristic one (and the tool is listed as pending). A stored entry
    /// that cannot be read counts as missing.
    pub fn analysed(&self, tools: Vec<ToolInfo>) -> Analysed {
        let mut pending = Vec::new();
        let tools = tools
            .into_iter()
            .map(|info| {
                let key = info.key();
                let analysis = match self.get(&key) {
                    Ok(Some(stored)) => stored,
                    Ok(None) | Err(_) => {
                        let fallback = heuristic(&info);
                        pending.push(key);
                        fallback
                    }
                };
                AnalysedTool { info, analysis }
            })
            .collect();
        Analysed { tools, pending }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::AnalysisSource;

    fn tool(description: &str) -> ToolInfo {
        ToolInfo {
            server: "fs".into(),
            name: "read_file".into(),
            description: description.into(),
            input_schema: Default::default(),
            status: Default::default(),
        }
    }

    fn llm(info: &ToolInfo) -> ToolAnalysis {
        ToolAnalysis {
            condensed: "Reads one file.".into(),
            source: AnalysisSource::Llm,
            ..heuristic(info)
        }
    }

    #[test]
    fn analyses_survive_a_restart_and_a_changed_schema_invalidates_them()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("tools.sqlite");
        let v1 = tool("Read a file.");
        {
            let store = AnalysisStore::open(&path)?;
            let first = store.analysed(vec![v1.clone()]);
            assert_eq!(first.pending, [v1.key()]);
            assert_eq!(first.tools[0].analysis.source, AnalysisSource::Heuristic);
            store.put(&v1.key(), &llm(&v1))?;
        }
        let store = AnalysisStore::open(&path)?;
        let again = store.analysed(vec![v1.clone()]);
        assert!(again.pending.is_empty());
        assert_eq!(again.tools[0].analysis, llm(&v1));

        let v2 = tool("Read a file, now with line ranges.");
        let changed = store.analysed(vec![v2.clone()]);
        assert_eq!(changed.pending, [v2.key()]);
        assert_eq!(changed.tools[0].analysis.source, AnalysisSource::Heuristic);
        assert_eq!(store.get(&v1.key())?, Some(llm(&v1)));
        store.put(&v2.key(), &llm(&v2))?;
        assert_eq!(store.get(&v1.key())?, None);
        Ok(())
    }

    /// A stand-in for the chat side's language-model analyzer: it knows one tool.
    struct KnowsOne;

    #[derive(Debug, thiserror::Error)]
    #[error("no answer for {0}")]
    struct NoAnswer(String);

    impl Analyzer for KnowsOne {
        type Error = NoAnswer;

        fn analyze(&self, tool: &ToolInfo) -> Result<ToolAnalysis, NoAnswer> {
            if tool.description == "Read a file." {
                Ok(llm(tool))
            } else {
                Err(NoAnswer(tool.id()))
            }
        }
    }

    #[test]
    fn refresh_stores_what_the_analyzer_gives_and_keeps_failures_pending() -> Result<(), StoreError>
    {
        let store = AnalysisStore::in_memory()?;
        let known = tool("Read a file.");
        let mut unknown = tool("Something else.");
        unknown.name = "other".into();
        let tools = vec![known.clone(), unknown.clone()];
        let done = store.refresh(&tools, &KnowsOne)?;
        assert_eq!(done.stored, 1);
        assert_eq!(done.failed.len(), 1);
        assert_eq!(done.failed[0].0, unknown.key());
        let now = store.analysed(tools.clone());
        assert_eq!(now.pending, [unknown.key()]);
        assert_eq!(now.tools[0].analysis.source, AnalysisSource::Llm);
        assert_eq!(store.refresh(&tools, &KnowsOne)?.stored, 0);
        Ok(())
    }

    #[test]
    fn embeddings_are_kept_per_embedder_and_text() -> Result<(), StoreError> {
        let store = AnalysisStore::in_memory()?;
        let v1 = tool("Read a file.");
        let v2 = tool("Read a file, now with line ranges.");
        let key = v1.key();
        store.put_embedding(&key, "model-a", "text", &[0.5, -1.25, 3.0])?;
        assert_eq!(
            store.embedding(&key, "model-a", "text")?,
            Some(vec![0.5, -1.25, 3.0])
        );
        assert_eq!(store.embedding(&key, "model-b", "text")?, None);
        assert_eq!(store.embedding(&key, "model-a", "other text")?, None);
        store.put_embedding(&v2.key(), "model-a", "new text", &[1.0])?;
        assert_eq!(store.embedding(&key, "model-a", "text")?, None);
        assert_eq!(
            store.embedding(&key, "model-a", "new text")?,
            Some(vec![1.0])
        );
        Ok(())
    }
}
