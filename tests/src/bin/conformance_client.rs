//! `conformance-client <url>`: the command the MCP conformance suite's client scenarios run
//! (`conformance client --command …`): a real bridge hosts the suite's server at `<url>` and an agent calls it.
//!
//! The client under test is the bridge's MCP host (`bridge/src/host/`): the bridge starts with an
//! `mcp.json` naming `<url>` as the hosted server `suite`, exposes its tools as `suite__<tool>`, and
//! this program, as an agent on the bridge's stdio, lists them and calls them. What it calls
//! follows the scenario (`MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_CONTEXT`), as the suite's
//! reference client does; every request the suite sees comes from the bridge's host. The agent's
//! user accepts every form the host passes on as shown (the host fills in the form's defaults).
//! Needs NEXUS_BRIDGE_BIN like the tests. Exits 1 when the server never comes online.

use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use nexus_e2e::{TempDir, bridge_command, free_port, text_of, wait_port_free, wait_port_open};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, FormElicitationCapability, Implementation,
    ProtocolVersion, ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// The hosted server's id in the generated `mcp.json`; its tools are `suite__<tool>`.
const SERVER: &str = "suite";
/// How long the host has to reach the suite's server.
const ONLINE_WITHIN: Duration = Duration::from_secs(15);

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client <server url>");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    match run(&url, &scenario, &context).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("conformance-client ({scenario}): {err}");
            ExitCode::FAILURE
        }
    }
}

/// The agent: an MCP client at 2025-11-25, so the bridge may ask it during a call
/// (`elicitation/create`), whose user accepts every form as shown.
#[derive(Clone)]
struct Agent;

impl ClientHandler for Agent {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        ClientConfig::new(
            capabilities,
            Implementation::new("conformance-agent", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            eprintln!("conformance-client: the agent's user accepts the form: {message}");
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({})))
    }
}

type Bridge = RunningService<RoleClient, Agent>;

async fn run(url: &str, scenario: &str, context: &Value) -> Result<(), String> {
    let dir = TempDir::new("conformance-client");
    let config = json!({"mcpServers": {SERVER: {"url": url, "allow": ["*"]}}});
    let config_path = dir.0.join("mcp.json");
    std::fs::write(&config_path, config.to_string())
        .map_err(|err| format!("cannot write {}: {err}", config_path.display()))?;
    let port = free_port();
    let mut command = bridge_command();
    command
        .args(["--mcp-config", &config_path.display().to_string()])
        .args(["--expose-hosted", "--port", &port.to_string()])
        .env("XDG_DATA_HOME", dir.0.join("data"));
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|err| format!("cannot start the bridge: {err}"))?;
    let bridge = Agent
        .serve(transport)
        .await
        .map_err(|err| format!("MCP initialize with the bridge: {err}"))?;
    wait_port_open(port, Duration::from_secs(10)).await;
    let outcome = drive(&bridge, scenario, context).await;
    let _ = bridge.cancel().await;
    wait_port_free(port, Duration::from_secs(10)).await;
    outcome
}

/// Waits for the hosted server, then lists and calls its tools as the scenario's client would.
async fn drive(bridge: &Bridge, scenario: &str, context: &Value) -> Result<(), String> {
    wait_online(bridge).await?;
    let prefix = format!("{SERVER}__");
    let tools: Vec<(String, Value)> = bridge
        .list_all_tools()
        .await
        .map_err(|err| format!("tools/list on the bridge: {err}"))?
        .into_iter()
        .filter_map(|tool| {
            let name = tool.name.strip_prefix(&prefix)?.to_owned();
            Some((name, Value::Object((*tool.input_schema).clone())))
        })
        .collect();
    eprintln!(
        "conformance-client: {} tools hosted: {:?}",
        tools.len(),
        tools.iter().map(|(name, _)| name).collect::<Vec<_>>()
    );
    let calls: Vec<(String, Value)> = if let Some(listed) = context["toolCalls"].as_array() {
        listed
            .iter()
            .filter_map(|call| {
                let name = call["name"].as_str()?.to_owned();
                Some((name, call.get("arguments").cloned().unwrap_or(json!({}))))
            })
            .collect()
    } else {
        match scenario {
            // Listing is the whole scenario: the schema's network `$ref` must not be fetched.
            "json-schema-ref-no-deref" => Vec::new(),
            // The focal tool's schema as the host shows it, passed back verbatim.
            "json-schema-2020-12-preservation" => tools
                .iter()
                .filter(|(name, _)| name != "json_schema_echo")
                .map(|(_, schema)| ("json_schema_echo".to_owned(), json!({ "schema": schema })))
                .take(1)
                .collect(),
            _ => tools
                .iter()
                .map(|(name, schema)| (name.clone(), arguments_for(schema)))
                .collect(),
        }
    };
    for (name, args) in calls {
        let qualified = format!("{prefix}{name}");
        let mut params = CallToolRequestParams::new(qualified.clone());
        if let Value::Object(args) = args {
            params = params.with_arguments(args);
        }
        match bridge.call_tool(params).await {
            Ok(result) => eprintln!(
                "conformance-client: {qualified} → {}{}",
                if result.is_error == Some(true) {
                    "error: "
                } else {
                    ""
                },
                text_of(&result)
            ),
            Err(err) => eprintln!("conformance-client: {qualified} failed: {err}"),
        }
    }
    Ok(())
}

/// Arguments an agent would send: `a: 2, b: 3` for the suite's adders (as its reference client
/// sends), else a plain value for each required property.
fn arguments_for(schema: &Value) -> Value {
    let mut args = serde_json::Map::new();
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let value = match schema
            .pointer(&format!("/properties/{name}/type"))
            .and_then(Value::as_str)
        {
            Some("integer" | "number") => json!(if name == "a" { 2 } else { 3 }),
            Some("boolean") => json!(true),
            Some("string") => json!("test"),
            _ => continue,
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

/// Waits until the bridge's health shows the hosted server online.
async fn wait_online(bridge: &Bridge) -> Result<(), String> {
    let started = Instant::now();
    loop {
        let health = health(bridge).await?;
        let server = health["hosted"]["servers"]
            .as_array()
            .and_then(|servers| servers.iter().find(|s| s["id"] == SERVER).cloned());
        if server.as_ref().is_some_and(|s| s["state"] == "online") {
            return Ok(());
        }
        if started.elapsed() > ONLINE_WITHIN {
            return Err(format!(
                "the hosted server did not come online within {ONLINE_WITHIN:?}: {}",
                server.unwrap_or(Value::Null)
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The bridge's `nexus://health` resource.
async fn health(bridge: &Bridge) -> Result<Value, String> {
    let result = bridge
        .read_resource(ReadResourceRequestParams::new("nexus://health"))
        .await
        .map_err(|err| format!("resources/read nexus://health: {err}"))?;
    match result.contents.first() {
        Some(ResourceContents::TextResourceContents { text, .. }) => {
            serde_json::from_str(text).map_err(|err| format!("health is not JSON: {err}"))
        }
        other => Err(format!("health is not text: {other:?}")),
    }
}
