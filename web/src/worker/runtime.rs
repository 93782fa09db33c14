//! The worker side: receives messages, runs the indexing pipeline with progress, keeps the
//! graph, and answers tool calls through the tool dispatch.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use super::protocol::{FromWorker, GraphSummary, ToWorker};
use crate::engine::Graph;
use crate::engine::ingest::{SourceFile, Sources, index_with_sources};
use crate::engine::sample::sample_graph;
use crate::engine::search::SearchIndex;
use crate::engine::zip_source::read_zip;
use crate::router::RouteCache;
use crate::tools;

struct State {
    graph: Graph,
    search: SearchIndex,
    sources: Sources,
    /// The router's answers about this graph; a new graph gets a new, empty cache.
    route_cache: RefCell<RouteCache>,
}

impl State {
    fn new(graph: Graph, sources: Sources) -> State {
        let search = SearchIndex::build(&graph);
        State {
            graph,
            search,
            sources,
            route_cache: RefCell::new(RouteCache::default()),
        }
    }
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

fn scope() -> Option<DedicatedWorkerGlobalScope> {
    js_sys::global()
        .dyn_into::<DedicatedWorkerGlobalScope>()
        .ok()
}

fn post(message: &FromWorker) {
    if let (Some(scope), Ok(text)) = (scope(), serde_json::to_string(message)) {
        let _ = scope.post_message(&JsValue::from_str(&text));
    }
}

/// Entry point of the worker bin.
pub fn run() {
    console_error_panic_hook::set_once();
    let Some(scope) = scope() else {
        web_sys::console::error_1(&"nexus worker: not running in a dedicated worker".into());
        return;
    };
    let state = Rc::new(RefCell::new(State::new(sample_graph(), Sources::new())));
    post(&FromWorker::Ready {
        graph: summary(&state.borrow().graph, true),
    });
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        handle(&state, event.data());
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
}

fn handle(state: &Rc<RefCell<State>>, data: JsValue) {
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
        ToWorker::Call { id, tool, args } => {
            let state = state.borrow();
            let ctx = tools::ToolContext {
                graph: &state.graph,
                search: &state.search,
                sources: &state.sources,
                route_cache: &state.route_cache,
                now_ms: now(),
            };
            let outcome = tools::dispatch(Some(&ctx), &tool, args);
            post(&FromWorker::Result { id, outcome });
        }
        ToWorker::LoadZip { name } => match read_zip(&buffer(0)) {
            Ok((files, _)) => load(state, name, files),
            Err(err) => post(&FromWorker::Failed {
                message: err.to_string(),
            }),
        },
        ToWorker::LoadFiles { name, paths } => {
            let files = paths
                .into_iter()
                .enumerate()
                .map(|(i, path)| SourceFile {
                    path,
                    bytes: buffer(i as u32),
                })
                .collect();
            load(state, name, files);
        }
    }
}

fn now() -> f64 {
    js_sys::Date::now()
}

fn load(state: &Rc<RefCell<State>>, name: String, files: Vec<SourceFile>) {
    let started = now();
    let mut progress = |phase: crate::engine::ingest::Phase, done: usize, total: usize| {
        post(&FromWorker::Progress {
            phase: phase.as_str().into(),
            done: done as u64,
            total: total as u64,
        });
        true
    };
    match index_with_sources(&name, files, &now, &mut progress) {
        Ok((graph, stats, sources)) => {
            let skipped = stats.skipped_excluded
                + stats.skipped_ignored
                + stats.skipped_secret
                + stats.skipped_binary
                + stats.skipped_large;
            post(&FromWorker::Loaded {
                graph: summary(&graph, false),
                ms: now() - started,
                files_parsed: stats.files_parsed as u64,
                skipped: skipped as u64,
            });
            *state.borrow_mut() = State::new(graph, sources);
        }
        Err(_) => post(&FromWorker::Failed {
            message: "indexing was cancelled".into(),
        }),
    }
}
