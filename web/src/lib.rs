//! The Nexus browser app: the engine's Web Worker, the link to the bridge and the Leptos UI.
//! The graph engine (`nexus-engine`) and the tools (`nexus-tools`) are libraries it runs.

pub mod chat;
pub mod link;
pub mod socket;
pub mod ui;
pub mod worker;
