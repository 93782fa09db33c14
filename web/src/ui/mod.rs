//! The Leptos UI: the app shell (graph picture in the middle, explorer on the left, details, code,
//! Cypher, ask, activity, hosted tools and connection on the right). UI code renders; logic stays in the engine.

mod activity;
mod chat;
mod code_view;
mod connection;
mod describe;
mod details;
mod explorer;
mod graph_view;
mod live;
mod load;
mod markdown;
mod query;
mod refs;
mod search_box;
mod state;
mod tools;

use std::cell::OnceCell;
use std::rc::Rc;

use leptos::prelude::*;
use nexus_shared::reconnect::{LinkState, ReconnectPolicy};
use nexus_shared::{Frame, GraphStats, Outcome};
use wasm_bindgen::JsValue;

use self::activity::{ActivityRow, TOUCHED_COLOR, attach_agent, light_touched, push_row};
use self::graph_view::ColorBy;
use self::state::{AppState, Picture, Tab, now_ms};
use crate::link::{Link, LinkConfig};
use crate::worker::client::EngineClient;
use crate::worker::protocol::{FromWorker, GraphSummary, LeftOut};
use nexus_engine::layout::ViewGraph;

const HIGHLIGHT_ROWS: usize = 200;

/// Indexing progress: phase, done, total, and when loading started.
#[derive(Debug, Clone, PartialEq)]
struct LoadProgress {
    phase: String,
    done: u64,
    total: u64,
    started_ms: f64,
    /// When this phase began (the estimate's rate is this phase's alone).
    phase_started_ms: f64,
}

#[component]
pub fn App() -> impl IntoView {
    let rows = RwSignal::new(Vec::<ActivityRow>::new());
    let summary = RwSignal::new(None::<GraphSummary>);
    let load_status = RwSignal::new(String::new());
    let progress = RwSignal::new(None::<LoadProgress>);
    let (bridge_repo, set_bridge_repo) = signal(None::<String>);
    // Set once the worker is ready: the project it restored from browser storage, if any.
    let engine_ready = RwSignal::new(None::<Option<String>>);
    let highlights = RwSignal::new(Vec::<(String, String)>::new());
    let picture = RwSignal::new_local(None::<Rc<Picture>>);
    let picture_ms = RwSignal::new(None::<f64>);
    let theme = RwSignal::new(saved_theme());

    // The worker's events update the page and, once a graph is loaded, the hub's context.
    let link_slot: Rc<OnceCell<Link>> = Rc::new(OnceCell::new());
    let app_slot: Rc<OnceCell<AppState>> = Rc::new(OnceCell::new());
    let engine_slot: Rc<OnceCell<EngineClient>> = Rc::new(OnceCell::new());
    let restoring = StoredValue::new(false);
    let page = WorkerPage {
        summary,
        load_status,
        progress,
        engine_ready,
        highlights,
        picture,
        picture_ms,
        link: link_slot.clone(),
        app: app_slot.clone(),
        engine: engine_slot.clone(),
        bridge_repo,
        restoring,
    };
    let engine = EngineClient::start(move |event| on_worker_event(&page, event));
    let _ = engine_slot.set(engine.clone());
    let app = AppState {
        picture,
        selected: RwSignal::new(None),
        lit: RwSignal::new(Vec::new()),
        tab: RwSignal::new(Tab::Details),
        code: RwSignal::new(None),
        engine: StoredValue::new_local(engine.clone()),
        describing: state::Describing::new(),
    };
    let _ = app_slot.set(app);
    provide_context(app);
    let link = start_link(engine.clone(), app, rows);
    let _ = link_slot.set(link.clone());
    let state = RwSignal::new(link.state());
    let impostor = RwSignal::new(None::<u16>);
    let hosted = tools::Hosted::new();
    {
        let (engine, weak_link) = (engine.clone(), link_slot.clone());
        let was_connected = StoredValue::new(false);
        link.on_status(move |s| {
            let connected = matches!(s, LinkState::Connected);
            if !connected {
                hosted.link_lost();
            }
            // Back on a hub (a restart, another bridge took over): changes made meanwhile were
            // seen by no watcher of ours, so the disk is compared again.
            impostor.set(weak_link.get().and_then(Link::impostor));
            if connected && !was_connected.get_value() {
                // This hub run's api token, for the worker's requests to the bridge.
                if let Some(token) = crate::link::secret::api_token() {
                    engine.set_api_token(token);
                }
                let project = summary.with_untracked(|s| {
                    s.as_ref().filter(|s| !s.sample).map(|s| s.project.clone())
                });
                let served = bridge_repo.get_untracked();
                if let (Some(project), Some(served)) = (project, served)
                    && project == served
                {
                    live::compare_with_disk(engine.clone(), weak_link.get().cloned(), project, 0);
                }
            }
            was_connected.set_value(connected);
            state.set(s.clone());
        });
    }
    link.on_hosted(move |frame| hosted.receive(frame));
    {
        let (engine, weak_link) = (engine.clone(), link_slot.clone());
        link.on_repo(move |frame| {
            let Frame::RepoChanged {
                seq,
                changed,
                removed,
                rescan,
            } = frame
            else {
                return;
            };
            let project = summary
                .with_untracked(|s| s.as_ref().filter(|s| !s.sample).map(|s| s.project.clone()));
            let served = bridge_repo.get_untracked();
            let Some(project) = project.filter(|p| served.as_deref() == Some(p.as_str())) else {
                // Nothing of the served repository to follow yet (the sample, another project,
                // or its first index still running, which compares with the disk when done):
                // the hub must not hold calls for it.
                if let Some(link) = weak_link.get() {
                    let _ = link.request(&Frame::RepoApplied {
                        seq: *seq,
                        error: Some("the tab holds no graph of the served repository".into()),
                    });
                }
                return;
            };
            if *rescan && changed.is_empty() && removed.is_empty() {
                // Too many changes for one frame, or the watcher lost events: the whole folder
                // is compared, and the hub hears of `seq` once that is applied.
                load_status.set("Comparing the graph with the files on disk…".into());
                live::compare_with_disk(engine.clone(), weak_link.get().cloned(), project, *seq);
                return;
            }
            load_status.set(format!(
                "Applying {} changed file(s) from disk…",
                changed.len() + removed.len()
            ));
            live::fetch_and_apply(
                engine.clone(),
                weak_link.get().cloned(),
                project,
                *seq,
                changed.clone(),
                removed.clone(),
            );
        });
    }
    link.on_activity(move |frame| {
        if let Frame::Activity {
            agent,
            tool,
            ms,
            ok,
        } = frame
        {
            rows.update(|rows| {
                if !attach_agent(rows, agent, tool) {
                    let seq = rows.first().map_or(0, |r| r.seq + 1);
                    push_row(
                        rows,
                        ActivityRow {
                            seq,
                            agent: Some(agent.clone()),
                            tool: tool.clone(),
                            args: String::new(),
                            ms: *ms as f64,
                            ok: *ok,
                        },
                    );
                }
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
                started_ms: now_ms(),
                phase_started_ms: now_ms(),
            }));
            match source {
                load::Source::Zip(name, bytes) => engine.load_zip(name, bytes, false),
                load::Source::Served(name, bytes) => engine.load_zip(name, bytes, true),
                load::Source::Files(name, files) => engine.load_files(name, files),
                load::Source::Batches(name, batch) => engine.load_served_batches(name, batch),
            }
        })
    };
    let on_error: load::ErrorHandler = Rc::new(move |message: String| {
        progress.set(None);
        load_status.set(message);
    });
    let on_sample: Rc<dyn Fn()> = {
        let engine = engine.clone();
        Rc::new(move || {
            load_status.set(String::new());
            progress.set(Some(LoadProgress {
                phase: "read".into(),
                done: 0,
                total: 0,
                started_ms: now_ms(),
                phase_started_ms: now_ms(),
            }));
            engine.load_sample();
        })
    };
    // What `/api/repo` answered at start, for the first load to reuse.
    let startup_info = StoredValue::new_local(None::<serde_json::Value>);
    wasm_bindgen_futures::spawn_local(async move {
        if let Ok(Some((name, info))) = load::bridge_repo_info().await {
            startup_info.set_value(Some(info));
            set_bridge_repo.set(Some(name));
        }
    });
    // The bridge's repository is indexed at start unless the worker restored that very project:
    // then the snapshot is compared with the files on disk and only the difference is applied
    // (its button re-indexes on demand).
    {
        let (on_files, on_error) = (on_files.clone(), on_error.clone());
        let engine = engine.clone();
        let decided = StoredValue::new(false);
        Effect::new(move |_| {
            let (Some(name), Some(restored)) = (bridge_repo.get(), engine_ready.get()) else {
                return;
            };
            if decided.get_value() {
                return;
            }
            decided.set_value(true);
            // Later loads (the bridge button) ask again: files may have come and gone.
            let known = startup_info.try_update_value(Option::take).flatten();
            if restored.as_deref() != Some(name.as_str()) {
                let (on_files, on_error) = (on_files.clone(), on_error.clone());
                wasm_bindgen_futures::spawn_local(load::load_bridge_repo(
                    name, known, on_files, on_error,
                ));
            } else {
                restoring.set_value(true);
                live::compare_with_disk(engine.clone(), link_slot.get().cloned(), name, 0);
            }
        });
    }
    url_hash_follows_selection(app);
    Effect::new(move |_| apply_theme(&theme.get()));
    let link = StoredValue::new_local(link);
    let engine = StoredValue::new_local(engine);
    let on_files = StoredValue::new_local(on_files);
    let on_error = StoredValue::new_local(on_error);
    let on_sample = StoredValue::new_local(on_sample);
    let cancel = move |_| {
        engine.with_value(EngineClient::cancel);
        progress.set(None);
        load_status.set("Indexing cancelled; the graph held before is back".into());
    };
    let drop = move |event: web_sys::DragEvent| {
        load::dropped(event, on_files.get_value(), on_error.get_value())
    };
    let empty = move || picture.with(|p| p.as_ref().is_none_or(|p| p.view.nodes.is_empty()));
    let view_graph =
        Signal::derive_local(move || picture.with(|p| p.as_ref().map(|p| p.view.clone())));
    let folder_groups = move || {
        picture.with(|p| {
            p.as_ref().map_or(0, |p| {
                p.view.groups.iter().filter(|g| g.id.is_empty()).count()
            })
        })
    };
    let color_by = RwSignal::new(ColorBy::Community);

    view! {
        <div class="app" on:dragover=|e: web_sys::DragEvent| e.prevent_default() on:drop=drop>
        <header class="topbar">
            <span class="brand">"Nexus"</span>
            <span class="project" data-testid="project">{move || summary.get().map(|s| s.project).unwrap_or_default()}</span>
            <search_box::SearchBox />
            <select data-testid="color-by" title="Colour nodes by" on:change=move |e| color_by.set(if event_target_value(&e) == "kind" { ColorBy::Kind } else { ColorBy::Community })>
                <option value="community">"Colour by community"</option>
                <option value="kind">"Colour by kind"</option>
            </select>
            <button class="theme" data-testid="theme" title="Dark or light theme" on:click=move |_| theme.update(|t| *t = if t == "light" { "dark".into() } else { "light".into() })>
                {move || if theme.get() == "light" { "Dark theme" } else { "Light theme" }}
            </button>
            <connection::Indicator state=state impostor=impostor link=link max_attempts=max_attempts />
        </header>
        <aside class="left">
            <section class="panel" data-testid="graph-summary">
                {(!crate::link::secret::present()).then(|| view! {
                    <p class="needs-link" data-testid="needs-link">
                        "This tab has no link to your Nexus bridge yet. Open the address the bridge printed (it ends in ?token=…): "
                        <code>"scripts/run.sh"</code>" and "<code>"nexus-bridge serve"</code>" print it when they start, "
                        <code>"nexus-bridge status --link"</code>" prints it again."
                    </p>
                })}
                <p class="summary" data-testid="summary">{move || summary.get().map(|s| stats_line(&s, folder_groups())).unwrap_or_else(|| "Starting the engine…".into())}</p>
                <load::LoadPanel on_files=on_files on_error=on_error bridge_repo=bridge_repo on_sample=on_sample />
                <div class="progress" data-testid="progress" class:hidden=move || progress.with(Option::is_none)>
                    <span>{move || progress.get().map(|p| progress_text(&p, now_ms())).unwrap_or_default()}</span>
                    <progress max="1" value=move || progress.get().map_or(0.0, |p| if p.total == 0 { 0.0 } else { p.done as f64 / p.total as f64 })></progress>
                    <button data-testid="cancel" on:click=cancel>"Cancel"</button>
                </div>
                <p class="muted status" data-testid="load-status">{move || load_status.get()}</p>
            </section>
            <explorer::Explorer />
        </aside>
        <main class="stage" data-testid="stage" data-picture-ms=move || picture_ms.get().map(|ms| format!("{ms:.0}"))>
            <graph_view::GraphView view=view_graph selected=app.selected lit=app.lit.into() color_by=color_by.into() />
            <div class="empty-state" data-testid="empty-state" class:hidden=move || !empty()>
                <p>"No graph loaded yet — drop a folder or a ZIP here"</p>
                <p class="muted">"or pick one on the left, or load the sample."</p>
            </div>
        </main>
        <aside class="right">
            <nav class="tabs">
                {Tab::ALL.into_iter().map(|t| view! {
                    <button class="tab" class:active=move || app.tab.get() == t data-testid=format!("tab-{}", t.key()) on:click=move |_| app.tab.set(t)>
                        {t.label()}
                        {(t == Tab::Activity).then_some(move || { let n = rows.with(Vec::len); (n > 0).then(|| view! { <span class="badge">{n}</span> }) })}
                    </button>
                }).collect_view()}
            </nav>
            <div class="pane" class:hidden=move || app.tab.get() != Tab::Details><details::Details /></div>
            <div class="pane" class:hidden=move || app.tab.get() != Tab::Code><code_view::CodeView /></div>
            <div class="pane" class:hidden=move || app.tab.get() != Tab::Cypher><query::CypherConsole /></div>
            <div class="pane" class:hidden=move || app.tab.get() != Tab::Ask><query::AskBox /></div>
            <div class="pane" class:hidden=move || app.tab.get() != Tab::Chat><chat::ChatPanel url=hub_url("/chat") /></div>
            <div class="pane" class:hidden=move || app.tab.get() != Tab::Activity><activity::Activity rows=rows highlights=highlights /></div>
            <div class="pane" class:hidden=move || app.tab.get() != Tab::Tools><tools::ToolsPanel hosted=hosted link=link /></div>
            <div class="pane" class:hidden=move || app.tab.get() != Tab::Connection><connection::ConnectionPanel state=state impostor=impostor link=link max_attempts=max_attempts /></div>
        </aside>
        </div>
    }
}

/// What worker events change on the page: its signals, and the link and app state once they
/// exist (the worker starts before either).
struct WorkerPage {
    summary: RwSignal<Option<GraphSummary>>,
    load_status: RwSignal<String>,
    progress: RwSignal<Option<LoadProgress>>,
    engine_ready: RwSignal<Option<Option<String>>>,
    highlights: RwSignal<Vec<(String, String)>>,
    picture: RwSignal<Option<Rc<Picture>>, LocalStorage>,
    picture_ms: RwSignal<Option<f64>>,
    link: Rc<OnceCell<Link>>,
    app: Rc<OnceCell<AppState>>,
    engine: Rc<OnceCell<EngineClient>>,
    /// The repository the bridge serves, once it said.
    bridge_repo: ReadSignal<Option<String>>,
    /// The next comparison with the disk follows a restore (its result joins the status line).
    restoring: StoredValue<bool>,
}

impl WorkerPage {
    /// Whether the bridge serves `project` (only its graph is ever compared with the disk).
    fn serves(&self, project: &str) -> bool {
        self.bridge_repo
            .with_untracked(|r| r.as_deref() == Some(project))
    }

    /// When the graph is the bridge's repository: compared with the disk after a pause.
    fn compare_later(&self, project: &str) {
        if let (true, Some(engine)) = (self.serves(project), self.engine.get()) {
            live::compare_later(engine.clone(), self.link.get().cloned(), project.to_owned());
        }
    }

    /// When the graph is the bridge's repository: the worker compares it with the disk.
    fn compare_with_disk(&self, project: &str) {
        if let (true, Some(engine)) = (self.serves(project), self.engine.get()) {
            live::compare_with_disk(
                engine.clone(),
                self.link.get().cloned(),
                project.to_owned(),
                0,
            );
        }
    }
}

/// Applies one worker event to the page: status line, progress, the graph picture, highlights
/// and, once a graph is loaded or restored, the hub's context.
fn on_worker_event(page: &WorkerPage, event: &FromWorker) {
    match event {
        FromWorker::Ready {
            graph,
            restored,
            ignored,
        } => {
            page.summary.set(Some(graph.clone()));
            if let Some(why) = ignored {
                page.load_status.set(format!(
                    "{why}. Showing the sample until a folder is loaded."
                ));
            }
            if let Some(r) = restored {
                page.load_status.set(format!(
                    "Restored from browser storage in {:.0} ms ({:.1} MB, indexed {})",
                    r.ms,
                    r.bytes as f64 / 1e6,
                    local_time(r.saved_ms)
                ));
                if let Some(link) = page.link.get() {
                    link.set_context(context_frame(graph));
                }
            }
            page.engine_ready
                .set(Some(restored.as_ref().map(|_| graph.project.clone())));
        }
        FromWorker::View { ms, bytes } => match postcard::from_bytes::<ViewGraph>(bytes) {
            Ok(view) => {
                page.picture_ms.set(Some(*ms));
                // A selection stays on the same node (by stable id) when the graph follows a
                // change; one that is gone clears.
                let selected = page.app.get().and_then(|app| {
                    let index = app.selected.get_untracked()?;
                    app.picture.with_untracked(|p| {
                        p.as_ref().and_then(|p| p.node(index)).map(|n| n.id.clone())
                    })
                });
                if let Some(app) = page.app.get() {
                    app.selected.set(None);
                    app.lit.set(Vec::new());
                }
                page.picture.set(Some(Rc::new(Picture::new(view))));
                if let (Some(app), Some(id)) = (page.app.get(), selected) {
                    app.select_id(&id);
                }
            }
            Err(err) => page
                .load_status
                .set(format!("cannot read the graph picture: {err}")),
        },
        FromWorker::Saved {
            saved,
            bytes,
            ms,
            message,
        } => page.load_status.update(|status| {
            expose(
                "__nexusSaved",
                &[
                    ("saved", JsValue::from_bool(*saved)),
                    ("bytes", JsValue::from_f64(*bytes as f64)),
                    ("ms", JsValue::from_f64(*ms)),
                    ("at", JsValue::from_f64(js_sys::Date::now())),
                ],
            );
            if *saved {
                status.push_str(&format!(
                    " · saved to browser storage ({:.1} MB, {ms:.0} ms)",
                    *bytes as f64 / 1e6
                ));
            } else {
                status.push_str(&format!(" · not saved: {message}"));
            }
        }),
        FromWorker::Highlight { ids, color } => {
            page.highlights.update(|list| {
                for id in ids {
                    list.retain(|(old, _)| old != id);
                    list.insert(0, (id.clone(), color.clone()));
                }
                list.truncate(HIGHLIGHT_ROWS);
            });
            if let Some(app) = page.app.get() {
                light_touched(app, &serde_json::json!({ "ids": ids }), color);
            }
        }
        FromWorker::Progress { phase, done, total } => page.progress.update(|p| {
            let started_ms = p.as_ref().map_or_else(now_ms, |p| p.started_ms);
            let phase_started_ms = p
                .as_ref()
                .filter(|p| &p.phase == phase)
                .map_or_else(now_ms, |p| p.phase_started_ms);
            *p = Some(LoadProgress {
                phase: phase.clone(),
                done: *done,
                total: *total,
                started_ms,
                phase_started_ms,
            });
        }),
        FromWorker::Loaded {
            graph,
            ms,
            files_parsed,
            skipped,
            phases,
            memory_bytes,
            left_out,
            resolves_fully,
        } => {
            page.progress.set(None);
            expose_left_out(left_out);
            let phases: Vec<String> = phases
                .iter()
                .map(|(phase, ms)| format!("{phase} {ms:.0} ms"))
                .collect();
            page.load_status.set(format!(
                "Indexed {files_parsed} files in {:.1} s ({skipped} skipped; {}; engine memory {:.0} MB){}{}",
                ms / 1000.0,
                phases.join(", "),
                *memory_bytes as f64 / 1e6,
                left_out_line(left_out),
                if *resolves_fully {
                    " · too large to resolve incrementally: a change resolves every file"
                } else {
                    ""
                },
            ));
            page.summary.set(Some(graph.clone()));
            if let Some(link) = page.link.get() {
                link.set_context(context_frame(graph));
            }
            // Files saved while it was being indexed.
            page.compare_with_disk(&graph.project);
        }
        FromWorker::Stale {
            project,
            changed,
            removed,
            seq,
        } => {
            if changed.is_empty() && removed.is_empty() {
                live::acknowledge(page.link.get(), *seq, None);
                if page.restoring.get_value() {
                    page.restoring.set_value(false);
                    page.load_status
                        .update(|s| s.push_str(" · no file changed on disk since"));
                }
            } else if let Some(engine) = page.engine.get() {
                live::fetch_and_apply(
                    engine.clone(),
                    page.link.get().cloned(),
                    project.clone(),
                    *seq,
                    changed.clone(),
                    removed.clone(),
                );
            }
        }
        FromWorker::Applied {
            seq,
            parsed,
            removed,
            unchanged,
            ms,
            phases,
            graph,
            error,
            ..
        } => {
            live::acknowledge(page.link.get(), *seq, error.clone());
            if let Some(error) = error {
                web_sys::console::warn_1(&format!("nexus: changes not applied: {error}").into());
                // The graph is behind the disk: compared again shortly (a full index that was
                // running compares by itself when it ends).
                if page.progress.get_untracked().is_none() {
                    page.compare_later(&graph.project);
                }
                return;
            }
            let phases_text: Vec<String> = phases
                .iter()
                .map(|(phase, ms)| format!("{phase} {ms:.1}"))
                .collect();
            expose(
                "__nexusApplied",
                &[
                    ("seq", JsValue::from_f64(*seq as f64)),
                    ("ms", JsValue::from_f64(*ms)),
                    ("parsed", JsValue::from_f64(parsed.len() as f64)),
                    ("removed", JsValue::from_f64(removed.len() as f64)),
                    ("phases", JsValue::from_str(&phases_text.join(", "))),
                    ("at", JsValue::from_f64(js_sys::Date::now())),
                ],
            );
            let changed = parsed.len() + removed.len();
            let what = changes_line(parsed, removed, *unchanged);
            if page.restoring.get_value() {
                page.restoring.set_value(false);
                page.load_status.update(|s| {
                    s.push_str(&format!(
                        " · {changed} file(s) changed on disk since, applied in {ms:.0} ms ({what})"
                    ))
                });
            } else {
                page.load_status.set(format!(
                    "Updated from disk at {}: {what} in {ms:.0} ms",
                    local_time(js_sys::Date::now())
                ));
            }
            page.summary.set(Some(graph.clone()));
            if let Some(link) = page.link.get() {
                link.set_context(context_frame(graph));
            }
        }
        FromWorker::Failed { message } => {
            page.progress.set(None);
            page.load_status.set(message.clone());
        }
        FromWorker::Embedded {
            nodes,
            reused,
            ms,
            message,
            restored,
            bytes,
            source,
        } => {
            page.progress.set(None);
            expose(
                "__nexusEmbedded",
                &[
                    ("nodes", JsValue::from_f64(*nodes as f64)),
                    ("reused", JsValue::from_f64(*reused as f64)),
                    ("ms", JsValue::from_f64(*ms)),
                    ("message", JsValue::from_str(message)),
                    ("restored", JsValue::from_bool(*restored)),
                    ("bytes", JsValue::from_f64(*bytes as f64)),
                    ("source", JsValue::from_str(source)),
                ],
            );
        }
        FromWorker::Result { .. } => {}
    }
}

/// The last embedding run (`window.__nexusEmbedded`), change from disk applied
/// (`window.__nexusApplied`) or save (`window.__nexusSaved`), for tests and benchmarks.
fn expose(name: &str, fields: &[(&str, JsValue)]) {
    let report = js_sys::Object::new();
    for (key, value) in fields {
        let _ = js_sys::Reflect::set(&report, &JsValue::from_str(key), value);
    }
    let _ = js_sys::Reflect::set(&js_sys::global(), &JsValue::from_str(name), &report);
}

/// The selected node's stable id lives in the URL hash (`#node=…`), so a reload returns to it.
fn url_hash_follows_selection(app: AppState) {
    let restored = StoredValue::new(false);
    Effect::new(move |_| {
        let has_picture = app
            .picture
            .with(|p| p.as_ref().is_some_and(|p| !p.view.nodes.is_empty()));
        if !has_picture || restored.get_value() {
            return;
        }
        restored.set_value(true);
        if let Some(id) = hash_node() {
            app.select_id(&id);
        }
    });
    Effect::new(move |_| {
        let selected = app.selected.get();
        // Until the picture arrived and the hash was read, the hash is the reload's to read.
        if !restored.get_value() {
            return;
        }
        let id = selected.and_then(|i| {
            app.picture
                .with_untracked(|p| p.as_ref().and_then(|p| p.node(i)).map(|n| n.id.clone()))
        });
        let Some(window) = web_sys::window() else {
            return;
        };
        let hash = id.map_or_else(String::new, |id| {
            format!("#node={}", js_sys::encode_uri_component(&id))
        });
        if let Ok(history) = window.history() {
            let url = format!(
                "{}{}{}",
                window.location().pathname().unwrap_or_default(),
                window.location().search().unwrap_or_default(),
                hash
            );
            let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
        }
    });
}

fn hash_node() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let encoded = hash.strip_prefix("#node=")?;
    js_sys::decode_uri_component(encoded).ok().map(String::from)
}

fn saved_theme() -> String {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item("nexus-theme").ok().flatten())
        .unwrap_or_else(|| {
            let dark = web_sys::window()
                .and_then(|w| {
                    w.match_media("(prefers-color-scheme: light)")
                        .ok()
                        .flatten()
                })
                .is_none_or(|m| !m.matches());
            if dark { "dark" } else { "light" }.into()
        })
}

fn apply_theme(theme: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    if let Some(root) = window.document().and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-theme", theme);
    }
    if let Ok(Some(storage)) = window.local_storage() {
        let _ = storage.set_item("nexus-theme", theme);
    }
}

/// A Unix time in milliseconds as the browser's local date and time.
pub(crate) fn local_time(ms: f64) -> String {
    js_sys::Date::new(&JsValue::from_f64(ms))
        .to_locale_string("default", &JsValue::UNDEFINED)
        .into()
}

/// What a load left out, counted by reason with the first few paths named (all of them are in
/// `window.__nexusLeftOut`); empty when nothing was.
fn left_out_line(left_out: &[LeftOut]) -> String {
    if left_out.is_empty() {
        return String::new();
    }
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for file in left_out {
        match reasons.iter_mut().find(|(why, _)| *why == file.why) {
            Some((_, paths)) => paths.push(&file.path),
            None => reasons.push((&file.why, vec![&file.path])),
        }
    }
    let parts: Vec<String> = reasons
        .iter()
        .map(|(why, paths)| {
            let named: Vec<&str> = paths.iter().take(LEFT_OUT_NAMED).copied().collect();
            let more = paths.len().saturating_sub(LEFT_OUT_NAMED);
            format!(
                "{} {why}: {}{}",
                paths.len(),
                named.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            )
        })
        .collect();
    format!(" · {} left out ({})", left_out.len(), parts.join("; "))
}

/// Paths named per reason in the status line.
const LEFT_OUT_NAMED: usize = 3;

/// Every file left out, as `[{path, why}]` on `window.__nexusLeftOut`, for tests and benchmarks.
fn expose_left_out(left_out: &[LeftOut]) {
    let list = js_sys::Array::new();
    for file in left_out {
        let entry = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&entry, &"path".into(), &file.path.as_str().into());
        let _ = js_sys::Reflect::set(&entry, &"why".into(), &file.why.as_str().into());
        list.push(&entry);
    }
    if let Some(window) = web_sys::window() {
        let _ = js_sys::Reflect::set(&window, &"__nexusLeftOut".into(), &list);
    }
}

fn progress_text(p: &LoadProgress, now: f64) -> String {
    let elapsed = ((now - p.started_ms) / 1000.0).max(0.0);
    if p.total == 0 {
        return format!("{}… {elapsed:.1} s", p.phase);
    }
    let in_phase = ((now - p.phase_started_ms) / 1000.0).max(0.0);
    format!(
        "{} {} / {} · {elapsed:.1} s{}",
        p.phase,
        p.done,
        p.total,
        estimate(p.done, p.total, in_phase)
    )
}

/// " · about N s left" in this phase at its rate so far, once it ran long enough to say
/// (`ESTIMATE_AFTER_S` and a twentieth of the work); else nothing.
fn estimate(done: u64, total: u64, in_phase_s: f64) -> String {
    if done == 0 || done >= total || in_phase_s < ESTIMATE_AFTER_S || done * 20 < total {
        return String::new();
    }
    let left = in_phase_s * (total - done) as f64 / done as f64;
    format!(" · about {left:.0} s left in this phase")
}

/// Seconds of a phase before its estimate is shown.
const ESTIMATE_AFTER_S: f64 = 2.0;

/// What a change did, in a few words: files parsed again (named when few), files removed.
fn changes_line(parsed: &[String], removed: &[String], unchanged: u64) -> String {
    let name = |list: &[String]| -> String {
        if list.len() <= 3 {
            list.join(", ")
        } else {
            format!("{} files", list.len())
        }
    };
    let mut parts = Vec::new();
    if !parsed.is_empty() {
        parts.push(format!("parsed {}", name(parsed)));
    }
    if !removed.is_empty() {
        parts.push(format!("removed {}", name(removed)));
    }
    if parts.is_empty() {
        parts.push(if unchanged > 0 {
            "contents unchanged".to_owned()
        } else {
            "texts only".to_owned()
        });
    }
    parts.join("; ")
}

/// The graph's counts in words; `folder_groups` are the picture's discs of files and symbols that
/// belong to no community (drawn beside the communities, so the line names them too).
fn stats_line(s: &GraphSummary, folder_groups: usize) -> String {
    let mut line = format!(
        "{}{} · {} · {} · {} · {}",
        s.project,
        if s.sample { " (built-in sample)" } else { "" },
        counted(s.files as usize, "file", "files"),
        counted(s.nodes as usize, "node", "nodes"),
        counted(s.edges as usize, "edge", "edges"),
        counted(s.communities as usize, "community", "communities"),
    );
    if folder_groups > 0 {
        line.push_str(&format!(
            " (+ {} of code outside them)",
            counted(folder_groups, "folder group", "folder groups")
        ));
    }
    line.push_str(&format!(
        " · {}",
        counted(s.processes as usize, "process", "processes")
    ));
    line
}

/// `n` and the noun in the number `n` asks for.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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

/// Connects to the hub that served this page with the browser's secret; the engine worker answers.
/// Every call is logged in the activity feed and the nodes it names light up.
fn start_link(engine: EngineClient, app: AppState, rows: RwSignal<Vec<ActivityRow>>) -> Link {
    let link = Link::new(
        LinkConfig {
            url: hub_url("/ws"),
            agent: "nexus-web".into(),
            secrets: crate::link::secret::keys(),
            policy: ReconnectPolicy::default(),
        },
        Rc::new(move |tool, args, session, reply| {
            let started = now_ms();
            let seq = rows.with_untracked(|r| r.first().map_or(0, |r| r.seq + 1));
            let (name, shown) = (tool.to_owned(), activity::short_args(&args));
            let touched = args.clone();
            let id = engine.call_in_session(
                tool,
                args,
                session,
                Box::new(move |outcome: Outcome| {
                    let (ms, ok) = (now_ms() - started, matches!(outcome, Outcome::Ok(_)));
                    // The answer leaves before the feed is redrawn.
                    reply(outcome);
                    rows.update(|rows| {
                        push_row(
                            rows,
                            ActivityRow {
                                seq,
                                agent: None,
                                tool: name,
                                args: shown,
                                ms,
                                ok,
                            },
                        )
                    });
                }),
            );
            // The page lights what the call names while the worker answers, not before it asks.
            light_touched(&app, &touched, TOUCHED_COLOR);
            let engine = engine.clone();
            Box::new(move || engine.cancel_call(id))
        }),
    );
    link.start();
    link
}

/// A socket `path` (`/ws`, `/chat`) on the hub that served this page (same origin). Nothing in
/// the address, hash or any message can name another: the page would hand it the repository,
/// the conversation and the browser's secret.
fn hub_url(path: &str) -> String {
    let host = web_sys::window()
        .and_then(|w| w.location().host().ok())
        .unwrap_or_else(|| "127.0.0.1:54319".into());
    format!("ws://{host}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_estimate_waits_for_a_rate_and_scales_what_is_left() {
        assert_eq!(estimate(0, 100, 10.0), "");
        assert_eq!(estimate(50, 100, 1.0), "", "too early in the phase");
        assert_eq!(estimate(2, 100, 10.0), "", "too little done to say");
        assert_eq!(estimate(100, 100, 10.0), "");
        assert_eq!(estimate(25, 100, 10.0), " · about 30 s left in this phase");
    }

    #[test]
    fn files_left_out_are_counted_by_reason_and_the_first_named() {
        assert_eq!(left_out_line(&[]), "");
        let file = |path: &str, why: &str| LeftOut {
            path: path.into(),
            why: why.into(),
        };
        let line = left_out_line(&[
            file("a.h", "too large"),
            file("b.h", "too large"),
            file("c.h", "too large"),
            file("d.h", "too large"),
            file("e.c", "gone"),
        ]);
        assert_eq!(
            line,
            " · 5 left out (4 too large: a.h, b.h, c.h and 1 more; 1 gone: e.c)"
        );
    }

    fn summary(communities: u32, processes: u32) -> GraphSummary {
        GraphSummary {
            project: "shop".into(),
            sample: false,
            files: 1,
            nodes: 26,
            edges: 70,
            communities,
            processes,
        }
    }

    #[test]
    fn the_stats_line_counts_in_words_and_names_the_folder_groups() {
        assert_eq!(
            stats_line(&summary(2, 1), 1),
            "shop · 1 file · 26 nodes · 70 edges · 2 communities \
             (+ 1 folder group of code outside them) · 1 process"
        );
        assert_eq!(
            stats_line(&summary(1, 3), 0),
            "shop · 1 file · 26 nodes · 70 edges · 1 community · 3 processes"
        );
    }
}
