//! The tab's link to the bridge: a WebSocket driven by the shared reconnect machine.
//! `status` turns the machine's state into words; `driver` owns the socket, timers and call answering.

mod driver;
pub mod status;

pub use driver::{Link, LinkConfig};

#[cfg(all(test, target_arch = "wasm32"))]
mod wasm_tests;
