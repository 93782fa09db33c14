//! What the renderer needs from one `ViewGraph`, computed once when it arrives: vertex arrays,
//! edges bucketed by grid cell, community → community edges, neighbours, label order, hit grid.

use nexus_engine::Cells;
use nexus_engine::EdgeKind;
use nexus_engine::layout::ViewGraph;

use super::gl::DISC_FLOATS;
use super::hit::HitGrid;
use super::lod;
use super::palette::{self, ColorBy, Rgba};

/// Floats per node vertex: x, y, radius, reveal zoom.
pub const NODE_FLOATS: usize = 4;
/// Floats per edge vertex: x, y, the edge's `from` end x, y, reveal zoom, kind.
pub const EDGE_FLOATS: usize = 6;
/// Floats per wide-line vertex: a x, y, b x, y, along (0/1), side (±1), width px, alpha, tone.
pub const WIDE_FLOATS: usize = 9;
/// The most community → community edges drawn when zoomed out.
const GROUP_EDGES: usize = 300;
/// Most edge-grid cells along one side.
const EDGE_GRID_SIDE: f32 = 96.0;
/// Cells along the longer side of the grid that orders node vertices.
const NODE_GRID_SIDE: f32 = 12.0;
/// Hit-grid cell size in world units (about two symbols).
const HIT_CELL: f32 = 2.0;

/// Edges sorted twice by grid cell (by their `from` end, then by their `to` end), so the edges
/// near the view are a few contiguous vertex ranges.
pub struct EdgeGrid {
    cells: Cells,
    /// Per cell, the first edge of that cell in the list sorted by `from` (then by `to`, offset
    /// by the edge count): `starts[0]` has `cols × rows + 1` entries, as has `starts[1]`.
    starts: [Vec<u32>; 2],
    edge_count: u32,
}

/// The draw ranges of the edges near a view.
#[derive(Debug, PartialEq)]
pub struct EdgeRanges {
    /// (first vertex, vertex count) per range, in the buffer built by [`Scene::edge_vertices`].
    pub ranges: Vec<(i32, i32)>,
    /// The world rectangle of the cells drawn: the second pass skips edges whose `from` end is
    /// inside it (the first pass drew them).
    pub cells_rect: [f32; 4],
    /// Edges in the ranges (those the second pass skips included).
    pub edges: u32,
}

/// An edge's two ends in world coordinates.
type Segment = ((f32, f32), (f32, f32));

impl EdgeGrid {
    fn new(bounds: [f32; 4], ends: &[Segment]) -> (EdgeGrid, [Vec<u32>; 2]) {
        let [x0, y0, x1, y1] = bounds;
        let side = (x1 - x0).max(y1 - y0).max(1e-3);
        let cells = Cells::over(bounds, (side / EDGE_GRID_SIDE).max(1.0));
        let by_end = |pass: usize| {
            let of: Vec<usize> = ends
                .iter()
                .map(|(a, b)| {
                    let (x, y) = if pass == 0 { *a } else { *b };
                    cells.index(x, y)
                })
                .collect();
            cells.bucket(&of)
        };
        let ((from_starts, from_order), (to_starts, to_order)) = (by_end(0), by_end(1));
        let grid = EdgeGrid {
            cells,
            starts: [from_starts, to_starts],
            edge_count: ends.len() as u32,
        };
        (grid, [from_order, to_order])
    }

    /// The edges with an end in a cell that touches `rect` (world units), each once.
    pub fn near(&self, rect: [f32; 4]) -> EdgeRanges {
        let Cells {
            x0,
            y0,
            cell,
            cols,
            rows,
        } = self.cells;
        let (c0, r0) = self.cells.col_row(rect[0], rect[1]);
        let (c1, r1) = self.cells.col_row(rect[2], rect[3]);
        let mut ranges = Vec::new();
        let mut edges = 0;
        for (pass, starts) in self.starts.iter().enumerate() {
            let offset = pass as u32 * self.edge_count;
            for row in r0..=r1 {
                let first = starts[row * cols + c0];
                let end = starts[row * cols + c1 + 1];
                if end > first {
                    ranges.push((((offset + first) * 2) as i32, ((end - first) * 2) as i32));
                    edges += end - first;
                }
            }
        }
        // Cells at the grid's border also hold what lies beyond it: so does their rectangle.
        let edge_x = |c: usize, last: bool| match (c, last) {
            (0, false) => f32::MIN,
            (c, true) if c + 1 == cols => f32::MAX,
            (c, last) => x0 + (c + usize::from(last)) as f32 * cell,
        };
        let edge_y = |r: usize, last: bool| match (r, last) {
            (0, false) => f32::MIN,
            (r, true) if r + 1 == rows => f32::MAX,
            (r, last) => y0 + (r + usize::from(last)) as f32 * cell,
        };
        EdgeRanges {
            ranges,
            cells_rect: [
                edge_x(c0, false),
                edge_y(r0, false),
                edge_x(c1, true),
                edge_y(r1, true),
            ],
            edges,
        }
    }
}

/// A community → community edge: the two groups and how many node edges it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupEdge {
    pub a: u32,
    pub b: u32,
    pub count: u32,
}

pub struct Scene {
    pub view: std::rc::Rc<ViewGraph>,
    /// Zoom at which each node is fully shown.
    pub reveal: Vec<f32>,
    pub max_radius: f32,
    /// What fitting shows whole: every node and every group's disc.
    pub fit_bounds: [f32; 4],
    /// Node indices, heaviest label first.
    pub label_order: Vec<u32>,
    /// Group indices, largest first.
    pub group_order: Vec<u32>,
    /// Node indices in the order of the node vertex buffer: by cell of a coarse grid, then by
    /// reveal zoom, so the nodes shown in a cell at a zoom are a prefix of its run, and hidden or
    /// far-away nodes are never sent through the shaders.
    draw_order: Vec<u32>,
    /// `reveal` in `draw_order` (ascending within each cell).
    draw_reveal: Vec<f32>,
    node_cells: Cells,
    /// Per cell, the start of its run in `draw_order` (`cols × rows + 1` entries).
    node_cell_starts: Vec<u32>,
    /// Callees (`out`) and callers (`in`) of each node as CSR: `targets[starts[i]..starts[i+1]]`.
    out_starts: Vec<u32>,
    out_targets: Vec<u32>,
    in_starts: Vec<u32>,
    in_targets: Vec<u32>,
    pub edge_grid: EdgeGrid,
    edge_orders: [Vec<u32>; 2],
    pub group_edges: Vec<GroupEdge>,
    pub hit: HitGrid,
}

impl Scene {
    pub fn new(view: std::rc::Rc<ViewGraph>) -> Scene {
        let n = view.nodes.len();
        let [bx0, by0, bx1, by1] = view.bounds;
        let placed: Vec<(f32, f32, f32, f32)> = view
            .nodes
            .iter()
            .map(|v| (v.x, v.y, lod::node_reveal(v.kind, v.weight), v.weight))
            .collect();
        let reveal = lod::thinned_reveal(&placed, (bx1 - bx0).max(by1 - by0));
        let max_radius = view.nodes.iter().map(|v| v.radius).fold(0.0, f32::max);
        let mut label_order: Vec<u32> = (0..n as u32).collect();
        label_order.sort_by(|a, b| {
            let (na, nb) = (&view.nodes[*a as usize], &view.nodes[*b as usize]);
            nb.weight.total_cmp(&na.weight).then(a.cmp(b))
        });
        let node_cells = Cells::over(
            view.bounds,
            ((bx1 - bx0).max(by1 - by0) / NODE_GRID_SIDE).max(1e-3),
        );
        let of: Vec<usize> = view
            .nodes
            .iter()
            .map(|v| node_cells.index(v.x, v.y))
            .collect();
        let (node_cell_starts, mut draw_order) = node_cells.bucket(&of);
        for run in node_cell_starts.windows(2) {
            draw_order[run[0] as usize..run[1] as usize].sort_by(|a, b| {
                reveal[*a as usize]
                    .total_cmp(&reveal[*b as usize])
                    .then(a.cmp(b))
            });
        }
        let draw_reveal = draw_order.iter().map(|i| reveal[*i as usize]).collect();
        let mut group_order: Vec<u32> = (0..view.groups.len() as u32).collect();
        group_order.sort_by_key(|g| (std::cmp::Reverse(view.groups[*g as usize].size), *g));
        let valid = |i: u32| (i as usize) < n;
        let edges: Vec<(u32, u32)> = view
            .edges
            .iter()
            .filter(|e| valid(e.from) && valid(e.to))
            .map(|e| (e.from, e.to))
            .collect();
        let (out_starts, out_targets) = csr(n, edges.iter().copied());
        let (in_starts, in_targets) = csr(n, edges.iter().map(|&(a, b)| (b, a)));
        let ends: Vec<Segment> = view
            .edges
            .iter()
            .filter(|e| valid(e.from) && valid(e.to))
            .map(|e| {
                let (a, b) = (&view.nodes[e.from as usize], &view.nodes[e.to as usize]);
                ((a.x, a.y), (b.x, b.y))
            })
            .collect();
        let (edge_grid, edge_orders) = EdgeGrid::new(view.bounds, &ends);
        let group_edges = group_edges(&view);
        let centres: Vec<(f32, f32)> = view.nodes.iter().map(|v| (v.x, v.y)).collect();
        let hit = HitGrid::new(view.bounds, HIT_CELL, &centres);
        let fit_bounds = view.groups.iter().fold(view.bounds, |[x0, y0, x1, y1], g| {
            let r = g.radius;
            [
                x0.min(g.x - r),
                y0.min(g.y - r),
                x1.max(g.x + r),
                y1.max(g.y + r),
            ]
        });
        Scene {
            view,
            reveal,
            max_radius,
            fit_bounds,
            label_order,
            group_order,
            draw_order,
            draw_reveal,
            node_cells,
            node_cell_starts,
            out_starts,
            out_targets,
            in_starts,
            in_targets,
            edge_grid,
            edge_orders,
            group_edges,
            hit,
        }
    }

    pub fn callees(&self, node: u32) -> &[u32] {
        slice(&self.out_starts, &self.out_targets, node)
    }

    pub fn callers(&self, node: u32) -> &[u32] {
        slice(&self.in_starts, &self.in_targets, node)
    }

    /// Static node vertices ([`NODE_FLOATS`] each), in draw order.
    pub fn node_vertices(&self) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.view.nodes.len() * NODE_FLOATS);
        for &i in &self.draw_order {
            let v = &self.view.nodes[i as usize];
            out.extend_from_slice(&[v.x, v.y, v.radius, self.reveal[i as usize]]);
        }
        out
    }

    /// The node vertex ranges (first, count) to draw at `zoom` for the world rectangle `rect`:
    /// in each grid cell touching it, the nodes shown at that zoom.
    pub fn nodes_shown(&self, zoom: f32, rect: [f32; 4]) -> Vec<(i32, i32)> {
        let (c0, r0) = self.node_cells.col_row(rect[0], rect[1]);
        let (c1, r1) = self.node_cells.col_row(rect[2], rect[3]);
        let mut ranges: Vec<(i32, i32)> = Vec::new();
        for row in r0..=r1 {
            for col in c0..=c1 {
                let cell = row * self.node_cells.cols + col;
                let (first, end) = (
                    self.node_cell_starts[cell] as usize,
                    self.node_cell_starts[cell + 1] as usize,
                );
                let shown = self.draw_reveal[first..end]
                    .partition_point(|&reveal| lod::alpha(zoom, reveal) > 0.0);
                match ranges.last_mut() {
                    Some((f, n)) if (*f + *n) as usize == first => *n += shown as i32,
                    _ if shown > 0 => ranges.push((first as i32, shown as i32)),
                    _ => {}
                }
            }
        }
        ranges
    }

    /// Edge vertices ([`EDGE_FLOATS`] each, two per edge): the edges ordered by the cell of their
    /// `from` end, then again by the cell of their `to` end.
    pub fn edge_vertices(&self) -> Vec<f32> {
        let edges: Vec<_> = self
            .view
            .edges
            .iter()
            .filter(|e| {
                (e.from as usize) < self.view.nodes.len() && (e.to as usize) < self.view.nodes.len()
            })
            .collect();
        let mut out = Vec::with_capacity(edges.len() * 4 * EDGE_FLOATS);
        for order in &self.edge_orders {
            for &e in order {
                let edge = edges[e as usize];
                let (a, b) = (
                    &self.view.nodes[edge.from as usize],
                    &self.view.nodes[edge.to as usize],
                );
                let reveal = lod::edge_reveal(
                    self.reveal[edge.from as usize],
                    self.reveal[edge.to as usize],
                );
                let kind = match edge.kind {
                    EdgeKind::Imports => 1.0,
                    EdgeKind::Extends | EdgeKind::Implements => 2.0,
                    _ => 0.0,
                };
                for end in [a, b] {
                    out.extend_from_slice(&[end.x, end.y, a.x, a.y, reveal, kind]);
                }
            }
        }
        out
    }

    /// The colour of node `i` (communities by their group).
    pub fn color(&self, i: u32, by: ColorBy, lightness: f32) -> Rgba {
        let n = &self.view.nodes[i as usize];
        match by {
            ColorBy::Community => palette::community(n.group, lightness),
            ColorBy::Kind => palette::kind(n.kind, lightness),
        }
    }

    /// Node colours, four bytes each, in draw order.
    pub fn colors(&self, by: ColorBy, lightness: f32) -> Vec<u8> {
        let groups: Vec<[u8; 4]> = (0..self.view.groups.len() as u32)
            .map(|g| palette::to_bytes(palette::community(g, lightness)))
            .collect();
        let mut out = Vec::with_capacity(self.view.nodes.len() * 4);
        for &i in &self.draw_order {
            let n = &self.view.nodes[i as usize];
            let c = match by {
                ColorBy::Community => groups
                    .get(n.group as usize)
                    .copied()
                    .unwrap_or([128, 128, 128, 255]),
                ColorBy::Kind => palette::to_bytes(palette::kind(n.kind, lightness)),
            };
            out.extend_from_slice(&c);
        }
        out
    }

    /// Community disc vertices (two triangles each): in their community colour, or neutral
    /// when nodes are coloured by kind.
    pub fn disc_vertices(&self, by: ColorBy, lightness: f32) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.view.groups.len() * 6 * DISC_FLOATS);
        for (g, group) in self.view.groups.iter().enumerate() {
            let c = match by {
                ColorBy::Community => palette::community(g as u32, lightness),
                ColorBy::Kind => palette::oklch(lightness, 0.0, 0.0),
            };
            for (qx, qy) in [
                (-1.0, -1.0),
                (1.0, -1.0),
                (1.0, 1.0),
                (-1.0, -1.0),
                (1.0, 1.0),
                (-1.0, 1.0),
            ] {
                out.extend_from_slice(&[group.x, group.y, group.radius, qx, qy, c[0], c[1], c[2]]);
            }
        }
        out
    }

    /// Wide-line vertices of the community → community edges (alpha by how many edges each
    /// stands for).
    pub fn group_edge_vertices(&self) -> Vec<f32> {
        let max = self.group_edges.first().map_or(1, |e| e.count) as f32;
        let mut out = Vec::new();
        for e in &self.group_edges {
            let (a, b) = (
                &self.view.groups[e.a as usize],
                &self.view.groups[e.b as usize],
            );
            let share = (e.count as f32 / max).sqrt();
            wide_line(
                &mut out,
                (a.x, a.y),
                (b.x, b.y),
                1.0 + 2.0 * share,
                0.25 + 0.75 * share,
                0.0,
            );
        }
        out
    }

    /// Wide-line vertices of the selected node's edges: callees (tone 0) and callers (tone 1).
    pub fn selection_edge_vertices(&self, node: u32) -> Vec<f32> {
        let mut out = Vec::new();
        let Some(s) = self.view.nodes.get(node as usize) else {
            return out;
        };
        for (tone, list) in [(0.0, self.callees(node)), (1.0, self.callers(node))] {
            for &other in list {
                let o = &self.view.nodes[other as usize];
                wide_line(&mut out, (s.x, s.y), (o.x, o.y), 1.6, 0.9, tone);
            }
        }
        out
    }
}

/// Appends the six vertices (two triangles) of a wide line from `a` to `b`.
fn wide_line(out: &mut Vec<f32>, a: (f32, f32), b: (f32, f32), width: f32, alpha: f32, tone: f32) {
    for (along, side) in [
        (0.0, -1.0),
        (1.0, -1.0),
        (1.0, 1.0),
        (0.0, -1.0),
        (1.0, 1.0),
        (0.0, 1.0),
    ] {
        out.extend_from_slice(&[a.0, a.1, b.0, b.1, along, side, width, alpha, tone]);
    }
}

fn csr(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0u32; n + 1];
    for (a, _) in pairs.clone() {
        starts[a as usize + 1] += 1;
    }
    for i in 0..n {
        starts[i + 1] += starts[i];
    }
    let mut fill = starts.clone();
    let mut targets = vec![0u32; starts[n] as usize];
    for (a, b) in pairs {
        targets[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
    }
    (starts, targets)
}

fn slice<'a>(starts: &[u32], targets: &'a [u32], node: u32) -> &'a [u32] {
    match (starts.get(node as usize), starts.get(node as usize + 1)) {
        (Some(&a), Some(&b)) => &targets[a as usize..b as usize],
        _ => &[],
    }
}

/// Node edges summed per pair of groups, the `GROUP_EDGES` heaviest pairs first.
fn group_edges(view: &ViewGraph) -> Vec<GroupEdge> {
    let mut counts: rustc_hash::FxHashMap<(u32, u32), u32> = rustc_hash::FxHashMap::default();
    let groups = view.groups.len() as u32;
    for e in &view.edges {
        let (Some(a), Some(b)) = (
            view.nodes.get(e.from as usize),
            view.nodes.get(e.to as usize),
        ) else {
            continue;
        };
        let (a, b) = (a.group.min(b.group), a.group.max(b.group));
        if a != b && b < groups {
            *counts.entry((a, b)).or_default() += 1;
        }
    }
    let mut list: Vec<GroupEdge> = counts
        .into_iter()
        .map(|((a, b), count)| GroupEdge { a, b, count })
        .collect();
    list.sort_by_key(|e| (std::cmp::Reverse(e.count), e.a, e.b));
    list.truncate(GROUP_EDGES);
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use nexus_engine::layout::layout;
    use nexus_engine::sample::sample_graph;
    use std::rc::Rc;

    fn scene() -> Scene {
        Scene::new(Rc::new(layout(&sample_graph())))
    }

    /// Edges whose vertices fall in `ranges`, minus those the second pass skips.
    fn drawn(scene: &Scene, near: &EdgeRanges) -> Vec<(u32, u32)> {
        let vertices = scene.edge_vertices();
        let half = scene.view.edges.len() as i32 * 2;
        let [x0, y0, x1, y1] = near.cells_rect;
        let mut out = Vec::new();
        for &(first, count) in &near.ranges {
            for v in (first..first + count).step_by(2) {
                let a = &vertices[v as usize * EDGE_FLOATS..][..EDGE_FLOATS];
                let b = &vertices[(v as usize + 1) * EDGE_FLOATS..][..EDGE_FLOATS];
                let inside = a[2] >= x0 && a[2] < x1 && a[3] >= y0 && a[3] < y1;
                if v >= half && inside {
                    continue;
                }
                let find = |x: f32, y: f32| {
                    scene
                        .view
                        .nodes
                        .iter()
                        .position(|n| n.x == x && n.y == y)
                        .unwrap() as u32
                };
                out.push((find(a[0], a[1]), find(b[0], b[1])));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn the_whole_view_draws_every_edge_once() {
        let scene = scene();
        let near = scene.edge_grid.near(scene.view.bounds);
        let mut all: Vec<(u32, u32)> = scene.view.edges.iter().map(|e| (e.from, e.to)).collect();
        all.sort();
        assert_eq!(drawn(&scene, &near), all);
        assert_eq!(near.edges as usize, 2 * all.len());
    }

    #[test]
    fn a_corner_view_draws_the_edges_touching_its_cells_once() {
        let scene = scene();
        let [x0, _, x1, _] = scene.view.bounds;
        let half = (x1 - x0) * 0.1;
        let corner = &scene.view.nodes[scene.view.edges[0].from as usize];
        let rect = [
            corner.x - half,
            corner.y - half,
            corner.x + half,
            corner.y + half,
        ];
        let near = scene.edge_grid.near(rect);
        let [cx0, cy0, cx1, cy1] = near.cells_rect;
        let inside = |i: u32| {
            let n = &scene.view.nodes[i as usize];
            n.x >= cx0 && n.x < cx1 && n.y >= cy0 && n.y < cy1
        };
        let mut expected: Vec<(u32, u32)> = scene
            .view
            .edges
            .iter()
            .filter(|e| inside(e.from) || inside(e.to))
            .map(|e| (e.from, e.to))
            .collect();
        expected.sort();
        assert!(!expected.is_empty() && expected.len() < scene.view.edges.len());
        assert_eq!(drawn(&scene, &near), expected);
    }

    #[test]
    fn neighbours_follow_the_edges() {
        let scene = scene();
        for (i, _) in scene.view.nodes.iter().enumerate() {
            let i = i as u32;
            let mut out: Vec<u32> = scene.callees(i).to_vec();
            out.sort();
            let mut expected: Vec<u32> = scene
                .view
                .edges
                .iter()
                .filter(|e| e.from == i)
                .map(|e| e.to)
                .collect();
            expected.sort();
            assert_eq!(out, expected);
            assert!(
                scene
                    .callers(i)
                    .iter()
                    .all(|c| scene.callees(*c).contains(&i))
            );
        }
        assert!(scene.callees(u32::MAX).is_empty());
        let busiest = (0..scene.view.nodes.len() as u32)
            .max_by_key(|i| scene.callees(*i).len() + scene.callers(*i).len())
            .unwrap();
        let lines = scene.selection_edge_vertices(busiest).len() / WIDE_FLOATS / 6;
        assert_eq!(
            lines,
            scene.callees(busiest).len() + scene.callers(busiest).len()
        );
    }

    #[test]
    fn group_edges_sum_node_edges_between_groups() {
        let scene = scene();
        let view = &scene.view;
        for g in &scene.group_edges {
            assert!(g.a < g.b);
            let count = view
                .edges
                .iter()
                .filter(|e| {
                    let (a, b) = (
                        view.nodes[e.from as usize].group,
                        view.nodes[e.to as usize].group,
                    );
                    (a.min(b), a.max(b)) == (g.a, g.b)
                })
                .count();
            assert_eq!(count as u32, g.count);
        }
        assert!(
            scene
                .group_edges
                .windows(2)
                .all(|w| w[0].count >= w[1].count)
        );
        assert_eq!(
            scene.group_edge_vertices().len(),
            scene.group_edges.len() * 6 * WIDE_FLOATS
        );
    }

    #[test]
    fn label_order_puts_heavier_nodes_first() {
        let scene = scene();
        let w = |i: &u32| scene.view.nodes[*i as usize].weight;
        assert!(scene.label_order.windows(2).all(|p| w(&p[0]) >= w(&p[1])));
        assert_eq!(scene.label_order.len(), scene.view.nodes.len());
        assert_eq!(
            scene.node_vertices().len(),
            scene.view.nodes.len() * NODE_FLOATS
        );
    }

    #[test]
    fn colours_follow_groups_or_kinds() {
        let scene = scene();
        let by_group = scene.colors(ColorBy::Community, 0.7);
        let by_kind = scene.colors(ColorBy::Kind, 0.7);
        assert_eq!(by_group.len(), scene.view.nodes.len() * 4);
        let nodes = &scene.view.nodes;
        let slot = |colors: &[u8], k: usize| colors[k * 4..k * 4 + 4].to_vec();
        for (k, &i) in scene.draw_order.iter().enumerate() {
            let n = &nodes[i as usize];
            for (l, &j) in scene.draw_order.iter().enumerate() {
                let m = &nodes[j as usize];
                if m.group == n.group {
                    assert_eq!(slot(&by_group, k), slot(&by_group, l));
                }
                if m.kind == n.kind {
                    assert_eq!(slot(&by_kind, k), slot(&by_kind, l));
                }
            }
            assert_eq!(
                palette::to_bytes(scene.color(i, ColorBy::Kind, 0.7)).to_vec(),
                slot(&by_kind, k)
            );
        }
        assert_eq!(
            scene.disc_vertices(ColorBy::Community, 0.7).len(),
            scene.view.groups.len() * 6 * DISC_FLOATS
        );
    }

    #[test]
    fn the_nodes_shown_at_a_zoom_are_a_prefix_of_the_vertices() {
        let scene = scene();
        let vertices = scene.node_vertices();
        let mut drawn: Vec<u32> = vertices
            .chunks(NODE_FLOATS)
            .map(|v| {
                let i = scene
                    .view
                    .nodes
                    .iter()
                    .position(|n| n.x == v[0] && n.y == v[1])
                    .unwrap();
                assert_eq!(v[3], scene.reveal[i]);
                i as u32
            })
            .collect();
        drawn.sort();
        drawn.dedup();
        assert_eq!(drawn.len(), scene.view.nodes.len());
        let drawn = |ranges: &[(i32, i32)]| -> Vec<u32> {
            let mut out: Vec<u32> = ranges
                .iter()
                .flat_map(|&(first, n)| first..first + n)
                .map(|k| scene.draw_order[k as usize])
                .collect();
            out.sort();
            out
        };
        let bounds = scene.view.bounds;
        for zoom in [0.01, 0.5, 1.0, 1.5, 3.0, 5.0, 100.0] {
            let shown = drawn(&scene.nodes_shown(zoom, bounds));
            let expected: Vec<u32> = (0..scene.view.nodes.len() as u32)
                .filter(|i| lod::alpha(zoom, scene.reveal[*i as usize]) > 0.0)
                .collect();
            assert_eq!(shown, expected, "zoom {zoom}");
        }
        let [x0, y0, x1, y1] = bounds;
        let first = &scene.view.nodes[0];
        let (w, h) = ((x1 - x0) * 0.05, (y1 - y0) * 0.05);
        let near = [first.x - w, first.y - h, first.x + w, first.y + h];
        let inside = drawn(&scene.nodes_shown(100.0, near));
        assert!(inside.contains(&0) && inside.len() < scene.view.nodes.len());
        for (i, n) in scene.view.nodes.iter().enumerate() {
            if n.x >= near[0] && n.x <= near[2] && n.y >= near[1] && n.y <= near[3] {
                assert!(inside.binary_search(&(i as u32)).is_ok());
            }
        }
        let count = |zoom| drawn(&scene.nodes_shown(zoom, bounds)).len();
        assert!(count(0.01) < count(100.0));
    }

    #[test]
    fn an_empty_view_makes_an_empty_scene() {
        let scene = Scene::new(Rc::new(ViewGraph::default()));
        assert!(scene.node_vertices().is_empty() && scene.edge_vertices().is_empty());
        assert!(scene.edge_grid.near([0.0; 4]).ranges.is_empty());
        assert!(scene.group_edges.is_empty());
    }
}
