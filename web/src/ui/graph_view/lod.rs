//! Level of detail: the zoom (CSS px per world unit) at which each node, edge and label shows.
//! Files show at every zoom, symbols fade in heaviest first; the shaders use the same ramp.

use nexus_engine::NodeKind;

/// Zoom at which the heaviest symbols are fully shown.
const HEAVY_SYMBOL_ZOOM: f32 = 1.2;
/// Zoom at which every symbol is fully shown (neighbours are then a few pixels apart).
const EVERY_SYMBOL_ZOOM: f32 = 7.0;
/// Zoom from which edges between nodes replace the community → community edges.
pub const NODE_EDGE_ZOOM: f32 = 3.5;
/// Zoom above which community labels give way to node labels.
const GROUP_LABEL_ZOOM: f32 = 9.0;
/// A node's label shows once the zoom is this many times its reveal zoom…
const LABEL_AFTER_REVEAL: f32 = 1.6;
/// …and never below this zoom.
const NODE_LABEL_MIN_ZOOM: f32 = 2.5;
/// A community label needs its disc to be at least this wide on screen (CSS px radius).
const GROUP_LABEL_MIN_RADIUS_PX: f32 = 26.0;
/// Fraction of the reveal zoom at which fading in starts (the shaders hold the same number).
pub const FADE_FROM: f32 = 0.7;

/// The zoom at which a node is fully shown; 0 means always.
pub fn node_reveal(kind: NodeKind, weight: f32) -> f32 {
    if matches!(kind, NodeKind::File | NodeKind::Module) {
        return 0.0;
    }
    let rest = 1.0 - weight.clamp(0.0, 1.0);
    HEAVY_SYMBOL_ZOOM + (EVERY_SYMBOL_ZOOM - HEAVY_SYMBOL_ZOOM) * rest * rest
}

/// How visible something revealed at `reveal` is at `zoom`: 0 before `FADE_FROM × reveal`, then
/// a linear ramp to 1 at `reveal`.
pub fn alpha(zoom: f32, reveal: f32) -> f32 {
    if reveal <= 0.0 {
        return 1.0;
    }
    ((zoom - FADE_FROM * reveal) / ((1.0 - FADE_FROM) * reveal)).clamp(0.0, 1.0)
}

/// The zoom at which the edge between nodes revealed at `a` and `b` is fully shown.
pub fn edge_reveal(a: f32, b: f32) -> f32 {
    a.max(b).max(NODE_EDGE_ZOOM)
}

/// Opacity of the community → community edges: they fade out as node edges fade in.
pub fn group_edge_alpha(zoom: f32) -> f32 {
    1.0 - alpha(zoom, NODE_EDGE_ZOOM)
}

/// Opacity of a community's label whose disc is `radius_px` wide on screen.
pub fn group_label_alpha(zoom: f32, radius_px: f32) -> f32 {
    if radius_px < GROUP_LABEL_MIN_RADIUS_PX {
        return 0.0;
    }
    1.0 - alpha(zoom, GROUP_LABEL_ZOOM)
}

/// Opacity of a node's label.
pub fn node_label_alpha(zoom: f32, reveal: f32) -> f32 {
    alpha(zoom, (reveal * LABEL_AFTER_REVEAL).max(NODE_LABEL_MIN_ZOOM))
}

/// The zoom at which a node is shown large enough to see, for the camera to fly to.
pub fn focus_zoom(reveal: f32, radius: f32) -> f32 {
    (reveal * LABEL_AFTER_REVEAL)
        .max(NODE_LABEL_MIN_ZOOM)
        .max(10.0 / radius.max(0.05))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_always_show_and_heavier_symbols_show_first() {
        assert_eq!(node_reveal(NodeKind::File, 0.0), 0.0);
        assert_eq!(alpha(0.001, node_reveal(NodeKind::File, 0.0)), 1.0);
        let heavy = node_reveal(NodeKind::Function, 0.9);
        let light = node_reveal(NodeKind::Function, 0.1);
        assert!(heavy < light);
        assert!(light <= EVERY_SYMBOL_ZOOM && heavy >= HEAVY_SYMBOL_ZOOM);
    }

    #[test]
    fn alpha_ramps_from_the_fade_start_to_the_reveal_zoom() {
        assert_eq!(alpha(0.5, 1.0), 0.0);
        assert_eq!(alpha(FADE_FROM, 1.0), 0.0);
        assert!((alpha(0.85, 1.0) - 0.5).abs() < 1e-4);
        assert_eq!(alpha(1.0, 1.0), 1.0);
        assert_eq!(alpha(50.0, 1.0), 1.0);
    }

    #[test]
    fn node_edges_replace_group_edges_as_one_zooms_in() {
        assert_eq!(group_edge_alpha(1.0), 1.0);
        assert!(group_edge_alpha(NODE_EDGE_ZOOM).abs() < 1e-6);
        assert_eq!(edge_reveal(0.0, 0.0), NODE_EDGE_ZOOM);
        assert_eq!(edge_reveal(6.0, 2.0), 6.0);
        let z = NODE_EDGE_ZOOM * 0.85;
        assert!((group_edge_alpha(z) + alpha(z, NODE_EDGE_ZOOM) - 1.0).abs() < 1e-5);
    }

    #[test]
    fn labels_follow_the_zoom() {
        assert_eq!(group_label_alpha(1.0, 10.0), 0.0);
        assert_eq!(group_label_alpha(1.0, 100.0), 1.0);
        assert_eq!(group_label_alpha(50.0, 1000.0), 0.0);
        assert_eq!(node_label_alpha(1.0, 0.0), 0.0);
        assert_eq!(node_label_alpha(NODE_LABEL_MIN_ZOOM, 0.0), 1.0);
        let r = node_reveal(NodeKind::Method, 0.2);
        assert!(node_label_alpha(r, r) < 1.0);
        assert_eq!(node_label_alpha(r * LABEL_AFTER_REVEAL, r), 1.0);
    }

    #[test]
    fn focus_zoom_shows_the_node_and_its_label() {
        let r = node_reveal(NodeKind::Method, 0.0);
        let z = focus_zoom(r, 0.4);
        assert!(alpha(z, r) == 1.0 && node_label_alpha(z, r) == 1.0);
        assert!(0.4 * z >= 10.0 - 1e-3);
    }
}
