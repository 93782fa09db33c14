//! Level of detail: the zoom (CSS px per world unit) at which each node, edge and label shows.
//! Files first, symbols heaviest first, and never more than one node per screen cell; the shaders use the same ramp.

use std::collections::HashSet;

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

/// Side (CSS px) of the screen cell that holds at most one fully shown node: a 1920 × 1080 view
/// then draws at most ~60,000 points however large the graph (a kernel's picture drew all its
/// 86,000 files at once), while a community's files still read as a cloud (Django's fit).
pub const NODE_CELL_PX: f32 = 6.0;
/// Zoom levels thinning looks at, each twice the last, from the whole picture in one cell.
const THINNING_LEVELS: u32 = 40;

/// Each node's reveal zoom with crowds thinned: from the zoom at which the whole picture is one
/// [`NODE_CELL_PX`] cell, doubling the zoom at each level, every cell of the level's grid that
/// holds no node shown yet takes the first of its nodes in priority order (lower `reveal`, then
/// higher `weight`) whose own fade has begun; a node's result is the level where it was taken,
/// never below its own reveal. So at any zoom, a screen cell of [`NODE_CELL_PX`] holds at most
/// one fully shown node (and, fading in, those of the next level). `nodes` are (x, y, reveal,
/// weight); `extent` is the picture's larger side in world units.
pub fn thinned_reveal(nodes: &[(f32, f32, f32, f32)], extent: f32) -> Vec<f32> {
    let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (na, nb) = (nodes[a as usize], nodes[b as usize]);
        na.2.total_cmp(&nb.2)
            .then(nb.3.total_cmp(&na.3))
            .then(a.cmp(&b))
    });
    let mut out = vec![f32::NAN; nodes.len()];
    let mut taken: Vec<u32> = Vec::with_capacity(nodes.len());
    let mut zoom = NODE_CELL_PX / extent.max(1e-3);
    for _ in 0..THINNING_LEVELS {
        if order.is_empty() {
            break;
        }
        let side = NODE_CELL_PX / zoom;
        let cell = |i: u32| {
            let (x, y, _, _) = nodes[i as usize];
            ((x / side).floor() as i64, (y / side).floor() as i64)
        };
        let mut full: HashSet<(i64, i64)> = taken.iter().map(|&i| cell(i)).collect();
        order.retain(|&i| {
            let (_, _, reveal, _) = nodes[i as usize];
            let take = FADE_FROM * reveal <= zoom && full.insert(cell(i));
            if take {
                out[i as usize] = zoom.max(reveal);
                taken.push(i);
            }
            !take
        });
        zoom *= 2.0;
    }
    // What the last level left (nodes on the same spot) shows where the levels stopped.
    for (i, r) in out.iter_mut().enumerate() {
        if r.is_nan() {
            *r = zoom.max(nodes[i].2);
        }
    }
    out
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

    /// Nodes begun to show at `zoom` per screen cell of [`NODE_CELL_PX`], at most (fully shown
    /// ones are one per cell; fading ones come from cells 0.7 times as wide).
    fn most_per_screen_cell(nodes: &[(f32, f32, f32, f32)], reveal: &[f32], zoom: f32) -> usize {
        let side = NODE_CELL_PX / zoom;
        let mut per: std::collections::HashMap<(i64, i64), usize> = Default::default();
        for (n, r) in nodes.iter().zip(reveal) {
            if alpha(zoom, *r) > 0.0 {
                let key = ((n.0 / side).floor() as i64, (n.1 / side).floor() as i64);
                *per.entry(key).or_default() += 1;
            }
        }
        per.into_values().max().unwrap_or(0)
    }

    #[test]
    fn a_crowd_shows_one_node_per_screen_cell_at_every_zoom_files_first() {
        // 20,000 files and 40,000 symbols on a 1,000-unit square, a pseudo-random scatter.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as f32 / (1u64 << 31) as f32
        };
        let nodes: Vec<(f32, f32, f32, f32)> = (0..60_000)
            .map(|i| {
                let (kind, weight) = if i < 20_000 {
                    (NodeKind::File, 1.0)
                } else {
                    (NodeKind::Function, next())
                };
                (
                    next() * 1000.0,
                    next() * 1000.0,
                    node_reveal(kind, weight),
                    weight,
                )
            })
            .collect();
        let reveal = thinned_reveal(&nodes, 1000.0);
        for zoom in [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0] {
            assert!(
                most_per_screen_cell(&nodes, &reveal, zoom) <= 4,
                "zoom {zoom}"
            );
        }
        // Zoomed far in, every node shows; a file never waits for a symbol in its cell.
        assert!(reveal.iter().all(|r| alpha(1e4, *r) == 1.0));
        let first_symbol = reveal[20_000..].iter().copied().fold(f32::MAX, f32::min);
        let files_before = reveal[..20_000]
            .iter()
            .filter(|r| **r <= first_symbol)
            .count();
        assert!(
            files_before > 10_000,
            "{files_before} files before the first symbol"
        );
        // No node shows earlier than its own level of detail.
        for (n, r) in nodes.iter().zip(&reveal) {
            assert!(*r >= n.2);
        }
    }

    #[test]
    fn a_sparse_picture_shows_every_node_at_the_zoom_that_fits_it() {
        // 50 nodes 40 units apart: one screen cell each at the fitting zoom (~1 px per unit).
        let nodes: Vec<(f32, f32, f32, f32)> = (0..50)
            .map(|i| ((i % 10) as f32 * 40.0, (i / 10) as f32 * 40.0, 0.0, 1.0))
            .collect();
        let reveal = thinned_reveal(&nodes, 400.0);
        assert!(reveal.iter().all(|r| alpha(1.0, *r) == 1.0), "{reveal:?}");
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
