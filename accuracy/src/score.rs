//! Scoring: recall over the reference edges and precision over the *decided* Nexus edges, per
//! confidence band. An edge A→B is decided when the reference has an edge from A to some callee
//! named like B; it is then right if the reference has A→B itself, and wrong otherwise.

use std::collections::{HashMap, HashSet};

use crate::nexus::NexusEdge;
use crate::reference::{Reference, Site};

/// What became of the Nexus edges at or above one confidence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Band {
    pub edges: usize,
    pub right: usize,
    pub wrong: usize,
    pub undecided: usize,
    /// Reference edges found among these edges.
    pub found: usize,
}

impl Band {
    pub fn precision(&self) -> f64 {
        ratio(self.right, self.right + self.wrong)
    }
}

pub fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Whether one Nexus edge is right, wrong or undecided against the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Right,
    Wrong,
    Undecided,
}

/// Judges edges against the reference, knowing which callee names each caller calls.
pub struct Judge<'a> {
    reference: &'a Reference,
    names_called: HashMap<&'a Site, HashSet<&'a str>>,
}

impl<'a> Judge<'a> {
    pub fn new(reference: &'a Reference) -> Self {
        let mut names_called: HashMap<&Site, HashSet<&str>> = HashMap::new();
        for (caller, callee) in reference.edges.keys() {
            if let Some(callable) = reference.callables.get(callee) {
                names_called
                    .entry(caller)
                    .or_default()
                    .insert(callable.name.as_str());
            }
        }
        Self {
            reference,
            names_called,
        }
    }

    pub fn verdict(&self, edge: &NexusEdge) -> Verdict {
        let key = (edge.caller.clone(), edge.callee.clone());
        if self.reference.edges.contains_key(&key) {
            Verdict::Right
        } else if self
            .names_called
            .get(&edge.caller)
            .is_some_and(|names| names.contains(edge.callee_name.as_str()))
        {
            Verdict::Wrong
        } else {
            Verdict::Undecided
        }
    }
}

/// Scores the edges whose caller lies in the reference's documents, for each minimum confidence.
pub fn bands(reference: &Reference, edges: &[NexusEdge], thresholds: &[f32]) -> Vec<(f32, Band)> {
    let judge = Judge::new(reference);
    thresholds
        .iter()
        .map(|&min| {
            let mut band = Band::default();
            for edge in edges
                .iter()
                .filter(|e| e.confidence >= min && reference.paths.contains(&e.caller.path))
            {
                band.edges += 1;
                match judge.verdict(edge) {
                    Verdict::Right => {
                        band.right += 1;
                        band.found += 1;
                    }
                    Verdict::Wrong => band.wrong += 1,
                    Verdict::Undecided => band.undecided += 1,
                }
            }
            (min, band)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{CallPlace, Callable};

    fn site(line: u32) -> Site {
        Site::new("m.py", line)
    }

    fn edge(from: u32, to: u32, name: &str, confidence: f32) -> NexusEdge {
        NexusEdge {
            caller: site(from),
            callee: site(to),
            callee_name: name.into(),
            confidence,
            reason: "test",
        }
    }

    #[test]
    fn right_wrong_and_undecided_per_band() {
        let mut reference = Reference::default();
        reference.paths.insert("m.py".into());
        for (line, name) in [(1, "a"), (10, "save"), (20, "save"), (30, "other")] {
            reference.callables.insert(
                site(line),
                Callable {
                    name: name.into(),
                    owner: None,
                    qualified: name.into(),
                },
            );
        }
        let place = CallPlace {
            path: "m.py".into(),
            line: 2,
            column: 4,
        };
        reference.edges.insert((site(1), site(10)), place.clone());
        reference.edges.insert((site(1), site(30)), place);
        let edges = vec![
            // Right: the reference has 1 → 10.
            edge(1, 10, "save", 0.9),
            // Wrong: 1 calls a `save`, but the one at 10, not 20.
            edge(1, 20, "save", 0.3),
            // Undecided: the reference says nothing about 1 calling anything named `helper`.
            edge(1, 40, "helper", 0.5),
            // Outside the reference's documents: not counted.
            NexusEdge {
                caller: Site::new("other.py", 1),
                ..edge(1, 10, "save", 0.9)
            },
        ];
        let scored = bands(&reference, &edges, &[0.8, 0.0]);
        assert_eq!(
            scored[0].1,
            Band {
                edges: 1,
                right: 1,
                wrong: 0,
                undecided: 0,
                found: 1
            }
        );
        assert_eq!(
            scored[1].1,
            Band {
                edges: 3,
                right: 1,
                wrong: 1,
                undecided: 1,
                found: 1
            }
        );
        assert_eq!(scored[1].1.precision(), 0.5);
    }
}
