//! The tab's link to the bridge: a WebSocket driven by the shared reconnect machine.
//! `status` turns the machine's state into words; `driver` owns the socket, timers and call answering;
//! `secret` holds the browser's secret the hub must prove it knows, and the api token it hands over.

mod driver;
pub mod secret;
pub mod status;

pub use driver::{Link, LinkConfig, port_of};

#[cfg(all(test, target_arch = "wasm32"))]
mod wasm_tests;
