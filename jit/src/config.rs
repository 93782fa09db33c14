//! The `tool_selection` config section: tier thresholds, score weights, the full-tier cap,
//! the token budget (the spec's keys and defaults), the skeleton tools and a rules file.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How tools are chosen and rendered per turn. Every key has the spec's default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolSelection {
    /// Score at and above which a tool is rendered in full (description, schema, example).
    pub full_threshold: u8,
    /// Score at and above which a tool is rendered condensed (name and one line).
    pub condensed_threshold: u8,
    /// Score at and above which a tool is rendered by name only; below it is excluded.
    pub minimal_threshold: u8,
    /// Weight of the rules' score.
    pub logic_weight: f32,
    /// Weight of the similarity score.
    pub vector_weight: f32,
    /// Most flesh tools in full form; the rest of the full tier is condensed.
    pub max_full_tools: usize,
    /// Most tokens the rendered tools may take; lowest scores are dropped first.
    pub token_budget: usize,
    /// Tools always rendered in full, as `server:name`.
    pub skeleton_tools: Vec<String>,
    /// A rules file that replaces the shipped `default.rules`.
    pub rules_file: Option<PathBuf>,
    /// The best matches of the question by words and meaning (BM25 and similarity) shown at
    /// least condensed, whatever the rules say (at most a quarter of the registry).
    pub retrieval_condensed: usize,
    /// Most tools of one server among those best matches.
    pub retrieval_per_server: usize,
    /// Offer the model the `find_tools` search (its entry counts in the budget).
    pub tool_search: bool,
}

impl Default for ToolSelection {
    fn default() -> Self {
        ToolSelection {
            full_threshold: 70,
            condensed_threshold: 40,
            minimal_threshold: 20,
            logic_weight: 0.7,
            vector_weight: 0.3,
            max_full_tools: 10,
            token_budget: 4000,
            skeleton_tools: ["nexus:route", "nexus:read", "nexus:grep"]
                .map(String::from)
                .to_vec(),
            rules_file: None,
            retrieval_condensed: 60,
            retrieval_per_server: 3,
            tool_search: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_example_section_reads_with_defaults_for_the_rest() {
        let text = r#"{"full_threshold": 70, "condensed_threshold": 40, "minimal_threshold": 20,
            "logic_weight": 0.7, "vector_weight": 0.3, "max_full_tools": 10, "token_budget": 4000}"#;
        let parsed: Result<ToolSelection, _> = serde_json::from_str(text);
        assert_eq!(parsed.ok(), Some(ToolSelection::default()));
        let partial: Result<ToolSelection, _> = serde_json::from_str(r#"{"token_budget": 900}"#);
        assert_eq!(
            partial.ok().map(|c| (c.token_budget, c.max_full_tools)),
            Some((900, 10))
        );
        assert!(serde_json::from_str::<ToolSelection>(r#"{"budget": 1}"#).is_err());
    }
}
