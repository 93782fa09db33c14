//! `highlight`: marks nodes (stable ids or unique names) in the open UI, in a colour, and says
//! which it marked and which it could not find.

use nexus_shared::params::{Format, HighlightParams};
use nexus_shared::{ErrorCode, ToolError};
use serde_json::json;

use super::ToolContext;
use super::target;

/// Ids in one call; more is an error (a highlight of thousands of nodes shows nothing).
const MAX_IDS: usize = 500;
const DEFAULT_COLOR: &str = "#f5a623";

/// What the UI must light up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Highlight {
    /// Stable ids.
    pub ids: Vec<String>,
    /// A CSS colour (`#rrggbb` or a colour name).
    pub color: String,
}

/// A CSS colour the UI can use safely: `#rgb`, `#rrggbb`, `#rrggbbaa` or a plain colour name.
fn valid_color(color: &str) -> bool {
    match color.strip_prefix('#') {
        Some(hex) => matches!(hex.len(), 3 | 6 | 8) && hex.chars().all(|c| c.is_ascii_hexdigit()),
        None => (3..=20).contains(&color.len()) && color.chars().all(|c| c.is_ascii_alphabetic()),
    }
}

pub fn run(ctx: &ToolContext, p: &HighlightParams) -> Result<(String, Highlight), ToolError> {
    if p.ids.is_empty() {
        return Err(
            ToolError::new(ErrorCode::InvalidParams, "`ids` is empty").with_hint(
                "pass stable ids from other tools, e.g. [\"Function:shop/pay.py:charge\"]",
            ),
        );
    }
    if p.ids.len() > MAX_IDS {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("{} ids; at most {MAX_IDS} per call", p.ids.len()),
        )
        .with_hint("highlight the most relevant nodes, or their cluster"));
    }
    let color = p.color.as_deref().map(str::trim).unwrap_or(DEFAULT_COLOR);
    if !valid_color(color) {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("`{color}` is not a colour Nexus accepts"),
        )
        .with_hint("use #rgb, #rrggbb, #rrggbbaa or a colour name such as red"));
    }
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for wanted in &p.ids {
        let node = match ctx.graph.find_id(wanted.trim()) {
            Some(id) => ctx.graph.node(id).ok_or_else(|| {
                ToolError::new(ErrorCode::Internal, format!("`{wanted}` has no node"))
            }),
            None => target::resolve(ctx, wanted),
        };
        match node {
            Ok(node) => {
                let id = node.stable_id();
                if !found.iter().any(|(f, _)| f == &id) {
                    found.push((id, node.location()));
                }
            }
            Err(err) => missing.push((wanted.clone(), err.message)),
        }
    }
    let highlight = Highlight {
        ids: found.iter().map(|(id, _)| id.clone()).collect(),
        color: color.to_owned(),
    };
    let text = if p.format == Some(Format::Json) {
        json!({
            "highlighted": highlight.ids, "color": color,
            "not_found": missing.iter().map(|(id, why)| json!({"id": id, "error": why})).collect::<Vec<_>>(),
        })
        .to_string()
    } else {
        let mut text = format!(
            "Highlighted {} node{} in {color} in the open Nexus UI.\n",
            found.len(),
            if found.len() == 1 { "" } else { "s" }
        );
        for (id, at) in &found {
            text.push_str(&format!("- `{id}` — {at}\n"));
        }
        for (id, why) in &missing {
            text.push_str(&format!("- not highlighted `{id}`: {why}\n"));
        }
        text
    };
    Ok((text, highlight))
}

#[cfg(test)]
mod tests {
    use super::valid_color;

    #[test]
    fn colours_are_checked() {
        for ok in ["#fff", "#00ff00", "#00ff0080", "red", "rebeccapurple"] {
            assert!(valid_color(ok), "{ok}");
        }
        for bad in ["#ff", "#gggggg", "red;background:url(x)", "", "r", "#"] {
            assert!(!valid_color(bad), "{bad}");
        }
    }
}
