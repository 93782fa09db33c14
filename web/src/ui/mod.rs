//! The Leptos UI: the app shell, loading, the connection indicator and the agent activity feed.
//! UI code only renders and forwards user intent; graph logic stays in `engine` and `tools`.

mod connection;
mod load;

use std::cell::OnceCell;
use std::rc::Rc;

use leptos::prelude::*;
use nexus_shared::reconnect::ReconnectPolicy;
use nexus_shared::{Frame, GraphStats};
use wasm_bindgen::JsValue;

use crate::link::{Link, LinkConfig};
use crate::worker::client::EngineClient;
use crate::worker::protocol::{FromWorker, GraphSummary};

/// One finished agent call, as shown in the activity feed.
#[derive(Debug, Clone, PartialEq)]
struct ActivityRow {
    agent: String,
    tool: String,
    ms: u64,
    ok: bool,
}

const ACTIVITY_ROWS: usize = 50;
const HIGHLIGHT_ROWS: usize = 200;

/// Indexing progress: phase, done, total.
#[derive(Debug, Clone, PartialEq)]
struct LoadProgress {
    phase: String,
    done: u64,
    total: u64,
}

#[component]
pub fn App() -> impl IntoView {
    let activity = RwSignal::new(Vec::<ActivityRow>::new());
    let summary = RwSignal::new(None::<GraphSummary>);
    let load_status = RwSignal::new(String::new());
    let progress = RwSignal::new(None::<LoadProgress>);
    let (bridge_repo, set_bridge_repo) = signal(None::<String>);
    // Set once the worker is ready: the project it restored from browser storage, if any.
    let engine_ready = RwSignal::new(None::<Option<String>>);
    let highlights = RwSignal::new(Vec::<(String, String)>::new());

    // The worker's events update the page and, once a graph is loaded, the hub's context.
    let link_slot: Rc<OnceCell<Link>> = Rc::new(OnceCell::new());
    let engine = {
        let link_slot = link_slot.clone();
        EngineClient::start(move |event| match event {
            FromWorker::Ready { graph, restored } => {
                summary.set(Some(graph.clone()));
                if let Some(r) = restored {
                    load_status.set(format!(
                        "Restored from browser storage in {:.0} ms ({:.1} MB, indexed {})",
                        r.ms,
                        r.bytes as f64 / 1e6,
                        local_time(r.saved_ms)
                    ));
                    if let Some(link) = link_slot.get() {
                        link.set_context(context_frame(graph));
                    }
                }
                engine_ready.set(Some(restored.as_ref().map(|_| graph.project.clone())));
            }
            FromWorker::Saved {
                saved,
                bytes,
                ms,
                message,
            } => load_status.update(|status| {
                if *saved {
                    status.push_str(&format!(
                        " · saved to browser storage ({:.1} MB, {ms:.0} ms)",
                        *bytes as f64 / 1e6
                    ));
                } else {
                    status.push_str(&format!(" · not saved: {message}"));
                }
            }),
            FromWorker::Highlight { ids, color } => highlights.update(|list| {
                for id in ids {
                    list.retain(|(old, _)| old != id);
                    list.insert(0, (id.clone(), color.clone()));
                }
                list.truncate(HIGHLIGHT_ROWS);
            }),
            FromWorker::Progress { phase, done, total } => progress.set(Some(LoadProgress {
                phase: phase.clone(),
                done: *done,
                total: *total,
            })),
            FromWorker::Loaded {
                graph,
                ms,
                files_parsed,
                skipped,
                phases,
                memory_bytes,
            } => {
                progress.set(None);
                let phases: Vec<String> = phases
                    .iter()
                    .map(|(phase, ms)| format!("{phase} {ms:.0} ms"))
                    .collect();
                load_status.set(format!(
                    "Indexed {files_parsed} files in {:.1} s ({skipped} skipped; {}; engine memory {:.0} MB)",
                    ms / 1000.0,
                    phases.join(", "),
                    *memory_bytes as f64 / 1e6
                ));
                summary.set(Some(graph.clone()));
                if let Some(link) = link_slot.get() {
                    link.set_context(context_frame(graph));
                }
            }
            FromWorker::Failed { message } => {
                progress.set(None);
                load_status.set(message.clone());
            }
            FromWorker::Result { .. } | FromWorker::View { .. } => {}
        })
    };
    let link = start_link(engine.clone());
    let _ = link_slot.set(link.clone());
    let state = RwSignal::new(link.state());
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
        let engine = engine.clone();
        Rc::new(move |source: load::Source| {
            load_status.set(String::new());
            progress.set(Some(LoadProgress {
                phase: "read".into(),
                done: 0,
                total: 0,
            }));
            match source {
                load::Source::Zip(name, bytes) => engine.load_zip(name, bytes),
                load::Source::Files(name, files) => engine.load_files(name, files),
            }
        })
    };
    let on_error: load::ErrorHandler = Rc::new(move |message: String| {
        progress.set(None);
        load_status.set(message);
    });
    wasm_bindgen_futures::spawn_local(async move {
        if let Ok(Some(name)) = load::bridge_repo_name().await {
            set_bridge_repo.set(Some(name));
        }
    });
    // The bridge's repository is indexed at start unless the worker restored that very project
    // (its button re-indexes on demand).
    {
        let (on_files, on_error) = (on_files.clone(), on_error.clone());
        let decided = StoredValue::new(false);
        Effect::new(move |_| {
            let (Some(name), Some(restored)) = (bridge_repo.get(), engine_ready.get()) else {
                return;
            };
            if decided.get_value() {
                return;
            }
            decided.set_value(true);
            if restored.as_deref() != Some(name.as_str()) {
                let (on_files, on_error) = (on_files.clone(), on_error.clone());
                wasm_bindgen_futures::spawn_local(load::load_bridge_repo(name, on_files, on_error));
            }
        });
    }
    let link = StoredValue::new_local(link);
    let engine = StoredValue::new_local(engine);
    let on_files = StoredValue::new_local(on_files);
    let on_error = StoredValue::new_local(on_error);
    let cancel = move |_| {
        engine.with_value(EngineClient::cancel);
        progress.set(None);
        load_status.set("Indexing cancelled; the graph held before is back".into());
    };

    view! {
        <header class="topbar">
            <span class="brand">"Nexus"</span>
            <span class="project" data-testid="project">{move || summary.get().map(|s| s.project).unwrap_or_default()}</span>
            <connection::Indicator state=state link=link max_attempts=max_attempts />
        </header>
        <main class="content">
            <section class="panel" data-testid="graph-summary">
                <h2>"Graph"</h2>
                <p data-testid="summary">{move || summary.get().map(|s| stats_line(&s)).unwrap_or_else(|| "Starting the engine…".into())}</p>
                <load::LoadPanel on_files=on_files on_error=on_error bridge_repo=bridge_repo />
                <div class="progress" data-testid="progress" class:hidden=move || progress.with(Option::is_none)>
                    <span>{move || progress.get().map(|p| progress_text(&p)).unwrap_or_default()}</span>
                    <progress max="1" value=move || progress.get().map_or(0.0, |p| if p.total == 0 { 0.0 } else { p.done as f64 / p.total as f64 })></progress>
                    <button data-testid="cancel" on:click=cancel>"Cancel"</button>
                </div>
                <p class="muted" data-testid="load-status">{move || load_status.get()}</p>
            </section>
            <section class="panel" data-testid="highlights" class:hidden=move || highlights.with(Vec::is_empty)>
                <h2>"Highlighted by agents"</h2>
                <ul class="highlights">
                    <For each=move || highlights.get() key=|row| row.clone() let:row>
                        <li><span class="swatch" style=format!("background:{}", row.1)></span><code>{row.0}</code></li>
                    </For>
                </ul>
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

/// A Unix time in milliseconds as the browser's local date and time.
fn local_time(ms: f64) -> String {
    js_sys::Date::new(&JsValue::from_f64(ms))
        .to_locale_string("default", &JsValue::UNDEFINED)
        .into()
}

fn progress_text(p: &LoadProgress) -> String {
    if p.total == 0 {
        format!("{}…", p.phase)
    } else {
        format!("{} {} / {}", p.phase, p.done, p.total)
    }
}

fn stats_line(s: &GraphSummary) -> String {
    format!(
        "{}{} · {} files · {} nodes · {} edges · {} communities · {} processes",
        s.project,
        if s.sample { " (built-in sample)" } else { "" },
        s.files,
        s.nodes,
        s.edges,
        s.communities,
        s.processes,
    )
}

fn context_frame(s: &GraphSummary) -> Frame {
    Frame::Context {
        project: Some(s.project.clone()),
        stats: GraphStats {
            files: s.files,
            nodes: s.nodes,
            edges: s.edges,
        },
        indexed_at: js_sys::Date::now() as u64,
    }
}

/// Connects to the hub that served this page (or `?hub=host:port`); the engine worker answers.
fn start_link(engine: EngineClient) -> Link {
    let link = Link::new(
        LinkConfig {
            url: hub_url(),
            agent: "nexus-web".into(),
            policy: ReconnectPolicy::default(),
        },
        Rc::new(move |tool, args, reply| engine.call(tool, args, reply)),
    );
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
