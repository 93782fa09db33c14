//! The mounted picture's state: the camera, the hovered and selected nodes, lit nodes, colours
//! and the GPU side. Listeners (`listeners.rs`), drawing (`frame.rs`) and test telemetry
//! (`telemetry.rs`) are `impl State` blocks and functions beside it.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlDivElement};

use super::camera::{Camera, Flight, Margins, Viewport};
use super::frame::request_frame;
use super::gl::Renderer;
use super::listeners::{Drag, Watchers, watch};
use super::lod;
use super::palette::{self, ColorBy, Rgba};
use super::scene::Scene;
use super::telemetry::{HOOKS, set_hook};
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
/// Margin around the graph when fitting it, CSS px.
const FIT_MARGIN_PX: f32 = 24.0;
/// Extra room on the right when fitting: labels are drawn to the right of their nodes.
const LABEL_ROOM_PX: f32 = 120.0;
const FLIGHT_MS: f64 = 450.0;

pub struct State {
    pub(super) root: HtmlDivElement,
    pub(super) canvas: HtmlCanvasElement,
    pub(super) overlay: HtmlCanvasElement,
    pub(super) context2d: Option<CanvasRenderingContext2d>,
    pub(super) renderer: Option<Renderer>,
    pub(super) signals: Signals,
    pub(super) scene: Option<Scene>,
    pub(super) camera: Camera,
    pub(super) fit_zoom: f32,
    /// The camera shows the whole graph and follows the viewport's size, until the person pans,
    /// zooms or the camera flies to a node.
    pub(super) follows_fit: bool,
    pub(super) viewport: Viewport,
    pub(super) dpr: f32,
    pub(super) theme: Theme,
    pub(super) color_by: ColorBy,
    pub(super) selected: Option<u32>,
    /// The node this picture's own click selected (no flight to it).
    pub(super) clicked: Option<u32>,
    pub(super) neighbours: Vec<u32>,
    pub(super) lit: Vec<(u32, Rgba)>,
    pub(super) hovered: Option<u32>,
    pub(super) drag: Option<Drag>,
    pub(super) flight: Option<Flight>,
    /// When the camera last moved (pan, zoom, flight), for the lighter frames in motion.
    pub(super) moved_at: f64,
    pub(super) frame_pending: bool,
    /// Whether the current view has been drawn once (for `firstPictureMs`).
    pub(super) pictured: bool,
    /// The selection the last frame drew (for `selectionDrawnMs`).
    pub(super) drawn_selection: Option<u32>,
    pub(super) hooks: js_sys::Object,
    pub(super) frames: u32,
    pub(super) watchers: Option<Watchers>,
}

pub(super) fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
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
            follows_fit: true,
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
            s.follows_fit = true;
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
    pub(super) fn css_color(&self, color: &str) -> Option<Rgba> {
        if let Some(c) = palette::parse_css(color) {
            return Some(c);
        }
        let ctx = self.context2d.as_ref()?;
        ctx.set_fill_style_str("#000000");
        ctx.set_fill_style_str(color);
        palette::parse_css(&ctx.fill_style().as_string()?)
    }

    pub(super) fn read_theme(&mut self) {
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

    pub(super) fn upload_all(&mut self) {
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

    pub(super) fn upload_colors(&mut self) {
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
    pub(super) fn refresh_selection(&mut self) {
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

    pub(super) fn fly_to(&mut self, i: u32) {
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
        self.follows_fit = false;
        self.flight = Some(Flight {
            from: self.camera,
            to,
            start_ms: now_ms(),
            duration_ms: FLIGHT_MS,
        });
    }

    pub(super) fn fit(&mut self) {
        let Some(scene) = self.scene.as_ref() else {
            return;
        };
        let margins = Margins {
            right: FIT_MARGIN_PX + LABEL_ROOM_PX,
            ..Margins::even(FIT_MARGIN_PX)
        };
        self.camera = Camera::fit(scene.fit_bounds, self.viewport, margins);
        self.fit_zoom = self.camera.zoom;
    }

    /// Matches both canvases to the component's size and the device pixel ratio.
    pub(super) fn resize(&mut self) {
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
        if self.follows_fit && !self.viewport.is_empty() {
            self.fit();
        }
    }

    /// The node under a point (CSS px inside the component), among those shown.
    pub(super) fn node_at(&self, sx: f32, sy: f32) -> Option<u32> {
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

    pub(super) fn hover(&mut self, sx: f32, sy: f32) -> bool {
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

    /// Recreates the GPU side after the context came back.
    pub(super) fn restore_context(&mut self) {
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
    pub(super) fn local(&self, e: &web_sys::MouseEvent) -> (f32, f32) {
        let rect = self.canvas.get_bounding_client_rect();
        (
            (f64::from(e.client_x()) - rect.left()) as f32,
            (f64::from(e.client_y()) - rect.top()) as f32,
        )
    }
}
