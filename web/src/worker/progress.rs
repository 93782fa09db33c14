//! Which progress updates reach the page: every update redraws it, so within a phase they go at
//! most every `EVERY_MS`; a new phase, its start and its end always go.

/// Least time between two updates of one phase. On the kernel a transfer posted one update per
/// parsed chunk, ~2,000, and with software GL each redraw cost the GPU process ~60 ms at load:
/// about a quarter of a core taken from parsing.
pub const EVERY_MS: f64 = 250.0;

/// The last update sent: its phase and when.
#[derive(Default)]
pub struct Throttle {
    last: Option<(String, f64)>,
}

impl Throttle {
    /// Whether an update of `phase` at `done` of `total`, at `now_ms`, goes to the page (and is
    /// then the last one sent).
    pub fn due(&mut self, phase: &str, done: u64, total: u64, now_ms: f64) -> bool {
        let due = match &self.last {
            Some((last, at)) if last == phase => {
                done == 0 || done >= total || now_ms - at >= EVERY_MS
            }
            _ => true,
        };
        if due {
            self.last = Some((phase.to_owned(), now_ms));
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_within_a_phase_are_spaced_but_phases_starts_and_ends_always_go() {
        let mut throttle = Throttle::default();
        assert!(throttle.due("parse", 0, 100, 0.0));
        assert!(!throttle.due("parse", 10, 100, 100.0));
        assert!(!throttle.due("parse", 20, 100, 249.0));
        assert!(throttle.due("parse", 30, 100, 250.0));
        assert!(!throttle.due("parse", 40, 100, 300.0));
        // The end of a phase goes however soon; so does the next phase.
        assert!(throttle.due("parse", 100, 100, 301.0));
        assert!(throttle.due("resolve", 0, 0, 302.0));
        assert!(throttle.due("embed", 5, 100, 303.0));
        assert!(!throttle.due("embed", 6, 100, 304.0));
        // A phase that comes back after another starts over.
        assert!(throttle.due("parse", 50, 100, 305.0));
    }
}
