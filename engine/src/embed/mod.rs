//! Search by meaning: the built-in static embedding model, the text embedded for each node, and
//! the vector index that [`crate::SearchIndex`] fuses with BM25 in semantic and hybrid modes.

mod index;
mod text;

pub use index::{BuildStats, MAX_DIMS, VectorBuilder, VectorIndex, text_hash, unit};
#[cfg(test)]
pub(crate) use nexus_embed::model_bytes;
pub use nexus_embed::{StaticModel, WordCache, words};
pub use text::node_text;
