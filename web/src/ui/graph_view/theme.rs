//! The picture's colours, read from CSS variables (`--graph-*`, defined in style.css for the light
//! and dark themes); every variable has a fallback so a missing one never breaks drawing.

use super::palette::{Rgba, parse_css};

#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    pub background: Rgba,
    /// OKLCH lightness of node colours.
    pub node_lightness: f32,
    pub edge_call: Rgba,
    pub edge_import: Rgba,
    pub edge_heritage: Rgba,
    pub group_edge: Rgba,
    /// Opacity of a community disc's fill and of its outline.
    pub disc_fill: f32,
    pub disc_line: f32,
    pub select: Rgba,
    pub callee: Rgba,
    pub caller: Rgba,
    pub hover: Rgba,
    /// Opacity of nodes outside the selection's neighbourhood while something is selected.
    pub dim: f32,
    /// Label colours stay CSS strings: the 2D canvas takes them as they are.
    pub label: String,
    pub label_halo: String,
    pub group_label: String,
}

impl Theme {
    /// Reads each variable through `var` (which returns "" for an unset one).
    pub fn from_vars(var: impl Fn(&str) -> String) -> Theme {
        let color = |name: &str, fallback: Rgba| parse_css(&var(name)).unwrap_or(fallback);
        let number = |name: &str, fallback: f32| var(name).trim().parse().unwrap_or(fallback);
        let text = |name: &str, fallback: &str| {
            let v = var(name).trim().to_owned();
            if v.is_empty() { fallback.to_owned() } else { v }
        };
        Theme {
            background: color("--graph-bg", [0.07, 0.08, 0.11, 1.0]),
            node_lightness: number("--graph-node-lightness", 0.74).clamp(0.2, 0.95),
            edge_call: color("--graph-edge", [0.6, 0.65, 0.75, 0.16]),
            edge_import: color("--graph-edge-import", [0.5, 0.55, 0.65, 0.1]),
            edge_heritage: color("--graph-edge-heritage", [0.8, 0.6, 0.9, 0.3]),
            group_edge: color("--graph-group-edge", [0.6, 0.65, 0.75, 0.35]),
            disc_fill: number("--graph-disc-fill", 0.06).clamp(0.0, 1.0),
            disc_line: number("--graph-disc-line", 0.18).clamp(0.0, 1.0),
            select: color("--graph-select", [1.0, 0.55, 0.2, 1.0]),
            callee: color("--graph-callee", [1.0, 0.6, 0.25, 0.9]),
            caller: color("--graph-caller", [0.35, 0.7, 1.0, 0.9]),
            hover: color("--graph-hover", [1.0, 1.0, 1.0, 0.9]),
            dim: number("--graph-dim", 0.25).clamp(0.0, 1.0),
            label: text("--graph-label", "#e4e7ee"),
            label_halo: text("--graph-label-halo", "rgba(18, 21, 27, 0.85)"),
            group_label: text("--graph-group-label", "#aab2c4"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_variables_and_falls_back_on_missing_or_bad_ones() {
        let theme = Theme::from_vars(|name| match name {
            "--graph-bg" => " #ffffff".into(),
            "--graph-node-lightness" => "0.6".into(),
            "--graph-edge" => "not a colour".into(),
            "--graph-label" => " #111 ".into(),
            _ => String::new(),
        });
        assert_eq!(theme.background, [1.0, 1.0, 1.0, 1.0]);
        assert_eq!(theme.node_lightness, 0.6);
        assert_eq!(theme.edge_call, [0.6, 0.65, 0.75, 0.16]);
        assert_eq!(theme.label, "#111");
        assert_eq!(theme.group_label, "#aab2c4");
    }
}
