//! Test telemetry: the picture's figures on `window.__nexusGraph` (frames, nodes and labels shown,
//! lit, cut by the viewport's edges, selection drawn, `screenPosition`) for the browser tests.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::lod;
use super::state::{State, now_ms};

/// The window property the browser tests read.
pub(super) const HOOKS: &str = "__nexusGraph";

/// Sets one figure on the hooks object.
pub(super) fn set_hook(hooks: &js_sys::Object, name: &str, value: JsValue) {
    let _ = js_sys::Reflect::set(hooks, &JsValue::from_str(name), &value);
}

impl State {
    /// Publishes what the frame just drawn showed: frame count and time, visible labels and
    /// nodes, lit nodes, when the first picture and the current selection were drawn.
    pub(super) fn report_frame(&mut self, label_count: usize, started: f64) {
        self.frames += 1;
        let hooks = &self.hooks;
        set_hook(hooks, "frames", JsValue::from_f64(f64::from(self.frames)));
        set_hook(
            hooks,
            "visibleLabels",
            JsValue::from_f64(label_count as f64),
        );
        set_hook(
            hooks,
            "visibleNodes",
            JsValue::from_f64(self.visible_nodes() as f64),
        );
        set_hook(hooks, "litNodes", JsValue::from_f64(self.lit.len() as f64));
        let [nodes_cut, groups_cut] = self.cut_by_edges();
        set_hook(hooks, "nodesCut", JsValue::from_f64(nodes_cut as f64));
        set_hook(hooks, "groupsCut", JsValue::from_f64(groups_cut as f64));
        let finished = now_ms();
        set_hook(hooks, "frameMs", JsValue::from_f64(finished - started));
        if self.scene.is_some() && !self.pictured {
            self.pictured = true;
            set_hook(hooks, "firstPictureMs", JsValue::from_f64(finished));
        }
        if self.drawn_selection != self.selected {
            self.drawn_selection = self.selected;
            let id = self
                .selected
                .and_then(|i| self.scene.as_ref()?.view.nodes.get(i as usize))
                .map_or(JsValue::NULL, |n| JsValue::from_str(&n.id));
            set_hook(hooks, "selectedId", id);
            set_hook(hooks, "selectionDrawnMs", JsValue::from_f64(finished));
        }
    }

    /// Client CSS pixels of a node's centre, or null when unknown or off the canvas.
    pub(super) fn screen_position(&self, id: &str) -> JsValue {
        let Some(scene) = self.scene.as_ref() else {
            return JsValue::NULL;
        };
        let Some(n) = scene.view.nodes.iter().find(|n| n.id == id) else {
            return JsValue::NULL;
        };
        let (sx, sy) = self.camera.to_screen(self.viewport, n.x, n.y);
        if sx < 0.0 || sy < 0.0 || sx > self.viewport.width || sy > self.viewport.height {
            return JsValue::NULL;
        }
        let rect = self.canvas.get_bounding_client_rect();
        let out = js_sys::Array::new();
        out.push(&JsValue::from_f64(rect.left() + f64::from(sx)));
        out.push(&JsValue::from_f64(rect.top() + f64::from(sy)));
        out.into()
    }

    /// Nodes and group discs not wholly inside the viewport (cut by an edge or off it).
    fn cut_by_edges(&self) -> [usize; 2] {
        let Some(scene) = self.scene.as_ref() else {
            return [0, 0];
        };
        let cut = |x: f32, y: f32, r: f32| {
            let (sx, sy) = self.camera.to_screen(self.viewport, x, y);
            let rpx = r * self.camera.zoom;
            sx - rpx < 0.0
                || sy - rpx < 0.0
                || sx + rpx > self.viewport.width
                || sy + rpx > self.viewport.height
        };
        let nodes = scene.view.nodes.iter();
        let groups = scene.view.groups.iter();
        [
            nodes.filter(|n| cut(n.x, n.y, n.radius)).count(),
            groups.filter(|g| cut(g.x, g.y, g.radius)).count(),
        ]
    }

    /// Nodes on screen and shown at this zoom.
    fn visible_nodes(&self) -> usize {
        let Some(scene) = self.scene.as_ref() else {
            return 0;
        };
        let [x0, y0, x1, y1] = self.camera.visible(self.viewport);
        scene
            .view
            .nodes
            .iter()
            .zip(&scene.reveal)
            .filter(|(n, r)| {
                n.x >= x0
                    && n.x <= x1
                    && n.y >= y0
                    && n.y <= y1
                    && lod::alpha(self.camera.zoom, **r) > 0.0
            })
            .count()
    }
}

/// Installs `screenPosition(stableId)` on the hooks; the closure must live as long as the picture.
pub(super) fn screen_position_hook(
    state: &Rc<RefCell<State>>,
) -> Closure<dyn Fn(String) -> JsValue> {
    let weak = Rc::downgrade(state);
    let position = Closure::<dyn Fn(String) -> JsValue>::new(move |id: String| {
        weak.upgrade()
            .map_or(JsValue::NULL, |s| s.borrow().screen_position(&id))
    });
    set_hook(
        &state.borrow().hooks,
        "screenPosition",
        position.as_ref().clone(),
    );
    position
}
