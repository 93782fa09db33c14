//! The code graph engine. Pure Rust: no DOM, no I/O; it compiles natively and for wasm32.
//! `graph` holds the model; `sample` builds the small graph shown before any repository is loaded.

pub mod graph;
pub mod sample;

pub use graph::{Edge, EdgeKind, Graph, Node, NodeKind};
