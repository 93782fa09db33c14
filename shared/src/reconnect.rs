//! The reconnect machine: exponential backoff with jitter, bounded attempts, user stop and re-arm.
//! Pure: the caller passes the time and a random unit; the browser and the bridge drive it with real timers.

/// Backoff parameters. The defaults are the product's: 500 ms doubling to a 30 s cap, 20 attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconnectPolicy {
    pub base_ms: u64,
    pub cap_ms: u64,
    pub max_attempts: u32,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        Self {
            base_ms: 500,
            cap_ms: 30_000,
            max_attempts: 20,
        }
    }
}

impl ReconnectPolicy {
    /// The un-jittered step before attempt `attempt` (1-based): base · 2^(attempt−1), capped.
    pub fn step_ms(&self, attempt: u32) -> u64 {
        let doublings = attempt.saturating_sub(1).min(32);
        self.base_ms
            .saturating_mul(1u64 << doublings)
            .min(self.cap_ms)
    }

    /// The delay before attempt `attempt`: within [50 %, 100 %] of the step, placed by `unit` ∈ [0, 1].
    pub fn delay_ms(&self, attempt: u32, unit: f64) -> u64 {
        let step = self.step_ms(attempt);
        let unit = if unit.is_finite() {
            unit.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let half = step / 2;
        half + ((step - half) as f64 * unit).round() as u64
    }
}

/// Why the link is not trying to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OfflineReason {
    /// The user pressed Disconnect.
    UserStopped,
    /// Every attempt failed.
    GaveUp,
    /// The server refused this client; retrying would not help.
    Rejected(String),
}

/// Where the link stands. `attempt` counts reconnect attempts since the last success (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkState {
    Idle,
    Connecting { attempt: u32 },
    Connected,
    Waiting { attempt: u32, retry_at_ms: u64 },
    Offline(OfflineReason),
}

/// What the driver must do after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Open a new socket now.
    Connect,
    /// Arm a timer for `at_ms` and call `timer_fired` then.
    WaitUntil { at_ms: u64 },
    /// Close the current socket, if any.
    Close,
    /// Nothing to do.
    None,
}

/// The state machine. Feed it socket and user events; it answers with a `Command`.
#[derive(Debug, Clone)]
pub struct Reconnect {
    policy: ReconnectPolicy,
    state: LinkState,
}

impl Reconnect {
    pub fn new(policy: ReconnectPolicy) -> Self {
        Self {
            policy,
            state: LinkState::Idle,
        }
    }

    pub fn state(&self) -> &LinkState {
        &self.state
    }

    pub fn policy(&self) -> ReconnectPolicy {
        self.policy
    }

    /// First start, or the user's "Reconnect": re-arms the attempt budget and connects at once.
    pub fn connect(&mut self) -> Command {
        match self.state {
            LinkState::Connected | LinkState::Connecting { .. } => Command::None,
            _ => {
                self.state = LinkState::Connecting { attempt: 0 };
                Command::Connect
            }
        }
    }

    /// The socket opened (and the hub welcomed us): the attempt count resets.
    pub fn opened(&mut self) -> Command {
        match self.state {
            LinkState::Connecting { .. } => {
                self.state = LinkState::Connected;
                Command::None
            }
            _ => Command::Close,
        }
    }

    /// The socket closed or failed to open. Schedules the next attempt or gives up.
    pub fn closed(&mut self, now_ms: u64, unit: f64) -> Command {
        let previous = match self.state {
            LinkState::Connected => 0,
            LinkState::Connecting { attempt } => attempt,
            _ => return Command::None,
        };
        let attempt = previous + 1;
        if attempt > self.policy.max_attempts {
            self.state = LinkState::Offline(OfflineReason::GaveUp);
            return Command::None;
        }
        let at_ms = now_ms.saturating_add(self.policy.delay_ms(attempt, unit));
        self.state = LinkState::Waiting {
            attempt,
            retry_at_ms: at_ms,
        };
        Command::WaitUntil { at_ms }
    }

    /// A timer fired. Timers armed for an earlier state are ignored.
    pub fn timer_fired(&mut self, now_ms: u64) -> Command {
        match self.state {
            LinkState::Waiting {
                attempt,
                retry_at_ms,
            } if now_ms >= retry_at_ms => {
                self.state = LinkState::Connecting { attempt };
                Command::Connect
            }
            _ => Command::None,
        }
    }

    /// The network came back or the page became visible: skip the rest of the wait.
    pub fn retry_now(&mut self) -> Command {
        match self.state {
            LinkState::Waiting { attempt, .. } => {
                self.state = LinkState::Connecting { attempt };
                Command::Connect
            }
            _ => Command::None,
        }
    }

    /// The user's "Disconnect": stop, and do not retry until `connect`.
    pub fn disconnect(&mut self) -> Command {
        self.state = LinkState::Offline(OfflineReason::UserStopped);
        Command::Close
    }

    /// The server refused us for good (wrong protocol, replaced by another tab, …).
    pub fn rejected(&mut self, reason: impl Into<String>) -> Command {
        self.state = LinkState::Offline(OfflineReason::Rejected(reason.into()));
        Command::Close
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn machine() -> Reconnect {
        Reconnect::new(ReconnectPolicy::default())
    }

    #[test]
    fn steps_double_from_500ms_to_the_30s_cap() {
        let p = ReconnectPolicy::default();
        let steps: Vec<u64> = (1..=8).map(|k| p.step_ms(k)).collect();
        assert_eq!(steps, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
        assert_eq!(p.step_ms(20), 30_000);
        assert_eq!(p.step_ms(u32::MAX), 30_000);
    }

    #[test]
    fn jitter_spans_half_to_full_step() {
        let p = ReconnectPolicy::default();
        assert_eq!(p.delay_ms(1, 0.0), 250);
        assert_eq!(p.delay_ms(1, 1.0), 500);
        assert_eq!(p.delay_ms(3, 0.5), 1500);
        assert_eq!(p.delay_ms(10, 0.0), 15_000);
        assert_eq!(p.delay_ms(10, f64::NAN), 15_000);
        assert_eq!(p.delay_ms(10, 7.0), 30_000);
    }

    #[test]
    fn exact_schedule_with_a_fake_clock() {
        let mut m = machine();
        assert_eq!(m.connect(), Command::Connect);
        assert_eq!(m.opened(), Command::None);
        let mut now = 1_000;
        let mut waits = Vec::new();
        // The link drops, then every attempt fails: record each wait with a fixed random unit.
        let mut cmd = m.closed(now, 0.0);
        while let Command::WaitUntil { at_ms } = cmd {
            waits.push(at_ms - now);
            now = at_ms;
            assert_eq!(m.timer_fired(now), Command::Connect);
            cmd = m.closed(now, 0.0);
        }
        assert_eq!(waits.len(), 20);
        assert_eq!(&waits[..7], &[250, 500, 1000, 2000, 4000, 8000, 15000]);
        assert!(waits[7..].iter().all(|&w| w == 15_000));
        assert_eq!(m.state(), &LinkState::Offline(OfflineReason::GaveUp));
        assert_eq!(cmd, Command::None);
    }

    #[test]
    fn stops_after_twenty_attempts_and_reconnect_rearms() {
        let mut m = machine();
        m.connect();
        let mut now = 0;
        for attempt in 1..=20 {
            match m.closed(now, 1.0) {
                Command::WaitUntil { at_ms } => {
                    assert_eq!(
                        m.state(),
                        &LinkState::Waiting {
                            attempt,
                            retry_at_ms: at_ms
                        }
                    );
                    now = at_ms;
                }
                other => panic!("attempt {attempt}: {other:?}"),
            }
            assert_eq!(m.timer_fired(now), Command::Connect);
            assert_eq!(m.state(), &LinkState::Connecting { attempt });
        }
        assert_eq!(m.closed(now, 1.0), Command::None);
        assert_eq!(m.state(), &LinkState::Offline(OfflineReason::GaveUp));
        assert_eq!(m.timer_fired(now + 60_000), Command::None);
        assert_eq!(m.connect(), Command::Connect);
        assert_eq!(m.state(), &LinkState::Connecting { attempt: 0 });
        assert_eq!(m.closed(now, 1.0), Command::WaitUntil { at_ms: now + 500 });
    }

    #[test]
    fn success_resets_the_attempt_count() {
        let mut m = machine();
        m.connect();
        let mut now = 0;
        for _ in 0..5 {
            if let Command::WaitUntil { at_ms } = m.closed(now, 1.0) {
                now = at_ms;
            }
            m.timer_fired(now);
        }
        assert_eq!(m.state(), &LinkState::Connecting { attempt: 5 });
        m.opened();
        assert_eq!(m.state(), &LinkState::Connected);
        assert_eq!(m.closed(now, 1.0), Command::WaitUntil { at_ms: now + 500 });
        assert_eq!(
            m.state(),
            &LinkState::Waiting {
                attempt: 1,
                retry_at_ms: now + 500
            }
        );
    }

    #[test]
    fn disconnect_stops_retrying() {
        let mut m = machine();
        m.connect();
        m.opened();
        let Command::WaitUntil { at_ms } = m.closed(0, 0.5) else {
            panic!("expected a wait");
        };
        assert_eq!(m.disconnect(), Command::Close);
        assert_eq!(m.timer_fired(at_ms), Command::None);
        assert_eq!(m.closed(at_ms, 0.5), Command::None);
        assert_eq!(m.retry_now(), Command::None);
        assert_eq!(m.state(), &LinkState::Offline(OfflineReason::UserStopped));
        assert_eq!(m.connect(), Command::Connect);
    }

    #[test]
    fn stale_timer_and_early_fire_are_ignored() {
        let mut m = machine();
        m.connect();
        let Command::WaitUntil { at_ms } = m.closed(100, 1.0) else {
            panic!("expected a wait");
        };
        assert_eq!(m.timer_fired(at_ms - 1), Command::None);
        assert_eq!(m.timer_fired(at_ms), Command::Connect);
        assert_eq!(m.timer_fired(at_ms + 10), Command::None);
    }

    #[test]
    fn retry_now_skips_the_wait_but_keeps_the_count() {
        let mut m = machine();
        m.connect();
        m.closed(0, 1.0);
        assert_eq!(m.retry_now(), Command::Connect);
        assert_eq!(m.state(), &LinkState::Connecting { attempt: 1 });
    }

    #[test]
    fn rejection_is_final_until_the_user_reconnects() {
        let mut m = machine();
        m.connect();
        m.opened();
        assert_eq!(m.rejected("replaced"), Command::Close);
        assert_eq!(m.closed(0, 0.0), Command::None);
        assert_eq!(
            m.state(),
            &LinkState::Offline(OfflineReason::Rejected("replaced".into()))
        );
    }

    proptest! {
        #[test]
        fn every_wait_is_within_half_to_full_step(units in prop::collection::vec(0.0f64..=1.0, 20)) {
            let mut m = machine();
            let policy = m.policy();
            m.connect();
            let mut now = 0u64;
            for (i, unit) in units.iter().enumerate() {
                let attempt = i as u32 + 1;
                let Command::WaitUntil { at_ms } = m.closed(now, *unit) else {
                    return Err(TestCaseError::fail("expected a wait"));
                };
                let wait = at_ms - now;
                let step = policy.step_ms(attempt);
                prop_assert!(wait >= step / 2 && wait <= step, "attempt {attempt}: {wait} vs {step}");
                now = at_ms;
                prop_assert_eq!(m.timer_fired(now), Command::Connect);
            }
            prop_assert_eq!(m.closed(now, 0.5), Command::None);
        }
    }
}
