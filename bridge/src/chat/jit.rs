//! The JIT tool compiler in the chat: per turn, which of the host's tools the model sees (full,
//! condensed, name only) and why; the `expand` and `find_tools` pseudo-tools, refusals, and
//! compile-time figures.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use nexus_jit::{
    AnalysisStore, Analyzer, Catalog, CompiledTools, Compiler, Decision, Embedder, HashedWords,
    ServerStatus, Tier, ToolInfo, ToolKey, ToolSelection, TurnFacts,
};
use nexus_shared::chat::{ChatMessage, ChatRole, ChatServerMessage, ToolSeen, ToolTier};
use serde_json::{Map, Value, json};

use super::prompt::{ToolDef, Toolbox};

/// The pseudo-tool that returns a tool's full entry and makes it callable for the session.
pub const EXPAND_TOOL: &str = "expand";
/// The pseudo-tool that searches the registry by words and makes the best few callable.
pub const FIND_TOOLS: &str = nexus_jit::FIND_TOOLS;
/// Tools one `find_tools` call returns.
pub const FIND_LIMIT: usize = 5;
/// Messages of the conversation before the question that count as its context.
pub const RECENT_MESSAGES: usize = 3;
/// Nexus's own tools, answered by the tab through the relay.
const NEXUS_PREFIX: &str = "nexus:";
/// Compile times kept for the health report's percentiles.
const KEPT_TIMES: usize = 512;

/// Compile times of this process, for `nexus://health`.
static TIMES: Mutex<Times> = Mutex::new(Times {
    recent: VecDeque::new(),
    count: 0,
    last: 0,
});

struct Times {
    recent: VecDeque<u64>,
    count: u64,
    last: u64,
}

fn times() -> MutexGuard<'static, Times> {
    TIMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn record(micros: u64) {
    let mut t = times();
    if t.recent.len() == KEPT_TIMES {
        t.recent.pop_front();
    }
    t.recent.push_back(micros);
    t.count += 1;
    t.last = micros;
}

/// The tool compiler's figures for `nexus://health`: compilations so far and the p50, p95 and
/// last compile times (µs) over the latest [`KEPT_TIMES`].
pub fn health() -> Value {
    let t = times();
    let mut sorted: Vec<u64> = t.recent.iter().copied().collect();
    sorted.sort_unstable();
    let at = |p: f64| -> u64 {
        let i = ((sorted.len().saturating_sub(1)) as f64 * p).round() as usize;
        sorted.get(i).copied().unwrap_or(0)
    };
    json!({
        "compiles": t.count,
        "compile_p50_us": at(0.5),
        "compile_p95_us": at(0.95),
        "compile_last_us": t.last,
    })
}

/// One turn's compiled tools and the catalog they came from (cheap to clone: a tool search
/// takes a copy to its blocking thread).
#[derive(Clone)]
pub struct TurnTools {
    pub compiled: Arc<CompiledTools>,
    catalog: Arc<Catalog>,
}

/// The chat's tool compiler: the compiler, the analysis store, the catalog of the current
/// registry and the tools each session expanded.
pub struct ToolJit {
    compiler: Compiler,
    store: Mutex<AnalysisStore>,
    /// The catalog and the registry state it was built from.
    catalog: Mutex<Option<(String, Arc<Catalog>)>>,
    expanded: Mutex<HashMap<String, BTreeSet<String>>>,
    /// A background analysis runs.
    analysing: AtomicBool,
    /// Tools the model-based analyzer was asked about in this process (not asked again).
    asked: Mutex<HashSet<ToolKey>>,
}

impl ToolJit {
    /// A compiler with `config` (its `rules_file`, else the shipped rules), `embedder` and its
    /// analyses in `store`. A rules file that fails (the configuration check read it) leaves the
    /// shipped rules, and says why.
    pub fn new(config: ToolSelection, embedder: Box<dyn Embedder>, store: AnalysisStore) -> Self {
        let program = match &config.rules_file {
            Some(path) => nexus_jit::load_rules(path).unwrap_or_else(|err| {
                tracing::warn!(%err, "the tool compiler uses its shipped rules");
                nexus_jit::rules::Program::default_rules()
            }),
            None => nexus_jit::rules::Program::default_rules(),
        };
        ToolJit {
            compiler: Compiler::new(config, program, embedder),
            store: Mutex::new(store),
            catalog: Mutex::new(None),
            expanded: Mutex::new(HashMap::new()),
            analysing: AtomicBool::new(false),
            asked: Mutex::new(HashSet::new()),
        }
    }

    /// The compiler configured by `selection`, with its store at `path` (in memory when it cannot
    /// be opened) and the given embedder (else hashed words).
    pub fn open(
        path: Option<&Path>,
        embedder: Option<Box<dyn Embedder>>,
        selection: ToolSelection,
    ) -> Self {
        let opened = path.map(|path| {
            crate::sqlite::prepare(path)
                .and_then(|()| AnalysisStore::open(path).map_err(|err| err.to_string()))
        });
        let store = match opened {
            Some(Ok(store)) => Ok(store),
            Some(Err(err)) => {
                tracing::warn!(%err, "tool analyses are kept in memory only");
                AnalysisStore::in_memory()
            }
            None => AnalysisStore::in_memory(),
        };
        let store = match store {
            Ok(store) => store,
            Err(err) => {
                tracing::error!(%err, "no tool analysis store");
                // In-memory SQLite failing means no allocator left; nothing sensible remains.
                std::process::exit(1);
            }
        };
        let embedder = embedder.unwrap_or_else(|| Box::new(HashedWords));
        ToolJit::new(selection, embedder, store)
    }

    fn store(&self) -> MutexGuard<'_, AnalysisStore> {
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn expanded(&self) -> MutexGuard<'_, HashMap<String, BTreeSet<String>>> {
        self.expanded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The catalog for the registry in `report` (`Host::report`) at `version`: rebuilt when the
    /// version or a server's online state changed.
    fn catalog(&self, report: &Value, version: u64) -> Arc<Catalog> {
        let tools = registry_tools(report);
        let offline: Vec<&str> = tools
            .iter()
            .filter(|t| t.status == ServerStatus::Offline)
            .map(|t| t.server.as_str())
            .collect();
        let state = format!("{version}|{}|{}", tools.len(), offline.join(","));
        let mut slot = self
            .catalog
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((built_for, catalog)) = slot.as_ref()
            && *built_for == state
        {
            return catalog.clone();
        }
        let store = self.store();
        let analysed = store.analysed(tools);
        let catalog = Arc::new(self.compiler.prepare_with_store(analysed.tools, &store));
        tracing::debug!(tools = catalog.len(), "tool catalog prepared");
        *slot = Some((state, catalog.clone()));
        catalog
    }

    /// The tools of `report` with no stored analysis that the analyzer was not yet asked about,
    /// and the right to analyse them (`None` while another analysis runs or none is due).
    pub fn start_analysis(&self, report: &Value) -> Option<Vec<ToolInfo>> {
        if self.analysing.swap(true, Ordering::AcqRel) {
            return None;
        }
        let tools = registry_tools(report);
        let pending = self.store().analysed(tools.clone()).pending;
        let asked = self
            .asked
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let due: Vec<ToolInfo> = tools
            .into_iter()
            .filter(|t| {
                let key = t.key();
                pending.contains(&key) && !asked.contains(&key)
            })
            .collect();
        if due.is_empty() {
            self.analysing.store(false, Ordering::Release);
            return None;
        }
        Some(due)
    }

    /// Runs `analyzer` over `tools` (begun by [`ToolJit::start_analysis`]), storing each result
    /// as it lands (the store is locked only to write, never while the model thinks); the next
    /// turn's catalog uses them. Failures are logged and not retried in this process. Returns
    /// how many were stored.
    pub fn analyse<A: Analyzer>(&self, tools: &[ToolInfo], analyzer: &A) -> usize {
        let mut stored = 0;
        for tool in tools {
            let key = tool.key();
            self.asked
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .insert(key.clone());
            match analyzer.analyze(tool) {
                Ok(analysis) => match self.store().put(&key, &analysis) {
                    Ok(()) => stored += 1,
                    Err(err) => tracing::warn!(tool = %tool.id(), %err, "cannot store an analysis"),
                },
                Err(err) => {
                    tracing::info!(tool = %tool.id(), %err, "no model analysis; heuristics stay")
                }
            }
        }
        if stored > 0 {
            *self
                .catalog
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
        }
        self.analysing.store(false, Ordering::Release);
        stored
    }

    /// Compiles the tools for one turn of `session`.
    pub fn compile(
        &self,
        report: &Value,
        version: u64,
        session: &str,
        facts: &TurnFacts,
    ) -> TurnTools {
        let catalog = self.catalog(report, version);
        let mut facts = facts.clone();
        facts
            .used_tools
            .extend(self.expanded().get(session).into_iter().flatten().cloned());
        let compiled = self.compiler.compile(&facts, &catalog);
        record(compiled.micros);
        TurnTools {
            compiled: Arc::new(compiled),
            catalog,
        }
    }

    /// Tools `session` expanded.
    pub fn expanded_in(&self, session: &str) -> BTreeSet<String> {
        self.expanded().get(session).cloned().unwrap_or_default()
    }

    /// The `expand` call: the full entry of the tool named in `arguments` (which then stays
    /// callable and declared for the session), or a corrective message.
    pub fn expand(
        &self,
        session: &str,
        turn: &TurnTools,
        arguments: &Value,
    ) -> Result<String, String> {
        let Some(name) = arguments.get("tool").and_then(Value::as_str) else {
            return Err(
                "`expand` needs the tool's qualified name: {\"tool\": \"server:name\"}.".into(),
            );
        };
        let Some(entry) = turn.catalog.expand(name) else {
            let hint = similar(&turn.compiled, name);
            return Err(format!(
                "There is no tool named `{name}` to expand.{hint} Use a `server:name` from the tool list."
            ));
        };
        self.expanded()
            .entry(session.to_owned())
            .or_default()
            .insert(name.to_owned());
        Ok(format!(
            "{}\nYou may now call `{name}` with arguments matching its schema.",
            entry.trim_end()
        ))
    }
}

impl ToolJit {
    /// The `find_tools` call: the full entries of the best few tools for the words in
    /// `arguments` (each then callable and declared for the session, as if expanded), or a
    /// corrective message.
    pub fn find_tools(
        &self,
        session: &str,
        turn: &TurnTools,
        arguments: &Value,
    ) -> Result<String, String> {
        let query = arguments
            .get("query")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default();
        if query.is_empty() {
            return Err(format!(
                "`{FIND_TOOLS}` needs words saying what the tool should do: {{\"query\": \"send an email\"}}."
            ));
        }
        let found = self.compiler.find_tools(
            &turn.catalog,
            query,
            FIND_LIMIT,
            Some(turn.compiled.as_ref()),
        );
        if found.is_empty() {
            return Err(format!(
                "No tool matches {query:?}. Try other words, or answer without a tool."
            ));
        }
        let mut expanded = self.expanded();
        let callable = expanded.entry(session.to_owned()).or_default();
        let mut text = format!("The {} best tools for {query:?}:\n", found.len());
        for f in &found {
            callable.insert(f.tool.clone());
            text.push_str(f.entry.trim_end());
            text.push('\n');
        }
        text.push_str("You may now call any of them with arguments matching its schema.");
        Ok(text)
    }
}

impl TurnTools {
    /// Whether the model may call `name` now; else the corrective message. Full and condensed
    /// tools are callable (the host validates arguments), name-only and excluded ones only once
    /// expanded, offline hosted ones never (Nexus's own go to the relay, whose answer without a
    /// tab says how to open one).
    pub fn gate(&self, name: &str, expanded: &BTreeSet<String>) -> Result<(), String> {
        let Some(decision) = self.compiled.decision(name) else {
            return Ok(());
        };
        if decision.offline && !name.starts_with(NEXUS_PREFIX) {
            let server = name.split(':').next().unwrap_or(name);
            return Err(format!(
                "`{name}` is offline: its server `{server}` is disconnected and reconnecting, so the call was not made. Use another tool, or try again later."
            ));
        }
        if expanded.contains(name) {
            return Ok(());
        }
        match decision.tier {
            Tier::Full | Tier::Condensed => Ok(()),
            Tier::Minimal => Err(format!(
                "`{name}` was listed by name only, so its arguments are unknown to you. Expand it first: call `{EXPAND_TOOL}` with {{\"tool\": \"{name}\"}}, then call it."
            )),
            Tier::Excluded => Err(format!(
                "`{name}` is not among the tools offered for this question (relevance {:.0}/100).{} If you really need it, call `{EXPAND_TOOL}` with {{\"tool\": \"{name}\"}} first.",
                decision.score,
                similar(&self.compiled, name)
            )),
        }
    }

    /// The tools to declare natively: full ones and those expanded, plus `expand` and, when the
    /// compiler offered it, `find_tools`.
    pub fn declared(&self, toolbox: &Toolbox, expanded: &BTreeSet<String>) -> Toolbox {
        let shown = |name: &str| {
            expanded.contains(name)
                || self
                    .compiled
                    .decision(name)
                    .is_some_and(|d| d.tier == Tier::Full)
        };
        let mut tools: Vec<ToolDef> = toolbox
            .tools
            .iter()
            .filter(|t| shown(&t.name))
            .cloned()
            .collect();
        tools.push(expand_def());
        if self.compiled.decision(FIND_TOOLS).is_some() {
            tools.push(find_tools_def());
        }
        Toolbox {
            tools,
            guidance: toolbox.guidance.clone(),
        }
    }

    /// The tool section of the system prompt: the compiled one, or with native calling the
    /// header and the entries not declared natively (condensed and name-only).
    pub fn section(&self, native: bool) -> String {
        if !native {
            return self.compiled.prompt.clone();
        }
        let mut text = String::from(nexus_jit::SECTION_HEADER);
        for d in self.compiled.in_tiers(&[Tier::Condensed, Tier::Minimal]) {
            text.push_str(self.catalog.entry(&d.tool, d.tier).unwrap_or_default());
        }
        text
    }

    /// The `tools_compiled` message for the page.
    pub fn message(&self) -> ChatServerMessage {
        let c = &self.compiled;
        let tools: Vec<ToolSeen> = c.decisions.iter().filter_map(seen).collect();
        let excluded = c.decisions.len() - tools.len();
        ChatServerMessage::ToolsCompiled {
            tools,
            excluded: u32::try_from(excluded).unwrap_or(u32::MAX),
            tokens: c.tokens as u64,
            all_full_tokens: self.catalog.all_full_tokens() as u64,
            micros: c.micros,
        }
    }
}

/// The `expand` pseudo-tool as a native tool definition.
pub fn expand_def() -> ToolDef {
    ToolDef {
        name: EXPAND_TOOL.into(),
        description: "Get the full entry (description, arguments, example) of a condensed or name-only tool; it becomes callable.".into(),
        schema: json!({"type": "object", "required": ["tool"], "properties": {
            "tool": {"type": "string", "description": "qualified tool name, server:name"}}}),
    }
}

/// The `find_tools` pseudo-tool as a native tool definition.
pub fn find_tools_def() -> ToolDef {
    ToolDef {
        name: FIND_TOOLS.into(),
        description: nexus_jit::SEARCH_DESCRIPTION.into(),
        schema: nexus_jit::search_schema(),
    }
}

fn seen(d: &Decision) -> Option<ToolSeen> {
    let tier = match d.tier {
        Tier::Full => ToolTier::Full,
        Tier::Condensed => ToolTier::Condensed,
        Tier::Minimal => ToolTier::Minimal,
        Tier::Excluded => return None,
    };
    let mut reasons: Vec<String> = d
        .rule_hits
        .iter()
        .map(|h| format!("{:+} {}", h.points, h.why))
        .collect();
    reasons.extend(d.notes.iter().cloned());
    Some(ToolSeen {
        name: d.tool.clone(),
        tier,
        skeleton: d.skeleton,
        score: d.score,
        logic: d.logic,
        vector: d.vector,
        reasons,
        offline: d.offline,
    })
}

/// Shown tools whose name shares a word (three letters or more) with `name`'s tool part, as
/// " Did you mean …?".
fn similar(compiled: &CompiledTools, name: &str) -> String {
    let words = |n: &str| -> Vec<String> {
        n.rsplit(':')
            .next()
            .unwrap_or(n)
            .split(['_', '-', '.'])
            .filter(|w| w.len() >= 3)
            .map(str::to_lowercase)
            .collect()
    };
    let wanted = words(name);
    let close: Vec<&str> = compiled
        .in_tiers(&[Tier::Full, Tier::Condensed, Tier::Minimal])
        .map(|d| d.tool.as_str())
        .filter(|t| *t != name && words(t).iter().any(|w| wanted.contains(w)))
        .take(3)
        .collect();
    if close.is_empty() {
        String::new()
    } else {
        format!(" Did you mean {}?", close.join(", "))
    }
}

/// The registry's tools in the host's report, offline where their server is not online.
pub fn registry_tools(report: &Value) -> Vec<ToolInfo> {
    let mut out = Vec::new();
    for server in report["servers"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let Some(id) = server["id"].as_str() else {
            continue;
        };
        let status = if server["online"].as_bool() == Some(true) {
            ServerStatus::Online
        } else {
            ServerStatus::Offline
        };
        for tool in server["tools"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let Some(qualified) = tool["name"].as_str() else {
                continue;
            };
            let name = qualified
                .strip_prefix(id)
                .and_then(|n| n.strip_prefix(':'))
                .unwrap_or(qualified);
            out.push(ToolInfo {
                server: id.to_owned(),
                name: name.to_owned(),
                description: tool["description"].as_str().unwrap_or_default().to_owned(),
                input_schema: match &tool["input_schema"] {
                    Value::Object(schema) => schema.clone(),
                    _ => Map::new(),
                },
                status,
            });
        }
    }
    out
}

/// A turn's facts from the question and the stored conversation before it: the router's
/// intents, the last [`RECENT_MESSAGES`] messages' text and the tools called earlier.
pub fn turn_facts(question: &str, earlier: &[ChatMessage]) -> TurnFacts {
    let recent: Vec<&str> = earlier
        .iter()
        .rev()
        .filter_map(|m| m.content.as_deref())
        .take(RECENT_MESSAGES)
        .collect();
    let mut used: Vec<String> = Vec::new();
    for m in earlier.iter().filter(|m| m.role == ChatRole::Tool) {
        if let Some(tool) = &m.tool_name
            && tool != EXPAND_TOOL
            && tool != FIND_TOOLS
            && !used.contains(tool)
        {
            used.push(tool.clone());
        }
    }
    TurnFacts {
        question: question.to_owned(),
        recent_context: recent.into_iter().rev().collect::<Vec<_>>().join("\n"),
        intents: nexus_shared::wording::intents(question)
            .into_iter()
            .map(String::from)
            .collect(),
        used_tools: used,
        ..TurnFacts::default()
    }
}

#[cfg(test)]
mod tests;
