//! Hosted tools seen from a peer: the hub's registry (as `Hosted` sends it) turned into the MCP
//! tools a peer exposes as `server__tool`, and a `HostedResult` turned back into an MCP result.

use nexus_shared::Outcome;
use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::Value;

use super::config::NEXUS_SERVER;
use super::exposed_name;

/// Every hosted tool of the registry, as `(server:tool, MCP tool named server__tool)`.
fn tools(registry: &Value) -> Vec<(String, Tool)> {
    let mut out = Vec::new();
    let servers = registry["servers"].as_array().cloned().unwrap_or_default();
    for server in servers.iter().filter(|s| s["id"] != NEXUS_SERVER) {
        let online = server["state"] == "online";
        for tool in server["tools"].as_array().into_iter().flatten() {
            let Some((id, name)) = tool["name"].as_str().and_then(|n| n.split_once(':')) else {
                continue;
            };
            let Some(exposed) = exposed_name(id, name) else {
                continue;
            };
            let schema = match &tool["input_schema"] {
                Value::Object(schema) => schema.clone(),
                _ => serde_json::Map::new(),
            };
            let mut description = tool["description"].as_str().unwrap_or("").to_owned();
            if !online {
                description = format!("[offline: server `{id}`] {description}");
            }
            out.push((
                format!("{id}:{name}"),
                Tool::new(exposed, description, schema),
            ));
        }
    }
    out
}

/// The MCP tools a peer exposes for the hub's hosted registry.
pub fn exposed_tools(registry: &Value) -> Vec<Tool> {
    tools(registry).into_iter().map(|(_, tool)| tool).collect()
}

/// `server__tool` back to `server:tool`, when the registry has it.
pub fn qualified(registry: &Value, exposed: &str) -> Option<String> {
    tools(registry)
        .into_iter()
        .find(|(_, tool)| tool.name == exposed)
        .map(|(qualified, _)| qualified)
}

/// A `HostedResult` as the MCP result the server gave (errors as `isError` results).
pub fn result(outcome: Outcome) -> CallToolResult {
    match outcome {
        Outcome::Ok(output) => serde_json::from_str(&output.text)
            .unwrap_or_else(|_| CallToolResult::success(vec![ContentBlock::text(output.text)])),
        Outcome::Err(err) => CallToolResult::error(vec![ContentBlock::text(err.render())]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nexus_shared::{ErrorCode, ToolError, ToolOutput};
    use serde_json::json;

    #[test]
    fn the_hubs_registry_becomes_exposed_tools_and_back() {
        let registry = json!({"servers": [
            {"id": "nexus", "state": "online", "tools": [{"name": "nexus:search"}]},
            {"id": "fs", "state": "online", "tools": [
                {"name": "fs:read", "description": "Reads.", "input_schema": {"type": "object"}},
                {"name": "fs:bad name", "description": "", "input_schema": {}}
            ]},
            {"id": "web", "state": "reconnecting", "tools": [{"name": "web:get", "description": "Gets."}]}
        ]});
        let tools = exposed_tools(&registry);
        let names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, ["fs__read", "web__get"]);
        assert_eq!(tools[0].description.as_deref(), Some("Reads."));
        assert!(
            tools[1]
                .description
                .as_deref()
                .unwrap_or("")
                .starts_with("[offline")
        );
        assert_eq!(qualified(&registry, "web__get").as_deref(), Some("web:get"));
        assert_eq!(qualified(&registry, "nexus__search"), None);
        assert!(exposed_tools(&json!(null)).is_empty());
    }

    #[test]
    fn hosted_results_become_mcp_results() {
        let ok = CallToolResult::success(vec![ContentBlock::text("hi")]);
        let text = serde_json::to_string(&ok).unwrap_or_default();
        assert_eq!(result(Outcome::Ok(ToolOutput { text })), ok);
        let err = result(Outcome::Err(ToolError::new(ErrorCode::Timeout, "slow")));
        assert_eq!(err.is_error, Some(true));
    }
}
