//! The graph picture: a WebGL2 canvas drawn straight from the engine's `ViewGraph`, a 2D canvas
//! of culled labels on top, pan, zoom, hover and click. No JS graph library, no second copy.

mod camera;
mod frame;
mod gl;
mod hit;
mod labels;
mod listeners;
mod lod;
mod palette;
mod scene;
mod state;
mod telemetry;
mod theme;

use std::cell::RefCell;
use std::rc::Rc;

use leptos::html::{Canvas, Div};
use leptos::prelude::*;

use nexus_engine::layout::ViewGraph;

pub use palette::ColorBy;
use state::{State, Tooltip};

/// The graph picture. Fills its parent.
///
/// - `view`: the layout to draw (`None` or no nodes: an empty picture).
/// - `selected`: drawn node index. A click on a node sets it, a click on empty space clears it;
///   when it is set from outside and the node is off screen or too small, the camera flies to it.
/// - `lit`: nodes lit up by agents, (drawn node index, CSS colour), newest first: drawn with a
///   ring and halo in that colour at every zoom.
/// - `color_by`: node colours by community or by kind.
///
/// Test hooks on `window.__nexusGraph`: `screenPosition(stableId)`, `frames`, `firstPictureMs`,
/// `viewSetMs`, `frameMs`, `visibleNodes`, `visibleLabels`, `litNodes`, `selectedId`, `selectionDrawnMs`.
#[component]
pub fn GraphView(
    view: Signal<Option<Rc<ViewGraph>>, LocalStorage>,
    selected: RwSignal<Option<u32>>,
    lit: Signal<Vec<(u32, String)>>,
    color_by: Signal<ColorBy>,
) -> impl IntoView {
    let root = NodeRef::<Div>::new();
    let canvas = NodeRef::<Canvas>::new();
    let overlay = NodeRef::<Canvas>::new();
    let error = RwSignal::new(None::<String>);
    let tooltip = RwSignal::new(None::<Tooltip>);
    let drawn_nodes = RwSignal::new(0usize);
    let mounted = RwSignal::new(false);
    let state = StoredValue::new_local(None::<Rc<RefCell<State>>>);

    Effect::new(move |_| {
        let (Some(root), Some(canvas), Some(overlay)) = (root.get(), canvas.get(), overlay.get())
        else {
            return;
        };
        if state.with_value(Option::is_some) {
            return;
        }
        let signals = state::Signals {
            selected,
            error,
            tooltip,
        };
        match State::mount(root, canvas, overlay, signals) {
            Ok(s) => {
                state.set_value(Some(s));
                mounted.set(true);
            }
            Err(message) => error.set(Some(message)),
        }
    });
    let with_state = move |f: &dyn Fn(&Rc<RefCell<State>>)| {
        if mounted.get() {
            state.with_value(|s| {
                if let Some(s) = s {
                    f(s)
                }
            });
        }
    };
    Effect::new(move |_| {
        let v = view.get().filter(|v| !v.nodes.is_empty());
        drawn_nodes.set(v.as_ref().map_or(0, |v| v.nodes.len()));
        with_state(&|s| State::set_view(s, v.clone()));
    });
    Effect::new(move |_| {
        let by = color_by.get();
        with_state(&|s| State::set_color_by(s, by));
    });
    Effect::new(move |_| {
        let node = selected.get();
        with_state(&|s| State::set_selected(s, node));
    });
    Effect::new(move |_| {
        let list = lit.get();
        with_state(&|s| State::set_lit(s, &list));
    });

    view! {
        <div class="graph-view" data-testid="graph-view" data-nodes=move || drawn_nodes.get().to_string() node_ref=root>
            <canvas class="graph-canvas" data-testid="graph-canvas" node_ref=canvas></canvas>
            <canvas class="graph-labels" node_ref=overlay></canvas>
            <div class="graph-tooltip" data-testid="graph-tooltip" class:hidden=move || tooltip.with(Option::is_none)
                style:left=move || tooltip.with(|t| t.as_ref().map_or(String::new(), |t| format!("{}px", t.x)))
                style:top=move || tooltip.with(|t| t.as_ref().map_or(String::new(), |t| format!("{}px", t.y)))>
                <div class="graph-tooltip-name">{move || tooltip.with(|t| t.as_ref().map(|t| t.name.clone()).unwrap_or_default())}</div>
                <div class="graph-tooltip-kind">{move || tooltip.with(|t| t.as_ref().map(|t| t.kind.clone()).unwrap_or_default())}</div>
                <div class="graph-tooltip-path">{move || tooltip.with(|t| t.as_ref().map(|t| t.place.clone()).unwrap_or_default())}</div>
            </div>
            <div class="graph-error" data-testid="graph-error" class:hidden=move || error.with(Option::is_none)>
                {move || error.get().unwrap_or_default()}
            </div>
        </div>
    }
}
