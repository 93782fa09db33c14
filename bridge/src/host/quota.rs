//! Per-tool call limits (calls per minute, from the configuration file's `rate_limits`): which
//! limit a `server:tool` has, and a sliding one-minute window of each tool's calls.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use globset::{Glob, GlobMatcher};

/// The window a limit counts calls in.
pub const WINDOW: Duration = Duration::from_secs(60);

/// One `rate_limits` entry.
#[derive(Debug, Clone)]
struct Rule {
    pattern: String,
    per_minute: u32,
    /// `None`: an exact name.
    glob: Option<GlobMatcher>,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Rule) -> bool {
        self.pattern == other.pattern && self.per_minute == other.per_minute
    }
}

/// The configured limits. An exact `server:tool` beats globs; of several globs the strictest wins.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Quotas {
    rules: Vec<Rule>,
}

/// A call refused by its limit.
#[derive(Debug, Clone, PartialEq)]
pub struct Exceeded {
    /// The `rate_limits` key that set the limit.
    pub pattern: String,
    pub per_minute: u32,
    /// When the oldest call in the window leaves it.
    pub retry_in: Duration,
}

impl Quotas {
    /// Compiles `(pattern, calls per minute)` pairs; an unusable pattern is `Err((pattern, why))`.
    pub fn new<'a>(
        entries: impl IntoIterator<Item = (&'a String, u32)>,
    ) -> Result<Quotas, (String, String)> {
        let mut rules = Vec::new();
        for (pattern, per_minute) in entries {
            if !pattern.contains(':') {
                return Err((
                    pattern.clone(),
                    format!(
                        "rate limit `{pattern}` names no server: write `server:tool` (or a glob such as `github:*`)"
                    ),
                ));
            }
            if pattern.starts_with("nexus:") {
                return Err((
                    pattern.clone(),
                    format!(
                        "rate limit `{pattern}`: limits apply to hosted tools; Nexus's own tools run in your browser tab"
                    ),
                ));
            }
            let glob = if pattern.contains(['*', '?', '[', '{']) {
                let glob = Glob::new(pattern)
                    .map_err(|err| (pattern.clone(), format!("rate limit `{pattern}`: {err}")))?;
                Some(glob.compile_matcher())
            } else {
                None
            };
            rules.push(Rule {
                pattern: pattern.clone(),
                per_minute,
                glob,
            });
        }
        Ok(Quotas { rules })
    }

    /// The limit of `tool` (`server:tool`) and the key that set it.
    pub fn limit(&self, tool: &str) -> Option<(&str, u32)> {
        if let Some(exact) = self
            .rules
            .iter()
            .find(|r| r.glob.is_none() && r.pattern == tool)
        {
            return Some((&exact.pattern, exact.per_minute));
        }
        self.rules
            .iter()
            .filter(|r| r.glob.as_ref().is_some_and(|g| g.is_match(tool)))
            .min_by_key(|r| r.per_minute)
            .map(|r| (r.pattern.as_str(), r.per_minute))
    }

    /// Each rule as `(pattern, calls per minute)`, in the file's key order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, u32)> {
        self.rules
            .iter()
            .map(|r| (r.pattern.as_str(), r.per_minute))
    }
}

/// The limits in force and each limited tool's calls within the last [`WINDOW`].
#[derive(Debug, Default)]
pub struct Limiter {
    quotas: Mutex<Quotas>,
    calls: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl Limiter {
    /// Replaces the limits (the configuration file changed); calls already counted stay.
    pub fn set(&self, quotas: Quotas) {
        *self
            .quotas
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = quotas;
    }

    /// Counts a call of `tool` at `now`, or refuses it when the window holds its limit already.
    pub fn admit(&self, tool: &str, now: Instant) -> Result<(), Exceeded> {
        let limit = {
            let quotas = self
                .quotas
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            quotas.limit(tool).map(|(p, n)| (p.to_owned(), n))
        };
        let Some((pattern, per_minute)) = limit else {
            return Ok(());
        };
        let mut calls = self
            .calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let window = calls.entry(tool.to_owned()).or_default();
        while window
            .front()
            .is_some_and(|at| now.saturating_duration_since(*at) >= WINDOW)
        {
            window.pop_front();
        }
        if window.len() >= per_minute as usize {
            let oldest = window.front().copied().unwrap_or(now);
            return Err(Exceeded {
                pattern,
                per_minute,
                retry_in: WINDOW.saturating_sub(now.saturating_duration_since(oldest)),
            });
        }
        window.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quotas(pairs: &[(&str, u32)]) -> Quotas {
        let owned: Vec<(String, u32)> = pairs.iter().map(|(p, n)| (p.to_string(), *n)).collect();
        Quotas::new(owned.iter().map(|(p, n)| (p, *n))).unwrap()
    }

    #[test]
    fn an_exact_name_beats_globs_and_the_strictest_glob_wins() {
        let q = quotas(&[("fs:*", 30), ("fs:write_*", 5), ("fs:write_file", 10)]);
        assert_eq!(q.limit("fs:write_file"), Some(("fs:write_file", 10)));
        assert_eq!(q.limit("fs:write_dir"), Some(("fs:write_*", 5)));
        assert_eq!(q.limit("fs:read"), Some(("fs:*", 30)));
        assert_eq!(q.limit("github:search"), None);
    }

    #[test]
    fn patterns_without_a_server_or_broken_globs_are_refused() {
        let bad = [
            "write_file".to_string(),
            "fs:[".to_string(),
            "nexus:grep".to_string(),
        ];
        for pattern in &bad {
            let err = Quotas::new([(pattern, 1)]).unwrap_err();
            assert_eq!(&err.0, pattern);
        }
    }

    #[test]
    fn the_window_slides_and_says_when_to_retry() {
        let limiter = Limiter::default();
        limiter.set(quotas(&[("fs:write", 2)]));
        let start = Instant::now();
        assert!(limiter.admit("fs:write", start).is_ok());
        assert!(
            limiter
                .admit("fs:write", start + Duration::from_secs(10))
                .is_ok()
        );
        let refused = limiter
            .admit("fs:write", start + Duration::from_secs(20))
            .unwrap_err();
        assert_eq!(refused.per_minute, 2);
        assert_eq!(refused.retry_in, Duration::from_secs(40));
        assert!(limiter.admit("fs:read", start).is_ok(), "unlimited");
        assert!(limiter.admit("fs:write", start + WINDOW).is_ok());
        limiter.set(Quotas::default());
        for _ in 0..10 {
            assert!(limiter.admit("fs:write", start + WINDOW).is_ok());
        }
    }
}
