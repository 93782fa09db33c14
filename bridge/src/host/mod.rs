//! The MCP host: runs the servers of an `mcp.json` (on the hub only), keeps one registry of their
//! tools under qualified `server:tool` names beside Nexus's own (`nexus:*`), and calls them safely.

pub mod circuit;
pub mod config;
pub mod consent;
pub mod error;
pub mod fit;
pub mod input;
pub mod launch;
pub mod policy;
pub mod quota;
pub mod remote;
pub mod server;
pub mod stdio;
pub mod wire;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nexus_shared::ToolName;
use nexus_shared::reconnect::{Command, LinkState, OfflineReason, Reconnect, ReconnectPolicy};
use nexus_shared::{Frame, Outcome, ToolError};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Tool};
use rmcp::service::{Peer, ServiceError};
use serde_json::{Map, Value, json};
use tokio::sync::{Notify, mpsc, watch};

use crate::relay::{Relay, Route};
use circuit::ToolStats;
use config::{CircuitPolicy, HostConfig, NEXUS_SERVER, ServerSpec};
pub use error::HostError;
use policy::{Action, Rules, Verdict};

/// Largest hosted result passed on (serialized JSON); bigger ones fail with a clear error.
pub const MAX_RESULT_BYTES: usize = 1024 * 1024;
/// How long a retry waits for a dropped server to come back before failing.
const RETRY_WAIT: Duration = Duration::from_secs(2);

/// A server's connection state, as health and the UI show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Waiting for this process to become the hub.
    Idle,
    Starting,
    Online,
    /// Dropped; reconnecting with backoff (tools kept, offline).
    Reconnecting {
        attempt: u32,
    },
    /// Gave up reconnecting until the next call asks for it.
    Offline,
    /// Broke a limit (a stdout line too long, no discovery within the deadline): stopped, and
    /// not restarted until the next call asks for it; `last_error` says why.
    Failed,
    /// Its configuration is invalid; never started.
    Invalid,
}

impl Status {
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Idle => "idle",
            Status::Starting => "starting",
            Status::Online => "online",
            Status::Reconnecting { .. } => "reconnecting",
            Status::Offline => "offline",
            Status::Failed => "failed",
            Status::Invalid => "invalid",
        }
    }
}

struct HostedTool {
    def: Tool,
    validator: Option<Arc<jsonschema::Validator>>,
    stats: ToolStats,
    /// Whether it runs unasked, needs confirmation or never runs (`policy.rs`).
    verdict: Verdict,
}

/// What the server says about a tool's effects (MCP annotations; hints, not guarantees).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
}

impl Hints {
    fn of(def: &Tool) -> Hints {
        let annotations = def.annotations.as_ref();
        Hints {
            read_only: annotations.and_then(|a| a.read_only_hint),
            destructive: annotations.and_then(|a| a.destructive_hint),
        }
    }

    /// Whether the call may destroy data: MCP's default for a tool that is not read-only is yes.
    pub fn may_destroy(&self) -> bool {
        self.read_only != Some(true) && self.destructive != Some(false)
    }
}

/// A resolved tool's policy, as callers that must ask the user see it.
#[derive(Debug, Clone)]
pub struct Gatekeeping {
    pub server: String,
    pub tool: String,
    pub verdict: Verdict,
    pub hints: Hints,
    /// The verdict in words (`explain`).
    pub why: String,
}

struct ServerState {
    spec: Option<ServerSpec>,
    transport: &'static str,
    status: Status,
    peer: Option<Peer<RoleClient>>,
    tools: BTreeMap<String, HostedTool>,
    guidance: Option<String>,
    guidance_generated: bool,
    last_error: Option<String>,
    wake: Arc<Notify>,
    /// Its calls in flight, for the questions it sends during one.
    in_flight: input::InFlight,
}

impl ServerState {
    fn new(spec: Option<ServerSpec>, transport: &'static str, status: Status) -> Self {
        Self {
            spec,
            transport,
            status,
            peer: None,
            tools: BTreeMap::new(),
            guidance: None,
            guidance_generated: false,
            last_error: None,
            wake: Arc::new(Notify::new()),
            in_flight: input::InFlight::default(),
        }
    }
}

/// One call through the registry.
#[derive(Debug, Clone)]
pub struct CallRequest {
    /// `server:tool`, or a tool name that only one server offers.
    pub name: String,
    pub args: Map<String, Value>,
    /// Overrides the server's `timeoutMs`.
    pub timeout: Option<Duration>,
    /// Who asked (agent name, `ui`), for the Nexus tab's activity feed.
    pub caller: String,
    /// The user asked for this call or confirmed it: a tool that needs confirmation may run.
    pub approved: bool,
    /// The tools session of Nexus's own tools (a chat conversation's), used when the arguments
    /// name none.
    pub session: Option<String>,
    /// Who answers the server's questions during the call (its caller's user); without one,
    /// they are declined.
    pub asker: Option<Arc<dyn input::Asker>>,
}

/// A finished call: which tool answered, and the server's result (possibly `isError`).
#[derive(Debug, Clone)]
pub struct CallReply {
    pub server: String,
    pub tool: String,
    pub result: CallToolResult,
}

/// The coordinator of hosted servers.
pub struct Host {
    relay: Arc<Relay>,
    policy: CircuitPolicy,
    /// The top-level `allow` / `confirm` / `deny` lists.
    rules: Rules,
    expose: bool,
    config_path: Option<String>,
    config_error: Option<String>,
    specs: Vec<ServerSpec>,
    servers: Mutex<BTreeMap<String, ServerState>>,
    started: AtomicBool,
    next_id: AtomicU64,
    /// Bumped on every registry change (servers, tools, states).
    version: watch::Sender<u64>,
    /// The configuration file's per-tool call limits.
    limiter: quota::Limiter,
    stop: watch::Sender<bool>,
}

impl crate::hub::HostedServers for Host {
    fn answer(self: Arc<Self>, tx: &crate::outbox::FrameSender, frame: Frame) {
        wire::handle(self, tx, frame)
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

impl Host {
    /// A host for `config` (`Err` is a whole-file problem: no server is hosted, and health says why).
    pub fn new(
        relay: Arc<Relay>,
        config: Option<Result<HostConfig, String>>,
        expose_flag: bool,
    ) -> Arc<Host> {
        let mut servers = BTreeMap::new();
        let (mut specs, mut policy, mut expose, mut path, mut config_error, mut rules) = (
            Vec::new(),
            CircuitPolicy::default(),
            false,
            None,
            None,
            Rules::default(),
        );
        match config {
            None => {}
            Some(Err(err)) => {
                tracing::error!("{err}");
                config_error = Some(err);
            }
            Some(Ok(config)) => {
                for problem in &config.problems {
                    tracing::error!("{}", problem.message);
                    let mut state = ServerState::new(None, "-", Status::Invalid);
                    state.last_error = Some(problem.message.clone());
                    servers.insert(problem.server.clone(), state);
                }
                for spec in &config.servers {
                    servers.insert(
                        spec.id.clone(),
                        ServerState::new(Some(spec.clone()), spec.transport.kind(), Status::Idle),
                    );
                }
                specs = config.servers;
                policy = config.circuit;
                expose = config.expose;
                rules = config.rules;
                path = Some(config.path.display().to_string());
            }
        }
        let nexus = ServerState {
            tools: ToolName::ALL
                .iter()
                .map(|tool| {
                    let spec = tool.spec();
                    let def = Tool::new(spec.name, spec.description, spec.input_schema);
                    let verdict = policy::decide(&rules, None, NEXUS_SERVER, spec.name, None);
                    (
                        spec.name.to_owned(),
                        hosted_tool(NEXUS_SERVER, def, verdict),
                    )
                })
                .collect(),
            ..ServerState::new(None, "relay", Status::Online)
        };
        servers.insert(NEXUS_SERVER.to_owned(), nexus);
        Arc::new(Host {
            relay,
            policy,
            rules,
            expose: expose || expose_flag,
            config_path: path,
            config_error,
            specs,
            servers: Mutex::new(servers),
            started: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            version: watch::Sender::new(0),
            limiter: quota::Limiter::default(),
            stop: watch::Sender::new(false),
        })
    }

    /// Sets the per-tool call limits (at start and whenever the configuration file changes).
    pub fn set_rate_limits(&self, quotas: quota::Quotas) {
        self.limiter.set(quotas);
    }

    /// Whether the bridge's own MCP clients see hosted tools.
    pub fn exposed(&self) -> bool {
        self.expose
    }

    fn servers(&self) -> MutexGuard<'_, BTreeMap<String, ServerState>> {
        self.servers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn changed(&self) {
        self.version.send_modify(|v| *v += 1);
    }

    /// The registry's version: it changes whenever a server or its tools change.
    pub fn version(&self) -> u64 {
        *self.version.borrow()
    }

    /// Registry changes, for pushing updates (the value is a counter).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    /// Starts every configured server concurrently (once; called when this process becomes the hub).
    pub fn start(self: &Arc<Self>) {
        if self.started.swap(true, Ordering::SeqCst) {
            return;
        }
        self.relay.hub().set_hosted(self.clone());
        for spec in self.specs.clone() {
            let host = self.clone();
            tokio::spawn(async move { host.supervise(spec).await });
        }
    }

    /// Stops every server (their child processes end with their sessions).
    pub fn shutdown(&self) {
        self.stop.send_replace(true);
    }

    fn set(&self, id: &str, change: impl FnOnce(&mut ServerState)) {
        if let Some(state) = self.servers().get_mut(id) {
            change(state);
        }
        self.changed();
    }

    /// Keeps one server connected for the life of the process, reconnecting with backoff.
    async fn supervise(self: Arc<Self>, spec: ServerSpec) {
        let clock = Instant::now();
        let now_ms = || clock.elapsed().as_millis() as u64;
        let mut stop = self.stop.subscribe();
        let wake = match self.servers().get(&spec.id) {
            Some(state) => state.wake.clone(),
            None => return,
        };
        let mut machine = Reconnect::new(ReconnectPolicy::default());
        let mut command = machine.connect();
        loop {
            if *stop.borrow() {
                return;
            }
            command = match command {
                Command::Connect => {
                    let attempt = match machine.state() {
                        LinkState::Connecting { attempt } => *attempt,
                        _ => 0,
                    };
                    self.set(&spec.id, |s| {
                        s.status = if attempt == 0 && s.tools.is_empty() {
                            Status::Starting
                        } else {
                            Status::Reconnecting { attempt }
                        }
                    });
                    match self.session(&spec, &mut machine, &mut stop).await {
                        Ok(()) => return,
                        Err(Ended::Failed(err)) => {
                            tracing::error!(server = %spec.id, "failed: {err}");
                            self.set(&spec.id, |s| {
                                s.peer = None;
                                s.status = Status::Failed;
                                s.last_error = Some(err);
                            });
                            machine.rejected("failed")
                        }
                        Err(Ended::Dropped(err)) => {
                            tracing::warn!(server = %spec.id, "{err}");
                            let command = machine.closed(now_ms(), fastrand::f64());
                            let status = match machine.state() {
                                LinkState::Waiting { attempt, .. } => {
                                    Status::Reconnecting { attempt: *attempt }
                                }
                                _ => Status::Offline,
                            };
                            self.set(&spec.id, |s| {
                                s.peer = None;
                                s.status = status;
                                s.last_error = Some(err);
                            });
                            command
                        }
                    }
                }
                Command::WaitUntil { at_ms } => {
                    let wait = Duration::from_millis(at_ms.saturating_sub(now_ms()));
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => machine.timer_fired(at_ms.max(now_ms())),
                        _ = wake.notified() => machine.retry_now(),
                        _ = stop.changed() => return,
                    }
                }
                Command::Close | Command::None => match machine.state() {
                    LinkState::Waiting { retry_at_ms, .. } => Command::WaitUntil {
                        at_ms: *retry_at_ms,
                    },
                    LinkState::Connecting { .. } => Command::Connect,
                    LinkState::Offline(OfflineReason::Rejected(_)) => {
                        tokio::select! {
                            _ = wake.notified() => machine.connect(),
                            _ = stop.changed() => return,
                        }
                    }
                    _ => {
                        tracing::error!(server = %spec.id, "gave up reconnecting until the next call");
                        tokio::select! {
                            _ = wake.notified() => machine.connect(),
                            _ = stop.changed() => return,
                        }
                    }
                },
            };
        }
    }

    /// One session: connect, discover, serve until it drops (`Err` says why) or the host stops.
    /// Discovery has the start deadline again; a list change is fetched beside the session loop
    /// (a newer one supersedes it), so stop and exit never wait for a server's answer.
    async fn session(
        self: &Arc<Self>,
        spec: &ServerSpec,
        machine: &mut Reconnect,
        stop: &mut watch::Receiver<bool>,
    ) -> Result<(), Ended> {
        let started = Instant::now();
        let fault = stdio::Fault::default();
        let (changed_tx, mut changed_rx) = mpsc::unbounded_channel();
        let in_flight = match self.servers().get(&spec.id) {
            Some(state) => state.in_flight.clone(),
            None => return Ok(()),
        };
        let handler = server::Handler::new(changed_tx, in_flight, &spec.id);
        let client = server::connect(spec, handler, &fault)
            .await
            .map_err(|err| Ended::from(&fault, err))?;
        let peer = client.peer().clone();
        let discovery = server::discover(&peer, &spec.id);
        let found = match tokio::time::timeout(spec.start_timeout, discovery).await {
            Ok(Ok(found)) => found,
            Ok(Err(err)) => {
                let _ = client.cancel().await;
                return Err(Ended::from(&fault, err));
            }
            Err(_) => {
                let _ = client.cancel().await;
                let overdue = server::discovery_overdue(spec.start_timeout);
                return Err(Ended::Failed(fault.get().unwrap_or(overdue)));
            }
        };
        machine.opened();
        tracing::info!(
            server = %spec.id,
            tools = found.tools.len(),
            ms = started.elapsed().as_millis() as u64,
            "hosted server online"
        );
        self.install(&spec.id, found.tools);
        self.set(&spec.id, |s| {
            s.peer = Some(peer.clone());
            s.status = Status::Online;
            s.guidance = Some(found.guidance);
            s.guidance_generated = found.generated;
        });
        let cancel = client.cancellation_token();
        let waiting = client.waiting();
        tokio::pin!(waiting);
        let mut listing: Option<tokio::task::JoinHandle<()>> = None;
        let ended = loop {
            tokio::select! {
                quit = &mut waiting => {
                    let err = match quit {
                        Ok(reason) => format!("the session ended ({reason:?})"),
                        Err(err) => format!("the session task failed: {err}"),
                    };
                    break Err(Ended::from(&fault, err));
                }
                Some(()) = changed_rx.recv() => {
                    if let Some(previous) = listing.take() {
                        previous.abort();
                    }
                    listing = Some(tokio::spawn(self.clone().relist(spec.clone(), peer.clone())));
                }
                _ = stop.changed() => {
                    cancel.cancel();
                    break Ok(());
                }
            }
        };
        if let Some(listing) = listing {
            listing.abort();
        }
        if ended.is_ok() {
            let _ = waiting.await;
        }
        ended
    }

    /// `tools/list` after `list_changed`, within the start deadline.
    async fn relist(self: Arc<Self>, spec: ServerSpec, peer: Peer<RoleClient>) {
        match tokio::time::timeout(spec.start_timeout, peer.list_all_tools()).await {
            Ok(Ok(tools)) => {
                tracing::info!(server = %spec.id, tools = tools.len(), "tool list changed");
                self.install(&spec.id, tools);
            }
            Ok(Err(err)) => {
                tracing::warn!(server = %spec.id, "tools/list after list_changed failed: {err}")
            }
            Err(_) => tracing::warn!(
                server = %spec.id,
                "tools/list after list_changed got no answer within {} ms; the old list stays",
                spec.start_timeout.as_millis()
            ),
        }
    }

    /// Replaces a server's tool list, keeping the metrics of tools that remain; logs new collisions.
    fn install(&self, id: &str, tools: Vec<Tool>) {
        let mut servers = self.servers();
        let Some(state) = servers.get_mut(id) else {
            return;
        };
        let mut old = std::mem::take(&mut state.tools);
        let server_rules = state.spec.as_ref().map(|spec| &spec.rules);
        // Collisions are logged once, when a tool first appears on this server.
        let mut added = Vec::new();
        for def in tools {
            let name = def.name.to_string();
            let verdict = policy::decide(
                &self.rules,
                server_rules,
                id,
                &name,
                Hints::of(&def).read_only,
            );
            let mut tool = hosted_tool(id, def, verdict);
            match old.remove(&name) {
                Some(previous) => tool.stats = previous.stats,
                None => added.push(name.clone()),
            }
            state.tools.insert(name, tool);
        }
        for name in added {
            let owners: Vec<&str> = servers
                .iter()
                .filter(|(_, s)| s.tools.contains_key(&name))
                .map(|(server, _)| server.as_str())
                .collect();
            if owners.len() > 1 {
                tracing::warn!(
                    tool = %name,
                    "tool name collision: offered by {}; call it by its qualified name ({})",
                    owners.join(", "),
                    owners.iter().map(|o| format!("{o}:{name}")).collect::<Vec<_>>().join(", ")
                );
            }
        }
        drop(servers);
        self.changed();
    }

    /// `server:tool` for a qualified or unique unqualified name.
    pub fn resolve(&self, name: &str) -> Result<(String, String), HostError> {
        let servers = self.servers();
        if let Some((server, tool)) = name.split_once(':') {
            return match servers.get(server) {
                Some(state) if state.tools.contains_key(tool) => {
                    Ok((server.to_owned(), tool.to_owned()))
                }
                _ => Err(HostError::ToolNotFound {
                    name: name.to_owned(),
                    candidates: similar(&servers, tool),
                }),
            };
        }
        let owners: Vec<String> = servers
            .iter()
            .filter(|(_, s)| s.tools.contains_key(name))
            .map(|(server, _)| format!("{server}:{name}"))
            .collect();
        match owners.as_slice() {
            [only] => {
                let (server, tool) = only.split_once(':').unwrap_or_default();
                Ok((server.to_owned(), tool.to_owned()))
            }
            [] => Err(HostError::ToolNotFound {
                name: name.to_owned(),
                candidates: similar(&servers, name),
            }),
            _ => Err(HostError::Ambiguous {
                name: name.to_owned(),
                candidates: owners,
            }),
        }
    }

    /// Runs one call: resolve → circuit → validate → timeout → call (one retry when the
    /// transport failed) → record. Dropping the future cancels the call at the server.
    /// Hosted calls are reported to the tab's activity feed (Nexus's own are, by the hub).
    pub async fn execute(&self, request: CallRequest) -> Result<CallReply, HostError> {
        let caller = request.caller.clone();
        let started = Instant::now();
        let reply = self.execute_inner(request).await;
        let (tool, ok) = match &reply {
            Ok(reply) => (
                format!("{}:{}", reply.server, reply.tool),
                reply.result.is_error != Some(true),
            ),
            Err(HostError::ToolExecution { server, tool, .. }) => {
                (format!("{server}:{tool}"), false)
            }
            Err(HostError::ToolValidation { tool, .. } | HostError::CircuitOpen { tool, .. }) => {
                (tool.clone(), false)
            }
            Err(HostError::ToolNotFound { name, .. } | HostError::Ambiguous { name, .. }) => {
                (name.clone(), false)
            }
            Err(
                HostError::Denied { tool, .. }
                | HostError::NeedsConfirmation { tool, .. }
                | HostError::RateLimited { tool, .. },
            ) => (tool.clone(), false),
        };
        if !tool.starts_with("nexus:") {
            let ms = started.elapsed().as_millis() as u64;
            self.relay
                .hub()
                .report_hosted_activity(&caller, &tool, ms, ok);
        }
        reply
    }

    /// A tool's policy: resolved name, verdict, the server's hints and the verdict in words.
    pub fn gatekeeping(&self, name: &str) -> Result<Gatekeeping, HostError> {
        let (server, tool) = self.resolve(name)?;
        let servers = self.servers();
        let entry = servers
            .get(&server)
            .and_then(|s| s.tools.get(&tool))
            .ok_or_else(|| self.not_found(name))?;
        Ok(Gatekeeping {
            why: entry.verdict.explain(&server),
            verdict: entry.verdict.clone(),
            hints: Hints::of(&entry.def),
            server,
            tool,
        })
    }

    /// The setting that lets `server:tool` run unasked, in words.
    pub fn how_to_allow(&self, server: &str, tool: &str) -> String {
        policy::how_to_allow(server, tool, self.config_path.as_deref())
    }

    async fn execute_inner(&self, request: CallRequest) -> Result<CallReply, HostError> {
        let gate = self.gatekeeping(&request.name)?;
        let (server, tool) = (gate.server, gate.tool);
        match gate.verdict.action {
            Action::Allow => {}
            Action::Deny => {
                return Err(HostError::Denied {
                    tool: format!("{server}:{tool}"),
                    why: gate.why,
                });
            }
            Action::Confirm if request.approved => {}
            Action::Confirm => {
                return Err(HostError::NeedsConfirmation {
                    tool: format!("{server}:{tool}"),
                    allow: self.how_to_allow(&server, &tool),
                    why: gate.why,
                });
            }
        }
        let request_id = format!(
            "h{}-{}",
            std::process::id(),
            self.next_id.fetch_add(1, Ordering::Relaxed)
        );
        if server == NEXUS_SERVER {
            return self.execute_nexus(&tool, request).await;
        }
        let qualified = format!("{server}:{tool}");
        if let Err(limit) = self.limiter.admit(&qualified, Instant::now()) {
            return Err(HostError::RateLimited {
                tool: qualified,
                pattern: limit.pattern,
                per_minute: limit.per_minute,
                retry_in: limit.retry_in,
            });
        }
        let (validator, timeout, wake, in_flight) = {
            let mut servers = self.servers();
            let Some(state) = servers.get_mut(&server) else {
                return Err(self.not_found(&request.name));
            };
            let timeout = state
                .spec
                .as_ref()
                .map(|s| s.timeout)
                .unwrap_or(config::DEFAULT_TOOL_TIMEOUT);
            let wake = state.wake.clone();
            let in_flight = state.in_flight.clone();
            let Some(entry) = state.tools.get_mut(&tool) else {
                return Err(self.not_found(&request.name));
            };
            (entry.validator.clone(), timeout, wake, in_flight)
        };
        let mut admission = Admission::new(self, &server, &tool)?;
        let args = match validator {
            Some(validator) => {
                valid_arguments(&validator, request.args.clone()).map_err(|errors| {
                    HostError::ToolValidation {
                        tool: format!("{server}:{tool}"),
                        errors,
                    }
                })?
            }
            None => request.args.clone(),
        };
        let timeout = request.timeout.unwrap_or(timeout);
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + timeout;
        let _entered = in_flight.enter(
            self.next_id.fetch_add(1, Ordering::Relaxed),
            request.asker.clone(),
        );
        let mut params = CallToolRequestParams::new(tool.clone()).with_arguments(args);
        let mut attempt = 0;
        let mut rounds = 0;
        let outcome = loop {
            attempt += 1;
            let peer = match self.online_peer(&server) {
                Some(peer) => Some(peer),
                None if attempt == 1 => {
                    wake.notify_one();
                    self.wait_online(&server, RETRY_WAIT.min(timeout)).await
                }
                None => None,
            };
            let Some(peer) = peer else {
                break Err(format!("server `{server}` is offline (reconnecting)"));
            };
            match tokio::time::timeout_at(deadline, peer.call_tool_once(params.clone())).await {
                Err(_) => {
                    break Err(format!(
                        "timed out after {} ms; the server was sent notifications/cancelled",
                        timeout.as_millis()
                    ));
                }
                Ok(Ok(CallToolResponse::Complete(result))) => break Ok(result),
                Ok(Ok(CallToolResponse::InputRequired(asked))) => {
                    rounds += 1;
                    let answered = input::next_round(asked, rounds, request.asker.clone(), &server);
                    match tokio::time::timeout_at(deadline, answered).await {
                        Ok(Ok((responses, state))) => {
                            params.input_responses = responses;
                            params.request_state = state;
                        }
                        Ok(Err(err)) => break Err(err),
                        Err(_) => {
                            break Err(format!(
                                "timed out after {} ms waiting for the answers the server asked for",
                                timeout.as_millis()
                            ));
                        }
                    }
                }
                Ok(Ok(_)) => {
                    break Err(
                        "the server answered with a task, which hosted calls do not support"
                            .to_owned(),
                    );
                }
                Ok(Err(err)) if transient(&err) && attempt == 1 => {
                    tracing::info!(server = %server, tool = %tool, "transport error, retrying once: {err}");
                    wake.notify_one();
                    self.wait_reconnected(&server, &peer, RETRY_WAIT.min(timeout))
                        .await;
                }
                Ok(Err(err)) => break Err(err.to_string()),
            }
        };
        let elapsed = started.elapsed();
        let outcome = outcome.and_then(|result| {
            let size = serde_json::to_vec(&result).map(|v| v.len()).unwrap_or(0);
            if size > MAX_RESULT_BYTES {
                Err(format!(
                    "the result is {size} bytes, over the {MAX_RESULT_BYTES}-byte limit for hosted results"
                ))
            } else {
                Ok(result)
            }
        });
        match outcome {
            Ok(result) => {
                admission.success(elapsed);
                Ok(CallReply {
                    server,
                    tool,
                    result,
                })
            }
            Err(message) => {
                admission.failure(elapsed, &message);
                Err(HostError::ToolExecution {
                    server,
                    tool,
                    request_id,
                    message,
                })
            }
        }
    }

    async fn execute_nexus(
        &self,
        tool: &str,
        request: CallRequest,
    ) -> Result<CallReply, HostError> {
        let Some(name) = ToolName::parse(tool) else {
            return Err(self.not_found(&request.name));
        };
        let started = Instant::now();
        let outcome = self
            .relay
            .call(
                &request.caller,
                name,
                Value::Object(request.args),
                request.session,
                None,
            )
            .await;
        let elapsed = started.elapsed();
        let result = match &outcome {
            Outcome::Ok(output) => CallToolResult::success(vec![ContentBlock::text(&output.text)]),
            Outcome::Err(err) => CallToolResult::error(vec![ContentBlock::text(err.render())]),
        };
        let mut servers = self.servers();
        if let Some(stats) = servers
            .get_mut(NEXUS_SERVER)
            .and_then(|s| s.tools.get_mut(tool))
            .map(|t| &mut t.stats)
        {
            match &outcome {
                Outcome::Ok(_) => stats.success(false, elapsed, unix_ms()),
                Outcome::Err(ToolError { message, .. }) => stats.failure(
                    &self.policy,
                    false,
                    elapsed,
                    Instant::now(),
                    unix_ms(),
                    message,
                ),
            }
        }
        drop(servers);
        self.changed();
        Ok(CallReply {
            server: NEXUS_SERVER.to_owned(),
            tool: tool.to_owned(),
            result,
        })
    }

    fn not_found(&self, name: &str) -> HostError {
        HostError::ToolNotFound {
            name: name.to_owned(),
            candidates: Vec::new(),
        }
    }

    fn online_peer(&self, server: &str) -> Option<Peer<RoleClient>> {
        self.servers().get(server).and_then(|s| s.peer.clone())
    }

    async fn wait_online(&self, server: &str, within: Duration) -> Option<Peer<RoleClient>> {
        let mut rx = self.subscribe();
        let until = tokio::time::Instant::now() + within;
        loop {
            if let Some(peer) = self.online_peer(server) {
                return Some(peer);
            }
            if tokio::time::timeout_at(until, rx.changed()).await.is_err() {
                return None;
            }
        }
    }

    /// Waits until `server` has a session other than the one that failed (or `within` passes).
    async fn wait_reconnected(&self, server: &str, failed: &Peer<RoleClient>, within: Duration) {
        let mut rx = self.subscribe();
        let until = tokio::time::Instant::now() + within;
        loop {
            let fresh = self
                .online_peer(server)
                .is_some_and(|p| !same_peer(&p, failed));
            if fresh || tokio::time::timeout_at(until, rx.changed()).await.is_err() {
                return;
            }
        }
    }

    /// The registry for health, `status` and the UI.
    pub fn report(&self) -> Value {
        let now = Instant::now();
        let servers = self.servers();
        let list: Vec<Value> = servers
            .iter()
            .map(|(id, state)| {
                let status = if id == NEXUS_SERVER {
                    nexus_status(&self.relay)
                } else {
                    state.status.as_str()
                };
                let tools: Vec<Value> = state
                    .tools
                    .iter()
                    .map(|(name, tool)| {
                        let hints = Hints::of(&tool.def);
                        let mut entry = json!({
                            "name": format!("{id}:{name}"),
                            "description": tool.def.description.as_deref().unwrap_or(""),
                            "input_schema": Value::Object((*tool.def.input_schema).clone()),
                            "policy": tool.verdict.action.as_str(),
                            "policy_reason": tool.verdict.explain(id),
                            "read_only": hints.read_only,
                            "destructive": hints.may_destroy(),
                        });
                        if let (Value::Object(entry), Value::Object(stats)) =
                            (&mut entry, tool.stats.json(&self.policy, now))
                        {
                            entry.extend(stats);
                        }
                        entry
                    })
                    .collect();
                let mut server = json!({
                    "id": id,
                    "transport": state.transport,
                    "state": status,
                    "online": status == "online",
                    "tool_count": tools.len(),
                    "last_error": state.last_error,
                    "tools": tools,
                });
                if let Some(info) = state.peer.as_ref().and_then(|peer| peer.peer_info()) {
                    server["protocol"] = info.protocol_version.to_string().into();
                }
                if let Status::Reconnecting { attempt } = state.status {
                    server["attempt"] = attempt.into();
                }
                if let Some(guidance) = &state.guidance {
                    server["guidance"] = guidance.as_str().into();
                    server["guidance_generated"] = state.guidance_generated.into();
                }
                server
            })
            .collect();
        json!({
            "config": self.config_path,
            "config_error": self.config_error,
            "expose": self.expose,
            "servers": list,
        })
    }

    /// Hosted tools (not Nexus's own) as MCP tools named `server__tool`, for exposure; denied
    /// tools are left out.
    pub fn exposed_tools(&self) -> Vec<Tool> {
        let servers = self.servers();
        let mut out = Vec::new();
        for (id, state) in servers.iter().filter(|(id, _)| *id != NEXUS_SERVER) {
            for (name, tool) in &state.tools {
                if tool.verdict.action == Action::Deny {
                    continue;
                }
                let Some(exposed) = exposed_name(id, name) else {
                    tracing::warn!(server = %id, tool = %name, "cannot be named by MCP's tool-name rules; not exposed");
                    continue;
                };
                let mut def = tool.def.clone();
                def.name = exposed.into();
                let online = state.peer.is_some();
                if !online {
                    let note = format!(
                        "[offline: server `{id}` is {}] {}",
                        state.status.as_str(),
                        def.description.as_deref().unwrap_or("")
                    );
                    def.description = Some(note.into());
                }
                out.push(def);
            }
        }
        out
    }

    /// `server__tool` back to `server:tool`, when it names a hosted tool.
    pub fn qualified_from_exposed(&self, name: &str) -> Option<String> {
        let (server, tool) = name.split_once("__")?;
        let servers = self.servers();
        let state = servers.get(server).filter(|_| server != NEXUS_SERVER)?;
        state
            .tools
            .keys()
            .find(|t| exposed_name(server, t).as_deref() == Some(name))
            .map(|t| format!("{server}:{t}"))
            .or_else(|| {
                state
                    .tools
                    .contains_key(tool)
                    .then(|| format!("{server}:{tool}"))
            })
    }
}

/// How a session ended: `Dropped` reconnects with backoff, `Failed` (a broken limit) waits for a
/// call to ask for the server again.
enum Ended {
    Dropped(String),
    Failed(String),
}

impl Ended {
    /// `Failed` with the stream's fault when there is one, else `Dropped` with `err`.
    fn from(fault: &stdio::Fault, err: String) -> Ended {
        match fault.get() {
            Some(why) => Ended::Failed(why),
            None => Ended::Dropped(err),
        }
    }
}

/// The MCP name of a hosted tool: `server__tool`, if it fits the tool-name rules.
pub(crate) fn exposed_name(server: &str, tool: &str) -> Option<String> {
    let name = format!("{server}__{tool}");
    let valid = name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    valid.then_some(name)
}

fn nexus_status(relay: &Relay) -> &'static str {
    match relay.route() {
        Route::Hub if relay.hub().view().browser => "online",
        Route::Peer(link) if link.view().browser => "online",
        _ => "offline",
    }
}

fn hosted_tool(server: &str, def: Tool, verdict: Verdict) -> HostedTool {
    let schema = Value::Object((*def.input_schema).clone());
    let validator = match jsonschema::validator_for(&schema) {
        Ok(validator) => Some(Arc::new(validator)),
        Err(err) => {
            tracing::warn!(server, tool = %def.name, "input schema does not compile, arguments go unchecked: {err}");
            None
        }
    };
    HostedTool {
        def,
        validator,
        stats: ToolStats::default(),
        verdict,
    }
}

fn similar(servers: &BTreeMap<String, ServerState>, tool: &str) -> Vec<String> {
    let needle = tool.to_lowercase();
    servers
        .iter()
        .flat_map(|(server, s)| s.tools.keys().map(move |t| (server, t)))
        .filter(|(_, t)| {
            let t = t.to_lowercase();
            !needle.is_empty() && (t.contains(&needle) || needle.contains(&t))
        })
        .map(|(server, t)| format!("{server}:{t}"))
        .take(10)
        .collect()
}

fn transient(err: &ServiceError) -> bool {
    matches!(
        err,
        ServiceError::TransportClosed | ServiceError::TransportSend(_)
    )
}

fn same_peer(a: &Peer<RoleClient>, b: &Peer<RoleClient>) -> bool {
    // Two handles of one session share their peer info; a new session has its own.
    match (a.peer_info(), b.peer_info()) {
        (Some(a), Some(b)) => Arc::ptr_eq(&a, &b),
        _ => false,
    }
}

pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A call let through a tool's circuit; dropped unfinished (cancelled), it releases a trial.
struct Admission<'a> {
    host: &'a Host,
    server: String,
    tool: String,
    trial: bool,
    finished: bool,
}

impl<'a> Admission<'a> {
    fn new(host: &'a Host, server: &str, tool: &str) -> Result<Self, HostError> {
        let now = Instant::now();
        let mut servers = host.servers();
        let stats = servers
            .get_mut(server)
            .and_then(|s| s.tools.get_mut(tool))
            .map(|t| &mut t.stats)
            .ok_or_else(|| host.not_found(&format!("{server}:{tool}")))?;
        match stats.admit(&host.policy, now) {
            Ok(trial) => Ok(Self {
                host,
                server: server.to_owned(),
                tool: tool.to_owned(),
                trial,
                finished: false,
            }),
            Err(refusal) => Err(HostError::CircuitOpen {
                tool: format!("{server}:{tool}"),
                failures: refusal.failures,
                last_failure_ms: stats.last_failure.as_ref().map(|(at, _)| *at),
                retry_in: refusal.retry_in,
            }),
        }
    }

    fn with_stats(&mut self, f: impl FnOnce(&mut ToolStats, &CircuitPolicy)) {
        self.finished = true;
        if let Some(tool) = self
            .host
            .servers()
            .get_mut(&self.server)
            .and_then(|s| s.tools.get_mut(&self.tool))
        {
            f(&mut tool.stats, &self.host.policy);
        }
        self.host.changed();
    }

    fn success(&mut self, elapsed: Duration) {
        let trial = self.trial;
        self.with_stats(|stats, _| stats.success(trial, elapsed, unix_ms()));
    }

    fn failure(&mut self, elapsed: Duration, message: &str) {
        let trial = self.trial;
        self.with_stats(|stats, policy| {
            stats.failure(policy, trial, elapsed, Instant::now(), unix_ms(), message)
        });
    }
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        if !self.finished {
            let trial = self.trial;
            self.with_stats(|stats, _| stats.abandon(trial));
        }
    }
}

/// The arguments a tool's schema accepts: as given, else with the arguments given as `null` left
/// out, for a model that writes `null` for an optional parameter it does not use (the schema
/// decides: a `null` it allows is sent). Else the schema's complaints, each with its path.
fn valid_arguments(
    validator: &jsonschema::Validator,
    mut args: serde_json::Map<String, Value>,
) -> Result<serde_json::Map<String, Value>, Vec<String>> {
    let complaints = |args: &serde_json::Map<String, Value>| -> Vec<String> {
        let args = Value::Object(args.clone());
        validator
            .iter_errors(&args)
            .map(|err| {
                let path = err.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_owned()
                } else {
                    path
                };
                format!("{path}: {err}")
            })
            .collect()
    };
    let errors = complaints(&args);
    if errors.is_empty() {
        return Ok(args);
    }
    if args.values().any(Value::is_null) {
        args.retain(|_, value| !value.is_null());
        if complaints(&args).is_empty() {
            return Ok(args);
        }
    }
    Err(errors)
}

#[cfg(test)]
mod tests;
