//! The hub's state: the active browser tab, the calls in flight and the tab's announced context.
//! Every call gets a unique id; its answer is delivered only to the waiter that owns that id.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nexus_shared::{ErrorCode, Frame, Outcome, RejectCode, ToolError};
use tokio::sync::{mpsc, oneshot};

/// Sends frames to one connected socket.
pub type FrameSender = mpsc::UnboundedSender<Frame>;

struct Tab {
    id: u64,
    tx: FrameSender,
}

struct Pending {
    tab: u64,
    reply: oneshot::Sender<Outcome>,
}

#[derive(Default)]
struct State {
    tab: Option<Tab>,
    next_tab: u64,
    pending: HashMap<String, Pending>,
    unavailable: Option<String>,
}

pub struct Hub {
    /// Prefix making call ids unique across processes and restarts.
    prefix: String,
    counter: AtomicU64,
    call_timeout: Duration,
    port: u16,
    state: Mutex<State>,
}

impl Hub {
    pub fn new(call_timeout: Duration, port: u16) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        Self {
            prefix: format!("{:x}{:05x}", std::process::id(), nanos & 0xfffff),
            counter: AtomicU64::new(0),
            call_timeout,
            port,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated in a way that matters
        // more than stopping the relay, so a poisoned lock is recovered.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Marks this process as unable to host the hub (its port is taken); calls explain why.
    pub fn set_unavailable(&self, why: String) {
        self.state().unavailable = Some(why);
    }

    /// A browser tab said Hello. It becomes the active tab; an older tab is told it was replaced
    /// and its calls in flight fail with a retryable error.
    pub fn attach_tab(&self, tx: FrameSender) -> u64 {
        let mut state = self.state();
        state.next_tab += 1;
        let id = state.next_tab;
        if let Some(old) = state.tab.replace(Tab { id, tx }) {
            let _ = old.tx.send(Frame::Reject {
                code: RejectCode::Replaced,
                reason: "another Nexus tab connected and is now the active one; reconnect here to take over".into(),
            });
            fail_pending_of(
                &mut state,
                old.id,
                "the browser tab was replaced by a newer one",
            );
        }
        id
    }

    /// A tab's socket closed. Calls waiting on it fail at once with a retryable error.
    pub fn detach_tab(&self, tab: u64) {
        let mut state = self.state();
        if state.tab.as_ref().is_some_and(|t| t.id == tab) {
            state.tab = None;
        }
        fail_pending_of(
            &mut state,
            tab,
            "the link to the browser tab dropped during the call",
        );
    }

    #[cfg(test)]
    pub fn tab_connected(&self) -> bool {
        self.state().tab.is_some()
    }

    /// A tab answered a call. Answers from another tab than the one asked, or for calls that
    /// already ended (timed out, cancelled), are dropped and logged.
    pub fn deliver(&self, tab: u64, id: &str, outcome: Outcome) {
        let mut state = self.state();
        match state.pending.remove(id) {
            Some(pending) if pending.tab == tab => {
                let _ = pending.reply.send(outcome);
            }
            Some(pending) => {
                tracing::warn!(id, "result from a tab that was not asked; dropped");
                state.pending.insert(id.to_owned(), pending);
            }
            None => tracing::debug!(id, "result for a call that already ended; dropped"),
        }
    }

    /// Relays one tool call to the active tab and waits for its answer or the deadline.
    /// Dropping the returned future (the MCP client cancelled) sends `Cancel` to the tab.
    pub async fn call(&self, agent: &str, tool: &str, args: serde_json::Value) -> Outcome {
        let started = Instant::now();
        let (id, rx) = match self.start(tool, args) {
            Ok(started) => started,
            Err(err) => return Outcome::Err(err),
        };
        let mut guard = CallGuard {
            hub: self,
            id: &id,
            finished: false,
        };
        let outcome = match tokio::time::timeout(self.call_timeout, rx).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) => Outcome::Err(ToolError::new(
                ErrorCode::LinkLost,
                "the call ended without an answer",
            )),
            Err(_) => {
                self.abandon(&id);
                Outcome::Err(
                    ToolError::new(
                        ErrorCode::Timeout,
                        format!(
                            "the browser did not answer `{tool}` within {} ms",
                            self.call_timeout.as_millis()
                        ),
                    )
                    .with_hint("the graph may be busy indexing; retry shortly"),
                )
            }
        };
        guard.finished = true;
        self.report_activity(agent, tool, started.elapsed(), &outcome);
        outcome
    }

    fn start(
        &self,
        tool: &str,
        args: serde_json::Value,
    ) -> Result<(String, oneshot::Receiver<Outcome>), ToolError> {
        let mut state = self.state();
        let Some(tab) = state.tab.as_ref() else {
            let reason = state
                .unavailable
                .clone()
                .unwrap_or_else(|| "no Nexus browser tab is connected".into());
            return Err(self.no_browser(reason));
        };
        let id = format!(
            "{}-{}",
            self.prefix,
            self.counter.fetch_add(1, Ordering::Relaxed)
        );
        let (reply, rx) = oneshot::channel();
        let frame = Frame::Call {
            id: id.clone(),
            tool: tool.to_owned(),
            args,
            deadline_ms: self.call_timeout.as_millis() as u64,
        };
        if tab.tx.send(frame).is_err() {
            return Err(self.no_browser("the browser tab's socket is closing".into()));
        }
        let tab = tab.id;
        state.pending.insert(id.clone(), Pending { tab, reply });
        Ok((id, rx))
    }

    fn no_browser(&self, reason: String) -> ToolError {
        ToolError::new(ErrorCode::NoBrowser, reason).with_hint(format!(
            "open http://127.0.0.1:{}/ in a browser and load a repository, then retry",
            self.port
        ))
    }

    /// Forgets a call that will not be waited for and tells the tab to stop working on it.
    fn abandon(&self, id: &str) {
        let mut state = self.state();
        if state.pending.remove(id).is_some()
            && let Some(tab) = state.tab.as_ref()
        {
            let _ = tab.tx.send(Frame::Cancel { id: id.to_owned() });
        }
    }

    fn report_activity(&self, agent: &str, tool: &str, elapsed: Duration, outcome: &Outcome) {
        if let Some(tab) = self.state().tab.as_ref() {
            let _ = tab.tx.send(Frame::Activity {
                agent: agent.to_owned(),
                tool: tool.to_owned(),
                ms: elapsed.as_millis() as u64,
                ok: matches!(outcome, Outcome::Ok(_)),
            });
        }
    }

    #[cfg(test)]
    fn pending_count(&self) -> usize {
        self.state().pending.len()
    }
}

/// Cancels the call if its future is dropped before it finished.
struct CallGuard<'a> {
    hub: &'a Hub,
    id: &'a str,
    finished: bool,
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.hub.abandon(self.id);
        }
    }
}

fn fail_pending_of(state: &mut State, tab: u64, why: &str) {
    let ids: Vec<String> = state
        .pending
        .iter()
        .filter(|(_, p)| p.tab == tab)
        .map(|(id, _)| id.clone())
        .collect();
    for id in ids {
        if let Some(pending) = state.pending.remove(&id) {
            let _ = pending.reply.send(Outcome::Err(
                ToolError::new(ErrorCode::LinkLost, why).with_hint("retry the call"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nexus_shared::ToolOutput;
    use std::sync::Arc;

    fn hub() -> Arc<Hub> {
        Arc::new(Hub::new(Duration::from_millis(200), 54319))
    }

    fn ok(text: &str) -> Outcome {
        Outcome::Ok(ToolOutput { text: text.into() })
    }

    #[tokio::test]
    async fn no_tab_answers_at_once_with_no_browser() {
        let hub = hub();
        let started = Instant::now();
        let Outcome::Err(err) = hub.call("a", "context", serde_json::json!({})).await else {
            panic!("expected an error");
        };
        assert_eq!(err.code, ErrorCode::NoBrowser);
        assert!(err.retryable);
        assert!(err.hint.unwrap().contains("http://127.0.0.1:54319/"));
        assert!(started.elapsed() < Duration::from_millis(50));
    }

    #[tokio::test]
    async fn answers_reach_the_caller_that_asked() {
        let hub = hub();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let tab = hub.attach_tab(tx);
        let relay = {
            let hub = hub.clone();
            tokio::spawn(async move {
                while let Some(frame) = rx.recv().await {
                    if let Frame::Call { id, tool, .. } = frame {
                        hub.deliver(tab, &id, ok(&format!("{tool}:{id}")));
                    }
                }
            })
        };
        let calls = (0..50).map(|i| {
            let hub = hub.clone();
            tokio::spawn(async move {
                (
                    i,
                    hub.call("a", &format!("t{i}"), serde_json::json!({})).await,
                )
            })
        });
        for call in calls {
            let (i, outcome) = call.await.unwrap();
            let Outcome::Ok(out) = outcome else {
                panic!("call {i} failed: {outcome:?}")
            };
            assert!(out.text.starts_with(&format!("t{i}:")), "{}", out.text);
        }
        assert_eq!(hub.pending_count(), 0);
        relay.abort();
    }

    #[tokio::test]
    async fn dropped_link_fails_calls_in_flight_with_link_lost() {
        let hub = hub();
        let (tx, _rx) = mpsc::unbounded_channel();
        let tab = hub.attach_tab(tx);
        let call = {
            let hub = hub.clone();
            tokio::spawn(async move { hub.call("a", "search", serde_json::json!({})).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        hub.detach_tab(tab);
        let Outcome::Err(err) = call.await.unwrap() else {
            panic!("expected an error")
        };
        assert_eq!(err.code, ErrorCode::LinkLost);
        assert!(err.retryable);
        assert!(!hub.tab_connected());
    }

    #[tokio::test]
    async fn timeout_cancels_the_call_in_the_tab() {
        let hub = hub();
        let (tx, mut rx) = mpsc::unbounded_channel();
        hub.attach_tab(tx);
        let Outcome::Err(err) = hub.call("a", "impact", serde_json::json!({})).await else {
            panic!("expected a timeout")
        };
        assert_eq!(err.code, ErrorCode::Timeout);
        let Some(Frame::Call { id, .. }) = rx.recv().await else {
            panic!("expected the call")
        };
        assert_eq!(rx.recv().await, Some(Frame::Cancel { id }));
        assert_eq!(hub.pending_count(), 0);
    }

    #[tokio::test]
    async fn dropping_the_call_future_sends_cancel() {
        let hub = hub();
        let (tx, mut rx) = mpsc::unbounded_channel();
        hub.attach_tab(tx);
        let call = hub.call("a", "grep", serde_json::json!({}));
        let _ = tokio::time::timeout(Duration::from_millis(20), call).await;
        let Some(Frame::Call { id, .. }) = rx.recv().await else {
            panic!("expected the call")
        };
        assert_eq!(rx.recv().await, Some(Frame::Cancel { id }));
        assert_eq!(hub.pending_count(), 0);
    }

    #[tokio::test]
    async fn newer_tab_replaces_older_and_late_answers_are_dropped() {
        let hub = hub();
        let (old_tx, mut old_rx) = mpsc::unbounded_channel();
        let old = hub.attach_tab(old_tx);
        let call = {
            let hub = hub.clone();
            tokio::spawn(async move { hub.call("a", "context", serde_json::json!({})).await })
        };
        let Some(Frame::Call { id, .. }) = old_rx.recv().await else {
            panic!("expected the call")
        };
        let (new_tx, _new_rx) = mpsc::unbounded_channel();
        let new = hub.attach_tab(new_tx);
        assert_ne!(old, new);
        assert!(matches!(
            old_rx.recv().await,
            Some(Frame::Reject {
                code: RejectCode::Replaced,
                ..
            })
        ));
        let Outcome::Err(err) = call.await.unwrap() else {
            panic!("expected link lost")
        };
        assert_eq!(err.code, ErrorCode::LinkLost);
        // The old tab answers late: nothing is delivered, nothing panics.
        hub.deliver(old, &id, ok("late"));
        // Detaching the old tab does not disturb the new one.
        hub.detach_tab(old);
        assert!(hub.tab_connected());
    }

    #[tokio::test]
    async fn answer_from_the_wrong_tab_is_not_delivered() {
        let hub = hub();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let tab = hub.attach_tab(tx);
        let call = {
            let hub = hub.clone();
            tokio::spawn(async move { hub.call("a", "context", serde_json::json!({})).await })
        };
        let Some(Frame::Call { id, .. }) = rx.recv().await else {
            panic!("expected the call")
        };
        hub.deliver(tab + 99, &id, ok("misrouted"));
        hub.deliver(tab, &id, ok("right"));
        assert_eq!(call.await.unwrap(), ok("right"));
    }
}
