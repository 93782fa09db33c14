//! The graph follows the served repository on disk: the hub's `RepoChanged` batches are fetched
//! and handed to the worker one at a time, in order, and the graph is compared with the disk
//! after a restore, a reconnection, a rescan or a batch that could not be applied.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use js_sys::ArrayBuffer;
use nexus_shared::Frame;
use serde::Deserialize;

use super::load;
use crate::link::Link;
use crate::worker::client::EngineClient;

/// A comparison retried after a failure, in milliseconds.
const RETRY_MS: u32 = 2000;

/// One file of the bridge's manifest (`GET /api/repo/manifest`).
#[derive(Debug, Deserialize)]
struct Listed {
    path: String,
    hash: String,
}

#[derive(Debug, Deserialize)]
struct Manifest {
    name: String,
    files: Vec<Listed>,
}

/// One batch to fetch and hand to the worker.
struct Batch {
    engine: EngineClient,
    link: Option<Link>,
    project: String,
    seq: u64,
    changed: Vec<String>,
    removed: Vec<String>,
}

thread_local! {
    /// Batches waiting for the one being fetched: they reach the worker in arrival order, so an
    /// older file's contents never land after a newer one's.
    static QUEUE: RefCell<VecDeque<Batch>> = const { RefCell::new(VecDeque::new()) };
    static RUNNING: Cell<bool> = const { Cell::new(false) };
}

/// Fetches `changed` from the bridge and hands them, with `removed`, to the worker as batch
/// `seq` (0 for a comparison of the tab's own), after every batch queued before it. Until they
/// are applied the worker's answers name them; when the fetch fails the hub hears why and the
/// disk is compared again shortly.
pub fn fetch_and_apply(
    engine: EngineClient,
    link: Option<Link>,
    project: String,
    seq: u64,
    changed: Vec<String>,
    removed: Vec<String>,
) {
    let announced: Vec<String> = changed.iter().chain(&removed).cloned().collect();
    engine.changes_pending(&project, announced);
    QUEUE.with(|q| {
        q.borrow_mut().push_back(Batch {
            engine,
            link,
            project,
            seq,
            changed,
            removed,
        })
    });
    if RUNNING.with(|r| r.replace(true)) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async {
        while let Some(batch) = QUEUE.with(|q| q.borrow_mut().pop_front()) {
            fetch_one(batch).await;
        }
        RUNNING.with(|r| r.set(false));
    });
}

async fn fetch_one(batch: Batch) {
    let Batch {
        engine,
        link,
        project,
        seq,
        changed,
        removed,
    } = batch;
    let zip = if changed.is_empty() {
        Ok(ArrayBuffer::new(0))
    } else {
        load::fetch_files(&changed).await
    };
    match zip {
        Ok(zip) => engine.apply_changes(seq, &project, changed, removed, zip),
        Err(err) => {
            web_sys::console::warn_1(&format!("nexus: changed files not fetched: {err}").into());
            acknowledge(link.as_ref(), seq, Some(err));
            compare_later(engine, link, project);
        }
    }
}

/// Tells the hub that batch `seq` is settled (applied, or not with `error`); the tab's own
/// comparisons (seq 0) are not the hub's.
pub fn acknowledge(link: Option<&Link>, seq: u64, error: Option<String>) {
    if let (Some(link), true) = (link, seq > 0) {
        let _ = link.request(&Frame::RepoApplied { seq, error });
    }
}

/// Compares the graph with the disk after `RETRY_MS` (after a batch that was not applied).
pub fn compare_later(engine: EngineClient, link: Option<Link>, project: String) {
    wasm_bindgen_futures::spawn_local(async move {
        gloo_timers::future::TimeoutFuture::new(RETRY_MS).await;
        compare_with_disk(engine, link, project, 0);
    });
}

/// Asks the bridge for its manifest (every served file with its content hash) and the worker
/// which files differ from its graph of `project`; the worker answers `Stale` with `seq` (the
/// hub's batch this comparison stands for, a rescan; 0 for the tab's own).
pub fn compare_with_disk(engine: EngineClient, link: Option<Link>, project: String, seq: u64) {
    wasm_bindgen_futures::spawn_local(async move {
        let failed = match load::fetch_json("/api/repo/manifest").await {
            Ok(Some(value)) => match serde_json::from_value::<Manifest>(value) {
                // Another project's graph is never made to look like this folder.
                Ok(manifest) if manifest.name != project => Some(format!(
                    "the bridge serves `{}`, not `{project}`",
                    manifest.name
                )),
                Ok(manifest) => {
                    let files = manifest
                        .files
                        .into_iter()
                        .map(|f| (f.path, f.hash))
                        .collect();
                    engine.compare(&project, files, seq);
                    None
                }
                Err(err) => Some(format!("the bridge's manifest is malformed: {err}")),
            },
            Ok(None) => Some("the bridge serves no repository".to_owned()),
            Err(err) => Some(format!("the files on disk were not compared: {err}")),
        };
        if let Some(why) = failed {
            web_sys::console::warn_1(&format!("nexus: {why}").into());
            // The hub must not hold calls for a batch this tab cannot follow.
            acknowledge(link.as_ref(), seq, Some(why));
        }
    });
}
