//! Colours of the graph picture: a categorical palette for communities, one colour per node kind
//! (both made in OKLCH at a lightness the theme picks), and a parser for CSS colour strings.

use nexus_engine::NodeKind;

/// An sRGB colour with alpha, each channel in 0..=1.
pub type Rgba = [f32; 4];

/// How nodes are coloured.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum ColorBy {
    #[default]
    Community,
    Kind,
}

/// Chroma of community and kind colours: vivid but not neon on dark or light backgrounds.
const CHROMA: f32 = 0.14;
/// Hues step by the golden angle, so neighbouring indices never look alike.
const GOLDEN_ANGLE_DEG: f32 = 137.507_76;

/// The colour of community (group) `index` at OKLCH lightness `lightness`.
pub fn community(index: u32, lightness: f32) -> Rgba {
    let hue = (25.0 + index as f32 * GOLDEN_ANGLE_DEG) % 360.0;
    oklch(lightness, CHROMA, hue)
}

/// The colour of a node kind at OKLCH lightness `lightness`.
pub fn kind(kind: NodeKind, lightness: f32) -> Rgba {
    let (chroma, hue) = match kind {
        NodeKind::File => (0.03, 250.0),
        NodeKind::Module => (CHROMA, 195.0),
        NodeKind::Class | NodeKind::Struct => (CHROMA, 305.0),
        NodeKind::Interface | NodeKind::Trait => (CHROMA, 350.0),
        NodeKind::Enum => (CHROMA, 70.0),
        NodeKind::Function => (CHROMA, 145.0),
        NodeKind::Method => (CHROMA, 240.0),
        NodeKind::Folder | NodeKind::Community | NodeKind::Process => (0.0, 0.0),
    };
    oklch(lightness, chroma, hue)
}

/// OKLCH (lightness 0..1, chroma, hue in degrees) to sRGB, clamped into the gamut.
pub fn oklch(l: f32, c: f32, hue_deg: f32) -> Rgba {
    let h = hue_deg.to_radians();
    let (a, b) = (c * h.cos(), c * h.sin());
    let l_ = l + 0.396_337_78 * a + 0.215_803_76 * b;
    let m_ = l - 0.105_561_35 * a - 0.063_854_17 * b;
    let s_ = l - 0.089_484_18 * a - 1.291_485_5 * b;
    let (lc, mc, sc) = (l_.powi(3), m_.powi(3), s_.powi(3));
    let r = 4.076_741_7 * lc - 3.307_711_6 * mc + 0.230_969_94 * sc;
    let g = -1.268_438 * lc + 2.609_757_4 * mc - 0.341_319_38 * sc;
    let bl = -0.004_196_086 * lc - 0.703_418_6 * mc + 1.707_614_7 * sc;
    [gamma(r), gamma(g), gamma(bl), 1.0]
}

fn gamma(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    if x <= 0.003_130_8 {
        12.92 * x
    } else {
        1.055 * x.powf(1.0 / 2.4) - 0.055
    }
}

/// A colour as four bytes (what the node colour buffer holds).
pub fn to_bytes(c: Rgba) -> [u8; 4] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// Parses `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb(…)` and `rgba(…)` (comma or space
/// separated, optional `/ alpha`, alpha as a number or a percentage). Named colours are not
/// parsed here: the page lets the browser turn them into `#rrggbb` first.
pub fn parse_css(text: &str) -> Option<Rgba> {
    let text = text.trim();
    if let Some(hex) = text.strip_prefix('#') {
        return parse_hex(hex);
    }
    let inner = text
        .strip_prefix("rgba(")
        .or_else(|| text.strip_prefix("rgb("))?
        .strip_suffix(')')?;
    let parts: Vec<&str> = inner
        .split([',', ' ', '/'])
        .filter(|p| !p.is_empty())
        .collect();
    if !(3..=4).contains(&parts.len()) {
        return None;
    }
    let mut out = [0.0, 0.0, 0.0, 1.0];
    for (i, part) in parts.iter().enumerate() {
        let value = match part.strip_suffix('%') {
            Some(p) => p.parse::<f32>().ok()? / 100.0,
            None if i < 3 => part.parse::<f32>().ok()? / 255.0,
            None => part.parse::<f32>().ok()?,
        };
        out[i] = value.clamp(0.0, 1.0);
    }
    Some(out)
}

fn parse_hex(hex: &str) -> Option<Rgba> {
    if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let digit = |i: usize| u8::from_str_radix(&hex[i..=i], 16).ok();
    let pair = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    let bytes: Vec<u8> = match hex.len() {
        3 | 4 => (0..hex.len())
            .map(|i| digit(i).map(|d| d * 17))
            .collect::<Option<_>>()?,
        6 | 8 => (0..hex.len() / 2)
            .map(|i| pair(i * 2))
            .collect::<Option<_>>()?,
        _ => return None,
    };
    let mut out = [0.0, 0.0, 0.0, 1.0];
    for (o, b) in out.iter_mut().zip(bytes) {
        *o = f32::from(b) / 255.0;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn luminance(c: Rgba) -> f32 {
        let lin = |v: f32| {
            if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])
    }

    fn contrast(a: Rgba, b: Rgba) -> f32 {
        let (la, lb) = (luminance(a), luminance(b));
        (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
    }

    #[test]
    fn oklch_matches_known_points() {
        let white = oklch(1.0, 0.0, 0.0);
        assert!(
            white[..3].iter().all(|v| (v - 1.0).abs() < 2e-3),
            "{white:?}"
        );
        assert_eq!(oklch(0.0, 0.0, 0.0), [0.0, 0.0, 0.0, 1.0]);
        // OKLCH(0.628, 0.2577, 29.23) is sRGB red.
        let red = oklch(0.628, 0.2577, 29.23);
        assert!(red[0] > 0.99 && red[1] < 0.02 && red[2] < 0.02, "{red:?}");
    }

    #[test]
    fn community_colours_differ_from_their_neighbours() {
        for i in 0..50 {
            let (a, b) = (community(i, 0.7), community(i + 1, 0.7));
            let distance: f32 = a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum();
            assert!(distance > 0.25, "{i}: {a:?} {b:?}");
        }
    }

    #[test]
    fn colours_read_on_both_theme_backgrounds() {
        let dark_bg = parse_css("#12151b").unwrap();
        let light_bg = parse_css("#f7f8fa").unwrap();
        for i in 0..20 {
            assert!(contrast(community(i, 0.74), dark_bg) > 4.0, "{i} on dark");
            assert!(contrast(community(i, 0.60), light_bg) > 2.2, "{i} on light");
        }
        for k in NodeKind::ALL {
            assert!(contrast(kind(k, 0.74), dark_bg) > 4.0, "{k:?} on dark");
            assert!(contrast(kind(k, 0.60), light_bg) > 2.2, "{k:?} on light");
        }
    }

    #[test]
    fn kinds_that_matter_have_distinct_colours() {
        let shown = [
            NodeKind::File,
            NodeKind::Module,
            NodeKind::Class,
            NodeKind::Interface,
            NodeKind::Enum,
            NodeKind::Function,
            NodeKind::Method,
        ];
        for (i, a) in shown.iter().enumerate() {
            for b in &shown[i + 1..] {
                assert_ne!(
                    to_bytes(kind(*a, 0.7)),
                    to_bytes(kind(*b, 0.7)),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    #[test]
    fn parses_css_colours() {
        assert_eq!(parse_css("#fff"), Some([1.0, 1.0, 1.0, 1.0]));
        assert_eq!(parse_css("#ff000080").map(to_bytes), Some([255, 0, 0, 128]));
        assert_eq!(parse_css(" #00ff00 ").map(to_bytes), Some([0, 255, 0, 255]));
        assert_eq!(
            parse_css("rgba(10, 20, 30, 0.5)").map(to_bytes),
            Some([10, 20, 30, 128])
        );
        assert_eq!(
            parse_css("rgb(10 20 30 / 50%)").map(to_bytes),
            Some([10, 20, 30, 128])
        );
        assert_eq!(parse_css("rgb(1, 2)"), None);
        assert_eq!(parse_css("#12"), None);
        assert_eq!(parse_css("#zzzzzz"), None);
        assert_eq!(parse_css("orange"), None);
    }
}
