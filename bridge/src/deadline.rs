//! The two deadline classes of tool calls: quick ones, and the graph walks, queries and plans
//! that get the longer deadline. Options name them; the relay applies them.

use std::time::Duration;

use nexus_shared::ToolName;

/// The two deadline classes of tools.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    pub quick: Duration,
    pub heavy: Duration,
}

impl Deadlines {
    pub fn of(&self, tool: ToolName) -> Duration {
        if is_heavy(tool) {
            self.heavy
        } else {
            self.quick
        }
    }
}

/// Tools that walk much of the graph, run queries or plans: they get the longer deadline.
pub fn is_heavy(tool: ToolName) -> bool {
    matches!(
        tool,
        ToolName::Impact
            | ToolName::DeepDive
            | ToolName::TestImpact
            | ToolName::TraceFlow
            | ToolName::Route
            | ToolName::FindSimilar
            | ToolName::Cypher
            | ToolName::Grep
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heavy_tools_are_the_graph_walks_queries_and_plans() {
        let heavy: Vec<&str> = ToolName::ALL
            .iter()
            .filter(|t| is_heavy(**t))
            .map(|t| t.as_str())
            .collect();
        assert_eq!(
            heavy,
            [
                "cypher",
                "grep",
                "impact",
                "deep_dive",
                "trace_flow",
                "find_similar",
                "test_impact",
                "route"
            ]
        );
        let d = Deadlines {
            quick: Duration::from_secs(1),
            heavy: Duration::from_secs(9),
        };
        assert_eq!(d.of(ToolName::Context), Duration::from_secs(1));
        assert_eq!(d.of(ToolName::Impact), Duration::from_secs(9));
    }
}
