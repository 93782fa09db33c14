//! The Nexus browser app: the code graph engine, the MCP tool handlers, the link to the bridge
//! and the Leptos UI. The engine and tools are pure Rust and are tested natively and in wasm.

pub mod disk;
pub mod engine;
pub mod link;
pub mod router;
pub mod tools;
pub mod ui;
pub mod worker;
