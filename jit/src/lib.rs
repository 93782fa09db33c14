//! The JIT tool compiler: per chat turn, which tools the model sees, in which form and why.
//! Tools are analysed once (stored by schema hash), then scored by rules and similarity per turn.
//!
//! The surface: a [`Compiler`] built from a [`ToolSelection`] config turns the registry's
//! [`AnalysedTool`]s into a [`Catalog`] and each turn's [`TurnFacts`] into [`CompiledTools`]
//! (a [`Decision`] per tool and the prompt section). Analyses come from the [`AnalysisStore`]
//! or the [`HeuristicAnalyzer`]; an [`Analyzer`] (a language model, on the chat side) may
//! replace them. Rules are a small Datalog ([`rules`]: parse a file to check it); similarity goes
//! through an [`Embedder`].
#![warn(missing_docs)]

mod analysis;
mod compile;
mod config;
mod minilm;
mod render;
pub mod rules;
mod search;
mod store;
mod text;
mod tool;
mod units;
mod vector;

pub use analysis::{
    AnalysisSource, Analyzer, Capability, HeuristicAnalyzer, ToolAnalysis, condense, heuristic,
    keywords,
};
pub use compile::{
    AnalysedTool, Catalog, CompiledTools, Compiler, ConfigError, Decision, FIND_TOOLS, Found,
    RuleHit, Tier, TurnFacts, load_rules,
};
pub use config::ToolSelection;
pub use minilm::{MINILM_DIR_ENV, MiniLm, find_minilm};
pub use render::{HEADER as SECTION_HEADER, SEARCH_DESCRIPTION, estimate_tokens, search_schema};
pub use store::{Analysed, AnalysisStore, StoreError};
pub use tool::{ServerStatus, ToolInfo, ToolKey, schema_hash};
pub use vector::{
    Embedder, HashedWords, LazyEmbedder, MINILM_SWITCH_ENV, StaticWords, TOOL_MODEL_FILE,
    best_embedder, best_embedder_with, cosine,
};
