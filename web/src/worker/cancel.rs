//! Cancelling a tool call while the engine worker runs it: flags in a `SharedArrayBuffer` that the
//! page sets and the worker reads between files or units of work of a long tool.
//!
//! A busy worker reads no messages, so a `Cancel` sent as a message would arrive after the work
//! it meant to stop. Shared memory is read at once. It exists only in a cross-origin isolated
//! page (the bridge sends COOP/COEP, `bridge/src/guard.rs`); elsewhere there is no board and a
//! cancelled call is only dropped by the page, its work bounded by the tools' own budgets.

use std::cell::{Cell, RefCell};

use js_sys::{Atomics, Int32Array, SharedArrayBuffer};
use wasm_bindgen::{JsCast, JsValue};

/// Flag slots: call `id` owns slot `id % SLOTS`, which holds `tag(id)` once the call is cancelled.
/// Calls `SLOTS` apart share a slot but not a tag, so a stale flag never stops a newer call.
const SLOTS: u32 = 1024;

fn slot(id: u64) -> u32 {
    (id % u64::from(SLOTS)) as u32
}

/// The low 32 bits of the id (ids start at 1; a fresh slot holds 0).
fn tag(id: u64) -> i32 {
    id as u32 as i32
}

/// The shared flags; the page and the worker each hold a view of the same memory.
#[derive(Clone)]
pub struct CancelBoard {
    flags: Int32Array,
}

impl CancelBoard {
    /// A new board, or `None` when this page is not cross-origin isolated (no shared memory).
    pub fn new() -> Option<CancelBoard> {
        let isolated = js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into())
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        if !isolated {
            return None;
        }
        let memory = SharedArrayBuffer::new(SLOTS * 4);
        Some(CancelBoard {
            flags: Int32Array::new(&memory),
        })
    }

    /// The board whose memory the page posted, if it is shared memory of the right size.
    pub fn from_memory(memory: &JsValue) -> Option<CancelBoard> {
        let memory = memory.dyn_ref::<SharedArrayBuffer>()?;
        (memory.byte_length() == SLOTS * 4).then(|| CancelBoard {
            flags: Int32Array::new(memory),
        })
    }

    /// The shared memory, to post to the worker (posted, never transferred: both keep it).
    pub fn memory(&self) -> JsValue {
        self.flags.buffer().into()
    }

    /// Marks call `id` as cancelled.
    pub fn cancel(&self, id: u64) {
        let _ = Atomics::store(&self.flags, slot(id), tag(id));
    }

    /// Whether call `id` was cancelled.
    pub fn is_cancelled(&self, id: u64) -> bool {
        Atomics::load(&self.flags, slot(id)).is_ok_and(|flag| flag == tag(id))
    }
}

thread_local! {
    /// The worker's view of the board, once the page has posted it.
    static BOARD: RefCell<Option<CancelBoard>> = const { RefCell::new(None) };
    /// The call the worker is answering (0: none).
    static RUNNING: Cell<u64> = const { Cell::new(0) };
}

/// Worker side: keeps the board the page posted.
pub fn install(board: CancelBoard) {
    BOARD.with(|b| *b.borrow_mut() = Some(board));
}

/// Worker side: whether call `id` was cancelled (false without a board).
pub fn was_cancelled(id: u64) -> bool {
    BOARD.with(|b| b.borrow().as_ref().is_some_and(|b| b.is_cancelled(id)))
}

/// Worker side: call `id` is being answered until the returned guard drops.
pub fn running(id: u64) -> Running {
    RUNNING.with(|r| r.set(id));
    Running
}

/// Ends the running call when dropped.
pub struct Running;

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.with(|r| r.set(0));
    }
}

/// Worker side, for `ToolContext::cancelled`: whether the call being answered was cancelled.
pub fn running_call_cancelled() -> bool {
    let id = RUNNING.with(Cell::get);
    id != 0 && was_cancelled(id)
}

#[cfg(all(test, target_arch = "wasm32"))]
mod wasm_tests;
