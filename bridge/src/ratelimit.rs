//! Token bucket limiting the frames one socket may send: a sustained rate per second and a
//! burst of one second's worth. Time is an argument, so tests need no clock.

use std::time::{Duration, Instant};

pub struct RateLimiter {
    per_second: f64,
    tokens: f64,
    last: Instant,
}

impl RateLimiter {
    /// A full bucket: `per_second` frames may arrive at once, then `per_second` each second.
    pub fn new(per_second: u32, now: Instant) -> Self {
        let per_second = f64::from(per_second.max(1));
        Self {
            per_second,
            tokens: per_second,
            last: now,
        }
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.per_second);
        self.last = now;
    }

    /// Takes one frame's token if there is one.
    pub fn try_take(&mut self, now: Instant) -> bool {
        self.refill(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// When the next token will be there (`now` if there is one already).
    pub fn next_token_at(&mut self, now: Instant) -> Instant {
        self.refill(now);
        let missing = (1.0 - self.tokens).max(0.0);
        now + Duration::from_secs_f64(missing / self.per_second)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_one_second_then_the_sustained_rate() {
        let t0 = Instant::now();
        let mut limiter = RateLimiter::new(100, t0);
        assert!((0..100).all(|_| limiter.try_take(t0)));
        assert!(!limiter.try_take(t0));
        // 10 ms later one more token has arrived, not two.
        let t1 = t0 + Duration::from_millis(10);
        assert!(limiter.try_take(t1));
        assert!(!limiter.try_take(t1));
        // The bucket never holds more than one second's worth.
        let t2 = t1 + Duration::from_secs(60);
        assert_eq!((0..1000).filter(|_| limiter.try_take(t2)).count(), 100);
    }

    #[test]
    fn next_token_time_matches_the_rate() {
        let t0 = Instant::now();
        let mut limiter = RateLimiter::new(1000, t0);
        while limiter.try_take(t0) {}
        let next = limiter.next_token_at(t0);
        let wait = next - t0;
        assert!(
            wait > Duration::from_micros(900) && wait <= Duration::from_micros(1001),
            "{wait:?}"
        );
        assert!(limiter.try_take(next));
        let mut fresh = RateLimiter::new(5, t0);
        assert_eq!(fresh.next_token_at(t0), t0);
    }
}
