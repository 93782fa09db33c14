//! The code graph engine. Pure Rust: no DOM, no I/O; it compiles natively and for wasm32.
//! Phases: extract (per-file facts) → resolve (cross-file edges) → graph; `sample` is the built-in demo.

pub mod extract;
pub mod facts;
pub mod graph;
pub mod lang;
pub mod sample;

pub use graph::{Edge, EdgeKind, Graph, Node, NodeKind};
