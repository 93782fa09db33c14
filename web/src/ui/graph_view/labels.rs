//! Label culling: candidates arrive most important first and each takes the screen cells under
//! its box; one that would touch a taken cell is skipped, and at most `MAX_LABELS` are kept.

use super::camera::{Camera, Viewport};
use super::lod;
use super::scene::Scene;

/// The most labels drawn in one frame.
pub const MAX_LABELS: usize = 180;
/// Font sizes in CSS pixels (the overlay draws with the same).
pub const NODE_FONT_PX: f32 = 11.0;
pub const GROUP_FONT_PX: f32 = 12.0;
/// Gap between a node and its label.
const LABEL_GAP_PX: f32 = 4.0;
/// Occupancy cell size in CSS pixels.
const CELL_W: f32 = 24.0;
const CELL_H: f32 = 14.0;

/// What a label names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelOf {
    Group(u32),
    Node(u32),
}

/// A label that wants to be drawn: its box (left, top, width, height) in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Label {
    pub of: LabelOf,
    pub left: f32,
    pub top: f32,
    pub width: f32,
    pub height: f32,
    pub alpha: f32,
}

/// The screen's occupancy grid for one frame.
pub struct Culler {
    cols: usize,
    rows: usize,
    taken: Vec<bool>,
    kept: Vec<Label>,
}

impl Culler {
    pub fn new(width: f32, height: f32) -> Culler {
        let cols = (width / CELL_W).ceil().max(1.0) as usize;
        let rows = (height / CELL_H).ceil().max(1.0) as usize;
        Culler {
            cols,
            rows,
            taken: vec![false; cols * rows],
            kept: Vec::with_capacity(MAX_LABELS),
        }
    }

    pub fn is_full(&self) -> bool {
        self.kept.len() >= MAX_LABELS
    }

    /// The cells a box covers, or `None` when it is wholly off screen.
    fn cells(&self, l: &Label) -> Option<(usize, usize, usize, usize)> {
        let (x1, y1) = (l.left + l.width, l.top + l.height);
        let (w, h) = (self.cols as f32 * CELL_W, self.rows as f32 * CELL_H);
        if x1 <= 0.0 || y1 <= 0.0 || l.left >= w || l.top >= h {
            return None;
        }
        let c0 = (l.left.max(0.0) / CELL_W) as usize;
        let r0 = (l.top.max(0.0) / CELL_H) as usize;
        let c1 = ((x1 / CELL_W) as usize).min(self.cols - 1);
        let r1 = ((y1 / CELL_H) as usize).min(self.rows - 1);
        Some((c0, r0, c1, r1))
    }

    /// Keeps `label` if its cells are free and there is room; `pinned` labels (the selection,
    /// the hovered node) are kept even over others and only mark their cells.
    pub fn offer(&mut self, label: Label, pinned: bool) -> bool {
        if self.is_full() && !pinned {
            return false;
        }
        let Some((c0, r0, c1, r1)) = self.cells(&label) else {
            return false;
        };
        let free = (r0..=r1).all(|r| (c0..=c1).all(|c| !self.taken[r * self.cols + c]));
        if !free && !pinned {
            return false;
        }
        for r in r0..=r1 {
            for c in c0..=c1 {
                self.taken[r * self.cols + c] = true;
            }
        }
        self.kept.push(label);
        true
    }

    pub fn into_labels(self) -> Vec<Label> {
        self.kept
    }
}

/// About how wide `text` is at `font_px` (system sans-serif averages a little over half an em).
pub fn text_width(text: &str, font_px: f32) -> f32 {
    text.chars().count() as f32 * font_px * 0.56
}

/// The label of node `i`, to the right of its disc.
pub fn node_label(scene: &Scene, camera: &Camera, viewport: Viewport, i: u32, alpha: f32) -> Label {
    let n = &scene.view.nodes[i as usize];
    let (sx, sy) = camera.to_screen(viewport, n.x, n.y);
    let r = (n.radius * camera.zoom).max(1.5);
    Label {
        of: LabelOf::Node(i),
        left: sx + r + LABEL_GAP_PX,
        top: sy - NODE_FONT_PX * 0.6,
        width: text_width(&n.label, NODE_FONT_PX),
        height: NODE_FONT_PX * 1.2,
        alpha,
    }
}

/// The labels of one frame: `pinned` nodes always, then `first` (agent lights, neighbours of the
/// selection), then community labels while zoomed out, then nodes heaviest first.
pub fn pick(
    scene: &Scene,
    camera: &Camera,
    viewport: Viewport,
    pinned: &[u32],
    first: &[u32],
) -> Vec<Label> {
    let mut culler = Culler::new(viewport.width, viewport.height);
    let nodes = &scene.view.nodes;
    for &i in pinned.iter().filter(|i| (**i as usize) < nodes.len()) {
        culler.offer(node_label(scene, camera, viewport, i, 1.0), true);
    }
    for &i in first.iter().filter(|i| (**i as usize) < nodes.len()) {
        if culler.is_full() {
            break;
        }
        culler.offer(node_label(scene, camera, viewport, i, 1.0), false);
    }
    for &g in &scene.group_order {
        if culler.is_full() {
            break;
        }
        let group = &scene.view.groups[g as usize];
        let radius_px = group.radius * camera.zoom;
        let alpha = lod::group_label_alpha(camera.zoom, radius_px);
        if alpha <= 0.05 {
            continue;
        }
        let (sx, sy) = camera.to_screen(viewport, group.x, group.y);
        let width = text_width(&group.label, GROUP_FONT_PX);
        culler.offer(
            Label {
                of: LabelOf::Group(g),
                left: sx - width * 0.5,
                top: sy - radius_px.min(viewport.height) * 0.5 - GROUP_FONT_PX * 0.6,
                width,
                height: GROUP_FONT_PX * 1.2,
                alpha,
            },
            false,
        );
    }
    let [x0, y0, x1, y1] = camera.visible(viewport);
    for &i in &scene.label_order {
        if culler.is_full() {
            break;
        }
        let n = &nodes[i as usize];
        if n.x < x0 || n.x > x1 || n.y < y0 || n.y > y1 {
            continue;
        }
        let alpha = lod::node_label_alpha(camera.zoom, scene.reveal[i as usize]);
        if alpha > 0.05 {
            culler.offer(node_label(scene, camera, viewport, i, alpha), false);
        }
    }
    culler.into_labels()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::graph_view::camera::Margins;
    use nexus_engine::layout::layout;
    use nexus_engine::sample::sample_graph;
    use std::rc::Rc;

    const VIEW: Viewport = Viewport {
        width: 1000.0,
        height: 700.0,
    };

    #[test]
    fn zoomed_out_shows_community_labels_and_zoomed_in_node_labels() {
        let scene = Scene::new(Rc::new(layout(&sample_graph())));
        let fit = Camera::fit(scene.view.bounds, VIEW, Margins::even(20.0));
        let far = Camera { zoom: 1.0, ..fit };
        let labels = pick(&scene, &far, VIEW, &[], &[]);
        assert!(labels.iter().all(|l| matches!(l.of, LabelOf::Group(_))));
        let near = Camera { zoom: 40.0, ..fit };
        let labels = pick(&scene, &near, VIEW, &[], &[]);
        assert!(labels.iter().any(|l| matches!(l.of, LabelOf::Node(_))));
        assert!(labels.iter().all(|l| matches!(l.of, LabelOf::Node(_))));
        assert!(labels.len() <= MAX_LABELS);
    }

    #[test]
    fn pinned_labels_come_first_even_when_zoomed_out() {
        let scene = Scene::new(Rc::new(layout(&sample_graph())));
        let fit = Camera::fit(scene.view.bounds, VIEW, Margins::even(20.0));
        let far = Camera { zoom: 1.0, ..fit };
        let labels = pick(&scene, &far, VIEW, &[3], &[]);
        assert_eq!(labels.first().map(|l| l.of), Some(LabelOf::Node(3)));
    }

    fn label(i: u32, left: f32, top: f32) -> Label {
        Label {
            of: LabelOf::Node(i),
            left,
            top,
            width: 60.0,
            height: 12.0,
            alpha: 1.0,
        }
    }

    #[test]
    fn overlapping_labels_keep_the_first_offered() {
        let mut culler = Culler::new(800.0, 600.0);
        assert!(culler.offer(label(0, 100.0, 100.0), false));
        assert!(!culler.offer(label(1, 110.0, 104.0), false));
        assert!(culler.offer(label(2, 300.0, 100.0), false));
        let kept: Vec<_> = culler.into_labels().iter().map(|l| l.of).collect();
        assert_eq!(kept, [LabelOf::Node(0), LabelOf::Node(2)]);
    }

    #[test]
    fn pinned_labels_always_stay() {
        let mut culler = Culler::new(800.0, 600.0);
        assert!(culler.offer(label(0, 100.0, 100.0), false));
        assert!(culler.offer(label(1, 100.0, 100.0), true));
        assert!(!culler.offer(label(2, 100.0, 100.0), false));
    }

    #[test]
    fn off_screen_labels_are_dropped_and_edges_are_clipped() {
        let mut culler = Culler::new(800.0, 600.0);
        assert!(!culler.offer(label(0, -100.0, 10.0), false));
        assert!(!culler.offer(label(1, 900.0, 10.0), false));
        assert!(culler.offer(label(2, -30.0, 590.0), false));
    }

    #[test]
    fn at_most_max_labels_are_kept() {
        let mut culler = Culler::new(4000.0, 4000.0);
        let mut kept = 0;
        for i in 0..1000 {
            let (col, row) = (i % 40, i / 40);
            if culler.offer(label(i, col as f32 * 100.0, row as f32 * 20.0), false) {
                kept += 1;
            }
        }
        assert_eq!(kept, MAX_LABELS);
        assert!(culler.is_full());
    }
}
