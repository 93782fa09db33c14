//! The page side of the engine worker: starts it, sends sources and tool calls (file contents
//! transferred, not copied), routes answers to their callers and events to the UI.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use nexus_shared::{ErrorCode, Outcome, ToolError};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

use super::cancel::CancelBoard;
use super::protocol::{FromWorker, ToWorker};

/// The worker's loader, emitted by Trunk next to the page (`data-loader-shim`).
pub const WORKER_URL: &str = "./nexus-worker_loader.js";

/// Receives an answer to one call.
pub type Reply = Box<dyn FnOnce(Outcome)>;
type Listener = Rc<dyn Fn(&FromWorker)>;

struct Inner {
    worker: Option<Worker>,
    _on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
    /// False until the worker says `Ready`: a message posted before its wasm has installed the
    /// message handler would be lost, so messages wait in `queue` until then.
    ready: bool,
    queue: Vec<(Array, Array)>,
    pending: HashMap<u64, Reply>,
    next_id: u64,
    listener: Option<Listener>,
    /// Shared cancel flags (absent when the page is not cross-origin isolated).
    board: Option<CancelBoard>,
}

/// A handle on the engine worker; clones share it.
#[derive(Clone)]
pub struct EngineClient(Rc<RefCell<Inner>>);

impl EngineClient {
    /// Starts the worker. Events other than call results go to `listener`.
    pub fn start(listener: impl Fn(&FromWorker) + 'static) -> EngineClient {
        let client = EngineClient(Rc::new(RefCell::new(Inner {
            worker: None,
            _on_message: None,
            ready: false,
            queue: Vec::new(),
            pending: HashMap::new(),
            next_id: 0,
            listener: Some(Rc::new(listener)),
            board: CancelBoard::new(),
        })));
        client.spawn();
        client
    }

    fn spawn(&self) {
        let worker = match Worker::new(WORKER_URL) {
            Ok(worker) => worker,
            Err(err) => {
                self.emit(&FromWorker::Failed {
                    message: format!("cannot start the engine worker: {err:?}"),
                });
                return;
            }
        };
        let weak = Rc::downgrade(&self.0);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let Some(inner) = weak.upgrade() else { return };
            // Events with a buffer come as [json, buffer]; the rest as a JSON string.
            let data = event.data();
            let (text, buffer) = match data.dyn_ref::<Array>() {
                Some(parts) => (
                    parts.get(0).as_string().unwrap_or_default(),
                    parts.get(1).dyn_into::<ArrayBuffer>().ok(),
                ),
                None => (data.as_string().unwrap_or_default(), None),
            };
            match serde_json::from_str::<FromWorker>(&text) {
                Ok(FromWorker::Result { id, outcome }) => {
                    let reply = inner.borrow_mut().pending.remove(&id);
                    if let Some(reply) = reply {
                        reply(outcome);
                    }
                }
                Ok(mut event) => {
                    if let (FromWorker::View { bytes, .. }, Some(buffer)) = (&mut event, buffer) {
                        *bytes = Uint8Array::new(&buffer).to_vec();
                    }
                    let client = EngineClient(inner);
                    if matches!(event, FromWorker::Ready { .. }) {
                        client.flush();
                    }
                    client.emit(&event);
                }
                Err(err) => {
                    web_sys::console::warn_1(&format!("nexus: bad worker message: {err}").into())
                }
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let mut inner = self.0.borrow_mut();
        inner.worker = Some(worker);
        inner._on_message = Some(on_message);
        // The board goes first; it is shared, so it is posted without a transfer list.
        if let (Some(board), Ok(text)) = (
            inner.board.as_ref(),
            serde_json::to_string(&ToWorker::CancelBoard),
        ) {
            let parts = Array::of2(&JsValue::from_str(&text), &board.memory());
            inner.queue.insert(0, (parts, Array::new()));
        }
        // The api token of the hub run the link proved, if it did already; each Welcome sends
        // the current one again (`set_api_token`), and a respawned worker gets it here.
        let bridge =
            crate::link::secret::api_token().map(|token| ToWorker::Bridge { token: Some(token) });
        if let Some(Ok(text)) = bridge.as_ref().map(serde_json::to_string) {
            let at = inner.queue.len().min(1);
            inner
                .queue
                .insert(at, (Array::of1(&JsValue::from_str(&text)), Array::new()));
        }
    }

    fn emit(&self, event: &FromWorker) {
        let listener = self.0.borrow().listener.clone();
        if let Some(listener) = listener {
            listener(event);
        }
    }

    fn send(&self, message: &ToWorker, buffers: Vec<ArrayBuffer>) -> Result<(), String> {
        let text = serde_json::to_string(message).map_err(|e| e.to_string())?;
        let parts = Array::new();
        parts.push(&JsValue::from_str(&text));
        let transfer = Array::new();
        for buffer in buffers {
            parts.push(&buffer);
            transfer.push(&buffer);
        }
        let mut inner = self.0.borrow_mut();
        if !inner.ready {
            inner.queue.push((parts, transfer));
            return Ok(());
        }
        let worker = inner
            .worker
            .as_ref()
            .ok_or("the engine worker is not running")?;
        worker
            .post_message_with_transfer(&parts, &transfer)
            .map_err(|e| format!("cannot reach the engine worker: {e:?}"))
    }

    /// The worker is ready: send what waited.
    fn flush(&self) {
        let mut inner = self.0.borrow_mut();
        inner.ready = true;
        let queue = std::mem::take(&mut inner.queue);
        if let Some(worker) = inner.worker.as_ref() {
            for (parts, transfer) in queue {
                if let Err(err) = worker.post_message_with_transfer(&parts, &transfer) {
                    web_sys::console::warn_1(
                        &format!("nexus: cannot reach the engine worker: {err:?}").into(),
                    );
                }
            }
        }
    }

    /// Hands the worker the api token of the hub run the link just proved, for its requests to
    /// the bridge (embeddings, git diffs).
    pub fn set_api_token(&self, token: String) {
        if let Err(message) = self.send(&ToWorker::Bridge { token: Some(token) }, Vec::new()) {
            web_sys::console::warn_1(&format!("nexus: {message}").into());
        }
    }

    /// Indexes a ZIP archive in the worker (`served`: the bridge's archive of its repository,
    /// paths as written); the buffer moves there.
    pub fn load_zip(&self, name: String, zip: ArrayBuffer, served: bool) {
        if let Err(message) = self.send(&ToWorker::LoadZip { name, served }, vec![zip]) {
            self.emit(&FromWorker::Failed { message });
        }
    }

    /// Indexes the bridge's repository in the worker, which fetches it in batches of
    /// `batch_files` files.
    pub fn load_served_batches(&self, name: String, batch_files: usize) {
        let message = ToWorker::LoadServedBatches { name, batch_files };
        if let Err(message) = self.send(&message, Vec::new()) {
            self.emit(&FromWorker::Failed { message });
        }
    }

    /// Indexes (path, content) files in the worker; the buffers move there.
    pub fn load_files(&self, name: String, files: Vec<(String, ArrayBuffer)>) {
        let (paths, buffers): (Vec<String>, Vec<ArrayBuffer>) = files.into_iter().unzip();
        if let Err(message) = self.send(&ToWorker::LoadFiles { name, paths }, buffers) {
            self.emit(&FromWorker::Failed { message });
        }
    }

    /// Tells the worker that these files of `project` changed on disk and are on their way:
    /// answers name them until they are applied.
    pub fn changes_pending(&self, project: &str, paths: Vec<String>) {
        let message = ToWorker::ChangesPending {
            project: project.to_owned(),
            paths,
        };
        if let Err(message) = self.send(&message, Vec::new()) {
            self.emit(&FromWorker::Failed { message });
        }
    }

    /// Applies changed files (their new contents in `zip`, which moves there) to the graph of
    /// `project`; answered by an `Applied` event with `seq`.
    pub fn apply_changes(
        &self,
        seq: u64,
        project: &str,
        changed: Vec<String>,
        removed: Vec<String>,
        zip: ArrayBuffer,
    ) {
        let message = ToWorker::ApplyChanges {
            seq,
            project: project.to_owned(),
            changed,
            removed,
        };
        if let Err(message) = self.send(&message, vec![zip]) {
            self.emit(&FromWorker::Failed { message });
        }
    }

    /// Asks which of the listed files (path, content hash) differ from what the graph of
    /// `project` holds; answered by a `Stale` event carrying `seq` (the hub's batch it stands
    /// for, 0 for the tab's own).
    pub fn compare(&self, project: &str, files: Vec<(String, String)>, seq: u64) {
        let message = ToWorker::Compare {
            project: project.to_owned(),
            files,
            seq,
        };
        if let Err(message) = self.send(&message, Vec::new()) {
            self.emit(&FromWorker::Failed { message });
        }
    }

    /// Indexes the built-in sample project.
    pub fn load_sample(&self) {
        if let Err(message) = self.send(&ToWorker::LoadSample, Vec::new()) {
            self.emit(&FromWorker::Failed { message });
        }
    }

    /// Sends one tool call; `reply` gets the worker's answer unless the call is cancelled first.
    /// Returns the call's id, for [`EngineClient::cancel_call`].
    pub fn call(&self, tool: &str, args: serde_json::Value, reply: Reply) -> u64 {
        self.call_in_session(tool, args, None, reply)
    }

    /// [`EngineClient::call`] for a caller with a tools session (an agent's connection).
    pub fn call_in_session(
        &self,
        tool: &str,
        args: serde_json::Value,
        session: Option<String>,
        reply: Reply,
    ) -> u64 {
        let id = self.next_id();
        let message = ToWorker::Call {
            id,
            tool: tool.to_owned(),
            args,
            session,
        };
        self.request(id, message, reply);
        id
    }

    /// Cancels call `id`: its reply is dropped (never called), and the worker, through the shared
    /// board, stops the tool at its next check or skips it if it has not started.
    pub fn cancel_call(&self, id: u64) {
        let (reply, board) = {
            let mut inner = self.0.borrow_mut();
            (inner.pending.remove(&id), inner.board.clone())
        };
        drop(reply);
        if let Some(board) = board {
            board.cancel(id);
        }
    }

    /// Asks for a file's lines with syntax classes; `reply` gets a JSON `CodeView`.
    pub fn code(&self, path: &str, reply: Reply) {
        let id = self.next_id();
        self.request(
            id,
            ToWorker::Code {
                id,
                path: path.to_owned(),
            },
            reply,
        );
    }

    /// Writes the LLM's description of `node` over its summary; `reply` gets the new summary.
    pub fn describe(&self, node: &str, text: &str, reply: Reply) {
        let id = self.next_id();
        let message = ToWorker::Describe {
            id,
            node: node.to_owned(),
            text: text.to_owned(),
        };
        self.request(id, message, reply);
    }

    fn next_id(&self) -> u64 {
        let mut inner = self.0.borrow_mut();
        inner.next_id += 1;
        inner.next_id
    }

    fn request(&self, id: u64, message: ToWorker, reply: Reply) {
        self.0.borrow_mut().pending.insert(id, reply);
        if let Err(message) = self.send(&message, Vec::new()) {
            let reply = self.0.borrow_mut().pending.remove(&id);
            if let Some(reply) = reply {
                reply(Outcome::Err(ToolError::new(ErrorCode::Internal, message)));
            }
        }
    }

    /// Stops a running load: the busy worker is terminated and a fresh one started (it holds the
    /// sample graph until a repository is loaded again). Calls in flight fail as retryable.
    pub fn cancel(&self) {
        let (worker, pending) = {
            let mut inner = self.0.borrow_mut();
            inner.ready = false;
            inner.queue.clear();
            (inner.worker.take(), std::mem::take(&mut inner.pending))
        };
        if let Some(worker) = worker {
            worker.terminate();
        }
        for (_, reply) in pending {
            reply(Outcome::Err(
                ToolError::new(
                    ErrorCode::LinkLost,
                    "indexing was cancelled while the call ran",
                )
                .with_hint("retry the call"),
            ));
        }
        self.spawn();
    }
}
