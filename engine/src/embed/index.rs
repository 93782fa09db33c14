//! The vector index: one unit vector per embedded node, int8 with a scale per row, searched by
//! cosine over all rows (exact; a 40k-symbol project is ~11 MB and a few milliseconds a query).
//! Tokens are weighted by their inverse document frequency in this project, queries alike, and
//! the direction all rows share (the project's common component) is removed from both sides.

use rustc_hash::{FxHashMap as HashMap, FxHasher};
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};

use super::text::node_text;
use crate::graph::Graph;
use crate::ingest::Sources;
use crate::search::Hit;
use nexus_embed::{StaticModel, WordCache};

/// Quantization: a vector's components are scaled so the largest is this, rounded to `i8`.
const QUANT: f32 = 127.0;
/// Nodes embedded between two progress reports.
const PROGRESS_EVERY: usize = 2000;
/// Widest vectors accepted from a stored index or a provider.
pub const MAX_DIMS: usize = 8192;
/// Smallest squared norm left after removing the common component (a row equal to it).
const MIN_NORM: f32 = 1e-6;

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
    /// The unit mean of all rows: the component every text shares, removed when comparing.
    common: Vec<f32>,
    /// Each row's projection on `common`, derived from the rows (not stored).
    #[serde(skip)]
    projections: Vec<f32>,
    /// Each row's norm once the common component is removed, `sqrt(1 - projection²)` (not
    /// stored).
    #[serde(skip)]
    row_norms: Vec<f32>,
}

/// How much work building an index did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Nodes with a vector.
    pub embedded: usize,
    /// Of those, vectors taken over from the previous index because their text is unchanged.
    pub reused: usize,
}

/// The hash by which a node's embedded text is recognised unchanged.
pub fn text_hash(text: &str) -> u64 {
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

/// `v` scaled to length 1 (all zeros stays all zeros), as [`VectorIndex::search`] wants queries.
pub fn unit(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter()
        .map(|x| if norm > 0.0 { x / norm } else { 0.0 })
        .collect()
}

/// Lanes of [`dot`]'s accumulators: wide enough for LLVM to fill SSE2 and wasm registers.
const LANES: usize = 16;

/// The dot product of the common length of a row `a` and a query `b` widened once to `i16`
/// (so only the row is widened per step), summed in 32 bits in fixed lanes that LLVM
/// vectorizes on baseline x86-64 (`pmaddwd`) and plain wasm32 alike.
fn dot(a: &[i8], b: &[i16]) -> i32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: i32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum();
    let mut acc = [0i32; LANES];
    for (x, y) in ca.zip(cb) {
        for ((s, &x), &y) in acc.iter_mut().zip(x).zip(y) {
            *s += i32::from(x) * i32::from(y);
        }
    }
    acc.iter().sum::<i32>() + tail
}

/// Builds a [`VectorIndex`] in steps, so that a worker can answer calls between them: first the
/// nodes' texts are cut into tokens (counting each token's document frequency), then embedded.
pub struct VectorBuilder {
    dims: usize,
    next_node: u32,
    docs: Vec<(u32, u64, Vec<u32>)>,
    df: Vec<u32>,
    cache: WordCache,
    weights: Option<Vec<f32>>,
    embedded: usize,
    previous: Option<VectorIndex>,
    reusable: HashMap<u64, usize>,
    index: VectorIndex,
    stats: BuildStats,
}

impl VectorBuilder {
    /// A builder for `model`'s vectors; rows of `previous` whose text is unchanged are reused.
    pub fn new(model: &StaticModel, previous: Option<VectorIndex>) -> VectorBuilder {
        let dims = model.dims();
        let previous = previous.filter(|p| p.dims as usize == dims);
        let reusable = previous.as_ref().map_or_else(HashMap::default, |p| {
            p.text_hashes
                .iter()
                .enumerate()
                .map(|(i, &h)| (h, i))
                .collect()
        });
        VectorBuilder {
            dims,
            next_node: 0,
            docs: Vec::new(),
            df: vec![0; model.tokens()],
            cache: WordCache::default(),
            weights: None,
            embedded: 0,
            previous,
            reusable,
            index: VectorIndex {
                dims: dims as u32,
                ..VectorIndex::default()
            },
            stats: BuildStats::default(),
        }
    }

    /// Does about `budget` nodes' worth of work; returns (done, total) and whether it finished.
    pub fn step(
        &mut self,
        graph: &Graph,
        sources: &Sources,
        model: &StaticModel,
        budget: usize,
    ) -> (usize, usize, bool) {
        let nodes = graph.node_count();
        if self.weights.is_none() {
            let end = (self.next_node as usize + budget).min(nodes);
            let mut seen: HashMap<u32, ()> = HashMap::default();
            for id in self.next_node as usize..end {
                let Some(text) = graph
                    .node(id as u32)
                    .and_then(|n| node_text(graph, &n, sources))
                else {
                    continue;
                };
                let ids = model.token_ids(&text, &mut self.cache);
                seen.clear();
                for &t in &ids {
                    if seen.insert(t, ()).is_none()
                        && let Some(d) = self.df.get_mut(t as usize)
                    {
                        *d += 1;
                    }
                }
                self.docs.push((id as u32, text_hash(&text), ids));
            }
            self.next_node = end as u32;
            if end == nodes {
                let n = self.docs.len() as f32;
                self.weights = Some(
                    self.df
                        .iter()
                        .map(|&d| ((1.0 + n) / (1.0 + d as f32)).ln() + 1.0)
                        .collect(),
                );
            }
            return (end, nodes + nodes, false);
        }
        let weights = self.weights.as_deref().unwrap_or_default();
        let dims = self.dims;
        let end = (self.embedded + budget).min(self.docs.len());
        for (node, hash, ids) in self.docs.get(self.embedded..end).unwrap_or_default() {
            let old = self.reusable.get(hash).and_then(|&i| {
                let p = self.previous.as_ref()?;
                Some((p.rows.get(i * dims..(i + 1) * dims)?, *p.scales.get(i)?))
            });
            if let Some((row, scale)) = old {
                self.index.rows.extend_from_slice(row);
                self.index.scales.push(scale);
                self.stats.reused += 1;
            } else if let Some(v) =
                model.pool(ids, &|id| weights.get(id as usize).copied().unwrap_or(1.0))
            {
                let (row, scale) = quantize(&v);
                self.index.rows.extend(row);
                self.index.scales.push(scale);
            } else {
                continue;
            }
            self.index.nodes.push(*node);
            self.index.text_hashes.push(*hash);
        }
        self.embedded = end;
        let total = nodes + self.docs.len();
        (nodes + end, total, end == self.docs.len())
    }

    /// The index and what building it did.
    pub fn finish(mut self) -> (VectorIndex, BuildStats) {
        self.index.weights = self.weights.unwrap_or_default();
        self.index.common = self.index.mean_row();
        self.index.prepare();
        self.stats.embedded = self.index.nodes.len();
        (self.index, self.stats)
    }
}

impl VectorIndex {
    /// An index of vectors made elsewhere (an embeddings service): `(node, text hash, vector)`
    /// rows of width `dims`, in any order; rows of another width or with a non-finite component
    /// are an error. Queries must then be embedded by the same service.
    pub fn from_vectors(
        dims: usize,
        mut rows: Vec<(u32, u64, Vec<f32>)>,
    ) -> Result<VectorIndex, String> {
        rows.sort_unstable_by_key(|r| r.0);
        rows.dedup_by_key(|r| r.0);
        let mut index = VectorIndex {
            dims: u32::try_from(dims).map_err(|_| format!("{dims} dimensions are too many"))?,
            ..VectorIndex::default()
        };
        for (node, hash, v) in rows {
            if v.len() != dims {
                return Err(format!("a vector of {} values, expected {dims}", v.len()));
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err("a vector holds a value that is not a finite number".into());
            }
            let (row, scale) = quantize(&unit(&v));
            index.nodes.push(node);
            index.text_hashes.push(hash);
            index.rows.extend(row);
            index.scales.push(scale);
        }
        index.common = index.mean_row();
        index.prepare();
        Ok(index)
    }

    /// Each row's text hash and its vector as floats, for a builder of provider vectors that
    /// reuses what did not change.
    pub fn rows_by_text(&self) -> impl Iterator<Item = (u64, Vec<f32>)> + '_ {
        let dims = (self.dims as usize).max(1);
        self.text_hashes
            .iter()
            .zip(&self.scales)
            .zip(self.rows.chunks_exact(dims))
            .map(|((&hash, &scale), row)| (hash, row.iter().map(|&x| x as f32 * scale).collect()))
    }

    /// Checks that a decoded index is whole and fits a graph of `node_count` nodes: matching
    /// lengths, at most [`MAX_DIMS`] wide, nodes ascending and in the graph, finite scales and
    /// weights. A damaged index is an error, never a panic later.
    pub fn check(&self, node_count: usize) -> Result<(), String> {
        let dims = self.dims as usize;
        let n = self.nodes.len();
        if dims > MAX_DIMS || (dims == 0 && n > 0) {
            return Err(format!("{dims} dimensions"));
        }
        if self.text_hashes.len() != n || self.scales.len() != n {
            return Err(format!(
                "{n} nodes but {} text hashes and {} scales",
                self.text_hashes.len(),
                self.scales.len()
            ));
        }
        if Some(self.rows.len()) != n.checked_mul(dims) {
            return Err(format!("{} values for {n} rows of {dims}", self.rows.len()));
        }
        if self.nodes.windows(2).any(|w| w[0] >= w[1]) {
            return Err("nodes out of order".into());
        }
        if let Some(&last) = self.nodes.last()
            && last as usize >= node_count
        {
            return Err(format!("node {last} is not in a graph of {node_count}"));
        }
        if self.scales.iter().any(|s| !s.is_finite() || *s < 0.0) {
            return Err("a row's scale is not a finite positive number".into());
        }
        if self.weights.iter().any(|w| !w.is_finite()) {
            return Err("a token weight is not a finite number".into());
        }
        if !(self.common.is_empty() || self.common.len() == dims)
            || self.common.iter().any(|c| !c.is_finite())
        {
            return Err(format!(
                "a common component of {} values for rows of {dims}",
                self.common.len()
            ));
        }
        Ok(())
    }

    /// True when every stored row's node still has the text it was computed from (same node
    /// ids, same texts): a restored index can then be used as it is, without embedding again.
    pub fn matches_texts(&self, graph: &Graph, sources: &Sources) -> bool {
        self.nodes
            .iter()
            .zip(&self.text_hashes)
            .all(|(&id, &hash)| {
                graph
                    .node(id)
                    .and_then(|n| node_text(graph, &n, sources))
                    .is_some_and(|text| text_hash(&text) == hash)
            })
    }

    /// Embeds every symbol and file of `graph` (see [`VectorBuilder`]), calling
    /// `progress(done, total)` now and then; when it returns `false` the build stops early and
    /// the index holds what was done.
    pub fn build(
        graph: &Graph,
        sources: &Sources,
        model: &StaticModel,
        previous: Option<&VectorIndex>,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> (VectorIndex, BuildStats) {
        let mut builder = VectorBuilder::new(model, previous.cloned());
        loop {
            let (done, total, finished) = builder.step(graph, sources, model, PROGRESS_EVERY);
            if finished || !progress(done, total) {
                break;
            }
        }
        builder.finish()
    }

    /// The vector of a query, its tokens weighted as the index's texts were.
    pub fn embed_query(&self, model: &StaticModel, query: &str) -> Option<Vec<f32>> {
        let ids = model.token_ids(query, &mut WordCache::default());
        model.pool(&ids, &|id| {
            self.weights.get(id as usize).copied().unwrap_or(1.0)
        })
    }

    /// Derives what is not stored (each row's projection on the common component); call once
    /// after reading an index back. Idempotent.
    pub fn prepare(&mut self) {
        let dims = self.dims as usize;
        if self.common.len() != dims || self.projections.len() == self.nodes.len() {
            return;
        }
        self.projections = self
            .rows
            .chunks_exact(dims)
            .zip(&self.scales)
            .map(|(row, &scale)| {
                row.iter()
                    .zip(&self.common)
                    .map(|(&v, &u)| v as f32 * u)
                    .sum::<f32>()
                    * scale
            })
            .collect();
        self.row_norms = self
            .projections
            .iter()
            .map(|&common| (1.0 - common * common).max(MIN_NORM).sqrt())
            .collect();
    }

    /// The unit mean of all rows; empty when there are none.
    fn mean_row(&self) -> Vec<f32> {
        let dims = self.dims as usize;
        let mut mean = vec![0f32; dims];
        for (row, &scale) in self.rows.chunks_exact(dims).zip(&self.scales) {
            for (m, &v) in mean.iter_mut().zip(row) {
                *m += v as f32 * scale;
            }
        }
        let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return Vec::new();
        }
        mean.iter_mut().for_each(|v| *v /= norm);
        mean
    }

    /// The weight of token `id`: its inverse document frequency in the project.
    pub fn weight(&self, id: u32) -> f32 {
        self.weights.get(id as usize).copied().unwrap_or(1.0)
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
    /// accepts, best first; scores are cosine similarities once the common component is removed
    /// from both sides (`d - (d·u)u`, whose dot products and norms follow from `d·u` alone).
    pub fn search(&self, query: &[f32], max: usize, filter: &dyn Fn(u32) -> bool) -> Vec<Hit> {
        let dims = self.dims as usize;
        if query.len() != dims || dims == 0 || max == 0 {
            return Vec::new();
        }
        let query_common: f32 = query.iter().zip(&self.common).map(|(a, b)| a * b).sum();
        let query_norm = (1.0 - query_common * query_common).max(MIN_NORM).sqrt();
        let (query, query_scale) = quantize(query);
        let query: Vec<i16> = query.into_iter().map(i16::from).collect();
        let score = |row: &[i8], scale: f32, common: f32, row_norm: f32| {
            let cosine = dot(row, &query) as f32 * scale * query_scale;
            ((cosine - common * query_common) / (row_norm * query_norm)).clamp(-1.0, 1.0)
        };
        // (score, node) pairs: half the size of hits, so selecting moves less memory.
        let rows = self.rows.chunks_exact(dims).zip(&self.scales);
        let mut hits: Vec<(f32, u32)> = if self.projections.len() == self.nodes.len()
            && self.row_norms.len() == self.nodes.len()
        {
            rows.zip(self.projections.iter().zip(&self.row_norms))
                .zip(&self.nodes)
                .map(|(((row, &scale), (&common, &norm)), &node)| {
                    (score(row, scale, common, norm), node)
                })
                .collect()
        } else {
            // Without a common component: no projection, every row norm 1.
            rows.zip(&self.nodes)
                .map(|((row, &scale), &node)| (score(row, scale, 0.0, 1.0), node))
                .collect()
        };
        let by_score = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
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
            out.extend(
                rest[..want]
                    .iter()
                    .filter(|h| filter(h.1))
                    .map(|&(score, node)| Hit {
                        node,
                        score: f64::from(score),
                    }),
            );
            start += want;
        }
        out.truncate(max);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{SourceFile, index_with_sources};
    use nexus_embed::model_bytes;

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
    fn the_common_component_is_removed_from_rows_and_queries() {
        let (g, sources, model) = setup();
        let (mut idx, _) = VectorIndex::build(&g, &sources, &model, None, &mut |_, _| true);
        assert_eq!(idx.common.len(), 3);
        assert!((idx.common.iter().map(|v| v * v).sum::<f32>() - 1.0).abs() < 1e-5);
        assert_eq!(idx.projections.len(), idx.len());
        let q = idx.embed_query(&model, "hash password").unwrap();
        let with = idx.search(&q, 3, &|_| true);
        // The same scores by hand: project the shared direction out of both sides.
        let u = idx.common.clone();
        let strip = |v: &[f32]| {
            let d: f32 = v.iter().zip(&u).map(|(a, b)| a * b).sum();
            let w: Vec<f32> = v.iter().zip(&u).map(|(a, b)| a - d * b).collect();
            let n = w.iter().map(|x| x * x).sum::<f32>().sqrt();
            w.into_iter().map(|x| x / n).collect::<Vec<f32>>()
        };
        let qs = strip(&q);
        for hit in &with {
            let i = idx.nodes.iter().position(|&n| n == hit.node).unwrap();
            let row: Vec<f32> = idx.rows[i * 3..i * 3 + 3]
                .iter()
                .map(|&v| v as f32 * idx.scales[i])
                .collect();
            let expected: f32 = strip(&row).iter().zip(&qs).map(|(a, b)| a * b).sum();
            assert!(
                (hit.score as f32 - expected).abs() < 0.05,
                "{hit:?} {expected}"
            );
        }
        // Read back, the projections are derived again.
        let bytes = postcard::to_allocvec(&idx).unwrap();
        let mut back: VectorIndex = postcard::from_bytes(&bytes).unwrap();
        assert!(back.projections.is_empty());
        back.prepare();
        idx.prepare();
        assert_eq!(back, idx);
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

    #[test]
    fn vectors_from_a_service_answer_with_the_service_query_vectors() {
        #[derive(Debug)]
        struct Fixed(Vec<f32>);
        impl crate::search::QueryEmbedder for Fixed {
            fn embed_query(&self, _: &VectorIndex, _: &str) -> Option<Vec<f32>> {
                Some(self.0.clone())
            }
        }
        let (g, _, _) = setup();
        let rows = vec![(1, 11, vec![0.0, 3.0]), (0, 10, vec![2.0, 0.1])];
        let vectors = VectorIndex::from_vectors(2, rows).unwrap();
        assert!(vectors.check(g.node_count()).is_ok());
        let mut search = crate::SearchIndex::build(&g);
        search.attach_vectors(std::sync::Arc::new(Fixed(unit(&[0.0, 1.0]))), vectors);
        let hits = search
            .ranked("anything", crate::Mode::Semantic, &|_| true)
            .unwrap();
        assert_eq!(hits.iter().map(|h| h.node).collect::<Vec<_>>(), vec![1, 0]);
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod fuzz {
        use super::super::dot;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn the_lane_dot_product_equals_the_plain_one(
                a in proptest::collection::vec(any::<i8>(), 0..300),
                b in proptest::collection::vec(any::<i8>(), 0..300),
            ) {
                let plain: i32 = a.iter().zip(&b).map(|(&x, &y)| i32::from(x) * i32::from(y)).sum();
                let wide: Vec<i16> = b.iter().map(|&y| i16::from(y)).collect();
                prop_assert_eq!(dot(&a, &wide), plain);
                let extremes = vec![i16::from(i8::MIN); a.len()];
                let plain: i32 = a.iter().map(|&x| i32::from(x) * -128).sum();
                prop_assert_eq!(dot(&a, &extremes), plain);
            }
        }
    }

    #[test]
    fn a_restored_index_fits_only_the_texts_it_was_made_from() {
        let (g, sources, model) = setup();
        let (idx, _) = VectorIndex::build(&g, &sources, &model, None, &mut |_, _| true);
        assert!(idx.matches_texts(&g, &sources));
        assert!(idx.check(g.node_count()).is_ok());
        assert!(idx.check(1).is_err());
        let mut edited = sources.clone();
        let text = edited
            .get("app.py")
            .unwrap()
            .replace("digest(raw)", "sha256(raw)");
        edited.insert("app.py".into(), text);
        assert!(!idx.matches_texts(&g, &edited));
        let by_text: Vec<(u64, Vec<f32>)> = idx.rows_by_text().collect();
        assert_eq!(by_text.len(), idx.len());
        let again = VectorIndex::from_vectors(
            idx.dims(),
            by_text
                .into_iter()
                .zip(&idx.nodes)
                .map(|((h, v), &n)| (n, h, v))
                .collect(),
        )
        .unwrap();
        assert_eq!((&again.rows, &again.nodes), (&idx.rows, &idx.nodes));
    }
}
