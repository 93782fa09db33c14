//! A tool as the compiler sees it: its server, name, description, input schema and whether
//! its server is online; and the key its analysis is stored under (server, name, schema hash).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Whether a tool's server is connected. Offline tools stay selectable and are marked so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerStatus {
    /// Connected: calls go through.
    #[default]
    Online,
    /// Disconnected: the tool is cached; calling it fails with a clear error.
    Offline,
}

/// One tool of the registry (Nexus's own under server `nexus`, hosted ones under theirs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// The server's name in the registry.
    pub server: String,
    /// The tool's name on its server.
    pub name: String,
    /// The server's description of the tool.
    #[serde(default)]
    pub description: String,
    /// The JSON schema of the tool's arguments.
    #[serde(default, rename = "inputSchema")]
    pub input_schema: Map<String, Value>,
    /// Whether the server is connected.
    #[serde(default)]
    pub status: ServerStatus,
}

impl ToolInfo {
    /// The registry id, `server:name`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.server, self.name)
    }

    /// The key its analysis is stored under.
    pub fn key(&self) -> ToolKey {
        ToolKey {
            server: self.server.clone(),
            name: self.name.clone(),
            schema_hash: schema_hash(&self.description, &self.input_schema),
        }
    }

    /// Nexus's 17 tools from the shared catalog, under server `nexus`, online.
    pub fn nexus_catalog() -> Vec<ToolInfo> {
        nexus_shared::ToolName::ALL
            .iter()
            .map(|tool| ToolInfo {
                server: "nexus".into(),
                name: tool.as_str().into(),
                description: tool.description().into(),
                input_schema: tool.input_schema(),
                status: ServerStatus::Online,
            })
            .collect()
    }
}

/// What an analysis is stored under: a changed description or schema makes it stale.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolKey {
    /// The server's name.
    pub server: String,
    /// The tool's name.
    pub name: String,
    /// SHA-256 (hex) of the description and the schema's canonical JSON.
    pub schema_hash: String,
}

/// SHA-256 of the description and the schema. `serde_json` keeps object keys sorted (no
/// `preserve_order` feature here), so equal schemas hash equally whatever order they came in.
pub fn schema_hash(description: &str, schema: &Map<String, Value>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(description.as_bytes());
    hasher.update([0u8]);
    hasher.update(Value::Object(schema.clone()).to_string().as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn the_hash_follows_the_schema_not_its_key_order() {
        let a = schema(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        let b = schema(json!({"properties": {"a": {"type": "string"}}, "type": "object"}));
        let c = schema(json!({"type": "object", "properties": {"a": {"type": "number"}}}));
        assert_eq!(schema_hash("d", &a), schema_hash("d", &b));
        assert_ne!(schema_hash("d", &a), schema_hash("d", &c));
        assert_ne!(schema_hash("d", &a), schema_hash("e", &a));
    }

    #[test]
    fn nexus_catalog_has_the_seventeen() {
        let tools = ToolInfo::nexus_catalog();
        assert_eq!(tools.len(), 17);
        assert!(tools.iter().any(|t| t.id() == "nexus:route"));
    }
}
