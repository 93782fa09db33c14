//! The hosted servers' configuration: an `mcp.json` in the spec's `servers` format or Claude
//! Desktop's `mcpServers` format, validated field by field, with `${VAR}` expanded in secrets.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use super::policy::Rules;

/// Per-call deadline of a hosted tool when the server sets no `timeoutMs`.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one server may take to start and answer `initialize`.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(30);
/// The server id Nexus's own tools have; no hosted server may take it.
pub const NEXUS_SERVER: &str = "nexus";

/// A value read from the configuration that may hold a secret: `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// How the bridge reaches one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP on its stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, Secret)>,
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        url: String,
        headers: Vec<(String, Secret)>,
    },
}

impl Transport {
    pub fn kind(&self) -> &'static str {
        match self {
            Transport::Stdio { .. } => "stdio",
            Transport::Http { .. } => "http",
        }
    }
}

/// One server to host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    pub id: String,
    pub transport: Transport,
    /// Per-call deadline of its tools (`timeoutMs`).
    pub timeout: Duration,
    /// Deadline of start-up and `initialize` (`startTimeoutMs`).
    pub start_timeout: Duration,
    /// Its `allow` / `confirm` / `deny` lists (patterns over its tool names).
    pub rules: Rules,
}

/// Circuit breaker thresholds (top-level `circuit` object; all optional).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CircuitPolicy {
    /// Failures within `window` that open a tool's circuit.
    pub failures: u32,
    pub window: Duration,
    /// How long an open circuit refuses calls before one trial goes through.
    pub cooldown: Duration,
}

impl Default for CircuitPolicy {
    fn default() -> Self {
        Self {
            failures: 5,
            window: Duration::from_secs(60),
            cooldown: Duration::from_secs(30),
        }
    }
}

/// A server entry that could not be used, with the reason naming file, server and field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub server: String,
    pub message: String,
}

/// A loaded configuration: the usable servers and the problems of the others.
#[derive(Debug, Clone, Default)]
pub struct HostConfig {
    pub path: PathBuf,
    pub servers: Vec<ServerSpec>,
    pub problems: Vec<Problem>,
    /// Offer hosted tools to the bridge's own MCP clients (`"expose": true`).
    pub expose: bool,
    pub circuit: CircuitPolicy,
    /// The top-level `allow` / `confirm` / `deny` lists (patterns over `server:tool`).
    pub rules: Rules,
}

/// The configuration file to read: `--mcp-config` / `MCP_JSON_PATH` if given, else
/// `<config dir>/nexus/mcp.json` when it exists.
pub fn locate(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(path) = explicit {
        return Some(path.to_path_buf());
    }
    let default = dirs::config_dir()?.join("nexus").join("mcp.json");
    default.is_file().then_some(default)
}

/// The configuration this process uses, if there is one (see [`locate`]); variables come from
/// the environment.
pub fn read(mcp_config: Option<&Path>) -> Option<Result<HostConfig, String>> {
    let path = locate(mcp_config)?;
    // Absolute, so relative commands and `cwd`s resolve against the file's folder.
    let path = std::path::absolute(&path).unwrap_or(path);
    let config = load(&path, &|name| std::env::var(name).ok());
    if let Ok(config) = &config {
        tracing::info!(
            servers = config.servers.len(),
            invalid = config.problems.len(),
            expose = config.expose,
            "MCP servers to host from {}",
            path.display()
        );
    }
    Some(config)
}

/// Reads and validates `path`. `Err` is a problem with the whole file; a bad server entry is
/// only listed in `problems`, and the others are kept.
pub fn load(path: &Path, lookup: &dyn Fn(&str) -> Option<String>) -> Result<HostConfig, String> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        format!(
            "{}: cannot read the MCP configuration: {err}",
            path.display()
        )
    })?;
    parse(path, &text, lookup)
}

/// Validates the text of a configuration file; see [`load`].
pub fn parse(
    path: &Path,
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<HostConfig, String> {
    let file = path.display().to_string();
    let root: Value = serde_json::from_str(text).map_err(|err| {
        format!(
            "{file}: not valid JSON at line {}, column {}: {err}",
            err.line(),
            err.column()
        )
    })?;
    let Value::Object(root) = root else {
        return Err(format!("{file}: the top level must be a JSON object"));
    };
    let (key, entries) = match (root.get("servers"), root.get("mcpServers")) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "{file}: has both `servers` and `mcpServers`; keep one"
            ));
        }
        (Some(servers), None) => ("servers", servers),
        (None, Some(servers)) => ("mcpServers", servers),
        (None, None) => {
            return Err(format!(
                "{file}: no `servers` (or Claude Desktop's `mcpServers`) object"
            ));
        }
    };
    let Value::Object(entries) = entries else {
        return Err(format!(
            "{file}: `{key}` must be an object keyed by server id"
        ));
    };
    let expose = match root.get("expose") {
        None => false,
        Some(Value::Bool(expose)) => *expose,
        Some(_) => return Err(format!("{file}: `expose` must be true or false")),
    };
    let circuit = circuit_policy(&file, root.get("circuit"))?;
    let rules = Rules::read(&file, &root)?;
    let mut config = HostConfig {
        path: path.to_path_buf(),
        expose,
        circuit,
        rules,
        ..HostConfig::default()
    };
    let base = path.parent().unwrap_or(Path::new(""));
    for (id, entry) in entries {
        let at = format!("{file}: server `{id}`");
        match server(&at, id, entry, base, lookup) {
            Ok(Some(spec)) => config.servers.push(spec),
            Ok(None) => tracing::info!(server = %id, "disabled in the MCP configuration"),
            Err(message) => config.problems.push(Problem {
                server: id.clone(),
                message,
            }),
        }
    }
    Ok(config)
}

fn circuit_policy(file: &str, value: Option<&Value>) -> Result<CircuitPolicy, String> {
    let mut policy = CircuitPolicy::default();
    let Some(value) = value else {
        return Ok(policy);
    };
    let Value::Object(map) = value else {
        return Err(format!("{file}: `circuit` must be an object"));
    };
    let at = format!("{file}: `circuit`");
    for (field, _) in map {
        if !matches!(field.as_str(), "failures" | "windowMs" | "cooldownMs") {
            return Err(format!(
                "{at}: unknown field `{field}` (expected failures, windowMs, cooldownMs)"
            ));
        }
    }
    if let Some(failures) = millis(&at, map, "failures")? {
        policy.failures = u32::try_from(failures.max(1)).unwrap_or(u32::MAX);
    }
    if let Some(window) = millis(&at, map, "windowMs")? {
        policy.window = Duration::from_millis(window);
    }
    if let Some(cooldown) = millis(&at, map, "cooldownMs")? {
        policy.cooldown = Duration::from_millis(cooldown);
    }
    Ok(policy)
}

/// A server id must make valid qualified (`id:tool`) and exposed (`id__tool`) names.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && !id.contains("__")
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn server(
    at: &str,
    id: &str,
    entry: &Value,
    base: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<ServerSpec>, String> {
    if !valid_id(id) {
        return Err(format!(
            "{at}: the id must be 1–64 letters, digits, `_` or `-` (no `__`)"
        ));
    }
    if id == NEXUS_SERVER {
        return Err(format!(
            "{at}: the id `{NEXUS_SERVER}` is Nexus's own tools; choose another"
        ));
    }
    let Value::Object(map) = entry else {
        return Err(format!("{at}: must be an object"));
    };
    const KNOWN: [&str; 15] = [
        "type",
        "transport",
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "timeoutMs",
        "startTimeoutMs",
        "disabled",
        "description",
        "allow",
        "confirm",
        "deny",
    ];
    if let Some(field) = map.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(format!(
            "{at}: unknown field `{field}` (expected one of {})",
            KNOWN.join(", ")
        ));
    }
    match map.get("disabled") {
        None | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => return Ok(None),
        Some(_) => return Err(format!("{at}: field `disabled` must be true or false")),
    }
    let kind = transport_kind(at, map)?;
    let transport = match kind {
        "stdio" => {
            if map.contains_key("url") || map.contains_key("headers") {
                return Err(format!(
                    "{at}: field `url`/`headers` belong to http servers, but this one is stdio"
                ));
            }
            let command = string(at, map, "command")?
                .ok_or_else(|| format!("{at}: field `command` is required for a stdio server"))?;
            if command.trim().is_empty() {
                return Err(format!("{at}: field `command` is empty"));
            }
            let args = match map.get("args") {
                None => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| match item {
                        Value::String(s) => Ok(s.clone()),
                        _ => Err(format!("{at}: field `args[{i}]` must be a string")),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(format!("{at}: field `args` must be an array of strings"));
                }
            };
            Transport::Stdio {
                command: beside_config(base, command),
                args,
                env: secrets(at, map, "env", lookup)?,
                cwd: string(at, map, "cwd")?.map(|cwd| base.join(cwd)),
            }
        }
        _ => {
            if map.contains_key("command") || map.contains_key("args") || map.contains_key("env") {
                return Err(format!(
                    "{at}: field `command`/`args`/`env` belong to stdio servers, but this one is http"
                ));
            }
            let url = string(at, map, "url")?
                .ok_or_else(|| format!("{at}: field `url` is required for an http server"))?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "{at}: field `url` must start with http:// or https://, got `{url}`"
                ));
            }
            Transport::Http {
                url,
                headers: secrets(at, map, "headers", lookup)?,
            }
        }
    };
    let timeout = millis(at, map, "timeoutMs")?
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_TOOL_TIMEOUT);
    let start_timeout = millis(at, map, "startTimeoutMs")?
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_START_TIMEOUT);
    let rules = Rules::read(at, map)?;
    Ok(Some(ServerSpec {
        id: id.to_owned(),
        transport,
        timeout,
        start_timeout,
        rules,
    }))
}

/// A command with a folder in it (`./server`, `bin/server`) names a file beside the config file;
/// a bare name (`npx`) is looked up on the server's `PATH`, an absolute path is kept.
fn beside_config(base: &Path, command: String) -> String {
    if command.contains('/') && !command.starts_with('/') {
        base.join(&command).display().to_string()
    } else {
        command
    }
}

/// `stdio` or `http`, from `transport`, or `type` (spec: local/remote; Claude Desktop: stdio,
/// http, streamable-http), or else from whether `command` or `url` is present.
fn transport_kind(at: &str, map: &Map<String, Value>) -> Result<&'static str, String> {
    let from = |field: &str, value: &str| -> Result<&'static str, String> {
        match value {
            "stdio" | "local" => Ok("stdio"),
            "http" | "streamable-http" | "streamableHttp" | "remote" => Ok("http"),
            "sse" => Err(format!(
                "{at}: field `{field}`: the legacy `sse` transport is not supported; use the server's streamable HTTP endpoint"
            )),
            other => Err(format!(
                "{at}: field `{field}` must be stdio or http (or local/remote), got `{other}`"
            )),
        }
    };
    let transport = match string(at, map, "transport")? {
        Some(value) => Some(from("transport", &value)?),
        None => None,
    };
    let kind = match string(at, map, "type")? {
        Some(value) => Some(from("type", &value)?),
        None => None,
    };
    match (transport, kind) {
        (Some(a), Some(b)) if a != b => Err(format!(
            "{at}: field `type` says {b} but `transport` says {a}"
        )),
        (Some(a), _) | (None, Some(a)) => Ok(a),
        (None, None) => match (map.contains_key("command"), map.contains_key("url")) {
            (true, false) => Ok("stdio"),
            (false, true) => Ok("http"),
            (true, true) => Err(format!(
                "{at}: has both `command` and `url`; set `transport` to stdio or http"
            )),
            (false, false) => Err(format!(
                "{at}: field `command` (stdio) or `url` (http) is required"
            )),
        },
    }
}

fn string(at: &str, map: &Map<String, Value>, field: &str) -> Result<Option<String>, String> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{at}: field `{field}` must be a string")),
    }
}

fn millis(at: &str, map: &Map<String, Value>, field: &str) -> Result<Option<u64>, String> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => match value.as_u64() {
            Some(ms) if ms > 0 => Ok(Some(ms)),
            _ => Err(format!(
                "{at}: field `{field}` must be a positive whole number, got {value}"
            )),
        },
    }
}

/// A string map whose values may name environment variables as `${VAR}`.
fn secrets(
    at: &str,
    map: &Map<String, Value>,
    field: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<(String, Secret)>, String> {
    let Some(value) = map.get(field) else {
        return Ok(Vec::new());
    };
    let Value::Object(entries) = value else {
        return Err(format!(
            "{at}: field `{field}` must be an object of strings"
        ));
    };
    let mut out = BTreeMap::new();
    for (key, value) in entries {
        let Value::String(raw) = value else {
            return Err(format!("{at}: field `{field}.{key}` must be a string"));
        };
        let expanded =
            expand(raw, lookup).map_err(|why| format!("{at}: field `{field}.{key}`: {why}"))?;
        out.insert(key.clone(), Secret(expanded));
    }
    Ok(out.into_iter().collect())
}

/// Replaces every `${NAME}` with the variable's value. The error names the variable, never a value.
pub fn expand(raw: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| "`${` without a closing `}`".to_owned())?;
        let name = &after[..end];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("`${{{name}}}` is not a valid variable name"));
        }
        let value =
            lookup(name).ok_or_else(|| format!("environment variable `{name}` is not set"))?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "API_KEY" => Some("s3cret-value".into()),
            "HOME_DIR" => Some("/home/me".into()),
            _ => None,
        }
    }

    fn parse_ok(text: &str) -> HostConfig {
        parse(Path::new("/cfg/mcp.json"), text, &env).expect("valid file")
    }

    fn problem(text: &str) -> String {
        let config = parse_ok(text);
        assert!(config.servers.is_empty(), "{:?}", config.servers);
        assert_eq!(config.problems.len(), 1, "{:?}", config.problems);
        config.problems[0].message.clone()
    }

    #[test]
    fn spec_format_is_read() {
        let config = parse_ok(
            r#"{"servers": {
                "fs": {"type": "local", "transport": "stdio", "command": "npx", "args": ["-y", "x"], "timeoutMs": 5000},
                "web": {"type": "remote", "transport": "http", "url": "http://127.0.0.1:3001/mcp"}
            }, "expose": true, "circuit": {"failures": 3, "cooldownMs": 1000}}"#,
        );
        assert!(config.expose);
        assert_eq!(config.circuit.failures, 3);
        assert_eq!(config.circuit.cooldown, Duration::from_secs(1));
        assert_eq!(config.servers.len(), 2);
        let fs = &config.servers[0];
        assert_eq!(fs.id, "fs");
        assert_eq!(fs.timeout, Duration::from_millis(5000));
        assert!(
            matches!(&fs.transport, Transport::Stdio { command, args, .. } if command == "npx" && args == &["-y", "x"])
        );
        assert!(
            matches!(&config.servers[1].transport, Transport::Http { url, .. } if url.ends_with("/mcp"))
        );
        assert_eq!(config.servers[1].timeout, DEFAULT_TOOL_TIMEOUT);
    }

    #[test]
    fn claude_desktop_format_expands_variables_in_env_and_headers() {
        let config = parse_ok(
            r#"{"mcpServers": {
                "a": {"command": "srv", "env": {"KEY": "${API_KEY}", "PLAIN": "x-${HOME_DIR}-y"}},
                "b": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}},
                "off": {"command": "nothing", "disabled": true}
            }}"#,
        );
        assert!(!config.expose);
        assert_eq!(config.servers.len(), 2);
        let Transport::Stdio { env, .. } = &config.servers[0].transport else {
            panic!("stdio expected");
        };
        assert_eq!(env[0], ("KEY".into(), Secret("s3cret-value".into())));
        assert_eq!(env[1].1, Secret("x-/home/me-y".into()));
        let Transport::Http { headers, .. } = &config.servers[1].transport else {
            panic!("http expected");
        };
        assert_eq!(headers[0].1, Secret("Bearer s3cret-value".into()));
        // Secrets never reach logs through Debug.
        assert!(!format!("{config:?}").contains("s3cret"));
    }

    #[test]
    fn file_level_errors_name_the_file() {
        let path = Path::new("/cfg/mcp.json");
        for (text, expect) in [
            ("{not json", "not valid JSON at line 1"),
            ("[]", "top level must be a JSON object"),
            ("{}", "no `servers`"),
            (r#"{"servers": [], "x": 1}"#, "`servers` must be an object"),
            (r#"{"servers": {}, "mcpServers": {}}"#, "both"),
            (r#"{"servers": {}, "expose": "yes"}"#, "`expose` must be"),
            (
                r#"{"servers": {}, "circuit": {"bad": 1}}"#,
                "unknown field `bad`",
            ),
            (
                r#"{"servers": {}, "deny": "all"}"#,
                "field `deny` must be an array",
            ),
        ] {
            let err = parse(path, text, &env).expect_err(text);
            assert!(err.starts_with("/cfg/mcp.json: "), "{err}");
            assert!(err.contains(expect), "{text}: {err}");
        }
        let missing = load(Path::new("/no/such/mcp.json"), &env).expect_err("missing file");
        assert!(missing.contains("/no/such/mcp.json"), "{missing}");
    }

    #[test]
    fn every_bad_server_names_file_server_and_field() {
        for (entry, expect) in [
            (r#""bad": 3"#, "server `bad`: must be an object"),
            (
                r#""bad": {}"#,
                "field `command` (stdio) or `url` (http) is required",
            ),
            (
                r#""bad": {"command": 7}"#,
                "field `command` must be a string",
            ),
            (r#""bad": {"command": " "}"#, "field `command` is empty"),
            (
                r#""bad": {"command": "x", "args": "a b"}"#,
                "field `args` must be an array",
            ),
            (
                r#""bad": {"command": "x", "args": ["a", 2]}"#,
                "field `args[1]` must be a string",
            ),
            (
                r#""bad": {"command": "x", "env": {"K": 1}}"#,
                "field `env.K` must be a string",
            ),
            (
                r#""bad": {"command": "x", "env": {"K": "${NOPE}"}}"#,
                "field `env.K`: environment variable `NOPE` is not set",
            ),
            (
                r#""bad": {"command": "x", "env": {"K": "${API_KEY"}}"#,
                "without a closing",
            ),
            (
                r#""bad": {"url": "ftp://x"}"#,
                "field `url` must start with http",
            ),
            (
                r#""bad": {"url": "http://x", "headers": {"A": "${NOPE}"}}"#,
                "field `headers.A`",
            ),
            (
                r#""bad": {"type": "sse", "url": "http://x"}"#,
                "legacy `sse`",
            ),
            (
                r#""bad": {"transport": "pigeon", "command": "x"}"#,
                "field `transport` must be stdio or http",
            ),
            (
                r#""bad": {"type": "remote", "transport": "stdio", "command": "x"}"#,
                "field `type` says http",
            ),
            (
                r#""bad": {"transport": "stdio", "url": "http://x"}"#,
                "belong to http servers",
            ),
            (
                r#""bad": {"transport": "http", "command": "x"}"#,
                "belong to stdio servers",
            ),
            (
                r#""bad": {"command": "x", "url": "http://x"}"#,
                "both `command` and `url`",
            ),
            (
                r#""bad": {"command": "x", "timeoutMs": -5}"#,
                "field `timeoutMs` must be a positive",
            ),
            (
                r#""bad": {"command": "x", "timeoutMs": 0}"#,
                "field `timeoutMs` must be a positive",
            ),
            (
                r#""bad": {"command": "x", "comand": "y"}"#,
                "unknown field `comand`",
            ),
            (
                r#""bad": {"command": "x", "disabled": "no"}"#,
                "field `disabled`",
            ),
            (r#""b:d": {"command": "x"}"#, "server `b:d`: the id must be"),
            (r#""a__b": {"command": "x"}"#, "no `__`"),
            (r#""nexus": {"command": "x"}"#, "Nexus's own tools"),
            (
                r#""bad": {"command": "x", "allow": ["{a"]}"#,
                "field `allow[0]`: `{a` is not a glob",
            ),
        ] {
            let message = problem(&format!(r#"{{"mcpServers": {{{entry}}}}}"#));
            assert!(message.starts_with("/cfg/mcp.json: server `"), "{message}");
            assert!(message.contains(expect), "{entry}: {message}");
            assert!(!message.contains("s3cret"), "{message}");
        }
    }

    #[test]
    fn a_bad_server_leaves_the_others() {
        let config = parse_ok(
            r#"{"servers": {"good": {"command": "x"}, "bad": {"url": 5}, "also": {"url": "http://h/mcp"}}}"#,
        );
        let mut ids: Vec<_> = config.servers.iter().map(|s| s.id.as_str()).collect();
        ids.sort_unstable();
        assert_eq!(ids, ["also", "good"]);
        assert_eq!(config.problems.len(), 1);
        assert_eq!(config.problems[0].server, "bad");
    }

    #[test]
    fn allow_confirm_and_deny_are_read_per_server_and_at_the_top() {
        use super::super::policy::{Action, decide};
        let config = parse_ok(
            r#"{"servers": {"fs": {"command": "x", "allow": ["read_*"], "deny": ["delete"]}},
                "confirm": ["*:read_secret"]}"#,
        );
        let fs = &config.servers[0];
        let act = |tool: &str| decide(&config.rules, Some(&fs.rules), "fs", tool, None).action;
        assert_eq!(act("read_file"), Action::Allow);
        assert_eq!(act("delete"), Action::Deny);
        assert_eq!(act("write"), Action::Confirm);
        let other = decide(&config.rules, None, "web", "read_secret", Some(true));
        assert_eq!(other.action, Action::Confirm);
    }

    #[test]
    fn expansion_rules() {
        assert_eq!(expand("plain", &env).as_deref(), Ok("plain"));
        assert_eq!(
            expand("${API_KEY}${API_KEY}", &env).as_deref(),
            Ok("s3cret-values3cret-value")
        );
        assert!(expand("${}", &env).is_err());
        assert!(expand("${A-B}", &env).is_err());
    }

    #[test]
    fn relative_commands_and_folders_resolve_beside_the_config_file() {
        let config = parse_ok(
            r#"{"servers": {
                "rel": {"command": "./bin/srv", "cwd": "work"},
                "bare": {"command": "npx", "cwd": "/abs/place"},
                "abs": {"command": "/usr/bin/srv"}
            }}"#,
        );
        let stdio = |id: &str| match &config
            .servers
            .iter()
            .find(|s| s.id == id)
            .unwrap()
            .transport
        {
            Transport::Stdio { command, cwd, .. } => (command.clone(), cwd.clone()),
            Transport::Http { .. } => panic!("stdio expected"),
        };
        assert_eq!(
            stdio("rel"),
            ("/cfg/./bin/srv".into(), Some(PathBuf::from("/cfg/work")))
        );
        assert_eq!(
            stdio("bare"),
            ("npx".into(), Some(PathBuf::from("/abs/place")))
        );
        assert_eq!(stdio("abs"), ("/usr/bin/srv".into(), None));
    }

    #[test]
    fn explicit_path_wins() {
        assert_eq!(
            locate(Some(Path::new("/x/m.json"))),
            Some(PathBuf::from("/x/m.json"))
        );
    }
}
