//! The hub's state: the active tab, the peers, the calls in flight and the tab's context.
//! Every call gets a unique id; its answer goes only to the caller (local or peer) that owns it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nexus_shared::limits::{MAX_FRAME_BYTES, MAX_PENDING_CALLS_PER_PEER, STALE_WAIT};
use nexus_shared::{
    CallId, ErrorCode, Frame, GraphStats, Outcome, PENDING_SHOWN, REPO_PATHS_BYTES, RejectCode,
    RepoWatch, ToolError, ToolName,
};
use tokio::sync::oneshot;

use crate::call::{CallIds, Progress, ProgressSender, Waiter};
use crate::watch::{RepoBatch, WatchHandle};

pub use crate::outbox::FrameSender;

/// What the hub knows, as health reports and `Status` frames show it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HubView {
    pub browser: bool,
    pub peers: u32,
    pub project: Option<String>,
    pub stats: Option<GraphStats>,
    pub repo: Option<RepoWatch>,
}

impl HubView {
    pub fn to_frame(&self) -> Frame {
        Frame::Status {
            browser: self.browser,
            peers: self.peers,
            project: self.project.clone(),
            stats: self.stats,
            repo: self.repo.clone(),
        }
    }
}

/// Who a call's answer goes to.
enum Caller {
    /// The agent of this process.
    Local(Waiter),
    /// A peer bridge, under the id it chose.
    Peer { peer: u64, id: CallId },
}

/// Whose pending-call budget a call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Owner {
    Local,
    Peer(u64),
}

struct Pending {
    tab: u64,
    caller: Caller,
    agent: String,
    tool: String,
    started: Instant,
}

impl Pending {
    fn owner(&self) -> Owner {
        match self.caller {
            Caller::Local(_) => Owner::Local,
            Caller::Peer { peer, .. } => Owner::Peer(peer),
        }
    }
}

struct Tab {
    id: u64,
    tx: FrameSender,
}

struct PeerEntry {
    tx: FrameSender,
    agent: String,
    /// `nexus-bridge status`: receives `Status`, makes no calls, is not counted as a peer.
    monitor: bool,
}

/// How long after losing its tab (or taking over) the hub says the tab is reconnecting.
const TAB_RETURN_GRACE: Duration = Duration::from_secs(10);

#[derive(Default)]
struct State {
    tab: Option<Tab>,
    /// When a tab is expected back: the active one dropped, or this hub took over.
    tab_expected_since: Option<Instant>,
    next_tab: u64,
    next_peer: u64,
    peers: HashMap<u64, PeerEntry>,
    pending: HashMap<CallId, Pending>,
    /// (peer, the peer's id) → the hub's id of that call.
    peer_calls: HashMap<(u64, CallId), CallId>,
    in_flight: HashMap<Owner, usize>,
    project: Option<String>,
    stats: Option<GraphStats>,
    /// The served `--repo` folder and its watcher's batches, on the hub that serves one.
    repo: Option<RepoLink>,
    /// Peer calls waiting for the tab to catch up with the folder: (peer, the peer's id).
    waiting_peer_calls: std::collections::HashSet<(u64, CallId)>,
}

/// The served folder as the hub tracks it: the watcher, and the batches the active tab has not
/// applied yet (forgotten when the tab goes: a new tab resynchronises from the manifest).
struct RepoLink {
    root_name: String,
    watch: Option<WatchHandle>,
    batches_sent: u64,
    last_applied_seq: Option<u64>,
    unapplied: std::collections::BTreeMap<u64, Vec<String>>,
}

impl RepoLink {
    /// The tab is up to date with the folder: nothing buffered, nothing unapplied.
    fn settled(&self) -> bool {
        self.unapplied.is_empty() && self.watch.as_ref().is_none_or(WatchHandle::is_settled)
    }

    fn health(&self) -> RepoWatch {
        let view = self
            .watch
            .as_ref()
            .map(WatchHandle::pending)
            .unwrap_or_default();
        let mut pending: std::collections::BTreeSet<String> = view.paths.into_iter().collect();
        pending.extend(self.unapplied.values().flatten().cloned());
        let pending_more = pending.len().saturating_sub(PENDING_SHOWN) as u64;
        RepoWatch {
            watching: self.watch.is_some(),
            root_name: self.root_name.clone(),
            last_change_ms: view.last_flush_ms,
            batches_sent: self.batches_sent,
            last_applied_seq: self.last_applied_seq,
            pending: pending.into_iter().take(PENDING_SHOWN).collect(),
            pending_more,
            rescans: view.rescans,
        }
    }
}

/// How often a call waiting for the tab to catch up looks again (besides being woken).
const STALE_POLL: Duration = Duration::from_millis(10);

/// The MCP servers this hub hosts, as its sockets and the chat reach them. The hub holds them
/// without knowing the host (`host::Host` implements this), so `hub` never depends on `host`.
pub trait HostedServers: Send + Sync {
    /// Answers a page's, peer's or monitor's `HostedList` or `HostedCall` on `tx`.
    fn answer(self: Arc<Self>, tx: &FrameSender, frame: Frame);
    /// Itself, for a caller that knows the host's type (the chat).
    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync>;
}

pub struct Hub {
    ids: Arc<CallIds>,
    port: u16,
    state: Mutex<State>,
    /// The hosted MCP servers, once this process hosts them.
    hosted: std::sync::OnceLock<Arc<dyn HostedServers>>,
    /// Woken when the tab applies a batch or the tab changes.
    repo_settled: tokio::sync::Notify,
}

impl Hub {
    pub fn new(ids: Arc<CallIds>, port: u16) -> Self {
        Self {
            ids,
            port,
            state: Mutex::new(State::default()),
            hosted: std::sync::OnceLock::new(),
            repo_settled: tokio::sync::Notify::new(),
        }
    }

    /// This hub serves the folder `root_name`, watched through `watch` (`None`: the watcher
    /// could not start).
    pub fn serve_repo(&self, root_name: String, watch: Option<WatchHandle>) {
        self.state().repo = Some(RepoLink {
            root_name,
            watch,
            batches_sent: 0,
            last_applied_seq: None,
            unapplied: Default::default(),
        });
    }

    /// Sends a watcher batch to the active tab; with none connected it is dropped (the next
    /// tab reads the manifest). Either way the watcher is told the hub took it.
    pub fn send_repo_batch(&self, batch: RepoBatch) {
        let mut state = self.state();
        let tab = state.tab.as_ref().map(|tab| tab.tx.clone());
        let Some(link) = state.repo.as_mut() else {
            return;
        };
        if let Some(watch) = &link.watch {
            watch.taken(batch.seq);
        }
        let Some(tx) = tab else {
            tracing::debug!(seq = batch.seq, "no tab; repository batch dropped");
            return;
        };
        let paths: Vec<String> = batch
            .changed
            .iter()
            .chain(&batch.removed)
            .cloned()
            .collect();
        // A batch too large for one frame (a branch switch in a big repository) goes as a
        // rescan: the tab compares the whole folder with the manifest.
        let frame = if paths.iter().map(|p| p.len() + 4).sum::<usize>() > REPO_PATHS_BYTES {
            Frame::RepoChanged {
                seq: batch.seq,
                changed: Vec::new(),
                removed: Vec::new(),
                rescan: true,
            }
        } else {
            Frame::RepoChanged {
                seq: batch.seq,
                changed: batch.changed,
                removed: batch.removed,
                rescan: batch.rescan,
            }
        };
        if tx.send(frame).is_ok() {
            link.batches_sent += 1;
            link.unapplied.insert(batch.seq, paths);
        }
    }

    /// The active tab applied batches up to `seq` (or failed at `seq`, which settles it too:
    /// the tab resynchronises on its own).
    pub fn repo_applied(&self, tab: u64, seq: u64, error: Option<String>) {
        let mut state = self.state();
        if state.tab.as_ref().is_none_or(|t| t.id != tab) {
            return;
        }
        if let Some(error) = error {
            tracing::warn!(seq, error, "the tab could not apply a repository batch");
        }
        if let Some(link) = state.repo.as_mut() {
            link.unapplied.retain(|&sent, _| sent > seq);
            link.last_applied_seq = Some(link.last_applied_seq.map_or(seq, |s| s.max(seq)));
        }
        drop(state);
        self.repo_settled.notify_waiters();
    }

    /// Waits while the tab is behind the folder, at most `STALE_WAIT`.
    async fn wait_for_fresh_repo(&self) {
        let deadline = tokio::time::Instant::now() + STALE_WAIT;
        loop {
            let woken = self.repo_settled.notified();
            if self.repo_is_fresh() {
                return;
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                tracing::debug!("the tab is still behind the repository; relaying anyway");
                return;
            }
            let _ = tokio::time::timeout((deadline - now).min(STALE_POLL), woken).await;
        }
    }

    /// No tab (the call fails at once anyway), no repository, or the tab has caught up.
    fn repo_is_fresh(&self) -> bool {
        let state = self.state();
        state.tab.is_none() || state.repo.as_ref().is_none_or(RepoLink::settled)
    }

    /// Batches sent to a tab that went away count as settled.
    fn forget_unapplied(&self, state: &mut State) {
        if let Some(link) = state.repo.as_mut() {
            link.unapplied.clear();
        }
        self.repo_settled.notify_waiters();
    }

    pub fn set_hosted(&self, host: Arc<dyn HostedServers>) {
        let _ = self.hosted.set(host);
    }

    pub fn hosted(&self) -> Option<Arc<dyn HostedServers>> {
        self.hosted.get().cloned()
    }

    /// Answers a `HostedList` or `HostedCall` from a socket: through the hosted servers, or an
    /// error when this hub hosts none yet.
    pub fn answer_hosted(&self, tx: &FrameSender, frame: Frame) {
        match self.hosted() {
            Some(hosted) => hosted.answer(tx, frame),
            None => {
                let _ = tx.send(Frame::Error {
                    message: "this hub hosts no MCP servers yet".into(),
                });
            }
        }
    }

    /// Tells the tab's activity feed about a call that did not pass through it (hosted tools).
    pub fn report_hosted_activity(&self, agent: &str, tool: &str, ms: u64, ok: bool) {
        if let Some(tab) = self.state().tab.as_ref() {
            let _ = tab.tx.send(Frame::Activity {
                agent: agent.to_owned(),
                tool: tool.to_owned(),
                ms,
                ok,
            });
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated in a way that matters
        // more than stopping the relay, so a poisoned lock is recovered.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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
        state.project = None;
        state.stats = None;
        self.forget_unapplied(&mut state);
        broadcast_status(&state);
        id
    }

    /// A tab's socket closed. Calls waiting on it fail at once with a retryable error.
    pub fn detach_tab(&self, tab: u64) {
        let mut state = self.state();
        if state.tab.as_ref().is_some_and(|t| t.id == tab) {
            state.tab = None;
            state.tab_expected_since = Some(Instant::now());
            state.project = None;
            state.stats = None;
            self.forget_unapplied(&mut state);
            broadcast_status(&state);
        }
        fail_pending_of(
            &mut state,
            tab,
            "the link to the browser tab dropped during the call",
        );
    }

    /// This process just took over from a hub that exited: its tab is on the way.
    pub fn expect_tab(&self) {
        self.state().tab_expected_since = Some(Instant::now());
    }

    /// The active tab announced what graph it holds.
    pub fn set_context(&self, tab: u64, project: Option<String>, stats: GraphStats) {
        let mut state = self.state();
        if state.tab.as_ref().is_some_and(|t| t.id == tab) {
            state.project = project;
            state.stats = Some(stats);
            broadcast_status(&state);
        }
    }

    /// A peer bridge (or a monitor) was welcomed; it receives the hub's status now and on change.
    pub fn attach_peer(&self, tx: FrameSender, agent: String, monitor: bool) -> u64 {
        let mut state = self.state();
        state.next_peer += 1;
        let id = state.next_peer;
        state.peers.insert(id, PeerEntry { tx, agent, monitor });
        if monitor {
            if let Some(entry) = state.peers.get(&id) {
                let _ = entry.tx.send(view_of(&state).to_frame());
            }
        } else {
            broadcast_status(&state);
        }
        id
    }

    /// A peer's socket closed: its calls in flight are cancelled in the tab.
    pub fn detach_peer(&self, peer: u64) {
        let mut state = self.state();
        let Some(entry) = state.peers.remove(&peer) else {
            return;
        };
        state.waiting_peer_calls.retain(|(p, _)| *p != peer);
        let ids: Vec<CallId> = state
            .peer_calls
            .iter()
            .filter(|((p, _), _)| *p == peer)
            .map(|(_, hub_id)| hub_id.clone())
            .collect();
        for id in ids {
            if let Some(pending) = remove_pending(&mut state, &id) {
                cancel_in_tab(&state, &id, &pending);
            }
        }
        if !entry.monitor {
            broadcast_status(&state);
        }
    }

    pub fn view(&self) -> HubView {
        view_of(&self.state())
    }

    /// Relays one call of this process's agent to the active tab and waits for its answer.
    /// Dropping the returned future (timeout, client cancelled) sends `Cancel` to the tab.
    pub async fn call(
        &self,
        agent: &str,
        tool: &str,
        args: serde_json::Value,
        session: Option<String>,
        deadline: Duration,
        progress: ProgressSender,
    ) -> Outcome {
        self.wait_for_fresh_repo().await;
        let (id, rx) = match self.start_local(agent, tool, args, session, deadline, progress) {
            Ok(started) => started,
            Err(err) => return Outcome::Err(err),
        };
        let mut guard = AbandonGuard {
            hub: self,
            id: &id,
            armed: true,
        };
        let outcome = wait(rx).await;
        guard.armed = false;
        outcome
    }

    fn start_local(
        &self,
        agent: &str,
        tool: &str,
        args: serde_json::Value,
        session: Option<String>,
        deadline: Duration,
        progress: ProgressSender,
    ) -> Result<(CallId, oneshot::Receiver<Outcome>), ToolError> {
        let mut state = self.state();
        let tab = self.admit(&state, Owner::Local)?;
        let id = self.ids.next();
        self.send_call(&tab, &id, tool, args, session, deadline.as_millis() as u64)?;
        let (waiter, rx) = Waiter::new(progress);
        insert_pending(
            &mut state,
            id.clone(),
            Pending {
                tab: tab.id,
                caller: Caller::Local(waiter),
                agent: agent.to_owned(),
                tool: tool.to_owned(),
                started: Instant::now(),
            },
        );
        Ok((id, rx))
    }

    /// A peer relays a call under its own id; the answer goes back to it under that id. While
    /// the tab is behind the folder the call waits (as the hub's own do) without holding up the
    /// peer's socket; a cancel or the peer leaving meanwhile drops it.
    pub fn call_from_peer(
        self: &Arc<Self>,
        peer: u64,
        id: CallId,
        tool: String,
        args: serde_json::Value,
        session: Option<String>,
        deadline_ms: u64,
    ) {
        if self.repo_is_fresh() {
            return self.relay_from_peer(peer, id, tool, args, session, deadline_ms);
        }
        let key = (peer, id.clone());
        {
            let mut state = self.state();
            if state.waiting_peer_calls.contains(&key) || state.peer_calls.contains_key(&key) {
                if let Some(entry) = state.peers.get(&peer) {
                    let _ = entry.tx.send(error_frame(&format!(
                        "call id `{id}` is already in flight; every call needs a new id"
                    )));
                }
                return;
            }
            state.waiting_peer_calls.insert(key.clone());
        }
        let hub = self.clone();
        tokio::spawn(async move {
            hub.wait_for_fresh_repo().await;
            if hub.state().waiting_peer_calls.remove(&key) {
                hub.relay_from_peer(peer, id, tool, args, session, deadline_ms);
            }
        });
    }

    fn relay_from_peer(
        &self,
        peer: u64,
        id: CallId,
        tool: String,
        args: serde_json::Value,
        session: Option<String>,
        deadline_ms: u64,
    ) {
        let mut state = self.state();
        let Some(entry) = state.peers.get(&peer) else {
            return;
        };
        let (peer_tx, agent, monitor) = (entry.tx.clone(), entry.agent.clone(), entry.monitor);
        let refuse = |err: ToolError| {
            let _ = peer_tx.send(Frame::Result {
                id: id.clone(),
                outcome: Outcome::Err(err),
            });
        };
        if monitor {
            let _ = peer_tx.send(error_frame("a monitor socket may not call tools"));
            return;
        }
        if state.peer_calls.contains_key(&(peer, id.clone())) {
            let _ = peer_tx.send(error_frame(&format!(
                "call id `{id}` is already in flight; every call needs a new id"
            )));
            return;
        }
        if ToolName::parse(&tool).is_none() {
            return refuse(ToolError::new(
                ErrorCode::UnknownTool,
                format!("no tool named `{tool}`"),
            ));
        }
        let tab = match self.admit(&state, Owner::Peer(peer)) {
            Ok(tab) => tab,
            Err(err) => return refuse(err),
        };
        let hub_id = self.ids.next();
        if let Err(err) = self.send_call(&tab, &hub_id, &tool, args, session, deadline_ms) {
            return refuse(err);
        }
        state.peer_calls.insert((peer, id.clone()), hub_id.clone());
        insert_pending(
            &mut state,
            hub_id,
            Pending {
                tab: tab.id,
                caller: Caller::Peer { peer, id },
                agent,
                tool,
                started: Instant::now(),
            },
        );
    }

    /// A peer gave up on one of its calls (its client cancelled, or its deadline passed).
    pub fn cancel_from_peer(&self, peer: u64, id: &str) {
        let mut state = self.state();
        if state.waiting_peer_calls.remove(&(peer, id.to_owned())) {
            return;
        }
        let Some(hub_id) = state.peer_calls.get(&(peer, id.to_owned())).cloned() else {
            return;
        };
        if let Some(pending) = remove_pending(&mut state, &hub_id) {
            cancel_in_tab(&state, &hub_id, &pending);
        }
    }

    /// A tab answered a call. Answers from another tab than the one asked, or for calls that
    /// already ended (timed out, cancelled), are dropped and logged.
    pub fn deliver(&self, tab: u64, id: &str, outcome: Outcome) {
        let mut state = self.state();
        match state.pending.get(id) {
            Some(pending) if pending.tab == tab => {}
            Some(_) => {
                tracing::warn!(id, "result from a tab that was not asked; dropped");
                return;
            }
            None => {
                tracing::debug!(id, "result for a call that already ended; dropped");
                return;
            }
        }
        let Some(pending) = remove_pending(&mut state, id) else {
            return;
        };
        report_activity(&state, &pending, matches!(outcome, Outcome::Ok(_)));
        match pending.caller {
            Caller::Local(waiter) => waiter.answer(outcome),
            Caller::Peer { peer, id } => {
                if let Some(entry) = state.peers.get(&peer) {
                    let _ = entry.tx.send(result_frame(id, outcome));
                }
            }
        }
    }

    /// A tab reported progress on a call; it goes to the caller under the caller's id.
    pub fn progress(&self, tab: u64, id: &str, progress: Progress) {
        let state = self.state();
        let Some(pending) = state.pending.get(id).filter(|p| p.tab == tab) else {
            return;
        };
        match &pending.caller {
            Caller::Local(waiter) => waiter.report(progress),
            Caller::Peer { peer, id } => {
                if let Some(entry) = state.peers.get(peer) {
                    let _ = entry.tx.send(Frame::Progress {
                        id: id.clone(),
                        done: progress.done,
                        total: progress.total,
                        message: progress.message,
                    });
                }
            }
        }
    }

    /// The active tab, if this owner may start one more call.
    fn admit(&self, state: &State, owner: Owner) -> Result<TabRef, ToolError> {
        let Some(tab) = state.tab.as_ref() else {
            return Err(match state.tab_expected_since {
                Some(since) if since.elapsed() < TAB_RETURN_GRACE => ToolError::new(
                    ErrorCode::NoBrowser,
                    format!(
                        "the Nexus tab is reconnecting to the hub (its link dropped {} ms ago)",
                        since.elapsed().as_millis()
                    ),
                )
                .with_hint(format!(
                    "retry in a second or two; if no Nexus tab is open, open the link `{}` prints",
                    crate::secret::link_command(self.port)
                )),
                _ => self.no_browser("no Nexus browser tab is connected"),
            });
        };
        if state.in_flight.get(&owner).copied().unwrap_or(0) >= MAX_PENDING_CALLS_PER_PEER {
            return Err(ToolError::new(
                ErrorCode::RateLimited,
                format!("{MAX_PENDING_CALLS_PER_PEER} calls of this agent are already in flight"),
            )
            .with_hint("wait for some answers before sending more calls"));
        }
        Ok(TabRef {
            id: tab.id,
            tx: tab.tx.clone(),
        })
    }

    fn send_call(
        &self,
        tab: &TabRef,
        id: &str,
        tool: &str,
        args: serde_json::Value,
        session: Option<String>,
        deadline_ms: u64,
    ) -> Result<(), ToolError> {
        let frame = Frame::Call {
            id: id.to_owned(),
            tool: tool.to_owned(),
            args,
            deadline_ms,
            session,
        };
        check_size(&frame)?;
        tab.tx
            .send(frame)
            .map_err(|_| self.no_browser("the browser tab's socket is closing"))
    }

    fn no_browser(&self, reason: &str) -> ToolError {
        ToolError::new(ErrorCode::NoBrowser, reason).with_hint(format!(
            "open the link `{}` prints in a browser and load a repository, then retry",
            crate::secret::link_command(self.port)
        ))
    }

    /// Forgets a local call that will not be waited for and tells the tab to stop working on it.
    fn abandon(&self, id: &str) {
        let mut state = self.state();
        if let Some(pending) = remove_pending(&mut state, id) {
            cancel_in_tab(&state, id, &pending);
        }
    }

    #[cfg(test)]
    fn pending_count(&self) -> usize {
        self.state().pending.len()
    }
}

struct TabRef {
    id: u64,
    tx: FrameSender,
}

/// Waits for an answer; a dropped waiter means the call ended without one.
async fn wait(rx: oneshot::Receiver<Outcome>) -> Outcome {
    rx.await.unwrap_or_else(|_| {
        Outcome::Err(ToolError::new(
            ErrorCode::LinkLost,
            "the call ended without an answer",
        ))
    })
}

/// Refuses a frame over `MAX_FRAME_BYTES` before it is sent: the receiver would drop the socket.
pub fn check_size(frame: &Frame) -> Result<(), ToolError> {
    let bytes = frame.encode().len();
    if bytes > MAX_FRAME_BYTES {
        return Err(ToolError::new(
            ErrorCode::TooLarge,
            format!("the call's frame is {bytes} bytes, over the {MAX_FRAME_BYTES}-byte limit"),
        )
        .with_hint("send smaller arguments"));
    }
    Ok(())
}

/// A `Result` frame for a peer; an answer too large for one frame becomes a `TOO_LARGE` error.
fn result_frame(id: CallId, outcome: Outcome) -> Frame {
    let frame = Frame::Result {
        id: id.clone(),
        outcome,
    };
    if frame.encode().len() <= MAX_FRAME_BYTES {
        return frame;
    }
    Frame::Result {
        id,
        outcome: Outcome::Err(
            ToolError::new(
                ErrorCode::TooLarge,
                format!("the tab's answer is over the {MAX_FRAME_BYTES}-byte frame limit"),
            )
            .with_hint("ask for less: lower `limit` or `max_tokens`"),
        ),
    }
}

fn error_frame(message: &str) -> Frame {
    Frame::Error {
        message: message.to_owned(),
    }
}

fn insert_pending(state: &mut State, id: CallId, pending: Pending) {
    *state.in_flight.entry(pending.owner()).or_default() += 1;
    state.pending.insert(id, pending);
}

/// Removes a call and everything that points at it.
fn remove_pending(state: &mut State, id: &str) -> Option<Pending> {
    let pending = state.pending.remove(id)?;
    let owner = pending.owner();
    if let Some(count) = state.in_flight.get_mut(&owner) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            state.in_flight.remove(&owner);
        }
    }
    if let Caller::Peer { peer, id } = &pending.caller {
        state.peer_calls.remove(&(*peer, id.clone()));
    }
    Some(pending)
}

/// Tells the tab that was asked to stop working on a call, and the feed that it ended.
fn cancel_in_tab(state: &State, id: &str, pending: &Pending) {
    if let Some(tab) = state.tab.as_ref().filter(|t| t.id == pending.tab) {
        let _ = tab.tx.send(Frame::Cancel { id: id.to_owned() });
    }
    report_activity(state, pending, false);
}

fn report_activity(state: &State, pending: &Pending, ok: bool) {
    if let Some(tab) = state.tab.as_ref() {
        let _ = tab.tx.send(Frame::Activity {
            agent: pending.agent.clone(),
            tool: pending.tool.clone(),
            ms: pending.started.elapsed().as_millis() as u64,
            ok,
        });
    }
}

fn view_of(state: &State) -> HubView {
    HubView {
        browser: state.tab.is_some(),
        peers: state.peers.values().filter(|p| !p.monitor).count() as u32,
        project: state.project.clone(),
        stats: state.stats,
        repo: state.repo.as_ref().map(RepoLink::health),
    }
}

fn broadcast_status(state: &State) {
    let frame = view_of(state).to_frame();
    for entry in state.peers.values() {
        let _ = entry.tx.send(frame.clone());
    }
}

/// Fails every call waiting on `tab` with a retryable `LINK_LOST`.
fn fail_pending_of(state: &mut State, tab: u64, why: &str) {
    let ids: Vec<CallId> = state
        .pending
        .iter()
        .filter(|(_, p)| p.tab == tab)
        .map(|(id, _)| id.clone())
        .collect();
    for id in ids {
        let Some(pending) = remove_pending(state, &id) else {
            continue;
        };
        let outcome =
            Outcome::Err(ToolError::new(ErrorCode::LinkLost, why).with_hint("retry the call"));
        match pending.caller {
            Caller::Local(waiter) => waiter.answer(outcome),
            Caller::Peer { peer, id } => {
                if let Some(entry) = state.peers.get(&peer) {
                    let _ = entry.tx.send(Frame::Result { id, outcome });
                }
            }
        }
    }
}

/// Cancels a local call if its future is dropped before it finished.
struct AbandonGuard<'a> {
    hub: &'a Hub,
    id: &'a str,
    armed: bool,
}

impl Drop for AbandonGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.hub.abandon(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nexus_shared::ToolOutput;
    use serde_json::json;
    use tokio::sync::mpsc;

    const DEADLINE: Duration = Duration::from_secs(5);

    fn hub() -> Arc<Hub> {
        Arc::new(Hub::new(Arc::new(CallIds::new()), 54319))
    }

    fn ok(text: &str) -> Outcome {
        Outcome::Ok(ToolOutput { text: text.into() })
    }

    fn spawn_call(hub: &Arc<Hub>, tool: &str) -> tokio::task::JoinHandle<Outcome> {
        let hub = hub.clone();
        let tool = tool.to_owned();
        tokio::spawn(async move { hub.call("a", &tool, json!({}), None, DEADLINE, None).await })
    }

    /// The next frame that is not an `Activity` or `Status` report.
    async fn next_call_frame(rx: &mut mpsc::Receiver<Frame>) -> Option<Frame> {
        loop {
            match rx.recv().await? {
                Frame::Activity { .. } | Frame::Status { .. } => continue,
                frame => return Some(frame),
            }
        }
    }

    #[tokio::test]
    async fn no_tab_answers_at_once_with_no_browser() {
        let hub = hub();
        let started = Instant::now();
        let Outcome::Err(err) = hub
            .call("a", "context", json!({}), None, DEADLINE, None)
            .await
        else {
            panic!("expected an error");
        };
        assert_eq!(err.code, ErrorCode::NoBrowser);
        assert!(err.retryable);
        // The hint names the command that prints the link, never the link with its secret.
        let hint = err.hint.unwrap();
        assert!(hint.contains("`nexus-bridge status --link`"), "{hint}");
        assert!(!hint.contains("token="), "{hint}");
        assert!(started.elapsed() < Duration::from_millis(50));
    }

    #[tokio::test]
    async fn after_losing_its_tab_the_hub_says_it_is_reconnecting() {
        let hub = hub();
        let (tx, _rx) = crate::outbox::channel();
        let tab = hub.attach_tab(tx);
        hub.detach_tab(tab);
        let Outcome::Err(err) = hub
            .call("a", "context", json!({}), None, DEADLINE, None)
            .await
        else {
            panic!("expected an error");
        };
        assert_eq!(err.code, ErrorCode::NoBrowser);
        assert!(err.message.contains("reconnecting"), "{}", err.message);
        assert!(err.retryable);
    }

    #[tokio::test]
    async fn answers_reach_the_caller_that_asked() {
        let hub = hub();
        let (tx, mut rx) = crate::outbox::channel();
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
        let calls: Vec<_> = (0..50)
            .map(|i| (i, spawn_call(&hub, &format!("t{i}"))))
            .collect();
        for (i, call) in calls {
            let Outcome::Ok(out) = call.await.unwrap() else {
                panic!("call {i} failed")
            };
            assert!(out.text.starts_with(&format!("t{i}:")), "{}", out.text);
        }
        assert_eq!(hub.pending_count(), 0);
        relay.abort();
    }

    #[tokio::test]
    async fn dropped_link_fails_calls_in_flight_with_link_lost() {
        let hub = hub();
        let (tx, _rx) = crate::outbox::channel();
        let tab = hub.attach_tab(tx);
        let call = spawn_call(&hub, "search");
        tokio::time::sleep(Duration::from_millis(20)).await;
        hub.detach_tab(tab);
        let Outcome::Err(err) = call.await.unwrap() else {
            panic!("expected an error")
        };
        assert_eq!(err.code, ErrorCode::LinkLost);
        assert!(err.retryable);
        assert!(!hub.view().browser);
    }

    #[tokio::test]
    async fn dropping_the_call_future_sends_cancel() {
        let hub = hub();
        let (tx, mut rx) = crate::outbox::channel();
        hub.attach_tab(tx);
        let call = hub.call("a", "grep", json!({}), None, DEADLINE, None);
        let _ = tokio::time::timeout(Duration::from_millis(20), call).await;
        let Some(Frame::Call { id, .. }) = next_call_frame(&mut rx).await else {
            panic!("expected the call")
        };
        assert_eq!(next_call_frame(&mut rx).await, Some(Frame::Cancel { id }));
        assert_eq!(hub.pending_count(), 0);
    }

    #[tokio::test]
    async fn newer_tab_replaces_older_and_late_answers_are_dropped() {
        let hub = hub();
        let (old_tx, mut old_rx) = crate::outbox::channel();
        let old = hub.attach_tab(old_tx);
        let call = spawn_call(&hub, "context");
        let Some(Frame::Call { id, .. }) = next_call_frame(&mut old_rx).await else {
            panic!("expected the call")
        };
        let (new_tx, _new_rx) = crate::outbox::channel();
        let new = hub.attach_tab(new_tx);
        assert_ne!(old, new);
        assert!(matches!(
            next_call_frame(&mut old_rx).await,
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
        assert!(hub.view().browser);
    }

    #[tokio::test]
    async fn answer_from_the_wrong_tab_is_not_delivered() {
        let hub = hub();
        let (tx, mut rx) = crate::outbox::channel();
        let tab = hub.attach_tab(tx);
        let call = spawn_call(&hub, "context");
        let Some(Frame::Call { id, .. }) = next_call_frame(&mut rx).await else {
            panic!("expected the call")
        };
        hub.deliver(tab + 99, &id, ok("misrouted"));
        hub.deliver(tab, &id, ok("right"));
        assert_eq!(call.await.unwrap(), ok("right"));
    }

    /// A tab and two peers attached to one hub.
    struct Setup {
        hub: Arc<Hub>,
        tab: u64,
        tab_rx: mpsc::Receiver<Frame>,
        peers: Vec<(u64, mpsc::Receiver<Frame>)>,
    }

    fn setup() -> Setup {
        let hub = hub();
        let (tx, tab_rx) = crate::outbox::channel();
        let tab = hub.attach_tab(tx);
        let peers = (0..2)
            .map(|i| {
                let (tx, rx) = crate::outbox::channel();
                (hub.attach_peer(tx, format!("agent{i}"), false), rx)
            })
            .collect();
        Setup {
            hub,
            tab,
            tab_rx,
            peers,
        }
    }

    #[tokio::test]
    async fn peers_get_their_own_answers_under_their_own_ids() {
        let mut s = setup();
        let (p0, p1) = (s.peers[0].0, s.peers[1].0);
        // Both peers use the same id: the hub keeps them apart.
        s.hub.call_from_peer(
            p0,
            "x-1".into(),
            "context".into(),
            json!({"n": 0}),
            None,
            1000,
        );
        s.hub.call_from_peer(
            p1,
            "x-1".into(),
            "context".into(),
            json!({"n": 1}),
            None,
            1000,
        );
        let mut hub_ids = Vec::new();
        for _ in 0..2 {
            let Some(Frame::Call { id, args, .. }) = next_call_frame(&mut s.tab_rx).await else {
                panic!("expected a call")
            };
            assert_ne!(id, "x-1", "the tab sees the hub's ids, not the peers'");
            hub_ids.push((id, args));
        }
        for (id, args) in hub_ids.iter().rev() {
            s.hub.deliver(s.tab, id, ok(&args["n"].to_string()));
        }
        for (i, (_, rx)) in s.peers.iter_mut().enumerate() {
            assert_eq!(
                next_call_frame(rx).await,
                Some(Frame::Result {
                    id: "x-1".into(),
                    outcome: ok(&i.to_string())
                })
            );
        }
        assert_eq!(s.hub.pending_count(), 0);
    }

    #[tokio::test]
    async fn peer_cancel_and_peer_exit_cancel_in_the_tab() {
        let mut s = setup();
        let p0 = s.peers[0].0;
        s.hub
            .call_from_peer(p0, "c-1".into(), "impact".into(), json!({}), None, 1000);
        s.hub
            .call_from_peer(p0, "c-2".into(), "impact".into(), json!({}), None, 1000);
        let Some(Frame::Call { id: first, .. }) = next_call_frame(&mut s.tab_rx).await else {
            panic!()
        };
        let Some(Frame::Call { id: second, .. }) = next_call_frame(&mut s.tab_rx).await else {
            panic!()
        };
        s.hub.cancel_from_peer(p0, "c-1");
        assert_eq!(
            next_call_frame(&mut s.tab_rx).await,
            Some(Frame::Cancel { id: first })
        );
        // Another peer cannot cancel it.
        s.hub.cancel_from_peer(s.peers[1].0, "c-2");
        assert_eq!(s.hub.pending_count(), 1);
        s.hub.detach_peer(p0);
        assert_eq!(
            next_call_frame(&mut s.tab_rx).await,
            Some(Frame::Cancel { id: second })
        );
        assert_eq!(s.hub.pending_count(), 0);
    }

    #[tokio::test]
    async fn tab_loss_fails_peer_calls_with_link_lost() {
        let mut s = setup();
        let p0 = s.peers[0].0;
        s.hub
            .call_from_peer(p0, "l-1".into(), "search".into(), json!({}), None, 1000);
        s.hub.detach_tab(s.tab);
        let (_, rx) = &mut s.peers[0];
        let Some(Frame::Result {
            id,
            outcome: Outcome::Err(err),
        }) = next_call_frame(rx).await
        else {
            panic!("expected an error result")
        };
        assert_eq!(id, "l-1");
        assert_eq!(err.code, ErrorCode::LinkLost);
        assert!(err.retryable);
    }

    #[tokio::test]
    async fn too_many_calls_in_flight_are_rate_limited_per_caller() {
        let mut s = setup();
        let (p0, p1) = (s.peers[0].0, s.peers[1].0);
        for i in 0..=MAX_PENDING_CALLS_PER_PEER {
            s.hub
                .call_from_peer(p0, format!("r-{i}"), "search".into(), json!({}), None, 1000);
        }
        let (_, rx) = &mut s.peers[0];
        let Some(Frame::Result {
            id,
            outcome: Outcome::Err(err),
        }) = next_call_frame(rx).await
        else {
            panic!("expected a refusal")
        };
        assert_eq!(id, format!("r-{MAX_PENDING_CALLS_PER_PEER}"));
        assert_eq!(err.code, ErrorCode::RateLimited);
        assert!(err.retryable);
        // Another caller still has its own budget.
        s.hub
            .call_from_peer(p1, "other".into(), "search".into(), json!({}), None, 1000);
        assert_eq!(s.hub.pending_count(), MAX_PENDING_CALLS_PER_PEER + 1);
        // An answer frees a slot.
        let Some(Frame::Call { id, .. }) = next_call_frame(&mut s.tab_rx).await else {
            panic!()
        };
        s.hub.deliver(s.tab, &id, ok("done"));
        s.hub
            .call_from_peer(p0, "again".into(), "search".into(), json!({}), None, 1000);
        assert_eq!(s.hub.pending_count(), MAX_PENDING_CALLS_PER_PEER + 1);
    }

    #[tokio::test]
    async fn progress_goes_to_the_caller_that_asked() {
        let mut s = setup();
        let p1 = s.peers[1].0;
        s.hub
            .call_from_peer(p1, "g-1".into(), "impact".into(), json!({}), None, 1000);
        let Some(Frame::Call { id, .. }) = next_call_frame(&mut s.tab_rx).await else {
            panic!()
        };
        let report = Progress {
            done: 1,
            total: 3,
            message: Some("walking".into()),
        };
        s.hub.progress(s.tab + 1, &id, report.clone());
        s.hub.progress(s.tab, &id, report);
        let (_, rx) = &mut s.peers[1];
        assert_eq!(
            next_call_frame(rx).await,
            Some(Frame::Progress {
                id: "g-1".into(),
                done: 1,
                total: 3,
                message: Some("walking".into())
            })
        );

        let (tx, mut progress) = mpsc::unbounded_channel();
        let call = {
            let hub = s.hub.clone();
            tokio::spawn(async move {
                hub.call("a", "impact", json!({}), None, DEADLINE, Some(tx))
                    .await
            })
        };
        let Some(Frame::Call { id, .. }) = next_call_frame(&mut s.tab_rx).await else {
            panic!()
        };
        s.hub.progress(
            s.tab,
            &id,
            Progress {
                done: 2,
                total: 2,
                message: None,
            },
        );
        s.hub.deliver(s.tab, &id, ok("x"));
        assert_eq!(progress.recv().await.unwrap().done, 2);
        assert_eq!(call.await.unwrap(), ok("x"));
    }

    #[tokio::test]
    async fn status_reaches_peers_and_monitors_are_not_counted() {
        let mut s = setup();
        let (tx, mut monitor) = crate::outbox::channel();
        s.hub.attach_peer(tx, "status".into(), true);
        let Some(Frame::Status { browser, peers, .. }) = monitor.recv().await else {
            panic!("the monitor gets the status at once")
        };
        assert!(browser);
        assert_eq!(peers, 2);
        s.hub.set_context(
            s.tab,
            Some("shop".into()),
            GraphStats {
                files: 3,
                nodes: 10,
                edges: 12,
            },
        );
        let view = s.hub.view();
        assert_eq!(view.project.as_deref(), Some("shop"));
        assert_eq!(view.stats.map(|st| st.nodes), Some(10));
        s.hub.detach_tab(s.tab);
        let (_, rx) = &mut s.peers[0];
        let mut last = None;
        while let Ok(frame) = rx.try_recv() {
            last = Some(frame);
        }
        let expected = HubView {
            peers: 2,
            ..HubView::default()
        };
        assert_eq!(last, Some(expected.to_frame()));
        // A monitor may not call.
        let (tx, mut monitor) = crate::outbox::channel();
        let id = s.hub.attach_peer(tx, "status".into(), true);
        s.hub
            .call_from_peer(id, "m-1".into(), "context".into(), json!({}), None, 1000);
        assert!(matches!(monitor.recv().await, Some(Frame::Status { .. })));
        assert!(matches!(monitor.recv().await, Some(Frame::Error { .. })));
        assert_eq!(s.hub.pending_count(), 0);
    }

    #[tokio::test]
    async fn oversized_calls_are_refused_before_sending() {
        let s = setup();
        let big = "x".repeat(MAX_FRAME_BYTES);
        let Outcome::Err(err) = s
            .hub
            .call("a", "grep", json!({ "pattern": big }), None, DEADLINE, None)
            .await
        else {
            panic!("expected too large")
        };
        assert_eq!(err.code, ErrorCode::TooLarge);
        assert_eq!(s.hub.pending_count(), 0);
    }

    /// A hub serving a folder, its watcher's handle, and a tab.
    fn repo_setup() -> (Arc<Hub>, WatchHandle, u64, mpsc::Receiver<Frame>) {
        let hub = hub();
        let watch = WatchHandle::default();
        hub.serve_repo("shop".into(), Some(watch.clone()));
        let (tx, rx) = crate::outbox::channel();
        let tab = hub.attach_tab(tx);
        (hub, watch, tab, rx)
    }

    fn repo_batch(seq: u64, changed: &str) -> RepoBatch {
        RepoBatch {
            seq,
            changed: vec![changed.into()],
            removed: vec![],
            rescan: false,
        }
    }

    /// Hands a flushed batch from the watcher to the hub, as the pump in `web.rs` does.
    fn flush(hub: &Hub, watch: &WatchHandle, batch: RepoBatch) {
        watch.flushed(Some(&batch));
        hub.send_repo_batch(batch);
    }

    async fn nothing_for(rx: &mut mpsc::Receiver<Frame>, ms: u64) -> bool {
        tokio::time::timeout(Duration::from_millis(ms), next_call_frame(rx))
            .await
            .is_err()
    }

    #[tokio::test]
    async fn calls_wait_until_the_tab_applied_the_last_batch() {
        let (hub, watch, tab, mut rx) = repo_setup();
        flush(&hub, &watch, repo_batch(1, "a.py"));
        assert_eq!(
            next_call_frame(&mut rx).await,
            Some(Frame::RepoChanged {
                seq: 1,
                changed: vec!["a.py".into()],
                removed: vec![],
                rescan: false
            })
        );
        let health = hub.view().repo.unwrap();
        assert_eq!(
            (health.batches_sent, health.pending.clone()),
            (1, vec!["a.py".to_owned()])
        );
        let call = spawn_call(&hub, "context");
        assert!(
            nothing_for(&mut rx, 500).await,
            "the call waits for the tab"
        );
        // A failure to apply settles it as well: the tab resynchronises by itself.
        hub.repo_applied(tab, 1, Some("parse error".into()));
        let Some(Frame::Call { id, .. }) = next_call_frame(&mut rx).await else {
            panic!("the call goes once the batch is applied")
        };
        hub.deliver(tab, &id, ok("fresh"));
        assert_eq!(call.await.unwrap(), ok("fresh"));
        let health = hub.view().repo.unwrap();
        assert_eq!(health.last_applied_seq, Some(1));
        assert!(health.pending.is_empty() && health.watching);
    }

    #[tokio::test]
    async fn a_batch_too_large_for_a_frame_goes_as_a_rescan_and_health_lists_a_few() {
        let (hub, watch, _tab, mut rx) = repo_setup();
        let changed: Vec<String> = (0..20_000)
            .map(|i| format!("a/rather/long/folder/name/for/the/test/module_{i:05}.py"))
            .collect();
        flush(
            &hub,
            &watch,
            RepoBatch {
                seq: 1,
                changed: changed.clone(),
                removed: Vec::new(),
                rescan: false,
            },
        );
        assert_eq!(
            next_call_frame(&mut rx).await,
            Some(Frame::RepoChanged {
                seq: 1,
                changed: vec![],
                removed: vec![],
                rescan: true
            })
        );
        let health = hub.view().repo.unwrap();
        assert_eq!(health.pending.len(), PENDING_SHOWN);
        assert_eq!(health.pending_more as usize, changed.len() - PENDING_SHOWN);
    }

    #[tokio::test]
    async fn unflushed_changes_hold_calls_at_most_stale_wait() {
        let (hub, watch, _tab, mut rx) = repo_setup();
        watch.buffered("b.py".into());
        assert_eq!(hub.view().repo.unwrap().pending, ["b.py"]);
        let started = tokio::time::Instant::now();
        let _call = spawn_call(&hub, "context");
        assert!(matches!(
            next_call_frame(&mut rx).await,
            Some(Frame::Call { .. })
        ));
        assert!(started.elapsed() >= STALE_WAIT, "{:?}", started.elapsed());
        assert!(started.elapsed() < STALE_WAIT + Duration::from_millis(500));
    }

    #[tokio::test]
    async fn a_new_tab_resets_the_wait_and_batches_without_a_tab_are_dropped() {
        let (hub, watch, _old, mut old_rx) = repo_setup();
        flush(&hub, &watch, repo_batch(1, "a.py"));
        let call = spawn_call(&hub, "context");
        assert!(matches!(
            next_call_frame(&mut old_rx).await,
            Some(Frame::RepoChanged { .. })
        ));
        assert!(nothing_for(&mut old_rx, 200).await);
        let (tx, mut new_rx) = crate::outbox::channel();
        let new = hub.attach_tab(tx);
        let Some(Frame::Call { id, .. }) = next_call_frame(&mut new_rx).await else {
            panic!("the new tab gets the call at once")
        };
        hub.deliver(new, &id, ok("new"));
        assert_eq!(call.await.unwrap(), ok("new"));
        // No tab: the batch is dropped and counts as taken; nothing waits on it.
        hub.detach_tab(new);
        flush(&hub, &watch, repo_batch(2, "b.py"));
        assert!(watch.is_settled());
        assert_eq!(hub.view().repo.unwrap().batches_sent, 1);
    }

    #[tokio::test]
    async fn peer_calls_wait_too_and_a_cancel_while_waiting_drops_them() {
        let (hub, watch, tab, mut rx) = repo_setup();
        let (peer_tx, mut peer_rx) = crate::outbox::channel();
        let peer = hub.attach_peer(peer_tx, "agent".into(), false);
        flush(&hub, &watch, repo_batch(1, "a.py"));
        assert!(matches!(
            next_call_frame(&mut rx).await,
            Some(Frame::RepoChanged { .. })
        ));
        hub.call_from_peer(peer, "p-1".into(), "context".into(), json!({}), None, 1000);
        hub.call_from_peer(peer, "p-2".into(), "context".into(), json!({}), None, 1000);
        hub.cancel_from_peer(peer, "p-1");
        assert!(nothing_for(&mut rx, 300).await);
        hub.repo_applied(tab, 1, None);
        let Some(Frame::Call { id, .. }) = next_call_frame(&mut rx).await else {
            panic!("the waiting peer call goes")
        };
        hub.deliver(tab, &id, ok("p2"));
        assert_eq!(
            next_call_frame(&mut peer_rx).await,
            Some(Frame::Result {
                id: "p-2".into(),
                outcome: ok("p2")
            })
        );
        assert!(
            nothing_for(&mut rx, 300).await,
            "the cancelled call never went"
        );
        assert_eq!(hub.pending_count(), 0);
    }
}
