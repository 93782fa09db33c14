//! The search box: ranked hits from the `search` tool as you type; Enter or a click selects and
//! focuses the node. `/` anywhere focuses the box, Esc clears it and the selection.

use leptos::prelude::*;
use serde_json::{Value, json};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::state::use_app;

const HITS: usize = 8;

#[derive(Debug, Clone, PartialEq)]
struct Hit {
    id: String,
    name: String,
    kind: String,
    location: String,
}

fn hits(answer: &Value) -> Vec<Hit> {
    answer["hits"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|h| Hit {
                    id: h["id"].as_str().unwrap_or_default().to_owned(),
                    name: h["name"].as_str().unwrap_or_default().to_owned(),
                    kind: h["kind"].as_str().unwrap_or_default().to_owned(),
                    location: h["location"].as_str().unwrap_or_default().to_owned(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a key press belongs to a text field (then `/` is just a character).
fn typing(event: &web_sys::KeyboardEvent) -> bool {
    event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
}

#[component]
pub fn SearchBox() -> impl IntoView {
    let app = use_app();
    let text = RwSignal::new(String::new());
    let found = RwSignal::new(Vec::<Hit>::new());
    let error = RwSignal::new(None::<String>);
    let input = NodeRef::<leptos::html::Input>::new();
    let asked = StoredValue::new(0u64);
    let search = move |q: String| {
        text.set(q.clone());
        if q.trim().is_empty() {
            found.set(Vec::new());
            error.set(None);
            return;
        }
        let ticket = asked.get_value() + 1;
        asked.set_value(ticket);
        app.call_json("search", json!({"query": q, "limit": HITS}), move |r| {
            // Only the answer to the latest keystroke counts.
            if asked.get_value() != ticket {
                return;
            }
            match r {
                Ok(answer) => {
                    found.set(hits(&answer));
                    error.set(None);
                }
                Err(message) => error.set(Some(message)),
            }
        });
    };
    let clear = move || {
        text.set(String::new());
        found.set(Vec::new());
        error.set(None);
    };
    let pick = move |hit: &Hit| {
        if app.select_id(&hit.id) {
            clear();
        } else {
            error.set(Some(format!("{} is not drawn in the graph", hit.name)));
        }
    };
    // `/` focuses the box from anywhere; Esc clears the box and the selection.
    let on_key =
        Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(move |e: web_sys::KeyboardEvent| {
            if e.key() == "/" && !typing(&e) {
                e.prevent_default();
                if let Some(input) = input.get_untracked() {
                    let _ = input.focus();
                }
            } else if e.key() == "Escape" {
                clear();
                app.selected.set(None);
                if let Some(input) = input.get_untracked() {
                    let _ = input.blur();
                }
            }
        });
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        let _ =
            document.add_event_listener_with_callback("keydown", on_key.as_ref().unchecked_ref());
    }
    // The listener lives as long as the page.
    on_key.forget();
    view! {
        <div class="search">
            <input node_ref=input data-testid="search" type="search" placeholder="Search symbols and files  ( / )"
                prop:value=move || text.get()
                on:input=move |e| search(event_target_value(&e))
                on:keydown=move |e: leptos::ev::KeyboardEvent| {
                    if e.key() == "Enter" && let Some(first) = found.get_untracked().first() { pick(first) }
                } />
            <ul class="hits" data-testid="search-hits" class:hidden=move || found.with(Vec::is_empty) && error.with(Option::is_none)>
                {move || error.get().map(|m| view! { <li class="error">{m}</li> })}
                <For each=move || found.get() key=|h| h.id.clone() let:hit>
                    <li>
                        <a on:click={ let hit = hit.clone(); move |_| pick(&hit) }>
                            <span class="kind">{hit.kind.clone()}</span>" "<b>{hit.name.clone()}</b>
                            <span class="muted">" " {hit.location.clone()}</span>
                        </a>
                    </li>
                </For>
            </ul>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_read_from_the_answer() {
        let list = hits(
            &json!({"hits": [{"id": "Function:a.py:f", "name": "f", "kind": "Function", "location": "a.py:1"}]}),
        );
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].location, "a.py:1");
        assert!(hits(&json!({"hits": null})).is_empty());
    }
}
