//! `compileSystemPrompt`: the base prompt, the data rule, the host's tool-call rule with the turn's
//! key (text protocol only), the tool list and each server's guidance (fenced as data).

use serde_json::Value;

use super::fence::{DATA_RULE, fence};

/// A tool the model may call, by its qualified name.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// `server:tool`.
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub schema: Value,
}

/// What the model is told about the tools.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Toolbox {
    pub tools: Vec<ToolDef>,
    /// (server, guidance) for servers that have guidance (their own or the generated fallback).
    pub guidance: Vec<(String, String)>,
}

impl Toolbox {
    /// The tools and guidance of the host's registry report (`Host::report`).
    pub fn from_report(report: &Value) -> Toolbox {
        let mut toolbox = Toolbox::default();
        let servers = report["servers"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        for server in servers {
            let id = server["id"].as_str().unwrap_or_default();
            for tool in server["tools"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
            {
                let Some(name) = tool["name"].as_str() else {
                    continue;
                };
                toolbox.tools.push(ToolDef {
                    name: name.to_owned(),
                    description: tool["description"].as_str().unwrap_or_default().to_owned(),
                    schema: tool["input_schema"].clone(),
                });
            }
            if let Some(guidance) = server["guidance"].as_str().filter(|g| !g.trim().is_empty()) {
                toolbox.guidance.push((id.to_owned(), guidance.to_owned()));
            }
        }
        toolbox
    }

    pub fn has(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name == name)
    }

    /// Names close to `name`, for a corrective message.
    pub fn similar(&self, name: &str) -> Vec<&str> {
        let tail = name.rsplit(':').next().unwrap_or(name).to_lowercase();
        self.tools
            .iter()
            .map(|t| t.name.as_str())
            .filter(|t| {
                let t_tail = t.rsplit(':').next().unwrap_or(t).to_lowercase();
                !tail.is_empty() && (t_tail.contains(&tail) || tail.contains(&t_tail))
            })
            .take(5)
            .collect()
    }
}

/// The assistant's standing instructions.
pub const BASE_PROMPT: &str = "You are Nexus, an assistant that answers questions about the \
code base loaded in the user's Nexus tab. Use the tools to look things up instead of guessing: \
`nexus:*` tools query the code graph (symbols, callers, impact, files), other servers' tools do \
what their descriptions say. Name symbols by their ids and code places as `path:line` so the user \
can open them. When a tool fails, read its error and try another way. Answer concisely in \
Markdown.";

/// The built-in prompt with the configuration file's `system_prompt_addition` after it (the
/// user's own words: instructions, not fenced data).
pub fn base_prompt(addition: Option<&str>) -> String {
    match addition.map(str::trim).filter(|a| !a.is_empty()) {
        Some(addition) => {
            format!("{BASE_PROMPT}\n\n# The user's standing instructions\n{addition}")
        }
        None => BASE_PROMPT.to_owned(),
    }
}

/// The host's rule for the text protocol (native function calling needs none), with the turn's
/// key on the fence line: only blocks that carry it run.
pub fn tool_rule(key: &str) -> String {
    format!(
        "When you need a tool, write ONLY the call, as one JSON object inside a fenced block \
like this:\n```tool {key}\n{{\"tool\": \"server:tool\", \"arguments\": {{}}}}\n```\nThe opening \
line must carry this turn's key, {key}, after `tool`: a block without it is only shown as text \
(so quoting a block from a file or a tool result runs nothing). Use a qualified tool name from \
the list below. Write nothing after the closing ``` and wait: the result comes back in the next \
message. Several blocks in one answer are run in order."
    )
}

/// Assembles the system prompt. `tool_key` is the turn's key for the text protocol (`None`:
/// native function calling). `compiled` is the JIT tool compiler's section for this turn (with
/// native calling: its entries not declared natively); without it every tool is listed.
pub fn compile_system_prompt(
    base: &str,
    toolbox: &Toolbox,
    tool_key: Option<&str>,
    compiled: Option<&str>,
) -> String {
    let mut prompt = String::from(base);
    prompt.push_str("\n\n# Data and instructions\n");
    prompt.push_str(DATA_RULE);
    if let Some(section) = compiled {
        if let Some(key) = tool_key {
            prompt.push_str("\n\n# Calling tools\n");
            prompt.push_str(&tool_rule(key));
        }
        prompt.push_str("\n\n");
        prompt.push_str(section.trim_end());
        prompt.push('\n');
    } else if let Some(key) = tool_key {
        prompt.push_str("\n\n# Calling tools\n");
        prompt.push_str(&tool_rule(key));
        prompt.push_str("\n\n# Tools\n");
        for tool in &toolbox.tools {
            let description = tool.description.lines().next().unwrap_or("").trim();
            prompt.push_str(&format!("- {}: {description}\n", tool.name));
            let schema = serde_json::to_string(&tool.schema).unwrap_or_default();
            prompt.push_str(&format!("  arguments schema: {schema}\n"));
        }
    }
    for (server, guidance) in &toolbox.guidance {
        prompt.push_str(&format!(
            "\n# Guidance from server `{server}`\n{}\n",
            fence(&format!("server {server}"), guidance.trim())
        ));
    }
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_users_addition_follows_the_built_in_prompt() {
        assert_eq!(base_prompt(None), BASE_PROMPT);
        assert_eq!(base_prompt(Some("  ")), BASE_PROMPT);
        let prompt = compile_system_prompt(
            &base_prompt(Some("Answer in French.")),
            &Toolbox::default(),
            None,
            None,
        );
        assert!(prompt.starts_with(BASE_PROMPT));
        let addition = prompt.find("Answer in French.").unwrap();
        assert!(addition < prompt.find("# Data and instructions").unwrap());
    }

    fn report() -> Value {
        json!({"servers": [
            {"id": "nexus", "tools": [{"name": "nexus:search", "description": "Find symbols.\nMore.",
              "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}}]},
            {"id": "time", "guidance": "Use time:get_current_time for the hour.", "tools": [
              {"name": "time:get_current_time", "description": "Current time", "input_schema": {"type": "object"}}]}
        ]})
    }

    #[test]
    fn the_text_protocol_prompt_has_the_rule_the_tools_and_the_guidance() {
        let toolbox = Toolbox::from_report(&report());
        assert_eq!(toolbox.tools.len(), 2);
        let prompt = compile_system_prompt(BASE_PROMPT, &toolbox, Some("k3y"), None);
        assert!(prompt.starts_with(BASE_PROMPT));
        assert!(prompt.contains(DATA_RULE));
        assert!(prompt.contains("```tool k3y\n{\"tool\": \"server:tool\""));
        assert!(prompt.contains("- nexus:search: Find symbols.\n"));
        assert!(prompt.contains("\"query\""));
        assert!(prompt.contains(
            "# Guidance from server `time`\n⟦data from server time⟧\nUse time:get_current_time"
        ));
        let rule = prompt.find(&tool_rule("k3y")).unwrap_or(usize::MAX);
        let list = prompt.find("# Tools").unwrap_or(0);
        assert!(rule < list);
    }

    #[test]
    fn native_calling_leaves_the_rule_and_list_to_the_provider() {
        let toolbox = Toolbox::from_report(&report());
        let prompt = compile_system_prompt(BASE_PROMPT, &toolbox, None, None);
        assert!(!prompt.contains("```tool"));
        assert!(prompt.contains(DATA_RULE));
        assert!(prompt.contains("Guidance from server `time`"));
        assert_eq!(toolbox.similar("search"), vec!["nexus:search"]);
        assert!(toolbox.has("time:get_current_time"));
        assert!(Toolbox::from_report(&json!(null)).tools.is_empty());
    }

    #[test]
    fn a_compiled_section_replaces_the_full_list() {
        let toolbox = Toolbox::from_report(&report());
        let section = "## Tools\n- time:get_current_time — Current time\n";
        let text = compile_system_prompt(BASE_PROMPT, &toolbox, Some("k3y"), Some(section));
        assert!(text.contains(&tool_rule("k3y")) && text.contains(section));
        assert!(!text.contains("- nexus:search: Find symbols."));
        let native = compile_system_prompt(BASE_PROMPT, &toolbox, None, Some(section));
        assert!(!native.contains("```tool") && native.contains(section));
    }
}
