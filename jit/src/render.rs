//! The tools' prompt text in each tier (full: description, schema, an example; condensed:
//! name and one line; minimal: name) and the token estimate the budget counts.

use serde_json::{Map, Value};

use crate::tool::{ServerStatus, ToolInfo};

/// The section's first lines, before any tool.
pub const HEADER: &str = "## Tools\nFull entries show their arguments. Before using a condensed or name-only tool, expand it: call the tool `expand` with {\"tool\": \"server:name\"} and you get its full entry.\n";

/// What the tool search says of itself to the model.
pub const SEARCH_DESCRIPTION: &str = "Find tools by what they do, when none shown fits the request: returns the best few in full, and they become callable.";

/// The tool search's entry: always in full, after the header.
pub fn search_entry() -> String {
    format!(
        "### {}\n{SEARCH_DESCRIPTION}\nArguments: {}\nExample: {{\"query\": \"send an email to a contact\"}}\n",
        crate::compile::FIND_TOOLS,
        search_schema()
    )
}

/// The tool search's arguments.
pub fn search_schema() -> Value {
    serde_json::json!({"type": "object", "required": ["query"], "properties": {
        "query": {"type": "string", "description": "what the tool should do, in a few words"}}})
}

/// Estimated tokens of `text`: one per four bytes, rounded up (the tools' own budget rule).
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

fn offline_mark(tool: &ToolInfo) -> &'static str {
    match tool.status {
        ServerStatus::Online => "",
        ServerStatus::Offline => " (offline: calls fail until its server reconnects)",
    }
}

/// The full entry: name, description, argument schema and one example call.
pub fn full(tool: &ToolInfo) -> String {
    let schema = Value::Object(tool.input_schema.clone());
    let example = Value::Object(example_args(&tool.input_schema));
    format!(
        "### {}{}\n{}\nArguments: {}\nExample: {}\n",
        tool.id(),
        offline_mark(tool),
        tool.description.trim(),
        schema,
        example
    )
}

/// The condensed entry: name and the analysed one-line description.
pub fn condensed(tool: &ToolInfo, line: &str) -> String {
    format!("- {}{} — {}\n", tool.id(), offline_mark(tool), line)
}

/// The minimal entry: the name alone.
pub fn minimal(tool: &ToolInfo) -> String {
    format!("- {}{}\n", tool.id(), offline_mark(tool))
}

/// Example arguments from a schema: each required property (all of them when none is
/// required) with its default, first enum value, or a placeholder of its type.
pub fn example_args(schema: &Map<String, Value>) -> Map<String, Value> {
    let Some(Value::Object(props)) = schema.get("properties") else {
        return Map::new();
    };
    let required: Vec<&str> = match schema.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    props
        .iter()
        .filter(|(name, _)| required.is_empty() || required.contains(&name.as_str()))
        .map(|(name, prop)| (name.clone(), placeholder(name, prop)))
        .collect()
}

fn placeholder(name: &str, prop: &Value) -> Value {
    if let Some(v) = prop.get("default") {
        return v.clone();
    }
    if let Some(first) = prop
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    let kind = match prop.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or(""),
        _ => "",
    };
    match kind {
        "integer" | "number" => Value::from(1),
        "boolean" => Value::Bool(true),
        "array" => Value::Array(Vec::new()),
        "object" => Value::Object(Map::new()),
        _ => Value::String(format!("<{name}>")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn examples_fill_required_arguments_by_type() {
        let schema = json!({"type": "object", "required": ["path", "depth"], "properties": {
            "path": {"type": "string"}, "depth": {"type": "integer"},
            "mode": {"enum": ["plan", "execute"]}}});
        let Value::Object(schema) = schema else {
            return;
        };
        assert_eq!(
            Value::Object(example_args(&schema)),
            json!({"path": "<path>", "depth": 1})
        );
    }

    #[test]
    fn offline_tools_are_marked_in_every_form() {
        let tool = ToolInfo {
            server: "fs".into(),
            name: "read_file".into(),
            description: "Read a file.".into(),
            input_schema: Map::new(),
            status: ServerStatus::Offline,
        };
        for text in [
            full(&tool),
            condensed(&tool, "Read a file."),
            minimal(&tool),
        ] {
            assert!(text.contains("fs:read_file (offline"), "{text}");
        }
        assert_eq!(estimate_tokens("abcde"), 2);
    }
}
