//! The graph follows the served repository on disk: the hub's `RepoChanged` batches are fetched
//! and handed to the worker, and a restored or reconnected graph is compared with the disk.

use js_sys::ArrayBuffer;
use nexus_shared::Frame;
use serde::Deserialize;

use super::load;
use crate::link::Link;
use crate::worker::client::EngineClient;

/// A manifest retried after a failed fetch, in milliseconds.
const RETRY_MS: u32 = 2000;

/// One file of the bridge's manifest (`GET /api/repo/manifest`).
#[derive(Debug, Deserialize)]
struct Listed {
    path: String,
    hash: String,
}

#[derive(Debug, Deserialize)]
struct Manifest {
    files: Vec<Listed>,
}

/// Fetches `changed` from the bridge and hands them, with `removed`, to the worker as batch
/// `seq` (0 for a comparison of the tab's own). Until they are applied the worker's answers
/// name them; when the fetch fails the hub hears why and the disk is compared again shortly.
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
    wasm_bindgen_futures::spawn_local(async move {
        let zip = if changed.is_empty() {
            Ok(ArrayBuffer::new(0))
        } else {
            load::fetch_files(&changed).await
        };
        match zip {
            Ok(zip) => engine.apply_changes(seq, &project, changed, removed, zip),
            Err(err) => {
                web_sys::console::warn_1(
                    &format!("nexus: changed files not fetched: {err}").into(),
                );
                if let (Some(link), true) = (&link, seq > 0) {
                    let _ = link.request(&Frame::RepoApplied {
                        seq,
                        error: Some(err),
                    });
                }
                gloo_timers::future::TimeoutFuture::new(RETRY_MS).await;
                compare_with_disk(engine, project);
            }
        }
    });
}

/// Asks the bridge for its manifest (every served file with its content hash) and the worker
/// which files differ from its graph of `project`; the worker answers `Stale`.
pub fn compare_with_disk(engine: EngineClient, project: String) {
    wasm_bindgen_futures::spawn_local(async move {
        match load::fetch_json("/api/repo/manifest").await {
            Ok(Some(value)) => match serde_json::from_value::<Manifest>(value) {
                Ok(manifest) => {
                    let files = manifest
                        .files
                        .into_iter()
                        .map(|f| (f.path, f.hash))
                        .collect();
                    engine.compare(&project, files);
                }
                Err(err) => web_sys::console::warn_1(
                    &format!("nexus: the bridge's manifest is malformed: {err}").into(),
                ),
            },
            Ok(None) => {}
            Err(err) => web_sys::console::warn_1(
                &format!("nexus: the files on disk were not compared: {err}").into(),
            ),
        }
    });
}
