//! Classifying one clause of a question by its wording: which kind of answer it asks for
//! (callers, impact, explanation, a file, a text search, …). Symbols are matched elsewhere.

use super::words::Word;

/// What a clause asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    Grep,
    ReadFile,
    ReviewFile,
    TestImpact,
    Trace,
    Similar,
    Cluster,
    Process,
    /// Callers or callees; the direction depends on where the symbol stands.
    Calls,
    Impact,
    Stats,
    Overview,
    Explain,
    Find,
}

impl Intent {
    /// The intent's name for other programs (the tool compiler's rules): snake_case.
    pub fn name(self) -> &'static str {
        match self {
            Intent::Grep => "grep",
            Intent::ReadFile => "read_file",
            Intent::ReviewFile => "review_file",
            Intent::TestImpact => "test_impact",
            Intent::Trace => "trace",
            Intent::Similar => "similar",
            Intent::Cluster => "cluster",
            Intent::Process => "process",
            Intent::Calls => "calls",
            Intent::Impact => "impact",
            Intent::Stats => "stats",
            Intent::Overview => "overview",
            Intent::Explain => "explain",
            Intent::Find => "find",
        }
    }

    /// The words the router understood, for the plan's `why`.
    pub fn reading(self) -> &'static str {
        match self {
            Intent::Grep => "a text or regex search in files",
            Intent::ReadFile => "a file's text",
            Intent::ReviewFile => "a review of a file",
            Intent::TestImpact => "tests and code affected by changing files",
            Intent::Trace => "a call path or the processes through a symbol",
            Intent::Similar => "similar symbols",
            Intent::Cluster => "a cluster (community)",
            Intent::Process => "a process (execution flow)",
            Intent::Calls => "callers or callees",
            Intent::Impact => "what breaks on a change",
            Intent::Stats => "project statistics",
            Intent::Overview => "an overview of the codebase",
            Intent::Explain => "an explanation of a symbol",
            Intent::Find => "a search",
        }
    }

    /// True when the answer is about one symbol (or two, for a trace).
    pub fn needs_symbol(self) -> bool {
        matches!(
            self,
            Intent::Trace | Intent::Similar | Intent::Calls | Intent::Impact | Intent::Explain
        )
    }
}

/// The clause as ` word word … ` (lowercase, single spaces, padded) for phrase checks.
pub fn padded(words: &[Word]) -> String {
    let mut text = String::from(" ");
    for w in words {
        text.push_str(&w.lower);
        text.push(' ');
    }
    text
}

fn any(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| text.contains(p))
}

/// Classifies one clause. `names_file` says whether it names a file of the graph.
pub fn classify(words: &[Word], raw: &str, names_file: bool) -> Intent {
    let text = padded(words);
    let asks_impact = any(
        &text,
        &[
            " break",
            " impact",
            " affect",
            " blast ",
            " ripple",
            " change",
            " modify",
            " remove ",
            " delete ",
            " rename ",
            " refactor",
            " consequence",
            " safe to ",
        ],
    );
    if any(&text, &[" grep ", " regex ", " regexp "])
        || words
            .iter()
            .any(|w| is_marker(&w.raw) || is_slashed_regex(&w.raw))
    {
        return Intent::Grep;
    }
    if names_file {
        return if any(&text, &[" test ", " tests ", " tested "]) || asks_impact {
            Intent::TestImpact
        } else if any(
            &text,
            &[" review ", " summarize ", " summarise ", " summary "],
        ) {
            Intent::ReviewFile
        } else {
            Intent::ReadFile
        };
    }
    if any(
        &text,
        &[
            " trace ",
            " tracing ",
            " reach ",
            " reaches ",
            " reached ",
            " path from ",
            " path between ",
            " call chain",
            " call path",
            " flow from ",
            " get from ",
            " get to ",
            " gets to ",
            " lead to ",
            " leads to ",
            " end up ",
            " go from ",
        ],
    ) {
        return Intent::Trace;
    }
    if any(
        &text,
        &[
            " similar ",
            " resemble",
            " duplicate",
            " same as ",
            " looks like ",
            " look like ",
        ],
    ) || (text.contains(" like ") && !any(&text, &[" would like ", " i like "]))
    {
        return Intent::Similar;
    }
    if any(&text, &[" test ", " tests "])
        && any(
            &text,
            &[
                " cover",
                " run ",
                " should ",
                " affected ",
                " reach",
                " exercise",
            ],
        )
    {
        return Intent::TestImpact;
    }
    if any(
        &text,
        &[" cluster ", " clusters ", " community ", " communities "],
    ) {
        return Intent::Cluster;
    }
    if any(&text, &[" process ", " processes ", " execution flow "]) {
        return Intent::Process;
    }
    if any(
        &text,
        &[
            " call ",
            " calls ",
            " called ",
            " calling ",
            " caller",
            " callee",
            " invoke",
            " uses ",
            " use ",
            " used ",
            " usage",
            " references ",
            " referenced ",
            " depend",
        ],
    ) {
        return Intent::Calls;
    }
    if asks_impact {
        return Intent::Impact;
    }
    if any(
        &text,
        &[
            " stats ",
            " statistics ",
            " how big ",
            " how large ",
            " how many ",
            " size of ",
            " lines of code ",
            " hotspots ",
            " numbers ",
        ],
    ) {
        return Intent::Stats;
    }
    if any(
        &text,
        &[
            " overview ",
            " architecture ",
            " map of ",
            " main modules ",
            " main components ",
            " structure ",
            " big picture ",
            " high level ",
            " high-level ",
            " layout ",
            " organized ",
            " organised ",
            " this project ",
            " this codebase ",
            " this repo ",
            " the codebase ",
            " the project ",
        ],
    ) {
        return Intent::Overview;
    }
    if quoted(raw).is_some() || words.iter().any(|w| looks_like_regex(&w.raw)) {
        return Intent::Grep;
    }
    if any(
        &text,
        &[
            " explain ",
            " how does ",
            " how do ",
            " tell me about ",
            " what is ",
            " what's ",
            " whats ",
            " what does ",
            " describe ",
            " deep dive ",
            " deep-dive ",
            " details ",
            " detail ",
            " understand ",
            " analyse ",
            " analyze ",
            " walk me through ",
            " show me ",
            " about ",
            " purpose ",
        ],
    ) {
        return Intent::Explain;
    }
    Intent::Find
}

/// `TODO`, `FIXME`, `HACK`, `XXX` written as markers.
pub fn is_marker(raw: &str) -> bool {
    let upper = raw.trim_end_matches(':');
    matches!(upper, "TODO" | "FIXME" | "HACK" | "XXX") || matches!(raw, "todo" | "fixme")
}

/// `/regex/` written between slashes.
pub fn is_slashed_regex(raw: &str) -> bool {
    raw.len() > 2 && raw.starts_with('/') && raw.ends_with('/')
}

/// Characters only a regular expression would use in a question.
pub fn looks_like_regex(raw: &str) -> bool {
    raw.contains(['\\', '*', '+', '^', '$', '[', '|', '{'])
        || (raw.contains('?') && !raw.ends_with('?'))
}

/// The first span in double quotes (or single quotes at word edges), if any.
pub fn quoted(raw: &str) -> Option<&str> {
    for quote in ['"', '“', '\''] {
        let close = if quote == '“' { '”' } else { quote };
        let mut from = 0;
        while let Some(start) = raw.get(from..).and_then(|s| s.find(quote)) {
            let open = from + start;
            let inner_start = open + quote.len_utf8();
            let at_word_edge = quote != '\''
                || raw
                    .get(..open)
                    .and_then(|s| s.chars().last())
                    .is_none_or(|c| !c.is_alphanumeric());
            if let Some(len) = raw.get(inner_start..).and_then(|s| s.find(close)) {
                let inner = raw.get(inner_start..inner_start + len).unwrap_or_default();
                if at_word_edge && !inner.trim().is_empty() {
                    return Some(inner);
                }
            }
            from = inner_start;
        }
    }
    None
}
