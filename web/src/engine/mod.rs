//! The code graph engine. Pure Rust: no DOM, no I/O; it compiles natively and for wasm32.
//! Phases: extract (per-file facts) → resolve (cross-file edges) → graph; `sample` is the built-in demo.

pub mod cells;
pub mod community;
pub mod cypher;
pub mod extract;
pub mod facts;
pub mod filter;
pub mod fingerprint;
pub mod graph;
pub mod ingest;
pub mod lang;
pub mod layout;
pub mod process;
pub mod resolve;
pub mod sample;
pub mod search;
pub mod snapshot;
pub mod syntax;
pub mod zip_source;

pub use graph::{Edge, EdgeKind, Graph, GraphBuilder, NewNode, NodeKind, NodeRef, Reason};
