//! Background work in the engine worker (a change's layers, embedding) gives way to tool calls:
//! it waits for a pause in them, runs in short steps and yields one task turn between steps.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

/// Calls closer together than this are a burst: background work waits until it is over.
pub const CALLS_QUIET_MS: u32 = 60;

/// Calls that never pause hold background work back this long at most.
pub const CALLS_WAIT_MAX_MS: u32 = 1000;

/// Wall time one background step aims at: a call that comes while it runs waits about this long.
pub const STEP_MS: f64 = 4.0;

/// Waits until no call was answered for `CALLS_QUIET_MS` (`last_call_ms` says when the last one
/// was, by `Date.now()`), or `CALLS_WAIT_MAX_MS` at most.
pub async fn calls_pause(last_call_ms: impl Fn() -> f64) {
    let now = js_sys::Date::now;
    let started = now();
    while now() - last_call_ms() < f64::from(CALLS_QUIET_MS)
        && now() - started < f64::from(CALLS_WAIT_MAX_MS)
    {
        gloo_timers::future::TimeoutFuture::new(CALLS_QUIET_MS).await;
    }
}

/// Lets every message already queued for the worker (a tool call) run first: one turn of the
/// task queue through a `MessageChannel`, without the 4 ms a nested zero timeout is clamped to.
pub async fn next_turn() {
    let Ok(channel) = web_sys::MessageChannel::new() else {
        return gloo_timers::future::TimeoutFuture::new(0).await;
    };
    let waker: Rc<RefCell<Option<js_sys::Function>>> = Rc::default();
    let promise = js_sys::Promise::new(&mut |resolve, _| *waker.borrow_mut() = Some(resolve));
    let on_message = Closure::once_into_js(move || {
        if let Some(resolve) = waker.borrow_mut().take() {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
    channel
        .port1()
        .set_onmessage(Some(on_message.unchecked_ref()));
    if channel
        .port2()
        .post_message(&wasm_bindgen::JsValue::NULL)
        .is_err()
    {
        return gloo_timers::future::TimeoutFuture::new(0).await;
    }
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    channel.port1().set_onmessage(None);
}

/// The size of the next step of a job done `units` at a time, from how long the last step of
/// `units` took: scaled towards `STEP_MS`, at most doubling or halving at once, within `1..=max`.
pub fn next_step_units(units: usize, took_ms: f64, max: usize) -> usize {
    let scaled = if took_ms > 0.0 {
        (units as f64 * STEP_MS / took_ms) as usize
    } else {
        units.saturating_mul(2)
    };
    scaled
        .clamp(units / 2, units.saturating_mul(2))
        .clamp(1, max.max(1))
}

/// Milliseconds on a clock with sub-millisecond steps where the worker has one, to time steps.
pub fn step_clock() -> f64 {
    super::runtime::scope()
        .and_then(|scope| scope.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_grow_and_shrink_towards_the_step_time_by_at_most_twice() {
        assert_eq!(next_step_units(100, STEP_MS, 10_000), 100);
        assert_eq!(next_step_units(100, STEP_MS / 4.0, 10_000), 200);
        assert_eq!(next_step_units(100, 0.0, 10_000), 200);
        assert_eq!(next_step_units(100, STEP_MS * 10.0, 10_000), 50);
        assert_eq!(next_step_units(100, STEP_MS * 1.25, 10_000), 80);
        assert_eq!(next_step_units(1, 1_000.0, 10_000), 1);
        assert_eq!(next_step_units(8_000, 0.0, 10_000), 10_000);
        assert_eq!(next_step_units(100, f64::NAN, 10_000), 200);
    }
}
