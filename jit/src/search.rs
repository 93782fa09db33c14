//! Retrieval of tools by words: a BM25 index over each tool's name, description and schema
//! property names, blended with the embedder's similarity; the tool search and the compiler's
//! retrieval floor rank with it.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use serde_json::Value;

use crate::text::words;
use crate::tool::ToolInfo;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalisation.
const B: f32 = 0.75;
/// A word of the tool's name counts this many times (names say most about a tool).
const NAME_WEIGHT: f32 = 3.0;
/// A schema property name counts this many times.
const PROPERTY_WEIGHT: f32 = 1.0;

/// One tool's weighted words.
#[derive(Debug, Clone, Default)]
struct Document {
    counts: HashMap<String, f32>,
    length: f32,
}

/// BM25 over the catalog's tools (same order as the catalog), as an inverted index: a query
/// visits only the tools that hold one of its words.
#[derive(Debug, Clone, Default)]
pub(crate) struct LexicalIndex {
    /// Per word: its idf and the (tool, weighted count) pairs that hold it.
    postings: FxHashMap<String, (f32, Vec<(usize, f32)>)>,
    /// Per tool: BM25's length norm, `K1 × (1 − B + B × length / mean length)`.
    norms: Vec<f32>,
}

/// The words a tool is found by: its server, name (weighted), description and property names
/// and descriptions.
fn document(tool: &ToolInfo) -> Document {
    let mut counts: HashMap<String, f32> = HashMap::new();
    let mut add = |text: &str, weight: f32| {
        for w in words(text) {
            *counts.entry(w).or_default() += weight;
        }
    };
    add(&tool.name, NAME_WEIGHT);
    add(&tool.server, 1.0);
    add(&tool.description, 1.0);
    if let Some(Value::Object(props)) = tool.input_schema.get("properties") {
        for (key, prop) in props {
            add(key, PROPERTY_WEIGHT);
            if let Some(text) = prop.get("description").and_then(Value::as_str) {
                add(text, 0.5);
            }
        }
    }
    let length = counts.values().sum();
    Document { counts, length }
}

impl LexicalIndex {
    /// The index of `tools`.
    pub(crate) fn new<'a>(tools: impl Iterator<Item = &'a ToolInfo>) -> LexicalIndex {
        let documents: Vec<Document> = tools.map(document).collect();
        let n = documents.len() as f32;
        let mean_length = documents.iter().map(|d| d.length).sum::<f32>() / n.max(1.0);
        let mut postings: FxHashMap<String, (f32, Vec<(usize, f32)>)> = FxHashMap::default();
        for (i, d) in documents.iter().enumerate() {
            for (w, tf) in &d.counts {
                postings.entry(w.clone()).or_default().1.push((i, *tf));
            }
        }
        for (idf, list) in postings.values_mut() {
            let df = list.len() as f32;
            *idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
        }
        let norms = documents
            .iter()
            .map(|d| K1 * (1.0 - B + B * d.length / mean_length.max(f32::EPSILON)))
            .collect();
        LexicalIndex { postings, norms }
    }

    /// BM25 of each tool for `query`, in catalog order.
    pub(crate) fn scores(&self, query: &str) -> Vec<f32> {
        let mut query_words = words(query);
        query_words.sort();
        query_words.dedup();
        let mut scores = vec![0.0f32; self.norms.len()];
        for (idf, list) in query_words.iter().filter_map(|w| self.postings.get(w)) {
            for &(i, tf) in list {
                scores[i] += idf * tf * (K1 + 1.0) / (tf + self.norms[i]);
            }
        }
        scores
    }
}

/// The least blended score that counts as a match (similarity 20 alone, or some shared words).
pub(crate) const MIN_MATCH: f32 = 0.1;

/// Blends BM25 (scaled by the best score of the query) and vector similarity (0–100) into one
/// 0–1 retrieval score per tool: each channel counts half.
pub(crate) fn blend(lexical: &[f32], vector: &[f32]) -> Vec<f32> {
    let best = lexical.iter().copied().fold(0.0f32, f32::max);
    lexical
        .iter()
        .zip(vector)
        .map(|(l, v)| {
            let l = if best > 0.0 { l / best } else { 0.0 };
            0.5 * l + 0.5 * (v / 100.0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> ToolInfo {
        ToolInfo {
            server: "s".into(),
            name: name.into(),
            description: description.into(),
            input_schema: Default::default(),
            status: crate::ServerStatus::Online,
        }
    }

    #[test]
    fn rare_words_of_the_name_rank_first() {
        let tools = [
            tool("create_issue", "Create a new issue in a repository"),
            tool("list_files", "List the files of a repository"),
            tool("get_weather", "Current weather for a city"),
        ];
        let index = LexicalIndex::new(tools.iter());
        let s = index.scores("open an issue about the crash");
        assert!(s[0] > s[1] && s[1] == s[2], "{s:?}");
        assert!(index.scores("").iter().all(|x| *x == 0.0));
        let b = blend(&s, &[0.0, 50.0, 0.0]);
        assert!(
            (b[0] - 0.5).abs() < 1e-6 && (b[1] - 0.25).abs() < 1e-6,
            "{b:?}"
        );
    }
}
