//! The worker side: restores the last graph from browser storage, receives messages, runs the
//! indexing pipeline with progress, saves snapshots, and answers tool calls through the tools.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageEvent};

use super::cancel::{self, CancelBoard};
use super::embed;
use super::git;
use super::js_reader::JsBufferReader;
use super::live;
use super::parse_pool;
use super::pause;
use super::progress;
use super::protocol::{CodeView, FromWorker, GraphSummary, LeftOut, Restored, ToWorker};
use super::provider::{self, ProviderQueries};
use super::store::{self, Slot, SnapshotStore};
use super::stream;
use nexus_engine::Graph;
use nexus_engine::SearchIndex;
use nexus_engine::embed::VectorIndex;
use nexus_engine::fingerprint::Fingerprint;
use nexus_engine::layout::layout;
use nexus_engine::sample::{SAMPLE_PROJECT, sample_graph, sample_sources};
use nexus_engine::snapshot::{self, SavedVectors, SnapshotError};
use nexus_engine::syntax::highlight;
use nexus_engine::{
    Applied, Filtered, Layers, Phase, SourceFile, Sources, Workspace, filter_files,
    finish_workspace,
};
use nexus_engine::{ZipPaths, read_zip_from};
use nexus_shared::{ErrorCode, Outcome, ToolError, ToolOutput};
use nexus_tools as tools;
use nexus_tools::ToolMemory;

struct State {
    graph: Graph,
    /// The keyword index: of `graph`, or of an earlier version of it while `search_behind`.
    search: SearchIndex,
    /// The keyword index is of the graph a change replaced: a live update swaps the graph
    /// without it, and it is brought up to date (`catch_up_search`) before a call that reads it,
    /// when the change's layers are added, and before vectors are attached.
    search_behind: bool,
    /// The files the graph was built from (texts, facts, content hashes).
    files: Workspace,
    sample: bool,
    /// The project's graph before the last indexing, for `diff`.
    previous: Option<Fingerprint>,
    /// When this graph was indexed or saved, in milliseconds since the Unix epoch.
    indexed_ms: f64,
    /// The tools' memory of this graph (route answers, agent sessions); a new graph gets a new one.
    memory: ToolMemory,
    /// What made the attached vectors (stored with them).
    vectors_source: Option<String>,
    /// Query vectors when the attached vectors are a provider's.
    queries: Option<Arc<ProviderQueries>>,
    /// Files announced as changed on disk whose new contents are not applied yet.
    pending: Vec<String>,
    /// Descriptions the LLM wrote over summaries (node id → text), written again over every
    /// rebuilt graph.
    described: Vec<(String, String)>,
    /// Vectors of an earlier version of this graph that a newer change overtook before they
    /// were reused: the next embedding run reuses their rows.
    unattached: Option<SavedVectors>,
    /// The full snapshot of this project in storage, as (its `saved_ms`, its bytes): a save
    /// writes only the log of files changed since it while that log stays small beside it.
    stored_base: Option<(f64, u64)>,
    /// The layers (communities, processes, summaries) the graph still lacks after a change.
    pending_layers: Option<Layers>,
}

impl State {
    fn new(graph: Graph, files: Workspace, sample: bool, indexed_ms: f64) -> State {
        let search = SearchIndex::build(&graph);
        State {
            graph,
            search,
            search_behind: false,
            files,
            sample,
            previous: None,
            indexed_ms,
            memory: ToolMemory::default(),
            vectors_source: None,
            queries: None,
            pending: Vec::new(),
            described: Vec::new(),
            unattached: None,
            stored_base: None,
            pending_layers: None,
        }
    }

    fn sample() -> State {
        State::new(sample_graph(), Workspace::default(), true, now())
    }

    fn sources(&self) -> &Sources {
        self.files.sources()
    }

    /// Brings the keyword index up to date with the graph when a live update left it behind
    /// (only nodes whose texts changed are tokenized again).
    fn catch_up_search(&mut self) {
        if std::mem::take(&mut self.search_behind) {
            self.search = SearchIndex::rebuilt(std::mem::take(&mut self.search), &self.graph);
        }
    }

    /// The vectors attached to this graph, with what made them, for a new version to reuse.
    fn current_vectors(&self) -> Option<SavedVectors> {
        self.search
            .embeddings()
            .zip(self.vectors_source.clone())
            .map(|(vectors, model)| SavedVectors {
                model,
                saved_ms: self.indexed_ms,
                vectors: vectors.clone(),
            })
    }
}

/// The worker's state and its storage (absent when the browser refuses IndexedDB).
struct Worker {
    state: RefCell<State>,
    store: Option<SnapshotStore>,
    indexing: Cell<bool>,
    /// Bumped by every change waiting to be saved; a delayed save runs only if it is the last.
    save_generation: Cell<u64>,
    /// When the last tool call was answered (`now()`): a change's layers wait for a pause.
    last_call_ms: Cell<f64>,
}

impl embed::EmbedTarget for Worker {
    fn last_call_ms(&self) -> f64 {
        self.last_call_ms.get()
    }

    fn with_graph<R>(&self, generation: f64, f: impl FnOnce(&Graph, &Sources) -> R) -> Option<R> {
        let state = self.state.borrow();
        (state.indexed_ms == generation).then(|| f(&state.graph, state.sources()))
    }

    fn attach(
        &self,
        generation: f64,
        source: embed::Source,
        vectors: VectorIndex,
        queries: Option<Arc<ProviderQueries>>,
    ) {
        let mut state = self.state.borrow_mut();
        if state.indexed_ms == generation {
            // Vectors are not carried over by a rebuilt index: it is rebuilt first.
            state.catch_up_search();
            state.search.attach_vectors(source.embedder, vectors);
            state.vectors_source = Some(source.name);
            state.queries = queries;
        }
    }
}

/// Embeds the current graph in the background (progress as the `embed` phase), reusing the rows
/// of `previous` whose text is unchanged; tool calls are answered between its steps. New vectors
/// are then saved beside the snapshot.
fn start_embedding(worker: &Rc<Worker>, previous: Option<SavedVectors>) {
    let generation = worker.state.borrow().indexed_ms;
    let worker = worker.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let started = now();
        let progress = |done: usize, total: usize| {
            post(&FromWorker::Progress {
                phase: "embed".into(),
                done: done as u64,
                total: total as u64,
            })
        };
        let by_provider =
            embed::embed_with_provider(worker.clone(), generation, previous.as_ref(), &progress)
                .await
                .unwrap_or_else(|err| {
                    web_sys::console::warn_1(
                        &format!("nexus worker: {err}; the built-in model embeds instead").into(),
                    );
                    None
                });
        let done = match by_provider {
            Some(done) => Ok(done),
            None => embed::embed_graph(worker.clone(), generation, previous, progress).await,
        };
        let message = match done {
            Ok(done) => {
                let ms = now() - started;
                let bytes = if done.nodes > 0 && !done.restored {
                    save_vectors(&worker, generation).await
                } else {
                    0
                };
                let source = worker.state.borrow().vectors_source.clone();
                FromWorker::Embedded {
                    nodes: done.nodes as u64,
                    reused: done.reused as u64,
                    ms,
                    message: String::new(),
                    restored: done.restored,
                    bytes,
                    source: source.unwrap_or_default(),
                }
            }
            Err(message) => {
                web_sys::console::warn_1(
                    &format!("nexus worker: no embeddings, search by words only: {message}").into(),
                );
                FromWorker::Embedded {
                    nodes: 0,
                    reused: 0,
                    ms: now() - started,
                    message,
                    restored: false,
                    bytes: 0,
                    source: String::new(),
                }
            }
        };
        post(&message);
    });
}

pub fn summary(graph: &Graph, sample: bool) -> GraphSummary {
    GraphSummary {
        project: graph.project.clone(),
        sample,
        files: graph.file_count() as u32,
        nodes: graph.node_count() as u32,
        edges: graph.edge_count() as u32,
        communities: graph.communities.len() as u32,
        processes: graph.processes.len() as u32,
    }
}

pub(super) fn scope() -> Option<DedicatedWorkerGlobalScope> {
    js_sys::global()
        .dyn_into::<DedicatedWorkerGlobalScope>()
        .ok()
}

thread_local! {
    /// The progress updates that reach the page (`progress.rs`).
    static PROGRESS: RefCell<progress::Throttle> = RefCell::default();
}

fn post(message: &FromWorker) {
    if let FromWorker::Progress { phase, done, total } = message {
        let due = PROGRESS.with(|throttle| throttle.borrow_mut().due(phase, *done, *total, now()));
        if !due {
            return;
        }
    }
    if let (Some(scope), Ok(text)) = (scope(), serde_json::to_string(message)) {
        let _ = scope.post_message(&JsValue::from_str(&text));
    }
}

/// Lays out the graph for the picture and sends it (moved, not copied) to the page.
fn post_view(graph: &Graph) {
    let started = now();
    let bytes = match postcard::to_allocvec(&layout(graph)) {
        Ok(bytes) => bytes,
        Err(err) => {
            return web_sys::console::warn_1(
                &format!("nexus worker: cannot encode the graph picture: {err}").into(),
            );
        }
    };
    let message = FromWorker::View {
        ms: now() - started,
        bytes: Vec::new(),
    };
    let (Some(scope), Ok(text)) = (scope(), serde_json::to_string(&message)) else {
        return;
    };
    let buffer = Uint8Array::from(bytes.as_slice()).buffer();
    let parts = Array::of2(&JsValue::from_str(&text), &buffer);
    let _ = scope.post_message_with_transfer(&parts, &Array::of1(&buffer));
}

/// A file of the current graph with syntax classes, as the JSON text of a [`CodeView`].
fn code_view(state: &State, path: &str) -> Outcome {
    let Some(text) = state.sources().get(path) else {
        return Outcome::Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("`{path}` is not a file of this graph"),
        ));
    };
    let view = CodeView {
        path: path.to_owned(),
        lines: highlight(path, &text),
    };
    match serde_json::to_string(&view) {
        Ok(text) => Outcome::Ok(ToolOutput { text }),
        Err(err) => Outcome::Err(ToolError::new(ErrorCode::Internal, err.to_string())),
    }
}

/// Entry point of the worker bin: restores the last graph, then answers messages. The page
/// queues its messages until `Ready`, so none arrives before the handler is installed.
pub fn run() {
    console_error_panic_hook::set_once();
    let Some(scope) = scope() else {
        web_sys::console::error_1(&"nexus worker: not running in a dedicated worker".into());
        return;
    };
    if scope.location().search().contains("role=parse") {
        return parse_pool::run_helper(scope);
    }
    wasm_bindgen_futures::spawn_local(async move {
        let store = match SnapshotStore::open().await {
            Ok(store) => Some(store),
            Err(err) => {
                web_sys::console::warn_1(&format!("nexus worker: {err}").into());
                None
            }
        };
        let (state, restored, vectors) = match &store {
            Some(store) => restore(store).await,
            None => (State::sample(), Ok(None), None),
        };
        let (restored, ignored) = match restored {
            Ok(restored) => (restored, None),
            Err(why) => (None, Some(why)),
        };
        post(&FromWorker::Ready {
            graph: summary(&state.graph, state.sample),
            restored,
            ignored,
        });
        post_view(&state.graph);
        let worker = Rc::new(Worker {
            state: RefCell::new(state),
            store,
            indexing: Cell::new(false),
            save_generation: Cell::new(0),
            last_call_ms: Cell::new(0.0),
        });
        start_embedding(&worker, vectors);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            handle(&worker, event.data());
        });
        scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The handler lives as long as the worker.
        on_message.forget();
    });
}

/// The last project's snapshot, with the fingerprint of the one before it and the vectors saved
/// beside it; the sample when there is none, or when it cannot be read: then why, for the page (a
/// damaged snapshot is ignored; damaged vectors are reported and embedded again).
async fn restore(
    store: &SnapshotStore,
) -> (
    State,
    Result<Option<Restored>, String>,
    Option<SavedVectors>,
) {
    let started = now();
    let ignored = |why: String| {
        web_sys::console::warn_1(&format!("nexus worker: {why}").into());
        (State::sample(), Err(why), None)
    };
    let project = match store.last_project().await {
        Ok(Some(project)) => project,
        Ok(None) => return (State::sample(), Ok(None), None),
        Err(err) => return ignored(err),
    };
    // The snapshot is read from its stored Blob a piece at a time as it is decoded: its bytes
    // never sit in wasm memory beside the graph they become (wasm memory never shrinks).
    let blob = match store.reader(Slot::Current, &project).await {
        Ok(Some(blob)) => blob,
        Ok(None) => return (State::sample(), Ok(None), None),
        Err(err) => return ignored(err),
    };
    let base_bytes = blob.size();
    let log = store.load(Slot::Log, &project).await.ok().flatten();
    let snap = match snapshot::decode_with_log(blob, log.as_deref()) {
        Ok(snap) => snap,
        // The disk comparison after a restore brings back what a damaged log held.
        Err(err) if log.is_some() => {
            web_sys::console::warn_1(
                &format!("nexus worker: the log of changes of `{project}` is ignored: {err}")
                    .into(),
            );
            let again = match store.reader(Slot::Current, &project).await {
                Ok(Some(blob)) => snapshot::decode_from(blob),
                Ok(None) => Err(SnapshotError::Damaged("it is gone".into())),
                Err(err) => Err(SnapshotError::Damaged(err)),
            };
            match again {
                Ok(snap) => snap,
                Err(err) => {
                    return ignored(format!(
                        "the saved graph of `{project}` was not restored: {err}"
                    ));
                }
            }
        }
        Err(err) => {
            return ignored(format!(
                "the saved graph of `{project}` was not restored: {err}"
            ));
        }
    };
    let bytes = base_bytes + log.as_ref().map_or(0, |l| l.len() as u64);
    drop(log);
    let mut state = State::new(snap.graph, snap.workspace, false, snap.saved_ms);
    // A log costs a rebuild at every restore: the first save after one writes a full snapshot.
    state.stored_base = (snap.logged_files == 0).then_some((snap.base_ms, base_bytes));
    state.described = snap.described;
    let restored = Restored {
        ms: now() - started,
        saved_ms: snap.saved_ms,
        bytes,
    };
    state.previous = match store.load(Slot::PreviousPrint, &project).await {
        Ok(Some(bytes)) => Fingerprint::from_bytes(&bytes),
        _ => None,
    };
    if state.previous.is_none()
        && let Ok(Some(old)) = store.reader(Slot::Previous, &project).await
    {
        state.previous = fingerprint_of_blob(old);
    }
    let vectors = match store.load(Slot::Vectors, &project).await {
        Ok(Some(bytes)) => snapshot::decode_vectors(&bytes, state.graph.node_count())
            .map_err(|err| {
                web_sys::console::warn_1(
                    &format!("nexus worker: the saved vectors of `{project}` are ignored: {err}")
                        .into(),
                )
            })
            .ok(),
        _ => None,
    };
    (state, Ok(Some(restored)), vectors)
}

fn fingerprint_of_blob(blob: impl std::io::Read) -> Option<Fingerprint> {
    snapshot::decode_from(blob)
        .ok()
        .map(|snap| Fingerprint::of(&snap.graph, snap.workspace.sources(), snap.saved_ms))
}

fn handle(worker: &Rc<Worker>, data: JsValue) {
    let parts: Array = data.dyn_into().unwrap_or_default();
    let text = parts.get(0).as_string().unwrap_or_default();
    let message = match serde_json::from_str::<ToWorker>(&text) {
        Ok(message) => message,
        Err(err) => {
            return post(&FromWorker::Failed {
                message: format!("bad message to the engine worker: {err}"),
            });
        }
    };
    let buffer = |i: u32| -> Vec<u8> {
        parts
            .get(i + 1)
            .dyn_into::<ArrayBuffer>()
            .map(|b| Uint8Array::new(&b).to_vec())
            .unwrap_or_default()
    };
    match message {
        ToWorker::CancelBoard => match CancelBoard::from_memory(&parts.get(1)) {
            Some(board) => cancel::install(board),
            None => web_sys::console::warn_1(
                &"nexus worker: the cancel board is not shared memory; calls cannot be stopped"
                    .into(),
            ),
        },
        ToWorker::Bridge { token } => provider::set_token(token),
        ToWorker::Call {
            id,
            tool,
            args,
            session,
        } if git::base_of(&tool, &args).is_some() => {
            let base = git::base_of(&tool, &args).unwrap_or_default();
            let worker = worker.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match git::working_changes(&base).await {
                    Ok(changes) => {
                        answer_call_with(&worker, id, &tool, args, session, Some(&changes))
                    }
                    Err(err) if !cancel::was_cancelled(id) => post(&FromWorker::Result {
                        id,
                        outcome: Outcome::Err(err),
                    }),
                    Err(_) => {}
                }
            });
        }
        ToWorker::Call {
            id,
            tool,
            args,
            session,
        } => {
            if tools::reads_keyword_index(&tool) {
                worker.state.borrow_mut().catch_up_search();
            }
            // A search by meaning over a provider's vectors needs the query's vector first.
            let fetch = {
                let state = worker.state.borrow();
                state.queries.clone().and_then(|queries| {
                    let wanted: Vec<String> = if tool == "route" {
                        tools::meaning_queries(&context(&state), &args)
                    } else {
                        provider::query_to_embed(&tool, &args).into_iter().collect()
                    };
                    let wanted: Vec<String> =
                        wanted.into_iter().filter(|q| !queries.has(q)).collect();
                    (!wanted.is_empty()).then_some((queries, wanted))
                })
            };
            match fetch {
                Some((queries, wanted)) => {
                    let worker = worker.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let mut fetched = Ok(());
                        for query in &wanted {
                            fetched = fetched.and(queries.fetch(query).await);
                        }
                        match fetched {
                            // Semantic search without the query's vector would find nothing
                            // and look like an answer; hybrid still ranks by words.
                            Err(err) if args["mode"].as_str() == Some("semantic") => {
                                if !cancel::was_cancelled(id) {
                                    post(&FromWorker::Result {
                                        id,
                                        outcome: Outcome::Err(
                                            ToolError::new(
                                                ErrorCode::Timeout,
                                                format!("the query could not be embedded: {err}"),
                                            )
                                            .with_hint("retry, or search with mode: keyword")
                                            .retryable(true),
                                        ),
                                    });
                                }
                            }
                            Err(err) => {
                                web_sys::console::warn_1(
                                    &format!("nexus worker: the query was not embedded: {err}")
                                        .into(),
                                );
                                answer_call(&worker, id, &tool, args, session);
                            }
                            Ok(()) => answer_call(&worker, id, &tool, args, session),
                        }
                    });
                }
                None => answer_call(worker, id, &tool, args, session),
            }
        }
        ToWorker::Describe { id, node, text } => {
            let outcome = describe(worker, &node, &text);
            let described = matches!(outcome, Outcome::Ok(_));
            post(&FromWorker::Result { id, outcome });
            if described {
                let worker = worker.clone();
                wasm_bindgen_futures::spawn_local(async move { save(&worker).await });
            }
        }
        ToWorker::Code { id, path } => {
            let outcome = code_view(&worker.state.borrow(), &path);
            post(&FromWorker::Result { id, outcome });
        }
        ToWorker::LoadSample => {
            let files = sample_sources()
                .into_iter()
                .map(|(path, text)| SourceFile {
                    path: path.to_owned(),
                    bytes: text.as_bytes().to_vec(),
                })
                .collect();
            wasm_bindgen_futures::spawn_local(load(
                worker.clone(),
                SAMPLE_PROJECT.to_owned(),
                files,
                None,
            ));
        }
        ToWorker::LoadZip { name, served } => {
            let started = now();
            let zip = parts
                .get(1)
                .dyn_into::<ArrayBuffer>()
                .unwrap_or_else(|_| ArrayBuffer::new(0));
            let paths = if served {
                ZipPaths::AsWritten
            } else {
                ZipPaths::StripCommonRoot
            };
            match read_zip_from(JsBufferReader::new(&zip), paths) {
                Ok((files, _)) => {
                    let unzip_ms = Some(now() - started);
                    wasm_bindgen_futures::spawn_local(load(worker.clone(), name, files, unzip_ms));
                }
                Err(err) => post(&FromWorker::Failed {
                    message: err.to_string(),
                }),
            }
        }
        ToWorker::ChangesPending { project, paths } => {
            let mut state = worker.state.borrow_mut();
            if !state.sample && state.graph.project == project {
                for path in paths {
                    if !state.pending.contains(&path) {
                        state.pending.push(path);
                    }
                }
            }
        }
        ToWorker::ApplyChanges {
            seq,
            project,
            changed,
            removed,
        } => {
            let zip = parts
                .get(1)
                .dyn_into::<ArrayBuffer>()
                .unwrap_or_else(|_| ArrayBuffer::new(0));
            apply_changes(worker, seq, &project, changed, removed, &zip);
        }
        ToWorker::Compare {
            project,
            files,
            seq,
        } => {
            let mut state = worker.state.borrow_mut();
            let (changed, removed) = if !state.sample && state.graph.project == project {
                state.files.stale(&files)
            } else {
                (Vec::new(), Vec::new())
            };
            // The disk is the truth: a file announced earlier (say, whose fetch failed) that no
            // longer differs is pending no more.
            let differ: std::collections::HashSet<&String> =
                changed.iter().chain(&removed).collect();
            state.pending.retain(|p| differ.contains(p));
            post(&FromWorker::Stale {
                project: state.graph.project.clone(),
                changed,
                removed,
                seq,
            });
        }
        ToWorker::LoadServedBatches { name, batch_files } => {
            wasm_bindgen_futures::spawn_local(load_batches(worker.clone(), name, batch_files));
        }
        ToWorker::LoadFiles { name, paths } => {
            let files = paths
                .into_iter()
                .enumerate()
                .map(|(i, path)| SourceFile {
                    path,
                    bytes: buffer(i as u32),
                })
                .collect();
            wasm_bindgen_futures::spawn_local(load(worker.clone(), name, files, None));
        }
    }
}

/// Applies files changed on disk to the graph of `project`: only they are parsed again, the
/// edges are rebuilt from every file's facts (equal to a full index of the files as they now
/// are), agent sessions carried over by stable id; `Applied` is answered then, and tool calls
/// are answered from that graph (the keyword index follows before the first call that reads
/// it: `State::catch_up_search`). Its communities, processes and
/// summaries follow once calls pause (`add_pending_layers`), then the vectors are embedded again in the
/// background reusing every row whose text is unchanged, and the picture and the snapshot
/// follow.
fn apply_changes(
    worker: &Rc<Worker>,
    seq: u64,
    project: &str,
    changed: Vec<String>,
    removed: Vec<String>,
    zip: &ArrayBuffer,
) {
    let started = pause::step_clock();
    let refuse = |error: String| {
        let state = worker.state.borrow();
        post(&FromWorker::Applied {
            seq,
            parsed: Vec::new(),
            removed: Vec::new(),
            unchanged: 0,
            rebuilt: false,
            ms: pause::step_clock() - started,
            phases: Vec::new(),
            graph: summary(&state.graph, state.sample),
            error: Some(error),
        });
    };
    {
        let state = worker.state.borrow();
        if state.sample || state.graph.project != project {
            return refuse(format!(
                "the tab holds `{}`, not `{project}`",
                state.graph.project
            ));
        }
    }
    if worker.indexing.get() {
        return refuse("a repository is being indexed; the changes are compared after it".into());
    }
    let changes = match live::changes_from_zip(zip, &changed, &removed) {
        Ok(changes) => changes,
        Err(err) => return refuse(err),
    };
    let result =
        worker
            .state
            .borrow_mut()
            .files
            .apply_edges(changes, &pause::step_clock, &mut |_, _, _| true);
    let (rebuilt, applied) = match result {
        Ok(done) => done,
        Err(_) => return refuse("applying the changes was cancelled".into()),
    };
    let (rebuilt, layers) = match rebuilt {
        Some((graph, _, layers)) => (Some(graph), Some(layers)),
        None => (None, None),
    };
    let layered = layers.is_some();
    let mut swap_ms = Vec::new();
    let previous_vectors = {
        let mut state = worker.state.borrow_mut();
        let done: std::collections::HashSet<&String> = changed.iter().chain(&removed).collect();
        state.pending.retain(|p| !done.contains(p));
        match rebuilt {
            Some(mut graph) => {
                let swapping = pause::step_clock();
                // Until the layers are added, folders and files show their summaries from before
                // the change, and the keyword index keeps their entries.
                nexus_engine::carry_summaries(&state.graph, &mut graph);
                swap_ms.push(("carry summaries", pause::step_clock() - swapping));
                // Those of an earlier change were for the graph this one replaces.
                state.pending_layers = layers;
                let texts: Vec<String> = touched_paths(&changed, &removed, &applied)
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                let previous = swap_graph(&mut state, graph, &texts, &mut swap_ms);
                Some(previous)
            }
            None => {
                if applied.texts > 0 || !applied.removed.is_empty() {
                    // `read` and `grep` see the new texts; cached answers may not.
                    let memory = std::mem::take(&mut state.memory);
                    let texts: Vec<&str> = touched_paths(&changed, &removed, &applied);
                    state.memory = memory.carried_over(
                        &state.graph,
                        &state.graph,
                        state.files.sources(),
                        &texts,
                    );
                }
                None
            }
        }
    };
    report_applied(
        worker,
        seq,
        &applied,
        &swap_ms,
        pause::step_clock() - started,
    );
    if let (Some(previous), true) = (previous_vectors, layered) {
        // The agent that made the change asks next: its calls are answered first, from the
        // edges; the layers follow once calls pause (`pause::calls_pause`), and the picture and
        // the vectors (the layout alone takes ~0.6 s on Django) once changes have paused for
        // `SETTLE_MS`.
        let generation = worker.state.borrow().indexed_ms;
        let worker = worker.clone();
        wasm_bindgen_futures::spawn_local(async move {
            // The agent's next call comes within a quiet interval of the change, if it comes.
            gloo_timers::future::TimeoutFuture::new(pause::CALLS_QUIET_MS).await;
            pause::calls_pause(|| worker.last_call_ms.get()).await;
            add_pending_layers(&mut worker.state.borrow_mut());
            gloo_timers::future::TimeoutFuture::new(SETTLE_MS).await;
            if worker.state.borrow().indexed_ms != generation {
                // A newer change came first: its embedding run reuses these rows.
                let mut state = worker.state.borrow_mut();
                if state.unattached.is_none() {
                    state.unattached = previous;
                }
                return;
            }
            post_view(&worker.state.borrow().graph);
            start_embedding(&worker, previous);
        });
    }
    if applied.rebuilt || applied.texts > 0 || !applied.removed.is_empty() {
        schedule_save(worker);
    }
}

/// Every path whose text a batch may have changed: those announced as changed or removed, and
/// those the change took out besides (a `.gitignore` now ignoring them).
fn touched_paths<'a>(
    changed: &'a [String],
    removed: &'a [String],
    applied: &'a Applied,
) -> Vec<&'a str> {
    changed
        .iter()
        .chain(removed)
        .chain(&applied.removed)
        .chain(&applied.parsed)
        .map(String::as_str)
        .collect()
}

/// Adds communities, processes and summaries to the graph of edges the last change left, if it
/// still lacks them (the same generation: `indexed_ms` and the pending vectors stay), with the
/// keyword index and the tools' memory following. Until then tools see every symbol and edge of
/// the change but no communities or processes, and folder and file summaries from before the
/// change.
fn add_pending_layers(state: &mut State) {
    let Some(layers) = state.pending_layers.take() else {
        return;
    };
    // The layers only add nodes: every node keeps its id.
    let (mut graph, _) = layers.add_to(std::mem::take(&mut state.graph), &now);
    for (node, text) in &state.described {
        let _ = nexus_engine::describe(&mut graph, node, text);
    }
    state.search = SearchIndex::rebuilt(std::mem::take(&mut state.search), &graph);
    state.search_behind = false;
    // Sessions keep their ids; cached answers made without the layers are dropped.
    let memory = std::mem::take(&mut state.memory);
    // The layers change no text.
    state.memory = memory.carried_over(&graph, &graph, state.files.sources(), &[]);
    state.graph = graph;
}

/// Puts a graph rebuilt after a change in place of the current one: descriptions written
/// again, the keyword index left behind (`State::catch_up_search`), sessions carried over;
/// returns the old vectors for reuse. The time of each step is added to `steps_ms`.
fn swap_graph(
    state: &mut State,
    mut graph: Graph,
    texts_changed: &[String],
    steps_ms: &mut Vec<(&'static str, f64)>,
) -> Option<SavedVectors> {
    let started = pause::step_clock();
    for (node, text) in &state.described {
        // A described node that is gone keeps no description.
        let _ = nexus_engine::describe(&mut graph, node, text);
    }
    let previous = state.current_vectors().or_else(|| state.unattached.take());
    let carrying = pause::step_clock();
    steps_ms.push(("descriptions", carrying - started));
    // The keyword index follows before the first call that reads it, or with the layers.
    state.search_behind = true;
    let memory = std::mem::take(&mut state.memory);
    let texts: Vec<&str> = texts_changed.iter().map(String::as_str).collect();
    state.memory = memory.carried_over(&state.graph, &graph, state.files.sources(), &texts);
    steps_ms.push(("tool memory", pause::step_clock() - carrying));
    state.graph = graph;
    state.indexed_ms = js_sys::Date::now();
    state.vectors_source = None;
    state.queries = None;
    previous
}

/// Tells the page a batch is applied: what it did, each phase's time, the resolve phase's parts
/// (as `resolve/part`, within it) and the swap's steps (the keyword index follows the new graph
/// there), and the whole in `ms`.
fn report_applied(
    worker: &Worker,
    seq: u64,
    applied: &Applied,
    swap_ms: &[(&'static str, f64)],
    ms: f64,
) {
    let state = worker.state.borrow();
    post(&FromWorker::Applied {
        seq,
        parsed: applied.parsed.clone(),
        removed: applied.removed.clone(),
        unchanged: applied.unchanged as u64,
        rebuilt: applied.rebuilt,
        ms,
        phases: applied
            .phase_ms
            .iter()
            .map(|(phase, ms)| (phase.as_str().to_owned(), *ms))
            .chain(
                applied
                    .resolve_parts
                    .iter()
                    .map(|(part, ms)| (format!("resolve/{part}"), *ms)),
            )
            .chain(swap_ms.iter().map(|(step, ms)| ((*step).to_owned(), *ms)))
            .collect(),
        graph: summary(&state.graph, state.sample),
        error: None,
    });
}

/// How long after a change the picture is laid out again and the vectors embedded, unless
/// another change comes first.
const SETTLE_MS: u32 = 250;

/// How long after the last change the snapshot is saved: a burst of saves on disk writes it once.
const SAVE_AFTER_MS: u32 = 1500;

/// Saves the snapshot once changes stop coming for `SAVE_AFTER_MS`.
fn schedule_save(worker: &Rc<Worker>) {
    let generation = worker.save_generation.get() + 1;
    worker.save_generation.set(generation);
    let worker = worker.clone();
    wasm_bindgen_futures::spawn_local(async move {
        gloo_timers::future::TimeoutFuture::new(SAVE_AFTER_MS).await;
        if worker.save_generation.get() == generation {
            save(&worker).await;
        }
    });
}

/// The log of files changed since the stored full snapshot of the state's project, when there is
/// one and the log stays under `1 / LOG_SHARE` of it (else a full snapshot is due).
fn small_log(state: &State) -> Option<(String, Vec<u8>)> {
    let (base_ms, base_bytes) = state.stored_base.filter(|_| !state.sample)?;
    let log =
        snapshot::encode_log(&state.files, base_ms, state.indexed_ms, &state.described).ok()?;
    ((log.len() as u64).saturating_mul(LOG_SHARE) <= base_bytes)
        .then(|| (state.graph.project.clone(), log))
}

/// A log of changes is saved instead of a full snapshot while it is at most this fraction of
/// the snapshot (restoring applies it and builds the graph again from the files' facts).
const LOG_SHARE: u64 = 8;

/// Writes a description over a node's summary as a new generation of the graph: the keyword
/// index is rebuilt and the vectors embedded again from the current ones (only the changed text
/// is embedded); the caller saves the snapshot.
fn describe(worker: &Rc<Worker>, node: &str, text: &str) -> Outcome {
    let previous = {
        let mut state = worker.state.borrow_mut();
        let written = match nexus_engine::describe(&mut state.graph, node, text) {
            Ok(written) => {
                state.described.retain(|(n, _)| n != node);
                state.described.push((node.to_owned(), text.to_owned()));
                written
            }
            Err(message) => {
                return Outcome::Err(ToolError::new(ErrorCode::InvalidParams, message));
            }
        };
        let previous = state.current_vectors();
        state.search = SearchIndex::rebuilt(std::mem::take(&mut state.search), &state.graph);
        state.search_behind = false;
        state.indexed_ms = js_sys::Date::now();
        state.vectors_source = None;
        state.queries = None;
        (previous, written)
    };
    let (previous, written) = previous;
    start_embedding(worker, previous);
    Outcome::Ok(ToolOutput { text: written })
}

/// The tools' view of the worker's state, now.
fn context(state: &State) -> tools::ToolContext<'_> {
    context_with(state, None, None)
}

/// The tools' view of the worker's state with the working tree's changes against a commit.
fn context_with<'a>(
    state: &'a State,
    working_changes: Option<&'a tools::WorkingChanges>,
    session: Option<&'a str>,
) -> tools::ToolContext<'a> {
    tools::ToolContext {
        graph: &state.graph,
        search: &state.search,
        sources: state.sources(),
        previous: state.previous.as_ref(),
        working_changes,
        changed_ms: (!state.sample).then_some(state.indexed_ms),
        memory: &state.memory,
        now_ms: now(),
        clock: now,
        cancelled: cancel::running_call_cancelled,
        session,
    }
}

/// Runs one tool call and posts its answer (none when it was cancelled).
fn answer_call(
    worker: &Worker,
    id: u64,
    tool: &str,
    args: serde_json::Value,
    session: Option<String>,
) {
    answer_call_with(worker, id, tool, args, session, None);
}

/// [`answer_call`] with the working tree's changes against a commit (`diff` with `base`).
fn answer_call_with(
    worker: &Worker,
    id: u64,
    tool: &str,
    args: serde_json::Value,
    session: Option<String>,
    working_changes: Option<&tools::WorkingChanges>,
) {
    // The page dropped a cancelled call's reply: it is neither run nor answered.
    if cancel::was_cancelled(id) {
        return;
    }
    if tools::reads_keyword_index(tool) {
        // A change may have been applied while the call waited (`diff` fetching git).
        worker.state.borrow_mut().catch_up_search();
    }
    let state = worker.state.borrow();
    let ctx = context_with(&state, working_changes, session.as_deref());
    let answer = {
        let _running = cancel::running(id);
        tools::answer(Some(&ctx), tool, args)
    };
    worker.last_call_ms.set(now());
    if cancel::was_cancelled(id) {
        return;
    }
    if let Some(marked) = answer.highlight {
        post(&FromWorker::Highlight {
            ids: marked.ids,
            color: marked.color,
        });
    }
    post(&FromWorker::Result {
        id,
        outcome: tools::with_pending_note(answer.outcome, &state.pending),
    });
}

fn now() -> f64 {
    js_sys::Date::now()
}

/// Indexes files (parsing spread over helper workers), then swaps in the new graph and saves
/// it. Tool calls keep being answered from the old graph while this runs. `unzip_ms` is the time
/// the files took to unpack, reported as a phase.
async fn load(worker: Rc<Worker>, name: String, files: Vec<SourceFile>, unzip_ms: Option<f64>) {
    if worker.indexing.replace(true) {
        return post(&FromWorker::Failed {
            message: "a repository is already being indexed; wait for it or press Cancel".into(),
        });
    }
    let started = now() - unzip_ms.unwrap_or(0.0);
    let filtered = filter_files(files, &now);
    let to_parse = filtered.to_parse.len();
    progress(Phase::Filter, to_parse, to_parse);
    let filtered = parse_pool::parse_all(filtered, &mut |done, total| {
        progress(Phase::Parse, done, total);
    })
    .await;
    let before: Vec<(String, f64)> = unzip_ms
        .map(|ms| ("unzip".to_owned(), ms))
        .into_iter()
        .collect();
    finish_load(&worker, &name, filtered, started, before, Vec::new()).await;
}

/// Indexes the bridge's repository fetched in batches (`stream.rs`), each parsed as it arrives;
/// then as [`load`].
async fn load_batches(worker: Rc<Worker>, name: String, batch_files: usize) {
    if worker.indexing.replace(true) {
        return post(&FromWorker::Failed {
            message: "a repository is already being indexed; wait for it or press Cancel".into(),
        });
    }
    let started = now();
    let streamed = stream::fetch_and_parse(batch_files, &mut |phase, done, total| {
        post(&FromWorker::Progress {
            phase: phase.to_owned(),
            done,
            total,
        });
    })
    .await;
    match streamed {
        Ok(streamed) => {
            finish_load(
                &worker,
                &name,
                streamed.filtered,
                started,
                streamed.phases,
                streamed.left_out,
            )
            .await;
        }
        Err(message) => {
            worker.indexing.set(false);
            post(&FromWorker::Failed { message });
        }
    }
}

fn progress(phase: Phase, done: usize, total: usize) -> bool {
    post(&FromWorker::Progress {
        phase: phase.as_str().into(),
        done: done as u64,
        total: total as u64,
    });
    true
}

/// Resolution and the layers over parsed files, then the new graph replaces the old one
/// (`Loaded`, the picture, embeddings) and is saved. `before` are the phases that came before
/// the filter's (unzip, transfer), `left_out` the files the source had but did not deliver.
async fn finish_load(
    worker: &Rc<Worker>,
    name: &str,
    filtered: Filtered,
    started: f64,
    before: Vec<(String, f64)>,
    left_out: Vec<LeftOut>,
) {
    let result = finish_workspace(name, filtered, Vec::new(), &now, &mut progress);
    worker.indexing.set(false);
    let Ok((graph, stats, files)) = result else {
        return post(&FromWorker::Failed {
            message: "indexing was cancelled".into(),
        });
    };
    let search_started = now();
    let mut fresh = State::new(graph, files, false, js_sys::Date::now());
    let mut phases = before;
    phases.extend(
        stats
            .phase_ms
            .iter()
            .map(|(phase, ms)| (phase.as_str().to_owned(), *ms)),
    );
    phases.push(("search index".to_owned(), now() - search_started));
    {
        let old = worker.state.borrow();
        if !old.sample && old.graph.project == fresh.graph.project {
            fresh.previous = Some(Fingerprint::of(&old.graph, old.sources(), old.indexed_ms));
        }
    }
    let skipped = stats.skipped_excluded
        + stats.skipped_ignored
        + stats.skipped_secret
        + stats.skipped_binary
        + stats.skipped_large;
    post(&FromWorker::Loaded {
        graph: summary(&fresh.graph, false),
        ms: now() - started,
        files_parsed: stats.files_parsed as u64,
        skipped: skipped as u64,
        phases,
        memory_bytes: wasm_memory_bytes(),
        left_out,
        resolves_fully: stats.resolve.memo_over_budget,
    });
    let previous = {
        let old = worker.state.borrow();
        (old.graph.project == fresh.graph.project)
            .then(|| old.current_vectors())
            .flatten()
    };
    *worker.state.borrow_mut() = fresh;
    post_view(&worker.state.borrow().graph);
    start_embedding(worker, previous);
    save(worker).await;
}

/// Saves the current graph; the snapshot it replaces becomes the project's previous one (and the
/// `diff` baseline when this tab had not held that project before).
async fn save(worker: &Worker) {
    let started = now();
    let Some(store) = &worker.store else {
        return post(&FromWorker::Saved {
            saved: false,
            bytes: 0,
            ms: 0.0,
            message:
                "browser storage (IndexedDB) is not available; the graph lives until the tab closes"
                    .into(),
        });
    };
    let log = small_log(&worker.state.borrow());
    if let Some((project, log)) = log {
        let result = store.save_log(&project, &log).await;
        if result.is_err() {
            // The next save writes everything.
            worker.state.borrow_mut().stored_base = None;
        }
        return post(&FromWorker::Saved {
            saved: result.is_ok(),
            bytes: log.len() as u64,
            ms: now() - started,
            message: result.err().unwrap_or_default(),
        });
    }
    let (project, blob, base_ms) = {
        let mut state = worker.state.borrow_mut();
        // A full snapshot holds the graph with its layers.
        add_pending_layers(&mut state);
        let blob = staged_blob(&mut |sink| {
            snapshot::encode_into(&state.graph, &state.files, state.indexed_ms, sink)
        });
        // Changes applied while the blob is stored go to the log after it.
        state.files.mark_saved();
        state.stored_base = None;
        (state.graph.project.clone(), blob, state.indexed_ms)
    };
    let result = match blob {
        Ok(blob) => store
            .save(&project, &blob)
            .await
            .map(|old| (blob.size() as usize, old)),
        Err(err) => Err(err),
    };
    if let Ok((bytes, _)) = &result {
        let mut state = worker.state.borrow_mut();
        if state.graph.project == project {
            state.stored_base = Some((base_ms, *bytes as u64));
        }
    }
    match result {
        Ok((bytes, replaced)) => {
            let wants_baseline = {
                let state = worker.state.borrow();
                state.previous.is_none() && state.graph.project == project
            };
            if let (true, Some(old)) = (wants_baseline, replaced) {
                let print = store::StoredReader::new(old)
                    .ok()
                    .and_then(fingerprint_of_blob);
                let mut state = worker.state.borrow_mut();
                // The graph may have changed while the old blob was read.
                if state.previous.is_none() && state.graph.project == project {
                    state.previous = print;
                }
            }
            let print = {
                let state = worker.state.borrow();
                state
                    .previous
                    .as_ref()
                    .filter(|_| state.graph.project == project)
                    .and_then(|p| p.to_bytes().ok())
            };
            if let Some(print) = print
                && let Err(err) = store.save_previous_print(&project, &print).await
            {
                web_sys::console::warn_1(&format!("nexus worker: {err}").into());
            }
            post(&FromWorker::Saved {
                saved: true,
                bytes: bytes as u64,
                ms: now() - started,
                message: String::new(),
            });
        }
        Err(message) => post(&FromWorker::Saved {
            saved: false,
            bytes: 0,
            ms: now() - started,
            message,
        }),
    }
}

/// Bytes of snapshot gathered in one reused JS buffer before they join the Blob.
const BLOB_STEP: u32 = 4 * 1024 * 1024;
const _: () = assert!(snapshot::CHUNK_BYTES as u32 <= BLOB_STEP);

/// Saves the vectors of the graph of `generation` beside its snapshot (not the sample's, which
/// is never saved), so a reload need not embed it again; returns the saved size.
async fn save_vectors(worker: &Worker, generation: f64) -> u64 {
    let Some(store) = &worker.store else {
        return 0;
    };
    let (project, blob) = {
        let state = worker.state.borrow();
        let (Some(vectors), Some(model)) = (state.search.embeddings(), &state.vectors_source)
        else {
            return 0;
        };
        if state.sample || state.indexed_ms != generation {
            return 0;
        }
        let blob = staged_blob(&mut |sink| {
            snapshot::encode_vectors_into(model, generation, vectors, sink)
        });
        (state.graph.project.clone(), blob)
    };
    let saved = match blob {
        Ok(blob) => store
            .save_vectors(&project, &blob)
            .await
            .map(|()| blob.size() as u64),
        Err(err) => Err(err),
    };
    saved.unwrap_or_else(|err| {
        web_sys::console::warn_1(&format!("nexus worker: vectors not saved: {err}").into());
        0
    })
}

/// Where an encoder hands its chunks.
type Sink<'a> = &'a mut dyn FnMut(&[u8]);

/// What `encode` writes (through the sink it is given), as a Blob built a chunk at a time: the
/// whole blob never sits in wasm memory (which would keep that size for the life of the worker)
/// nor in this worker's JS heap (a Blob's bytes live with the browser; the one staging buffer is
/// reused).
fn staged_blob(encode: &mut dyn FnMut(Sink) -> Result<(), String>) -> Result<Blob, String> {
    let failed = |e: JsValue| format!("cannot build the snapshot: {e:?}");
    let mut blob = Blob::new().map_err(failed)?;
    let staging = Uint8Array::new_with_length(BLOB_STEP);
    let mut filled = 0u32;
    let mut error = None;
    // The Blob constructor copies the staged bytes, so the buffer can be filled again.
    let join = |blob: &mut Blob, filled: u32| -> Result<(), JsValue> {
        let parts = Array::of2(blob, &staging.subarray(0, filled));
        *blob = Blob::new_with_blob_sequence(&parts)?;
        Ok(())
    };
    encode(&mut |chunk| {
        let len = chunk.len() as u32;
        if filled + len > BLOB_STEP {
            if error.is_none() {
                error = join(&mut blob, filled).err();
            }
            filled = 0;
        }
        staging.subarray(filled, filled + len).copy_from(chunk);
        filled += len;
    })?;
    if let Some(e) = error {
        return Err(failed(e));
    }
    join(&mut blob, filled).map_err(failed)?;
    Ok(blob)
}

/// The size of this worker's wasm memory.
fn wasm_memory_bytes() -> u64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map(|m| {
            m.buffer()
                .dyn_into::<ArrayBuffer>()
                .map_or(0, |b| u64::from(b.byte_length()))
        })
        .unwrap_or(0)
}
