//! One hosted server's connection on rmcp: a child process on stdio (set up by `launch.rs`, its
//! streams bounded by `stdio.rs`) or streamable HTTP, started under a deadline, then discovery
//! (`tools/list`, the `tool-descriptions` prompt or a fallback) under the same deadline.

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    FormElicitationCapability, GetPromptRequestParams, Implementation, ProtocolVersion, Role, Tool,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, Peer, RequestContext,
    RunningService,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::sync::mpsc;

use super::config::{ServerSpec, Transport};
use super::input::{self, InFlight};
use super::launch;
use super::stdio::{self, ChildTransport, Fault};

/// The name of the prompt a server may offer to describe how its tools are best used.
pub const GUIDANCE_PROMPT: &str = "tool-descriptions";

/// A running client session with one server.
pub type Client = RunningService<RoleClient, Handler>;

/// The client side of one session: passes `notifications/tools/list_changed` on, and the
/// server's `elicitation/create` to the caller of the call in flight (`input.rs`).
#[derive(Clone)]
pub struct Handler {
    changed: mpsc::UnboundedSender<()>,
    in_flight: InFlight,
    server: String,
}

impl Handler {
    pub fn new(changed: mpsc::UnboundedSender<()>, in_flight: InFlight, server: &str) -> Self {
        Self {
            changed,
            in_flight,
            server: server.to_owned(),
        }
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        ClientConfig::new(
            capabilities,
            Implementation::new("nexus-bridge", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(());
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        Ok(input::elicit(self.in_flight.asker(), request, &self.server).await)
    }
}

/// Starts the server and completes `initialize` within its start timeout. A stdio server whose
/// stream breaks a limit has the reason in `fault`.
pub async fn connect(spec: &ServerSpec, handler: Handler, fault: &Fault) -> Result<Client, String> {
    let start = async {
        match &spec.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let folder = launch::working_folder(&spec.id, cwd.as_deref())?;
                let mut child = launch::command(command, args, env, &folder)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|err| {
                        format!("cannot start `{command}` in {}: {err}", folder.display())
                    })?;
                if let Some(stderr) = child.stderr.take() {
                    tokio::spawn(stdio::log_stderr(spec.id.clone(), stderr));
                }
                let transport = ChildTransport::new(child, fault.clone())
                    .ok_or_else(|| format!("`{command}` started without piped stdio"))?;
                handler
                    .serve(transport)
                    .await
                    .map_err(|err| match fault.get() {
                        Some(why) => why,
                        None => format!("MCP initialize failed: {err}"),
                    })
            }
            Transport::Http { url, headers } => {
                let mut map = HashMap::new();
                for (name, value) in headers {
                    let header = http::HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| format!("header name `{name}` is not valid"))?;
                    let value = http::HeaderValue::from_str(&value.0)
                        .map_err(|_| format!("header `{name}` has a value HTTP cannot carry"))?;
                    map.insert(header, value);
                }
                let config =
                    StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(map);
                // 2026-07-28 first (`server/discover`, no handshake); a server that refuses it
                // in any way gets a fresh connection and the `initialize` handshake.
                let current = ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                };
                let transport = StreamableHttpClientTransport::from_config(config.clone());
                match handler
                    .clone()
                    .serve_with_lifecycle(transport, current)
                    .await
                {
                    Ok(client) => Ok(client),
                    Err(modern) => {
                        tracing::debug!(server = %spec.id, %modern, "server/discover refused; initialize instead");
                        handler
                            .serve(StreamableHttpClientTransport::from_config(config))
                            .await
                            .map_err(|err| {
                                format!("MCP initialize with {url} failed: {err} (server/discover: {modern})")
                            })
                    }
                }
            }
        }
    };
    tokio::time::timeout(spec.start_timeout, start)
        .await
        .map_err(|_| {
            format!(
                "did not start and answer `initialize` within {} ms (startTimeoutMs)",
                spec.start_timeout.as_millis()
            )
        })?
}

/// What a server offers.
#[derive(Debug, Clone)]
pub struct Discovery {
    pub tools: Vec<Tool>,
    /// The server's `tool-descriptions` prompt text, or one generated from its tools.
    pub guidance: String,
    /// True when `guidance` was generated because the prompt was missing or invalid.
    pub generated: bool,
}

/// Why discovery failed when it did not finish within `deadline`.
pub fn discovery_overdue(deadline: Duration) -> String {
    format!(
        "answered `initialize` but not `tools/list` and `prompts/get` within {} ms (startTimeoutMs)",
        deadline.as_millis()
    )
}

/// `tools/list` (every page), then the `tool-descriptions` prompt or a generated fallback.
pub async fn discover(peer: &Peer<RoleClient>, id: &str) -> Result<Discovery, String> {
    let tools = peer
        .list_all_tools()
        .await
        .map_err(|err| format!("tools/list failed: {err}"))?;
    let prompt = peer
        .get_prompt(GetPromptRequestParams::new(GUIDANCE_PROMPT))
        .await;
    let valid = match prompt {
        Ok(result) => match result.messages.as_slice() {
            [message] if message.role == Role::User => {
                message.content.as_text().map(|text| text.text.clone())
            }
            _ => None,
        },
        Err(_) => None,
    };
    Ok(match valid {
        Some(guidance) => Discovery {
            tools,
            guidance,
            generated: false,
        },
        None => {
            tracing::warn!(
                server = %id,
                "'{GUIDANCE_PROMPT}' prompt missing/invalid for server {id}. Generating fallback description."
            );
            let guidance = fallback_guidance(id, &tools);
            Discovery {
                tools,
                guidance,
                generated: true,
            }
        }
    })
}

/// A plain description of a server's tools, for when it offers no guidance of its own.
pub fn fallback_guidance(id: &str, tools: &[Tool]) -> String {
    let mut text = format!("Server `{id}` offers {} tools:\n", tools.len());
    for tool in tools {
        let description = tool.description.as_deref().unwrap_or("").trim();
        let first_line = description.lines().next().unwrap_or("");
        let mut args: Vec<String> = tool
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object())
            .map(|props| props.keys().cloned().collect())
            .unwrap_or_default();
        let required: Vec<&str> = tool
            .input_schema
            .get("required")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        for arg in &mut args {
            if required.contains(&arg.as_str()) {
                arg.push('*');
            }
        }
        text.push_str(&format!("- {id}:{}", tool.name));
        if !args.is_empty() {
            text.push_str(&format!("({})", args.join(", ")));
        }
        if !first_line.is_empty() {
            text.push_str(&format!(" — {first_line}"));
        }
        text.push('\n');
    }
    text.push_str("Arguments marked * are required.");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_lists_tools_arguments_and_first_lines() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "depth": {"type": "integer"}},
            "required": ["path"]
        });
        let serde_json::Value::Object(schema) = schema else {
            panic!("object");
        };
        let tool = Tool::new("read", "Reads a file.\nMore detail.", schema);
        let text = fallback_guidance("fs", &[tool]);
        assert!(text.starts_with("Server `fs` offers 1 tools:"), "{text}");
        assert!(
            text.contains("- fs:read(depth, path*) — Reads a file.\n"),
            "{text}"
        );
        assert!(!text.contains("More detail"), "{text}");
    }
}
