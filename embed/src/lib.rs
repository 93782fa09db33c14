//! The built-in static embedding model (`model/static-minilm.nxse`): reading its file, cutting
//! text into its WordPiece tokens and pooling their rows into a vector. No I/O, no graph.
//!
//! The engine embeds code with it for search by meaning; the JIT tool compiler embeds chat turns
//! and tool descriptions with it. Both get the same vectors for the same text.
#![warn(missing_docs)]

mod model;
mod wordpiece;

pub use model::{StaticModel, WordCache, model_bytes};
pub use wordpiece::{pieces, words};
