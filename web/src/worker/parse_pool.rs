//! Parallel parsing in the browser: helper workers (this same worker bin, started with
//! `?role=parse`) parse chunks of files while the engine worker parses chunks too.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use js_sys::{Array, ArrayBuffer, Uint8Array};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker};

use super::client::WORKER_URL;
use nexus_engine::FileFacts;
use nexus_engine::Lang;
use nexus_engine::{Filtered, Parsed, SourceFile, parse_files, parsed_from};

/// Files per chunk: small enough to balance the load, large enough to keep messages few.
const CHUNK_FILES: usize = 32;
/// Chunks sent ahead to each helper: the engine takes replies in only between its own chunks, so
/// a helper holding one chunk would sit idle until then.
const CHUNKS_AHEAD: usize = 2;
/// Below this many files helpers cost more to start than they save.
const MIN_FILES_FOR_HELPERS: usize = 300;
/// Helpers at most, whatever the core count (each holds its own wasm memory).
const MAX_HELPERS: usize = 3;

/// Engine → helper: a chunk to parse; file contents follow as transferred buffers.
#[derive(Serialize, Deserialize)]
struct ChunkRequest {
    chunk: usize,
    files: Vec<(Lang, String)>,
}

/// Helper → engine: a parsed chunk (postcard `Vec<FileFacts>` in the buffer; the engine decodes
/// the texts itself from the bytes it kept, which is cheaper than sending them back), or why not.
#[derive(Serialize, Deserialize)]
struct ChunkReply {
    chunk: usize,
    error: Option<String>,
}

type Chunk = (usize, Vec<(Lang, SourceFile)>);

struct Pool {
    queue: VecDeque<Chunk>,
    /// Whether each chunk is parsed.
    results: Vec<bool>,
    /// Where parsed files go in chunk order (their texts are then packed in path order, as
    /// `Sources::settle` wants them): their texts compressed, their facts kept.
    filtered: Filtered,
    /// Chunks parsed before an earlier one, waiting for it.
    waiting: BTreeMap<usize, Vec<Parsed>>,
    /// The next chunk `filtered` takes.
    next_taken: usize,
    /// The chunks sent to each helper, oldest first (re-queued if the helper fails).
    in_flight: Vec<VecDeque<Chunk>>,
    helpers: Vec<Worker>,
}

impl Pool {
    fn done(&self) -> usize {
        self.results.iter().filter(|&&done| done).count()
    }

    /// Chunk `chunk` is parsed: it and the parsed chunks after it go into `filtered` in order.
    fn store(&mut self, chunk: usize, parsed: Vec<Parsed>) {
        if let Some(slot) = self.results.get_mut(chunk) {
            *slot = true;
        }
        self.waiting.insert(chunk, parsed);
        while let Some(parsed) = self.waiting.remove(&self.next_taken) {
            for one in parsed {
                self.filtered.take_parsed(one);
            }
            self.next_taken += 1;
        }
    }

    /// Sends helper `h` its next chunk, keeping a copy to parse here if the helper fails.
    fn feed(&mut self, h: usize) {
        let Some((chunk, files)) = self.queue.pop_front() else {
            return;
        };
        let request = ChunkRequest {
            chunk,
            files: files.iter().map(|(l, f)| (*l, f.path.clone())).collect(),
        };
        let Ok(text) = serde_json::to_string(&request) else {
            return self.queue.push_front((chunk, files));
        };
        let parts = Array::new();
        parts.push(&JsValue::from_str(&text));
        for (_, file) in &files {
            parts.push(&Uint8Array::from(file.bytes.as_slice()).buffer());
        }
        let sent = self.helpers.get(h).is_some_and(|w| {
            w.post_message_with_transfer(&parts, &parts.slice(1, parts.length()))
                .is_ok()
        });
        if sent {
            if let Some(sent) = self.in_flight.get_mut(h) {
                sent.push_back((chunk, files));
            }
        } else {
            self.queue.push_front((chunk, files));
        }
    }

    /// Helper `h` answered (or failed): store its oldest chunk, or put all it holds back in the
    /// queue.
    fn receive(&mut self, h: usize, reply: Result<(usize, Vec<FileFacts>), String>) {
        let Some(sent) = self.in_flight.get_mut(h) else {
            return;
        };
        let answered = match &reply {
            Ok((chunk, facts)) => sent
                .front()
                .is_some_and(|(c, files)| c == chunk && files.len() == facts.len()),
            Err(_) => false,
        };
        match (reply, answered.then(|| sent.pop_front()).flatten()) {
            (Ok((chunk, facts)), Some((_, files))) => {
                self.feed(h);
                let parsed = files
                    .into_iter()
                    .zip(facts)
                    .map(|((_, file), facts)| parsed_from(file.bytes, facts))
                    .collect();
                self.store(chunk, parsed);
            }
            (reply, _) => {
                if let Err(err) = reply {
                    web_sys::console::warn_1(&format!("nexus: parse helper {h}: {err}").into());
                }
                while let Some(chunk) = sent.pop_back() {
                    self.queue.push_front(chunk);
                }
            }
        }
    }
}

impl Drop for Pool {
    /// A load that fails or is dropped halfway stops its helpers too.
    fn drop(&mut self) {
        for worker in self.helpers.drain(..) {
            worker.terminate();
        }
    }
}

/// Files cut into numbered chunks of `size`, in order. Each chunk is its own allocation of its
/// own size (`split_off` would leave every chunk with the capacity of all files after it: 1 GB
/// of wasm memory for 50,000 files).
fn numbered_chunks<T>(items: Vec<T>, size: usize) -> VecDeque<(usize, Vec<T>)> {
    let mut items = items.into_iter();
    let mut chunks = VecDeque::new();
    loop {
        let chunk: Vec<T> = items.by_ref().take(size.max(1)).collect();
        if chunk.is_empty() {
            return chunks;
        }
        chunks.push_back((chunks.len(), chunk));
    }
}

fn helper_count(files: usize) -> usize {
    if files < MIN_FILES_FOR_HELPERS {
        return 0;
    }
    let cores = js_sys::global()
        .dyn_into::<DedicatedWorkerGlobalScope>()
        .map(|scope| scope.navigator().hardware_concurrency() as usize)
        .unwrap_or(1);
    cores.saturating_sub(1).min(MAX_HELPERS)
}

fn decode_reply(event: &MessageEvent) -> Result<(usize, Vec<FileFacts>), String> {
    let parts: Array = event.data().dyn_into().map_err(|_| "not an array")?;
    let header = parts.get(0).as_string().unwrap_or_default();
    let reply: ChunkReply = serde_json::from_str(&header).map_err(|e| e.to_string())?;
    if let Some(err) = reply.error {
        return Err(err);
    }
    let buffer: ArrayBuffer = parts.get(1).dyn_into().map_err(|_| "no buffer")?;
    let parsed = postcard::from_bytes(&Uint8Array::new(&buffer).to_vec())
        .map_err(|e| format!("bad parse result: {e}"))?;
    Ok((reply.chunk, parsed))
}

/// Lets queued events (helper replies) run: a message to ourselves through a channel is a task
/// that timers' 4 ms clamping does not delay.
async fn yield_to_events() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Ok(channel) = web_sys::MessageChannel::new() {
            channel.port1().set_onmessage(Some(&resolve));
            let _ = channel.port2().post_message(&JsValue::NULL);
        } else {
            let _ = resolve.call0(&JsValue::NULL);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Parses every file `filtered` holds to parse, with helpers where the machine has cores to
/// spare, into it. `progress(done, total)` is called as chunks finish.
pub async fn parse_all(mut filtered: Filtered, progress: &mut dyn FnMut(usize, usize)) -> Filtered {
    let files = std::mem::take(&mut filtered.to_parse);
    let total = files.len();
    if helper_count(total) == 0 {
        for parsed in parse_files(files) {
            filtered.take_parsed(parsed);
        }
        progress(total, total);
        return filtered;
    }
    let mut parser = ParsePool::start(total, filtered);
    parser.add(files);
    parser.finish(progress).await
}

/// Helper workers that stay up while files arrive in batches: each batch is added as chunks,
/// which the helpers and this worker take in turn; `finish` waits for the last and stops them.
pub struct ParsePool {
    pool: Rc<RefCell<Pool>>,
    /// The helpers' message and error handlers, dropped with the pool.
    handlers: Vec<Handlers>,
    /// Helpers that said they are ready (only they are fed).
    ready: Rc<RefCell<Vec<bool>>>,
    files: usize,
}

type Handlers = (
    Closure<dyn FnMut(MessageEvent)>,
    Closure<dyn FnMut(web_sys::Event)>,
);

impl ParsePool {
    /// Starts as many helpers as the machine's cores allow for about `expected_files` files,
    /// which go into `filtered` once parsed.
    pub fn start(expected_files: usize, filtered: Filtered) -> ParsePool {
        let helpers = helper_count(expected_files);
        let pool = Rc::new(RefCell::new(Pool {
            queue: VecDeque::new(),
            results: Vec::new(),
            filtered,
            waiting: BTreeMap::new(),
            next_taken: 0,
            in_flight: (0..helpers).map(|_| VecDeque::new()).collect(),
            helpers: Vec::new(),
        }));
        let ready = Rc::new(RefCell::new(vec![false; helpers]));
        let mut handlers = Vec::new();
        for _ in 0..helpers {
            let Ok(worker) = Worker::new(&format!("{WORKER_URL}?role=parse")) else {
                continue;
            };
            let h = pool.borrow().helpers.len();
            let weak = Rc::downgrade(&pool);
            let ready_flags = ready.clone();
            let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let Some(pool) = weak.upgrade() else { return };
                let mut pool = pool.borrow_mut();
                if event.data().as_string().as_deref() == Some("ready") {
                    if let Some(flag) = ready_flags.borrow_mut().get_mut(h) {
                        *flag = true;
                    }
                    for _ in 0..CHUNKS_AHEAD {
                        pool.feed(h);
                    }
                } else {
                    pool.receive(h, decode_reply(&event));
                }
            });
            let weak = Rc::downgrade(&pool);
            let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
                if let Some(pool) = weak.upgrade() {
                    pool.borrow_mut()
                        .receive(h, Err("the helper stopped".into()));
                }
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            handlers.push((on_message, on_error));
            pool.borrow_mut().helpers.push(worker);
        }
        ParsePool {
            pool,
            handlers,
            ready,
            files: 0,
        }
    }

    /// Queues more files and hands chunks to ready helpers with room for them.
    pub fn add(&mut self, files: Vec<(Lang, SourceFile)>) {
        self.files += files.len();
        let mut pool = self.pool.borrow_mut();
        let first = pool.results.len();
        for (k, chunk) in numbered_chunks(files, CHUNK_FILES) {
            pool.results.push(false);
            pool.queue.push_back((first + k, chunk));
        }
        let ready = self.ready.borrow();
        for h in 0..pool.helpers.len() {
            let held = pool.in_flight.get(h).map_or(0, VecDeque::len);
            if ready.get(h).copied().unwrap_or(false) {
                for _ in held..CHUNKS_AHEAD {
                    pool.feed(h);
                }
            }
        }
    }

    /// Files parsed so far and files queued in all.
    pub fn counts(&self) -> (usize, usize) {
        let pool = self.pool.borrow();
        let chunks = pool.results.len().max(1);
        (
            (pool.done() * self.files / chunks).min(self.files),
            self.files,
        )
    }

    /// Parses queued chunks here until at most `leave` are left for the helpers (which go on
    /// meanwhile), taking in their replies between chunks.
    pub async fn work(&mut self, leave: usize, progress: &mut dyn FnMut(usize, usize)) {
        loop {
            let next = {
                let mut pool = self.pool.borrow_mut();
                if pool.queue.len() <= leave {
                    None
                } else {
                    pool.queue.pop_front()
                }
            };
            let Some((chunk, files)) = next else {
                break;
            };
            let parsed = parse_files(files);
            self.pool.borrow_mut().store(chunk, parsed);
            let (done, total) = self.counts();
            progress(done, total);
            yield_to_events().await;
        }
    }

    /// Filters one batch of received files into the pool's `Filtered`; returns those to parse.
    pub fn filter(&mut self, files: Vec<SourceFile>) -> Vec<(Lang, SourceFile)> {
        self.pool.borrow_mut().filtered.add(files)
    }

    /// Files received so far.
    pub fn files_seen(&self) -> usize {
        self.pool.borrow().filtered.files_seen()
    }

    /// Parses what is left, waits for the helpers' last chunks, stops them and returns the
    /// `Filtered` holding every file parsed.
    pub async fn finish(self, progress: &mut dyn FnMut(usize, usize)) -> Filtered {
        let mut this = self;
        let mut reported = usize::MAX;
        loop {
            this.work(0, progress).await;
            let (done, total) = this.counts();
            let all = {
                let pool = this.pool.borrow();
                pool.done() == pool.results.len()
            };
            if done != reported {
                reported = done;
                progress(done, total);
            }
            if all {
                break;
            }
            yield_to_events().await;
        }
        let mut pool = this.pool.borrow_mut();
        for worker in pool.helpers.drain(..) {
            worker.terminate();
        }
        drop(std::mem::take(&mut this.handlers));
        std::mem::replace(&mut pool.filtered, Filtered::streaming())
    }
}

/// Entry point of a parse helper: parses each chunk it is sent and sends the result back.
pub fn run_helper(scope: DedicatedWorkerGlobalScope) {
    let reply_scope = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let parts: Array = event.data().dyn_into().unwrap_or_default();
        let header = parts.get(0).as_string().unwrap_or_default();
        let (chunk, result) = match serde_json::from_str::<ChunkRequest>(&header) {
            Ok(request) => {
                let files = request
                    .files
                    .into_iter()
                    .enumerate()
                    .map(|(i, (lang, path))| {
                        let bytes = parts
                            .get(i as u32 + 1)
                            .dyn_into::<ArrayBuffer>()
                            .map(|b| Uint8Array::new(&b).to_vec())
                            .unwrap_or_default();
                        (lang, SourceFile { path, bytes })
                    })
                    .collect();
                let facts: Vec<FileFacts> =
                    parse_files(files).into_iter().map(|p| p.facts).collect();
                let encoded = postcard::to_allocvec(&facts).map_err(|e| e.to_string());
                (request.chunk, encoded)
            }
            Err(err) => (usize::MAX, Err(format!("bad chunk request: {err}"))),
        };
        let reply = ChunkReply {
            chunk,
            error: result.as_ref().err().cloned(),
        };
        let out = Array::new();
        out.push(&JsValue::from_str(
            &serde_json::to_string(&reply).unwrap_or_default(),
        ));
        let transfer = Array::new();
        if let Ok(bytes) = result {
            let buffer = Uint8Array::from(bytes.as_slice()).buffer();
            out.push(&buffer);
            transfer.push(&buffer);
        }
        let _ = reply_scope.post_message_with_transfer(&out, &transfer);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the helper.
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str("ready"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_order_and_only_their_own_room() {
        let chunks = numbered_chunks((0..1000).collect::<Vec<u32>>(), 32);
        assert_eq!(chunks.len(), 32);
        let mut next = 0;
        for (k, (number, chunk)) in chunks.iter().enumerate() {
            assert_eq!(*number, k);
            assert!(
                chunk.len() <= 32 && chunk.capacity() <= 32,
                "{}",
                chunk.capacity()
            );
            for &item in chunk {
                assert_eq!(item, next);
                next += 1;
            }
        }
        assert_eq!(next, 1000);
        assert!(numbered_chunks(Vec::<u32>::new(), 32).is_empty());
    }
}
