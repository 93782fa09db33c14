//! The model-based tool analyzer (spec §3): the configured LLM reads a tool's name, description
//! and schema and answers its metadata as JSON; runs in the background, never during a turn.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nexus_jit::{
    AnalysisSource, AnalysisStore, Analyzer, Capability, ToolAnalysis, ToolInfo, condense,
};
use serde::Deserialize;
use serde_json::Value;

use super::config::{LlmConfig, Setup};
use super::jit::ToolJit;
use super::provider;

/// `NEXUS_JIT_LLM_ANALYSIS=1` turns the model-based analysis on, `0` off; unset, see
/// [`analysis_on`].
pub const ANALYSIS_ENV: &str = "NEXUS_JIT_LLM_ANALYSIS";

/// Whether the model-based analysis runs: as [`ANALYSIS_ENV`] says when it is `1` or `0`, else
/// on for a provider on another machine (a hosted API answers requests side by side) and off
/// for one on this machine or the local network (such a server answers one request at a time,
/// and the chat's turns come first).
pub fn analysis_on(setting: Option<&str>, config: &LlmConfig) -> bool {
    match setting.map(str::trim) {
        Some("1") => true,
        Some("0") => false,
        _ => !local_provider(&config.base_url),
    }
}

/// A base URL on this machine or the local network (an unreadable one counts as local: the
/// analysis stays off unless asked for).
fn local_provider(base_url: &str) -> bool {
    let Some(host) = reqwest::Url::parse(base_url).ok().and_then(|url| {
        url.host_str()
            .map(|h| h.trim_matches(['[', ']']).to_ascii_lowercase())
    }) else {
        return true;
    };
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => {
            ip.is_loopback() || ip.is_private() || ip.is_link_local() || ip.is_unspecified()
        }
        Ok(std::net::IpAddr::V6(ip)) => {
            let first = ip.segments()[0];
            ip.is_loopback()
                || ip.is_unspecified()
                || first & 0xfe00 == 0xfc00
                || first & 0xffc0 == 0xfe80
        }
        Err(_) => host == "localhost" || host.ends_with(".localhost") || host.ends_with(".local"),
    }
}
/// Longest wait for one tool's analysis.
const ANALYSIS_TIMEOUT: Duration = Duration::from_secs(120);

/// What the model is asked.
const ANALYSIS_PROMPT: &str = "You classify tools for an assistant. Answer with ONE JSON object \
and nothing else: {\"categories\": [kinds such as filesystem, code_graph, code_search, memory, \
time, math, web, media, diagnostics, review], \"capabilities\": [any of \"/read\", \"/write\", \
\"/search\", \"/transform\"], \"domains\": [languages or areas such as python, go, code, \
general], \"shard_affinities\": {\"coder\": 0-100, \"researcher\": 0-100, \"reviewer\": 0-100, \
\"tester\": 0-100}, \"condensed\": \"what the tool does, in at most 15 words\"}.";

/// Why an analysis failed.
#[derive(Debug)]
pub struct AnalyzeError(pub String);

impl std::fmt::Display for AnalyzeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AnalyzeError {}

/// The model's answer, as far as it follows the requested shape.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Reply {
    categories: Vec<String>,
    capabilities: Vec<String>,
    domains: Vec<String>,
    shard_affinities: BTreeMap<String, Value>,
    condensed: String,
}

/// The analysis in a model's answer: the first `{` to the last `}` read as the requested JSON,
/// unknown capabilities dropped, scores clamped to 0–100, the line cut like the heuristic's.
pub fn parse(text: &str, tool: &ToolInfo) -> Result<ToolAnalysis, AnalyzeError> {
    let json = match (text.find('{'), text.rfind('}')) {
        (Some(start), Some(end)) if start < end => &text[start..=end],
        _ => return Err(AnalyzeError(format!("no JSON object in {text:?}"))),
    };
    let reply: Reply = serde_json::from_str(json)
        .map_err(|e| AnalyzeError(format!("not the requested JSON ({e}): {json}")))?;
    let capabilities: Vec<Capability> = reply
        .capabilities
        .iter()
        .filter_map(
            |c| match c.trim().trim_start_matches('/').to_lowercase().as_str() {
                "read" => Some(Capability::Read),
                "write" => Some(Capability::Write),
                "search" => Some(Capability::Search),
                "transform" => Some(Capability::Transform),
                _ => None,
            },
        )
        .collect();
    let clean = |list: Vec<String>| -> Vec<String> {
        list.into_iter()
            .map(|c| c.trim().to_lowercase().replace([' ', '-'], "_"))
            .filter(|c| !c.is_empty())
            .collect()
    };
    let categories = clean(reply.categories);
    if categories.is_empty() || capabilities.is_empty() {
        return Err(AnalyzeError(format!(
            "no categories or capabilities: {json}"
        )));
    }
    let shard_affinities = reply
        .shard_affinities
        .into_iter()
        .filter_map(|(shard, score)| {
            let score = score.as_f64()?.clamp(0.0, 100.0) as u8;
            Some((shard.to_lowercase(), score))
        })
        .collect();
    let line = if reply.condensed.trim().is_empty() {
        tool.description.as_str()
    } else {
        reply.condensed.as_str()
    };
    Ok(ToolAnalysis {
        categories,
        capabilities,
        domains: clean(reply.domains),
        shard_affinities,
        condensed: condense(&tool.name, line),
        source: AnalysisSource::Llm,
    })
}

/// The configured provider as an [`Analyzer`]. `analyze` blocks on the runtime: call it from a
/// blocking thread.
pub struct ModelAnalyzer {
    client: reqwest::Client,
    config: LlmConfig,
    runtime: tokio::runtime::Handle,
}

impl ModelAnalyzer {
    pub fn new(
        client: reqwest::Client,
        config: LlmConfig,
        runtime: tokio::runtime::Handle,
    ) -> Self {
        ModelAnalyzer {
            client,
            config,
            runtime,
        }
    }

    async fn ask(&self, tool: &ToolInfo) -> Result<String, AnalyzeError> {
        let question = format!(
            "Tool `{}`.\nDescription: {}\nArguments schema: {}",
            tool.id(),
            tool.description.trim(),
            Value::Object(tool.input_schema.clone())
        );
        provider::complete(&self.client, &self.config, ANALYSIS_PROMPT, question)
            .await
            .map_err(|e| AnalyzeError(e.to_string()))
    }
}

impl Analyzer for ModelAnalyzer {
    type Error = AnalyzeError;

    fn analyze(&self, tool: &ToolInfo) -> Result<ToolAnalysis, AnalyzeError> {
        let text = self
            .runtime
            .block_on(async { tokio::time::timeout(ANALYSIS_TIMEOUT, self.ask(tool)).await })
            .map_err(|_| AnalyzeError("no analysis within the time limit".into()))??;
        parse(&text, tool)
    }
}

/// Starts analysing the registry's pending tools in the background unless a run is under way;
/// the turn that asked goes on with the heuristic analyses.
pub fn refresh_in_background(jit: &Arc<ToolJit>, analyzer: &Arc<ModelAnalyzer>, report: &Value) {
    let Some(pending) = jit.start_analysis(report) else {
        return;
    };
    let (jit, analyzer) = (jit.clone(), analyzer.clone());
    tokio::task::spawn_blocking(move || {
        let stored = jit.analyse(&pending, analyzer.as_ref());
        tracing::info!(
            stored,
            asked = pending.len(),
            "tool analyses by the language model"
        );
    });
}

/// `nexus-bridge analyze-tools TOOLS STORE`: Nexus's tools and those of the servers in the file
/// `tools` (server id → its `tools/list` array) analysed one at a time by the provider of
/// `setup`, as the chat's background run does, into the analysis store at `store`. Each tool's
/// outcome goes to the log; the summary line is returned.
pub async fn analyze_tools_command(
    tools: &Path,
    store: &Path,
    setup: Setup,
) -> Result<String, String> {
    let config = match setup {
        Setup::Ready(config) => config,
        Setup::Missing(how) => return Err(how),
    };
    let registry = registry_file(tools)?;
    let analyzer = ModelAnalyzer::new(
        crate::provider_http::client(None),
        config,
        tokio::runtime::Handle::current(),
    );
    let store = AnalysisStore::open(store).map_err(|e| format!("{}: {e}", store.display()))?;
    tokio::task::spawn_blocking(move || {
        let (mut stored, mut failed, started) = (0, 0, Instant::now());
        for tool in &registry {
            let asked = Instant::now();
            let outcome = store
                .refresh(std::slice::from_ref(tool), &analyzer)
                .map_err(|e| e.to_string())?;
            let seconds = asked.elapsed().as_secs_f64();
            stored += outcome.stored;
            for (_, err) in &outcome.failed {
                failed += 1;
                tracing::warn!(tool = %tool.id(), seconds, "not analysed: {err}");
            }
            if outcome.stored > 0 {
                tracing::info!(tool = %tool.id(), seconds, "analysed");
            }
        }
        Ok(format!(
            "{stored} analyses stored, {failed} failed, {} already stored; {} tools in {:.0} s",
            registry.len() - stored - failed,
            registry.len(),
            started.elapsed().as_secs_f64()
        ))
    })
    .await
    .map_err(|e| format!("the analysis stopped: {e}"))?
}

/// Nexus's tools and those of the file at `path` (server id → its `tools/list` array).
fn registry_file(path: &Path) -> Result<Vec<ToolInfo>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let servers: BTreeMap<String, Vec<Value>> = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a server → tools object: {e}", path.display()))?;
    let mut tools = ToolInfo::nexus_catalog();
    for (server, list) in servers {
        for mut tool in list {
            if let Some(fields) = tool.as_object_mut() {
                fields.insert("server".into(), Value::String(server.clone()));
            }
            tools.push(
                serde_json::from_value(tool)
                    .map_err(|e| format!("{}: a tool of {server}: {e}", path.display()))?,
            );
        }
    }
    Ok(tools)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_analysis_runs_by_default_only_for_a_provider_on_another_machine() {
        let config = |base_url: &str| LlmConfig {
            kind: crate::chat::config::ProviderKind::OpenAi,
            model: "m".into(),
            base_url: base_url.into(),
            key: String::new().into(),
            key_source: String::new(),
            native_tools: true,
            max_output_tokens: 100,
            temperature: None,
            prompt_addition: None,
        };
        for remote in [
            "https://api.anthropic.com",
            "https://openrouter.ai/api/v1",
            "http://8.8.8.8:8000/v1",
        ] {
            assert!(analysis_on(None, &config(remote)), "{remote}");
            assert!(!analysis_on(Some("0"), &config(remote)), "{remote}");
        }
        for local in [
            "http://localhost:11434/v1",
            "http://127.0.0.1:8080",
            "http://[::1]:8000/v1",
            "http://192.168.1.20:11434",
            "http://gpu-box.local:8000",
            "not a url",
        ] {
            assert!(!analysis_on(None, &config(local)), "{local}");
            assert!(!analysis_on(Some(" "), &config(local)), "{local}");
            assert!(analysis_on(Some("1"), &config(local)), "{local}");
        }
    }

    #[test]
    fn the_tools_file_adds_its_servers_tools_to_nexus_and_a_bad_one_says_where()
    -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let path = dir.path().join("tools.json");
        let write = |text: &str| std::fs::write(&path, text).map_err(|e| e.to_string());
        write(
            r#"{"time": [{"name": "get_current_time", "description": "Now.", "inputSchema": {}}]}"#,
        )?;
        let tools = registry_file(&path)?;
        assert_eq!(tools.len(), ToolInfo::nexus_catalog().len() + 1);
        assert!(tools.iter().any(|t| t.id() == "time:get_current_time"));
        write(r#"{"time": [{"description": "no name"}]}"#)?;
        let err = registry_file(&path).err().unwrap_or_default();
        assert!(err.contains("a tool of time"), "{err}");
        write("[1, 2]")?;
        let err = registry_file(&path).err().unwrap_or_default();
        assert!(err.contains("not a server → tools object"), "{err}");
        Ok(())
    }

    fn tool() -> ToolInfo {
        ToolInfo {
            server: "time".into(),
            name: "get_current_time".into(),
            description: "Get the current time in a timezone.".into(),
            input_schema: serde_json::Map::new(),
            status: nexus_jit::ServerStatus::Online,
        }
    }

    #[test]
    fn a_reply_in_prose_and_fences_reads_with_its_fields_cleaned() {
        let text = "Sure!\n```json\n{\"categories\": [\"Time\", \"clock tools\"], \"capabilities\": [\"read\", \"/teleport\"], \"domains\": [\"general\"], \"shard_affinities\": {\"Researcher\": 140, \"coder\": \"x\"}, \"condensed\": \"Tells the time in a zone\"}\n```";
        let analysis = parse(text, &tool());
        let Ok(a) = analysis else {
            panic!("{analysis:?}");
        };
        assert_eq!(a.categories, ["time", "clock_tools"]);
        assert_eq!(a.capabilities, [Capability::Read]);
        assert_eq!(a.shard_affinities.get("researcher"), Some(&100));
        assert!(!a.shard_affinities.contains_key("coder"));
        assert_eq!(a.condensed, "Tells the time in a zone");
        assert_eq!(a.source, AnalysisSource::Llm);
    }

    #[test]
    fn replies_without_the_requested_json_are_errors() {
        for text in [
            "I cannot help with that.",
            "{not json}",
            "{\"categories\": []}",
            "{\"categories\": [\"time\"], \"capabilities\": [\"fly\"]}",
        ] {
            assert!(parse(text, &tool()).is_err(), "{text}");
        }
        let plain = parse(
            "{\"categories\": [\"time\"], \"capabilities\": [\"/read\"]}",
            &tool(),
        );
        assert!(plain.is_ok_and(|a| a.condensed == "Get the current time in a timezone."));
    }
}
