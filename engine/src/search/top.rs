//! The best k BM25 hits of a query without scoring every posting: document-at-a-time over the
//! matched terms' postings with MaxScore pruning (per-term upper bounds), giving exactly the hits
//! and scores of exhaustive scoring, in the same order.
//!
//! Scores are summed in the order exhaustive scoring adds them (query term, then expansion), so
//! they are equal to the bit. A term's bound is its BM25 part at its largest count and shortest
//! node; the terms whose bounds together stay below the k-th best score are "non-essential": a
//! node only they hold cannot enter, so the walk visits the essential terms' nodes only and looks
//! the others up (galloping). Short lists are scored whole up front. A bound is compared with a
//! relative slack far above any rounding of its sum, so ties are never pruned wrongly.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{Hit, SearchIndex};

/// Relative slack on an upper bound before it prunes: sums of up to millions of terms round by
/// far less.
const SLACK: f64 = 1e-9;

/// What the walk treats as short and when it scores exhaustively.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tuning {
    /// Lists shorter than this are scored whole up front (and need no bound).
    pub short: usize,
    /// Queries whose matched lists hold at most this many postings in all are scored exhaustively
    /// (every hit, counted).
    pub exhaustive: usize,
}

/// The tuning used outside tests.
pub(super) const TUNING: Tuning = Tuning {
    short: BOUNDED_POSTINGS,
    exhaustive: 20_000,
};

/// Terms with at least this many postings keep their bound's inputs in the index.
pub(super) const BOUNDED_POSTINGS: usize = 1024;

/// One matched term in the order exhaustive scoring visits it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scorer<'a> {
    pub term: u32,
    pub list: &'a [(u32, u16)],
    pub idf: f64,
    pub factor: f64,
}

/// A long list being walked.
struct Cursor<'a> {
    list: &'a [(u32, u16)],
    at: usize,
    idf: f64,
    factor: f64,
    /// Its largest part of any node's score (times its factor).
    bound: f64,
    /// Its place among the scorers (the order parts are added in).
    order: usize,
    essential: bool,
}

impl Cursor<'_> {
    /// The node it is at, if any is left.
    fn doc(&self) -> Option<u32> {
        self.list.get(self.at).map(|&(doc, _)| doc)
    }

    /// Moves to the first posting at `doc` or after it (galloping from where it is).
    fn seek(&mut self, doc: u32) {
        let list = self.list;
        if list.get(self.at).is_none_or(|&(d, _)| d >= doc) {
            return;
        }
        let mut low = self.at;
        let mut step = 1;
        let mut high = self.at + 1;
        while list.get(high).is_some_and(|&(d, _)| d < doc) {
            low = high;
            step *= 2;
            high = self.at + step;
        }
        let high = high.min(list.len());
        let rest = list.get(low + 1..high).unwrap_or_default();
        self.at = low + 1 + rest.partition_point(|&(d, _)| d < doc);
    }
}

/// A hit ordered worst first: lower score, or the same score and a higher node.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Worst(Hit);

impl Eq for Worst {}

impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .0
            .score
            .total_cmp(&self.0.score)
            .then(self.0.node.cmp(&other.0.node))
    }
}

impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The best `k` hits offered, worst on top.
struct Best {
    heap: BinaryHeap<Worst>,
    k: usize,
}

impl Best {
    fn new(k: usize) -> Best {
        Best {
            heap: BinaryHeap::with_capacity(k.min(4096) + 1),
            k,
        }
    }

    fn full(&self) -> bool {
        self.heap.len() >= self.k
    }

    /// Whether `hit` would be kept.
    fn admits(&self, hit: Hit) -> bool {
        !self.full() || self.heap.peek().is_some_and(|worst| Worst(hit) < *worst)
    }

    fn push(&mut self, hit: Hit) {
        if self.full() {
            self.heap.pop();
        }
        self.heap.push(Worst(hit));
    }

    /// The k-th best score once k are held.
    fn threshold(&self) -> Option<f64> {
        self.full()
            .then(|| self.heap.peek().map(|w| w.0.score))
            .flatten()
    }

    /// Best first.
    fn into_sorted(self) -> Vec<Hit> {
        let mut hits: Vec<Hit> = self.heap.into_iter().map(|w| w.0).collect();
        super::sort_hits(&mut hits);
        hits
    }
}

impl SearchIndex {
    /// The first `k` of [`SearchIndex::search`]'s hits, with production code before test code
    /// when `production_first` (a stable partition of them, as `ranked` makes), found without
    /// scoring every posting. `scorers` are the query's matched terms in scoring order, `exact`
    /// the nodes whose whole name is the query (sorted).
    pub(super) fn top(
        &self,
        scorers: &[Scorer],
        exact: &[u32],
        filter: &dyn Fn(u32) -> bool,
        k: usize,
        production_first: bool,
        tuning: Tuning,
    ) -> Vec<Hit> {
        if k == 0 {
            return Vec::new();
        }
        let mut cursors: Vec<Cursor> = Vec::new();
        // (node, scorer order, part) of every short list, by node then order.
        let mut short: Vec<(u32, usize, f64)> = Vec::new();
        for (order, s) in scorers.iter().enumerate() {
            if s.list.len() < tuning.short {
                short.extend(
                    s.list
                        .iter()
                        .map(|&(doc, tf)| (doc, order, self.part(s.idf, tf, doc) * s.factor)),
                );
            } else {
                cursors.push(Cursor {
                    list: s.list,
                    at: 0,
                    idf: s.idf,
                    factor: s.factor,
                    bound: self.bound(s.term, s.list, s.idf) * s.factor,
                    order,
                    essential: true,
                });
            }
        }
        short.sort_unstable_by_key(|&(doc, order, _)| (doc, order));
        // Long cursors by bound, and the sums of the smallest bounds: `sums[i]` bounds a node
        // that only the first i of them hold.
        let mut by_bound: Vec<usize> = (0..cursors.len()).collect();
        by_bound.sort_by(|&a, &b| {
            let bound = |i: usize| cursors.get(i).map_or(0.0, |c| c.bound);
            bound(a).total_cmp(&bound(b))
        });
        let mut sums = vec![0.0f64; by_bound.len() + 1];
        for (i, &c) in by_bound.iter().enumerate() {
            let bound = cursors.get(c).map_or(0.0, |c| c.bound);
            sums[i + 1] = sums[i] + bound;
        }
        let mut non_essential = 0;
        let mut production = Best::new(k);
        let mut tests = Best::new(if production_first { k } else { 0 });
        let (mut at_short, mut at_exact) = (0, 0);
        let mut parts: Vec<(usize, f64)> = Vec::new();
        loop {
            // The next node any essential list holds.
            let mut next = short.get(at_short).map(|&(d, _, _)| d);
            let mut take = |d: Option<u32>| {
                if let Some(d) = d {
                    next = Some(next.map_or(d, |n| n.min(d)));
                }
            };
            take(exact.get(at_exact).copied());
            for c in cursors.iter().filter(|c| c.essential) {
                take(c.doc());
            }
            let Some(doc) = next else {
                break;
            };
            let short_from = at_short;
            while short.get(at_short).is_some_and(|&(d, _, _)| d == doc) {
                at_short += 1;
            }
            let short_here = short.get(short_from..at_short).unwrap_or_default();
            let boosted = exact.get(at_exact) == Some(&doc);
            at_exact += usize::from(boosted);
            let threshold = production.threshold();
            if let Some(threshold) = threshold {
                // What this node can score at most: the essential lists that hold it, every
                // non-essential one, and its short parts.
                let mut bound = sums[non_essential];
                for c in cursors
                    .iter()
                    .filter(|c| c.essential && c.doc() == Some(doc))
                {
                    bound += c.bound;
                }
                bound += short_here.iter().map(|&(_, _, p)| p).sum::<f64>();
                if boosted {
                    bound *= super::EXACT_NAME_BOOST;
                }
                if bound * (1.0 + SLACK) < threshold {
                    for c in cursors.iter_mut().filter(|c| c.doc() == Some(doc)) {
                        c.at += 1;
                    }
                    continue;
                }
            }
            // The exact score: every part in scoring order.
            parts.clear();
            parts.extend(short_here.iter().map(|&(_, order, p)| (order, p)));
            for c in &mut cursors {
                c.seek(doc);
                if let Some(&(d, tf)) = c.list.get(c.at)
                    && d == doc
                {
                    parts.push((c.order, self.part(c.idf, tf, doc) * c.factor));
                    c.at += 1;
                }
            }
            if parts.is_empty() || doc as usize >= self.docs.len() {
                continue;
            }
            parts.sort_unstable_by_key(|&(order, _)| order);
            let mut score = 0.0;
            for &(_, p) in &parts {
                score += p;
            }
            if boosted {
                score *= super::EXACT_NAME_BOOST;
            }
            let hit = Hit { node: doc, score };
            let best = if production_first && self.is_test(doc) {
                &mut tests
            } else {
                &mut production
            };
            if best.admits(hit) && filter(doc) {
                best.push(hit);
                if let Some(threshold) = production.threshold() {
                    while let Some(&c) = by_bound.get(non_essential)
                        && sums[non_essential + 1] * (1.0 + SLACK) < threshold
                    {
                        if let Some(c) = cursors.get_mut(c) {
                            c.essential = false;
                        }
                        non_essential += 1;
                    }
                }
            }
            if production.full() && !tests.heap.is_empty() {
                // k production hits: no test hit is among the first k.
                tests = Best::new(0);
            }
        }
        let mut hits = production.into_sorted();
        let rest = k.saturating_sub(hits.len());
        hits.extend(tests.into_sorted().into_iter().take(rest));
        hits
    }

    /// The largest part any posting of `list` (term `term`'s) adds: the part at its largest count
    /// and the shortest node (the part grows with the count and shrinks with the length).
    fn bound(&self, term: u32, list: &[(u32, u16)], idf: f64) -> f64 {
        let (tf, len) = match self.bounds.get(&term) {
            Some(&extremes) => extremes,
            None => extremes(list, |doc| self.doc_len(doc)),
        };
        self.part_of(idf, tf, len)
    }
}

/// The largest count and the shortest node length of `list`.
pub(super) fn extremes(list: &[(u32, u16)], len_of: impl Fn(u32) -> u32) -> (u16, u32) {
    list.iter().fold((0, u32::MAX), |(tf, len), &(doc, count)| {
        (tf.max(count), len.min(len_of(doc)))
    })
}
