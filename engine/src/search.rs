//! Symbol, file, folder and community search: BM25 over code-aware tokens (identifier parts and
//! whole identifiers, qualified names, signatures, docs and summaries, paths) with prefix and
//! one-typo fuzzy matching, fused with nearest vectors and a name match once embeddings exist.
//!
//! The index of a new version of a graph is made from the previous one's
//! ([`SearchIndex::rebuilt`]): a node whose kind and texts hash the same keeps its entries (under
//! its new id), only the others are tokenized again.

mod reuse;
mod terms;
mod tokens;
mod top;

use std::sync::Arc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::embed::{StaticModel, VectorIndex, WordCache};
use super::graph::{Graph, NodeKind, NodeRef, Sym};
use super::process::is_test;
use reuse::Reuse;
use terms::{GONE, Terms};
pub use tokens::tokens;
use tokens::{Scratch, each_token};
use top::{BOUNDED_POSTINGS, Scorer, TUNING, Tuning, extremes};

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

/// The head of a ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    /// Best first.
    pub hits: Vec<Hit>,
    /// Whether these are all the hits, not only the head asked for.
    pub whole: bool,
}

/// One ranked hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The node found.
    pub node: u32,
    /// Its score: BM25, cosine similarity or fused reciprocal ranks, by mode.
    pub score: f64,
}

/// Inverted index over the graph's symbols, files, folders and communities.
#[derive(Debug, Default)]
pub struct SearchIndex {
    /// Terms and their postings, and the terms in text order for prefix and fuzzy expansion.
    terms: Terms,
    /// What is indexed of each node, by id; `None` for nodes not indexed (processes).
    docs: Vec<Option<Doc>>,
    /// How many nodes are indexed.
    indexed: usize,
    avg_len: f64,
    /// Lowercased whole names → nodes in id order, for exact-name boosts and name lookup.
    names: HashMap<String, Vec<u32>>,
    /// How many indexed nodes are test code (`Doc::test`).
    tests: usize,
    semantic: Option<Semantic>,
    /// Qualified names of symbols, by id, for the name match.
    qualified: Vec<Option<Box<str>>>,
    /// The largest count and shortest node of each term with at least [`BOUNDED_POSTINGS`]
    /// postings: what its upper bound in [`SearchIndex::top`] is made of.
    bounds: HashMap<u32, (u16, u32)>,
}

/// One indexed node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Doc {
    /// A hash of its kind and of the texts its entries come from (`entry_key`): nodes with equal
    /// keys have equal entries.
    key: u128,
    /// Its length: the weighted count of its tokens.
    len: u32,
    /// Test code, ranked below production code unless the query is about tests.
    test: bool,
}

/// Whether nodes of `kind` are indexed: all but processes.
fn indexed(kind: NodeKind) -> bool {
    kind != NodeKind::Process
}

/// The hash a node's entries are reused by: its kind and every text they come from (name, file,
/// and by kind the qualified name, signature and doc), each with its length. 128 bits: two
/// different nodes that hash alike are not expected in any project. A file's path is hashed once
/// for its nodes in a row (`file`: the last path's symbol and hash).
fn entry_key(node: &NodeRef, file: &mut (Sym, u128), buf: &mut Vec<u8>) -> u128 {
    let kind = node.kind();
    if file.0 != node.data.file || file.1 == 0 {
        *file = (
            node.data.file,
            xxhash_rust::xxh3::xxh3_128(node.file().as_bytes()).max(1),
        );
    }
    let texts: &[&str] = match kind {
        NodeKind::File => &[node.name()],
        NodeKind::Folder | NodeKind::Community => &[node.name(), node.qualified(), node.doc()],
        _ => &[node.name(), node.qualified(), node.signature(), node.doc()],
    };
    // Kind, path hash and lengths first, then the texts.
    let mut head = [0u8; 1 + 16 + 4 * 8];
    head[0] = kind as u8;
    head[1..17].copy_from_slice(&file.1.to_le_bytes());
    for (slot, text) in head[17..].chunks_exact_mut(8).zip(texts) {
        slot.copy_from_slice(&(text.len() as u64).to_le_bytes());
    }
    buf.clear();
    buf.extend_from_slice(&head);
    for text in texts {
        buf.extend_from_slice(text.as_bytes());
    }
    xxhash_rust::xxh3::xxh3_128(buf)
}

/// Buffers reused from one node to the next while indexing.
#[derive(Debug, Default)]
struct Work {
    words: Scratch,
    /// (term, weight) of each token of a node, then its (term, count) entries.
    entries: Vec<(u32, u16)>,
    lower: String,
    key: Vec<u8>,
    /// The last file's path symbol and hash (`entry_key`).
    file: (Sym, u128),
    /// Some node was added to a name's list before nodes of higher id.
    names_unsorted: bool,
}

impl SearchIndex {
    /// Indexes every symbol, file, folder and community of `graph` by name, path, signature and
    /// doc (summary).
    pub fn build(graph: &Graph) -> SearchIndex {
        SearchIndex::rebuilt(SearchIndex::default(), graph)
    }

    /// The index of `graph`, equal to [`SearchIndex::build`]`(graph)`, made from `previous`, the
    /// index of an earlier version of it (or of anything): each node whose kind and texts are
    /// those of a node of `previous` keeps that node's entries under its new id, and only the
    /// others (new, edited, or with a new summary) are tokenized. Vectors are not carried over:
    /// attach them again.
    pub fn rebuilt(previous: SearchIndex, graph: &Graph) -> SearchIndex {
        let mut work = Work::default();
        let count = graph.nodes().filter(|n| indexed(n.kind())).count();
        let mut reuse = Reuse::new(&previous.docs, count);
        // Each indexed node with its key and its counterpart in `previous`.
        let found: Vec<(NodeRef, u128, Option<u32>)> = graph
            .nodes()
            .filter(|n| indexed(n.kind()))
            .map(|node| {
                let key = entry_key(&node, &mut work.file, &mut work.key);
                let old = reuse.take(key, node.id);
                (node, key, old)
            })
            .collect();
        // Old id → new id of every node kept.
        let map = reuse.into_map();
        let kept = found.iter().filter(|(_, _, old)| old.is_some()).count();
        // When most nodes are new, emptying the previous tables costs more than it saves.
        let keep = kept * 2 >= found.len();
        let SearchIndex {
            mut terms,
            docs: old_docs,
            mut names,
            qualified: mut old_qualified,
            ..
        } = if keep {
            previous
        } else {
            SearchIndex::default()
        };
        let mut docs = vec![None; graph.node_count()];
        let mut qualified: Vec<Option<Box<str>>> = vec![None; graph.node_count()];
        if keep {
            for &(node, _, old) in &found {
                let (id, Some(old)) = (node.id as usize, old.map(|o| o as usize)) else {
                    continue;
                };
                if let (Some(new), Some(doc)) = (docs.get_mut(id), old_docs.get(old)) {
                    *new = *doc;
                }
                if let (Some(new), Some(name)) = (qualified.get_mut(id), old_qualified.get_mut(old))
                {
                    *new = name.take();
                }
            }
            terms.remap(&map);
            names.retain(|_, nodes| {
                nodes.retain_mut(|node| match map.get(*node as usize) {
                    Some(&new) if new != GONE => {
                        *node = new;
                        true
                    }
                    _ => false,
                });
                if !nodes.is_sorted() {
                    nodes.sort_unstable();
                }
                !nodes.is_empty()
            });
        }
        let mut index = SearchIndex {
            terms,
            docs,
            names,
            qualified,
            ..SearchIndex::default()
        };
        for (node, key, old) in found {
            if old.is_none() || !keep {
                index.add(&node, key, &mut work);
            }
        }
        if work.names_unsorted {
            for nodes in index.names.values_mut() {
                // Two sorted runs (kept, then added): a stable sort merges them.
                nodes.sort();
            }
        }
        index.terms.settle();
        if !keep {
            // Built afresh (a first index, a reload): its lists grew by doubling; an update
            // that kept most entries leaves them as they are (a pass over every list per edit).
            index.terms.shrink_to_fit();
            for nodes in index.names.values_mut() {
                nodes.shrink_to_fit();
            }
            index.names.shrink_to_fit();
        }
        let mut total_len = 0u64;
        for doc in index.docs.iter().flatten() {
            index.indexed += 1;
            index.tests += usize::from(doc.test);
            total_len += u64::from(doc.len);
        }
        index.avg_len = total_len as f64 / index.indexed.max(1) as f64;
        for &term in index.terms.sorted() {
            let list = index.terms.postings(term);
            if list.len() >= BOUNDED_POSTINGS {
                let extremes = extremes(list, |doc| index.doc_len(doc));
                index.bounds.insert(term, extremes);
            }
        }
        index
    }

    /// Tokenizes `node` and adds its entries.
    fn add(&mut self, node: &NodeRef, key: u128, work: &mut Work) {
        let kind = node.kind();
        let summarized = matches!(kind, NodeKind::Folder | NodeKind::Community);
        work.entries.clear();
        let mut add = |text: &str, weight: u16| {
            each_token(text, &mut work.words, &mut |t| {
                work.entries.push((self.terms.intern(t), weight));
            });
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
        // Sum each term's weights into its count.
        work.entries.sort_unstable_by_key(|&(term, _)| term);
        work.entries.dedup_by(|next, kept| {
            let same = next.0 == kept.0;
            if same {
                kept.1 = kept.1.saturating_add(next.1);
            }
            same
        });
        let mut len = 0u32;
        for &(term, count) in &work.entries {
            len += u32::from(count);
            self.terms.post(term, node.id, count);
        }
        let id = node.id as usize;
        if let Some(doc) = self.docs.get_mut(id) {
            *doc = Some(Doc {
                key,
                len,
                test: is_test(node),
            });
        }
        if kind.is_symbol()
            && let Some(slot) = self.qualified.get_mut(id)
        {
            *slot = Some(node.qualified().into());
        }
        let name = node.name();
        if name.is_ascii() {
            work.lower.clear();
            work.lower.push_str(name);
            work.lower.make_ascii_lowercase();
        } else {
            work.lower = name.to_lowercase();
        }
        let lower = &work.lower;
        match self.names.get_mut(lower.as_str()) {
            Some(nodes) => {
                work.names_unsorted |= nodes.last().is_some_and(|&last| last >= node.id);
                nodes.push(node.id);
            }
            None => {
                self.names.insert(lower.clone(), vec![node.id]);
            }
        }
    }

    /// Asserts that two indexes hold the same entries (their term ids may differ), and that each
    /// one's tables agree.
    #[cfg(all(test, not(target_arch = "wasm32")))]
    fn assert_same(&self, other: &SearchIndex) {
        self.terms.check();
        other.terms.check();
        assert_eq!(self.terms.by_text(), other.terms.by_text(), "postings");
        let sorted = |i: &SearchIndex| -> Vec<String> {
            let t = &i.terms;
            t.sorted().iter().map(|&id| t.text(id).to_owned()).collect()
        };
        assert_eq!(sorted(self), sorted(other), "terms in order");
        assert_eq!(self.docs, other.docs, "keys, lengths, tests");
        assert_eq!(
            (self.indexed, self.tests, self.avg_len.to_bits()),
            (other.indexed, other.tests, other.avg_len.to_bits())
        );
        assert_eq!(self.names, other.names, "names");
        assert_eq!(self.qualified, other.qualified, "qualified names");
        assert_eq!(self.semantic.is_some(), other.semantic.is_some());
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
        self.ranked_top(query, mode, filter, usize::MAX)
            .map(|ranking| ranking.hits)
    }

    /// The head of [`Self::ranked`]: its first `k` hits at least, or all of them
    /// (`Ranking::whole`). A keyword ranking of a query whose words are in a good share of the
    /// nodes stops at `k` without scoring every posting (same hits, same scores).
    pub fn ranked_top(
        &self,
        query: &str,
        mode: Mode,
        filter: &dyn Fn(u32) -> bool,
        k: usize,
    ) -> Option<Ranking> {
        let mut hits = match (mode, &self.semantic) {
            (Mode::Keyword, _) | (Mode::Hybrid, None) => {
                let production_first = !self.about_tests(query);
                let (hits, whole) = self.head(query, filter, k, production_first, TUNING);
                // Already in order, test code last.
                return Some(Ranking { hits, whole });
            }
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
                // Only the head of the keyword ranking is fused.
                let (words, _) = self.head(
                    query,
                    filter,
                    SEMANTIC_CANDIDATES.max(NAME_MATCH_CANDIDATES),
                    false,
                    TUNING,
                );
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
        self.tests_last(query, &mut hits);
        Some(Ranking { hits, whole: true })
    }

    /// Hits whose scores a caller changed (a session's boost) put back in the order of
    /// [`Self::ranked`]: best first, test code below the rest unless the query names tests.
    pub fn reorder(&self, query: &str, hits: &mut Vec<Hit>) {
        sort_hits(hits);
        self.tests_last(query, hits);
    }

    /// Production code first, tests after it, each best first (a stable partition); the scores
    /// stay what they were. Nothing moves when the query names tests.
    fn tests_last(&self, query: &str, hits: &mut Vec<Hit>) {
        if !self.about_tests(query) {
            self.partition_tests(hits);
        }
    }

    /// Production code first, tests after it, each in the order it was (a stable partition).
    fn partition_tests(&self, hits: &mut Vec<Hit>) {
        let (mut production, tests): (Vec<Hit>, Vec<Hit>) = std::mem::take(hits)
            .into_iter()
            .partition(|hit| !self.is_test(hit.node));
        production.extend(tests);
        *hits = production;
    }

    /// Whether test code keeps its place among the hits of `query`: it names tests, or there is
    /// no test code.
    fn about_tests(&self, query: &str) -> bool {
        self.tests == 0
            || tokens(query)
                .iter()
                .any(|t| TEST_WORDS.contains(&t.as_str()))
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
                .get(hit.node as usize)
                .and_then(Option::as_deref)
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

    /// BM25 hits for a free-text query; `filter` keeps the nodes it accepts. Every hit, each
    /// posting scored (see [`Self::search_top`] for the head alone).
    pub fn search(&self, query: &str, filter: &dyn Fn(u32) -> bool) -> Vec<Hit> {
        let scorers = self.scorers(query);
        self.exhaustive(&scorers, self.exact(query), filter)
    }

    /// The first `k` of [`Self::search`]'s hits, without scoring every posting.
    pub fn search_top(&self, query: &str, filter: &dyn Fn(u32) -> bool, k: usize) -> Vec<Hit> {
        let (mut hits, _) = self.head(query, filter, k, false, TUNING);
        hits.truncate(k);
        hits
    }

    /// The first `k` of [`Self::search`]'s hits at least, with test code after the rest when
    /// `production_first` (a stable partition), and whether they are all of its hits. Queries
    /// whose words have few postings are scored whole (every hit returned); the others stop at
    /// `k` ([`Self::top`]).
    fn head(
        &self,
        query: &str,
        filter: &dyn Fn(u32) -> bool,
        k: usize,
        production_first: bool,
        tuning: Tuning,
    ) -> (Vec<Hit>, bool) {
        let scorers = self.scorers(query);
        let exact = self.exact(query);
        let postings: usize = scorers.iter().map(|s| s.list.len()).sum();
        if postings <= tuning.exhaustive || k >= postings {
            let mut hits = self.exhaustive(&scorers, exact, filter);
            if production_first {
                self.partition_tests(&mut hits);
            }
            return (hits, true);
        }
        let hits = self.top(&scorers, exact, filter, k, production_first, tuning);
        let whole = hits.len() < k;
        (hits, whole)
    }

    /// The query's matched terms in scoring order: each distinct query token's expansions, with
    /// their IDF and score factor.
    fn scorers(&self, query: &str) -> Vec<Scorer<'_>> {
        let n = self.indexed.max(1) as f64;
        let mut scorers = Vec::new();
        for term in dedup(tokens(query)) {
            for (matched, factor) in self.expand(&term) {
                let list = self.terms.postings(matched);
                let idf = (1.0 + (n - list.len() as f64 + 0.5) / (list.len() as f64 + 0.5)).ln();
                scorers.push(Scorer {
                    term: matched,
                    list,
                    idf,
                    factor,
                });
            }
        }
        scorers
    }

    /// The nodes whose whole name is the query (their scores are boosted), in id order.
    fn exact(&self, query: &str) -> &[u32] {
        let whole = query.trim().to_lowercase();
        self.names.get(&whole).map_or(&[], Vec::as_slice)
    }

    /// One posting's BM25 part (before its factor): `tf` counts in node `doc`.
    fn part(&self, idf: f64, tf: u16, doc: u32) -> f64 {
        self.part_of(idf, tf, self.doc_len(doc))
    }

    /// The BM25 part of `tf` counts in a node of length `len`.
    fn part_of(&self, idf: f64, tf: u16, len: u32) -> f64 {
        let (tf, len) = (f64::from(tf), f64::from(len));
        idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / self.avg_len))
    }

    /// Every hit of `scorers`, each posting scored, best first.
    fn exhaustive(
        &self,
        scorers: &[Scorer],
        exact: &[u32],
        filter: &dyn Fn(u32) -> bool,
    ) -> Vec<Hit> {
        // Scores by node in one dense table (a common word's postings reach a good share of a
        // large graph's nodes, where a hash map's inserts cost most of the query), with the
        // nodes touched in order.
        let mut scores: Vec<f64> = vec![0.0; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        for scorer in scorers {
            for &(doc, tf) in scorer.list {
                let s = self.part(scorer.idf, tf, doc);
                let Some(score) = scores.get_mut(doc as usize) else {
                    continue;
                };
                if *score == 0.0 {
                    touched.push(doc);
                }
                *score += s * scorer.factor;
            }
        }
        for &doc in exact {
            if let Some(s) = scores.get_mut(doc as usize) {
                *s *= EXACT_NAME_BOOST;
            }
        }
        touched.sort_unstable();
        touched.dedup();
        let mut hits: Vec<Hit> = touched
            .into_iter()
            .filter(|&node| filter(node))
            .filter_map(|node| {
                let score = *scores.get(node as usize)?;
                Some(Hit { node, score })
            })
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

    /// The ids of the term itself, of terms it prefixes, or (if neither exists) of terms one edit
    /// away, each with its score factor.
    fn expand(&self, term: &str) -> Vec<(u32, f64)> {
        let mut out = Vec::new();
        if let Some(id) = self.terms.id(term) {
            out.push((id, 1.0));
        }
        let sorted = self.terms.sorted();
        if term.len() >= 3 {
            let start = sorted.partition_point(|&t| self.terms.text(t) < term);
            for &t in sorted
                .get(start..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&t| self.terms.text(t).starts_with(term))
                .take(64)
            {
                if self.terms.text(t) != term {
                    out.push((t, PREFIX_FACTOR));
                }
            }
        }
        if out.is_empty() && term.chars().count() >= 4 {
            for &t in sorted {
                let text = self.terms.text(t);
                if text.len().abs_diff(term.len()) <= 1 && within_one_edit(text, term) {
                    out.push((t, FUZZY_FACTOR));
                }
            }
        }
        out
    }

    /// A node's length in weighted tokens (1 for a node not indexed).
    fn doc_len(&self, node: u32) -> u32 {
        self.docs
            .get(node as usize)
            .copied()
            .flatten()
            .map_or(1, |d| d.len)
    }

    /// Whether a node is test code.
    fn is_test(&self, node: u32) -> bool {
        self.docs
            .get(node as usize)
            .copied()
            .flatten()
            .is_some_and(|d| d.test)
    }
}

/// Best first; ties by node id, so equal scores rank the same way every time.
fn sort_hits(hits: &mut [Hit]) {
    hits.sort_unstable_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
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
mod tests;
