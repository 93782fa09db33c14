//! The mounted picture: DOM listeners (pointer, wheel, resize, theme, context loss), the camera,
//! the hovered and selected nodes, and the frame drawn on demand with requestAnimationFrame.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{
    AddEventListenerOptions, CanvasRenderingContext2d, Event, EventTarget, HtmlCanvasElement,
    HtmlDivElement, MediaQueryList, MutationObserver, MutationObserverInit, PointerEvent,
    ResizeObserver, WheelEvent,
};

use super::camera::{Camera, Flight, Viewport};
use super::gl::{Frame, MARK_FLOATS, Renderer};
use super::labels::{self, GROUP_FONT_PX, LabelOf, NODE_FONT_PX};
use super::lod;
use super::palette::{self, ColorBy, Rgba};
use super::scene::Scene;
use super::theme::Theme;
use nexus_engine::layout::ViewGraph;

/// The hover tooltip: where (CSS px inside the component) and what.
#[derive(Clone, Debug, PartialEq)]
pub struct Tooltip {
    pub x: f32,
    pub y: f32,
    pub name: String,
    pub kind: String,
    pub place: String,
}

/// The component's signals the picture writes.
#[derive(Clone, Copy)]
pub struct Signals {
    pub selected: RwSignal<Option<u32>>,
    pub error: RwSignal<Option<String>>,
    pub tooltip: RwSignal<Option<Tooltip>>,
}

/// Pixels within which the pointer hits a node.
const HIT_PX: f32 = 6.0;
/// A press that moves less than this is a click, not a drag.
const CLICK_SLOP_PX: f32 = 4.0;
/// Most node edges drawn in one frame; beyond, the community edges stay.
const EDGE_BUDGET: u32 = 60_000;
/// Most node edges drawn while the camera moves (software rasterisers spend most of a frame on
/// lines); beyond, only those near the middle of the view, or none until it settles.
const MOVING_EDGE_BUDGET: u32 = 3_000;
/// How far past the view's edge (CSS px) a node's centre may be and its point still show.
const NODE_PAD_PX: f32 = 48.0;
/// Full detail comes back this long after the camera's last move.
const SETTLE_MS: f64 = 160.0;
/// Margin around the graph when fitting it, CSS px.
const FIT_MARGIN_PX: f32 = 24.0;
/// Most neighbours of the selection labelled first.
const NEIGHBOUR_LABELS: usize = 40;
const FLIGHT_MS: f64 = 450.0;

struct Drag {
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
struct Watchers {
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

const HOOKS: &str = "__nexusGraph";

pub struct State {
    root: HtmlDivElement,
    canvas: HtmlCanvasElement,
    overlay: HtmlCanvasElement,
    context2d: Option<CanvasRenderingContext2d>,
    renderer: Option<Renderer>,
    signals: Signals,
    scene: Option<Scene>,
    camera: Camera,
    fit_zoom: f32,
    needs_fit: bool,
    viewport: Viewport,
    dpr: f32,
    theme: Theme,
    color_by: ColorBy,
    selected: Option<u32>,
    /// The node this picture's own click selected (no flight to it).
    clicked: Option<u32>,
    neighbours: Vec<u32>,
    lit: Vec<(u32, Rgba)>,
    hovered: Option<u32>,
    drag: Option<Drag>,
    flight: Option<Flight>,
    /// When the camera last moved (pan, zoom, flight), for the lighter frames in motion.
    moved_at: f64,
    frame_pending: bool,
    /// Whether the current view has been drawn once (for `firstPictureMs`).
    pictured: bool,
    /// The selection the last frame drew (for `selectionDrawnMs`).
    drawn_selection: Option<u32>,
    hooks: js_sys::Object,
    frames: u32,
    watchers: Option<Watchers>,
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

fn set_hook(hooks: &js_sys::Object, name: &str, value: JsValue) {
    let _ = js_sys::Reflect::set(hooks, &JsValue::from_str(name), &value);
}

impl State {
    pub fn mount(
        root: HtmlDivElement,
        canvas: HtmlCanvasElement,
        overlay: HtmlCanvasElement,
        signals: Signals,
    ) -> Result<Rc<RefCell<State>>, String> {
        let renderer = Renderer::new(&canvas)?;
        let context2d = overlay
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok());
        let hooks = js_sys::Object::new();
        let state = Rc::new(RefCell::new(State {
            root,
            canvas,
            overlay,
            context2d,
            renderer: Some(renderer),
            signals,
            scene: None,
            camera: Camera::default(),
            fit_zoom: 1.0,
            needs_fit: true,
            viewport: Viewport {
                width: 0.0,
                height: 0.0,
            },
            dpr: 1.0,
            theme: Theme::from_vars(|_| String::new()),
            color_by: ColorBy::default(),
            selected: None,
            clicked: None,
            neighbours: Vec::new(),
            lit: Vec::new(),
            hovered: None,
            drag: None,
            flight: None,
            moved_at: f64::NEG_INFINITY,
            frame_pending: false,
            pictured: false,
            drawn_selection: None,
            hooks,
            frames: 0,
            watchers: None,
        }));
        let watchers = watch(&state);
        {
            let mut s = state.borrow_mut();
            s.watchers = Some(watchers);
            s.read_theme();
            s.resize();
            for (name, value) in [("frames", 0.0), ("firstPictureMs", 0.0), ("viewSetMs", 0.0)] {
                set_hook(&s.hooks, name, JsValue::from_f64(value));
            }
            if let Some(window) = web_sys::window() {
                let _ = js_sys::Reflect::set(&window, &JsValue::from_str(HOOKS), &s.hooks);
            }
        }
        request_frame(&state);
        Ok(state)
    }

    pub fn set_view(this: &Rc<RefCell<State>>, view: Option<Rc<ViewGraph>>) {
        {
            let mut s = this.borrow_mut();
            set_hook(&s.hooks, "viewSetMs", JsValue::from_f64(now_ms()));
            set_hook(&s.hooks, "firstPictureMs", JsValue::from_f64(0.0));
            s.pictured = false;
            s.hovered = None;
            s.flight = None;
            s.signals.tooltip.set(None);
            s.scene = view.map(Scene::new);
            s.needs_fit = true;
            s.upload_all();
            s.refresh_selection();
            if !s.viewport.is_empty() {
                s.fit();
            }
        }
        request_frame(this);
    }

    pub fn set_color_by(this: &Rc<RefCell<State>>, by: ColorBy) {
        {
            let mut s = this.borrow_mut();
            if s.color_by == by {
                return;
            }
            s.color_by = by;
            s.upload_colors();
        }
        request_frame(this);
    }

    pub fn set_selected(this: &Rc<RefCell<State>>, node: Option<u32>) {
        {
            let mut s = this.borrow_mut();
            s.selected = node;
            s.refresh_selection();
            let clicked = s.clicked.take();
            if let (Some(i), true) = (node, node != clicked) {
                s.fly_to(i);
            }
        }
        request_frame(this);
    }

    pub fn set_lit(this: &Rc<RefCell<State>>, list: &[(u32, String)]) {
        {
            let mut s = this.borrow_mut();
            let lit: Vec<(u32, Rgba)> = list
                .iter()
                .filter_map(|(i, color)| Some((*i, s.css_color(color)?)))
                .collect();
            s.lit = lit;
        }
        request_frame(this);
    }

    /// A CSS colour as RGBA: the 2D context turns named colours into `#rrggbb` first.
    fn css_color(&self, color: &str) -> Option<Rgba> {
        if let Some(c) = palette::parse_css(color) {
            return Some(c);
        }
        let ctx = self.context2d.as_ref()?;
        ctx.set_fill_style_str("#000000");
        ctx.set_fill_style_str(color);
        palette::parse_css(&ctx.fill_style().as_string()?)
    }

    fn read_theme(&mut self) {
        let style = web_sys::window().and_then(|w| w.get_computed_style(&self.root).ok().flatten());
        let theme = Theme::from_vars(|name| {
            style
                .as_ref()
                .and_then(|s| s.get_property_value(name).ok())
                .unwrap_or_default()
        });
        let recolor = theme.node_lightness != self.theme.node_lightness;
        self.theme = theme;
        if recolor {
            self.upload_colors();
        }
    }

    fn upload_all(&mut self) {
        if let (Some(r), Some(scene)) = (self.renderer.as_mut(), self.scene.as_ref()) {
            r.set_static(
                &scene.node_vertices(),
                &scene.edge_vertices(),
                &scene.group_edge_vertices(),
            );
        } else if let Some(r) = self.renderer.as_mut() {
            r.set_static(&[], &[], &[]);
        }
        self.upload_colors();
    }

    fn upload_colors(&mut self) {
        let lightness = self.theme.node_lightness;
        match (self.renderer.as_mut(), self.scene.as_ref()) {
            (Some(r), Some(scene)) => r.set_colors(
                &scene.colors(self.color_by, lightness),
                &scene.disc_vertices(self.color_by, lightness),
            ),
            (Some(r), None) => r.set_colors(&[], &[]),
            _ => {}
        }
    }

    /// Neighbours and highlighted edges of the selection.
    fn refresh_selection(&mut self) {
        let node = self.selected.filter(|i| {
            self.scene
                .as_ref()
                .is_some_and(|s| (*i as usize) < s.view.nodes.len())
        });
        let (neighbours, edges) = match (node, self.scene.as_ref()) {
            (Some(i), Some(scene)) => {
                let mut n: Vec<u32> = scene
                    .callees(i)
                    .iter()
                    .chain(scene.callers(i))
                    .copied()
                    .collect();
                n.sort_unstable();
                n.dedup();
                (n, scene.selection_edge_vertices(i))
            }
            _ => (Vec::new(), Vec::new()),
        };
        self.neighbours = neighbours;
        if let Some(r) = self.renderer.as_mut() {
            r.set_selection_edges(&edges);
        }
    }

    fn fly_to(&mut self, i: u32) {
        let Some(scene) = self.scene.as_ref() else {
            return;
        };
        let Some(n) = scene.view.nodes.get(i as usize) else {
            return;
        };
        let reveal = scene.reveal[i as usize];
        if self.viewport.is_empty() || !self.camera.hides(self.viewport, n.x, n.y, n.radius, reveal)
        {
            return;
        }
        let to = self
            .camera
            .focused(n.x, n.y, lod::focus_zoom(reveal, n.radius));
        self.flight = Some(Flight {
            from: self.camera,
            to,
            start_ms: now_ms(),
            duration_ms: FLIGHT_MS,
        });
    }

    fn fit(&mut self) {
        let Some(scene) = self.scene.as_ref() else {
            return;
        };
        self.camera = Camera::fit(scene.view.bounds, self.viewport, FIT_MARGIN_PX);
        self.fit_zoom = self.camera.zoom;
        self.needs_fit = false;
    }

    /// Matches both canvases to the component's size and the device pixel ratio.
    fn resize(&mut self) {
        let width = self.root.client_width().max(0) as f32;
        let height = self.root.client_height().max(0) as f32;
        let dpr = web_sys::window()
            .map_or(1.0, |w| w.device_pixel_ratio() as f32)
            .max(0.5);
        if width == self.viewport.width && height == self.viewport.height && dpr == self.dpr {
            return;
        }
        self.viewport = Viewport { width, height };
        self.dpr = dpr;
        let (pw, ph) = ((width * dpr).round() as u32, (height * dpr).round() as u32);
        for canvas in [&self.canvas, &self.overlay] {
            canvas.set_width(pw.max(1));
            canvas.set_height(ph.max(1));
        }
        if let Some(r) = &self.renderer {
            r.resize(pw.max(1), ph.max(1));
        }
        if self.needs_fit && !self.viewport.is_empty() {
            self.fit();
        }
    }

    /// The node under a point (CSS px inside the component), among those shown.
    fn node_at(&self, sx: f32, sy: f32) -> Option<u32> {
        let scene = self.scene.as_ref()?;
        let (wx, wy) = self.camera.to_world(self.viewport, sx, sy);
        let zoom = self.camera.zoom;
        let nodes = &scene.view.nodes;
        scene.hit.nearest(
            wx,
            wy,
            HIT_PX / zoom,
            |i| {
                let n = &nodes[i as usize];
                (n.x, n.y, n.radius.max(1.3 / zoom))
            },
            |i| {
                lod::alpha(zoom, scene.reveal[i as usize]) > 0.35
                    || Some(i) == self.selected
                    || self.neighbours.binary_search(&i).is_ok()
                    || self.lit.iter().any(|(l, _)| *l == i)
            },
            scene.max_radius.max(1.3 / zoom),
        )
    }

    fn hover(&mut self, sx: f32, sy: f32) -> bool {
        let hovered = self.node_at(sx, sy);
        let changed = hovered != self.hovered;
        self.hovered = hovered;
        let tooltip = hovered.and_then(|i| {
            let n = self.scene.as_ref()?.view.nodes.get(i as usize)?;
            let path = n.id.split(':').nth(1).unwrap_or_default();
            let place = if n.kind == nexus_engine::NodeKind::File {
                path.to_owned()
            } else {
                format!("{path}:{}", n.start_line)
            };
            Some(Tooltip {
                x: sx + 14.0,
                y: sy + 14.0,
                name: n.label.clone(),
                kind: n.kind.as_str().to_owned(),
                place,
            })
        });
        // An unchanged tooltip is not set again: every set re-renders it (costly per wheel tick).
        if self.signals.tooltip.with_untracked(|t| *t != tooltip) {
            self.signals.tooltip.set(tooltip);
        }
        changed
    }

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
    fn draw(&mut self) -> bool {
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
        more
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

    /// Client CSS pixels of a node's centre, or null when unknown or off the canvas.
    fn screen_position(&self, id: &str) -> JsValue {
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

    /// Recreates the GPU side after the context came back.
    fn restore_context(&mut self) {
        match Renderer::new(&self.canvas) {
            Ok(r) => {
                self.renderer = Some(r);
                self.upload_all();
                self.refresh_selection();
                self.signals.error.set(None);
            }
            Err(message) => self.signals.error.set(Some(message)),
        }
    }

    /// Pointer position in CSS px inside the component.
    fn local(&self, e: &web_sys::MouseEvent) -> (f32, f32) {
        let rect = self.canvas.get_bounding_client_rect();
        (
            (f64::from(e.client_x()) - rect.left()) as f32,
            (f64::from(e.client_y()) - rect.top()) as f32,
        )
    }
}

/// Schedules a frame unless one is pending; frames keep coming while a flight runs.
fn request_frame(state: &Rc<RefCell<State>>) {
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
        s.camera
            .zoom_at(viewport, at.0, at.1, (-delta * 0.0018).exp(), fit_zoom);
        s.moved_at = now_ms();
        s.hover(at.0, at.1);
    }
    request_frame(state);
}

/// Listeners on the canvas and the window, the resize and theme observers, and the test hooks.
fn watch(state: &Rc<RefCell<State>>) -> Watchers {
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
    Watchers {
        _listeners: listeners,
        resize,
        theme,
        _hooks: vec![position],
    }
}
