//! What the panels share: the graph picture, the selection, nodes lit by agents, the open code
//! and the engine handle. The app shell provides it once; panels read it with `use_app()`.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::rc::Rc;

use leptos::prelude::*;
use nexus_shared::Outcome;
use serde_json::Value;

use crate::worker::client::EngineClient;
use nexus_engine::layout::{NO_INDEX, ViewGraph, ViewNode};

/// The drawn graph and indexes from stable id, and from label or qualified name, to drawn node
/// (each built on first use, so that the picture's arrival does not pay for it).
pub struct Picture {
    pub view: Rc<ViewGraph>,
    by_id: OnceCell<HashMap<String, u32>>,
    /// Each label and qualified name to the one drawn node having it (`None`: several have it).
    by_name: OnceCell<HashMap<String, Option<u32>>>,
}

impl Picture {
    pub fn new(view: ViewGraph) -> Picture {
        Picture {
            view: Rc::new(view),
            by_id: OnceCell::new(),
            by_name: OnceCell::new(),
        }
    }

    pub fn find(&self, id: &str) -> Option<u32> {
        self.by_id
            .get_or_init(|| {
                self.view
                    .nodes
                    .iter()
                    .enumerate()
                    .map(|(i, n)| (n.id.clone(), i as u32))
                    .collect()
            })
            .get(id)
            .copied()
    }

    /// The drawn node `name` names: its stable id, or a label or qualified name only one drawn
    /// node has (what a session's answers and an agent's arguments name symbols by).
    pub fn find_named(&self, name: &str) -> Option<u32> {
        self.find(name).or_else(|| {
            self.by_name
                .get_or_init(|| {
                    let mut names: HashMap<String, Option<u32>> = HashMap::new();
                    for (i, n) in self.view.nodes.iter().enumerate() {
                        let short = super::details::short_id(&n.id);
                        let mut note = |name: &str| {
                            names
                                .entry(name.to_owned())
                                .and_modify(|one| *one = None)
                                .or_insert(Some(i as u32));
                        };
                        note(&n.label);
                        if short != n.label {
                            note(short);
                        }
                    }
                    names
                })
                .get(name)
                .copied()
                .flatten()
        })
    }

    pub fn node(&self, index: u32) -> Option<&ViewNode> {
        self.view.nodes.get(index as usize)
    }

    /// The repository path of a drawn node's file.
    pub fn path_of(&self, index: u32) -> Option<&str> {
        let node = self.node(index)?;
        let file = if node.file == NO_INDEX {
            node
        } else {
            self.node(node.file)?
        };
        file.id.strip_prefix("File:")
    }
}

/// Which tab the right-hand side shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Details,
    Code,
    Cypher,
    Ask,
    Chat,
    Activity,
    Tools,
    Connection,
}

impl Tab {
    pub const ALL: [Tab; 8] = [
        Tab::Details,
        Tab::Code,
        Tab::Cypher,
        Tab::Ask,
        Tab::Chat,
        Tab::Activity,
        Tab::Tools,
        Tab::Connection,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Tab::Details => "Details",
            Tab::Code => "Code",
            Tab::Cypher => "Cypher",
            Tab::Ask => "Ask",
            Tab::Chat => "Chat",
            Tab::Activity => "Activity",
            Tab::Tools => "Tools",
            Tab::Connection => "Connect",
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Tab::Details => "details",
            Tab::Code => "code",
            Tab::Cypher => "cypher",
            Tab::Ask => "ask",
            Tab::Chat => "chat",
            Tab::Activity => "activity",
            Tab::Tools => "tools",
            Tab::Connection => "connection",
        }
    }
}

/// A file to show in the code view, with the lines to mark.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeTarget {
    pub path: String,
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Copy)]
pub struct AppState {
    pub picture: RwSignal<Option<Rc<Picture>>, LocalStorage>,
    /// Drawn node index of the selected node.
    pub selected: RwSignal<Option<u32>>,
    /// Nodes lit by agents and by followed processes: (drawn index, CSS colour), newest first.
    pub lit: RwSignal<Vec<(u32, String)>>,
    pub tab: RwSignal<Tab>,
    pub code: RwSignal<Option<CodeTarget>>,
    pub engine: StoredValue<EngineClient, LocalStorage>,
    pub describing: Describing,
}

/// The details pane's "Describe with the LLM": the chat panel owns the chat socket, so it takes
/// the request from here and puts the outcome back.
#[derive(Clone, Copy)]
pub struct Describing {
    /// A description to ask for: (stable id, what the graph says of it).
    pub ask: RwSignal<Option<(String, String)>>,
    /// The bridge has an LLM.
    pub llm: RwSignal<bool>,
    /// The last request's node and how it went, in words.
    pub status: RwSignal<Option<(String, String)>>,
    /// Counts written descriptions, so the details pane reads its node again.
    pub written: RwSignal<u32>,
}

impl Describing {
    pub fn new() -> Describing {
        Describing {
            ask: RwSignal::new(None),
            llm: RwSignal::new(false),
            status: RwSignal::new(None),
            written: RwSignal::new(0),
        }
    }
}

/// At most this many nodes stay lit.
pub const MAX_LIT: usize = 500;

pub fn use_app() -> AppState {
    expect_context::<AppState>()
}

pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

impl AppState {
    /// Selects the drawn node with this stable id; false when it is not drawn.
    pub fn select_id(&self, id: &str) -> bool {
        let found = self
            .picture
            .with_untracked(|p| p.as_ref().and_then(|p| p.find(id)));
        if let Some(index) = found {
            self.select(index);
        }
        found.is_some()
    }

    pub fn select(&self, index: u32) {
        self.selected.set(Some(index));
        self.tab.set(Tab::Details);
    }

    /// Opens a drawn node's lines in the code view.
    pub fn open_code_of(&self, index: u32) {
        let target = self.picture.with_untracked(|p| {
            let p = p.as_ref()?;
            let node = p.node(index)?;
            Some(CodeTarget {
                path: p.path_of(index)?.to_owned(),
                start: node.start_line,
                end: node.end_line,
            })
        });
        if let Some(target) = target {
            self.code.set(Some(target));
            self.tab.set(Tab::Code);
        }
    }

    /// Lights these nodes in a colour (newest first, capped).
    pub fn light(&self, indices: impl IntoIterator<Item = u32>, color: &str) {
        let indices: Vec<u32> = indices.into_iter().collect();
        if indices.is_empty() {
            return;
        }
        self.lit.update(|lit| {
            lit.retain(|(i, _)| !indices.contains(i));
            for i in indices.iter().rev() {
                lit.insert(0, (*i, color.to_owned()));
            }
            lit.truncate(MAX_LIT);
        });
    }

    /// Calls a tool with `format: json` added; `done` gets the parsed answer or the error text.
    pub fn call_json(
        &self,
        tool: &str,
        mut args: Value,
        done: impl FnOnce(Result<Value, String>) + 'static,
    ) {
        if let Value::Object(map) = &mut args {
            map.insert("format".into(), Value::from("json"));
        }
        self.engine.with_value(|engine| {
            engine.call(tool, args, Box::new(move |outcome| done(json_of(outcome))));
        });
    }
}

/// A tool's answer as JSON, or its error as one readable line.
pub fn json_of(outcome: Outcome) -> Result<Value, String> {
    match outcome {
        Outcome::Ok(output) => serde_json::from_str(&output.text)
            .map_err(|err| format!("unexpected answer from the engine: {err}")),
        Outcome::Err(err) => Err(match err.hint {
            Some(hint) => format!("{} ({hint})", err.message),
            None => err.message,
        }),
    }
}

/// Every string under an `"id"` key in a JSON answer, in order, once each.
pub fn ids_in(value: &Value) -> Vec<String> {
    fn walk(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    match item {
                        Value::String(s) if key == "id" || key == "target" || key == "entry" => {
                            if !out.contains(s) {
                                out.push(s.clone());
                            }
                        }
                        _ => walk(item, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nexus_engine::layout::layout;
    use nexus_engine::sample::sample_graph;
    use nexus_shared::{ErrorCode, ToolError, ToolOutput};
    use serde_json::json;

    #[test]
    fn pictures_find_nodes_and_their_files() {
        let picture = Picture::new(layout(&sample_graph()));
        let index = picture.find("Method:shop/cart.py:Cart.checkout").unwrap();
        assert_eq!(picture.path_of(index), Some("shop/cart.py"));
        let file = picture.find("File:shop/cart.py").unwrap();
        assert_eq!(picture.path_of(file), Some("shop/cart.py"));
        assert_eq!(picture.find("Function:nowhere:x"), None);
    }

    #[test]
    fn pictures_find_a_node_by_a_name_only_it_has() {
        let picture = Picture::new(layout(&sample_graph()));
        let method = picture.find("Method:shop/cart.py:Cart.checkout");
        assert_eq!(picture.find_named("Cart.checkout"), method);
        assert_eq!(
            picture.find_named("Method:shop/cart.py:Cart.checkout"),
            method
        );
        assert_eq!(picture.find_named("Cart.nothing"), None);
    }

    #[test]
    fn names_find_the_one_drawn_node_having_them_and_shared_names_none() {
        let mut view = layout(&sample_graph());
        let mut twin = view.nodes[view.nodes.len() - 1].clone();
        twin.id.push_str("_twin");
        view.nodes.push(twin);
        let picture = Picture::new(view);
        let nodes = &picture.view.nodes;
        let having = |name: &str| -> Vec<u32> {
            (0..nodes.len() as u32)
                .filter(|&i| {
                    let n = &nodes[i as usize];
                    n.label == name || super::super::details::short_id(&n.id) == name
                })
                .collect()
        };
        let mut shared = 0;
        for n in nodes.iter() {
            for name in [n.label.as_str(), super::super::details::short_id(&n.id)] {
                let all = having(name);
                let expected = picture.find(name).or(match all.as_slice() {
                    [one] => Some(*one),
                    _ => None,
                });
                shared += usize::from(all.len() > 1);
                assert_eq!(picture.find_named(name), expected, "{name}");
            }
        }
        assert!(shared > 0, "the sample draws a name two nodes share");
    }

    #[test]
    fn ids_are_collected_once_in_order() {
        let answer = json!({"target": "A", "steps": [{"result": {"items": [{"id": "B"}, {"id": "A"}]}}], "id": "C"});
        let ids = ids_in(&answer);
        assert_eq!(ids.len(), 3);
        assert!(ids.contains(&"A".to_owned()) && ids.contains(&"B".to_owned()));
    }

    #[test]
    fn answers_become_json_or_one_error_line() {
        let ok = json_of(Outcome::Ok(ToolOutput {
            text: "{\"a\":1}".into(),
        }));
        assert_eq!(ok, Ok(json!({"a": 1})));
        let err = json_of(Outcome::Err(
            ToolError::new(ErrorCode::InvalidQuery, "bad").with_hint("fix it"),
        ));
        assert_eq!(err, Err("bad (fix it)".into()));
        assert!(
            json_of(Outcome::Ok(ToolOutput {
                text: "not json".into()
            }))
            .is_err()
        );
    }
}
