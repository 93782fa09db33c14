//! Search by meaning: the built-in static embedding model, the text embedded for each node, and
//! the vector index that [`crate::SearchIndex`] fuses with BM25 in semantic and hybrid modes.

mod index;
mod model;
mod text;
mod wordpiece;

pub use index::{BuildStats, MAX_DIMS, VectorBuilder, VectorIndex, text_hash, unit};
#[cfg(test)]
pub(crate) use model::model_bytes;
pub use model::{StaticModel, WordCache};
pub use text::node_text;
pub use wordpiece::words;
