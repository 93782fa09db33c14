//! The Leptos UI: the app shell, the connection indicator and the agent activity feed.
//! UI code only renders and forwards user intent; graph logic stays in `engine` and `tools`.

mod connection;

use std::rc::Rc;

use leptos::prelude::*;
use nexus_shared::reconnect::ReconnectPolicy;
use nexus_shared::{Frame, GraphStats};

use crate::engine::Graph;
use crate::engine::sample::sample_graph;
use crate::link::{Link, LinkConfig};
use crate::tools;

/// One finished agent call, as shown in the activity feed.
#[derive(Debug, Clone, PartialEq)]
struct ActivityRow {
    agent: String,
    tool: String,
    ms: u64,
    ok: bool,
}

const ACTIVITY_ROWS: usize = 50;

#[component]
pub fn App() -> impl IntoView {
    let graph = Rc::new(sample_graph());
    let link = start_link(graph.clone());
    let state = RwSignal::new(link.state());
    let activity = RwSignal::new(Vec::<ActivityRow>::new());
    link.on_status(move |s| state.set(s.clone()));
    link.on_activity(move |frame| {
        if let Frame::Activity {
            agent,
            tool,
            ms,
            ok,
        } = frame
        {
            activity.update(|rows| {
                rows.insert(
                    0,
                    ActivityRow {
                        agent: agent.clone(),
                        tool: tool.clone(),
                        ms: *ms,
                        ok: *ok,
                    },
                );
                rows.truncate(ACTIVITY_ROWS);
            });
        }
    });
    let max_attempts = link.max_attempts();
    let link = StoredValue::new_local(link);
    let stats = stats_line(&graph);
    let project = graph.project.clone();

    view! {
        <header class="topbar">
            <span class="brand">"Nexus"</span>
            <span class="project" data-testid="project">{project}</span>
            <connection::Indicator state=state link=link max_attempts=max_attempts />
        </header>
        <main class="content">
            <section class="panel" data-testid="graph-summary">
                <h2>"Graph"</h2>
                <p>{stats}</p>
                <p class="muted">"Built-in sample graph. Loading your own repository arrives with the graph engine."</p>
            </section>
            <section class="panel" data-testid="activity">
                <h2>"Agent activity"</h2>
                <Show
                    when=move || !activity.with(Vec::is_empty)
                    fallback=|| view! { <p class="muted">"No agent calls yet."</p> }
                >
                    <ul class="activity">
                        <For each=move || activity.get() key=|row| (row.agent.clone(), row.tool.clone(), row.ms, row.ok) let:row>
                            <li class:error=!row.ok>
                                <span class="tool">{row.tool}</span>
                                " · " {row.agent} " · " {format!("{} ms", row.ms)}
                                " · " {if row.ok { "ok" } else { "error" }}
                            </li>
                        </For>
                    </ul>
                </Show>
            </section>
        </main>
    }
}

fn stats_line(graph: &Graph) -> String {
    format!(
        "{} · {} files · {} nodes · {} edges",
        graph.project,
        graph.file_count(),
        graph.node_count(),
        graph.edge_count()
    )
}

/// Connects to the hub that served this page (or `?hub=host:port`) and answers calls from `graph`.
fn start_link(graph: Rc<Graph>) -> Link {
    let answer_graph = graph.clone();
    let link = Link::new(
        LinkConfig {
            url: hub_url(),
            agent: "nexus-web".into(),
            policy: ReconnectPolicy::default(),
        },
        Rc::new(move |tool, args| tools::dispatch(Some(&answer_graph), tool, args)),
    );
    link.set_context(Frame::Context {
        project: Some(graph.project.clone()),
        stats: GraphStats {
            files: graph.file_count() as u32,
            nodes: graph.node_count() as u32,
            edges: graph.edge_count() as u32,
        },
        indexed_at: js_sys::Date::now() as u64,
    });
    link.start();
    link
}

fn hub_url() -> String {
    let location = web_sys::window().map(|w| w.location());
    let host = location
        .as_ref()
        .and_then(|l| l.host().ok())
        .unwrap_or_else(|| "127.0.0.1:54319".into());
    let search = location.and_then(|l| l.search().ok()).unwrap_or_default();
    let hub = search
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| pair.strip_prefix("hub="))
        .filter(|h| !h.is_empty())
        .map(str::to_owned)
        .unwrap_or(host);
    format!("ws://{hub}/ws")
}
