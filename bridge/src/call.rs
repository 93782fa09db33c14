//! One relayed call as its caller sees it: a process-wide unique id, the channel its answer
//! arrives on, and where the tab's progress reports go.

use std::sync::atomic::{AtomicU64, Ordering};

use nexus_shared::{CallId, Outcome};
use tokio::sync::{mpsc, oneshot};

/// One progress report of the tab about a call in flight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
    pub message: Option<String>,
}

/// Where a caller wants progress reports; `None` when its MCP request carried no progress token.
pub type ProgressSender = Option<mpsc::UnboundedSender<Progress>>;

/// A caller in this process waiting for one call's answer.
pub struct Waiter {
    pub reply: oneshot::Sender<Outcome>,
    pub progress: ProgressSender,
}

impl Waiter {
    pub fn new(progress: ProgressSender) -> (Waiter, oneshot::Receiver<Outcome>) {
        let (reply, rx) = oneshot::channel();
        (Waiter { reply, progress }, rx)
    }

    pub fn answer(self, outcome: Outcome) {
        // The caller may have stopped waiting (cancelled); then nobody wants the answer.
        let _ = self.reply.send(outcome);
    }

    pub fn report(&self, progress: Progress) {
        if let Some(tx) = &self.progress {
            let _ = tx.send(progress);
        }
    }
}

/// Call ids unique across processes and restarts: process id and start time, then a counter.
pub struct CallIds {
    prefix: String,
    counter: AtomicU64,
}

impl CallIds {
    pub fn new() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        Self {
            prefix: format!("{:x}{:05x}", std::process::id(), nanos & 0xfffff),
            counter: AtomicU64::new(0),
        }
    }

    pub fn next(&self) -> CallId {
        format!(
            "{}-{}",
            self.prefix,
            self.counter.fetch_add(1, Ordering::Relaxed)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_within_and_across_generators() {
        let a = CallIds::new();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = CallIds::new();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1000 {
            assert!(seen.insert(a.next()));
            assert!(seen.insert(b.next()));
        }
    }
}
