//! The `tool_selection` config section: tier thresholds, score weights, the full-tier cap, the
//! token budget (the spec's keys and defaults) and the registry's share, skeleton, rules file.

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
    /// Most tokens the rendered tools may take (unless the registry's share is more); lowest
    /// scores are dropped first.
    pub token_budget: usize,
    /// Share of the registry's tokens with every tool in full that a turn spends: tools left
    /// below the condensed tier are shown condensed, best ranked first, until the turn's tokens
    /// reach it (at most `budget_cap`); the token budget is the larger of this and `token_budget`.
    pub budget_share: f32,
    /// Most tokens the share gives a turn, however large the registry.
    pub budget_cap: usize,
    /// The share's condensed entries go in rounds, each allowing this many (at least one) more
    /// tools of one server, so one server's look-alike tools wait until every server showed its best.
    pub fill_per_server: usize,
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
            budget_share: 0.16,
            budget_cap: 8000,
            fill_per_server: 2,
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

impl ToolSelection {
    /// The tokens a turn spends on a registry of `all_full` tokens with every tool in full:
    /// `budget_share` of them (clamped to 0–1; not a number counts as none), at most `budget_cap`.
    pub fn registry_budget(&self, all_full: usize) -> usize {
        let share = if self.budget_share.is_finite() {
            self.budget_share.clamp(0.0, 1.0)
        } else {
            0.0
        };
        ((all_full as f64 * f64::from(share)) as usize).min(self.budget_cap)
    }

    /// The most tokens a turn may render on that registry: `token_budget` or the registry's
    /// budget, the larger.
    pub fn turn_budget(&self, all_full: usize) -> usize {
        self.token_budget.max(self.registry_budget(all_full))
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

    #[test]
    fn the_budget_follows_the_registry_between_the_floor_and_the_cap() {
        let c = ToolSelection {
            token_budget: 4000,
            budget_share: 0.1,
            budget_cap: 9000,
            ..Default::default()
        };
        assert_eq!((c.registry_budget(7000), c.turn_budget(7000)), (700, 4000));
        assert_eq!(
            (c.registry_budget(60_000), c.turn_budget(60_000)),
            (6000, 6000)
        );
        assert_eq!(c.turn_budget(1_000_000), 9000);
        for share in [f32::NAN, -1.0] {
            let odd = ToolSelection {
                budget_share: share,
                ..c.clone()
            };
            assert_eq!(odd.turn_budget(1_000_000), 4000);
        }
    }
}
