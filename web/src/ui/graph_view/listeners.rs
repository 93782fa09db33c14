//! DOM listeners: pointer (drag, hover, click), wheel zoom, resize and theme observers, WebGL
//! context loss; each handler updates the state and asks for a frame.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{
    AddEventListenerOptions, Event, EventTarget, MediaQueryList, MutationObserver,
    MutationObserverInit, PointerEvent, ResizeObserver, WheelEvent,
};

use super::frame::request_frame;
use super::state::{State, now_ms};
use super::telemetry::{HOOKS, screen_position_hook};

/// A press that moves less than this is a click, not a drag.
const CLICK_SLOP_PX: f32 = 4.0;

pub(super) struct Drag {
    pointer: i32,
    start: (f32, f32),
    last: (f32, f32),
    moved: bool,
}

/// A listener added to a DOM target, removed on drop.
struct Listener {
    target: EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(Event)>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
    }
}

/// Observers and listeners that outlive a single event; disconnected on drop.
pub(super) struct Watchers {
    /// Held so the listeners stay attached; dropping them detaches.
    _listeners: Vec<Listener>,
    resize: Option<(ResizeObserver, Closure<dyn FnMut()>)>,
    theme: Option<(MutationObserver, Closure<dyn FnMut()>)>,
    /// Held so the test hooks stay callable.
    _hooks: Vec<Closure<dyn Fn(String) -> JsValue>>,
}

impl Drop for Watchers {
    fn drop(&mut self) {
        if let Some((observer, _)) = &self.resize {
            observer.disconnect();
        }
        if let Some((observer, _)) = &self.theme {
            observer.disconnect();
        }
        if let Some(window) = web_sys::window() {
            let _ = js_sys::Reflect::delete_property(&window, &JsValue::from_str(HOOKS));
        }
    }
}

/// Adds a listener whose handler gets the state (if it still exists) and the event.
fn listen(
    state: &Rc<RefCell<State>>,
    target: &EventTarget,
    kind: &'static str,
    passive: bool,
    handler: impl Fn(&Rc<RefCell<State>>, Event) + 'static,
) -> Listener {
    let weak = Rc::downgrade(state);
    let closure = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
        if let Some(state) = weak.upgrade() {
            handler(&state, event);
        }
    });
    let options = AddEventListenerOptions::new();
    options.set_passive(passive);
    let _ = target.add_event_listener_with_callback_and_add_event_listener_options(
        kind,
        closure.as_ref().unchecked_ref(),
        &options,
    );
    Listener {
        target: target.clone(),
        kind,
        closure,
    }
}

fn on_pointer_down(state: &Rc<RefCell<State>>, event: Event) {
    let Some(e) = event.dyn_ref::<PointerEvent>() else {
        return;
    };
    if e.button() != 0 {
        return;
    }
    let mut s = state.borrow_mut();
    let at = s.local(e);
    let _ = s.canvas.set_pointer_capture(e.pointer_id());
    s.flight = None;
    s.drag = Some(Drag {
        pointer: e.pointer_id(),
        start: at,
        last: at,
        moved: false,
    });
}

fn on_pointer_move(state: &Rc<RefCell<State>>, event: Event) {
    let Some(e) = event.dyn_ref::<PointerEvent>() else {
        return;
    };
    let redraw = {
        let mut s = state.borrow_mut();
        let at = s.local(e);
        let mut panned = None;
        if let Some(drag) = s.drag.as_mut().filter(|d| d.pointer == e.pointer_id()) {
            let (dx, dy) = (at.0 - drag.last.0, at.1 - drag.last.1);
            drag.last = at;
            let travelled = (at.0 - drag.start.0).hypot(at.1 - drag.start.1);
            drag.moved |= travelled > CLICK_SLOP_PX;
            if drag.moved {
                panned = Some((dx, dy));
            }
        }
        match panned {
            Some((dx, dy)) => {
                s.camera.pan(dx, dy);
                s.follows_fit = false;
                s.moved_at = now_ms();
                s.hovered = None;
                s.signals.tooltip.set(None);
                let _ = s.root.class_list().add_1("panning");
                true
            }
            None if s.drag.is_none() => s.hover(at.0, at.1),
            None => false,
        }
    };
    if redraw {
        request_frame(state);
    }
}

fn on_pointer_up(state: &Rc<RefCell<State>>, event: Event) {
    let Some(e) = event.dyn_ref::<PointerEvent>() else {
        return;
    };
    let select = {
        let mut s = state.borrow_mut();
        let Some(drag) = s.drag.take().filter(|d| d.pointer == e.pointer_id()) else {
            return;
        };
        let _ = s.root.class_list().remove_1("panning");
        if drag.moved {
            None
        } else {
            let at = s.local(e);
            let hit = s.node_at(at.0, at.1);
            s.clicked = hit;
            Some(hit)
        }
    };
    // Outside the borrow: the selection's effect runs later and borrows the state again.
    if let Some(hit) = select {
        let signal = state.borrow().signals.selected;
        signal.set(hit);
    }
}

fn on_pointer_leave(state: &Rc<RefCell<State>>, _event: Event) {
    let changed = {
        let mut s = state.borrow_mut();
        s.signals.tooltip.set(None);
        s.hovered.take().is_some()
    };
    if changed {
        request_frame(state);
    }
}

fn on_wheel(state: &Rc<RefCell<State>>, event: Event) {
    let Some(e) = event.dyn_ref::<WheelEvent>() else {
        return;
    };
    e.prevent_default();
    {
        let mut s = state.borrow_mut();
        let unit = match e.delta_mode() {
            WheelEvent::DOM_DELTA_LINE => 16.0,
            WheelEvent::DOM_DELTA_PAGE => 400.0,
            _ => 1.0,
        };
        let delta = (e.delta_y() * unit).clamp(-600.0, 600.0) as f32;
        let at = s.local(e);
        let (viewport, fit_zoom) = (s.viewport, s.fit_zoom);
        s.flight = None;
        s.follows_fit = false;
        s.camera
            .zoom_at(viewport, at.0, at.1, (-delta * 0.0018).exp(), fit_zoom);
        s.moved_at = now_ms();
        s.hover(at.0, at.1);
    }
    request_frame(state);
}

/// Listeners on the canvas and the window, the resize and theme observers, and the test hooks.
pub(super) fn watch(state: &Rc<RefCell<State>>) -> Watchers {
    let (canvas, root) = {
        let s = state.borrow();
        (s.canvas.clone(), s.root.clone())
    };
    let target: &EventTarget = canvas.as_ref();
    let mut listeners = vec![
        listen(state, target, "pointerdown", true, on_pointer_down),
        listen(state, target, "pointermove", true, on_pointer_move),
        listen(state, target, "pointerup", true, on_pointer_up),
        listen(state, target, "pointercancel", true, on_pointer_up),
        listen(state, target, "pointerleave", true, on_pointer_leave),
        listen(state, target, "wheel", false, on_wheel),
        listen(state, target, "webglcontextlost", false, |state, event| {
            event.prevent_default();
            let s = state.borrow();
            s.signals.error.set(Some(
                "The graphics context was lost; the picture comes back when the browser restores it."
                    .into(),
            ));
        }),
        listen(state, target, "webglcontextrestored", true, |state, _| {
            state.borrow_mut().restore_context();
            request_frame(state);
        }),
    ];
    let window = web_sys::window();
    let dark: Option<MediaQueryList> = window
        .as_ref()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten());
    let on_theme = |state: &Rc<RefCell<State>>| {
        state.borrow_mut().read_theme();
        request_frame(state);
    };
    if let Some(dark) = &dark {
        listeners.push(listen(state, dark.as_ref(), "change", true, move |s, _| {
            on_theme(s)
        }));
    }
    let weak = Rc::downgrade(state);
    let resize_closure = Closure::<dyn FnMut()>::new(move || {
        if let Some(state) = weak.upgrade() {
            state.borrow_mut().resize();
            request_frame(&state);
        }
    });
    let resize = ResizeObserver::new(resize_closure.as_ref().unchecked_ref())
        .ok()
        .map(|observer| {
            observer.observe(&root);
            (observer, resize_closure)
        });
    let weak = Rc::downgrade(state);
    let theme_closure = Closure::<dyn FnMut()>::new(move || {
        if let Some(state) = weak.upgrade() {
            on_theme(&state);
        }
    });
    let theme = MutationObserver::new(theme_closure.as_ref().unchecked_ref())
        .ok()
        .and_then(|observer| {
            let html = window.as_ref()?.document()?.document_element()?;
            let options = MutationObserverInit::new();
            options.set_attributes(true);
            let filter = js_sys::Array::of3(
                &JsValue::from_str("data-theme"),
                &JsValue::from_str("class"),
                &JsValue::from_str("style"),
            );
            options.set_attribute_filter(&filter);
            observer.observe_with_options(&html, &options).ok()?;
            Some((observer, theme_closure))
        });
    let position = screen_position_hook(state);
    Watchers {
        _listeners: listeners,
        resize,
        theme,
        _hooks: vec![position],
    }
}
