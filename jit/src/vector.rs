//! Similarity between a turn's text and each tool: the `Embedder` trait, the semantic-search
//! issue's static model behind it, and the fallback when its file is absent (hashed words).

use std::path::Path;
use std::sync::OnceLock;

use nexus_embed::StaticModel;

use crate::minilm::{MiniLm, find_minilm};
use crate::text::words;

/// Turns text into a vector. Vectors of one embedder are compared by cosine similarity.
pub trait Embedder: Send + Sync {
    /// A stable name for this embedder and its settings (stored embeddings are keyed by it).
    fn id(&self) -> &str;

    /// The vector of `text`.
    fn embed(&self, text: &str) -> Vec<f32>;

    /// The vector of `text` while `beside` runs on another thread (the caller's own work, which
    /// takes the other core): `embed` on this thread beside it, unless the embedder can share
    /// its work with that thread once `beside` returns. A panic in `beside` is resumed here;
    /// one in the embedder gives an empty vector (it matches nothing).
    fn embed_beside(&self, text: &str, beside: &mut (dyn FnMut() + Send)) -> Vec<f32> {
        std::thread::scope(|scope| {
            let other = scope.spawn(beside);
            let vector =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.embed(text)))
                    .unwrap_or_default();
            if let Err(panic) = other.join() {
                std::panic::resume_unwind(panic);
            }
            vector
        })
    }

    /// The cosine similarity that counts as a perfect match (vector score 100): embedders
    /// differ in how high related texts score.
    fn full_scale(&self) -> f32 {
        1.0
    }

    /// The cosine similarity that counts as no match (vector score 0): pooled embeddings of
    /// unrelated texts are rarely orthogonal.
    fn floor(&self) -> f32 {
        0.0
    }
}

/// The built-in static embedding model (`model/static-minilm.nxse`, the one search by meaning
/// uses): a text's vector is the pooled rows of its WordPiece tokens, so "callers" meets
/// "calls" and "remember" meets "memory" where hashed words cannot.
pub struct StaticWords {
    model: StaticModel,
    id: String,
    floor: f32,
    full_scale: f32,
}

/// The file name of the compiler's own table (`scripts/tune_tool_model.py`): the built-in model
/// tuned on requests and tools of the learning servers. Preferred beside the built-in model.
pub const TOOL_MODEL_FILE: &str = "jit-tools.nxse";

/// A tuned table's calibration, the JSON beside it.
#[derive(Debug, serde::Deserialize)]
struct Calibration {
    floor: f32,
    full_scale: f32,
}

impl std::fmt::Debug for StaticWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticWords").field("id", &self.id).finish()
    }
}

impl StaticWords {
    /// Cosine similarity that counts as no match. Provisional: mean-pooled static vectors of
    /// unrelated texts sit above zero; to be calibrated with `jit-bench` once the model file is
    /// present (not yet measured).
    pub const FLOOR: f32 = 0.15;
    /// Cosine similarity that counts as a perfect match. Provisional, as [`Self::FLOOR`].
    pub const FULL_SCALE: f32 = 0.6;

    /// The embedder of a model file's bytes; a damaged file is an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<StaticWords, String> {
        let model = StaticModel::from_bytes(bytes)?;
        let id = format!("static-{}x{}", model.tokens(), model.dims());
        Ok(StaticWords {
            model,
            id,
            floor: Self::FLOOR,
            full_scale: Self::FULL_SCALE,
        })
    }

    /// Reads the model file at `path`; a calibration beside it (`NAME.json` with `floor` and
    /// `full_scale`, as the tuner writes) replaces the defaults and names the embedder apart.
    pub fn load(path: &Path) -> Result<StaticWords, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut model =
            StaticWords::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let side = path.with_extension("json");
        if let Ok(text) = std::fs::read_to_string(&side) {
            let c: Calibration =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", side.display()))?;
            if !(c.floor.is_finite() && c.full_scale.is_finite() && c.full_scale > c.floor) {
                return Err(format!("{}: full_scale must exceed floor", side.display()));
            }
            model.floor = c.floor;
            model.full_scale = c.full_scale;
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("tuned");
            model.id = format!("{}-{stem}", model.id);
        }
        Ok(model)
    }
}

impl Embedder for StaticWords {
    fn id(&self) -> &str {
        &self.id
    }

    fn full_scale(&self) -> f32 {
        self.full_scale
    }

    fn floor(&self) -> f32 {
        self.floor
    }

    /// The model's pooled vector; zeros when no word of `text` is in its vocabulary.
    fn embed(&self, text: &str) -> Vec<f32> {
        self.model
            .embed(text)
            .unwrap_or_else(|| vec![0.0; self.model.dims()])
    }
}

/// The environment variable that turns the contextual model off (`off`): the static tables then.
pub const MINILM_SWITCH_ENV: &str = "NEXUS_JIT_MINILM";

/// [`best_embedder_with`] over the process's environment.
pub fn best_embedder(path: Option<&Path>) -> (Box<dyn Embedder>, Option<String>) {
    best_embedder_with(path, &|name| std::env::var(name).ok())
}

/// The contextual model ([`MiniLm`], found by [`find_minilm`]) unless `NEXUS_JIT_MINILM=off`,
/// else the compiler's own table ([`TOOL_MODEL_FILE`]) when it lies beside the model at `path`,
/// else the built-in model at `path` when it reads, else hashed words (and why, for the log).
pub fn best_embedder_with(
    path: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> (Box<dyn Embedder>, Option<String>) {
    if env(MINILM_SWITCH_ENV).as_deref() != Some("off")
        && let Some(model) = find_minilm(path, env).and_then(|dir| MiniLm::load(&dir).ok())
    {
        return (Box::new(model), None);
    }
    let tuned = path
        .and_then(Path::parent)
        .map(|dir| dir.join(TOOL_MODEL_FILE))
        .filter(|p| p.is_file() && Some(p.as_path()) != path)
        .and_then(|p| StaticWords::load(&p).ok());
    if let Some(model) = tuned {
        return (Box::new(model), None);
    }
    match path.map(StaticWords::load) {
        Some(Ok(model)) => (Box::new(model), None),
        Some(Err(why)) => (Box::new(HashedWords), Some(why)),
        None => (Box::new(HashedWords), Some("no model file given".into())),
    }
}

/// An embedder made on its first use by `make`: a bridge that never compiles a chat turn never
/// loads a model (MiniLM holds 90 MiB and takes ≈ 0.3 s to load).
pub struct LazyEmbedder {
    make: Box<dyn Fn() -> Box<dyn Embedder> + Send + Sync>,
    made: OnceLock<Box<dyn Embedder>>,
}

impl LazyEmbedder {
    /// An embedder that calls `make` once, when it is first asked for anything.
    pub fn new(make: impl Fn() -> Box<dyn Embedder> + Send + Sync + 'static) -> LazyEmbedder {
        LazyEmbedder {
            make: Box::new(make),
            made: OnceLock::new(),
        }
    }

    fn inner(&self) -> &dyn Embedder {
        self.made.get_or_init(|| (self.make)()).as_ref()
    }
}

impl Embedder for LazyEmbedder {
    fn id(&self) -> &str {
        self.inner().id()
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        self.inner().embed(text)
    }

    fn embed_beside(&self, text: &str, beside: &mut (dyn FnMut() + Send)) -> Vec<f32> {
        self.inner().embed_beside(text, beside)
    }

    fn full_scale(&self) -> f32 {
        self.inner().full_scale()
    }

    fn floor(&self) -> f32 {
        self.inner().floor()
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
    #[test]
    fn a_lazy_embedder_makes_its_model_once_on_first_use() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let made = Arc::new(AtomicUsize::new(0));
        let counter = made.clone();
        let lazy = LazyEmbedder::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            Box::new(HashedWords)
        });
        assert_eq!(made.load(Ordering::SeqCst), 0, "made before use");
        assert_eq!(lazy.embed("read a file"), HashedWords.embed("read a file"));
        assert_eq!(lazy.id(), HashedWords.id());
        assert_eq!(made.load(Ordering::SeqCst), 1);
    }

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
    fn the_static_model_pools_token_rows_and_a_missing_file_falls_back() {
        let bytes = nexus_embed::model_bytes(&[
            ("call", vec![10, 0, 0]),
            ("##ers", vec![0, 10, 0]),
            ("time", vec![0, 0, 10]),
        ]);
        let Ok(model) = StaticWords::from_bytes(&bytes) else {
            panic!("the test model reads");
        };
        assert_eq!(model.id(), "static-3x3");
        let q = model.embed("who are the callers");
        assert!(cosine(&q, &model.embed("call")) > cosine(&q, &model.embed("time")));
        assert_eq!(model.embed("zzz"), vec![0.0; 3]);
        let (fallback, why) =
            best_embedder_with(Some(Path::new("/nonexistent/model.nxse")), &|_| None);
        assert_eq!(fallback.id(), HashedWords.id());
        assert!(why.is_some_and(|w| w.contains("/nonexistent/model.nxse")));
        assert!(StaticWords::from_bytes(b"NXSE").is_err());
    }

    #[test]
    fn the_tuned_table_beside_the_model_wins_with_its_calibration()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let bytes = nexus_embed::model_bytes(&[("call", vec![10, 0]), ("time", vec![0, 10])]);
        let base = dir.path().join("static-minilm.nxse");
        std::fs::write(&base, &bytes)?;
        let no_env = |_: &str| None;
        let (plain, why) = best_embedder_with(Some(&base), &no_env);
        assert!(why.is_none());
        assert_eq!(
            (plain.id(), plain.floor()),
            ("static-2x2", StaticWords::FLOOR)
        );
        std::fs::write(dir.path().join(TOOL_MODEL_FILE), &bytes)?;
        std::fs::write(
            dir.path().join("jit-tools.json"),
            r#"{"floor": 0.3, "full_scale": 0.8}"#,
        )?;
        let (tuned, why) = best_embedder_with(Some(&base), &no_env);
        assert!(why.is_none());
        assert_eq!(tuned.id(), "static-2x2-jit-tools");
        assert_eq!((tuned.floor(), tuned.full_scale()), (0.3, 0.8));
        std::fs::write(
            dir.path().join("jit-tools.json"),
            r#"{"floor": 0.9, "full_scale": 0.8}"#,
        )?;
        assert!(StaticWords::load(&dir.path().join(TOOL_MODEL_FILE)).is_err());
        // A damaged tuned table leaves the built-in model.
        assert_eq!(
            best_embedder_with(Some(&base), &no_env).0.id(),
            "static-2x2"
        );
        Ok(())
    }

    #[test]
    fn empty_or_mismatched_vectors_are_zero() {
        let e = HashedWords;
        assert_eq!(cosine(&e.embed(""), &e.embed("file")), 0.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }
}
