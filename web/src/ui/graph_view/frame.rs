//! Frame drawing: the overlay marks, the WebGL frame (edges near the view, nodes shown at this
//! zoom, lighter while the camera moves) and the label canvas, scheduled on demand.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::gl::{Frame, MARK_FLOATS};
use super::labels::{self, GROUP_FONT_PX, LabelOf, NODE_FONT_PX};
use super::lod;
use super::palette::Rgba;
use super::state::{State, now_ms};

/// Most node edges drawn in one frame; beyond, the community edges stay.
const EDGE_BUDGET: u32 = 60_000;
/// Most node edges drawn while the camera moves (software rasterisers spend most of a frame on
/// lines); beyond, only those near the middle of the view, or none until it settles.
const MOVING_EDGE_BUDGET: u32 = 3_000;
/// How far past the view's edge (CSS px) a node's centre may be and its point still show.
const NODE_PAD_PX: f32 = 48.0;
/// Full detail comes back this long after the camera's last move.
const SETTLE_MS: f64 = 160.0;
/// Most neighbours of the selection labelled first.
const NEIGHBOUR_LABELS: usize = 40;

impl State {
    /// The overlay points: neighbours of the selection, agent lights (oldest below), the
    /// hovered node, the selection.
    fn marks(&self) -> Vec<f32> {
        let Some(scene) = self.scene.as_ref() else {
            return Vec::new();
        };
        let nodes = &scene.view.nodes;
        let lightness = self.theme.node_lightness;
        let mut out =
            Vec::with_capacity((self.neighbours.len() + self.lit.len() + 2) * MARK_FLOATS);
        let mut push = |i: u32, ring: Option<(Rgba, f32, bool)>| {
            let Some(n) = nodes.get(i as usize) else {
                return;
            };
            let fill = scene.color(i, self.color_by, lightness);
            let (ring, width, halo) = ring.unwrap_or(([0.0; 4], 0.0, false));
            out.extend_from_slice(&[n.x, n.y, n.radius, fill[0], fill[1], fill[2], 1.0]);
            out.extend_from_slice(&ring);
            out.extend_from_slice(&[width, if halo { 1.0 } else { 0.0 }]);
        };
        for &i in &self.neighbours {
            push(i, None);
        }
        for (i, color) in self.lit.iter().rev() {
            push(*i, Some((*color, 2.5, true)));
        }
        if let Some(i) = self.hovered.filter(|h| Some(*h) != self.selected) {
            push(i, Some((self.theme.hover, 1.5, false)));
        }
        if let Some(i) = self.selected {
            push(i, Some((self.theme.select, 3.0, true)));
        }
        out
    }

    /// Draws one frame; returns whether another is needed (a flight in progress).
    pub(super) fn draw(&mut self) -> bool {
        let started = now_ms();
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio() as f32);
        if dpr != self.dpr {
            self.resize();
        }
        let mut more = false;
        if let Some(flight) = self.flight {
            let (camera, done) = flight.at(started);
            self.camera = camera;
            self.moved_at = started;
            more = !done;
            if done {
                self.flight = None;
            }
        }
        let moving = started - self.moved_at < SETTLE_MS;
        // One more frame once still, with every edge.
        more |= moving;
        let marks = self.marks();
        let Some(renderer) = self.renderer.as_mut() else {
            return false;
        };
        if renderer.is_lost() || self.viewport.is_empty() {
            return false;
        }
        renderer.set_marks(&marks);
        let zoom = self.camera.zoom;
        let near = self.scene.as_ref().and_then(|scene| {
            if lod::alpha(zoom, lod::NODE_EDGE_ZOOM) <= 0.0 {
                return None;
            }
            let [x0, y0, x1, y1] = self.camera.visible(self.viewport);
            let (mx, my) = ((x1 - x0) * 0.1, (y1 - y0) * 0.1);
            let near = scene.edge_grid.near([x0 - mx, y0 - my, x1 + mx, y1 + my]);
            if !moving {
                return Some(near).filter(|n| n.edges <= EDGE_BUDGET);
            }
            if near.edges <= MOVING_EDGE_BUDGET {
                return Some(near);
            }
            let (qx, qy) = ((x1 - x0) * 0.3, (y1 - y0) * 0.3);
            Some(scene.edge_grid.near([x0 + qx, y0 + qy, x1 - qx, y1 - qy]))
                .filter(|n| n.edges <= MOVING_EDGE_BUDGET)
        });
        let nodes_shown = self.scene.as_ref().map_or_else(Vec::new, |scene| {
            let [x0, y0, x1, y1] = self.camera.visible(self.viewport);
            // Point sprites reach past their centre: rings, halos, the largest nodes.
            let pad = NODE_PAD_PX / zoom + scene.max_radius;
            scene.nodes_shown(zoom, [x0 - pad, y0 - pad, x1 + pad, y1 + pad])
        });
        let renderer = &*renderer;
        renderer.draw(&Frame {
            camera: self.camera,
            viewport: self.viewport,
            dpr: self.dpr,
            theme: &self.theme,
            rest_alpha: if self.selected.is_some() {
                self.theme.dim
            } else {
                1.0
            },
            group_edge_alpha: lod::group_edge_alpha(zoom),
            edges: near.as_ref(),
            nodes_shown: &nodes_shown,
        });
        let label_count = self.draw_labels();
        self.report_frame(label_count, started);
        more
    }

    fn draw_labels(&self) -> usize {
        let Some(ctx) = self.context2d.as_ref() else {
            return 0;
        };
        let dpr = f64::from(self.dpr);
        let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
        ctx.clear_rect(
            0.0,
            0.0,
            f64::from(self.overlay.width()),
            f64::from(self.overlay.height()),
        );
        let Some(scene) = self.scene.as_ref() else {
            return 0;
        };
        let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        let pinned: Vec<u32> = self.selected.into_iter().chain(self.hovered).collect();
        let first: Vec<u32> = self
            .lit
            .iter()
            .map(|(i, _)| *i)
            .chain(self.neighbours.iter().take(NEIGHBOUR_LABELS).copied())
            .collect();
        let picked = labels::pick(scene, &self.camera, self.viewport, &pinned, &first);
        ctx.set_text_baseline("middle");
        ctx.set_line_join("round");
        ctx.set_line_width(3.0);
        ctx.set_stroke_style_str(&self.theme.label_halo);
        let node_font =
            format!("{NODE_FONT_PX}px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif");
        let group_font = format!(
            "600 {GROUP_FONT_PX}px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
        );
        for (group, font, color) in [
            (true, &group_font, &self.theme.group_label),
            (false, &node_font, &self.theme.label),
        ] {
            ctx.set_font(font);
            ctx.set_fill_style_str(color);
            for label in picked
                .iter()
                .filter(|l| matches!(l.of, LabelOf::Group(_)) == group)
            {
                let text = match label.of {
                    LabelOf::Group(g) => &scene.view.groups[g as usize].label,
                    LabelOf::Node(i) => &scene.view.nodes[i as usize].label,
                };
                let (x, y) = (
                    f64::from(label.left),
                    f64::from(label.top + label.height * 0.5),
                );
                ctx.set_global_alpha(f64::from(label.alpha));
                let _ = ctx.stroke_text(text, x, y);
                let _ = ctx.fill_text(text, x, y);
            }
        }
        ctx.set_global_alpha(1.0);
        picked.len()
    }
}

/// Schedules a frame unless one is pending; frames keep coming while a flight runs.
pub(super) fn request_frame(state: &Rc<RefCell<State>>) {
    {
        let mut s = state.borrow_mut();
        if s.frame_pending {
            return;
        }
        s.frame_pending = true;
    }
    let weak: Weak<RefCell<State>> = Rc::downgrade(state);
    let callback = Closure::once_into_js(move || {
        let Some(state) = weak.upgrade() else {
            return;
        };
        let more = {
            let mut s = state.borrow_mut();
            s.frame_pending = false;
            s.draw()
        };
        if more {
            request_frame(&state);
        }
    });
    if let Some(window) = web_sys::window() {
        let _ = window.request_animation_frame(callback.unchecked_ref());
    }
}
