//! The built-in static embedding model: one int8 vector per WordPiece token (distilled once from
//! a sentence transformer by `scripts/distill_model.py`); a text's vector is its tokens' mean.

use rustc_hash::FxHashMap as HashMap;

use super::wordpiece::{pieces, words};

const MAGIC: &[u8; 4] = b"NXSE";
const VERSION: u32 = 1;
/// Largest accepted width, so a damaged header cannot ask for absurd allocations.
const MAX_DIMS: usize = 4096;
/// Word → token ids cache bound: identifiers repeat, but a cache must not grow without end.
const MAX_CACHED_WORDS: usize = 200_000;

/// A static embedding table and its vocabulary.
pub struct StaticModel {
    dims: usize,
    vocab: HashMap<String, u32>,
    scales: Vec<f32>,
    rows: Vec<i8>,
}

/// Words already cut into token ids, kept by a caller that embeds many texts.
#[derive(Default)]
pub struct WordCache(HashMap<String, Vec<u32>>);

impl std::fmt::Debug for StaticModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticModel")
            .field("dims", &self.dims)
            .field("tokens", &self.scales.len())
            .finish()
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("the model file ends early (at byte {})", self.at))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

impl StaticModel {
    /// Reads a model file (format in `scripts/distill_model.py`); a damaged file is an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<StaticModel, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4)? != MAGIC {
            return Err("not a Nexus embedding model (bad magic)".into());
        }
        let version = r.u32()?;
        if version != VERSION {
            return Err(format!("model format {version}, expected {VERSION}"));
        }
        let dims = r.u32()? as usize;
        let count = r.u32()? as usize;
        if dims == 0 || dims > MAX_DIMS || count > bytes.len() {
            return Err(format!("implausible model shape {count} x {dims}"));
        }
        let mut vocab = HashMap::default();
        for id in 0..count {
            let len = r.take(1)?[0] as usize;
            let token = std::str::from_utf8(r.take(len)?)
                .map_err(|_| format!("token {id} is not UTF-8"))?;
            vocab.insert(token.to_owned(), id as u32);
        }
        let scales = r
            .take(count * 4)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let rows = r.take(count * dims)?.iter().map(|&b| b as i8).collect();
        if r.at != bytes.len() {
            return Err("trailing bytes after the model's rows".into());
        }
        Ok(StaticModel {
            dims,
            vocab,
            scales,
            rows,
        })
    }

    /// The width of its vectors.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// How many tokens it knows.
    pub fn tokens(&self) -> usize {
        self.scales.len()
    }

    /// The unit-length mean of the tokens of `text`; `None` when no word of it is known.
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        self.pool(&self.token_ids(text, &mut WordCache::default()), &|_| 1.0)
    }

    /// The token ids of `text`, reusing the word pieces found for earlier texts.
    pub fn token_ids(&self, text: &str, cache: &mut WordCache) -> Vec<u32> {
        let cache = &mut cache.0;
        let mut out = Vec::new();
        for word in words(text) {
            if let Some(ids) = cache.get(&word) {
                out.extend_from_slice(ids);
                continue;
            }
            if cache.len() >= MAX_CACHED_WORDS {
                cache.clear();
            }
            let ids = pieces(&word, &self.vocab).unwrap_or_default();
            out.extend_from_slice(&ids);
            cache.insert(word, ids);
        }
        out
    }

    /// The row of token `id` as floats (its scale applied), `None` for an unknown id.
    pub fn row(&self, id: u32) -> Option<Vec<f32>> {
        let i = id as usize;
        let scale = *self.scales.get(i)?;
        let row = self.rows.get(i * self.dims..(i + 1) * self.dims)?;
        Some(row.iter().map(|&v| v as f32 * scale).collect())
    }

    /// This model's vocabulary with `rows` (one float row per token, in token id order) in
    /// place of its own, as a model file; rows of the wrong total length are an error.
    pub fn with_rows(&self, rows: &[f32]) -> Result<Vec<u8>, String> {
        if rows.len() != self.tokens() * self.dims {
            return Err(format!(
                "{} values for {} rows of {}",
                rows.len(),
                self.tokens(),
                self.dims
            ));
        }
        let mut tokens = vec![""; self.tokens()];
        for (token, &id) in &self.vocab {
            tokens[id as usize] = token;
        }
        let mut scales = Vec::with_capacity(self.tokens());
        let mut quantized = Vec::with_capacity(rows.len());
        for row in rows.chunks_exact(self.dims) {
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            let scale = if max > 0.0 && max.is_finite() {
                max / 127.0
            } else {
                1.0
            };
            scales.push(scale);
            quantized.extend(
                row.iter()
                    .map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8),
            );
        }
        Ok(encode(&tokens, self.dims, &scales, &quantized))
    }

    /// The unit-length weighted mean of the rows of `ids`; `None` when it is zero.
    pub fn pool(&self, ids: &[u32], weight: &dyn Fn(u32) -> f32) -> Option<Vec<f32>> {
        let mut sum = vec![0f32; self.dims];
        for &id in ids {
            let i = id as usize;
            let (Some(&scale), Some(row)) = (
                self.scales.get(i),
                self.rows.get(i * self.dims..(i + 1) * self.dims),
            ) else {
                continue;
            };
            let w = scale * weight(id);
            for (s, &v) in sum.iter_mut().zip(row) {
                *s += v as f32 * w;
            }
        }
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return None;
        }
        sum.iter_mut().for_each(|v| *v /= norm);
        Some(sum)
    }
}

/// A model file (the distiller's format) of `tokens` with `dims`-wide int8 `rows`, each scaled
/// back by its entry of `scales`.
fn encode(tokens: &[&str], dims: usize, scales: &[f32], rows: &[i8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for v in [VERSION, dims as u32, tokens.len() as u32] {
        out.extend(v.to_le_bytes());
    }
    for t in tokens {
        out.push(t.len() as u8);
        out.extend(t.as_bytes());
    }
    for s in scales {
        out.extend(s.to_le_bytes());
    }
    out.extend(rows.iter().map(|&v| v as u8));
    out
}

/// A model file of `tokens` with the given rows, written as the distiller writes them (for
/// tests of the crates that embed).
pub fn model_bytes(tokens: &[(&str, Vec<i8>)]) -> Vec<u8> {
    let dims = tokens.first().map_or(1, |(_, r)| r.len());
    let names: Vec<&str> = tokens.iter().map(|(t, _)| *t).collect();
    let rows: Vec<i8> = tokens.iter().flat_map(|(_, r)| r.iter().copied()).collect();
    encode(&names, dims, &vec![1.0; tokens.len()], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> StaticModel {
        StaticModel::from_bytes(&model_bytes(&[
            ("hash", vec![10, 0, 0]),
            ("password", vec![0, 10, 0]),
            ("##s", vec![0, 0, 10]),
        ]))
        .unwrap()
    }

    #[test]
    fn a_text_is_the_unit_mean_of_its_tokens() {
        let m = model();
        assert_eq!((m.dims(), m.tokens()), (3, 3));
        let v = m.embed("hashPassword").unwrap();
        assert!((v[0] - v[1]).abs() < 1e-6 && v[2] == 0.0);
        assert!((v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
        assert_eq!(m.embed("hashs").unwrap()[2], v[0]);
        assert_eq!(m.row(1), Some(vec![0.0, 10.0, 0.0]));
        assert_eq!(m.row(3), None);
        assert!(m.embed("zzz ???").is_none());
    }

    #[test]
    fn new_rows_keep_the_vocabulary_and_round_trip_within_quantization() {
        let m = model();
        let rows = [0.5, -1.0, 0.25, 0.0, 0.0, 0.0, 3.0, 2.0, 1.0];
        let tuned = StaticModel::from_bytes(&m.with_rows(&rows).unwrap()).unwrap();
        assert_eq!((tuned.dims(), tuned.tokens()), (3, 3));
        assert_eq!(
            tuned.token_ids("hashPasswords", &mut WordCache::default()),
            [0, 1, 2]
        );
        let row = tuned.row(0).unwrap();
        assert!(
            row.iter()
                .zip(&rows[..3])
                .all(|(a, b)| (a - b).abs() < 0.01),
            "{row:?}"
        );
        assert_eq!(tuned.row(1), Some(vec![0.0; 3]));
        assert!(m.with_rows(&rows[..8]).is_err());
    }

    #[test]
    fn damaged_files_are_errors() {
        let good = model_bytes(&[("hash", vec![1, 2])]);
        for n in 0..good.len() {
            assert!(StaticModel::from_bytes(&good[..n]).is_err(), "cut at {n}");
        }
        let mut extra = good.clone();
        extra.push(0);
        assert!(StaticModel::from_bytes(&extra).is_err());
        assert!(StaticModel::from_bytes(b"JUNKJUNKJUNKJUNK").is_err());
        assert!(StaticModel::from_bytes(&good).is_ok());
    }

    /// The built-in model that `scripts/setup.sh` distils: plain words land near the code
    /// identifiers that mean the same.
    #[test]
    fn the_built_in_model_relates_words_to_identifiers() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../model/static-minilm.nxse");
        let bytes = std::fs::read(path).unwrap_or_else(|e| {
            panic!("{path}: {e}; scripts/setup.sh writes the built-in model there")
        });
        let m = StaticModel::from_bytes(&bytes).unwrap();
        let cos = |a: &str, b: &str| {
            let (a, b) = (m.embed(a).unwrap(), m.embed(b).unwrap());
            a.iter().zip(&b).map(|(x, y)| x * y).sum::<f32>()
        };
        let q = "hash a password before storing it";
        assert!(cos(q, "make_password") > cos(q, "paginate_queryset"));
        let q = "split a long list of results into pages";
        assert!(cos(q, "Paginator.get_page") > cos(q, "check_password"));
    }
}
