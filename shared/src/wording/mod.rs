//! The router's reading of a question by wording alone (no graph): clauses, words and each
//! clause's intent. Shared so the tools' router and the chat's tool compiler read alike.

pub mod intent;
mod words;

pub use intent::Intent;
pub use words::{MAX_QUESTION_CHARS, Word, bounded, is_stop_word, words};

/// Most clauses (and so steps) one question becomes.
const MAX_CLAUSES: usize = 3;
/// Words joining clauses, tried in this order.
const CLAUSE_JOINS: &[&str] = &[
    " and then ",
    ", then ",
    "; ",
    " then ",
    " and also ",
    " and ",
];
/// File extensions that make a word a path.
const EXTENSIONS: &[&str] = &[
    "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "rs", "go", "java", "c", "h", "cc", "cpp",
    "cxx", "hpp", "hh", "hxx", "md", "json", "toml", "yaml", "yml", "txt", "cfg", "ini", "html",
    "css", "sh", "php", "rb", "swift", "kt", "kts", "zig", "dart", "ex", "exs", "scala", "sc",
    "lua", "bash",
];

/// `MATCH … RETURN …` (any case) is run as Cypher.
pub fn is_cypher(question: &str) -> bool {
    let lower = question.to_lowercase();
    (lower.starts_with("match ")
        || lower.starts_with("match(")
        || lower.starts_with("optional match"))
        && lower.contains("return")
}

/// Splits at joining words outside quotes when the part after them asks for something of its
/// own ("explain X and what breaks if I change it"); "callers of X and Y" stays one clause.
pub fn clauses(question: &str) -> Vec<&str> {
    let mut parts = vec![question];
    while parts.len() < MAX_CLAUSES {
        let split = parts
            .iter()
            .enumerate()
            .find_map(|(i, part)| split_clause(part).map(|(left, right)| (i, left, right)));
        let Some((i, left, right)) = split else {
            break;
        };
        parts.splice(i..=i, [left, right]);
    }
    parts
}

/// The first join after which the rest asks on its own, as (before, after).
fn split_clause(part: &str) -> Option<(&str, &str)> {
    let lower = part.to_lowercase();
    for join in CLAUSE_JOINS {
        let mut from = 0;
        while let Some(found) = lower.get(from..).and_then(|s| s.find(join)) {
            let at = from + found;
            from = at + join.len();
            let (Some(left), Some(right)) = (part.get(..at), part.get(at + join.len()..)) else {
                continue;
            };
            if !left.trim().is_empty() && !inside_quotes(left) && asks_on_its_own(right) {
                return Some((left.trim(), right.trim()));
            }
        }
    }
    None
}

/// True when `before` leaves a double quote or backtick open.
fn inside_quotes(before: &str) -> bool {
    before.matches('"').count() % 2 == 1 || before.matches('`').count() % 2 == 1
}

/// True when a clause asks for something by itself (an intent of its own, or a leading verb).
fn asks_on_its_own(clause: &str) -> bool {
    let w = words(clause);
    let lead = w.first().map(|w| w.lower.as_str());
    intent::classify(&w, clause, false) != Intent::Find
        || matches!(
            lead,
            Some("find" | "search" | "show" | "list" | "grep" | "read" | "open")
        )
}

/// True when a word is written like a repository path (a `/`, or a known file extension).
pub fn looks_like_path(raw: &str) -> bool {
    let path = raw
        .trim_start_matches("./")
        .trim_end_matches([',', ':', ';']);
    let extension = path.rsplit_once('.').map(|(_, ext)| ext.to_lowercase());
    !path.is_empty()
        && (path.contains('/') || extension.is_some_and(|e| EXTENSIONS.contains(&e.as_str())))
}

/// The intent of each clause of `question` by wording alone: a clause names a file when a
/// word looks like a path (no graph to check it against). Cypher is `None`.
pub fn clause_intents(question: &str) -> Option<Vec<Intent>> {
    let question = bounded(question);
    if is_cypher(question) {
        return None;
    }
    Some(
        clauses(question)
            .into_iter()
            .map(|clause| {
                let w = words(clause);
                let names_file = w.iter().any(|w| looks_like_path(&w.raw));
                intent::classify(&w, clause, names_file)
            })
            .collect(),
    )
}

/// The router's reading of each clause of `question` by wording alone, without a graph:
/// `grep`, `read_file`, `review_file`, `test_impact`, `trace`, `similar`, `cluster`,
/// `process`, `calls`, `impact`, `stats`, `overview`, `explain`, `find`; or `cypher` for a
/// Cypher query. The chat side hands these to the tool compiler as `intent` facts.
pub fn intents(question: &str) -> Vec<&'static str> {
    match clause_intents(question) {
        Some(intents) => intents.into_iter().map(Intent::name).collect(),
        None => vec!["cypher"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_split_into_clauses_each_with_its_intent() {
        assert_eq!(
            intents("explain checkout and what breaks if I change it"),
            ["explain", "impact"]
        );
        assert_eq!(intents("callers of a and b"), ["calls"]);
        assert_eq!(intents("MATCH (n) RETURN n"), ["cypher"]);
        assert!(looks_like_path("src/app.py") && !looks_like_path("checkout"));
    }
}
