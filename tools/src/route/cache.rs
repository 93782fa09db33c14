//! The router's result cache: one tool call's answer by tool and arguments, kept 5 minutes, at
//! most 200 entries (the oldest goes first), emptied when a new graph is loaded.

use std::collections::{HashMap, VecDeque};

/// How long an answer stays valid, in milliseconds.
pub const TTL_MS: f64 = 5.0 * 60.0 * 1000.0;
/// Most answers kept.
pub const CAPACITY: usize = 200;

struct Entry {
    answer: String,
    stored_ms: f64,
}

/// Answers by key, with their insertion order for eviction. Time is passed in, never read.
#[derive(Default)]
pub struct RouteCache {
    entries: HashMap<String, Entry>,
    order: VecDeque<String>,
    hits: u64,
}

impl RouteCache {
    /// The answer stored under `key` if it is younger than the time to live.
    pub fn get(&mut self, key: &str, now_ms: f64) -> Option<String> {
        let fresh = self
            .entries
            .get(key)
            .map(|e| now_ms - e.stored_ms < TTL_MS && now_ms >= e.stored_ms);
        match fresh {
            Some(true) => {
                self.hits += 1;
                self.entries.get(key).map(|e| e.answer.clone())
            }
            Some(false) => {
                self.remove(key);
                None
            }
            None => None,
        }
    }

    /// Stores an answer, evicting the oldest entries beyond the capacity.
    pub fn put(&mut self, key: String, answer: String, now_ms: f64) {
        self.remove(&key);
        while self.entries.len() >= CAPACITY {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.entries.remove(&oldest);
        }
        self.order.push_back(key.clone());
        self.entries.insert(
            key,
            Entry {
                answer,
                stored_ms: now_ms,
            },
        );
    }

    fn remove(&mut self, key: &str) {
        if self.entries.remove(key).is_some() {
            self.order.retain(|k| k != key);
        }
    }
}

/// What tests observe (the worker drops a graph's cache with its graph instead of clearing it).
#[cfg(test)]
impl RouteCache {
    /// Forgets everything (a new graph makes every answer stale).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.order.clear();
    }

    /// Answers held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no answer is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Answers served from the cache so far.
    pub fn hits(&self) -> u64 {
        self.hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_expire_after_five_minutes() {
        let mut cache = RouteCache::default();
        cache.put("k".into(), "answer".into(), 1_000.0);
        assert_eq!(
            cache.get("k", 1_000.0 + TTL_MS - 1.0).as_deref(),
            Some("answer")
        );
        assert_eq!(cache.get("k", 1_000.0 + TTL_MS), None);
        assert!(cache.is_empty());
        assert_eq!(cache.hits(), 1);
    }

    #[test]
    fn the_oldest_entry_goes_beyond_capacity() {
        let mut cache = RouteCache::default();
        for i in 0..=CAPACITY {
            cache.put(format!("k{i}"), format!("a{i}"), i as f64);
        }
        assert_eq!(cache.len(), CAPACITY);
        assert_eq!(cache.get("k0", 300.0), None);
        assert_eq!(cache.get("k1", 300.0).as_deref(), Some("a1"));
        assert_eq!(
            cache.get(&format!("k{CAPACITY}"), 300.0).as_deref(),
            Some(&*format!("a{CAPACITY}"))
        );
        cache.put("k1".into(), "again".into(), 301.0);
        cache.put("new".into(), "n".into(), 302.0);
        assert_eq!(
            cache.get("k2", 303.0),
            None,
            "k1 was refreshed, so k2 was the oldest"
        );
        assert_eq!(cache.get("k1", 303.0).as_deref(), Some("again"));
    }

    #[test]
    fn clear_forgets_everything() {
        let mut cache = RouteCache::default();
        cache.put("k".into(), "a".into(), 0.0);
        cache.clear();
        assert!(cache.is_empty());
        assert_eq!(cache.get("k", 1.0), None);
    }
}
