//! The Leptos UI: the app shell, loading, the connection indicator and the agent activity feed.
//! UI code only renders and forwards user intent; graph logic stays in `engine` and `tools`.

mod connection;
mod load;

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use nexus_shared::reconnect::ReconnectPolicy;
use nexus_shared::{Frame, GraphStats};

use crate::engine::Graph;
use crate::engine::ingest::{SourceFile, index};
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

/// The graph the tools answer from; replaced when a repository is loaded.
type SharedGraph = Rc<RefCell<Graph>>;

#[component]
pub fn App() -> impl IntoView {
    let graph: SharedGraph = Rc::new(RefCell::new(sample_graph()));
    let link = start_link(graph.clone());
    let state = RwSignal::new(link.state());
    let activity = RwSignal::new(Vec::<ActivityRow>::new());
    let summary = RwSignal::new(stats_line(&graph.borrow(), true));
    let project = RwSignal::new(graph.borrow().project.clone());
    let load_status = RwSignal::new(String::new());
    let (bridge_repo, set_bridge_repo) = signal(None::<String>);
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

    let on_files: load::FilesHandler = {
        let (graph, link) = (graph.clone(), link.clone());
        Rc::new(move |name: String, files: Vec<SourceFile>| {
            let (graph, link) = (graph.clone(), link.clone());
            load_status.set(format!("Indexing {} files of {name}…", files.len()));
            wasm_bindgen_futures::spawn_local(async move {
                // Let the status paint before the pipeline takes the thread.
                gloo_timers::future::TimeoutFuture::new(30).await;
                let clock = || js_sys::Date::now();
                match index(&name, files, &clock, &mut |_, _, _| true) {
                    Ok((loaded, stats)) => {
                        let ms: f64 = stats.phase_ms.iter().map(|(_, ms)| ms).sum();
                        load_status.set(format!(
                            "Indexed {} files in {:.1} s",
                            stats.files_parsed,
                            ms / 1000.0
                        ));
                        summary.set(stats_line(&loaded, false));
                        project.set(loaded.project.clone());
                        link.set_context(context_frame(&loaded));
                        *graph.borrow_mut() = loaded;
                    }
                    Err(_) => load_status.set("Indexing was cancelled".into()),
                }
            });
        })
    };
    let on_error: load::ErrorHandler = Rc::new(move |message: String| load_status.set(message));
    {
        let (on_files, on_error) = (on_files.clone(), on_error.clone());
        wasm_bindgen_futures::spawn_local(async move {
            if let Ok(Some(name)) = load::bridge_repo_name().await {
                set_bridge_repo.set(Some(name.clone()));
                load_status.set(format!("Loading {name} from the bridge…"));
                load::load_bridge_repo(name, on_files, on_error).await;
            }
        });
    }
    let link = StoredValue::new_local(link);
    let on_files = StoredValue::new_local(on_files);
    let on_error = StoredValue::new_local(on_error);

    view! {
        <header class="topbar">
            <span class="brand">"Nexus"</span>
            <span class="project" data-testid="project">{move || project.get()}</span>
            <connection::Indicator state=state link=link max_attempts=max_attempts />
        </header>
        <main class="content">
            <section class="panel" data-testid="graph-summary">
                <h2>"Graph"</h2>
                <p data-testid="summary">{move || summary.get()}</p>
                <load::LoadPanel on_files=on_files on_error=on_error bridge_repo=bridge_repo />
                <p class="muted" data-testid="load-status">{move || load_status.get()}</p>
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

fn stats_line(graph: &Graph, sample: bool) -> String {
    format!(
        "{}{} · {} files · {} nodes · {} edges · {} communities · {} processes",
        graph.project,
        if sample { " (built-in sample)" } else { "" },
        graph.file_count(),
        graph.node_count(),
        graph.edge_count(),
        graph.communities.len(),
        graph.processes.len(),
    )
}

fn context_frame(graph: &Graph) -> Frame {
    Frame::Context {
        project: Some(graph.project.clone()),
        stats: GraphStats {
            files: graph.file_count() as u32,
            nodes: graph.node_count() as u32,
            edges: graph.edge_count() as u32,
        },
        indexed_at: js_sys::Date::now() as u64,
    }
}

/// Connects to the hub that served this page (or `?hub=host:port`) and answers calls from `graph`.
fn start_link(graph: SharedGraph) -> Link {
    let answer_graph = graph.clone();
    let link = Link::new(
        LinkConfig {
            url: hub_url(),
            agent: "nexus-web".into(),
            policy: ReconnectPolicy::default(),
        },
        Rc::new(move |tool, args| tools::dispatch(Some(&answer_graph.borrow()), tool, args)),
    );
    link.set_context(context_frame(&graph.borrow()));
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
