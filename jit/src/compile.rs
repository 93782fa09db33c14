//! One turn's compilation: facts of the tools and the turn, the rules' boosts and the vector
//! similarity give each tool a score, a tier and its reasons; the budget cuts; the prompt is rendered.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::analysis::{ToolAnalysis, keywords};
use crate::config::ToolSelection;
use crate::render::{self, HEADER, estimate_tokens};
use crate::rules::{Database, Program, RuleError, Value};
use crate::search::{LexicalIndex, MIN_MATCH, blend};
use crate::store::AnalysisStore;
use crate::text::terms;
use crate::tool::{ServerStatus, ToolInfo};
use crate::units::Units;
use crate::vector::{Embedder, HashedWords};

/// Largest share of the catalog's tools a keyword may appear in and still count.
const KEYWORD_SHARE: f32 = 0.1;
/// The retrieval floor never lifts more than one tool in this many of the catalog.
const FLOOR_SHARE: usize = 4;
/// Most words of a turn its vector is made from (the question's first): a contextual model's
/// cost grows with the text, and the last three messages of a chat made a 184-word text that
/// took ≈ 20 times a 10-word question's time (0.3–0.55 s against 28 ms, under load).
const TURN_WORDS: usize = 24;
/// The pseudo-tool that searches the registry by words (see [`Compiler::find_tools`]).
pub const FIND_TOOLS: &str = "find_tools";
/// The most tools of one server a tool search returns.
pub const SEARCH_PER_SERVER: usize = 2;
/// What the tool search says of itself in the decisions.
const FIND_TOOLS_WHY: &str = "the tool search: the model can look up any tool by words";

/// A tool with its analysis (stored, or heuristic until one lands).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysedTool {
    /// The tool as its server lists it.
    pub info: ToolInfo,
    /// What the compiler knows about it.
    pub analysis: ToolAnalysis,
}

/// What is known about one turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnFacts {
    /// The user's question.
    pub question: String,
    /// Recent messages of the conversation, for similarity.
    pub recent_context: String,
    /// The router's intent of each clause (`calls`, `impact`, `grep`, … as in `default.rules`).
    pub intents: Vec<String>,
    /// Languages of the loaded repository.
    pub languages: Vec<String>,
    /// Frameworks of the loaded repository.
    pub frameworks: Vec<String>,
    /// Tools (`server:name`) used earlier in the session.
    pub used_tools: Vec<String>,
    /// Repository files in focus.
    pub focus_files: Vec<String>,
    /// The kind of agent work, when known (`coder`, `researcher`, `reviewer`, `tester`).
    pub shard: Option<String>,
}

/// How a tool is rendered this turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Description, schema and example.
    Full,
    /// Name and one line.
    Condensed,
    /// Name only; the model can ask to expand it.
    Minimal,
    /// Not shown.
    Excluded,
}

/// One rule's contribution to a tool's logic score.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleHit {
    /// Points added (or taken, when negative).
    pub points: i64,
    /// The rule's stated reason.
    pub why: String,
}

/// What the compiler decided for one tool, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// `server:name`.
    pub tool: String,
    /// How it is rendered.
    pub tier: Tier,
    /// A skeleton tool: always rendered in full.
    pub skeleton: bool,
    /// `logic × logic_weight + vector × vector_weight`, 0–100.
    pub score: f32,
    /// The rules' score, 0–100 (sum of the boosts, clamped).
    pub logic: f32,
    /// Similarity to the turn, 0–100.
    pub vector: f32,
    /// The rules that fired for it.
    pub rule_hits: Vec<RuleHit>,
    /// Its server is disconnected.
    pub offline: bool,
    /// Estimated tokens of its entry in the prompt (0 when excluded).
    pub tokens: usize,
    /// Tier changes after scoring (the full-tier cap, the token budget).
    pub notes: Vec<String>,
}

/// The compiled tool section of one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompiledTools {
    /// One decision per tool: rendered ones first (full, condensed, minimal), then excluded;
    /// by score within a tier.
    pub decisions: Vec<Decision>,
    /// The prompt section for the rendered tools.
    pub prompt: String,
    /// Estimated tokens of `prompt`.
    pub tokens: usize,
    /// How long the compilation took, in microseconds.
    pub micros: u64,
    /// The turn's embedded text (whitespace collapsed) and its unit vector: a tool search with
    /// the same words reuses it instead of running the embedder again.
    #[serde(skip)]
    turn_vector: Option<(String, Vec<f32>)>,
}

impl CompiledTools {
    /// The decision for `tool` (`server:name`).
    pub fn decision(&self, tool: &str) -> Option<&Decision> {
        self.decisions.iter().find(|d| d.tool == tool)
    }

    /// Tools rendered in the given tiers.
    pub fn in_tiers(&self, tiers: &[Tier]) -> impl Iterator<Item = &Decision> {
        self.decisions
            .iter()
            .filter(move |d| tiers.contains(&d.tier))
    }
}

/// Why a compiler could not be built from its configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The rules file could not be read.
    #[error("cannot read rules file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The rules file has an error.
    #[error("{path}: {source}")]
    Rules {
        /// The file.
        path: String,
        /// Where and what.
        source: RuleError,
    },
}

/// A tool ready for compilation: rendered forms, token counts and vector computed once.
#[derive(Debug, Clone)]
struct Prepared {
    tool: AnalysedTool,
    id: String,
    full: String,
    condensed: String,
    minimal: String,
}

/// The registry's tools, prepared for one compiler (its rules and embedder). Rebuild it when
/// the registry or an analysis changes.
#[derive(Debug)]
pub struct Catalog {
    tools: Vec<Prepared>,
    /// The tools' facts; a turn adds its own and derives, then rolls back to `base_mark` (a
    /// copy per turn cost more than the whole evaluation at 500 tools).
    facts: std::sync::Mutex<Database>,
    base_mark: Vec<usize>,
    lexical: LexicalIndex,
    /// The tools' vectors scaled to length 1 (zeros stay zeros), so a turn's similarity is one
    /// dot product.
    units: Units,
    /// Each tool's place in the order of ids (odd numbers; the tool search's place between
    /// them is `search_rank`, even): orderings that end with the id compare two numbers.
    name_rank: Vec<u32>,
    search_rank: u32,
    /// Estimated tokens of the section with every tool in full.
    all_full: usize,
}

impl Clone for Catalog {
    fn clone(&self) -> Catalog {
        let mut facts = self.facts();
        facts.rollback(&self.base_mark);
        Catalog {
            tools: self.tools.clone(),
            facts: std::sync::Mutex::new(facts.clone()),
            base_mark: self.base_mark.clone(),
            lexical: self.lexical.clone(),
            units: self.units.clone(),
            name_rank: self.name_rank.clone(),
            search_rank: self.search_rank,
            all_full: self.all_full,
        }
    }
}

/// A tool the search found: its id, its retrieval score (0–1) and its full entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Found {
    /// `server:name`.
    pub tool: String,
    /// Half the BM25 of the query's words (scaled by the best tool's), half the similarity.
    pub score: f32,
    /// The full entry (description, schema, example).
    pub entry: String,
}

impl Catalog {
    /// The tools' facts, as the last turn left them (roll back before use).
    fn facts(&self) -> std::sync::MutexGuard<'_, Database> {
        // A turn that panicked left its facts; every user rolls back to the base first.
        self.facts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Estimated tokens of the section with every tool in full form: what the compiler saves
    /// against.
    pub fn all_full_tokens(&self) -> usize {
        self.all_full
    }

    /// The entry of `tool` (`server:name`) in `tier` (empty for excluded).
    pub fn entry(&self, tool: &str, tier: Tier) -> Option<&str> {
        let p = self.tools.iter().find(|p| p.id == tool)?;
        Some(match tier {
            Tier::Full => &p.full,
            Tier::Condensed => &p.condensed,
            Tier::Minimal => &p.minimal,
            Tier::Excluded => "",
        })
    }

    /// The full entry of `tool` (`server:name`): the answer to the model's `expand` request.
    pub fn expand(&self, tool: &str) -> Option<&str> {
        self.tools
            .iter()
            .find(|p| p.id == tool)
            .map(|p| p.full.as_str())
    }
}

/// Chooses and renders tools per turn.
pub struct Compiler {
    config: ToolSelection,
    program: Program,
    embedder: Box<dyn Embedder>,
}

impl std::fmt::Debug for Compiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiler")
            .field("config", &self.config)
            .field("rules", &self.program.len())
            .field("embedder", &self.embedder.id())
            .finish()
    }
}

fn s(text: &str) -> Value {
    Value::str(text)
}

impl Compiler {
    /// A compiler with these parts.
    pub fn new(config: ToolSelection, program: Program, embedder: Box<dyn Embedder>) -> Compiler {
        Compiler {
            config,
            program,
            embedder,
        }
    }

    /// The configured rules (its `rules_file`, else the shipped defaults) and the built-in
    /// embedder.
    pub fn from_config(config: ToolSelection) -> Result<Compiler, ConfigError> {
        let program = match &config.rules_file {
            Some(path) => load_rules(path)?,
            None => Program::default_rules(),
        };
        Ok(Compiler::new(config, program, Box::new(HashedWords)))
    }

    /// The embedder that gives tools and turns their vectors.
    pub fn embedder(&self) -> &dyn Embedder {
        self.embedder.as_ref()
    }

    /// The configuration in use.
    pub fn config(&self) -> &ToolSelection {
        &self.config
    }

    /// Prepares the registry's tools, their vectors taken from `store` when it holds them for
    /// this embedder and text (description and analysis), else computed and stored (a store that fails is skipped: the
    /// vectors are computed again next time).
    pub fn prepare_with_store(&self, tools: Vec<AnalysedTool>, store: &AnalysisStore) -> Catalog {
        let embedder = self.embedder.id().to_string();
        self.prepare_by(tools, |tool, text| {
            let key = tool.info.key();
            if let Ok(Some(vector)) = store.embedding(&key, &embedder, text) {
                return vector;
            }
            let vector = self.embedder.embed(text);
            // Not stored now means computed again next time; nothing else depends on it.
            let _ = store.put_embedding(&key, &embedder, text, &vector);
            vector
        })
    }

    /// Prepares the registry's tools: their facts, vectors and rendered forms.
    pub fn prepare(&self, tools: Vec<AnalysedTool>) -> Catalog {
        self.prepare_by(tools, |_, text| self.embedder.embed(text))
    }

    fn prepare_by(
        &self,
        tools: Vec<AnalysedTool>,
        vector_of: impl Fn(&AnalysedTool, &str) -> Vec<f32>,
    ) -> Catalog {
        let mut base = self.program.database();
        for id in &self.config.skeleton_tools {
            base.insert("configured_skeleton", vec![s(id)]);
        }
        // A keyword says something about a tool only when few tools share it (document
        // frequency at most KEYWORD_SHARE of the catalog, and at least 3 tools allowed).
        let words: Vec<BTreeSet<String>> = tools.iter().map(|t| keywords(&t.info)).collect();
        let mut frequency: FxHashMap<&str, usize> = Default::default();
        for w in words.iter().flatten() {
            *frequency.entry(w.as_str()).or_default() += 1;
        }
        let most = ((tools.len() as f32 * KEYWORD_SHARE) as usize).max(3);
        for (tool, ws) in tools.iter().zip(&words) {
            let t = s(&tool.info.id());
            for w in ws
                .iter()
                .filter(|w| frequency.get(w.as_str()).is_some_and(|&n| n <= most))
            {
                base.insert("keyword", vec![t.clone(), s(w)]);
            }
        }
        let mut units = Vec::with_capacity(tools.len());
        let tools = tools
            .into_iter()
            .map(|tool| {
                let id = tool.info.id();
                let t = s(&id);
                let a = &tool.analysis;
                base.insert("tool", vec![t.clone()]);
                base.insert("server", vec![t.clone(), s(&tool.info.server)]);
                base.insert("name", vec![t.clone(), s(&tool.info.name)]);
                for w in terms(&tool.info.name) {
                    base.insert("name_word", vec![t.clone(), s(&w)]);
                }
                for c in &a.categories {
                    base.insert("category", vec![t.clone(), s(c)]);
                }
                for c in &a.capabilities {
                    base.insert("capability", vec![t.clone(), s(c.as_str())]);
                }
                for d in &a.domains {
                    base.insert("domain", vec![t.clone(), s(d)]);
                }
                for (shard, score) in &a.shard_affinities {
                    base.insert(
                        "shard_affinity",
                        vec![t.clone(), s(shard), Value::Int(i64::from(*score))],
                    );
                }
                let status = match tool.info.status {
                    ServerStatus::Online => "online",
                    ServerStatus::Offline => "offline",
                };
                base.insert(status, vec![t]);
                let text = embedded_text(&tool);
                units.push(unit(vector_of(&tool, &text)));
                Prepared {
                    full: render::full(&tool.info),
                    condensed: render::condensed(&tool.info, &a.condensed),
                    minimal: render::minimal(&tool.info),
                    id,
                    tool,
                }
            })
            .collect::<Vec<Prepared>>();
        let lexical = LexicalIndex::new(tools.iter().map(|p| &p.tool.info));
        let units = Units::new(&units);
        let mut by_name: Vec<usize> = (0..tools.len()).collect();
        by_name.sort_by(|&a, &b| tools[a].id.cmp(&tools[b].id));
        let mut name_rank = vec![0; tools.len()];
        for (place, &i) in by_name.iter().enumerate() {
            name_rank[i] = 2 * place as u32 + 1;
        }
        let search_rank =
            2 * by_name.partition_point(|&i| tools[i].id.as_str() < FIND_TOOLS) as u32;
        let all_full = estimate_tokens(HEADER)
            + tools
                .iter()
                .map(|p| estimate_tokens(&p.full))
                .sum::<usize>();
        Catalog {
            all_full,
            tools,
            base_mark: base.mark(),
            facts: std::sync::Mutex::new(base),
            lexical,
            units,
            name_rank,
            search_rank,
        }
    }

    /// Vector scores (0–100) of every tool of `catalog` against the unit vector `turn_vector`.
    fn vector_scores(&self, turn_vector: &[f32], catalog: &Catalog) -> Vec<f32> {
        let floor = self.embedder.floor();
        let span = (self.embedder.full_scale() - floor).max(f32::EPSILON);
        catalog
            .units
            .dots(turn_vector)
            .into_iter()
            .map(|cosine| ((cosine - floor).max(0.0) / span * 100.0).min(100.0))
            .collect()
    }

    /// The tool search: the `limit` tools of `catalog` that best match `query` (BM25 of its words
    /// blended with similarity), best first, each with its full entry; none when nothing matches.
    /// Tools `shown` in full this turn are skipped (the model has their entries already), and
    /// at most [`SEARCH_PER_SERVER`] come from one server, so that one server's look-alike tools
    /// do not fill the answer.
    pub fn find_tools(
        &self,
        catalog: &Catalog,
        query: &str,
        limit: usize,
        shown: Option<&CompiledTools>,
    ) -> Vec<Found> {
        let in_full: BTreeSet<&str> = shown
            .map(|out| {
                out.in_tiers(&[Tier::Full])
                    .map(|d| d.tool.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let text = collapse_whitespace(query);
        let reused = shown
            .and_then(|out| out.turn_vector.as_ref())
            .filter(|(embedded, _)| *embedded == text)
            .map(|(_, vector)| vector.as_slice());
        let computed;
        let query_vector = match reused {
            Some(vector) => vector,
            None => {
                computed = unit(self.embedder.embed(&text));
                &computed
            }
        };
        let retrieval = blend(
            &catalog.lexical.scores(query),
            &self.vector_scores(query_vector, catalog),
        );
        let mut order: Vec<usize> = (0..catalog.tools.len())
            .filter(|&i| retrieval[i] >= MIN_MATCH)
            .collect();
        order.sort_by(|&a, &b| {
            retrieval[b]
                .total_cmp(&retrieval[a])
                .then(catalog.tools[a].id.cmp(&catalog.tools[b].id))
        });
        let mut per_server: FxHashMap<&str, usize> = FxHashMap::default();
        order
            .into_iter()
            .filter(|&i| !in_full.contains(catalog.tools[i].id.as_str()))
            .filter(|&i| {
                let n = per_server
                    .entry(catalog.tools[i].tool.info.server.as_str())
                    .or_default();
                *n += 1;
                *n <= SEARCH_PER_SERVER
            })
            .take(limit)
            .map(|i| Found {
                tool: catalog.tools[i].id.clone(),
                score: retrieval[i],
                entry: catalog.tools[i].full.clone(),
            })
            .collect()
    }

    /// The rules over the catalog's facts and the turn's: the skeleton tools and each tool's
    /// boosts.
    fn rules(
        &self,
        turn: &TurnFacts,
        catalog: &Catalog,
    ) -> (BTreeSet<String>, FxHashMap<String, Vec<RuleHit>>) {
        let mut db = catalog.facts();
        db.rollback(&catalog.base_mark);
        add_turn_facts(&mut db, turn);
        self.program.evaluate(&mut db);
        let skeleton: BTreeSet<String> = db
            .rows("skeleton")
            .iter()
            .filter_map(|row| match row.first() {
                Some(Value::Str(t)) => Some(t.to_string()),
                _ => None,
            })
            .collect();
        let boosts = hits(&db);
        db.rollback(&catalog.base_mark);
        (skeleton, boosts)
    }

    /// Chooses and renders the tools for one turn.
    pub fn compile(&self, turn: &TurnFacts, catalog: &Catalog) -> CompiledTools {
        let started = Instant::now();
        // The turn is embedded once (`find_tools` with the same words reuses the vector), on
        // this thread while another runs the rules and then, when the embedder can, shares the
        // embedding's products: a contextual model's few milliseconds overlap the rules'
        // instead of adding to them, and then take both cores. The words' scores need no
        // vector: they are counted beside the embedding too.
        let turn_text = embedded_turn(turn);
        let mut beside = None;
        let turn_vector = unit(self.embedder.embed_beside(&turn_text, &mut || {
            beside = Some((
                self.rules(turn, catalog),
                catalog.lexical.scores(&turn.question),
            ));
        }));
        let Some(((skeleton, mut boosts), lexical)) = beside else {
            unreachable!("embed_beside runs its closure or resumes its panic")
        };
        let vectors = self.vector_scores(&turn_vector, catalog);
        let c = &self.config;
        // The retrieval floor: the best matches of the question's words and meaning are shown
        // at least condensed, whatever the rules say.
        let retrieval = blend(&lexical, &vectors);
        let mut by_retrieval: Vec<usize> = (0..catalog.tools.len())
            .filter(|&i| retrieval[i] >= MIN_MATCH)
            .collect();
        by_retrieval.sort_by(|&a, &b| retrieval[b].total_cmp(&retrieval[a]));
        // At most `retrieval_per_server` of one server, so that one server's many look-alike
        // tools do not fill the floor.
        let mut per_server: FxHashMap<&str, usize> = FxHashMap::default();
        let floored: BTreeSet<usize> = by_retrieval
            .into_iter()
            .filter(|&i| {
                let n = per_server
                    .entry(catalog.tools[i].tool.info.server.as_str())
                    .or_default();
                *n += 1;
                *n <= c.retrieval_per_server.max(1)
            })
            .take(c.retrieval_condensed.min(catalog.tools.len() / FLOOR_SHARE))
            .collect();

        // One decision per tool, in catalog order, then the tool search's (when on); the
        // orderings below sort their indices. Among tools of one score (rules often give many
        // the same points), the better match of the question's words and meaning ranks first:
        // it gets the full tier's places under `max_full_tools` and outlasts the others when
        // the budget cuts.
        let mut decisions: Vec<Decision> = catalog
            .tools
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let rule_hits = boosts.remove(&p.id).unwrap_or_default();
                let logic = rule_hits
                    .iter()
                    .map(|h| h.points)
                    .sum::<i64>()
                    .clamp(0, 100) as f32;
                let vector = vectors[i];
                let score = (logic * c.logic_weight + vector * c.vector_weight).clamp(0.0, 100.0);
                let is_skeleton = skeleton.contains(p.id.as_str());
                let tier = if is_skeleton || score >= f32::from(c.full_threshold) {
                    Tier::Full
                } else if score >= f32::from(c.condensed_threshold) {
                    Tier::Condensed
                } else if score >= f32::from(c.minimal_threshold) {
                    Tier::Minimal
                } else {
                    Tier::Excluded
                };
                let mut notes = Vec::new();
                let tier = if tier > Tier::Condensed && floored.contains(&i) {
                    notes.push(format!(
                        "condensed: among the {} best matches of the question's words and meaning",
                        c.retrieval_condensed
                    ));
                    Tier::Condensed
                } else {
                    tier
                };
                Decision {
                    tool: p.id.clone(),
                    tier,
                    skeleton: is_skeleton,
                    score,
                    logic,
                    vector,
                    rule_hits,
                    offline: p.tool.info.status == ServerStatus::Offline,
                    tokens: 0,
                    notes,
                }
            })
            .collect();
        let tools = decisions.len();
        // Per decision: its match and its name's place (the tool search matches nothing).
        let matched = |d: usize| retrieval.get(d).copied().unwrap_or(0.0);
        let name = |d: usize| {
            catalog
                .name_rank
                .get(d)
                .copied()
                .unwrap_or(catalog.search_rank)
        };

        // Best first: skeleton, then by score, then by match, then by name.
        let mut order: Vec<usize> = (0..tools).collect();
        order.sort_unstable_by(|&a, &b| {
            let (da, db) = (&decisions[a], &decisions[b]);
            db.skeleton
                .cmp(&da.skeleton)
                .then(db.score.total_cmp(&da.score))
                .then(matched(b).total_cmp(&matched(a)))
                .then(name(a).cmp(&name(b)))
        });
        let mut full_flesh = 0;
        for &i in &order {
            let d = &mut decisions[i];
            if d.skeleton || d.tier != Tier::Full {
                continue;
            }
            full_flesh += 1;
            if full_flesh > c.max_full_tools {
                d.tier = Tier::Condensed;
                d.notes.push(format!(
                    "condensed: more than max_full_tools ({})",
                    c.max_full_tools
                ));
            }
        }

        let search_entry = render::search_entry();
        if c.tool_search {
            decisions.push(Decision {
                tool: FIND_TOOLS.to_string(),
                tier: Tier::Full,
                skeleton: true,
                score: 100.0,
                logic: 0.0,
                vector: 0.0,
                rule_hits: Vec::new(),
                offline: false,
                tokens: 0,
                notes: vec![FIND_TOOLS_WHY.to_string()],
            });
        }
        let entry = |i: usize, tier: Tier| -> &str {
            let Some(p) = catalog.tools.get(i) else {
                return &search_entry;
            };
            match tier {
                Tier::Full => &p.full,
                Tier::Condensed => &p.condensed,
                Tier::Minimal => &p.minimal,
                Tier::Excluded => "",
            }
        };
        for (i, d) in decisions.iter_mut().enumerate() {
            d.tokens = estimate_tokens(entry(i, d.tier));
        }
        let mut total = estimate_tokens(HEADER) + decisions.iter().map(|d| d.tokens).sum::<usize>();
        let budget = c.turn_budget(catalog.all_full);
        let share = c.registry_budget(catalog.all_full);
        // Under the registry's share, the tools the tiers left name-only or out are shown
        // condensed, best ranked first (by score, or the place the question's match earns
        // between the condensed and full thresholds when that is higher, as the retrieval
        // floor's), while their entries fit. A tool the question does not match and no rule
        // lifted to the minimal tier is not worth a line (at 648 tools such lines took 14–36 %
        // of the learning turns' tokens and met no need).
        if total < share {
            let (low, high) = (
                f32::from(c.condensed_threshold),
                f32::from(c.full_threshold),
            );
            let rank: Vec<f32> = (0..tools)
                .map(|i| fill_rank(decisions[i].score, retrieval[i], low, high))
                .collect();
            let mut candidates: Vec<usize> = (0..tools)
                .filter(|&i| decisions[i].tier > Tier::Condensed)
                .filter(|&i| {
                    retrieval[i] >= MIN_MATCH
                        || decisions[i].score >= f32::from(c.minimal_threshold)
                })
                .collect();
            candidates.sort_unstable_by(|&a, &b| {
                rank[b]
                    .total_cmp(&rank[a])
                    .then(matched(b).total_cmp(&matched(a)))
                    .then(name(a).cmp(&name(b)))
            });
            // In rounds: each allows `fill_per_server` more of one server, so one server's
            // many look-alike tools wait until every server has shown its best. Every round
            // shows or drops (too large to fit) a tool of each server left, so the rounds end.
            let mut per_server: FxHashMap<&str, usize> = FxHashMap::default();
            let mut allowed = 0;
            while total < share && !candidates.is_empty() {
                allowed += c.fill_per_server.max(1);
                candidates.retain(|&i| {
                    let shown = per_server
                        .entry(catalog.tools[i].tool.info.server.as_str())
                        .or_default();
                    let tokens = estimate_tokens(entry(i, Tier::Condensed));
                    let d = &mut decisions[i];
                    if *shown >= allowed || total - d.tokens + tokens > share {
                        return *shown >= allowed;
                    }
                    *shown += 1;
                    total = total - d.tokens + tokens;
                    d.tier = Tier::Condensed;
                    d.tokens = tokens;
                    d.notes.push(format!(
                        "condensed: among the best ranked of the rest, within the registry's share of tokens ({share})"
                    ));
                    false
                });
            }
        }

        // Over budget, from the lowest score up: drop name-only tools, then shorten full flesh
        // tools to condensed (they stay visible at a fraction of the tokens), then drop
        // condensed ones. A tool of the retrieval floor keeps at least the place its match
        // earns between the condensed and the full thresholds (its score says little when no
        // rule knew it).
        let keep: Vec<f32> = decisions
            .iter()
            .enumerate()
            .map(|(i, d)| {
                if i < tools && floored.contains(&i) {
                    let (low, high) = (
                        f32::from(c.condensed_threshold),
                        f32::from(c.full_threshold),
                    );
                    d.score
                        .max(low + retrieval[i].clamp(0.0, 1.0) * (high - low))
                } else {
                    d.score
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..decisions.len()).collect();
        order.sort_unstable_by(|&a, &b| {
            decisions[b]
                .skeleton
                .cmp(&decisions[a].skeleton)
                .then(keep[b].total_cmp(&keep[a]))
                .then(matched(b).total_cmp(&matched(a)))
                .then(name(a).cmp(&name(b)))
        });
        for step in [Tier::Minimal, Tier::Full, Tier::Condensed] {
            for &i in order.iter().rev() {
                if total <= budget {
                    break;
                }
                let d = &mut decisions[i];
                if d.skeleton || d.tier != step {
                    continue;
                }
                total -= d.tokens;
                if step == Tier::Full {
                    d.tier = Tier::Condensed;
                    d.tokens = estimate_tokens(entry(i, Tier::Condensed));
                    total += d.tokens;
                    d.notes
                        .push(format!("condensed: over the token budget ({budget})"));
                } else {
                    d.tokens = 0;
                    d.tier = Tier::Excluded;
                    d.notes
                        .push(format!("excluded: over the token budget ({budget})"));
                }
            }
        }
        order.sort_unstable_by(|&a, &b| {
            let (da, db) = (&decisions[a], &decisions[b]);
            da.tier
                .cmp(&db.tier)
                .then(db.skeleton.cmp(&da.skeleton))
                .then(db.score.total_cmp(&da.score))
                .then(name(a).cmp(&name(b)))
        });

        let mut prompt = String::from(HEADER);
        for &i in &order {
            prompt.push_str(entry(i, decisions[i].tier));
        }
        let mut decisions: Vec<Option<Decision>> = decisions.into_iter().map(Some).collect();
        let decisions: Vec<Decision> = order.iter().filter_map(|&i| decisions[i].take()).collect();
        CompiledTools {
            tokens: estimate_tokens(&prompt),
            prompt,
            decisions,
            micros: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            turn_vector: Some((turn_text, turn_vector)),
        }
    }
}

/// A tool's place in the share's condensed entries: its score, or the place its match of the
/// question (0–1) earns between `low` and `high` when that is higher.
fn fill_rank(score: f32, matched: f32, low: f32, high: f32) -> f32 {
    score.max(low + matched.clamp(0.0, 1.0) * (high - low))
}

/// `vector` scaled to length 1; a zero vector stays zero (it matches nothing).
fn unit(mut vector: Vec<f32>) -> Vec<f32> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|x| *x /= norm);
    }
    vector
}

/// What a turn's vector is made from: the question's words, then the newest lines of the recent
/// messages', at most [`TURN_WORDS`] in all.
fn embedded_turn(turn: &TurnFacts) -> String {
    turn.question
        .split_whitespace()
        .chain(
            turn.recent_context
                .lines()
                .rev()
                .flat_map(str::split_whitespace),
        )
        .take(TURN_WORDS)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` with each run of whitespace made one space and none at either end: the key under
/// which a turn's vector is reused.
fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a tool's vector is made from: its name, description and analysed metadata.
fn embedded_text(tool: &AnalysedTool) -> String {
    let a = &tool.analysis;
    format!(
        "{} {} {} {} {}",
        tool.info.name,
        tool.info.description,
        a.categories.join(" "),
        a.capabilities
            .iter()
            .map(|c| c.as_str().trim_start_matches('/'))
            .collect::<Vec<_>>()
            .join(" "),
        a.domains.join(" ")
    )
}

/// Reads and parses a rules file; errors name the file, line and column.
pub fn load_rules(path: &Path) -> Result<Program, ConfigError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: name.clone(),
        source,
    })?;
    Program::parse(&text).map_err(|source| ConfigError::Rules { path: name, source })
}

fn add_turn_facts(db: &mut Database, turn: &TurnFacts) {
    for i in &turn.intents {
        db.insert("intent", vec![s(i)]);
    }
    for l in &turn.languages {
        db.insert("language", vec![s(&l.to_lowercase())]);
    }
    for f in &turn.frameworks {
        db.insert("framework", vec![s(&f.to_lowercase())]);
    }
    for t in &turn.used_tools {
        db.insert("used", vec![s(t)]);
    }
    for f in &turn.focus_files {
        db.insert("focus_file", vec![s(f)]);
        if let Some(ext) = Path::new(f).extension().and_then(|e| e.to_str()) {
            db.insert("focus_ext", vec![s(&ext.to_lowercase())]);
        }
    }
    for w in terms(&turn.question) {
        db.insert("word", vec![s(&w)]);
    }
    // A numeral in the question is a number (terms keep only words with letters).
    if turn
        .question
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .any(|t| t.parse::<f64>().is_ok())
    {
        db.insert("word", vec![s("number")]);
    }
    if let Some(shard) = &turn.shard {
        db.insert("shard", vec![s(shard)]);
    }
}

/// The distinct boosts the rules derived, by tool.
fn hits(db: &Database) -> FxHashMap<String, Vec<RuleHit>> {
    let mut out: FxHashMap<String, Vec<RuleHit>> = Default::default();
    for row in db.rows("boost") {
        if let [Value::Str(t), Value::Int(points), Value::Str(why)] = row.as_slice() {
            out.entry(t.to_string()).or_default().push(RuleHit {
                points: *points,
                why: why.to_string(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
