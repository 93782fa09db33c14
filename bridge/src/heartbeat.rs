//! Liveness of one socket: a `Ping` every interval, and the socket is dead when no `Pong` has
//! answered a ping sent in the last two intervals. Time is an argument, so tests need no clock.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// What to do at a heartbeat tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beat {
    Ping(u64),
    Dead,
}

pub struct Heartbeat {
    interval: Duration,
    /// Send time of the newest ping that was answered (or the start).
    answered: Instant,
    outstanding: VecDeque<(u64, Instant)>,
    nonce: u64,
}

impl Heartbeat {
    pub fn new(interval: Duration, now: Instant) -> Self {
        Self {
            interval,
            answered: now,
            outstanding: VecDeque::new(),
            nonce: 0,
        }
    }

    /// A tick: the socket is dead when nothing it sent proves it read a ping from the last two
    /// intervals; a socket that keeps writing but stops reading is dead too.
    pub fn tick(&mut self, now: Instant) -> Beat {
        if now.saturating_duration_since(self.answered) >= self.interval * 2 {
            return Beat::Dead;
        }
        self.nonce += 1;
        self.outstanding.push_back((self.nonce, now));
        while self.outstanding.len() > 8 {
            self.outstanding.pop_front();
        }
        Beat::Ping(self.nonce)
    }

    /// A `Pong` arrived. Nonces this side never sent are ignored.
    pub fn pong(&mut self, nonce: u64) {
        if let Some(&(_, sent)) = self.outstanding.iter().find(|(n, _)| *n == nonce) {
            self.answered = self.answered.max(sent);
            self.outstanding.retain(|(n, _)| *n > nonce);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I: Duration = Duration::from_millis(100);

    #[test]
    fn an_answering_socket_stays_alive() {
        let t0 = Instant::now();
        let mut beat = Heartbeat::new(I, t0);
        for k in 1..50u32 {
            let now = t0 + I * k;
            let Beat::Ping(nonce) = beat.tick(now) else {
                panic!("dead at tick {k}")
            };
            beat.pong(nonce);
        }
    }

    #[test]
    fn a_socket_that_stops_answering_is_dead_after_two_intervals() {
        let t0 = Instant::now();
        let mut beat = Heartbeat::new(I, t0);
        let Beat::Ping(n) = beat.tick(t0 + I) else {
            panic!()
        };
        beat.pong(n);
        assert!(matches!(beat.tick(t0 + I * 2), Beat::Ping(_)));
        assert!(matches!(
            beat.tick(t0 + I * 3 - Duration::from_millis(1)),
            Beat::Ping(_)
        ));
        assert_eq!(beat.tick(t0 + I * 3), Beat::Dead);
    }

    #[test]
    fn only_answers_to_our_own_recent_pings_count() {
        let t0 = Instant::now();
        let mut beat = Heartbeat::new(I, t0);
        let Beat::Ping(first) = beat.tick(t0 + I) else {
            panic!()
        };
        // A forged or replayed nonce does not keep the socket alive.
        beat.pong(first + 100);
        beat.pong(0);
        assert_eq!(beat.tick(t0 + I * 2), Beat::Dead);

        // A late answer proves reading only up to when its ping was sent.
        let ticks = |answer_second: bool| {
            let mut beat = Heartbeat::new(I, t0);
            let Beat::Ping(a) = beat.tick(t0 + I) else {
                panic!()
            };
            let Beat::Ping(b) = beat.tick(t0 + I * 2 - Duration::from_millis(1)) else {
                panic!()
            };
            beat.pong(if answer_second { b } else { a });
            beat.tick(t0 + I * 3)
        };
        assert_eq!(ticks(false), Beat::Dead);
        assert!(matches!(ticks(true), Beat::Ping(_)));
    }
}
