//! Matching a question's words against the graph's real symbol names: ids, qualified names,
//! exact or case-, snake- and camel-insensitive names, then up to two edits for misspellings.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::ToolContext;
use nexus_engine::{Graph, NodeKind, NodeRef};
use nexus_shared::wording::Word;

/// Longest phrase (in words) tried as one name, e.g. "user service" for `UserService`.
const MAX_PHRASE_WORDS: usize = 3;
/// Fuzzy matching starts at this many characters (one edit), two edits from `TWO_EDITS_FROM`.
const ONE_EDIT_FROM: usize = 4;
const TWO_EDITS_FROM: usize = 7;
/// Other candidates listed with a match.
const OTHERS_LISTED: usize = 5;

/// How words matched a symbol, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchHow {
    /// A stable id such as `Method:shop/cart.py:Cart.checkout`.
    Id,
    /// A qualified name such as `Cart.checkout`.
    Qualified,
    Exact,
    CaseInsensitive,
    /// Equal once case, `_` and `-` are ignored (`user service` → `UserService`).
    SnakeCamel,
    /// Within this many edits (insertion, deletion, substitution, swap).
    Edits(u8),
}

/// Words of the question that name a symbol.
#[derive(Debug, Clone, PartialEq)]
pub struct SymbolMatch {
    /// Index of the first word and number of words matched.
    pub first_word: usize,
    pub words: usize,
    pub written: String,
    /// What to pass to a tool: the real name when unique, else the best candidate's stable id.
    pub target: String,
    pub node: u32,
    pub how: MatchHow,
    /// Other symbols the words could mean, best first.
    pub others: Vec<u32>,
}

/// The graph's symbol names, keyed for matching; built once per question.
pub struct NameTable<'g> {
    /// Normalized name (lowercase, no `_`/`-`) → indexes into `entries`.
    by_key: HashMap<String, Vec<usize>>,
    entries: Vec<NameEntry<'g>>,
}

struct NameEntry<'g> {
    key: Vec<char>,
    lower: &'g str,
    /// Symbol nodes only, best first.
    nodes: Vec<u32>,
}

/// The symbols named in `words`, without overlaps, in word order (longest phrase first).
pub fn find_symbols(ctx: &ToolContext, table: &NameTable, words: &[Word]) -> Vec<SymbolMatch> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let longest = MAX_PHRASE_WORDS.min(words.len() - i);
        let hit = (1..=longest)
            .rev()
            .find_map(|len| match_phrase(ctx, table, words, i, len));
        match hit {
            Some(m) => {
                i += m.words;
                found.push(m);
            }
            None => i += 1,
        }
    }
    found
}

fn match_phrase(
    ctx: &ToolContext,
    table: &NameTable,
    words: &[Word],
    first: usize,
    len: usize,
) -> Option<SymbolMatch> {
    let phrase = words.get(first..first + len)?;
    if !phrase.iter().all(Word::may_name_symbol) || (len > 1 && phrase.iter().any(|w| w.code_like))
    {
        return None;
    }
    let written = phrase
        .iter()
        .map(|w| w.raw.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let single = phrase.first().filter(|_| len == 1);
    if let Some(word) = single.filter(|w| w.raw.contains(':')) {
        let id = ctx.graph.find_id(&word.raw)?;
        return matched(ctx, first, len, written, MatchHow::Id, vec![id], true);
    }
    if let Some(word) = single.filter(|w| w.raw.contains('.')) {
        return qualified(ctx, first, written, &word.raw);
    }
    let key: String = phrase.iter().map(|w| normalize(&w.lower)).collect();
    let (how, entry) = table.best(ctx.graph, &key, phrase)?;
    matched(ctx, first, len, written, how, entry.nodes.clone(), false)
}

/// `Class.method` (or a longer dotted path): symbols whose qualified name ends with it.
fn qualified(
    ctx: &ToolContext,
    first: usize,
    written: String,
    dotted: &str,
) -> Option<SymbolMatch> {
    let last = dotted.rsplit('.').next().unwrap_or(dotted);
    let suffix = format!(".{dotted}");
    let mut nodes: Vec<u32> = ctx
        .search
        .by_name(last)
        .iter()
        .copied()
        .filter(|&n| {
            ctx.graph.node(n).is_some_and(|x| {
                x.kind().is_symbol()
                    && (x.qualified() == dotted || x.qualified().ends_with(&suffix))
            })
        })
        .collect();
    rank_nodes(ctx.graph, &mut nodes);
    matched(ctx, first, 1, written, MatchHow::Qualified, nodes, true)
}

/// The match for `nodes` (best first); `keep_written` passes ids and qualified names on as written.
fn matched(
    ctx: &ToolContext,
    first_word: usize,
    words: usize,
    written: String,
    how: MatchHow,
    nodes: Vec<u32>,
    keep_written: bool,
) -> Option<SymbolMatch> {
    let node = *nodes.first()?;
    let others: Vec<u32> = nodes
        .iter()
        .copied()
        .filter(|&n| n != node)
        .take(OTHERS_LISTED)
        .collect();
    let best = ctx.graph.node(node);
    let target = match best {
        _ if keep_written && (others.is_empty() || how == MatchHow::Id) => written.clone(),
        Some(n) if others.is_empty() => n.name().to_owned(),
        Some(n) => n.stable_id(),
        None => written.clone(),
    };
    Some(SymbolMatch {
        first_word,
        words,
        written,
        target,
        node,
        how,
        others,
    })
}

impl<'g> NameTable<'g> {
    pub fn build(ctx: &'g ToolContext) -> NameTable<'g> {
        let mut table = NameTable {
            by_key: HashMap::new(),
            entries: Vec::new(),
        };
        for (lower, nodes) in ctx.search.names() {
            let mut nodes: Vec<u32> = nodes
                .iter()
                .copied()
                .filter(|&n| ctx.graph.node(n).is_some_and(|x| x.kind().is_symbol()))
                .collect();
            if nodes.is_empty() {
                continue;
            }
            rank_nodes(ctx.graph, &mut nodes);
            let key = normalize(lower);
            table
                .by_key
                .entry(key.clone())
                .or_default()
                .push(table.entries.len());
            table.entries.push(NameEntry {
                key: key.chars().collect(),
                lower,
                nodes,
            });
        }
        table
    }

    /// The best name for a normalized phrase: same key first, then the fewest edits; ties go to
    /// callables and types, then to fewer candidates, then alphabetical order.
    fn best(
        &self,
        graph: &Graph,
        key: &str,
        phrase: &[Word],
    ) -> Option<(MatchHow, &NameEntry<'g>)> {
        let lower: String = phrase.iter().map(|w| w.lower.as_str()).collect();
        let raw: String = phrase.iter().map(|w| w.raw.as_str()).collect();
        let same_key: Vec<(MatchHow, &NameEntry<'g>)> = self
            .by_key
            .get(key)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.entries.get(i))
            .map(|e| {
                let how = if phrase.len() > 1 || e.lower != lower {
                    MatchHow::SnakeCamel
                } else if e
                    .nodes
                    .iter()
                    .any(|&n| graph.node(n).is_some_and(|x| x.name() == raw))
                {
                    MatchHow::Exact
                } else {
                    MatchHow::CaseInsensitive
                };
                (how, e)
            })
            .collect();
        let candidates = if same_key.is_empty() {
            self.within_edits(key)
        } else {
            same_key
        };
        let kind_rank = |e: &NameEntry| {
            e.nodes
                .first()
                .and_then(|&n| graph.node(n))
                .map_or(9, |n| kind_rank(&n))
        };
        candidates.into_iter().min_by(|(how_a, a), (how_b, b)| {
            how_a
                .cmp(how_b)
                .then(kind_rank(a).cmp(&kind_rank(b)))
                .then(a.nodes.len().cmp(&b.nodes.len()))
                .then(a.lower.cmp(b.lower))
        })
    }

    fn within_edits(&self, key: &str) -> Vec<(MatchHow, &NameEntry<'g>)> {
        let key: Vec<char> = key.chars().collect();
        let max = match key.len() {
            n if n >= TWO_EDITS_FROM => 2u8,
            n if n >= ONE_EDIT_FROM => 1,
            _ => return Vec::new(),
        };
        self.entries
            .iter()
            .filter(|e| {
                e.key.first() == key.first() && e.key.len().abs_diff(key.len()) <= usize::from(max)
            })
            .filter_map(|e| edit_distance(&key, &e.key, max).map(|d| (MatchHow::Edits(d), e)))
            .collect()
    }
}

/// Lowercase without `_` and `-`: `get_user`, `getUser` and `GetUser` share one key.
fn normalize(lower: &str) -> String {
    lower.chars().filter(|c| !matches!(c, '_' | '-')).collect()
}

/// Callables first, then types, then the rest.
fn kind_rank(n: &NodeRef) -> u8 {
    match n.kind() {
        k if k.is_callable() => 0,
        k if k.is_type() => 1,
        NodeKind::Module => 3,
        _ => 2,
    }
}

/// Best candidates first: by kind, then more incoming edges, then id.
fn rank_nodes(graph: &Graph, nodes: &mut [u32]) {
    nodes.sort_by_key(|&id| {
        graph.node(id).map_or((9, 0, id), |n| {
            (kind_rank(&n), usize::MAX - graph.incoming(id).count(), id)
        })
    });
}

/// Optimal string alignment distance when it is at most `max` (swaps count as one edit).
pub fn edit_distance(a: &[char], b: &[char], max: u8) -> Option<u8> {
    let max = max as usize;
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let width = b.len() + 1;
    let mut rows = vec![vec![0usize; width]; a.len() + 1];
    for (j, cell) in rows.first_mut()?.iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        rows[i][0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    let distance = rows.get(a.len())?.get(b.len()).copied()?;
    (distance <= max).then_some(distance as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str) -> Option<u8> {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        edit_distance(&a, &b, 2)
    }

    #[test]
    fn edit_distance_counts_swaps_as_one_and_stops_at_the_bound() {
        assert_eq!(distance("chekout", "checkout"), Some(1));
        assert_eq!(distance("chcekout", "checkout"), Some(1));
        assert_eq!(distance("vaildte", "validate"), Some(2));
        assert_eq!(distance("charge", "checkout"), None);
        assert_eq!(distance("", "ab"), Some(2));
    }
}
