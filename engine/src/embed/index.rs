//! The vector index: one unit vector per embedded node, int8 with a scale per row, searched by
//! cosine over all rows (exact; a 40k-symbol project is ~11 MB and a few milliseconds a query).
//! Tokens are weighted by their inverse document frequency in this project, queries alike.

use rustc_hash::{FxHashMap as HashMap, FxHasher};
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};

use super::model::{StaticModel, WordCache};
use super::text::node_text;
use crate::graph::Graph;
use crate::ingest::Sources;
use crate::search::Hit;

/// Quantization: a vector's components are scaled so the largest is this, rounded to `i8`.
const QUANT: f32 = 127.0;
/// Nodes embedded between two progress reports.
const PROGRESS_EVERY: usize = 2000;

/// Vectors of the nodes of one graph, with the hash of the text each was computed from.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct VectorIndex {
    dims: u32,
    nodes: Vec<u32>,
    text_hashes: Vec<u64>,
    rows: Vec<i8>,
    scales: Vec<f32>,
    /// Each model token's weight: its inverse document frequency over the embedded texts.
    weights: Vec<f32>,
}

/// How much work building an index did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Nodes with a vector.
    pub embedded: usize,
    /// Of those, vectors taken over from the previous index because their text is unchanged.
    pub reused: usize,
}

fn text_hash(text: &str) -> u64 {
    let mut h = FxHasher::default();
    text.hash(&mut h);
    h.finish()
}

/// `v` as `i8`s and the scale that turns them back.
fn quantize(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        return (vec![0; v.len()], 0.0);
    }
    let k = QUANT / max;
    let q = v
        .iter()
        .map(|x| (x * k).round().clamp(-QUANT, QUANT) as i8)
        .collect();
    (q, max / QUANT)
}

fn dot(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(&x, &y)| x as i32 * y as i32).sum()
}

impl VectorIndex {
    /// Embeds every symbol and file of `graph`; rows of `previous` whose text is unchanged are
    /// reused. `progress(done, total)` is called now and then; returning `false` stops early
    /// (the index then holds what was done).
    pub fn build(
        graph: &Graph,
        sources: &Sources,
        model: &StaticModel,
        previous: Option<&VectorIndex>,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> (VectorIndex, BuildStats) {
        let dims = model.dims();
        let reusable: HashMap<u64, usize> = previous
            .filter(|p| p.dims as usize == dims)
            .map(|p| {
                p.text_hashes
                    .iter()
                    .enumerate()
                    .map(|(i, &h)| (h, i))
                    .collect()
            })
            .unwrap_or_default();
        let mut cache = WordCache::default();
        let docs: Vec<(u32, u64, Vec<u32>)> = graph
            .nodes()
            .filter_map(|n| node_text(graph, &n, sources).map(|t| (n.id, t)))
            .map(|(node, text)| (node, text_hash(&text), model.token_ids(&text, &mut cache)))
            .collect();
        let total = docs.len();
        let mut df = vec![0u32; model.tokens()];
        let mut seen: HashMap<u32, ()> = HashMap::default();
        for (_, _, ids) in &docs {
            seen.clear();
            for &id in ids {
                if seen.insert(id, ()).is_none()
                    && let Some(d) = df.get_mut(id as usize)
                {
                    *d += 1;
                }
            }
        }
        let n = total as f32;
        let weights: Vec<f32> = df
            .iter()
            .map(|&d| ((1.0 + n) / (1.0 + d as f32)).ln() + 1.0)
            .collect();
        let mut index = VectorIndex {
            dims: dims as u32,
            ..VectorIndex::default()
        };
        let mut stats = BuildStats::default();
        for (done, (node, hash, ids)) in docs.into_iter().enumerate() {
            if done % PROGRESS_EVERY == 0 && !progress(done, total) {
                break;
            }
            let old = reusable.get(&hash).and_then(|&i| {
                previous
                    .and_then(|p| Some((p.rows.get(i * dims..(i + 1) * dims)?, *p.scales.get(i)?)))
            });
            if let Some((row, scale)) = old {
                index.rows.extend_from_slice(row);
                index.scales.push(scale);
                stats.reused += 1;
            } else if let Some(v) =
                model.pool(&ids, &|id| weights.get(id as usize).copied().unwrap_or(1.0))
            {
                let (row, scale) = quantize(&v);
                index.rows.extend(row);
                index.scales.push(scale);
            } else {
                continue;
            }
            index.nodes.push(node);
            index.text_hashes.push(hash);
        }
        index.weights = weights;
        stats.embedded = index.nodes.len();
        progress(total, total);
        (index, stats)
    }

    /// The vector of a query, its tokens weighted as the index's texts were.
    pub fn embed_query(&self, model: &StaticModel, query: &str) -> Option<Vec<f32>> {
        let ids = model.token_ids(query, &mut WordCache::default());
        model.pool(&ids, &|id| {
            self.weights.get(id as usize).copied().unwrap_or(1.0)
        })
    }

    /// How many nodes have a vector.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when no node has a vector.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Its width.
    pub fn dims(&self) -> usize {
        self.dims as usize
    }

    /// The `max` nodes most similar to `query` (a unit vector of the same width) that `filter`
    /// accepts, best first; scores are cosine similarities.
    pub fn search(&self, query: &[f32], max: usize, filter: &dyn Fn(u32) -> bool) -> Vec<Hit> {
        let dims = self.dims as usize;
        if query.len() != dims || dims == 0 || max == 0 {
            return Vec::new();
        }
        let (query, query_scale) = quantize(query);
        let mut hits: Vec<Hit> = self
            .rows
            .chunks_exact(dims)
            .zip(&self.nodes)
            .zip(&self.scales)
            .map(|((row, &node), &scale)| Hit {
                node,
                score: (dot(row, &query) as f32 * scale * query_scale).clamp(-1.0, 1.0) as f64,
            })
            .collect();
        let by_score = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node));
        let mut out = Vec::with_capacity(max);
        // Best-first in slices: sort only the head; filter what was taken, widen when short.
        let mut start = 0;
        while out.len() < max && start < hits.len() {
            let want = ((max - out.len()) * 2).max(64).min(hits.len() - start);
            let rest = &mut hits[start..];
            if want < rest.len() {
                rest.select_nth_unstable_by(want - 1, by_score);
            }
            rest[..want].sort_unstable_by(by_score);
            out.extend(rest[..want].iter().filter(|h| filter(h.node)).copied());
            start += want;
        }
        out.truncate(max);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::model::model_bytes;
    use crate::ingest::{SourceFile, index_with_sources};

    fn setup() -> (Graph, Sources, StaticModel) {
        let src = "def hash_password(raw):\n    return digest(raw)\n\ndef paginate(items):\n    return pages(items)\n";
        let (g, _, sources) = index_with_sources(
            "t",
            vec![SourceFile {
                path: "app.py".into(),
                bytes: src.as_bytes().to_vec(),
            }],
            &|| 0.0,
            &mut |_, _, _| true,
        )
        .unwrap();
        let model = StaticModel::from_bytes(&model_bytes(&[
            ("hash", vec![100, 0, 0]),
            ("password", vec![100, 10, 0]),
            ("digest", vec![90, 0, 10]),
            ("pages", vec![0, 100, 0]),
            ("paginate", vec![0, 100, 10]),
            ("app", vec![0, 0, 100]),
        ]))
        .unwrap();
        (g, sources, model)
    }

    #[test]
    fn the_nearest_symbol_comes_first_and_filters_hold() {
        let (g, sources, model) = setup();
        let (idx, stats) = VectorIndex::build(&g, &sources, &model, None, &mut |_, _| true);
        assert_eq!(stats.embedded, idx.len());
        assert_eq!((idx.len(), stats.reused), (3, 0));
        let q = idx.embed_query(&model, "secure password digest").unwrap();
        let hits = idx.search(&q, 3, &|_| true);
        let name = |h: &Hit| g.node(h.node).unwrap().name().to_owned();
        assert_eq!(name(&hits[0]), "hash_password");
        assert!(
            hits[0].score > hits[1].score && hits[0].score <= 1.0,
            "{hits:?}"
        );
        let q = idx.embed_query(&model, "pages").unwrap();
        let only_fns = idx.search(&q, 5, &|n| g.node(n).unwrap().kind().is_callable());
        assert_eq!(only_fns.len(), 2);
        assert_eq!(name(&only_fns[0]), "paginate");
        assert!(idx.search(&[1.0], 5, &|_| true).is_empty());
    }

    #[test]
    fn unchanged_texts_are_reused_and_progress_can_stop() {
        let (g, sources, model) = setup();
        let (first, _) = VectorIndex::build(&g, &sources, &model, None, &mut |_, _| true);
        let (again, stats) =
            VectorIndex::build(&g, &sources, &model, Some(&first), &mut |_, _| true);
        assert_eq!((stats.reused, again), (3, first));
        let (none, _) = VectorIndex::build(&g, &sources, &model, None, &mut |_, _| false);
        assert!(none.is_empty());
    }
}
