//! "Describe with the LLM" for a folder, file or community: what `explore` says of the node goes
//! to the chat panel (which owns the chat socket) as facts; shows how the request went.

use leptos::prelude::*;
use nexus_engine::NodeKind;
use serde_json::{Value, json};

use super::state::use_app;

/// Facts sent with a description request are cut to this many characters (the bridge takes
/// 16 KiB).
const MAX_FACTS_CHARS: usize = 12_000;

/// What the LLM is told of a node: its kind and id, then what `explore` answers of it (its
/// summary, neighbours and members) as JSON, cut to [`MAX_FACTS_CHARS`].
fn facts_of(kind: &str, id: &str, answer: &Value) -> String {
    format!("{kind} {id}\n{answer}")
        .chars()
        .take(MAX_FACTS_CHARS)
        .collect()
}

/// Nodes whose summary the LLM can describe.
pub fn describable(kind: NodeKind) -> bool {
    matches!(
        kind,
        NodeKind::Folder | NodeKind::File | NodeKind::Community
    )
}

/// The button (shown when the bridge has an LLM) and the last request's outcome for node `id`.
#[component]
pub fn DescribeButton(id: String, kind: NodeKind) -> impl IntoView {
    let app = use_app();
    let describing = app.describing;
    let shown = id.clone();
    let status = move || {
        describing.status.with(|s| {
            s.as_ref()
                .filter(|(node, _)| *node == shown)
                .map(|(_, words)| words.clone())
        })
    };
    let node = id.clone();
    let ask = move |_| {
        let id = id.clone();
        describing
            .status
            .set(Some((id.clone(), "Reading the graph…".into())));
        let kind_of = if kind == NodeKind::Community {
            "cluster"
        } else {
            "symbol"
        };
        let args = json!({"id": id, "type": kind_of});
        app.call_json("explore", args, move |answer| match answer {
            Ok(answer) => describing
                .ask
                .set(Some((id.clone(), facts_of(kind.as_str(), &id, &answer)))),
            Err(message) => describing.status.set(Some((id, message))),
        });
    };
    view! {
        <span class="describe">
            <button data-testid="describe" data-node=node class:hidden=move || !describing.llm.get()
                title="Ask the bridge's LLM for a sentence or two about this, from what the graph says; saved with the graph"
                on:click=ask>"Describe with the LLM"</button>
            " " <span class="muted" data-testid="describe-status">{status}</span>
        </span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_name_the_node_and_carry_the_answer_within_bounds() {
        let answer = json!({"summary": "2 files · central: charge"});
        let facts = facts_of("Folder", "Folder:shop", &answer);
        assert!(facts.starts_with("Folder Folder:shop\n") && facts.contains("central: charge"));
        let huge = json!({"summary": "é".repeat(50_000)});
        assert_eq!(
            facts_of("File", "File:a.py", &huge).chars().count(),
            MAX_FACTS_CHARS
        );
        assert!(describable(NodeKind::Community) && !describable(NodeKind::Method));
    }
}
