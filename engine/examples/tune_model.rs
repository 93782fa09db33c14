//! Tunes the built-in embedding model for search by meaning on code with docstrings: a docstring's
//! first sentence must land nearer its symbol's embedded text (without the docstring) than the
//! other symbols of a batch (contrastive, in-batch negatives), starting from the distilled rows.
//!
//! Usage: `cargo run --release -p nexus-engine --example tune_model -- IN OUT DIR... [--exclude
//! NAME]...` (`scripts/setup.sh` tunes on the wheels of `scripts/tuning-corpus.txt`, one folder
//! per package; files under a folder named by `--exclude` are left out). Prints the held-out
//! hit@10 and MRR@10 before and after each epoch.

use nexus_engine::embed::{StaticModel, WordCache, node_text};
use nexus_engine::{SourceFile, index_with_sources, is_test, read_tree};
use std::collections::BTreeSet;
use std::path::Path;

/// Pairs per training step: each query's negatives are the other pairs' code (on the retrieval
/// bench 512 < 1024 < 2048).
const BATCH: usize = 2048;
/// Passes over the training pairs (the held-out figures stop rising after the second).
const EPOCHS: usize = 2;
/// Softmax temperature of the cosine similarities (0.03 and 0.08 measured worse).
const TEMPERATURE: f32 = 0.05;
/// Adam's step, relative to the root mean square of the distilled rows' values.
const STEP: f32 = 0.1;
/// One pair in this many is held out to measure the tuning.
const HELD_OUT_EVERY: usize = 20;
/// Queries with fewer words say too little to be a description.
const MIN_QUERY_WORDS: usize = 3;
/// Hits looked at when measuring.
const TOP: usize = 10;

/// A query's and its symbol's token ids.
struct Pair {
    query: Vec<u32>,
    code: Vec<u32>,
}

/// The first sentence of a doc.
fn first_sentence(doc: &str) -> &str {
    let doc = doc.trim();
    doc.find(". ")
        .map_or(doc.trim_end_matches('.'), |end| &doc[..end])
}

/// splitmix64: a fixed sequence, so the tuned model is the same on every machine.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, (self.next() % (i as u64 + 1)) as usize);
        }
    }
}

/// Every documented symbol of the code under `dir` (tests and excluded folders left out).
fn pairs_of(
    dir: &Path,
    exclude: &[String],
    model: &StaticModel,
    cache: &mut WordCache,
) -> Vec<Pair> {
    let files: Vec<SourceFile> = read_tree(dir)
        .into_iter()
        .filter(|f| {
            !f.path
                .split('/')
                .any(|part| exclude.iter().any(|e| e == part))
        })
        .collect();
    let name = dir.display().to_string();
    let Ok((graph, _, sources)) = index_with_sources(&name, files, &|| 0.0, &mut |_, _, _| true)
    else {
        eprintln!("{name}: indexing failed");
        return Vec::new();
    };
    let mut seen = BTreeSet::new();
    let mut pairs = Vec::new();
    for node in graph.nodes() {
        if !node.kind().is_symbol() || node.doc().is_empty() || is_test(&node) {
            continue;
        }
        let query = first_sentence(node.doc());
        if query.split_whitespace().count() < MIN_QUERY_WORDS || !seen.insert(query.to_owned()) {
            continue;
        }
        let Some(text) = node_text(&graph, &node, &sources) else {
            continue;
        };
        let code = model.token_ids(&text.replacen(node.doc(), "", 1), cache);
        let query = model.token_ids(query, cache);
        if !query.is_empty() && !code.is_empty() {
            pairs.push(Pair { query, code });
        }
    }
    eprintln!("{name}: {} pairs", pairs.len());
    pairs
}

/// The tuned table: rows, Adam's moments, and the token weights.
struct Tuner {
    dims: usize,
    rows: Vec<f32>,
    first: Vec<f32>,
    second: Vec<f32>,
    grad: Vec<f32>,
    touched: BTreeSet<u32>,
    weights: Vec<f32>,
    step: i32,
    rate: f32,
}

impl Tuner {
    /// The weighted sum of the rows of `ids`, its unit vector and its length.
    fn pool(&self, ids: &[u32]) -> (Vec<f32>, f32) {
        let mut sum = vec![0f32; self.dims];
        for &id in ids {
            let w = self.weights[id as usize];
            let row = &self.rows[id as usize * self.dims..][..self.dims];
            sum.iter_mut().zip(row).for_each(|(s, r)| *s += w * r);
        }
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
        sum.iter_mut().for_each(|v| *v /= norm);
        (sum, norm)
    }

    /// Adds the gradient of a pooled unit vector `unit` (of length `norm` before scaling) to the
    /// rows of `ids`.
    fn back(&mut self, ids: &[u32], unit: &[f32], norm: f32, grad: &[f32]) {
        let along: f32 = grad.iter().zip(unit).map(|(g, u)| g * u).sum();
        let pre: Vec<f32> = grad
            .iter()
            .zip(unit)
            .map(|(g, u)| (g - along * u) / norm)
            .collect();
        for &id in ids {
            let w = self.weights[id as usize];
            let row = &mut self.grad[id as usize * self.dims..][..self.dims];
            row.iter_mut().zip(&pre).for_each(|(r, p)| *r += w * p);
            self.touched.insert(id);
        }
    }

    /// One contrastive step over `batch`; returns its loss.
    fn train(&mut self, batch: &[&Pair]) -> f32 {
        let n = batch.len();
        let temp = TEMPERATURE;
        let queries: Vec<(Vec<f32>, f32)> = batch.iter().map(|p| self.pool(&p.query)).collect();
        let codes: Vec<(Vec<f32>, f32)> = batch.iter().map(|p| self.pool(&p.code)).collect();
        let logits: Vec<Vec<f32>> = queries
            .iter()
            .map(|(q, _)| codes.iter().map(|(c, _)| dot(q, c) / temp).collect())
            .collect();
        let by_row: Vec<Vec<f32>> = logits.iter().map(|row| softmax(row)).collect();
        let by_column: Vec<Vec<f32>> = (0..n)
            .map(|j| softmax(&logits.iter().map(|row| row[j]).collect::<Vec<_>>()))
            .collect();
        let mut loss = 0.0;
        let mut g = vec![vec![0f32; n]; n];
        for i in 0..n {
            loss -= by_row[i][i].max(1e-30).ln() + by_column[i][i].max(1e-30).ln();
            for j in 0..n {
                let own = if i == j { 2.0 } else { 0.0 };
                g[i][j] = (by_row[i][j] + by_column[j][i] - own) / (n as f32 * temp);
            }
        }
        for i in 0..n {
            let mut gq = vec![0f32; self.dims];
            let mut gc = vec![0f32; self.dims];
            for j in 0..n {
                axpy(&mut gq, g[i][j], &codes[j].0);
                axpy(&mut gc, g[j][i], &queries[j].0);
            }
            self.back(&batch[i].query, &queries[i].0, queries[i].1, &gq);
            self.back(&batch[i].code, &codes[i].0, codes[i].1, &gc);
        }
        self.apply();
        loss / (2.0 * n as f32)
    }

    /// Lazy Adam on the rows this step touched.
    fn apply(&mut self) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.step += 1;
        let (c1, c2) = (1.0 - B1.powi(self.step), 1.0 - B2.powi(self.step));
        for id in std::mem::take(&mut self.touched) {
            let at = id as usize * self.dims;
            for k in at..at + self.dims {
                let g = self.grad[k];
                self.first[k] = B1 * self.first[k] + (1.0 - B1) * g;
                self.second[k] = B2 * self.second[k] + (1.0 - B2) * g * g;
                let m = self.first[k] / c1;
                let v = self.second[k] / c2;
                self.rows[k] -= self.rate * m / (v.sqrt() + 1e-8);
                self.grad[k] = 0.0;
            }
        }
    }

    /// Hit@10 and MRR@10 of each held-out query among all held-out symbols.
    fn measure(&self, held: &[Pair]) -> (f64, f64) {
        let codes: Vec<Vec<f32>> = held.iter().map(|p| self.pool(&p.code).0).collect();
        let (mut hits, mut rr) = (0usize, 0f64);
        for (i, pair) in held.iter().enumerate() {
            let q = self.pool(&pair.query).0;
            let own = dot(&q, &codes[i]);
            let rank = codes.iter().filter(|c| dot(&q, c) > own).count();
            if rank < TOP {
                hits += 1;
                rr += 1.0 / (rank as f64 + 1.0);
            }
        }
        let n = held.len().max(1) as f64;
        (hits as f64 / n, rr / n)
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn axpy(y: &mut [f32], a: f32, x: &[f32]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += a * x);
}

fn softmax(v: &[f32]) -> Vec<f32> {
    let max = v.iter().fold(f32::MIN, |m, x| m.max(*x));
    let e: Vec<f32> = v.iter().map(|x| (x - max).exp()).collect();
    let sum: f32 = e.iter().sum();
    e.iter().map(|x| x / sum).collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut dirs, mut exclude) = (Vec::new(), Vec::new());
    let (Some(input), Some(output)) = (args.next(), args.next()) else {
        eprintln!("usage: tune_model IN_MODEL OUT_MODEL DIR... [--exclude NAME]...");
        std::process::exit(2);
    };
    while let Some(arg) = args.next() {
        if arg != "--exclude" {
            dirs.push(arg);
        } else if let Some(name) = args.next() {
            exclude.push(name);
        } else {
            eprintln!("--exclude needs a folder name");
            std::process::exit(2);
        }
    }
    let model = match std::fs::read(&input)
        .map_err(|e| e.to_string())
        .and_then(|b| StaticModel::from_bytes(&b))
    {
        Ok(model) => model,
        Err(err) => {
            eprintln!("{input}: {err}");
            std::process::exit(1);
        }
    };
    let mut cache = WordCache::default();
    let pairs: Vec<Pair> = dirs
        .iter()
        .flat_map(|d| pairs_of(Path::new(d), &exclude, &model, &mut cache))
        .collect();
    if pairs.len() < 2 * BATCH {
        eprintln!("{} pairs are too few to tune on", pairs.len());
        std::process::exit(1);
    }
    let mut random = Random(0x4E58_5345);
    let held: Vec<Pair> = pairs
        .iter()
        .step_by(HELD_OUT_EVERY)
        .map(|p| Pair {
            query: p.query.clone(),
            code: p.code.clone(),
        })
        .collect();
    let train: Vec<&Pair> = pairs
        .iter()
        .enumerate()
        .filter(|(i, _)| i % HELD_OUT_EVERY != 0)
        .map(|(_, p)| p)
        .collect();
    let dims = model.dims();
    let rows: Vec<f32> = (0..model.tokens() as u32)
        .flat_map(|id| model.row(id).unwrap_or_else(|| vec![0.0; dims]))
        .collect();
    let mut df = vec![0u32; model.tokens()];
    for pair in &train {
        for id in pair.code.iter().copied().collect::<BTreeSet<u32>>() {
            df[id as usize] += 1;
        }
    }
    let docs = train.len() as f32;
    let rms = (rows.iter().map(|v| v * v).sum::<f32>() / rows.len() as f32).sqrt();
    let mut tuner = Tuner {
        dims,
        first: vec![0.0; rows.len()],
        second: vec![0.0; rows.len()],
        grad: vec![0.0; rows.len()],
        rows,
        touched: BTreeSet::new(),
        weights: df
            .iter()
            .map(|&d| ((1.0 + docs) / (1.0 + d as f32)).ln() + 1.0)
            .collect(),
        step: 0,
        rate: STEP * rms,
    };
    let (hit, mrr) = tuner.measure(&held);
    println!(
        "{} training pairs, {} held out; before: hit@10 {hit:.3} MRR@10 {mrr:.3}",
        train.len(),
        held.len()
    );
    let mut order = train;
    for epoch in 1..=EPOCHS {
        random.shuffle(&mut order);
        let batches: Vec<&[&Pair]> = order.chunks(BATCH).filter(|b| b.len() == BATCH).collect();
        let mut loss = 0.0;
        let mut count = 0;
        for batch in batches {
            loss += tuner.train(batch);
            count += 1;
        }
        let (hit, mrr) = tuner.measure(&held);
        println!(
            "epoch {epoch}: loss {:.3}; held out: hit@10 {hit:.3} MRR@10 {mrr:.3}",
            loss / count.max(1) as f32
        );
    }
    match model
        .with_rows(&tuner.rows)
        .and_then(|bytes| std::fs::write(&output, bytes).map_err(|e| e.to_string()))
    {
        Ok(()) => println!("wrote {output}"),
        Err(err) => {
            eprintln!("{output}: {err}");
            std::process::exit(1);
        }
    }
}
