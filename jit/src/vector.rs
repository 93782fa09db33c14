//! Similarity between a turn's text and each tool: the `Embedder` trait and the built-in
//! fallback, a hashed bag of code-aware words, until the semantic-search model plugs in.

use crate::text::words;

/// Turns text into a vector. Vectors of one embedder are compared by cosine similarity.
pub trait Embedder: Send + Sync {
    /// A stable name for this embedder and its settings (stored embeddings are keyed by it).
    fn id(&self) -> &str;

    /// The vector of `text`.
    fn embed(&self, text: &str) -> Vec<f32>;

    /// The cosine similarity that counts as a perfect match (vector score 100): embedders
    /// differ in how high related texts score.
    fn full_scale(&self) -> f32 {
        1.0
    }
}

/// The built-in fallback: each code-aware word (see [`crate::text::words`]) and each pair of
/// neighbouring words is hashed (FNV-1a, stable across builds) into one of [`HashedWords::DIMS`]
/// buckets with a hashed sign; the vector is normalised. It matches words, not meanings: "files"
/// meets "file", but "callers" does not meet "calls", nor "remember" "entity". It stays until the
/// semantic-search issue's embedding model replaces it behind [`Embedder`].
#[derive(Debug, Clone, Copy, Default)]
pub struct HashedWords;

impl HashedWords {
    /// Number of dimensions.
    pub const DIMS: usize = 512;
}

/// FNV-1a, 64 bits: stable across Rust releases, unlike `std`'s `DefaultHasher`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn add(vector: &mut [f32], feature: &str, weight: f32) {
    let h = fnv1a(feature.as_bytes());
    let bucket = (h % HashedWords::DIMS as u64) as usize;
    let sign = if (h >> 63) == 0 { 1.0 } else { -1.0 };
    vector[bucket] += sign * weight;
}

impl Embedder for HashedWords {
    fn id(&self) -> &str {
        "hashed-words-512"
    }

    /// A question and a tool description that share several words score about 0.3–0.5 here
    /// (short texts against long ones), so 0.5 counts as a perfect match.
    fn full_scale(&self) -> f32 {
        0.5
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        let mut vector = vec![0.0f32; Self::DIMS];
        let ws = words(text);
        for w in &ws {
            add(&mut vector, w, 1.0);
        }
        for pair in ws.windows(2) {
            add(&mut vector, &format!("{} {}", pair[0], pair[1]), 0.5);
        }
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            vector.iter_mut().for_each(|x| *x /= norm);
        }
        vector
    }
}

/// Cosine similarity of two vectors, 0 when either is zero or their lengths differ.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_words_are_closer_than_none() {
        let e = HashedWords;
        let q = e.embed("who calls parseConfig?");
        let callers = e.embed("call sites of a symbol: callers and callees");
        let time = e.embed("Get current time in a specific timezone");
        assert!(cosine(&q, &callers) > cosine(&q, &time));
        assert!((cosine(&q, &q) - 1.0).abs() < 1e-5);
    }

    #[test]
    fn empty_or_mismatched_vectors_are_zero() {
        let e = HashedWords;
        assert_eq!(cosine(&e.embed(""), &e.embed("file")), 0.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }
}
