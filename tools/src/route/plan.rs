//! The plan a question becomes: steps (tool, arguments, the steps they depend on, why, which
//! words matched which symbols), rendered as Markdown or JSON for `mode: plan`.

use nexus_shared::params::Format;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::symbols::{MatchHow, SymbolMatch};
use crate::ToolContext;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub query: String,
    pub steps: Vec<Step>,
}

/// One tool call of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub tool: String,
    pub args: Map<String, Value>,
    /// Steps whose results this one reads (through `$result[N].field` arguments).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<usize>,
    pub why: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<Matched>,
}

/// Words of the question and the symbol they were taken for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matched {
    pub words: String,
    /// Stable id of the symbol used.
    pub symbol: String,
    pub how: MatchHow,
    /// Stable ids of other symbols the words could mean.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<String>,
}

impl Matched {
    pub fn of(ctx: &ToolContext, m: &SymbolMatch) -> Matched {
        let id = |n: u32| ctx.graph.node(n).map(|x| x.stable_id()).unwrap_or_default();
        Matched {
            words: m.written.clone(),
            symbol: id(m.node),
            how: m.how,
            others: m.others.iter().map(|&n| id(n)).collect(),
        }
    }
}

impl MatchHow {
    fn words(self) -> String {
        match self {
            MatchHow::Id => "stable id".into(),
            MatchHow::Qualified => "qualified name".into(),
            MatchHow::Exact => "exact name".into(),
            MatchHow::CaseInsensitive => "name, other case".into(),
            MatchHow::SnakeCamel => "name, ignoring case and _".into(),
            MatchHow::Edits(1) => "1 edit away".into(),
            MatchHow::Edits(n) => format!("{n} edits away"),
        }
    }
}

impl Step {
    /// `tool {"arg":…}`, as the heading of the step.
    pub fn call_line(&self) -> String {
        format!("{} {}", self.tool, Value::Object(self.args.clone()))
    }
}

impl Plan {
    pub fn render(&self, format: Format) -> String {
        if format == Format::Json {
            return json!({"query": self.query, "steps": self.steps}).to_string();
        }
        let mut out = format!(
            "# route plan — {} step{} for \"{}\"\n",
            self.steps.len(),
            if self.steps.len() == 1 { "" } else { "s" },
            self.query
        );
        for (i, step) in self.steps.iter().enumerate() {
            out.push_str(&format!("## step {i} · {}\n", step.call_line()));
            if !step.depends_on.is_empty() {
                let list: Vec<String> = step.depends_on.iter().map(|d| d.to_string()).collect();
                out.push_str(&format!("depends on step {}\n", list.join(", ")));
            }
            out.push_str(&format!("why: {}\n", step.why));
            for m in &step.matched {
                out.push_str(&format!(
                    "matched: \"{}\" → `{}` ({})",
                    m.words,
                    m.symbol,
                    m.how.words()
                ));
                if !m.others.is_empty() {
                    let others: Vec<String> = m.others.iter().map(|o| format!("`{o}`")).collect();
                    out.push_str(&format!("; also: {}", others.join(", ")));
                }
                out.push('\n');
            }
        }
        out.push_str("Run it with mode=execute, or call the tools yourself.\n");
        out
    }
}
