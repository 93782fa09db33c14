//! Which hosted tools run unasked, need the user's confirmation or never run: `allow` / `confirm`
//! / `deny` glob lists in `mcp.json` (per server and top level) over the tools' MCP annotations.
//!
//! Precedence, most specific first:
//! 1. the server entry's lists (patterns over the server's own tool names, `write_*`),
//! 2. the top-level lists (patterns over qualified `server:tool` names, `fs:*`, `*:delete_*`),
//! 3. the default: Nexus's own tools and tools annotated `readOnlyHint: true` run, any other
//!    tool needs confirmation.
//!
//! Within one level a pattern without wildcards (a tool's exact name) beats a glob, and among
//! equally specific matches `deny` beats `confirm` beats `allow`.

use globset::{Glob, GlobMatcher};
use serde_json::{Map, Value};

use super::config::NEXUS_SERVER;

/// What may happen when a tool is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// Runs at once.
    Allow,
    /// Runs only after the user says so (the chat's chip, an MCP client's elicitation).
    Confirm,
    /// Never runs; hidden from the model and from MCP clients.
    Deny,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Confirm => "confirm",
            Action::Deny => "deny",
        }
    }

    const LISTS: [Action; 3] = [Action::Allow, Action::Confirm, Action::Deny];
}

/// One pattern of a list, as written and compiled.
#[derive(Debug, Clone)]
struct Pattern {
    text: String,
    matcher: GlobMatcher,
    /// No wildcard: it names one tool.
    exact: bool,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Pattern {}

/// The `allow`, `confirm` and `deny` lists of one level (a server entry or the top level).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    allow: Vec<Pattern>,
    confirm: Vec<Pattern>,
    deny: Vec<Pattern>,
}

impl Rules {
    /// Reads the optional `allow`, `confirm` and `deny` arrays of `map`; errors start with `at`.
    pub fn read(at: &str, map: &Map<String, Value>) -> Result<Rules, String> {
        let mut rules = Rules::default();
        for action in Action::LISTS {
            let field = action.as_str();
            let Some(value) = map.get(field) else {
                continue;
            };
            let Value::Array(items) = value else {
                return Err(format!(
                    "{at}: field `{field}` must be an array of glob patterns"
                ));
            };
            let mut patterns = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let Value::String(text) = item else {
                    return Err(format!("{at}: field `{field}[{i}]` must be a string"));
                };
                let glob = Glob::new(text).map_err(|err| {
                    format!("{at}: field `{field}[{i}]`: `{text}` is not a glob pattern: {err}")
                })?;
                patterns.push(Pattern {
                    text: text.clone(),
                    matcher: glob.compile_matcher(),
                    exact: !text.contains(['*', '?', '[', '{']),
                });
            }
            *rules.list_mut(action) = patterns;
        }
        Ok(rules)
    }

    fn list(&self, action: Action) -> &[Pattern] {
        match action {
            Action::Allow => &self.allow,
            Action::Confirm => &self.confirm,
            Action::Deny => &self.deny,
        }
    }

    fn list_mut(&mut self, action: Action) -> &mut Vec<Pattern> {
        match action {
            Action::Allow => &mut self.allow,
            Action::Confirm => &mut self.confirm,
            Action::Deny => &mut self.deny,
        }
    }

    /// The most specific match for `name`: exact names first, then globs; `deny` before
    /// `confirm` before `allow` among equals.
    fn matching(&self, name: &str) -> Option<(Action, &str)> {
        for exact in [true, false] {
            for action in Action::LISTS.into_iter().rev() {
                if let Some(pattern) = self
                    .list(action)
                    .iter()
                    .find(|p| p.exact == exact && p.matcher.is_match(name))
                {
                    return Some((action, &pattern.text));
                }
            }
        }
        None
    }
}

/// Where a tool's action comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// `servers.<server>.<list>` has `pattern`.
    Server { list: Action, pattern: String },
    /// The top-level `<list>` has `pattern`.
    Top { list: Action, pattern: String },
    /// One of Nexus's own tools (all read the graph only).
    Nexus,
    /// The server marks it `readOnlyHint: true`.
    ReadOnly,
    /// The server does not mark it read-only.
    NotReadOnly,
}

/// A tool's action and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub action: Action,
    pub reason: Reason,
}

impl Verdict {
    /// Why, in words (`mcp.json`'s setting, or the annotation default).
    pub fn explain(&self, server: &str) -> String {
        match &self.reason {
            Reason::Server { list, pattern } => format!(
                "`{pattern}` in `{}` of server `{server}` in mcp.json",
                list.as_str()
            ),
            Reason::Top { list, pattern } => {
                format!(
                    "`{pattern}` in the top-level `{}` of mcp.json",
                    list.as_str()
                )
            }
            Reason::Nexus => "Nexus's own tools only read the code graph".into(),
            Reason::ReadOnly => "the server marks it read-only (readOnlyHint)".into(),
            Reason::NotReadOnly => "the server does not mark it read-only (readOnlyHint)".into(),
        }
    }
}

/// The action for `server:tool` (`read_only` is the tool's `readOnlyHint`).
pub fn decide(
    top: &Rules,
    server_rules: Option<&Rules>,
    server: &str,
    tool: &str,
    read_only: Option<bool>,
) -> Verdict {
    if let Some((list, pattern)) = server_rules.and_then(|rules| rules.matching(tool)) {
        return Verdict {
            action: list,
            reason: Reason::Server {
                list,
                pattern: pattern.to_owned(),
            },
        };
    }
    if let Some((list, pattern)) = top.matching(&format!("{server}:{tool}")) {
        return Verdict {
            action: list,
            reason: Reason::Top {
                list,
                pattern: pattern.to_owned(),
            },
        };
    }
    if server == NEXUS_SERVER {
        Verdict {
            action: Action::Allow,
            reason: Reason::Nexus,
        }
    } else if read_only == Some(true) {
        Verdict {
            action: Action::Allow,
            reason: Reason::ReadOnly,
        }
    } else {
        Verdict {
            action: Action::Confirm,
            reason: Reason::NotReadOnly,
        }
    }
}

/// The setting that lets `server:tool` run unasked, for refusals (`config` is the file's path).
pub fn how_to_allow(server: &str, tool: &str, config: Option<&str>) -> String {
    let file = config.unwrap_or("mcp.json");
    format!("add \"{tool}\" to `allow` of server `{server}` in {file}")
}

/// The registry report (`Host::report`) without denied tools: what a model or an MCP client may
/// see.
pub fn without_denied(report: &mut Value) {
    let Some(servers) = report["servers"].as_array_mut() else {
        return;
    };
    for server in servers {
        let Some(tools) = server["tools"].as_array_mut() else {
            continue;
        };
        tools.retain(|tool| tool["policy"] != Action::Deny.as_str());
        server["tool_count"] = tools.len().into();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(value: Value) -> Rules {
        let Value::Object(map) = value else {
            panic!("an object");
        };
        Rules::read("here", &map).expect("valid rules")
    }

    fn action(top: &Rules, server: Option<&Rules>, name: &str, read_only: Option<bool>) -> Action {
        let (server_id, tool) = name.split_once(':').unwrap_or(("fs", name));
        decide(top, server, server_id, tool, read_only).action
    }

    #[test]
    fn annotations_decide_when_no_list_matches() {
        let none = Rules::default();
        assert_eq!(
            action(&none, None, "fs:read_file", Some(true)),
            Action::Allow
        );
        assert_eq!(
            action(&none, None, "fs:write_file", Some(false)),
            Action::Confirm
        );
        // No annotation at all: treated as possibly side-effecting.
        assert_eq!(action(&none, None, "fs:mystery", None), Action::Confirm);
        // Nexus's own tools only read.
        let nexus = decide(&none, None, "nexus", "search", None);
        assert_eq!((nexus.action, nexus.reason), (Action::Allow, Reason::Nexus));
    }

    #[test]
    fn deny_beats_confirm_beats_allow_among_equals() {
        let server = rules(json!({"allow": ["*"], "confirm": ["*_file"], "deny": ["write_*"]}));
        let top = Rules::default();
        assert_eq!(
            action(&top, Some(&server), "fs:write_file", Some(true)),
            Action::Deny
        );
        assert_eq!(
            action(&top, Some(&server), "fs:read_file", Some(true)),
            Action::Confirm
        );
        assert_eq!(
            action(&top, Some(&server), "fs:list", Some(false)),
            Action::Allow
        );
    }

    #[test]
    fn an_exact_name_beats_a_glob_and_the_server_beats_the_top_level() {
        let server = rules(json!({"deny": ["*"], "allow": ["read_file"]}));
        let top = rules(json!({"deny": ["fs:read_file"], "allow": ["*:search_*"]}));
        assert_eq!(
            action(&top, Some(&server), "fs:read_file", None),
            Action::Allow
        );
        assert_eq!(
            action(&top, Some(&server), "fs:write_file", None),
            Action::Deny
        );
        // No server list matches: the top level decides, over the annotation.
        assert_eq!(action(&top, None, "fs:read_file", Some(true)), Action::Deny);
        assert_eq!(action(&top, None, "web:search_docs", None), Action::Allow);
        // The top level reaches Nexus's own tools too.
        let deny_nexus = rules(json!({"deny": ["nexus:*"]}));
        assert_eq!(
            action(&deny_nexus, None, "nexus:search", None),
            Action::Deny
        );
        let verdict = decide(&top, Some(&server), "fs", "write_file", None);
        assert_eq!(
            verdict.explain("fs"),
            "`*` in `deny` of server `fs` in mcp.json"
        );
        let verdict = decide(&top, None, "fs", "read_file", None);
        assert_eq!(
            verdict.explain("fs"),
            "`fs:read_file` in the top-level `deny` of mcp.json"
        );
    }

    #[test]
    fn globs_cover_classes_and_alternatives() {
        let server = rules(json!({"allow": ["get_?", "{list,read}_*", "[ab]x"]}));
        let top = Rules::default();
        for (name, expected) in [
            ("get_a", Action::Allow),
            ("get_ab", Action::Confirm),
            ("list_dir", Action::Allow),
            ("read_text", Action::Allow),
            ("bx", Action::Allow),
            ("cx", Action::Confirm),
        ] {
            assert_eq!(action(&top, Some(&server), name, None), expected, "{name}");
        }
    }

    #[test]
    fn bad_lists_are_named() {
        for (value, expected) in [
            (json!({"allow": "x"}), "field `allow` must be an array"),
            (json!({"deny": [1]}), "field `deny[0]` must be a string"),
            (
                json!({"confirm": ["a", "[z"]}),
                "field `confirm[1]`: `[z` is not a glob",
            ),
        ] {
            let Value::Object(map) = value else {
                panic!("object")
            };
            let err = Rules::read("at", &map).expect_err("invalid");
            assert!(err.starts_with("at: ") && err.contains(expected), "{err}");
        }
    }

    #[test]
    fn denied_tools_leave_the_report() {
        let mut report = json!({"servers": [{"id": "fs", "tool_count": 2, "tools": [
            {"name": "fs:a", "policy": "allow"}, {"name": "fs:b", "policy": "deny"}]}]});
        without_denied(&mut report);
        assert_eq!(
            report["servers"][0]["tools"].as_array().map(Vec::len),
            Some(1)
        );
        assert_eq!(report["servers"][0]["tool_count"], 1);
        assert_eq!(
            how_to_allow("fs", "write_file", Some("/c/mcp.json")),
            "add \"write_file\" to `allow` of server `fs` in /c/mcp.json"
        );
    }
}
