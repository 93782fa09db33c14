//! Circuit breaker per tool: after 5 consecutive failures a tool is paused for 30 s, then one
//! trial call is let through (half-open) and its success closes the circuit. Time is an argument.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nexus_shared::{ErrorCode, Outcome, ToolError, ToolName};

/// Consecutive failures that open a tool's circuit.
pub const FAILURE_THRESHOLD: u32 = 5;
/// How long an open circuit refuses calls before it lets one trial through.
pub const COOLDOWN: Duration = Duration::from_secs(30);

/// What one finished call tells the breaker about its tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The tool answered (a user error such as `INVALID_PARAMS` is an answer too).
    Healthy,
    /// The tool did not answer: `TIMEOUT`, `LINK_LOST`, `INTERNAL`.
    Failed,
    /// The call says nothing about the tool (no tab, cancelled, rate limited, too large).
    Neutral,
}

impl Verdict {
    pub fn of(outcome: &Outcome) -> Verdict {
        match outcome {
            Outcome::Ok(_) => Verdict::Healthy,
            Outcome::Err(err) => match err.code {
                ErrorCode::Timeout | ErrorCode::LinkLost | ErrorCode::Internal => Verdict::Failed,
                ErrorCode::NoBrowser
                | ErrorCode::Cancelled
                | ErrorCode::RateLimited
                | ErrorCode::CircuitOpen
                | ErrorCode::TooLarge => Verdict::Neutral,
                _ => Verdict::Healthy,
            },
        }
    }
}

/// A circuit as health reports show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CircuitState {
    Closed,
    Open,
    HalfOpen,
}

impl CircuitState {
    pub fn as_str(self) -> &'static str {
        match self {
            CircuitState::Closed => "closed",
            CircuitState::Open => "open",
            CircuitState::HalfOpen => "half_open",
        }
    }
}

#[derive(Debug, Default)]
struct Circuit {
    failures: u32,
    /// When the last counted failure was recorded. A failure counts only if its call started
    /// after that, so one event failing many calls in flight together counts once.
    last_failure: Option<Instant>,
    opened_at: Option<Instant>,
    trial_in_flight: bool,
}

/// The breakers of all tools of this process.
pub struct Breakers {
    threshold: u32,
    cooldown: Duration,
    circuits: Mutex<HashMap<ToolName, Circuit>>,
}

impl Default for Breakers {
    fn default() -> Self {
        Self::new(FAILURE_THRESHOLD, COOLDOWN)
    }
}

impl Breakers {
    pub fn new(threshold: u32, cooldown: Duration) -> Self {
        Self {
            threshold: threshold.max(1),
            cooldown,
            circuits: Mutex::new(HashMap::new()),
        }
    }

    fn circuits(&self) -> MutexGuard<'_, HashMap<ToolName, Circuit>> {
        self.circuits
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Lets a call through, or refuses it with `CIRCUIT_OPEN`. The admission must be finished
    /// with the call's verdict; dropped unfinished, it counts as neutral.
    pub fn admit(&self, tool: ToolName, now: Instant) -> Result<Admission<'_>, ToolError> {
        let mut circuits = self.circuits();
        let circuit = circuits.entry(tool).or_default();
        let mut trial = false;
        if let Some(opened_at) = circuit.opened_at {
            let reopens = opened_at + self.cooldown;
            if now < reopens || circuit.trial_in_flight {
                let wait = reopens.saturating_duration_since(now).as_secs().max(1);
                return Err(ToolError::new(
                    ErrorCode::CircuitOpen,
                    format!(
                        "`{}` failed {} times in a row (timeouts or lost links), so Nexus pauses it",
                        tool.as_str(),
                        self.threshold
                    ),
                )
                .with_hint(format!(
                    "retry in about {wait} s; meanwhile check that the Nexus tab is open and responsive, or use another tool"
                )));
            }
            circuit.trial_in_flight = true;
            trial = true;
        }
        Ok(Admission {
            breakers: self,
            tool,
            started: now,
            trial,
            finished: false,
        })
    }

    fn finish(
        &self,
        tool: ToolName,
        started: Instant,
        trial: bool,
        verdict: Verdict,
        now: Instant,
    ) {
        let mut circuits = self.circuits();
        let circuit = circuits.entry(tool).or_default();
        if trial {
            circuit.trial_in_flight = false;
        }
        match verdict {
            Verdict::Healthy => *circuit = Circuit::default(),
            Verdict::Neutral => {}
            Verdict::Failed if trial => {
                circuit.opened_at = Some(now);
                circuit.last_failure = Some(now);
            }
            Verdict::Failed => {
                if circuit.last_failure.is_none_or(|last| started >= last) {
                    circuit.failures += 1;
                    circuit.last_failure = Some(now);
                    if circuit.failures >= self.threshold && circuit.opened_at.is_none() {
                        circuit.opened_at = Some(now);
                    }
                }
            }
        }
    }

    /// The state of every tool's circuit, in catalog order.
    pub fn states(&self, now: Instant) -> Vec<(ToolName, CircuitState)> {
        let circuits = self.circuits();
        ToolName::ALL
            .iter()
            .map(|&tool| {
                let state = match circuits.get(&tool).and_then(|c| c.opened_at) {
                    None => CircuitState::Closed,
                    Some(at) if now < at + self.cooldown => CircuitState::Open,
                    Some(_) => CircuitState::HalfOpen,
                };
                (tool, state)
            })
            .collect()
    }
}

/// One admitted call; tell the breaker how it ended.
pub struct Admission<'a> {
    breakers: &'a Breakers,
    tool: ToolName,
    started: Instant,
    trial: bool,
    finished: bool,
}

impl Admission<'_> {
    pub fn finish(mut self, verdict: Verdict, now: Instant) {
        self.finished = true;
        self.breakers
            .finish(self.tool, self.started, self.trial, verdict, now);
    }
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.breakers.finish(
                self.tool,
                self.started,
                self.trial,
                Verdict::Neutral,
                self.started,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nexus_shared::ToolOutput;

    const T: ToolName = ToolName::Impact;

    fn fail(b: &Breakers, at: Instant) {
        b.admit(T, at).unwrap().finish(Verdict::Failed, at);
    }

    fn state(b: &Breakers, now: Instant) -> CircuitState {
        b.states(now).into_iter().find(|(t, _)| *t == T).unwrap().1
    }

    #[test]
    fn opens_after_five_consecutive_failures_and_names_the_tool() {
        let b = Breakers::default();
        let t0 = Instant::now();
        for i in 0..4 {
            fail(&b, t0 + Duration::from_millis(i));
        }
        assert_eq!(state(&b, t0), CircuitState::Closed);
        fail(&b, t0 + Duration::from_millis(10));
        assert_eq!(
            state(&b, t0 + Duration::from_millis(11)),
            CircuitState::Open
        );
        let Err(err) = b.admit(T, t0 + Duration::from_secs(1)) else {
            panic!("expected the circuit to be open")
        };
        assert_eq!(err.code, ErrorCode::CircuitOpen);
        assert!(err.retryable);
        assert!(err.message.contains("`impact`"), "{}", err.message);
        assert!(err.hint.unwrap().contains("29 s"));
        // Other tools are not affected.
        assert!(
            b.admit(ToolName::Context, t0 + Duration::from_secs(1))
                .is_ok()
        );
    }

    #[test]
    fn a_success_resets_the_count() {
        let b = Breakers::default();
        let t0 = Instant::now();
        for i in 0..4 {
            fail(&b, t0 + Duration::from_millis(i));
        }
        b.admit(T, t0 + Duration::from_millis(5))
            .unwrap()
            .finish(Verdict::Healthy, t0 + Duration::from_millis(6));
        for i in 0..4 {
            fail(&b, t0 + Duration::from_millis(10 + i));
        }
        assert_eq!(
            state(&b, t0 + Duration::from_millis(20)),
            CircuitState::Closed
        );
    }

    #[test]
    fn half_open_after_the_cooldown_lets_one_trial_through() {
        let b = Breakers::default();
        let t0 = Instant::now();
        for i in 0..5 {
            fail(&b, t0 + Duration::from_millis(i));
        }
        let later = t0 + COOLDOWN + Duration::from_millis(10);
        assert_eq!(state(&b, later), CircuitState::HalfOpen);
        let trial = b.admit(T, later).expect("one trial passes");
        assert!(b.admit(T, later).is_err(), "only one trial at a time");
        // The trial fails: open again for a full cooldown.
        trial.finish(Verdict::Failed, later);
        assert!(
            b.admit(T, later + COOLDOWN - Duration::from_millis(1))
                .is_err()
        );
        // The next trial succeeds: closed, everything passes.
        let again = later + COOLDOWN;
        b.admit(T, again).unwrap().finish(Verdict::Healthy, again);
        assert_eq!(state(&b, again), CircuitState::Closed);
        assert!(b.admit(T, again).is_ok());
        assert!(b.admit(T, again).is_ok());
    }

    #[test]
    fn a_dropped_trial_frees_the_slot() {
        let b = Breakers::default();
        let t0 = Instant::now();
        for i in 0..5 {
            fail(&b, t0 + Duration::from_millis(i));
        }
        let later = t0 + COOLDOWN + Duration::from_secs(1);
        drop(b.admit(T, later).unwrap());
        assert!(b.admit(T, later).is_ok());
    }

    #[test]
    fn user_errors_do_not_open_the_circuit() {
        let b = Breakers::default();
        let t0 = Instant::now();
        for (i, code) in [
            ErrorCode::InvalidParams,
            ErrorCode::NotFound,
            ErrorCode::NotImplemented,
            ErrorCode::NoBrowser,
            ErrorCode::Cancelled,
            ErrorCode::InvalidQuery,
        ]
        .into_iter()
        .cycle()
        .take(30)
        .enumerate()
        {
            let at = t0 + Duration::from_millis(i as u64);
            let verdict = Verdict::of(&Outcome::Err(ToolError::new(code, "x")));
            assert_ne!(verdict, Verdict::Failed, "{code:?}");
            b.admit(T, at).unwrap().finish(verdict, at);
        }
        assert_eq!(state(&b, t0 + Duration::from_secs(1)), CircuitState::Closed);
    }

    #[test]
    fn verdicts_of_outcomes() {
        let ok = Outcome::Ok(ToolOutput { text: "x".into() });
        assert_eq!(Verdict::of(&ok), Verdict::Healthy);
        for code in [ErrorCode::Timeout, ErrorCode::LinkLost, ErrorCode::Internal] {
            assert_eq!(
                Verdict::of(&Outcome::Err(ToolError::new(code, "x"))),
                Verdict::Failed
            );
        }
    }

    #[test]
    fn calls_failing_together_count_once() {
        let b = Breakers::default();
        let t0 = Instant::now();
        // Ten calls in flight at once all lose the link at the same moment.
        let admissions: Vec<_> = (0..10).map(|_| b.admit(T, t0).unwrap()).collect();
        let lost = t0 + Duration::from_millis(50);
        for admission in admissions {
            admission.finish(Verdict::Failed, lost);
        }
        assert_eq!(state(&b, lost), CircuitState::Closed);
        // Four more failures, each started after the previous one: now five in a row.
        for i in 1..=4 {
            fail(&b, lost + Duration::from_millis(i));
        }
        assert_eq!(
            state(&b, lost + Duration::from_millis(5)),
            CircuitState::Open
        );
    }
}
