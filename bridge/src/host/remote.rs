//! Hosted tools seen from a peer: the hub's registry (as `Hosted` sends it) turned into the MCP
//! tools a peer exposes as `server__tool`, and a `HostedResult` turned back into an MCP result.

use nexus_shared::Outcome;
use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::Value;

use super::config::NEXUS_SERVER;
use super::exposed_name;
use super::policy::Action;

/// An exposed tool's policy as the hub's registry states it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteGate {
    /// `server:tool`.
    pub qualified: String,
    pub action: Action,
    pub why: String,
    pub destructive: bool,
}

/// Every hosted tool of the registry that is not denied, as (its policy, MCP tool named
/// `server__tool`).
fn tools(registry: &Value) -> Vec<(RemoteGate, Tool)> {
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
            // A registry without a policy (an older hub) asks before anything runs.
            let action = match tool["policy"].as_str() {
                Some("allow") => Action::Allow,
                Some("deny") => continue,
                _ => Action::Confirm,
            };
            let schema = match &tool["input_schema"] {
                Value::Object(schema) => schema.clone(),
                _ => serde_json::Map::new(),
            };
            let mut description = tool["description"].as_str().unwrap_or("").to_owned();
            if !online {
                description = format!("[offline: server `{id}`] {description}");
            }
            let gate = RemoteGate {
                qualified: format!("{id}:{name}"),
                action,
                why: tool["policy_reason"]
                    .as_str()
                    .unwrap_or("the hub states no policy")
                    .to_owned(),
                destructive: tool["destructive"].as_bool().unwrap_or(true),
            };
            out.push((gate, Tool::new(exposed, description, schema)));
        }
    }
    out
}

/// The MCP tools a peer exposes for the hub's hosted registry.
pub fn exposed_tools(registry: &Value) -> Vec<Tool> {
    tools(registry).into_iter().map(|(_, tool)| tool).collect()
}

/// `server__tool` back to `server:tool` and its policy, when the registry has it (and does
/// not deny it).
pub fn gatekeeping(registry: &Value, exposed: &str) -> Option<RemoteGate> {
    tools(registry)
        .into_iter()
        .find(|(_, tool)| tool.name == exposed)
        .map(|(gate, _)| gate)
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
                {"name": "fs:read", "description": "Reads.", "input_schema": {"type": "object"},
                 "policy": "allow", "destructive": false},
                {"name": "fs:bad name", "description": "", "input_schema": {}},
                {"name": "fs:wipe", "description": "", "policy": "deny"}
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
        let web = gatekeeping(&registry, "web__get").expect("web:get is exposed");
        assert_eq!(web.qualified, "web:get");
        // No policy stated: it asks first, and may destroy data.
        assert_eq!((web.action, web.destructive), (Action::Confirm, true));
        let read = gatekeeping(&registry, "fs__read").expect("fs:read is exposed");
        assert_eq!((read.action, read.destructive), (Action::Allow, false));
        assert_eq!(gatekeeping(&registry, "fs__wipe"), None);
        assert_eq!(gatekeeping(&registry, "nexus__search"), None);
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
