//! Agent activity: every MCP call this tab answered (agent, tool, short arguments, duration,
//! ok or error), the nodes agents touched or highlighted, lit in the graph at once.

use leptos::prelude::*;
use serde_json::Value;

use super::details::short_id;
use super::state::{AppState, use_app};

/// Rows kept in the feed.
const ACTIVITY_ROWS: usize = 100;
/// Shown arguments are cut to this many characters.
const ARGS_CHARS: usize = 90;
/// Colour of nodes an agent's call was about.
pub const TOUCHED_COLOR: &str = "#38bdf8";

/// One answered agent call.
#[derive(Debug, Clone, PartialEq)]
pub struct ActivityRow {
    pub seq: u64,
    /// Filled in when the hub's activity report arrives.
    pub agent: Option<String>,
    pub tool: String,
    pub args: String,
    pub ms: f64,
    pub ok: bool,
}

/// The arguments as one short line.
pub fn short_args(args: &Value) -> String {
    let text = match args {
        Value::Object(map) if map.is_empty() => String::new(),
        other => other.to_string(),
    };
    if text.chars().count() <= ARGS_CHARS {
        return text;
    }
    let cut: String = text.chars().take(ARGS_CHARS - 1).collect();
    format!("{cut}…")
}

/// Names of nodes in a call's arguments: the values of the keys tools take symbols by.
pub fn named_in_args(args: &Value) -> Vec<String> {
    const KEYS: [&str; 7] = ["target", "name", "id", "ids", "from", "to", "symbol"];
    let mut out = Vec::new();
    for key in KEYS {
        match &args[key] {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => {
                out.extend(items.iter().filter_map(|v| v.as_str().map(str::to_owned)))
            }
            _ => {}
        }
    }
    out
}

/// Lights the drawn nodes an agent's arguments name (by stable id, or by a name only one node has).
pub fn light_touched(app: &AppState, args: &Value, color: &str) {
    let names = named_in_args(args);
    if names.is_empty() {
        return;
    }
    let found: Vec<u32> = app.picture.with_untracked(|p| {
        let Some(p) = p.as_ref() else {
            return Vec::new();
        };
        names.iter().filter_map(|name| p.find_named(name)).collect()
    });
    app.light(found, color);
}

/// Attaches a hub activity report's agent to the newest matching row without one.
pub fn attach_agent(rows: &mut [ActivityRow], agent: &str, tool: &str) -> bool {
    match rows
        .iter_mut()
        .find(|r| r.agent.is_none() && r.tool == tool)
    {
        Some(row) => {
            row.agent = Some(agent.to_owned());
            true
        }
        None => false,
    }
}

pub fn push_row(rows: &mut Vec<ActivityRow>, row: ActivityRow) {
    rows.insert(0, row);
    rows.truncate(ACTIVITY_ROWS);
}

#[component]
pub fn Activity(
    rows: RwSignal<Vec<ActivityRow>>,
    highlights: RwSignal<Vec<(String, String)>>,
) -> impl IntoView {
    let app = use_app();
    view! {
        <div data-testid="activity">
            <Show
                when=move || !rows.with(Vec::is_empty)
                fallback=|| view! { <p class="muted empty">"No agent calls yet. Connect an MCP client (see Connect) and ask it about this code."</p> }
            >
                <ul class="activity">
                    <For each=move || rows.get() key=|row| (row.seq, row.agent.clone()) let:row>
                        <li class:error=!row.ok data-testid="activity-row">
                            <span class="tool">{row.tool}</span>
                            " · " {row.agent.unwrap_or_else(|| "agent".into())}
                            " · " {format!("{:.0} ms", row.ms)}
                            " · " {if row.ok { "ok" } else { "error" }}
                            <div class="muted args">{row.args}</div>
                        </li>
                    </For>
                </ul>
            </Show>
            <div data-testid="highlights" class:hidden=move || highlights.with(Vec::is_empty)>
                <h4>"Highlighted by agents"</h4>
                <ul class="highlights">
                    <For each=move || highlights.get() key=|row| row.clone() let:row>
                        <li>
                            <span class="swatch" style=format!("background:{}", row.1)></span>
                            <a class="symbol" on:click={ let id = row.0.clone(); move |_| { app.select_id(&id); } }>{short_id(&row.0).to_owned()}</a>
                        </li>
                    </For>
                </ul>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_arguments_are_cut() {
        assert_eq!(short_args(&json!({})), "");
        assert_eq!(short_args(&json!({"q": "x"})), "{\"q\":\"x\"}");
        let long = short_args(&json!({"q": "x".repeat(500)}));
        assert_eq!(long.chars().count(), ARGS_CHARS);
        assert!(long.ends_with('…'));
    }

    #[test]
    fn symbol_arguments_are_found() {
        let names =
            named_in_args(&json!({"target": "Cart.add", "ids": ["a", 3, "b"], "query": "x"}));
        assert_eq!(names, ["Cart.add", "a", "b"]);
    }

    #[test]
    fn agents_attach_to_the_newest_row_of_their_tool() {
        let row = |seq, tool: &str| ActivityRow {
            seq,
            agent: None,
            tool: tool.into(),
            args: String::new(),
            ms: 1.0,
            ok: true,
        };
        let mut rows = Vec::new();
        push_row(&mut rows, row(1, "search"));
        push_row(&mut rows, row(2, "impact"));
        push_row(&mut rows, row(3, "search"));
        assert!(attach_agent(&mut rows, "claude", "search"));
        assert_eq!(rows[0].agent.as_deref(), Some("claude"));
        assert_eq!(rows[2].agent, None);
        assert!(!attach_agent(&mut rows, "x", "cypher"));
    }
}
