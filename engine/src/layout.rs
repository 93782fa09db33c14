//! The graph picture's layout: where each file and symbol sits, seeded by communities and relaxed
//! by a few rounds of forces. Pure Rust, run in the engine worker; the page only draws it.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::cells::Cells;
use super::graph::{EdgeKind, Graph, NodeKind};

/// "No such index" in the `u32` index fields of a [`ViewGraph`].
pub const NO_INDEX: u32 = u32::MAX;

/// Everything the page needs to draw the graph and to name what the pointer is on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ViewGraph {
    /// The project's name.
    pub project: String,
    /// Nodes drawn, files and symbols.
    pub nodes: Vec<ViewNode>,
    /// Calls, imports and heritage between drawn nodes, each pair once.
    pub edges: Vec<ViewEdge>,
    /// Communities, then one group per folder for files and symbols outside every community.
    pub groups: Vec<ViewGroup>,
    /// Min x, min y, max x, max y over all nodes (radius included).
    pub bounds: [f32; 4],
}

/// One drawn file or symbol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewNode {
    /// Stable id (`Kind:path:qualified.name`), what tools take.
    pub id: String,
    /// Short name: the symbol's name or the file's name.
    pub label: String,
    /// The node's kind.
    pub kind: NodeKind,
    /// The drawn node of this node's file (itself for a file), or [`NO_INDEX`].
    pub file: u32,
    /// Index into [`ViewGraph::groups`].
    pub group: u32,
    /// Its first line, 1-based.
    pub start_line: u32,
    /// Its last line, 1-based.
    pub end_line: u32,
    /// Horizontal position.
    pub x: f32,
    /// Vertical position.
    pub y: f32,
    /// Drawn radius.
    pub radius: f32,
    /// Label priority in 0..=1: files and types first, then by how connected the node is.
    pub weight: f32,
}

/// An edge between two drawn nodes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ViewEdge {
    /// Index of the source in `ViewGraph::nodes`.
    pub from: u32,
    /// Index of the target in `ViewGraph::nodes`.
    pub to: u32,
    /// What the edge says.
    pub kind: EdgeKind,
}

/// A community (or folder) disc: its label, centre, radius and member count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewGroup {
    /// The group's label (community or folder).
    pub label: String,
    /// The community's stable id; empty for a folder's group.
    pub id: String,
    /// Horizontal position of the disc's centre.
    pub x: f32,
    /// Vertical position of the disc's centre.
    pub y: f32,
    /// The disc's radius.
    pub radius: f32,
    /// How many nodes it holds.
    pub size: u32,
}

const GOLDEN_ANGLE: f32 = 2.399_963;
/// Distance between neighbouring symbols inside a file cluster, in world units.
const SPACING: f32 = 1.0;
const RELAX_ROUNDS: usize = 24;
/// The farthest two nodes push each other: 1.2 × the sum of the largest radii (0.9 each).
const REPEL_REACH: f32 = 2.2;

/// Files and symbols drawn at most: above it every file is drawn and the most connected symbols
/// fill the rest, so a kernel-sized graph's picture stays as large as a big project's.
pub const MAX_DRAWN_NODES: usize = 120_000;

/// Lays out `graph`: deterministic for a given graph, at most [`MAX_DRAWN_NODES`] nodes drawn.
pub fn layout(graph: &Graph) -> ViewGraph {
    layout_within(graph, MAX_DRAWN_NODES)
}

fn layout_within(graph: &Graph, max_drawn: usize) -> ViewGraph {
    let (mut nodes, drawn_of) = drawn_nodes(graph, max_drawn);
    let edges = drawn_edges(graph, &drawn_of);
    let groups = assign_groups(graph, &mut nodes, &drawn_of);
    let mut groups = place(&mut nodes, groups);
    relax(&mut nodes, &edges, &groups);
    for node in &nodes {
        if let Some(group) = groups.get_mut(node.group as usize) {
            let g = &mut group.group;
            let reach = ((node.x - g.x).powi(2) + (node.y - g.y).powi(2)).sqrt() + node.radius;
            g.radius = g.radius.max(reach);
        }
    }
    let bounds = nodes.iter().fold(
        [f32::MAX, f32::MAX, f32::MIN, f32::MIN],
        |[x0, y0, x1, y1], n| {
            [
                x0.min(n.x - n.radius),
                y0.min(n.y - n.radius),
                x1.max(n.x + n.radius),
                y1.max(n.y + n.radius),
            ]
        },
    );
    ViewGraph {
        project: graph.project.clone(),
        bounds: if nodes.is_empty() { [0.0; 4] } else { bounds },
        nodes,
        edges,
        groups: groups.into_iter().map(|g| g.group).collect(),
    }
}

/// How many calls and imports each graph node takes part in.
fn connections(graph: &Graph) -> Vec<u32> {
    let mut degree = vec![0u32; graph.node_count()];
    for edge in graph.edges() {
        if matches!(edge.kind, EdgeKind::Calls | EdgeKind::Imports) {
            for end in [edge.from, edge.to] {
                if let Some(d) = degree.get_mut(end as usize) {
                    *d += 1;
                }
            }
        }
    }
    degree
}

/// Whether each graph node is drawn: every file, and every symbol while files and symbols are at
/// most `max_drawn`; above it the most connected symbols (ties by id) up to `max_drawn` in all.
fn chosen(graph: &Graph, max_drawn: usize) -> Vec<bool> {
    let mut drawn = vec![false; graph.node_count()];
    let mut symbols = Vec::new();
    let mut files = 0usize;
    for node in graph.nodes() {
        let kind = node.kind();
        if kind == NodeKind::File {
            drawn[node.id as usize] = true;
            files += 1;
        } else if kind.is_symbol() {
            symbols.push(node.id);
        }
    }
    let room = max_drawn.saturating_sub(files);
    if symbols.len() > room {
        let degree = connections(graph);
        symbols.sort_by_key(|id| (std::cmp::Reverse(degree[*id as usize]), *id));
        symbols.truncate(room);
    }
    for id in symbols {
        drawn[id as usize] = true;
    }
    drawn
}

/// Files and symbols (see [`chosen`]); `drawn_of[graph node]` is its drawn index or [`NO_INDEX`].
fn drawn_nodes(graph: &Graph, max_drawn: usize) -> (Vec<ViewNode>, Vec<u32>) {
    let mut drawn_of = vec![NO_INDEX; graph.node_count()];
    let mut nodes = Vec::new();
    let chosen = chosen(graph, max_drawn);
    for node in graph.nodes() {
        let kind = node.kind();
        if !chosen[node.id as usize] {
            continue;
        }
        drawn_of[node.id as usize] = nodes.len() as u32;
        let label = if kind == NodeKind::File {
            node.file()
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_owned()
        } else {
            node.name().to_owned()
        };
        nodes.push(ViewNode {
            id: node.stable_id(),
            label,
            kind,
            file: NO_INDEX,
            group: NO_INDEX,
            start_line: node.start_line(),
            end_line: node.end_line(),
            x: 0.0,
            y: 0.0,
            radius: 0.0,
            weight: 0.0,
        });
    }
    let mut file_of: FxHashMap<&str, u32> = FxHashMap::default();
    for node in graph.nodes_of_kind(NodeKind::File) {
        if let Some(n) = graph.node(*node) {
            file_of.insert(n.file(), drawn_of[*node as usize]);
        }
    }
    let mut degree = vec![0u32; nodes.len()];
    for edge in graph.edges() {
        if matches!(edge.kind, EdgeKind::Calls | EdgeKind::Imports) {
            for end in [edge.from, edge.to] {
                if let Some(d) = drawn_of.get(end as usize).filter(|d| **d != NO_INDEX) {
                    degree[*d as usize] += 1;
                }
            }
        }
    }
    let max_log = degree
        .iter()
        .map(|d| (1.0 + *d as f32).ln())
        .fold(1.0f32, f32::max);
    for node in graph.nodes() {
        let drawn = drawn_of[node.id as usize];
        let Some(view) = nodes.get_mut(drawn as usize) else {
            continue;
        };
        view.file = file_of.get(node.file()).copied().unwrap_or(NO_INDEX);
        let connected = (1.0 + degree[drawn as usize] as f32).ln() / max_log;
        let (base, bonus) = match view.kind {
            NodeKind::File => (0.55, 0.5),
            kind if kind.is_type() => (0.45, 0.3),
            _ => (0.3, 0.0),
        };
        view.radius = base + 0.35 * connected;
        view.weight = (bonus + connected * (1.0 - bonus)).min(1.0);
    }
    (nodes, drawn_of)
}

fn drawn_edges(graph: &Graph, drawn_of: &[u32]) -> Vec<ViewEdge> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut edges = Vec::new();
    for edge in graph.edges() {
        if !matches!(
            edge.kind,
            EdgeKind::Calls | EdgeKind::Imports | EdgeKind::Extends | EdgeKind::Implements
        ) {
            continue;
        }
        let (Some(&from), Some(&to)) = (
            drawn_of.get(edge.from as usize),
            drawn_of.get(edge.to as usize),
        ) else {
            continue;
        };
        if from == NO_INDEX || to == NO_INDEX || from == to || !seen.insert((from, to)) {
            continue;
        }
        edges.push(ViewEdge {
            from,
            to,
            kind: edge.kind,
        });
    }
    edges
}

/// A group while it is being placed.
struct Placing {
    group: ViewGroup,
    members: Vec<u32>,
}

/// Symbols join their community; a file joins the community most of its symbols are in; the rest
/// join one group per folder.
fn assign_groups(graph: &Graph, nodes: &mut [ViewNode], drawn_of: &[u32]) -> Vec<Placing> {
    let mut groups: Vec<Placing> = Vec::new();
    for community in &graph.communities {
        let (label, id) = graph
            .node(community.node)
            .map(|n| (n.name().to_owned(), n.stable_id()))
            .unwrap_or_default();
        let index = groups.len() as u32;
        let mut members = Vec::new();
        for member in &community.members {
            if let Some(node) = drawn_of
                .get(*member as usize)
                .and_then(|d| nodes.get_mut(*d as usize))
                .filter(|n| n.group == NO_INDEX)
            {
                node.group = index;
                members.push(drawn_of[*member as usize]);
            }
        }
        if !members.is_empty() {
            groups.push(Placing {
                group: ViewGroup {
                    label,
                    id,
                    x: 0.0,
                    y: 0.0,
                    radius: 0.0,
                    size: 0,
                },
                members,
            });
        }
    }
    // Files: the community most of their symbols joined.
    let mut votes: FxHashMap<u32, FxHashMap<u32, u32>> = FxHashMap::default();
    for node in nodes.iter() {
        if node.kind != NodeKind::File && node.group != NO_INDEX && node.file != NO_INDEX {
            *votes
                .entry(node.file)
                .or_default()
                .entry(node.group)
                .or_default() += 1;
        }
    }
    let mut by_folder: FxHashMap<String, u32> = FxHashMap::default();
    for (i, node) in nodes.iter_mut().enumerate() {
        if node.kind != NodeKind::File {
            continue;
        }
        let voted = votes
            .get(&(i as u32))
            .and_then(|v| v.iter().max_by_key(|(g, n)| (**n, std::cmp::Reverse(**g))))
            .map(|(g, _)| *g);
        let group =
            voted.unwrap_or_else(|| folder_group(folder_of(&node.id), &mut groups, &mut by_folder));
        node.group = group;
        groups[group as usize].members.push(i as u32);
    }
    // Symbols outside every community stay with their file.
    let file_groups: Vec<u32> = nodes.iter().map(|n| n.group).collect();
    for (i, node) in nodes.iter_mut().enumerate() {
        if node.group != NO_INDEX {
            continue;
        }
        let group = match file_groups.get(node.file as usize) {
            Some(&group) if group != NO_INDEX => group,
            _ => folder_group(folder_of(&node.id), &mut groups, &mut by_folder),
        };
        node.group = group;
        groups[group as usize].members.push(i as u32);
    }
    for group in &mut groups {
        group.group.size = group.members.len() as u32;
    }
    groups
}

/// The group of a folder's files and symbols outside every community, made on first use.
fn folder_group(
    folder: String,
    groups: &mut Vec<Placing>,
    by_folder: &mut FxHashMap<String, u32>,
) -> u32 {
    *by_folder.entry(folder).or_insert_with_key(|folder| {
        groups.push(Placing {
            group: ViewGroup {
                label: if folder.is_empty() {
                    "/".into()
                } else {
                    folder.clone()
                },
                id: String::new(),
                x: 0.0,
                y: 0.0,
                radius: 0.0,
                size: 0,
            },
            members: Vec::new(),
        });
        groups.len() as u32 - 1
    })
}

/// The folder of a stable id's path (`File:a/b/c.py` → `a/b`).
fn folder_of(id: &str) -> String {
    let path = id.split(':').nth(1).unwrap_or_default();
    path.rsplit_once('/')
        .map(|(folder, _)| folder.to_owned())
        .unwrap_or_default()
}

/// Position `k` of a sunflower pattern whose items have the given areas so far.
fn sunflower(k: usize, area_before: f32, area: f32) -> (f32, f32) {
    let r = ((area_before + area * 0.5) / std::f32::consts::PI).sqrt();
    let a = k as f32 * GOLDEN_ANGLE;
    (r * a.cos(), r * a.sin())
}

/// Places file clusters inside each group, then the groups side by side, largest in the middle.
fn place(nodes: &mut [ViewNode], mut groups: Vec<Placing>) -> Vec<Placing> {
    for group in &mut groups {
        // Clusters: one per file, holding the file (if here) and its symbols in this group.
        let mut clusters: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        for &m in &group.members {
            let key = match nodes[m as usize].file {
                NO_INDEX => m,
                file => file,
            };
            clusters.entry(key).or_default().push(m);
        }
        let mut clusters: Vec<(u32, Vec<u32>)> = clusters.into_iter().collect();
        clusters.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
        let mut area_before = 0.0;
        let mut extent = 0.0f32;
        for (k, (file, members)) in clusters.iter_mut().enumerate() {
            // The file in the middle, its symbols by line around it.
            members.sort_by_key(|m| {
                let n = &nodes[*m as usize];
                (*m != *file, n.start_line, *m)
            });
            let inner = members.len() as f32 * SPACING * SPACING * 1.3;
            let area = inner + 4.0;
            let (cx, cy) = sunflower(k, area_before, area);
            area_before += area;
            for (i, m) in members.iter().enumerate() {
                let (dx, dy) = if i == 0 {
                    (0.0, 0.0)
                } else {
                    sunflower(i, (i as f32 - 0.5) * SPACING * SPACING * 1.3, 0.0)
                };
                let node = &mut nodes[*m as usize];
                node.x = cx + dx;
                node.y = cy + dy;
                extent = extent.max((node.x.powi(2) + node.y.powi(2)).sqrt() + node.radius);
            }
        }
        group.group.radius = extent.max(1.0);
    }
    // Groups: largest first, in a sunflower of their discs, then pushed apart where they overlap.
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by(|a, b| {
        groups[*b]
            .group
            .radius
            .total_cmp(&groups[*a].group.radius)
            .then(a.cmp(b))
    });
    let mut area_before = 0.0;
    let mut centres = vec![(0.0f32, 0.0f32); groups.len()];
    for (k, g) in order.iter().enumerate() {
        let r = groups[*g].group.radius + 3.0;
        let area = std::f32::consts::PI * r * r * 1.15;
        centres[*g] = sunflower(k, area_before, area);
        area_before += area;
    }
    separate(&mut centres, &groups);
    for (g, group) in groups.iter_mut().enumerate() {
        let (cx, cy) = centres[g];
        group.group.x = cx;
        group.group.y = cy;
        for m in &group.members {
            let node = &mut nodes[*m as usize];
            node.x += cx;
            node.y += cy;
        }
    }
    groups
}

/// Pushes overlapping group discs apart (small counts only: the sunflower is close already).
fn separate(centres: &mut [(f32, f32)], groups: &[Placing]) {
    if groups.len() > 1500 {
        return;
    }
    for _ in 0..30 {
        let mut moved = false;
        for a in 0..groups.len() {
            for b in a + 1..groups.len() {
                let (dx, dy) = (centres[b].0 - centres[a].0, centres[b].1 - centres[a].1);
                let min = groups[a].group.radius + groups[b].group.radius + 2.0;
                let d2 = dx * dx + dy * dy;
                if d2 >= min * min {
                    continue;
                }
                let d = d2.sqrt().max(1e-3);
                let push = (min - d) * 0.5;
                let (ux, uy) = if d2 > 1e-6 {
                    (dx / d, dy / d)
                } else {
                    (1.0, 0.0)
                };
                centres[a].0 -= ux * push;
                centres[a].1 -= uy * push;
                centres[b].0 += ux * push;
                centres[b].1 += uy * push;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
}

/// A few rounds of forces inside each group: edges pull their ends together, close neighbours
/// push apart (found through a grid), and every node stays inside its group's disc.
fn relax(nodes: &mut [ViewNode], edges: &[ViewEdge], groups: &[Placing]) {
    if nodes.is_empty() {
        return;
    }
    let mut dx = vec![0.0f32; nodes.len()];
    let mut dy = vec![0.0f32; nodes.len()];
    for round in 0..RELAX_ROUNDS {
        let heat = 1.0 - round as f32 / RELAX_ROUNDS as f32;
        dx.fill(0.0);
        dy.fill(0.0);
        for edge in edges {
            let (a, b) = (edge.from as usize, edge.to as usize);
            if nodes[a].group != nodes[b].group {
                continue;
            }
            let (ex, ey) = (nodes[b].x - nodes[a].x, nodes[b].y - nodes[a].y);
            let d = (ex * ex + ey * ey).sqrt();
            if d <= SPACING {
                continue;
            }
            let pull = 0.04 * (d - SPACING) / d;
            dx[a] += ex * pull;
            dy[a] += ey * pull;
            dx[b] -= ex * pull;
            dy[b] -= ey * pull;
        }
        let grid = Grid::build(nodes, REPEL_REACH);
        for (i, n) in nodes.iter().enumerate() {
            let (cx, cy) = grid.cells.col_row(n.x, n.y);
            for gy in cy.saturating_sub(1)..=(cy + 1).min(grid.cells.rows - 1) {
                for gx in cx.saturating_sub(1)..=(cx + 1).min(grid.cells.cols - 1) {
                    for &j in grid.items_in(gx, gy) {
                        let j = j as usize;
                        if j == i {
                            continue;
                        }
                        let (rx, ry) = (n.x - nodes[j].x, n.y - nodes[j].y);
                        let d2 = rx * rx + ry * ry;
                        let min = (n.radius + nodes[j].radius) * 1.2;
                        if d2 >= min * min {
                            continue;
                        }
                        if d2 < 1e-6 {
                            let a = (i as f32) * GOLDEN_ANGLE;
                            dx[i] += a.cos() * 0.1;
                            dy[i] += a.sin() * 0.1;
                            continue;
                        }
                        let d = d2.sqrt();
                        let push = 0.25 * (min - d) / d;
                        dx[i] += rx * push;
                        dy[i] += ry * push;
                    }
                }
            }
        }
        for (i, n) in nodes.iter_mut().enumerate() {
            let (mx, my) = (dx[i] * heat, dy[i] * heat);
            let step = (mx * mx + my * my).sqrt();
            let limit = SPACING * 0.5;
            let scale = if step > limit { limit / step } else { 1.0 };
            n.x += mx * scale;
            n.y += my * scale;
            if let Some(group) = groups.get(n.group as usize) {
                let (gx, gy) = (n.x - group.group.x, n.y - group.group.y);
                let d = (gx * gx + gy * gy).sqrt();
                let max = group.group.radius * 1.05;
                if d > max {
                    n.x = group.group.x + gx * max / d;
                    n.y = group.group.y + gy * max / d;
                }
            }
        }
    }
}

/// Node indices bucketed by square cells over the nodes' bounds (rebuilt each round): close
/// pairs are found in the 3 × 3 cells around a node.
struct Grid {
    cells: Cells,
    /// Nodes of cell `c` are `items[start[c]..start[c + 1]]`.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Grid {
    /// Cells at least `reach` wide; wider when the nodes are spread so far that cells would
    /// outnumber them many times.
    fn build(nodes: &[ViewNode], reach: f32) -> Grid {
        let bounds = nodes.iter().fold(
            [f32::MAX, f32::MAX, f32::MIN, f32::MIN],
            |[a, b, c, d], n| [a.min(n.x), b.min(n.y), c.max(n.x), d.max(n.y)],
        );
        let (w, h) = (
            (bounds[2] - bounds[0]).max(0.0),
            (bounds[3] - bounds[1]).max(0.0),
        );
        let budget = (nodes.len() * 8 + 4096) as f32;
        let mut cell = reach;
        if (w / cell + 1.0) * (h / cell + 1.0) > budget {
            cell = ((w * h) / budget).sqrt().max(reach) * 1.01;
        }
        let cells = Cells::over(bounds, cell);
        let of: Vec<usize> = nodes.iter().map(|n| cells.index(n.x, n.y)).collect();
        let (start, items) = cells.bucket(&of);
        Grid {
            cells,
            start,
            items,
        }
    }

    fn items_in(&self, cx: usize, cy: usize) -> &[u32] {
        let c = cy * self.cells.cols + cx;
        &self.items[self.start[c] as usize..self.start[c + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::sample_graph;

    #[test]
    fn a_graph_over_the_cap_draws_every_file_and_its_most_connected_symbols() {
        let graph = sample_graph();
        let files = graph.nodes_of_kind(NodeKind::File).len();
        let view = layout_within(&graph, files + 5);
        assert_eq!(view.nodes.len(), files + 5);
        let drawn_files = view
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::File)
            .count();
        assert_eq!(drawn_files, files);
        let degree = connections(&graph);
        let of = |id: &str| degree[graph.find_id(id).unwrap() as usize];
        let least_drawn = view
            .nodes
            .iter()
            .filter(|n| n.kind != NodeKind::File)
            .map(|n| of(&n.id))
            .min()
            .unwrap();
        let most_left = graph
            .nodes()
            .filter(|n| n.kind().is_symbol())
            .filter(|n| !view.nodes.iter().any(|v| v.id == n.stable_id()))
            .map(|n| degree[n.id as usize])
            .max()
            .unwrap();
        assert!(least_drawn >= most_left, "{least_drawn} < {most_left}");
        for edge in &view.edges {
            assert!(
                (edge.from as usize) < view.nodes.len() && (edge.to as usize) < view.nodes.len()
            );
        }
        assert_eq!(layout_within(&graph, 0).nodes.len(), files);
    }

    #[test]
    fn draws_every_file_and_symbol_once_with_its_file() {
        let graph = sample_graph();
        let view = layout(&graph);
        let expected = graph
            .nodes()
            .filter(|n| n.kind() == NodeKind::File || n.kind().is_symbol())
            .count();
        assert_eq!(view.nodes.len(), expected);
        for node in &view.nodes {
            assert!(node.x.is_finite() && node.y.is_finite(), "{node:?}");
            assert!((node.group as usize) < view.groups.len());
            let file = &view.nodes[node.file as usize];
            assert_eq!(file.kind, NodeKind::File);
            assert!(node.id.contains(file.id.trim_start_matches("File:")));
        }
        let ids: std::collections::HashSet<_> = view.nodes.iter().map(|n| &n.id).collect();
        assert_eq!(ids.len(), view.nodes.len());
    }

    #[test]
    fn keeps_calls_between_drawn_nodes_once() {
        let graph = sample_graph();
        let view = layout(&graph);
        let calls = view
            .edges
            .iter()
            .filter(|e| e.kind == EdgeKind::Calls)
            .count();
        assert!(calls > 0);
        let pairs: std::collections::HashSet<_> =
            view.edges.iter().map(|e| (e.from, e.to)).collect();
        assert_eq!(pairs.len(), view.edges.len());
        assert!(view.edges.iter().all(|e| e.from != e.to));
    }

    #[test]
    fn nodes_stay_near_their_group_and_inside_the_bounds() {
        let view = layout(&sample_graph());
        let [x0, y0, x1, y1] = view.bounds;
        for node in &view.nodes {
            let group = &view.groups[node.group as usize];
            let d = ((node.x - group.x).powi(2) + (node.y - group.y).powi(2)).sqrt();
            assert!(d <= group.radius + 1e-3, "{node:?} {group:?}");
            assert!(node.x >= x0 && node.x <= x1 && node.y >= y0 && node.y <= y1);
        }
    }

    #[test]
    fn the_same_graph_gives_the_same_picture() {
        let graph = sample_graph();
        assert_eq!(layout(&graph), layout(&graph));
    }

    #[test]
    fn the_grid_holds_every_node_in_the_cell_of_its_position() {
        let view = layout(&sample_graph());
        let grid = Grid::build(&view.nodes, REPEL_REACH);
        let mut seen = vec![false; view.nodes.len()];
        for cy in 0..grid.cells.rows {
            for cx in 0..grid.cells.cols {
                for &i in grid.items_in(cx, cy) {
                    let n = &view.nodes[i as usize];
                    assert_eq!(grid.cells.col_row(n.x, n.y), (cx, cy));
                    seen[i as usize] = true;
                }
            }
        }
        assert!(seen.into_iter().all(|s| s));
        assert!(grid.cells.cell >= REPEL_REACH);
    }

    #[test]
    fn an_empty_graph_has_an_empty_picture() {
        let view = layout(&Graph::default());
        assert!(view.nodes.is_empty() && view.edges.is_empty());
        assert_eq!(view.bounds, [0.0; 4]);
    }
}
