//! One hosted tool's circuit and metrics: opens after N failures within a window, half-opens
//! after the cool-down, a success decrements the failures; EMA latency (α = 0.2). Time is passed in.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::config::CircuitPolicy;

/// Weight of the newest call in the latency average.
pub const EMA_ALPHA: f64 = 0.2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Closed,
    Open,
    HalfOpen,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Closed => "closed",
            State::Open => "open",
            State::HalfOpen => "half_open",
        }
    }
}

/// Why a call was refused: the failures that opened the circuit and when it lets a trial through.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub failures: u32,
    pub retry_in: Duration,
}

/// Reliability and performance of one tool.
#[derive(Debug, Default)]
pub struct ToolStats {
    /// Times of the failures still within the window, oldest first.
    recent_failures: VecDeque<Instant>,
    opened_at: Option<Instant>,
    trial_in_flight: bool,
    pub successes: u64,
    pub failures: u64,
    pub calls: u64,
    /// Unix ms and message of the last failure.
    pub last_failure: Option<(u64, String)>,
    /// Unix ms of the last call.
    pub last_used: Option<u64>,
    pub ema_ms: Option<f64>,
}

impl ToolStats {
    pub fn state(&self, policy: &CircuitPolicy, now: Instant) -> State {
        match self.opened_at {
            None => State::Closed,
            Some(at) if now >= at + policy.cooldown && !self.trial_in_flight => State::HalfOpen,
            Some(_) if self.trial_in_flight => State::HalfOpen,
            Some(_) => State::Open,
        }
    }

    /// Lets a call through (`Ok(true)` when it is the half-open trial) or refuses it.
    pub fn admit(&mut self, policy: &CircuitPolicy, now: Instant) -> Result<bool, Refusal> {
        let Some(opened_at) = self.opened_at else {
            return Ok(false);
        };
        let reopens = opened_at + policy.cooldown;
        if now < reopens || self.trial_in_flight {
            return Err(Refusal {
                failures: self.recent_failures.len() as u32,
                retry_in: reopens.saturating_duration_since(now),
            });
        }
        self.trial_in_flight = true;
        Ok(true)
    }

    /// A call that was admitted ended without a verdict (cancelled by its caller).
    pub fn abandon(&mut self, trial: bool) {
        if trial {
            self.trial_in_flight = false;
        }
    }

    pub fn success(&mut self, trial: bool, elapsed: Duration, now_unix_ms: u64) {
        self.note_call(elapsed, now_unix_ms);
        self.successes += 1;
        self.recent_failures.pop_front();
        if trial {
            self.trial_in_flight = false;
            self.opened_at = None;
        }
    }

    pub fn failure(
        &mut self,
        policy: &CircuitPolicy,
        trial: bool,
        elapsed: Duration,
        now: Instant,
        now_unix_ms: u64,
        message: &str,
    ) {
        self.note_call(elapsed, now_unix_ms);
        self.failures += 1;
        self.last_failure = Some((now_unix_ms, message.to_owned()));
        while let Some(first) = self.recent_failures.front() {
            if now.saturating_duration_since(*first) > policy.window {
                self.recent_failures.pop_front();
            } else {
                break;
            }
        }
        self.recent_failures.push_back(now);
        if trial {
            self.trial_in_flight = false;
            self.opened_at = Some(now);
        } else if self.opened_at.is_none() && self.recent_failures.len() as u32 >= policy.failures {
            self.opened_at = Some(now);
        }
    }

    fn note_call(&mut self, elapsed: Duration, now_unix_ms: u64) {
        let ms = elapsed.as_secs_f64() * 1000.0;
        self.calls += 1;
        self.last_used = Some(now_unix_ms);
        self.ema_ms = Some(match self.ema_ms {
            None => ms,
            Some(avg) => EMA_ALPHA * ms + (1.0 - EMA_ALPHA) * avg,
        });
    }

    pub fn json(&self, policy: &CircuitPolicy, now: Instant) -> Value {
        json!({
            "reliability": {
                "successes": self.successes,
                "failures": self.failures,
                "recent_failures": self.recent_failures.len(),
                "last_failure_ms": self.last_failure.as_ref().map(|(at, _)| *at),
                "last_error": self.last_failure.as_ref().map(|(_, message)| message),
                "circuit": self.state(policy, now).as_str(),
            },
            "performance": {
                "calls": self.calls,
                "avg_ms": self.ema_ms.map(|ms| (ms * 10.0).round() / 10.0),
                "last_used_ms": self.last_used,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn policy() -> CircuitPolicy {
        CircuitPolicy {
            failures: 5,
            window: Duration::from_secs(10),
            cooldown: Duration::from_secs(2),
        }
    }

    fn fail(stats: &mut ToolStats, trial: bool, now: Instant) {
        stats.failure(&policy(), trial, MS, now, 0, "boom");
    }

    #[test]
    fn opens_after_five_failures_within_the_window_then_half_opens_and_closes() {
        let t0 = Instant::now();
        let mut stats = ToolStats::default();
        for i in 0..4 {
            assert_eq!(stats.admit(&policy(), t0), Ok(false));
            fail(&mut stats, false, t0 + MS * i);
        }
        assert_eq!(stats.state(&policy(), t0), State::Closed);
        fail(&mut stats, false, t0 + MS * 10);
        assert_eq!(stats.state(&policy(), t0 + MS * 11), State::Open);
        let refused = stats.admit(&policy(), t0 + Duration::from_secs(1));
        assert!(matches!(refused, Err(Refusal { failures: 5, .. })));
        // After the cool-down one trial goes through; a second caller is refused meanwhile.
        let later = t0 + Duration::from_secs(3);
        assert_eq!(stats.state(&policy(), later), State::HalfOpen);
        assert_eq!(stats.admit(&policy(), later), Ok(true));
        assert!(stats.admit(&policy(), later).is_err());
        stats.success(true, MS, 1);
        assert_eq!(stats.state(&policy(), later), State::Closed);
        // A success decrements: four failures remain, so one more failure reopens it.
        fail(&mut stats, false, later);
        assert_eq!(stats.state(&policy(), later), State::Open);
    }

    #[test]
    fn a_failed_trial_reopens_for_another_cooldown() {
        let t0 = Instant::now();
        let mut stats = ToolStats::default();
        for _ in 0..5 {
            fail(&mut stats, false, t0);
        }
        let trial_at = t0 + Duration::from_secs(2);
        assert_eq!(stats.admit(&policy(), trial_at), Ok(true));
        fail(&mut stats, true, trial_at);
        assert!(
            stats
                .admit(&policy(), trial_at + Duration::from_secs(1))
                .is_err()
        );
        assert_eq!(
            stats.admit(&policy(), trial_at + Duration::from_secs(2)),
            Ok(true)
        );
        stats.abandon(true);
        assert_eq!(
            stats.admit(&policy(), trial_at + Duration::from_secs(2)),
            Ok(true)
        );
    }

    #[test]
    fn failures_outside_the_window_do_not_count() {
        let t0 = Instant::now();
        let mut stats = ToolStats::default();
        for i in 0..10 {
            fail(&mut stats, false, t0 + Duration::from_secs(11) * i);
        }
        assert_eq!(stats.state(&policy(), t0), State::Closed);
        assert_eq!(stats.failures, 10);
    }

    #[test]
    fn latency_is_an_exponential_moving_average() {
        let mut stats = ToolStats::default();
        stats.success(false, Duration::from_millis(100), 1);
        assert_eq!(stats.ema_ms, Some(100.0));
        stats.success(false, Duration::from_millis(200), 2);
        let avg = stats.ema_ms.unwrap_or_default();
        assert!((avg - 120.0).abs() < 1e-9, "{avg}");
        assert_eq!(
            (stats.calls, stats.successes, stats.last_used),
            (2, 2, Some(2))
        );
    }
}
