//! What the compiler knows about a tool beyond its name (spec §3): categories, capabilities,
//! domain affinity, shard affinities and a one-line description; the heuristic analyzer derives them.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::text::{terms, words};
use crate::tool::ToolInfo;

/// What a tool can do to the things it touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Capability {
    /// Reads or lists without changing anything.
    #[serde(rename = "/read")]
    Read,
    /// Creates, changes or deletes.
    #[serde(rename = "/write")]
    Write,
    /// Finds things by a query.
    #[serde(rename = "/search")]
    Search,
    /// Turns an input into another form.
    #[serde(rename = "/transform")]
    Transform,
}

impl Capability {
    /// The spec's name, as the rules see it (`/read`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Read => "/read",
            Capability::Write => "/write",
            Capability::Search => "/search",
            Capability::Transform => "/transform",
        }
    }
}

/// Who produced an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnalysisSource {
    /// Derived from name, description and schema by [`HeuristicAnalyzer`].
    Heuristic,
    /// Extracted by a language model.
    Llm,
}

/// A tool's analysed metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolAnalysis {
    /// Kinds of tool, e.g. `code_graph`, `filesystem`, `memory`, `time`.
    pub categories: Vec<String>,
    /// What it does to what it touches.
    pub capabilities: Vec<Capability>,
    /// Languages or areas it is best at (`python`, `code`, `general`, …).
    pub domains: Vec<String>,
    /// How well it suits each kind of agent work, 0–100.
    pub shard_affinities: BTreeMap<String, u8>,
    /// The one line shown in the condensed tier.
    pub condensed: String,
    /// Who produced this analysis.
    pub source: AnalysisSource,
}

/// Produces a tool's metadata. The heuristic one never fails; a language-model one (the chat
/// side's) may, and the store then keeps serving heuristic metadata.
pub trait Analyzer {
    /// The error of a failed analysis.
    type Error: std::error::Error;

    /// Analyses one tool.
    fn analyze(&self, tool: &ToolInfo) -> Result<ToolAnalysis, Self::Error>;
}

/// Analysis from words alone: keyword tables over the name, description and schema property
/// names. Instant and deterministic; the fallback until a better analysis lands.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicAnalyzer;

/// Category → words that suggest it (stemmed, as [`words`] yields them).
const CATEGORY_WORDS: &[(&str, &[&str])] = &[
    (
        "code_graph",
        &[
            "symbol",
            "caller",
            "callee",
            "cypher",
            "cluster",
            "codebase",
            "impact",
            "graph",
            "call",
            "hotspot",
            "process",
            "flow",
            "node",
            "signature",
        ],
    ),
    (
        "code_search",
        &[
            "search", "grep", "regex", "find", "match", "similar", "rank", "query",
        ],
    ),
    (
        "filesystem",
        &["file", "directory", "folder", "path", "glob", "dir", "tree"],
    ),
    (
        "memory",
        &[
            "entity",
            "observation",
            "relation",
            "knowledge",
            "memory",
            "remember",
        ],
    ),
    (
        "time",
        &["time", "timezone", "date", "clock", "utc", "zone"],
    ),
    ("math", &["sum", "add", "number", "calculate", "arithmetic"]),
    ("web", &["url", "http", "fetch", "web", "browser", "link"]),
    ("media", &["image", "audio", "video", "media", "picture"]),
    (
        "diagnostics",
        &[
            "echo",
            "env",
            "environment",
            "logging",
            "log",
            "simulate",
            "simulated",
            "notification",
            "subscriber",
            "test",
            "debug",
            "annotation",
            "annotated",
        ],
    ),
    (
        "review",
        &["review", "diff", "change", "modified", "risk", "test"],
    ),
];

/// Capability → words that suggest it.
const CAPABILITY_WORDS: &[(Capability, &[&str])] = &[
    (
        Capability::Read,
        &[
            "read", "get", "list", "show", "view", "open", "summary", "explore", "overview",
            "describe", "info", "content", "return", "retrieve", "card", "source",
        ],
    ),
    (
        Capability::Write,
        &[
            "write",
            "create",
            "edit",
            "delete",
            "move",
            "add",
            "update",
            "set",
            "toggle",
            "remove",
            "rename",
            "highlight",
            "overwrite",
            "insert",
        ],
    ),
    (
        Capability::Search,
        &[
            "search", "find", "grep", "query", "match", "lookup", "similar", "regex", "ranked",
        ],
    ),
    (
        Capability::Transform,
        &[
            "convert",
            "transform",
            "gzip",
            "compress",
            "format",
            "sum",
            "echo",
            "encode",
            "plan",
            "trace",
        ],
    ),
];

/// Languages a description may name.
const LANGUAGES: &[&str] = &[
    "python",
    "rust",
    "go",
    "javascript",
    "typescript",
    "java",
    "tsx",
    "cpp",
    "csharp",
    "php",
    "ruby",
    "swift",
    "kotlin",
    "zig",
    "dart",
    "elixir",
    "scala",
    "lua",
    "bash",
];

/// Words that make a tool about code rather than general.
const CODE_WORDS: &[&str] = &[
    "code",
    "codebase",
    "symbol",
    "repository",
    "caller",
    "callee",
    "cypher",
    "graph",
];

/// Longest condensed line, in characters.
pub const CONDENSED_MAX_CHARS: usize = 120;

impl Analyzer for HeuristicAnalyzer {
    type Error = std::convert::Infallible;

    fn analyze(&self, tool: &ToolInfo) -> Result<ToolAnalysis, Self::Error> {
        Ok(heuristic(tool))
    }
}

/// The heuristic analysis of `tool` (infallible, so callers need no error path).
pub fn heuristic(tool: &ToolInfo) -> ToolAnalysis {
    let name_words: BTreeSet<String> = terms(&tool.name).into_iter().collect();
    let mut all: BTreeSet<String> = name_words.clone();
    all.extend(terms(&tool.description));
    if let Some(Value::Object(props)) = tool.input_schema.get("properties") {
        for key in props.keys() {
            all.extend(terms(key));
        }
    }
    let has = |set: &BTreeSet<String>, list: &[&str]| list.iter().any(|w| set.contains(*w));

    let mut categories: Vec<String> = CATEGORY_WORDS
        .iter()
        .filter(|(_, list)| has(&all, list))
        .map(|(c, _)| c.to_string())
        .collect();
    if categories.is_empty() {
        categories.push("general".into());
    }
    // The name says what a tool does; the description may only mention other things.
    let mut capabilities: Vec<Capability> = CAPABILITY_WORDS
        .iter()
        .filter(|(_, list)| has(&name_words, list))
        .map(|(c, _)| *c)
        .collect();
    if capabilities.is_empty() {
        capabilities = CAPABILITY_WORDS
            .iter()
            .filter(|(_, list)| has(&all, list))
            .map(|(c, _)| *c)
            .collect();
    }
    if capabilities.is_empty() {
        capabilities.push(Capability::Read);
    }

    let mut domains: Vec<String> = LANGUAGES
        .iter()
        .filter(|l| all.contains(**l))
        .map(|l| l.to_string())
        .collect();
    if has(&all, CODE_WORDS) || tool.server == "nexus" {
        domains.push("code".into());
    }
    if domains.is_empty() {
        domains.push("general".into());
    }

    let writes = capabilities.contains(&Capability::Write);
    let reads =
        capabilities.contains(&Capability::Read) || capabilities.contains(&Capability::Search);
    let code = domains.iter().any(|d| d != "general");
    let mut shard_affinities = BTreeMap::new();
    shard_affinities.insert(
        "coder".into(),
        if writes && code {
            80
        } else if code {
            60
        } else {
            30
        },
    );
    shard_affinities.insert("researcher".into(), if reads { 80 } else { 30 });
    shard_affinities.insert("reviewer".into(), if code && reads { 70 } else { 20 });
    shard_affinities.insert("tester".into(), if all.contains("test") { 80 } else { 20 });

    ToolAnalysis {
        categories,
        capabilities,
        domains,
        shard_affinities,
        condensed: condense(&tool.name, &tool.description),
        source: AnalysisSource::Heuristic,
    }
}

/// The words a tool is about: its name's, its description's (verbs and nouns: stop words and
/// words under three letters dropped, each as written and stemmed) and its schema property
/// names'. The compiler keeps those few tools share, so a question that uses one points here.
pub fn keywords(tool: &ToolInfo) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = BTreeSet::new();
    out.extend(terms(&tool.name));
    out.extend(terms(&tool.description));
    if let Some(Value::Object(props)) = tool.input_schema.get("properties") {
        for key in props.keys() {
            out.extend(terms(key));
        }
    }
    out.retain(|w| w.len() >= 3);
    out
}

/// The first sentence of `description`, cut at a word within [`CONDENSED_MAX_CHARS`]; the
/// name's words when there is no description.
pub fn condense(name: &str, description: &str) -> String {
    let flat: String = description.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.is_empty() {
        return words(name).join(" ");
    }
    let sentence = match flat.find(". ") {
        Some(end) => &flat[..=end],
        None => flat.as_str(),
    };
    if sentence.chars().count() <= CONDENSED_MAX_CHARS {
        return sentence.to_string();
    }
    let mut out = String::new();
    for word in sentence.split(' ') {
        if out.chars().count() + word.chars().count() + 2 > CONDENSED_MAX_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_come_from_the_name_the_description_and_the_schema() {
        let tool = ToolInfo {
            server: "fs".into(),
            name: "get_file_info".into(),
            description: "Retrieve metadata: size and last modified time of a file.".into(),
            input_schema: match serde_json::json!({"properties": {"followLinks": {}}}) {
                Value::Object(m) => m,
                _ => serde_json::Map::new(),
            },
            status: crate::ServerStatus::Online,
        };
        let k = keywords(&tool);
        for w in [
            "info", "metadata", "size", "modify", "modified", "follow", "link",
        ] {
            assert!(k.contains(w), "{w} missing from {k:?}");
        }
        assert!(!k.contains("of") && !k.contains("and"));
    }
    use serde_json::json;

    fn tool(server: &str, name: &str, description: &str, schema: Value) -> ToolInfo {
        ToolInfo {
            server: server.into(),
            name: name.into(),
            description: description.into(),
            input_schema: match schema {
                Value::Object(m) => m,
                _ => serde_json::Map::new(),
            },
            status: Default::default(),
        }
    }

    #[test]
    fn a_filesystem_writer_is_seen_as_one() {
        let a = heuristic(&tool(
            "fs",
            "write_file",
            "Create a new file or completely overwrite an existing file with new content.",
            json!({"properties": {"path": {"type": "string"}, "content": {"type": "string"}}}),
        ));
        assert!(a.categories.contains(&"filesystem".to_string()));
        assert_eq!(a.capabilities, [Capability::Write]);
        assert_eq!(a.domains, ["general"]);
        assert_eq!(a.source, AnalysisSource::Heuristic);
    }

    #[test]
    fn nexus_tools_are_about_code() {
        for t in ToolInfo::nexus_catalog() {
            let a = heuristic(&t);
            assert!(a.domains.contains(&"code".to_string()), "{}", t.name);
            assert!(!a.condensed.is_empty());
            assert!(a.condensed.chars().count() <= CONDENSED_MAX_CHARS + 1);
        }
    }

    #[test]
    fn condensed_is_the_first_sentence_or_a_cut() {
        assert_eq!(condense("x", "Reads a file. Then more."), "Reads a file.");
        assert_eq!(condense("get_sum", ""), "get sum");
        let long = "word ".repeat(60);
        let c = condense("x", &long);
        assert!(c.ends_with('…') && c.chars().count() <= CONDENSED_MAX_CHARS + 1);
    }

    #[test]
    fn capabilities_serialise_by_the_spec_names() {
        assert_eq!(
            serde_json::to_string(&Capability::Search).ok().as_deref(),
            Some("\"/search\"")
        );
        assert_eq!(Capability::Transform.as_str(), "/transform");
    }
}
