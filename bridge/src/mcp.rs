//! The MCP server (stdio, and `/mcp` through `mcp_http.rs`): lists the catalog's tools and the
//! health resource without any browser, relays `tools/call` with progress and cancellation.
//! Tool failures are `isError` results.

use std::sync::Arc;

use nexus_shared::catalog::SERVER_INSTRUCTIONS;
use nexus_shared::{ErrorCode, Outcome, ToolError, ToolName};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig, SubscriptionFilter, Tool,
};
use rmcp::service::{Peer, RequestContext, RunningService, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use tokio::sync::mpsc;

use crate::call::Progress;
use crate::health::{self, HEALTH_URI};
use crate::host::consent::{self, Asked, Consent, Question};
use crate::host::policy::Action;
use crate::host::{CallRequest, Host, remote};
use crate::relay::{Relay, Route};

pub struct NexusMcp {
    relay: Arc<Relay>,
    host: Arc<Host>,
    shared: Shared,
}

/// What outlives one handler: over HTTP every request gets its own handler, so the catalog, the
/// tools session and the pending confirmations live here, one per transport.
#[derive(Clone)]
pub struct Shared {
    /// Nexus's own tools as MCP lists them, in the catalog's order (built once).
    tools: Arc<[Tool]>,
    /// This client's tools session: Nexus's tools remember what they told it (collapsing what
    /// it saw, recalling its trail) unless a call names a session of its own.
    session: Arc<str>,
    /// Confirmations asked through `input_required` results, awaiting the client's retry.
    asked: Arc<Asked>,
}

impl Shared {
    /// The catalog and a fresh session named `{label}-{8 hex digits}`.
    pub fn new(label: &str) -> Self {
        let tools = ToolName::ALL
            .iter()
            .map(|tool| {
                let spec = tool.spec();
                Tool::new(spec.name, spec.description, spec.input_schema)
            })
            .collect();
        Self {
            tools,
            session: format!("{label}-{:08x}", fastrand::u32(..)).into(),
            asked: Arc::default(),
        }
    }
}

impl NexusMcp {
    pub fn new(relay: Arc<Relay>, host: Arc<Host>) -> Self {
        Self::with_shared(relay, host, Shared::new("agent"))
    }

    /// A handler over state other handlers of the same transport share.
    pub fn with_shared(relay: Arc<Relay>, host: Arc<Host>, shared: Shared) -> Self {
        Self {
            relay,
            host,
            shared,
        }
    }
}

impl ServerHandler for NexusMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_resources()
                // No prompts, declared: a 2026-07-28 server answers only what it declares,
                // and clients may ask (rmcp answers an empty list).
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("nexus", env!("CARGO_PKG_VERSION")))
        .with_instructions(SERVER_INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let mut tools: Vec<Tool> = self
            .shared
            .tools
            .iter()
            .filter(|tool| self.nexus_denied(&tool.name).is_none())
            .cloned()
            .collect();
        if self.host.exposed() {
            match self.relay.route() {
                // A peer runs no servers: it offers the hub's.
                Route::Peer(link) => {
                    if let Ok(registry) = link.hosted_registry().await {
                        tools.extend(remote::exposed_tools(&registry));
                    }
                }
                _ => tools.extend(self.host.exposed_tools()),
            }
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    /// A 2026-07-28 `subscriptions/listen` stream: `tools/list_changed` whenever the exposed
    /// hosted tools change, until the client cancels it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        if context.accepted().tools_list_changed != Some(true) {
            context.cancelled().await;
            return Ok(());
        }
        let mut changes = self.host.subscribe();
        let mut last = exposed_signature(&self.host);
        loop {
            tokio::select! {
                _ = context.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() {
                        context.cancelled().await;
                        return Ok(());
                    }
                    tokio::time::sleep(LIST_CHANGES_SETTLE).await;
                    changes.mark_unchanged();
                    let now = exposed_signature(&self.host);
                    if now != last {
                        last = now;
                        if context.sink().notify_tool_list_changed().await.is_err() {
                            return Ok(());
                        }
                    }
                }
            }
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let health = Resource::new(HEALTH_URI, "health")
            .with_description("This bridge's mode (hub or peer), the browser tab and its graph, peers, circuit breakers.")
            .with_mime_type("application/json");
        Ok(ListResourcesResult::with_all_items(vec![health]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if request.uri != HEALTH_URI {
            return Err(McpError::resource_not_found(
                format!("no resource `{}`; Nexus offers {HEALTH_URI}", request.uri),
                Some(serde_json::json!({ "uri": request.uri })),
            ));
        }
        let mut report = health::report(&self.relay);
        report["hosted"] = self.host.report();
        let text = report.to_string();
        let contents = ResourceContents::text(text, HEALTH_URI).with_mime_type("application/json");
        // Health is live: clients must not cache it.
        Ok(ReadResourceResult::new(vec![contents])
            .with_ttl_ms(0)
            .into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if self.host.exposed()
            && name.contains("__")
            && let Route::Peer(link) = self.relay.route()
            && let Ok(registry) = link.hosted_registry().await
            && let Some(gate) = remote::gatekeeping(&registry, &name)
        {
            let args = request.arguments.clone().unwrap_or_default();
            let qualified = gate.qualified;
            let (server, tool) = qualified.split_once(':').unwrap_or_default();
            let allow = self.host.how_to_allow(server, tool);
            let question = Question {
                tool: &qualified,
                args: &args,
                why: &gate.why,
                destructive: gate.destructive,
                allow: &allow,
            };
            if let Some(instead) = self.gate(&context, &request, gate.action, question).await {
                return Ok(instead);
            }
            return Ok(tokio::select! {
                outcome = link.hosted_call(&qualified, args) => remote::result(outcome),
                _ = context.ct.cancelled() => error_result(&ToolError::new(ErrorCode::Cancelled, "the client cancelled the call")),
            }
            .into());
        }
        if let Some(qualified) = self
            .host
            .exposed()
            .then(|| self.host.qualified_from_exposed(&name))
            .flatten()
        {
            return Ok(self.call_hosted(qualified, request, &context).await);
        }
        let Some(tool) = ToolName::parse(&name) else {
            let err = ToolError::new(ErrorCode::UnknownTool, format!("no tool named `{name}`"))
                .with_hint("call tools/list for the 17 Nexus tools; `route` takes plain questions");
            return Ok(error_result(&err).into());
        };
        // Nexus's own tools run unasked unless mcp.json's top level says otherwise.
        let qualified = format!("{}:{name}", crate::host::config::NEXUS_SERVER);
        if let Ok(gate) = self.host.gatekeeping(&qualified) {
            let allow = format!("remove the pattern ({}) that matches it", gate.why);
            let args = request.arguments.clone().unwrap_or_default();
            let question = Question {
                tool: &qualified,
                args: &args,
                why: &gate.why,
                destructive: false,
                allow: &allow,
            };
            if let Some(instead) = self
                .gate(&context, &request, gate.verdict.action, question)
                .await
            {
                return Ok(instead);
            }
        }
        let agent = context
            .peer
            .peer_info()
            .map(|info| info.client_info.name.clone())
            .unwrap_or_else(|| "agent".into());
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let token = context.meta.get_progress_token();
        let (progress_tx, mut progress_rx) = match token {
            Some(_) => {
                let (tx, rx) = mpsc::unbounded_channel();
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        let call = self.relay.call(
            &agent,
            tool,
            args,
            Some(self.shared.session.to_string()),
            progress_tx,
        );
        tokio::pin!(call);
        let outcome = loop {
            tokio::select! {
                // Progress first, so every report sent before the answer reaches the client.
                biased;
                progress = next_progress(&mut progress_rx) => match (progress, &token) {
                    (Some(progress), Some(token)) => {
                        let mut param = ProgressNotificationParam::new(token.clone(), progress.done as f64)
                            .with_total(progress.total as f64);
                        if let Some(message) = progress.message {
                            param = param.with_message(message);
                        }
                        let _ = context.peer.notify_progress(param).await;
                    }
                    _ => progress_rx = None,
                },
                outcome = &mut call => break outcome,
                _ = context.ct.cancelled() => break Outcome::Err(ToolError::new(ErrorCode::Cancelled, "the client cancelled the call")),
            }
        };
        Ok(match outcome {
            Outcome::Ok(output) => CallToolResult::success(vec![ContentBlock::text(output.text)]),
            Outcome::Err(err) => error_result(&err),
        }
        .into())
    }
}

impl NexusMcp {
    /// The policy's step before a call: `None` when it may run (allowed, or confirmed by the
    /// client's user), else what to answer instead (a refusal, or the question for the client).
    async fn gate(
        &self,
        context: &RequestContext<RoleServer>,
        request: &CallToolRequestParams,
        action: Action,
        question: Question<'_>,
    ) -> Option<CallToolResponse> {
        let consented = match action {
            Action::Allow => Consent::Granted,
            Action::Deny => Consent::Refused(ToolError::new(
                ErrorCode::NotAllowed,
                format!(
                    "NotAllowed: `{}` is denied ({}); it did not run",
                    question.tool, question.why
                ),
            )),
            Action::Confirm => tokio::select! {
                consented = consent::consent(context, request, &self.shared.asked, question) => consented,
                _ = context.ct.cancelled() => Consent::Refused(ToolError::new(ErrorCode::Cancelled, "the client cancelled the call")),
            },
        };
        match consented {
            Consent::Granted => None,
            Consent::Refused(err) => Some(error_result(&err).into()),
            Consent::Ask(ask) => Some(CallToolResponse::InputRequired(ask)),
        }
    }

    /// Why mcp.json denies Nexus's own tool `name`, if it does.
    fn nexus_denied(&self, name: &str) -> Option<String> {
        self.host
            .gatekeeping(&format!("{}:{name}", crate::host::config::NEXUS_SERVER))
            .ok()
            .filter(|gate| gate.verdict.action == Action::Deny)
            .map(|gate| gate.why)
    }

    /// A hosted tool through the registry; one that needs confirmation runs only once the
    /// client's user said yes (MCP elicitation). The client's cancellation drops the call, which
    /// sends `notifications/cancelled` to the server.
    async fn call_hosted(
        &self,
        name: String,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let caller = context
            .peer
            .peer_info()
            .map(|info| info.client_info.name.clone())
            .unwrap_or_else(|| "agent".into());
        let args = request.arguments.clone().unwrap_or_default();
        let mut approved = false;
        if let Ok(gate) = self.host.gatekeeping(&name) {
            let allow = self.host.how_to_allow(&gate.server, &gate.tool);
            let question = Question {
                tool: &name,
                args: &args,
                why: &gate.why,
                destructive: gate.hints.may_destroy(),
                allow: &allow,
            };
            if let Some(instead) = self
                .gate(context, &request, gate.verdict.action, question)
                .await
            {
                return instead;
            }
            approved = gate.verdict.action == Action::Confirm;
        }
        let call = self.host.execute(CallRequest {
            name,
            args,
            timeout: None,
            caller,
            approved,
            session: None,
            asker: consent::ClientUser::of(context),
        });
        tokio::select! {
            reply = call => match reply {
                Ok(reply) => reply.result,
                Err(err) => error_result(&err.to_tool_error()),
            },
            _ = context.ct.cancelled() => error_result(&ToolError::new(ErrorCode::Cancelled, "the client cancelled the call")),
        }
        .into()
    }
}

/// How long a burst of changes (servers starting together) settles into one notification.
const LIST_CHANGES_SETTLE: std::time::Duration = std::time::Duration::from_millis(200);

/// What a client's copy of the exposed hosted tools depends on.
fn exposed_signature(host: &Host) -> Vec<(String, Option<String>)> {
    host.exposed_tools()
        .into_iter()
        .map(|tool| {
            (
                tool.name.into_owned(),
                tool.description.map(|d| d.into_owned()),
            )
        })
        .collect()
}

async fn next_progress(rx: &mut Option<mpsc::UnboundedReceiver<Progress>>) -> Option<Progress> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

fn error_result(err: &ToolError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(err.render())])
}

/// Completes the MCP handshake on stdin/stdout; the service then runs until the client closes.
pub async fn start(
    relay: Arc<Relay>,
    host: Arc<Host>,
) -> Result<RunningService<RoleServer, NexusMcp>, String> {
    let service = NexusMcp::new(relay, host.clone())
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|err| format!("MCP handshake on stdio failed: {err}"))?;
    if host.exposed() {
        tokio::spawn(announce_tool_changes(host, service.peer().clone()));
    }
    Ok(service)
}

/// Sends `notifications/tools/list_changed` when the exposed hosted tools change (servers coming
/// online after the client listed the tools, going offline, changing their lists).
async fn announce_tool_changes(host: Arc<Host>, peer: Peer<RoleServer>) {
    let mut changes = host.subscribe();
    let mut last = exposed_signature(&host);
    while changes.changed().await.is_ok() {
        tokio::time::sleep(LIST_CHANGES_SETTLE).await;
        changes.mark_unchanged();
        let now = exposed_signature(&host);
        if now != last {
            last = now;
            if peer.notify_tool_list_changed().await.is_err() {
                return;
            }
        }
    }
}
