//! Symbol and file search: BM25 over code-aware tokens (identifier parts and whole identifiers,
//! qualified names, signatures, doc lines, paths) with prefix and one-typo fuzzy matching.

use rustc_hash::FxHashMap as HashMap;

use super::graph::{Graph, NodeKind};

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Score factors for non-exact term matches.
const PREFIX_FACTOR: f64 = 0.5;
const FUZZY_FACTOR: f64 = 0.3;
/// Extra weight when the query equals a symbol's whole name.
const EXACT_NAME_BOOST: f64 = 3.0;

/// One ranked hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub node: u32,
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
            if !(kind.is_symbol() || kind == NodeKind::File) {
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

    /// Ranked hits for a free-text query; `filter` keeps the nodes it accepts.
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
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
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
    fn one_edit_distance() {
        assert!(within_one_edit("refund", "refnud"));
        assert!(within_one_edit("refund", "refunds"));
        assert!(within_one_edit("refund", "rfund"));
        assert!(within_one_edit("refund", "refand"));
        assert!(!within_one_edit("refund", "rexxnd"));
    }
}
