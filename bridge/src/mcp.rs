//! The stdio MCP server: lists the catalog's tools without any browser and relays `tools/call`.
//! Tool failures are `isError` results with a code, a message and a hint, never protocol errors.

use std::sync::Arc;

use nexus_shared::catalog::SERVER_INSTRUCTIONS;
use nexus_shared::{ErrorCode, Outcome, ToolError, ToolName};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

use crate::hub::Hub;

pub struct NexusMcp {
    hub: Arc<Hub>,
    tools: Vec<Tool>,
}

impl NexusMcp {
    pub fn new(hub: Arc<Hub>) -> Self {
        let tools = ToolName::ALL
            .iter()
            .map(|tool| {
                let spec = tool.spec();
                Tool::new(spec.name, spec.description, spec.input_schema)
            })
            .collect();
        Self { hub, tools }
    }
}

impl ServerHandler for NexusMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("nexus", env!("CARGO_PKG_VERSION")))
            .with_instructions(SERVER_INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if ToolName::parse(&name).is_none() {
            let err = ToolError::new(ErrorCode::UnknownTool, format!("no tool named `{name}`"))
                .with_hint("call tools/list for the 16 Nexus tools; `route` takes plain questions");
            return Ok(error_result(&err).into());
        }
        let agent = context
            .peer
            .peer_info()
            .map(|info| info.client_info.name.clone())
            .unwrap_or_else(|| "agent".into());
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let outcome = tokio::select! {
            outcome = self.hub.call(&agent, &name, args) => outcome,
            _ = context.ct.cancelled() => Outcome::Err(ToolError::new(ErrorCode::Cancelled, "the client cancelled the call")),
        };
        Ok(match outcome {
            Outcome::Ok(output) => CallToolResult::success(vec![ContentBlock::text(output.text)]),
            Outcome::Err(err) => error_result(&err),
        }
        .into())
    }
}

fn error_result(err: &ToolError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(err.render())])
}

/// Serves MCP on stdin/stdout until the client closes the stream.
pub async fn serve_stdio(hub: Arc<Hub>) -> Result<(), String> {
    let service = NexusMcp::new(hub)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|err| format!("MCP handshake on stdio failed: {err}"))?;
    service
        .waiting()
        .await
        .map_err(|err| format!("MCP service stopped: {err}"))?;
    Ok(())
}
