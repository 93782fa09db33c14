//! A uniform grid over world space holding node indices, so hover and click find the nearest
//! node by looking at a few cells instead of every node.

use nexus_engine::Cells;

/// Most cells along one side; more would only cost memory on big graphs.
const MAX_SIDE: usize = 512;

pub struct HitGrid {
    cells: Cells,
    /// `items[starts[c]..starts[c + 1]]` are the nodes in cell `c` (row-major).
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl HitGrid {
    /// A grid over `bounds` with cells of about `cell` world units, holding the node at each
    /// position (index = position in `points`).
    pub fn new(bounds: [f32; 4], cell: f32, points: &[(f32, f32)]) -> HitGrid {
        let [x0, y0, x1, y1] = bounds;
        let (w, h) = ((x1 - x0).max(1e-3), (y1 - y0).max(1e-3));
        let cell = cell.max(w / MAX_SIDE as f32).max(h / MAX_SIDE as f32);
        let cells = Cells::over([x0, y0, x0 + w, y0 + h], cell);
        let of: Vec<usize> = points.iter().map(|&(x, y)| cells.index(x, y)).collect();
        let (starts, items) = cells.bucket(&of);
        HitGrid {
            cells,
            starts,
            items,
        }
    }

    /// The node nearest to (`x`, `y`) whose edge is within `reach` world units, among those
    /// `accept` lets through. `node(i)` gives a node's centre and radius.
    pub fn nearest(
        &self,
        x: f32,
        y: f32,
        reach: f32,
        node: impl Fn(u32) -> (f32, f32, f32),
        accept: impl Fn(u32) -> bool,
        max_radius: f32,
    ) -> Option<u32> {
        let pad = reach + max_radius;
        let (c0, r0) = self.cells.col_row(x - pad, y - pad);
        let (c1, r1) = self.cells.col_row(x + pad, y + pad);
        let cols = self.cells.cols;
        let mut best: Option<(f32, u32)> = None;
        for row in r0..=r1 {
            let start = self.starts[row * cols + c0] as usize;
            let end = self.starts[row * cols + c1 + 1] as usize;
            for &i in &self.items[start..end] {
                let (nx, ny, r) = node(i);
                let gap = ((nx - x).powi(2) + (ny - y).powi(2)).sqrt() - r;
                if gap > reach || best.is_some_and(|(b, _)| b <= gap) || !accept(i) {
                    continue;
                }
                best = Some((gap, i));
            }
        }
        best.map(|(_, i)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(
        points: &[(f32, f32, f32)],
        x: f32,
        y: f32,
        reach: f32,
        accept: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        points
            .iter()
            .enumerate()
            .map(|(i, &(px, py, r))| (((px - x).powi(2) + (py - y).powi(2)).sqrt() - r, i as u32))
            .filter(|&(gap, i)| gap <= reach && accept(i))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(_, i)| i)
    }

    #[test]
    fn finds_the_same_node_as_a_linear_scan() {
        // A deterministic scatter with varied radii.
        let points: Vec<(f32, f32, f32)> = (0..2000)
            .map(|i| {
                let a = i as f32 * 2.399_963;
                let r = (i as f32).sqrt() * 1.3;
                (r * a.cos(), r * a.sin(), 0.3 + (i % 7) as f32 * 0.1)
            })
            .collect();
        let bounds = points.iter().fold(
            [f32::MAX, f32::MAX, f32::MIN, f32::MIN],
            |[a, b, c, d], &(x, y, r)| [a.min(x - r), b.min(y - r), c.max(x + r), d.max(y + r)],
        );
        let centres: Vec<(f32, f32)> = points.iter().map(|&(x, y, _)| (x, y)).collect();
        let grid = HitGrid::new(bounds, 2.0, &centres);
        let node = |i: u32| points[i as usize];
        for k in 0..500 {
            let (x, y) = (
                (k as f32 * 0.37).sin() * 60.0,
                (k as f32 * 0.53).cos() * 60.0,
            );
            for reach in [0.0, 0.5, 3.0] {
                let even = |i: u32| i.is_multiple_of(2);
                assert_eq!(
                    grid.nearest(x, y, reach, node, |_| true, 0.9),
                    brute(&points, x, y, reach, |_| true),
                    "at {x},{y} reach {reach}"
                );
                assert_eq!(
                    grid.nearest(x, y, reach, node, even, 0.9),
                    brute(&points, x, y, reach, even)
                );
            }
        }
    }

    #[test]
    fn points_outside_the_bounds_are_found_at_the_border() {
        let centres = [(0.0, 0.0), (10.0, 10.0)];
        let grid = HitGrid::new([0.0, 0.0, 10.0, 10.0], 1.0, &centres);
        let node = |i: u32| (centres[i as usize].0, centres[i as usize].1, 0.5);
        assert_eq!(grid.nearest(-0.8, 0.0, 0.5, node, |_| true, 0.5), Some(0));
        assert_eq!(grid.nearest(5.0, 5.0, 0.5, node, |_| true, 0.5), None);
    }

    #[test]
    fn an_empty_grid_finds_nothing() {
        let grid = HitGrid::new([0.0; 4], 1.0, &[]);
        assert_eq!(
            grid.nearest(0.0, 0.0, 10.0, |_| (0.0, 0.0, 0.0), |_| true, 1.0),
            None
        );
    }
}
