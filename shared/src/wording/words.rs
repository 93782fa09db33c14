//! Splitting a question into words as written and lowercased, noting which look like code
//! (backticks, `()`, `_`, dots, inner capitals), and the stop words never taken for symbols.

/// Longest question the router reads, in characters; the rest is ignored.
pub const MAX_QUESTION_CHARS: usize = 1_000;
/// Most words read from one clause.
const MAX_WORDS: usize = 64;

/// One word of a question.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    /// As written, without surrounding punctuation, backticks, `()` or a possessive `'s`.
    pub raw: String,
    pub lower: String,
    /// Written like code: in backticks, with `()`, `_`, `.`, `:` or an inner capital letter.
    pub code_like: bool,
}

impl Word {
    /// True when the router may read this word as a symbol name.
    pub fn may_name_symbol(&self) -> bool {
        self.code_like || !is_stop_word(&self.lower)
    }
}

/// The question cut to `MAX_QUESTION_CHARS` on a character boundary, trimmed of a closing `?`.
pub fn bounded(question: &str) -> &str {
    let end = question
        .char_indices()
        .nth(MAX_QUESTION_CHARS)
        .map_or(question.len(), |(i, _)| i);
    question
        .get(..end)
        .unwrap_or_default()
        .trim()
        .trim_end_matches(['?', '!', '.'])
        .trim()
}

/// The words of `text`, in order.
pub fn words(text: &str) -> Vec<Word> {
    text.split_whitespace()
        .filter_map(word)
        .take(MAX_WORDS)
        .collect()
}

fn word(token: &str) -> Option<Word> {
    let quoted = token.contains('`');
    let stripped = token.trim_matches(|c: char| "`\"'“”‘’,;!?()[]{}<>".contains(c));
    let called = token.contains("()");
    let stripped = stripped
        .trim_end_matches("()")
        .trim_end_matches("'s")
        .trim_end_matches("’s")
        .trim_end_matches(['.', ':', ','])
        .trim_start_matches("./");
    if stripped.is_empty() {
        return None;
    }
    let inner_capital = stripped.chars().skip(1).any(char::is_uppercase)
        && stripped.chars().any(char::is_lowercase);
    let code_like = quoted
        || called
        || inner_capital
        || stripped.contains(['_', '.', ':'])
        || stripped.chars().any(|c| c.is_ascii_digit());
    Some(Word {
        raw: stripped.to_owned(),
        lower: stripped.to_lowercase(),
        code_like,
    })
}

/// Words of questions and of the router's own vocabulary: never read as symbol names unless
/// written like code. `change` must never become `charge`, nor `uses` become `user`.
pub fn is_stop_word(lower: &str) -> bool {
    STOP_WORDS.binary_search(&lower).is_ok()
}

/// Sorted, for binary search (a test keeps it sorted).
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "affect",
    "affected",
    "affects",
    "after",
    "all",
    "also",
    "an",
    "analyse",
    "analyze",
    "and",
    "any",
    "anything",
    "architecture",
    "are",
    "as",
    "at",
    "be",
    "before",
    "behind",
    "between",
    "big",
    "blast",
    "break",
    "breaks",
    "by",
    "call",
    "called",
    "callee",
    "callees",
    "caller",
    "callers",
    "calling",
    "calls",
    "can",
    "chain",
    "change",
    "changed",
    "changes",
    "changing",
    "class",
    "classes",
    "cluster",
    "code",
    "codebase",
    "community",
    "consequences",
    "contents",
    "could",
    "cover",
    "covers",
    "defined",
    "definition",
    "delete",
    "depend",
    "dependencies",
    "depends",
    "describe",
    "detail",
    "details",
    "did",
    "dive",
    "do",
    "does",
    "done",
    "down",
    "downstream",
    "duplicate",
    "duplicates",
    "each",
    "else",
    "end",
    "every",
    "everything",
    "explain",
    "file",
    "files",
    "find",
    "flow",
    "for",
    "from",
    "function",
    "functions",
    "get",
    "gets",
    "give",
    "go",
    "goes",
    "grep",
    "happen",
    "happens",
    "has",
    "have",
    "here",
    "how",
    "i",
    "if",
    "impact",
    "impacted",
    "in",
    "into",
    "invoke",
    "invoked",
    "invokes",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "lead",
    "leads",
    "like",
    "line",
    "lines",
    "list",
    "locate",
    "look",
    "looks",
    "many",
    "map",
    "me",
    "method",
    "methods",
    "modify",
    "module",
    "modules",
    "more",
    "most",
    "my",
    "need",
    "of",
    "on",
    "one",
    "only",
    "open",
    "or",
    "other",
    "our",
    "out",
    "overview",
    "path",
    "please",
    "print",
    "process",
    "processes",
    "project",
    "radius",
    "reach",
    "reaches",
    "read",
    "refactor",
    "referenced",
    "references",
    "remove",
    "rename",
    "repo",
    "repository",
    "resemble",
    "resembles",
    "review",
    "ripple",
    "run",
    "safe",
    "same",
    "search",
    "should",
    "show",
    "similar",
    "so",
    "some",
    "source",
    "stats",
    "structure",
    "tell",
    "test",
    "tests",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "through",
    "to",
    "trace",
    "understand",
    "up",
    "upstream",
    "usage",
    "usages",
    "use",
    "used",
    "uses",
    "using",
    "via",
    "view",
    "want",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "work",
    "works",
    "would",
    "you",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_and_unique() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn words_strip_punctuation_and_mark_code() {
        let w = words("who calls `checkout`, Cart.total() and getUser's x_y? it");
        let raw: Vec<&str> = w.iter().map(|w| w.raw.as_str()).collect();
        assert_eq!(
            raw,
            [
                "who",
                "calls",
                "checkout",
                "Cart.total",
                "and",
                "getUser",
                "x_y",
                "it"
            ]
        );
        let code: Vec<bool> = w.iter().map(|w| w.code_like).collect();
        assert_eq!(code, [false, false, true, true, false, true, true, false]);
    }

    #[test]
    fn bounded_cuts_on_a_character_boundary() {
        let long = "é".repeat(MAX_QUESTION_CHARS + 10);
        assert_eq!(bounded(&long).chars().count(), MAX_QUESTION_CHARS);
        assert_eq!(bounded(" who calls x? "), "who calls x");
    }
}
