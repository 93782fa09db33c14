//! The graph picture's camera: a centre in world units and a zoom in CSS pixels per world unit.
//! Converts world ↔ screen, fits bounds, zooms about the pointer and eases between two views.

/// Size of the drawing area in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub width: f32,
    pub height: f32,
}

impl Viewport {
    pub fn is_empty(&self) -> bool {
        self.width < 1.0 || self.height < 1.0
    }
}

/// Where the camera looks (`x`, `y`, world units) and how close (`zoom`, CSS px per world unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub x: f32,
    pub y: f32,
    pub zoom: f32,
}

/// Closest zoom: a typical node (radius ≈ 0.5) is then about 120 px wide.
pub const MAX_ZOOM: f32 = 240.0;
/// How far out one may zoom, as a fraction of the zoom that fits the whole graph.
const MIN_ZOOM_OF_FIT: f32 = 0.5;

impl Default for Camera {
    fn default() -> Self {
        Camera {
            x: 0.0,
            y: 0.0,
            zoom: 1.0,
        }
    }
}

/// Room kept free on each side of the viewport when fitting, CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Margins {
    pub left: f32,
    pub top: f32,
    pub right: f32,
    pub bottom: f32,
}

impl Margins {
    /// The same room on every side.
    pub fn even(px: f32) -> Margins {
        Margins {
            left: px,
            top: px,
            right: px,
            bottom: px,
        }
    }
}

impl Camera {
    /// The camera that shows `bounds` (min x, min y, max x, max y) whole, inside the viewport less
    /// `margins` CSS px on each side.
    pub fn fit(bounds: [f32; 4], viewport: Viewport, margins: Margins) -> Camera {
        let [x0, y0, x1, y1] = bounds;
        let (w, h) = ((x1 - x0).max(1e-3), (y1 - y0).max(1e-3));
        let room_x = (viewport.width - margins.left - margins.right).max(1.0);
        let room_y = (viewport.height - margins.top - margins.bottom).max(1.0);
        let zoom = (room_x / w).min(room_y / h).min(MAX_ZOOM);
        Camera {
            x: (x0 + x1) * 0.5 + (margins.right - margins.left) * 0.5 / zoom,
            y: (y0 + y1) * 0.5 + (margins.bottom - margins.top) * 0.5 / zoom,
            zoom,
        }
    }

    pub fn to_screen(self, viewport: Viewport, wx: f32, wy: f32) -> (f32, f32) {
        (
            (wx - self.x) * self.zoom + viewport.width * 0.5,
            (wy - self.y) * self.zoom + viewport.height * 0.5,
        )
    }

    pub fn to_world(self, viewport: Viewport, sx: f32, sy: f32) -> (f32, f32) {
        (
            (sx - viewport.width * 0.5) / self.zoom + self.x,
            (sy - viewport.height * 0.5) / self.zoom + self.y,
        )
    }

    /// The world rectangle on screen: min x, min y, max x, max y.
    pub fn visible(&self, viewport: Viewport) -> [f32; 4] {
        let (x0, y0) = self.to_world(viewport, 0.0, 0.0);
        let (x1, y1) = self.to_world(viewport, viewport.width, viewport.height);
        [x0, y0, x1, y1]
    }

    /// Moves the picture by a pointer drag of `dx`, `dy` CSS pixels.
    pub fn pan(&mut self, dx: f32, dy: f32) {
        self.x -= dx / self.zoom;
        self.y -= dy / self.zoom;
    }

    /// Zooms by `factor` keeping the world point under screen point (`sx`, `sy`) in place; the
    /// zoom stays within `[fit_zoom × MIN_ZOOM_OF_FIT, MAX_ZOOM]`.
    pub fn zoom_at(&mut self, viewport: Viewport, sx: f32, sy: f32, factor: f32, fit_zoom: f32) {
        let (wx, wy) = self.to_world(viewport, sx, sy);
        let min = (fit_zoom * MIN_ZOOM_OF_FIT).min(MAX_ZOOM);
        self.zoom = (self.zoom * factor).clamp(min, MAX_ZOOM);
        self.x = wx - (sx - viewport.width * 0.5) / self.zoom;
        self.y = wy - (sy - viewport.height * 0.5) / self.zoom;
    }

    /// Clip-space transform for the shaders: `clip = (world - centre) * scale`.
    pub fn clip_scale(&self, viewport: Viewport) -> [f32; 2] {
        [
            self.zoom * 2.0 / viewport.width.max(1.0),
            -self.zoom * 2.0 / viewport.height.max(1.0),
        ]
    }

    /// Whether a node at (`x`, `y`) with `radius` is hard to see: off screen (or within `margin`
    /// px of its border), smaller than `min_px` across, or not yet shown at this zoom (`reveal`).
    pub fn hides(&self, viewport: Viewport, x: f32, y: f32, radius: f32, reveal: f32) -> bool {
        let margin = 24.0;
        let (sx, sy) = self.to_screen(viewport, x, y);
        let off = sx < margin
            || sy < margin
            || sx > viewport.width - margin
            || sy > viewport.height - margin;
        off || radius * self.zoom * 2.0 < 6.0 || self.zoom < reveal
    }

    /// The view centred on (`x`, `y`) at least as close as `min_zoom`.
    pub fn focused(&self, x: f32, y: f32, min_zoom: f32) -> Camera {
        Camera {
            x,
            y,
            zoom: self.zoom.max(min_zoom).min(MAX_ZOOM),
        }
    }
}

/// A camera move over time: eased, the zoom interpolated on a log scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flight {
    pub from: Camera,
    pub to: Camera,
    pub start_ms: f64,
    pub duration_ms: f64,
}

impl Flight {
    /// The camera at time `now_ms`, and whether the flight is over.
    pub fn at(&self, now_ms: f64) -> (Camera, bool) {
        let t = ((now_ms - self.start_ms) / self.duration_ms.max(1.0)).clamp(0.0, 1.0) as f32;
        if t >= 1.0 {
            return (self.to, true);
        }
        let e = if t < 0.5 {
            4.0 * t * t * t
        } else {
            1.0 - (-2.0 * t + 2.0).powi(3) * 0.5
        };
        let (z0, z1) = (self.from.zoom.ln(), self.to.zoom.ln());
        (
            Camera {
                x: self.from.x + (self.to.x - self.from.x) * e,
                y: self.from.y + (self.to.y - self.from.y) * e,
                zoom: (z0 + (z1 - z0) * e).exp(),
            },
            false,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VIEW: Viewport = Viewport {
        width: 800.0,
        height: 600.0,
    };

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-3 * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn fit_shows_the_whole_bounds_centred() {
        let cam = Camera::fit([-100.0, -50.0, 300.0, 150.0], VIEW, Margins::even(20.0));
        assert!(close(cam.x, 100.0) && close(cam.y, 50.0));
        let (sx0, sy0) = cam.to_screen(VIEW, -100.0, -50.0);
        let (sx1, sy1) = cam.to_screen(VIEW, 300.0, 150.0);
        assert!(sx0 >= 19.9 && sy0 >= 19.9 && sx1 <= 780.1 && sy1 <= 580.1);
        // The limiting side touches the margin.
        assert!(close(sx0, 20.0) || close(sy0, 20.0));
    }

    #[test]
    fn fit_keeps_each_side_its_own_room() {
        let margins = Margins {
            left: 10.0,
            top: 30.0,
            right: 150.0,
            bottom: 50.0,
        };
        let cam = Camera::fit([0.0, 0.0, 100.0, 100.0], VIEW, margins);
        let (sx0, sy0) = cam.to_screen(VIEW, 0.0, 0.0);
        let (sx1, sy1) = cam.to_screen(VIEW, 100.0, 100.0);
        assert!(sx0 >= 9.9 && sy0 >= 29.9 && sx1 <= 650.1 && sy1 <= 550.1);
        // The limiting side (height: 520 px of room) is filled, the other centred in its room.
        assert!(close(sy0, 30.0) && close(sy1, 550.0));
        assert!(close((sx0 + sx1) * 0.5, (10.0 + 650.0) * 0.5));
    }

    #[test]
    fn fit_of_a_single_point_stays_finite() {
        let cam = Camera::fit([5.0, 5.0, 5.0, 5.0], VIEW, Margins::even(20.0));
        assert!(cam.zoom.is_finite() && cam.zoom <= MAX_ZOOM);
        assert_eq!((cam.x, cam.y), (5.0, 5.0));
    }

    #[test]
    fn screen_and_world_round_trip() {
        let cam = Camera {
            x: 12.0,
            y: -7.0,
            zoom: 3.5,
        };
        let (sx, sy) = cam.to_screen(VIEW, 40.0, 2.0);
        let (wx, wy) = cam.to_world(VIEW, sx, sy);
        assert!(close(wx, 40.0) && close(wy, 2.0));
        let [x0, y0, x1, y1] = cam.visible(VIEW);
        assert!(close(x1 - x0, 800.0 / 3.5) && close(y1 - y0, 600.0 / 3.5));
    }

    #[test]
    fn zoom_keeps_the_point_under_the_pointer() {
        let mut cam = Camera::default();
        let before = cam.to_world(VIEW, 100.0, 500.0);
        cam.zoom_at(VIEW, 100.0, 500.0, 2.0, 1.0);
        assert!(close(cam.zoom, 2.0));
        let after = cam.to_world(VIEW, 100.0, 500.0);
        assert!(close(before.0, after.0) && close(before.1, after.1));
    }

    #[test]
    fn zoom_is_clamped() {
        let mut cam = Camera::default();
        cam.zoom_at(VIEW, 0.0, 0.0, 1e-6, 1.0);
        assert!(close(cam.zoom, 0.5));
        cam.zoom_at(VIEW, 0.0, 0.0, 1e9, 1.0);
        assert!(close(cam.zoom, MAX_ZOOM));
    }

    #[test]
    fn pan_moves_the_picture_with_the_pointer() {
        let mut cam = Camera {
            x: 0.0,
            y: 0.0,
            zoom: 2.0,
        };
        let before = cam.to_screen(VIEW, 10.0, 10.0);
        cam.pan(30.0, -20.0);
        let after = cam.to_screen(VIEW, 10.0, 10.0);
        assert!(close(after.0 - before.0, 30.0) && close(after.1 - before.1, -20.0));
    }

    #[test]
    fn clip_scale_maps_the_viewport_to_unit_clip_space() {
        let cam = Camera {
            x: 1.0,
            y: 1.0,
            zoom: 4.0,
        };
        let [sx, sy] = cam.clip_scale(VIEW);
        let [x0, y0, x1, y1] = cam.visible(VIEW);
        assert!(close((x1 - cam.x) * sx, 1.0) && close((x0 - cam.x) * sx, -1.0));
        // Screen y grows downwards, clip y upwards.
        assert!(close((y1 - cam.y) * sy, -1.0) && close((y0 - cam.y) * sy, 1.0));
    }

    #[test]
    fn hides_off_screen_tiny_and_unrevealed_nodes() {
        let cam = Camera {
            x: 0.0,
            y: 0.0,
            zoom: 10.0,
        };
        assert!(!cam.hides(VIEW, 0.0, 0.0, 0.5, 1.0));
        assert!(cam.hides(VIEW, 1000.0, 0.0, 0.5, 1.0));
        assert!(cam.hides(VIEW, 0.0, 0.0, 0.1, 1.0));
        assert!(cam.hides(VIEW, 0.0, 0.0, 0.5, 20.0));
    }

    #[test]
    fn a_flight_starts_and_ends_where_it_should() {
        let from = Camera {
            x: 0.0,
            y: 0.0,
            zoom: 1.0,
        };
        let to = Camera {
            x: 100.0,
            y: 50.0,
            zoom: 16.0,
        };
        let flight = Flight {
            from,
            to,
            start_ms: 1000.0,
            duration_ms: 400.0,
        };
        assert_eq!(flight.at(1000.0), (from, false));
        let (mid, done) = flight.at(1200.0);
        assert!(!done && close(mid.x, 50.0) && close(mid.zoom, 4.0));
        assert_eq!(flight.at(1400.0), (to, true));
        assert_eq!(flight.at(9999.0), (to, true));
    }
}
