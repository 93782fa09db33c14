//! The Cypher console (examples, a result table, errors inline) and the ask box (a question in
//! plain words → the router's answer as Markdown, its plan and results). Ids select their nodes.

use leptos::prelude::*;
use nexus_shared::Outcome;
use serde_json::{Value, json};

use super::details::short_id;
use super::markdown::Markdown;
use super::state::{ids_in, use_app};

/// Example queries offered in the console.
const EXAMPLES: [(&str, &str); 5] = [
    (
        "Most-called functions",
        "MATCH (a)-[:CALLS]->(b:Function) RETURN b.name AS name, b.id AS id, count(*) AS callers ORDER BY callers DESC LIMIT 20",
    ),
    (
        "Classes and their parents",
        "MATCH (c:Class)-[:EXTENDS]->(p) RETURN c.id AS id, p.name AS parent LIMIT 50",
    ),
    (
        "Low-confidence calls",
        "MATCH (a)-[r:CALLS]->(b) WHERE r.confidence < 0.5 RETURN a.id AS id, b.name AS callee, r.confidence AS confidence LIMIT 50",
    ),
    (
        "Two-hop callers of a name",
        "MATCH (a)-[:CALLS*1..2]->(b) WHERE b.name = 'save' RETURN DISTINCT a.id AS id LIMIT 50",
    ),
    (
        "Files with the most symbols",
        "MATCH (f:File)-[:DEFINES]->(s) RETURN f.id AS id, count(s) AS symbols ORDER BY symbols DESC LIMIT 20",
    ),
];

/// A table from a `cypher` JSON answer: column names and rows of cell texts.
fn table(answer: &Value) -> (Vec<String>, Vec<Vec<Value>>) {
    let columns = answer["columns"]
        .as_array()
        .map(|c| {
            c.iter()
                .map(|x| x.as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default();
    let rows = answer["rows"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|row| row.as_array().cloned().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    (columns, rows)
}

fn cell_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        Value::Number(n) => n
            .as_f64()
            .filter(|f| f.fract() != 0.0)
            .map_or_else(|| n.to_string(), |f| format!("{f:.3}")),
        other => other.to_string(),
    }
}

#[component]
pub fn CypherConsole() -> impl IntoView {
    let app = use_app();
    let query = RwSignal::new(EXAMPLES[0].1.to_owned());
    let result = RwSignal::new(None::<Result<Value, String>>);
    let run = move || {
        result.set(None);
        app.call_json(
            "cypher",
            json!({"query": query.get_untracked(), "limit": 200}),
            move |r| result.set(Some(r)),
        );
    };
    view! {
        <div class="cypher" data-testid="cypher">
            <select data-testid="cypher-examples" on:change=move |e| {
                if let Some((_, q)) = EXAMPLES.iter().find(|(name, _)| *name == event_target_value(&e)) {
                    query.set((*q).to_owned());
                }
            }>
                {EXAMPLES.iter().map(|(name, _)| view! { <option>{*name}</option> }).collect_view()}
            </select>
            <textarea data-testid="cypher-query" rows="4" spellcheck="false"
                prop:value=move || query.get()
                on:input=move |e| query.set(event_target_value(&e))
                on:keydown=move |e: leptos::ev::KeyboardEvent| if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) { e.prevent_default(); run() }
            ></textarea>
            <button data-testid="cypher-run" on:click=move |_| run()>"Run (Ctrl+Enter)"</button>
            {move || result.get().map(|r| match r {
                Err(message) => view! { <p class="error" data-testid="cypher-error">{message}</p> }.into_any(),
                Ok(answer) => {
                    let (columns, rows) = table(&answer);
                    let count = rows.len();
                    view! {
                        <p class="muted" data-testid="cypher-count">{format!("{count} rows{}", if answer["has_more"].as_bool() == Some(true) { " (more: raise LIMIT)" } else { "" })}</p>
                        {answer["notes"].as_array().filter(|n| !n.is_empty()).map(|n| view! { <p class="muted">{n.iter().map(cell_text).collect::<Vec<_>>().join(" · ")}</p> })}
                        <div class="table-wrap"><table data-testid="cypher-table">
                            <thead><tr>{columns.into_iter().map(|c| view! { <th>{c}</th> }).collect_view()}</tr></thead>
                            <tbody>{rows.into_iter().map(|row| view! {
                                <tr>{row.into_iter().map(|cell| {
                                    let text = cell_text(&cell);
                                    let drawn = app.picture.with_untracked(|p| p.as_ref().and_then(|p| p.find(&text)));
                                    match drawn {
                                        Some(i) => view! { <td><a class="symbol" on:click=move |_| app.select(i)>{short_id(&text).to_owned()}</a></td> }.into_any(),
                                        None => view! { <td>{text}</td> }.into_any(),
                                    }
                                }).collect_view()}</tr>
                            }).collect_view()}</tbody>
                        </table></div>
                    }.into_any()
                }
            })}
        </div>
    }
}

/// One step of a plan: the tool, its arguments and the ids its result names.
#[derive(Debug, Clone, PartialEq)]
struct PlanStep {
    tool: String,
    args: String,
    ids: Vec<String>,
    error: Option<String>,
}

fn plan_steps(answer: &Value) -> Vec<PlanStep> {
    answer["steps"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .map(|s| PlanStep {
                    tool: s["tool"].as_str().unwrap_or_default().to_owned(),
                    args: s["args"].to_string(),
                    ids: ids_in(&s["result"]),
                    error: s["error"]
                        .as_str()
                        .map(str::to_owned)
                        .or_else(|| s["error"]["message"].as_str().map(str::to_owned)),
                })
                .collect()
        })
        .unwrap_or_default()
}

#[component]
pub fn AskBox() -> impl IntoView {
    let app = use_app();
    let question = RwSignal::new(String::new());
    let result = RwSignal::new(None::<Result<Vec<PlanStep>, String>>);
    let answer = RwSignal::new(None::<String>);
    let ask = move || {
        let q = question.get_untracked();
        if q.trim().is_empty() {
            return;
        }
        result.set(None);
        answer.set(None);
        // Two runs: the answer as the router writes it for agents (Markdown), and as JSON for the
        // step list and its links (an error shows there).
        app.engine.with_value(|engine| {
            engine.call(
                "route",
                json!({"query": q, "mode": "execute"}),
                Box::new(move |outcome| {
                    if let Outcome::Ok(output) = outcome {
                        answer.set(Some(output.text));
                    }
                }),
            )
        });
        app.call_json("route", json!({"query": q, "mode": "execute"}), move |r| {
            result.set(Some(r.map(|a| plan_steps(&a))))
        });
    };
    view! {
        <div class="ask" data-testid="ask">
            <input data-testid="ask-input" placeholder="Ask: who calls save? what breaks if I change Cart.add?"
                prop:value=move || question.get()
                on:input=move |e| question.set(event_target_value(&e))
                on:keydown=move |e: leptos::ev::KeyboardEvent| if e.key() == "Enter" { ask() } />
            <button data-testid="ask-run" on:click=move |_| ask()>"Ask"</button>
            {move || answer.get().map(|text| view! { <Markdown source=text testid="ask-answer" /> })}
            {move || result.get().map(|r| match r {
                Err(message) => view! { <p class="error">{message}</p> }.into_any(),
                Ok(steps) => view! {
                    <ol class="plan" data-testid="ask-plan">{steps.into_iter().map(|step| view! {
                        <li>
                            <code>{step.tool}</code>" "<span class="muted args">{step.args}</span>
                            {step.error.map(|e| view! { <p class="error">{e}</p> })}
                            <ul class="links">{step.ids.into_iter().take(30).map(|id| {
                                let drawn = app.picture.with_untracked(|p| p.as_ref().and_then(|p| p.find(&id)));
                                let label = short_id(&id).to_owned();
                                match drawn {
                                    Some(i) => view! { <li><a class="symbol" on:click=move |_| app.select(i)>{label}</a></li> }.into_any(),
                                    None => view! { <li class="muted">{label}</li> }.into_any(),
                                }
                            }).collect_view()}</ul>
                        </li>
                    }).collect_view()}</ol>
                }.into_any(),
            })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_read_columns_rows_and_cells() {
        let (columns, rows) =
            table(&json!({"columns": ["a", "n"], "rows": [["x", 2], [null, 0.25]]}));
        assert_eq!(columns, ["a", "n"]);
        assert_eq!(rows.len(), 2);
        assert_eq!(cell_text(&rows[0][1]), "2");
        assert_eq!(cell_text(&rows[1][0]), "null");
        assert_eq!(cell_text(&rows[1][1]), "0.250");
        assert_eq!(table(&json!({})), (Vec::new(), Vec::new()));
    }

    #[test]
    fn plans_list_each_step_with_the_ids_it_found() {
        let steps = plan_steps(&json!({"steps": [
            {"tool": "impact", "args": {"target": "charge"}, "result": {"target": "Function:p.py:charge", "items": [{"id": "Method:c.py:Cart.checkout"}]}},
            {"tool": "search", "args": {}, "error": {"message": "nothing"}}
        ]}));
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].tool, "impact");
        assert_eq!(steps[0].ids.len(), 2);
        assert!(steps[0].ids.contains(&"Function:p.py:charge".to_owned()));
        assert!(
            steps[0]
                .ids
                .contains(&"Method:c.py:Cart.checkout".to_owned())
        );
        assert_eq!(steps[1].error.as_deref(), Some("nothing"));
    }

    #[test]
    fn every_example_query_is_supported_by_the_engine() {
        let graph = nexus_engine::sample::sample_graph();
        for (name, query) in EXAMPLES {
            let result = nexus_engine::cypher::run(&graph, query, &Default::default(), 50);
            assert!(result.is_ok(), "{name}: {result:?}");
        }
    }
}
