//! Turning a question into a plan: Cypher as is, else clauses ("… and …") each classified and
//! given their symbols, files and patterns; a later clause may use an earlier clause's subject.

use nexus_shared::params::Direction;
use nexus_shared::wording::intent::{
    self, Intent, is_marker, is_slashed_regex, looks_like_regex, quoted,
};
use nexus_shared::wording::{Word, bounded, clauses, is_cypher, looks_like_path, words};
use serde_json::{Map, Value, json};

use super::plan::{Matched, Plan, Step};
use super::symbols::{NameTable, SymbolMatch, find_symbols};
use crate::ToolContext;
use nexus_engine::NodeKind;

/// The reference a step uses for the first result of the step it depends on.
pub const FIRST_RESULT_NAME: &str = "$result[0].name";

/// What a later clause's "it" stands for.
#[derive(Debug, Clone)]
enum Subject {
    Symbol {
        target: String,
        file: String,
    },
    /// The first result of this step.
    FirstResultOf(usize),
}

/// The plan for a question. Never fails: what is not understood becomes a search.
pub fn plan(ctx: &ToolContext, question: &str) -> Plan {
    let question = bounded(question);
    if is_cypher(question) {
        return Plan {
            query: question.to_owned(),
            steps: vec![Step::new(
                "cypher",
                json!({"query": question}),
                "the question is a Cypher query".into(),
            )],
        };
    }
    let names = NameTable::build(ctx);
    let mut steps: Vec<Step> = Vec::new();
    let mut subject: Option<Subject> = None;
    for clause in clauses(question) {
        let (step, found) = plan_clause(ctx, &names, clause, subject.as_ref(), steps.len());
        if found.is_some() {
            subject = found;
        }
        steps.push(step);
    }
    Plan {
        query: question.to_owned(),
        steps,
    }
}

fn plan_clause(
    ctx: &ToolContext,
    names: &NameTable,
    clause: &str,
    previous: Option<&Subject>,
    index: usize,
) -> (Step, Option<Subject>) {
    let words = words(clause);
    let files: Vec<String> = words
        .iter()
        .filter_map(|w| file_in_graph(ctx, &w.raw))
        .collect();
    let intent = intent::classify(&words, clause, !files.is_empty());
    let symbols: Vec<SymbolMatch> = if files.is_empty() {
        find_symbols(ctx, names, &words)
    } else {
        Vec::new()
    };
    let matched: Vec<Matched> = symbols.iter().map(|m| Matched::of(ctx, m)).collect();
    let own_subject = symbols.first().map(|m| Subject::Symbol {
        target: m.target.clone(),
        file: ctx
            .graph
            .node(m.node)
            .map(|n| n.file().to_owned())
            .unwrap_or_default(),
    });
    let subject = own_subject.clone().or_else(|| previous.cloned());
    let why = |detail: &str| format!("asks for {}: {detail}", intent.reading());
    let step = match intent {
        Intent::Grep => Step::new(
            "grep",
            json!({"pattern": grep_pattern(&words, clause)}),
            why("grep"),
        ),
        Intent::ReadFile => {
            let mut args = json!({"path": files.first()});
            if let (Some((start, end)), Some(map)) = (line_range(&words), args.as_object_mut()) {
                map.insert("start_line".into(), json!(start));
                map.insert("end_line".into(), json!(end));
            }
            Step::new("read", args, why("read"))
        }
        Intent::ReviewFile => Step::new(
            "review_file",
            json!({"path": files.first()}),
            why("review_file"),
        ),
        Intent::TestImpact => {
            let changed: Vec<String> = if files.is_empty() {
                match &subject {
                    Some(Subject::Symbol { file, .. }) if !file.is_empty() => vec![file.clone()],
                    _ => Vec::new(),
                }
            } else {
                files.clone()
            };
            if changed.is_empty() {
                search_step(&words, clause, "no file or symbol to take the tests of")
            } else {
                Step::new(
                    "test_impact",
                    json!({"changed_files": changed}),
                    why("test_impact on the files"),
                )
            }
        }
        Intent::Stats => Step::new("context", json!({"focus": "stats"}), why("context")),
        Intent::Overview => Step::new("overview", json!({}), why("overview")),
        Intent::Cluster => named_group(&words, "cluster", &why("explore a cluster by name")),
        Intent::Process => match (&own_subject, words.iter().any(|w| w.lower == "processes")) {
            (Some(Subject::Symbol { target, .. }), true) => Step::new(
                "trace_flow",
                json!({"from": target}),
                why("trace_flow lists the processes through the symbol"),
            ),
            _ => named_group(&words, "process", &why("explore a process by name")),
        },
        _ if intent.needs_symbol() => match &subject {
            None => search_step(
                &words,
                clause,
                "no word matches a symbol of the graph, even allowing two typos; searching instead",
            ),
            Some(subject) => symbol_step(intent, &words, &symbols, subject, index, &why),
        },
        _ => match symbols.first() {
            Some(m) => Step::new(
                "search",
                json!({"query": ctx.graph.node(m.node).map_or(m.target.as_str(), |n| n.name())}),
                why("search for the symbol named"),
            ),
            None => search_step(&words, clause, "the default"),
        },
    };
    let step = step.with_matched(matched);
    let found = match (&own_subject, step.tool.as_str()) {
        (Some(_), _) => own_subject,
        (None, "search") => Some(Subject::FirstResultOf(index)),
        _ => None,
    };
    (step, found)
}

/// The step of a symbol intent whose subject is known.
fn symbol_step(
    intent: Intent,
    words: &[Word],
    symbols: &[SymbolMatch],
    subject: &Subject,
    index: usize,
    why: &dyn Fn(&str) -> String,
) -> Step {
    let (target, depends_on) = match subject {
        Subject::Symbol { target, .. } => (target.clone(), None),
        Subject::FirstResultOf(step) => (FIRST_RESULT_NAME.to_owned(), Some(*step)),
    };
    let trace = |from: &str, to: Option<&str>| {
        let args = match to {
            Some(to) => json!({"from": from, "to": to}),
            None => json!({"from": from}),
        };
        Step::new("trace_flow", args, why("trace_flow"))
    };
    let step = match intent {
        Intent::Trace | Intent::Calls
            if symbols.len() >= 2 && (intent == Intent::Trace || call_between(words, symbols)) =>
        {
            match ordered_pair(words, symbols) {
                Some((from, to)) => trace(&from.target, Some(&to.target)),
                None => trace(&target, None),
            }
        }
        Intent::Trace => trace(&target, None),
        Intent::Similar => Step::new("find_similar", json!({"name": target}), why("find_similar")),
        Intent::Calls
            if uses_not_calls(words)
                && call_direction(words, symbols.first().map_or(words.len(), |m| m.first_word))
                    == Direction::Upstream =>
        {
            Step::new(
                "find_usages",
                json!({"target": target}),
                why("find_usages: calls, imports, types, values, reads"),
            )
        }
        Intent::Calls => {
            let at = symbols.first().map_or(words.len(), |m| m.first_word);
            let (direction, detail) = match call_direction(words, at) {
                Direction::Upstream => ("upstream", "callers are impact upstream, depth 1"),
                Direction::Downstream => ("downstream", "callees are impact downstream, depth 1"),
            };
            Step::new(
                "impact",
                json!({"target": target, "direction": direction, "max_depth": 1}),
                why(detail),
            )
        }
        Intent::Impact => Step::new(
            "impact",
            json!({"target": target, "direction": "upstream", "max_depth": 3}),
            why("impact upstream, 3 levels"),
        ),
        _ => Step::new("deep_dive", json!({"name": target}), why("deep_dive")),
    };
    match depends_on {
        Some(step_index) if index > step_index => step.depending_on(step_index),
        _ => step,
    }
}

/// "from A to B" in either word order; otherwise the order written.
fn ordered_pair<'m>(
    words: &[Word],
    symbols: &'m [SymbolMatch],
) -> Option<(&'m SymbolMatch, &'m SymbolMatch)> {
    let (first, second) = (symbols.first()?, symbols.get(1)?);
    let word_before = |m: &SymbolMatch| {
        m.first_word
            .checked_sub(1)
            .and_then(|i| words.get(i))
            .map(|w| w.lower.as_str())
    };
    if matches!(word_before(first), Some("to" | "reach" | "reaches"))
        && word_before(second) == Some("from")
    {
        Some((second, first))
    } else {
        Some((first, second))
    }
}

/// "does A call B": a call word stands between the first two symbols.
fn call_between(words: &[Word], symbols: &[SymbolMatch]) -> bool {
    let (Some(first), Some(second)) = (symbols.first(), symbols.get(1)) else {
        return false;
    };
    words
        .get(first.first_word + first.words..second.first_word)
        .is_some_and(|between| between.iter().any(|w| is_call_word(&w.lower)))
}

fn is_call_word(lower: &str) -> bool {
    matches!(
        lower,
        "call"
            | "calls"
            | "called"
            | "calling"
            | "invoke"
            | "invokes"
            | "invoked"
            | "use"
            | "uses"
            | "used"
            | "referenced"
            | "depend"
            | "depends"
    )
}

/// Whether a clause asks where something is used or referenced, not who calls it.
fn uses_not_calls(words: &[Word]) -> bool {
    let usage = |w: &str| {
        matches!(
            w,
            "use" | "uses" | "used" | "referenced" | "reference" | "references"
        ) || w.starts_with("usage")
    };
    let calling =
        |w: &str| w.starts_with("call") || w.starts_with("invok") || w.starts_with("depend");
    words.iter().any(|w| usage(&w.lower)) && !words.iter().any(|w| calling(&w.lower))
}

/// Callers (upstream) or callees (downstream), from the wording around the symbol at `at`.
fn call_direction(words: &[Word], at: usize) -> Direction {
    let has = |pred: &dyn Fn(&str) -> bool| words.iter().any(|w| pred(&w.lower));
    if has(&|w| w.starts_with("callee") || w == "dependencies") {
        return Direction::Downstream;
    }
    if has(&|w| w.starts_with("caller") || w.starts_with("usage") || w == "references") {
        return Direction::Upstream;
    }
    if at > 0 && words.get(at - 1).is_some_and(|w| w.lower == "by") {
        return Direction::Downstream;
    }
    let call_word = words
        .iter()
        .enumerate()
        .find(|(_, w)| is_call_word(&w.lower));
    match call_word {
        Some((i, _)) if i < at => Direction::Upstream,
        Some((_, w))
            if matches!(
                w.lower.as_str(),
                "called" | "used" | "invoked" | "referenced"
            ) =>
        {
            Direction::Upstream
        }
        Some(_) => Direction::Downstream,
        None => Direction::Upstream,
    }
}

/// `explore` for a cluster or process named by the first word that is not vocabulary.
fn named_group(words: &[Word], kind: &str, why: &str) -> Step {
    match words.iter().find(|w| w.may_name_symbol()) {
        Some(name) => Step::new(
            "explore",
            json!({"name": name.raw, "type": kind}),
            why.to_owned(),
        ),
        None => Step::new(
            "overview",
            json!({}),
            format!("no {kind} named; the overview lists them all"),
        ),
    }
}

/// `search` over the clause's content words, with a kind when one is named. A description
/// (two words or more: "where do we hash passwords") is searched by words and meaning (hybrid).
fn search_step(words: &[Word], clause: &str, detail: &str) -> Step {
    let content: Vec<&str> = words
        .iter()
        .filter(|w| w.may_name_symbol())
        .map(|w| w.raw.as_str())
        .collect();
    let kind = words.iter().find_map(|w| match w.lower.as_str() {
        "function" | "functions" => Some(NodeKind::Function),
        "method" | "methods" => Some(NodeKind::Method),
        "class" | "classes" => Some(NodeKind::Class),
        _ => None,
    });
    let query = if content.is_empty() {
        let all: Vec<&str> = words.iter().map(|w| w.raw.as_str()).collect();
        if all.is_empty() {
            clause.trim().to_owned()
        } else {
            all.join(" ")
        }
    } else {
        content.join(" ")
    };
    let mut args = json!({"query": query});
    if let (Some(kind), false, Some(map)) = (kind, content.is_empty(), args.as_object_mut()) {
        map.insert("kind".into(), json!(kind.as_str()));
    }
    if let (true, Some(map)) = (query.split_whitespace().count() >= 2, args.as_object_mut()) {
        map.insert("mode".into(), json!("hybrid"));
    }
    Step::new("search", args, format!("search: {detail}"))
}

/// The regex to grep for: between slashes, in quotes (escaped unless it is a regex), markers
/// such as TODO, a regex-looking word, or the words after "grep"/"regex".
fn grep_pattern(words: &[Word], clause: &str) -> String {
    if let Some(w) = words.iter().find(|w| is_slashed_regex(&w.raw)) {
        return w.raw.trim_matches('/').to_owned();
    }
    if let Some(inner) = quoted(clause) {
        return if looks_like_regex(inner) {
            inner.to_owned()
        } else {
            regex_lite::escape(inner)
        };
    }
    let markers: Vec<String> = words
        .iter()
        .filter(|w| is_marker(&w.raw))
        .map(|w| w.raw.trim_end_matches(':').to_uppercase())
        .collect();
    if !markers.is_empty() {
        return markers.join("|");
    }
    let raw_tokens: Vec<&str> = clause.split_whitespace().collect();
    if let Some(at) = raw_tokens.iter().position(|t| looks_like_regex(t)) {
        return raw_tokens.get(at..).unwrap_or_default().join(" ");
    }
    let after_keyword = raw_tokens
        .iter()
        .position(|t| matches!(t.to_lowercase().as_str(), "grep" | "regex" | "regexp"))
        .map_or(0, |i| i + 1);
    let rest: Vec<&str> = raw_tokens
        .iter()
        .skip(after_keyword)
        .copied()
        .filter(|t| {
            !matches!(
                t.to_lowercase().as_str(),
                "for" | "the" | "all" | "occurrences" | "of" | "in" | "code"
            )
        })
        .collect();
    if rest.is_empty() {
        clause.trim().to_owned()
    } else {
        rest.join(" ")
    }
}

/// `lines 10-20`, `line 10 to 20`, `lines 10 through 20`, `line 7`.
fn line_range(words: &[Word]) -> Option<(u32, u32)> {
    let at = words
        .iter()
        .position(|w| w.lower == "line" || w.lower == "lines")?;
    let rest = words.get(at + 1..)?;
    let first = rest.first()?;
    let number = |s: &str| s.parse::<u32>().ok().filter(|&n| n > 0);
    if let Some((a, b)) = first
        .raw
        .split_once(['-', '–', ':'])
        .or_else(|| first.raw.split_once(".."))
    {
        let (a, b) = (number(a)?, number(b.trim_start_matches('.'))?);
        return Some((a.min(b), a.max(b)));
    }
    let start = number(&first.raw)?;
    let end = match rest.get(1).map(|w| w.lower.as_str()) {
        Some("to" | "through" | "until" | "-" | "and") => rest.get(2).and_then(|w| number(&w.raw)),
        _ => None,
    };
    let end = end.unwrap_or(start);
    Some((start.min(end), start.max(end)))
}

/// The repository path a word names, when the graph has that file (or exactly one file ending
/// with it).
fn file_in_graph(ctx: &ToolContext, raw: &str) -> Option<String> {
    if !looks_like_path(raw) {
        return None;
    }
    let path = raw
        .trim_start_matches("./")
        .trim_end_matches([',', ':', ';']);
    if ctx.graph.find_id(&format!("File:{path}")).is_some() {
        return Some(path.to_owned());
    }
    let suffix = format!("/{path}");
    let mut found = ctx
        .graph
        .nodes_of_kind(NodeKind::File)
        .iter()
        .filter_map(|&n| ctx.graph.node(n))
        .filter(|n| n.file().ends_with(&suffix));
    match (found.next(), found.next()) {
        (Some(one), None) => Some(one.file().to_owned()),
        _ => None,
    }
}

impl Step {
    pub fn new(tool: &str, args: Value, why: String) -> Step {
        let args = match args {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Step {
            tool: tool.to_owned(),
            args,
            depends_on: Vec::new(),
            why,
            matched: Vec::new(),
        }
    }

    fn depending_on(mut self, step: usize) -> Step {
        self.depends_on = vec![step];
        self.why.push_str(&format!(
            "; `{FIRST_RESULT_NAME}` is the first result of step {step}"
        ));
        self
    }

    fn with_matched(mut self, matched: Vec<Matched>) -> Step {
        self.matched = matched;
        self
    }
}
