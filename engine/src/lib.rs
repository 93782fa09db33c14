//! The code graph engine. Pure Rust: no DOM, no I/O; it compiles natively and for wasm32.
//! Phases: extract (per-file facts) → resolve (cross-file edges) → graph; `sample` is the built-in demo.
//!
//! The surface: indexing ([`index`], [`index_with_sources`], or the worker's split
//! [`filter_files`] → [`parse_files`] → [`finish`]), the [`Graph`] it builds, the [`SearchIndex`]
//! over it, and six sub-APIs kept as modules because their functions read best qualified:
//! [`cypher`], [`embed`], [`fingerprint`], [`layout`], [`snapshot`], [`syntax`], plus the built-in [`sample`]
//! and a file's definitions from its text alone ([`outline`]), for `diff` against a git commit.
//! Extraction, resolution, communities and processes are internal phases.
#![warn(missing_docs)]

mod cells;
mod community;
pub mod cypher;
mod disk;
pub mod embed;
mod extract;
mod facts;
mod filter;
pub mod fingerprint;
mod graph;
mod ingest;
mod lang;
pub mod layout;
mod outline;
mod piecewise;
mod process;
mod resolve;
pub mod sample;
mod search;
pub mod snapshot;
mod summary;
pub mod syntax;
mod texts;
mod walk;
mod workspace;
mod zip_source;

pub use cells::Cells;
pub use disk::read_tree;
pub use facts::FileFacts;
pub use filter::{DEFAULT_MAX_FILE_BYTES, Filter, is_secret};
pub use graph::{Edge, EdgeKind, Graph, NodeKind, NodeRef, RefKind, Reference};
pub use ingest::{
    Cancelled, Clock, Filtered, IndexStats, Layers, Parsed, Phase, Progress, SourceFile, Sources,
    filter_files, finish, finish_workspace, index, index_with_sources, index_workspace,
    parse_files, parsed_from,
};
pub use lang::Lang;
pub use outline::{Definition, outline};
pub use process::is_test;
pub use search::{Hit, Mode, QueryEmbedder, Ranking, SearchIndex, tokens};
pub use summary::{MAX_DESCRIPTION_CHARS, carry_summaries, describe, summary_tail};
pub use texts::{PAGE_BYTES, Text};
pub use walk::{Reached, Toward, Walk, Walked};
pub use workspace::{Applied, FileChange, Workspace, WorkspaceParts, content_hash};
pub use zip_source::{ZipPaths, read_zip, read_zip_from};
