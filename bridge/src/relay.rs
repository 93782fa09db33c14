//! What the MCP server calls: routes each call to this process's hub or over the link to the
//! hub, waits briefly for a link during a takeover, and applies per-tool deadlines and breakers.

use std::sync::Arc;
use std::time::{Duration, Instant};

use nexus_shared::{ErrorCode, Outcome, ToolError, ToolName};
use tokio::sync::{Notify, watch};
use tokio::time::timeout;

use crate::breaker::{Breakers, Verdict};
use crate::call::ProgressSender;
use crate::deadline::Deadlines;
use crate::hub::Hub;
use crate::peer::PeerLink;

/// How long a call waits for this bridge to find the hub (or become it) before failing.
pub const LINK_WAIT: Duration = Duration::from_secs(2);

/// Where this process's calls go.
#[derive(Clone)]
pub enum Route {
    /// Looking for the hub, or about to become it; says why the last attempt failed.
    Joining(Option<String>),
    /// This process is the hub: calls go straight to the tab.
    Hub,
    /// Another process is the hub: calls go over this link.
    Peer(Arc<PeerLink>),
    /// No hub can be joined for now (port held by something else, refused); says why.
    Unreachable(String),
}

impl Route {
    pub fn mode(&self) -> &'static str {
        match self {
            Route::Joining(_) => "joining",
            Route::Hub => "hub",
            Route::Peer(_) => "peer",
            Route::Unreachable(_) => "unreachable",
        }
    }
}

pub struct Relay {
    hub: Arc<Hub>,
    route: watch::Sender<Route>,
    /// A call wants a link now: skip the reconnect wait, or re-arm a stopped machine.
    wake: Notify,
    breakers: Breakers,
    deadlines: Deadlines,
    port: u16,
}

impl Relay {
    pub fn new(hub: Arc<Hub>, deadlines: Deadlines, breakers: Breakers, port: u16) -> Self {
        Self {
            hub,
            route: watch::Sender::new(Route::Joining(None)),
            wake: Notify::new(),
            breakers,
            deadlines,
            port,
        }
    }

    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn breakers(&self) -> &Breakers {
        &self.breakers
    }

    pub fn route(&self) -> Route {
        self.route.borrow().clone()
    }

    pub fn set_route(&self, route: Route) {
        self.route.send_replace(route);
    }

    /// Resolves when a call asked for a link.
    pub async fn wake_requested(&self) {
        self.wake.notified().await;
    }

    /// Relays one call within its tool's deadline, through the tool's circuit breaker.
    pub async fn call(
        &self,
        agent: &str,
        tool: ToolName,
        args: serde_json::Value,
        session: Option<String>,
        progress: ProgressSender,
    ) -> Outcome {
        let admission = match self.breakers.admit(tool, Instant::now()) {
            Ok(admission) => admission,
            Err(err) => return Outcome::Err(err),
        };
        let deadline = self.deadlines.of(tool);
        let routed = self.route_call(agent, tool, args, session, deadline, progress);
        let outcome = match timeout(deadline, routed).await {
            Ok(outcome) => outcome,
            Err(_) => Outcome::Err(
                ToolError::new(
                    ErrorCode::Timeout,
                    format!(
                        "the browser did not answer `{}` within {} ms",
                        tool.as_str(),
                        deadline.as_millis()
                    ),
                )
                .with_hint("the graph may be busy indexing; retry shortly"),
            ),
        };
        admission.finish(Verdict::of(&outcome), Instant::now());
        outcome
    }

    async fn route_call(
        &self,
        agent: &str,
        tool: ToolName,
        args: serde_json::Value,
        session: Option<String>,
        deadline: Duration,
        progress: ProgressSender,
    ) -> Outcome {
        match self.ready_route().await {
            Route::Hub => {
                self.hub
                    .call(agent, tool.as_str(), args, session, deadline, progress)
                    .await
            }
            Route::Peer(link) => {
                link.call(tool.as_str(), args, session, deadline, progress)
                    .await
            }
            Route::Joining(problem) => {
                let mut reason = format!(
                    "this bridge is still looking for the Nexus hub on port {}",
                    self.port
                );
                if let Some(problem) = problem {
                    reason.push_str(&format!(" (last attempt: {problem})"));
                }
                Outcome::Err(self.no_hub(reason))
            }
            Route::Unreachable(why) => Outcome::Err(self.no_hub(why)),
        }
    }

    /// The route now, or after waiting up to `LINK_WAIT` while this bridge joins the hub.
    async fn ready_route(&self) -> Route {
        let mut rx = self.route.subscribe();
        let joining = |route: &Route| matches!(route, Route::Joining(_) | Route::Unreachable(_));
        if !joining(&rx.borrow()) {
            return rx.borrow().clone();
        }
        self.wake.notify_one();
        let _ = timeout(LINK_WAIT, rx.wait_for(|route| !joining(route))).await;
        rx.borrow().clone()
    }

    fn no_hub(&self, reason: String) -> ToolError {
        ToolError::new(ErrorCode::NoBrowser, reason).with_hint(format!(
            "retry in a moment; if it persists, check what listens on 127.0.0.1:{} or run `nexus-bridge status`",
            self.port
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::CallIds;
    use nexus_shared::Frame;

    fn relay(quick_ms: u64) -> Arc<Relay> {
        let hub = Arc::new(Hub::new(Arc::new(CallIds::new()), 54319));
        let deadlines = Deadlines {
            quick: Duration::from_millis(quick_ms),
            heavy: Duration::from_millis(quick_ms * 10),
        };
        Arc::new(Relay::new(hub, deadlines, Breakers::default(), 54319))
    }

    #[tokio::test]
    async fn quick_and_heavy_tools_time_out_at_their_own_deadline() {
        let relay = relay(50);
        relay.set_route(Route::Hub);
        let (tx, mut rx) = crate::outbox::channel();
        relay.hub().attach_tab(tx);
        let started = Instant::now();
        let Outcome::Err(err) = relay
            .call("a", ToolName::Context, serde_json::json!({}), None, None)
            .await
        else {
            panic!("expected a timeout")
        };
        assert_eq!(err.code, ErrorCode::Timeout);
        assert!(err.message.contains("50 ms"), "{}", err.message);
        let quick = started.elapsed();
        assert!(quick < Duration::from_millis(400), "{quick:?}");
        let Some(Frame::Call { id, .. }) = rx.recv().await else {
            panic!("expected the call")
        };
        assert_eq!(rx.recv().await, Some(Frame::Cancel { id }));

        let started = Instant::now();
        let Outcome::Err(err) = relay
            .call("a", ToolName::Impact, serde_json::json!({}), None, None)
            .await
        else {
            panic!("expected a timeout")
        };
        assert!(err.message.contains("500 ms"), "{}", err.message);
        assert!(started.elapsed() >= Duration::from_millis(500));
    }

    #[tokio::test]
    async fn repeated_timeouts_open_the_circuit_of_that_tool_only() {
        let relay = relay(10);
        relay.set_route(Route::Hub);
        let (tx, _rx) = crate::outbox::channel();
        relay.hub().attach_tab(tx);
        for _ in 0..5 {
            let outcome = relay
                .call("a", ToolName::Search, serde_json::json!({}), None, None)
                .await;
            assert!(matches!(outcome, Outcome::Err(ref e) if e.code == ErrorCode::Timeout));
        }
        let started = Instant::now();
        let Outcome::Err(err) = relay
            .call("a", ToolName::Search, serde_json::json!({}), None, None)
            .await
        else {
            panic!("expected the circuit to be open")
        };
        assert_eq!(err.code, ErrorCode::CircuitOpen);
        assert!(started.elapsed() < Duration::from_millis(5));
        let Outcome::Err(err) = relay
            .call("a", ToolName::Context, serde_json::json!({}), None, None)
            .await
        else {
            panic!("expected a timeout")
        };
        assert_eq!(err.code, ErrorCode::Timeout);
    }

    #[tokio::test]
    async fn a_call_waits_for_the_link_while_joining_then_fails_clearly() {
        let relay = relay(5_000);
        let joined = {
            let relay = relay.clone();
            tokio::spawn(async move {
                relay.wake_requested().await;
                tokio::time::sleep(Duration::from_millis(50)).await;
                relay.set_route(Route::Hub);
            })
        };
        let started = Instant::now();
        // The route becomes the hub (no tab yet): NO_BROWSER once joined, not before.
        let Outcome::Err(err) = relay
            .call("a", ToolName::Context, serde_json::json!({}), None, None)
            .await
        else {
            panic!("expected no browser")
        };
        assert_eq!(err.code, ErrorCode::NoBrowser);
        assert!(
            err.message.contains("no Nexus browser tab"),
            "{}",
            err.message
        );
        assert!(started.elapsed() >= Duration::from_millis(50));
        joined.await.unwrap();

        relay.set_route(Route::Joining(Some("no token file".into())));
        let started = Instant::now();
        let Outcome::Err(err) = relay
            .call("a", ToolName::Context, serde_json::json!({}), None, None)
            .await
        else {
            panic!("expected no hub")
        };
        assert!(
            err.message.contains("looking for the Nexus hub"),
            "{}",
            err.message
        );
        let waited = started.elapsed();
        assert!(waited >= LINK_WAIT && waited < LINK_WAIT * 2, "{waited:?}");
    }
}
