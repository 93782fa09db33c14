//! The engine's Web Worker: the page sends it sources and tool calls, it indexes, holds the
//! graph and answers, so the page never freezes. `protocol` is the message format both sides use.

mod cancel;
pub mod client;
mod embed;
mod git;
mod js_reader;
mod live;
mod parse_pool;
mod pause;
mod progress;
pub mod protocol;
mod provider;
mod runtime;
mod store;
mod stream;
#[cfg(all(test, target_arch = "wasm32"))]
mod texts_wasm_tests;

pub use runtime::run;
