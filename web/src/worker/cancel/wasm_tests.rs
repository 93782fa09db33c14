//! Browser tests of the cancel board: real shared memory and `Atomics` in headless Chromium,
//! two views of one memory as the page and the worker hold them.

use js_sys::{ArrayBuffer, SharedArrayBuffer};
use wasm_bindgen_test::*;

use super::{CancelBoard, SLOTS, install, running, running_call_cancelled, was_cancelled};

wasm_bindgen_test_configure!(run_in_browser);

/// wasm-bindgen's test runner serves its page cross-origin isolated, as the bridge does, so shared
/// memory exists in these tests.
fn isolated() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// The page's board and the worker's view of the same memory.
fn page_and_worker() -> (CancelBoard, CancelBoard) {
    let memory = SharedArrayBuffer::new(SLOTS * 4);
    let page = CancelBoard::from_memory(&memory.into()).expect("shared memory of the right size");
    let worker = CancelBoard::from_memory(&page.memory()).expect("the page's memory");
    (page, worker)
}

#[wasm_bindgen_test]
fn an_isolated_page_gets_a_board() {
    assert!(isolated(), "the test page is cross-origin isolated");
    assert!(CancelBoard::new().is_some());
}

#[wasm_bindgen_test]
fn memory_that_is_not_shared_or_not_the_right_size_is_no_board() {
    assert!(CancelBoard::from_memory(&ArrayBuffer::new(SLOTS * 4).into()).is_none());
    assert!(CancelBoard::from_memory(&wasm_bindgen::JsValue::from_str("flags")).is_none());
    assert!(CancelBoard::from_memory(&SharedArrayBuffer::new(SLOTS * 4 - 4).into()).is_none());
}

#[wasm_bindgen_test]
fn a_cancel_on_the_page_is_seen_by_the_worker_and_by_no_other_call() {
    let (page, worker) = page_and_worker();
    let id = 7;
    assert!(!worker.is_cancelled(id));
    page.cancel(id);
    assert!(worker.is_cancelled(id));
    // The call that shares the slot, one board apart, is not stopped by the stale flag.
    assert!(!worker.is_cancelled(id + u64::from(SLOTS)));
    assert!(!worker.is_cancelled(id + 1));
}

#[wasm_bindgen_test]
fn the_running_call_is_cancelled_only_while_it_runs() {
    assert!(!running_call_cancelled(), "no call runs");
    assert!(!was_cancelled(3), "no board yet, nothing is cancelled");
    let (page, worker) = page_and_worker();
    install(worker);
    page.cancel(3);
    {
        let _guard = running(3);
        assert!(running_call_cancelled());
    }
    assert!(!running_call_cancelled(), "the guard ended the call");
    let _other = running(4);
    assert!(!running_call_cancelled());
}
