//! Typed parameters of every tool: the one source of truth for input schemas, handlers and the router.
//! Unknown fields are rejected, so a misspelled parameter is an error instead of being ignored.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How much detail a result carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verbosity {
    Summary,
    #[default]
    Standard,
    Full,
}

/// Output format: compact Markdown for agents, JSON text for programs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    #[default]
    Markdown,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextFocus {
    Stats,
    Hotspots,
    Structure,
    Schema,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExploreKind {
    #[default]
    Symbol,
    Cluster,
    Process,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    Upstream,
    Downstream,
}

/// How `search` ranks: by words (BM25), by meaning (embeddings), or both fused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    Keyword,
    Semantic,
    Hybrid,
}

/// The least severe tier `impact` lists: `will_break` (depth 1), `likely_affected` (up to depth
/// 2) or `may_need_testing` (every depth).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    WillBreak,
    LikelyAffected,
    #[default]
    MayNeedTesting,
}

impl Severity {
    /// The deepest dependents of this tier.
    pub fn max_depth(self) -> u32 {
        match self {
            Severity::WillBreak => 1,
            Severity::LikelyAffected => 2,
            Severity::MayNeedTesting => u32::MAX,
        }
    }
}

/// What happened to a file or symbol, for `diff`'s `change_types`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeType {
    Added,
    Modified,
    Deleted,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RouteMode {
    #[default]
    Execute,
    Plan,
}

fn yes() -> bool {
    true
}
fn limit_5() -> u32 {
    5
}
fn limit_50() -> u32 {
    50
}
fn depth_1() -> u32 {
    1
}
fn depth_2() -> u32 {
    2
}
fn depth_3() -> u32 {
    3
}
fn steps_10() -> u32 {
    10
}
/// Edges followed by default: resolved through scopes, imports or types (≥ 0.8) and names unique
/// project-wide (0.5); the accuracy benchmark measures this band at ≥ 0.995 precision. Ambiguous
/// candidates (0.3, 0.4) are left out unless asked for.
pub const FOLLOWED_CONFIDENCE: f64 = 0.5;

fn followed_confidence() -> f64 {
    FOLLOWED_CONFIDENCE
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextParams {
    pub focus: Option<ContextFocus>,
    pub format: Option<Format>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    pub query: String,
    /// Default: hybrid with embeddings, else keyword.
    pub mode: Option<SearchMode>,
    /// e.g. Function, Class, File.
    pub kind: Option<String>,
    /// Only hits under this path prefix.
    pub path: Option<String>,
    #[schemars(range(max = 100))]
    pub limit: Option<u32>,
    #[serde(default)]
    pub offset: u32,
    #[serde(default = "yes")]
    pub group_by_process: bool,
    pub verbosity: Option<Verbosity>,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
    pub session: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CypherParams {
    pub query: String,
    pub params: Option<serde_json::Map<String, serde_json::Value>>,
    pub limit: Option<u32>,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepParams {
    /// Regular expression.
    pub pattern: String,
    /// Glob on paths, e.g. **/*.py.
    pub file_pattern: Option<String>,
    #[serde(default)]
    pub case_sensitive: bool,
    #[serde(default)]
    #[schemars(range(max = 5))]
    pub context_lines: u32,
    #[serde(default = "limit_50")]
    pub limit: u32,
    #[serde(default)]
    pub offset: u32,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadParams {
    /// Relative to the repository root, or a session's alias (f3).
    pub path: String,
    pub start_line: Option<u32>,
    pub end_line: Option<u32>,
    #[serde(default)]
    pub include_deps: bool,
    /// 0: paths; 1: with definitions.
    #[serde(default = "depth_1")]
    #[schemars(range(max = 1))]
    pub max_depth: u32,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
    pub session: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExploreParams {
    pub name: Option<String>,
    pub id: Option<String>,
    #[serde(default, rename = "type")]
    pub kind: ExploreKind,
    pub limit: Option<u32>,
    pub verbosity: Option<Verbosity>,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
    pub session: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OverviewParams {
    #[serde(default = "yes")]
    pub show_clusters: bool,
    #[serde(default = "yes")]
    pub show_processes: bool,
    pub limit: Option<u32>,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpactParams {
    /// Symbol name or id.
    pub target: String,
    /// upstream: what breaks (callers, importers); downstream: dependencies.
    #[serde(default)]
    pub direction: Direction,
    #[serde(default = "depth_3")]
    pub max_depth: u32,
    /// e.g. CALLS, IMPORTS.
    pub relation_types: Option<Vec<String>>,
    #[serde(default = "followed_confidence")]
    pub min_confidence: f64,
    #[serde(default)]
    pub include_tests: bool,
    pub stop_at_kinds: Option<Vec<String>>,
    pub exclude_kinds: Option<Vec<String>>,
    pub limit: Option<u32>,
    #[serde(default)]
    pub offset: u32,
    #[serde(default)]
    pub summary_only: bool,
    pub severity_threshold: Option<Severity>,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
    pub session: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindUsagesParams {
    pub target: String,
    /// Any of call import type inherit value read write.
    pub kinds: Option<Vec<String>>,
    #[serde(default = "followed_confidence")]
    pub min_confidence: f64,
    pub limit: Option<u32>,
    #[serde(default)]
    pub offset: u32,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
    pub session: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HighlightParams {
    pub ids: Vec<String>,
    /// CSS colour.
    pub color: Option<String>,
    pub format: Option<Format>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffParams {
    /// Git commit, e.g. HEAD.
    pub base: Option<String>,
    /// Caller depth (with base).
    #[schemars(range(max = 3))]
    pub depth: Option<u32>,
    pub change_types: Option<Vec<ChangeType>>,
    pub limit: Option<u32>,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeepDiveParams {
    /// Symbol name or id.
    pub name: String,
    pub verbosity: Option<Verbosity>,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
    pub session: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewFileParams {
    pub path: String,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceFlowParams {
    pub from: String,
    pub to: Option<String>,
    #[serde(default = "steps_10")]
    pub max_steps: u32,
    #[serde(default = "followed_confidence")]
    pub min_confidence: f64,
    /// Default CALLS.
    pub relation_types: Option<Vec<String>>,
    pub exclude_kinds: Option<Vec<String>>,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindSimilarParams {
    pub name: String,
    #[serde(default = "limit_5")]
    pub limit: u32,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestImpactParams {
    pub changed_files: Vec<String>,
    #[serde(default = "depth_2")]
    pub max_depth: u32,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteParams {
    /// The question in plain words.
    pub query: String,
    #[serde(default)]
    pub mode: RouteMode,
    pub max_tokens: Option<u32>,
    pub format: Option<Format>,
    pub session: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_fill_missing_fields() {
        let p: ImpactParams = serde_json::from_value(json!({"target": "f"})).unwrap();
        assert_eq!(p.direction, Direction::Upstream);
        assert_eq!(p.max_depth, 3);
        assert!((p.min_confidence - FOLLOWED_CONFIDENCE).abs() < 1e-6);
        let s: SearchParams = serde_json::from_value(json!({"query": "q"})).unwrap();
        assert_eq!((s.limit, s.offset, s.group_by_process), (None, 0, true));
    }

    #[test]
    fn unknown_fields_are_rejected_by_name() {
        let err = serde_json::from_value::<SearchParams>(json!({"query": "q", "limt": 3}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("limt"), "{err}");
    }

    #[test]
    fn explore_takes_type_on_the_wire() {
        let p: ExploreParams =
            serde_json::from_value(json!({"name": "x", "type": "process"})).unwrap();
        assert_eq!(p.kind, ExploreKind::Process);
    }
}
