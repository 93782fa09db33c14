//! Symbol, file, folder and community search: BM25 over code-aware tokens (identifier parts and
//! whole identifiers, qualified names, signatures, docs and summaries, paths) with prefix and
//! one-typo fuzzy matching, fused with nearest vectors and a name match once embeddings exist.

use std::sync::Arc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::embed::{StaticModel, VectorIndex, WordCache};
use super::graph::{Graph, NodeKind};
use super::process::is_test;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Score factors for non-exact term matches.
const PREFIX_FACTOR: f64 = 0.5;
const FUZZY_FACTOR: f64 = 0.3;
/// Extra weight when the query equals a symbol's whole name.
const EXACT_NAME_BOOST: f64 = 3.0;
/// Reciprocal rank fusion's constant: a hit at rank r (from 1) of a ranking of weight w adds
/// w / (RRF_K + r). 20 rather than the usual 60: the heads of the rankings are what count.
const RRF_K: f64 = 20.0;
/// Weights of hybrid's rankings: keyword (BM25), vectors, name match. Measured by the retrieval
/// bench (`engine/benches/retrieval.rs`) on two corpora: the tuned model's vectors and the name
/// match are each right more often than BM25 on descriptions.
const KEYWORD_WEIGHT: f64 = 1.0;
const SEMANTIC_WEIGHT: f64 = 2.0;
const NAME_MATCH_WEIGHT: f64 = 1.5;
/// Nearest vectors taken into a hybrid ranking.
const SEMANTIC_CANDIDATES: usize = 200;
/// Hybrid's third ranking, the name match, reorders this many of the head of each other one.
const NAME_MATCH_CANDIDATES: usize = 100;
/// Query words that make a query about tests.
const TEST_WORDS: &[&str] = &[
    "test", "tests", "testing", "spec", "specs", "fixture", "mock",
];

/// How a query is ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// BM25 over names, signatures, docs and paths.
    Keyword,
    /// Cosine similarity of embeddings.
    Semantic,
    /// Both, fused by reciprocal rank with a third ranking of their heads: how closely the
    /// words of each candidate's qualified name match the query's, token by token.
    Hybrid,
}

/// What embeds queries for a graph's vectors: the built-in model that made them, or the answers of
/// the service that did.
pub trait QueryEmbedder: std::fmt::Debug + Send + Sync {
    /// `query`'s vector, comparable with `vectors`' rows; `None` when there is none.
    fn embed_query(&self, vectors: &VectorIndex, query: &str) -> Option<Vec<f32>>;
    /// The built-in model's token table, when it is what embeds: hybrid's name match needs it.
    fn static_model(&self) -> Option<&StaticModel> {
        None
    }
}

impl QueryEmbedder for StaticModel {
    fn embed_query(&self, vectors: &VectorIndex, query: &str) -> Option<Vec<f32>> {
        vectors.embed_query(self, query)
    }

    fn static_model(&self) -> Option<&StaticModel> {
        Some(self)
    }
}

/// The embeddings of a graph and what embeds queries alike.
#[derive(Debug)]
struct Semantic {
    model: Arc<dyn QueryEmbedder>,
    vectors: VectorIndex,
}

/// One ranked hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The node found.
    pub node: u32,
    /// Its score: BM25, cosine similarity or fused reciprocal ranks, by mode.
    pub score: f64,
}

/// Inverted index over the graph's symbols and files.
#[derive(Debug, Default)]
pub struct SearchIndex {
    postings: HashMap<String, Vec<(u32, u16)>>,
    /// All terms, sorted, for prefix and fuzzy expansion.
    terms: Vec<String>,
    doc_len: HashMap<u32, u32>,
    avg_len: f64,
    /// Lowercased whole names → nodes, for exact-name boosts and name lookup.
    names: HashMap<String, Vec<u32>>,
    /// Test code, ranked below production code unless the query is about tests.
    tests: HashSet<u32>,
    semantic: Option<Semantic>,
    /// Qualified names of symbols, for the name match.
    qualified: HashMap<u32, String>,
}

/// Splits code text into lowercase tokens: identifier parts (`getUserName` → get, user, name),
/// whole identifiers (`getusername`), and path pieces.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if word.is_empty() {
            continue;
        }
        let whole = word.to_lowercase();
        let mut parts = Vec::new();
        let mut current = String::new();
        let mut prev: Option<char> = None;
        for c in word.chars() {
            let boundary = c == '_'
                || (c.is_uppercase()
                    && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()));
            if boundary && !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            if c != '_' {
                current.extend(c.to_lowercase());
            }
            prev = Some(c);
        }
        if !current.is_empty() {
            parts.push(current);
        }
        if parts.len() > 1 || parts.first() != Some(&whole) {
            out.extend(parts.into_iter().filter(|p| !p.is_empty()));
        }
        out.push(whole.trim_matches('_').to_owned());
    }
    out.retain(|t| !t.is_empty());
    out
}

impl SearchIndex {
    /// Indexes every symbol and file of `graph` by name, path, signature and doc.
    pub fn build(graph: &Graph) -> SearchIndex {
        let mut index = SearchIndex::default();
        let mut total_len = 0u64;
        for node in graph.nodes() {
            let kind = node.kind();
            let summarized = matches!(kind, NodeKind::Folder | NodeKind::Community);
            if !(kind.is_symbol() || kind == NodeKind::File || summarized) {
                continue;
            }
            let mut tf: HashMap<String, u16> = HashMap::default();
            let mut add = |text: &str, weight: u16| {
                for t in tokens(text) {
                    *tf.entry(t).or_insert(0) += weight;
                }
            };
            if kind == NodeKind::File {
                add(node.file(), 2);
            } else if summarized {
                add(node.qualified(), 2);
                add(node.doc(), 1);
            } else {
                add(node.name(), 3);
                add(node.qualified(), 1);
                add(node.signature(), 1);
                add(node.doc(), 1);
                add(node.file().rsplit('/').next().unwrap_or(""), 1);
            }
            let len: u32 = tf.values().map(|&v| v as u32).sum();
            total_len += len as u64;
            index.doc_len.insert(node.id, len);
            for (term, count) in tf {
                index
                    .postings
                    .entry(term)
                    .or_default()
                    .push((node.id, count));
            }
            if is_test(&node) {
                index.tests.insert(node.id);
            }
            if kind.is_symbol() {
                index.qualified.insert(node.id, node.qualified().to_owned());
            }
            index
                .names
                .entry(node.name().to_lowercase())
                .or_default()
                .push(node.id);
        }
        index.avg_len = total_len as f64 / index.doc_len.len().max(1) as f64;
        index.terms = index.postings.keys().cloned().collect();
        index.terms.sort_unstable();
        index
    }

    /// Attaches the embeddings of this graph's nodes and the model that made them.
    pub fn attach_embeddings(&mut self, model: Arc<StaticModel>, vectors: VectorIndex) {
        self.attach_vectors(model, vectors);
    }

    /// Attaches vectors made by any source and what embeds queries alike.
    pub fn attach_vectors(&mut self, model: Arc<dyn QueryEmbedder>, mut vectors: VectorIndex) {
        vectors.prepare();
        self.semantic = Some(Semantic { model, vectors });
    }

    /// The attached embeddings, if any.
    pub fn embeddings(&self) -> Option<&VectorIndex> {
        self.semantic.as_ref().map(|s| &s.vectors)
    }

    /// Ranked hits in `mode`; hybrid without embeddings is keyword. `None` for semantic mode
    /// without embeddings. Test code ranks below the rest unless the query names tests.
    pub fn ranked(
        &self,
        query: &str,
        mode: Mode,
        filter: &dyn Fn(u32) -> bool,
    ) -> Option<Vec<Hit>> {
        let mut hits = match (mode, &self.semantic) {
            (Mode::Keyword, _) | (Mode::Hybrid, None) => self.search(query, filter),
            (Mode::Semantic, None) => return None,
            (Mode::Semantic, Some(sem)) => sem
                .model
                .embed_query(&sem.vectors, query)
                .map(|q| sem.vectors.search(&q, SEMANTIC_CANDIDATES, filter))
                .unwrap_or_default(),
            (Mode::Hybrid, Some(sem)) => {
                let near = sem
                    .model
                    .embed_query(&sem.vectors, query)
                    .map(|q| sem.vectors.search(&q, SEMANTIC_CANDIDATES, filter))
                    .unwrap_or_default();
                let words = self.search(query, filter);
                let heads = words.iter().take(NAME_MATCH_CANDIDATES);
                let names = self.name_match(
                    sem,
                    query,
                    heads.chain(near.iter().take(NAME_MATCH_CANDIDATES)),
                );
                fuse(&[
                    (
                        &words[..words.len().min(SEMANTIC_CANDIDATES)],
                        KEYWORD_WEIGHT,
                    ),
                    (&near, SEMANTIC_WEIGHT),
                    (&names, NAME_MATCH_WEIGHT),
                ])
            }
        };
        let about_tests = tokens(query)
            .iter()
            .any(|t| TEST_WORDS.contains(&t.as_str()));
        if !about_tests && !self.tests.is_empty() {
            // Production code first, tests after it, each best first (a stable sort); the
            // scores stay what they were.
            hits.sort_by_key(|hit| self.tests.contains(&hit.node));
        }
        Some(hits)
    }

    /// Symbols among `candidates` ranked by how well their qualified names match the query:
    /// for each query token, its best cosine with a name token, weighted by the token's weight
    /// in the project and in the model (the norm of its row), averaged.
    fn name_match<'h>(
        &self,
        sem: &Semantic,
        query: &str,
        candidates: impl Iterator<Item = &'h Hit>,
    ) -> Vec<Hit> {
        let Some(model) = sem.model.static_model() else {
            return Vec::new();
        };
        let mut cache = WordCache::default();
        let mut ids = model.token_ids(query, &mut cache);
        ids.sort_unstable();
        ids.dedup();
        let query: Vec<(Vec<f32>, f32)> = ids
            .iter()
            .filter_map(|&id| {
                let (row, norm) = unit(model.row(id)?)?;
                Some((row, norm * sem.vectors.weight(id)))
            })
            .collect();
        let total: f32 = query.iter().map(|(_, w)| w).sum();
        if total <= 0.0 {
            return Vec::new();
        }
        // Each name token's cosine with every query token, computed once per call.
        let mut similarities: HashMap<u32, Vec<f32>> = HashMap::default();
        let mut seen: HashSet<u32> = HashSet::default();
        let mut hits = Vec::new();
        let mut best = vec![0f32; query.len()];
        for hit in candidates {
            let Some(name) = self
                .qualified
                .get(&hit.node)
                .filter(|_| seen.insert(hit.node))
            else {
                continue;
            };
            best.iter_mut().for_each(|b| *b = 0.0);
            for id in model.token_ids(name, &mut cache) {
                let sims = similarities.entry(id).or_insert_with(|| {
                    let row = model.row(id).and_then(unit).map(|(r, _)| r);
                    query
                        .iter()
                        .map(|(q, _)| {
                            row.as_ref()
                                .map_or(0.0, |r| r.iter().zip(q).map(|(a, b)| a * b).sum())
                        })
                        .collect()
                });
                for (b, &s) in best.iter_mut().zip(sims.iter()) {
                    *b = b.max(s);
                }
            }
            let matched: f32 = query.iter().zip(&best).map(|((_, w), b)| w * b).sum();
            hits.push(Hit {
                node: hit.node,
                score: f64::from(matched / total),
            });
        }
        sort_hits(&mut hits);
        hits
    }

    /// BM25 hits for a free-text query; `filter` keeps the nodes it accepts.
    pub fn search(&self, query: &str, filter: &dyn Fn(u32) -> bool) -> Vec<Hit> {
        let mut scores: HashMap<u32, f64> = HashMap::default();
        let n = self.doc_len.len().max(1) as f64;
        for term in dedup(tokens(query)) {
            for (matched, factor) in self.expand(&term) {
                let Some(list) = self.postings.get(matched) else {
                    continue;
                };
                let idf = (1.0 + (n - list.len() as f64 + 0.5) / (list.len() as f64 + 0.5)).ln();
                for &(doc, tf) in list {
                    let len = self.doc_len.get(&doc).copied().unwrap_or(1) as f64;
                    let tf = tf as f64;
                    let s = idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / self.avg_len));
                    *scores.entry(doc).or_insert(0.0) += s * factor;
                }
            }
        }
        let whole = query.trim().to_lowercase();
        if let Some(exact) = self.names.get(&whole) {
            for &doc in exact {
                if let Some(s) = scores.get_mut(&doc) {
                    *s *= EXACT_NAME_BOOST;
                }
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .filter(|(node, _)| filter(*node))
            .map(|(node, score)| Hit { node, score })
            .collect();
        sort_hits(&mut hits);
        hits
    }

    /// Nodes whose whole name matches `name` case-insensitively.
    pub fn by_name(&self, name: &str) -> &[u32] {
        self.names
            .get(&name.to_lowercase())
            .map_or(&[], Vec::as_slice)
    }

    /// Every distinct lowercased whole name with its nodes (symbols and files).
    pub fn names(&self) -> impl Iterator<Item = (&str, &[u32])> {
        self.names
            .iter()
            .map(|(name, nodes)| (name.as_str(), nodes.as_slice()))
    }

    /// The term itself, terms it prefixes, or (if neither exists) terms one edit away.
    fn expand<'a>(&'a self, term: &'a str) -> Vec<(&'a str, f64)> {
        let mut out = Vec::new();
        if self.postings.contains_key(term) {
            out.push((term, 1.0));
        }
        if term.len() >= 3 {
            let start = self.terms.partition_point(|t| t.as_str() < term);
            for t in self.terms[start..]
                .iter()
                .take_while(|t| t.starts_with(term))
                .take(64)
            {
                if t != term {
                    out.push((t.as_str(), PREFIX_FACTOR));
                }
            }
        }
        if out.is_empty() && term.chars().count() >= 4 {
            for t in &self.terms {
                if t.len().abs_diff(term.len()) <= 1 && within_one_edit(t, term) {
                    out.push((t.as_str(), FUZZY_FACTOR));
                }
            }
        }
        out
    }
}

/// Best first; ties by node id, so equal scores rank the same way every time.
fn sort_hits(hits: &mut [Hit]) {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
}

/// `v` scaled to unit length, with its length; `None` for a zero vector.
fn unit(v: Vec<f32>) -> Option<(Vec<f32>, f32)> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    (norm > 0.0 && norm.is_finite()).then(|| (v.into_iter().map(|x| x / norm).collect(), norm))
}

/// Reciprocal rank fusion of rankings (each best first).
fn fuse(rankings: &[(&[Hit], f64)]) -> Vec<Hit> {
    let mut scores: HashMap<u32, f64> = HashMap::default();
    for &(ranking, weight) in rankings {
        for (rank, hit) in ranking.iter().enumerate() {
            *scores.entry(hit.node).or_insert(0.0) += weight / (RRF_K + rank as f64 + 1.0);
        }
    }
    let mut hits: Vec<Hit> = scores
        .into_iter()
        .map(|(node, score)| Hit { node, score })
        .collect();
    sort_hits(&mut hits);
    hits
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    v.retain(|t| seen.insert(t.clone()));
    v
}

/// True when `a` and `b` differ by at most one insertion, deletion, substitution or swap.
pub fn within_one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b {
        return true;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[prefix..], &b[prefix..]);
    match ra.len().cmp(&rb.len()) {
        std::cmp::Ordering::Equal => {
            ra[1..] == rb[1..]
                || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
        std::cmp::Ordering::Greater => ra.len() == rb.len() + 1 && ra[1..] == *rb,
        std::cmp::Ordering::Less => rb.len() == ra.len() + 1 && rb[1..] == *ra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{SourceFile, index};

    fn graph() -> Graph {
        let files = vec![
            SourceFile {
                path: "shop/cart.py".into(),
                bytes: b"class ShoppingCart:\n    \"\"\"Holds items before checkout.\"\"\"\n    def add_item(self, item):\n        pass\n    def checkout(self):\n        pass\n".to_vec(),
            },
            SourceFile { path: "shop/payment.py".into(), bytes: b"def charge_card(card):\n    pass\n\ndef refund(card):\n    pass\n".to_vec() },
            SourceFile { path: "util/checkout_helpers.py".into(), bytes: b"def format_total(x):\n    pass\n".to_vec() },
        ];
        index("t", files, &|| 0.0, &mut |_, _, _| true).unwrap().0
    }

    fn top(g: &Graph, idx: &SearchIndex, q: &str) -> Vec<String> {
        idx.search(q, &|_| true)
            .iter()
            .take(3)
            .map(|h| g.node(h.node).unwrap().stable_id())
            .collect()
    }

    #[test]
    fn tokens_split_identifiers_and_keep_the_whole() {
        assert_eq!(
            tokens("getUserName"),
            ["get", "user", "name", "getusername"]
        );
        assert_eq!(tokens("add_item"), ["add", "item", "add_item"]);
        assert_eq!(tokens("shop/cart.py"), ["shop", "cart", "py"]);
        assert_eq!(tokens("HTTPServer"), ["httpserver"]);
    }

    #[test]
    fn ranking_prefers_exact_names_then_parts_then_paths() {
        let g = graph();
        let idx = SearchIndex::build(&g);
        assert_eq!(
            top(&g, &idx, "checkout")[0],
            "Method:shop/cart.py:ShoppingCart.checkout"
        );
        assert_eq!(
            top(&g, &idx, "charge card")[0],
            "Function:shop/payment.py:charge_card"
        );
        assert_eq!(
            top(&g, &idx, "ShoppingCart")[0],
            "Class:shop/cart.py:ShoppingCart"
        );
        assert!(top(&g, &idx, "checkout").contains(&"File:util/checkout_helpers.py".to_owned()));
    }

    #[test]
    fn prefixes_typos_and_docs_match() {
        let g = graph();
        let idx = SearchIndex::build(&g);
        assert_eq!(top(&g, &idx, "refu")[0], "Function:shop/payment.py:refund");
        assert_eq!(
            top(&g, &idx, "refnud")[0],
            "Function:shop/payment.py:refund"
        );
        assert_eq!(
            top(&g, &idx, "before")[0],
            "Class:shop/cart.py:ShoppingCart"
        );
        assert!(idx.search("zzzz qqqq", &|_| true).is_empty());
        assert!(idx.search("", &|_| true).is_empty());
    }

    #[test]
    fn modes_fuse_keyword_and_vector_ranks_and_tests_rank_below_code() {
        use crate::embed::{StaticModel, VectorIndex, model_bytes};
        use crate::ingest::index_with_sources;
        let files = vec![
            SourceFile {
                path: "auth/hashers.py".into(),
                bytes: b"def make_password(raw):\n    return digest(raw)\n".to_vec(),
            },
            SourceFile {
                path: "auth/tests/test_hashers.py".into(),
                bytes: b"def test_make_password():\n    make_password('x')\n".to_vec(),
            },
            SourceFile {
                path: "pages.py".into(),
                bytes: b"def paginate(items):\n    return items\n".to_vec(),
            },
        ];
        let (g, _, sources) = index_with_sources("t", files, &|| 0.0, &mut |_, _, _| true).unwrap();
        let mut idx = SearchIndex::build(&g);
        assert!(idx.ranked("hash", Mode::Semantic, &|_| true).is_none());
        let first = |idx: &SearchIndex, q: &str, mode: Mode| {
            let hits = idx.ranked(q, mode, &|_| true).unwrap();
            g.node(hits[0].node).unwrap().stable_id()
        };
        let make = "Function:auth/hashers.py:make_password";
        assert_eq!(first(&idx, "make password", Mode::Hybrid), make);
        assert_eq!(
            first(&idx, "test make password", Mode::Keyword),
            "Function:auth/tests/test_hashers.py:test_make_password"
        );
        // Not about tests: every production hit comes before every test hit.
        let hits = idx
            .ranked("make password", Mode::Keyword, &|_| true)
            .unwrap();
        let tests: Vec<bool> = hits.iter().map(|h| idx.tests.contains(&h.node)).collect();
        assert!(
            tests.contains(&true) && tests.windows(2).all(|w| w[0] <= w[1]),
            "{tests:?}"
        );
        let model = StaticModel::from_bytes(&model_bytes(&[
            ("make", vec![0, 10, 0]),
            ("password", vec![100, 0, 0]),
            ("secret", vec![90, 10, 0]),
            ("digest", vec![80, 0, 10]),
            ("items", vec![0, 0, 100]),
        ]))
        .unwrap();
        let (vectors, _) = VectorIndex::build(&g, &sources, &model, None, &mut |_, _| true);
        idx.attach_embeddings(Arc::new(model), vectors);
        assert!(idx.search("secret", &|_| true).is_empty());
        for mode in [Mode::Semantic, Mode::Hybrid] {
            let top = first(&idx, "secret", mode);
            assert!(top.contains(":auth/hashers.py"), "{mode:?}: {top}");
        }
        let hit = |node: u32| Hit { node, score: 1.0 };
        let (first, second) = ([hit(1), hit(2)], [hit(2), hit(3)]);
        let fused = fuse(&[(&first, 1.0), (&second, 1.0)]);
        let order: Vec<u32> = fused.iter().map(|h| h.node).collect();
        assert_eq!(order, [2, 1, 3]);
        let k = RRF_K;
        assert!((fused[0].score - (1.0 / (k + 2.0) + 1.0 / (k + 1.0))).abs() < 1e-12);
        // A heavier ranking's head beats a lighter one's.
        let fused = fuse(&[(&first, 1.0), (&second, 3.0)]);
        let order: Vec<u32> = fused.iter().map(|h| h.node).collect();
        assert_eq!(order, [2, 3, 1]);
    }

    #[test]
    fn the_name_match_ranks_names_whose_tokens_are_near_the_query() {
        use crate::embed::{StaticModel, VectorIndex, model_bytes};
        use crate::ingest::index_with_sources;
        let files = vec![SourceFile {
            path: "app.py".into(),
            bytes: b"def make_password(raw):\n    return raw\n\ndef paginate(items):\n    return items\n".to_vec(),
        }];
        let (g, _, sources) = index_with_sources("t", files, &|| 0.0, &mut |_, _, _| true).unwrap();
        let model = StaticModel::from_bytes(&model_bytes(&[
            ("make", vec![0, 10, 0]),
            ("password", vec![100, 0, 0]),
            ("secret", vec![90, 10, 0]),
            ("paginate", vec![0, 0, 100]),
        ]))
        .unwrap();
        let (vectors, _) = VectorIndex::build(&g, &sources, &model, None, &mut |_, _| true);
        let mut idx = SearchIndex::build(&g);
        idx.attach_embeddings(Arc::new(model), vectors);
        let sem = idx.semantic.as_ref().unwrap();
        let id = |name: &str| g.nodes_named(name)[0];
        let candidates = [
            Hit {
                node: id("paginate"),
                score: 2.0,
            },
            Hit {
                node: id("make_password"),
                score: 1.0,
            },
            Hit {
                node: id("paginate"),
                score: 0.5,
            },
        ];
        let ranked = idx.name_match(sem, "secret", candidates.iter());
        assert_eq!(ranked.len(), 2, "each candidate once: {ranked:?}");
        assert_eq!(ranked[0].node, id("make_password"));
        assert!(ranked[0].score > 0.9 && ranked[1].score < 0.1, "{ranked:?}");
        assert!(idx.name_match(sem, "zzz", candidates.iter()).is_empty());
    }

    #[test]
    fn one_edit_distance() {
        assert!(within_one_edit("refund", "refnud"));
        assert!(within_one_edit("refund", "refunds"));
        assert!(within_one_edit("refund", "rfund"));
        assert!(within_one_edit("refund", "refand"));
        assert!(!within_one_edit("refund", "rexxnd"));
    }
}
