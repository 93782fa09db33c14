//! The end-to-end suite, one binary with one module per area: the real `nexus-bridge`, real MCP
//! clients and headless Chromium. Areas take turns (`nexus_e2e::Area`); tests of one area run together.

mod chat;
mod chat_confirm;
mod chat_ui;
mod config;
mod conformance;
mod crate_graph;
mod embed;
mod hosted;
mod hub_sockets;
mod inspector;
mod live;
mod load;
mod mcp_http;
mod peers;
mod relay;
mod reload;
mod repo;
mod security;
mod squat;
mod tab;
mod tools_ui;
mod ui;
