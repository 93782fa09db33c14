"""Distils Nexus's built-in static embedding model from all-MiniLM-L6-v2 (model2vec's method).

Each vocabulary token is run once through the sentence transformer as the sentence
"[CLS] token [SEP]" (mean pooled, as the model pools sentences); the vectors are PCA-reduced,
weighted by a Zipf estimate of each token's frequency (SIF), and stored int8 with a scale per row.
At run time a text's vector is the mean of its tokens' rows (engine/src/embed/model.rs).

model2vec's own distiller needs torch and transformers (gigabytes); a 6-layer BERT forward pass
is a few lines of numpy, so this script needs only numpy and the safetensors file.

Usage: distill_model.py MODEL_DIR OUT_FILE [DIMS]
Output format (little-endian): b"NXSE", u32 version=1, u32 dims, u32 rows; rows x (u8 length,
UTF-8 token); rows x f32 scale; rows x dims i8.
"""

import json
import math
import os
import struct
import sys

# One BLAS thread: on a busy machine OpenBLAS's spinning threads made this ten times slower.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

SIF_COEFFICIENT = 1e-4
BATCH = 1024


def load_safetensors(path):
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[start:end], dtype="<f4").reshape(info["shape"])
    return tensors


def layer_norm(x, w, b, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def gelu(x):
    # BERT's exact GELU, 0.5 x (1 + erf(x / sqrt 2)), with erf from Abramowitz-Stegun 7.1.26.
    z = x / math.sqrt(2.0)
    sign = np.sign(z)
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = sign * (1.0 - poly * np.exp(-a * a))
    return 0.5 * x * (1.0 + erf)


def forward(t, ids, config):
    heads = config["num_attention_heads"]
    hidden = config["hidden_size"]
    head_dim = hidden // heads
    batch, seq = ids.shape
    x = (
        t["embeddings.word_embeddings.weight"][ids]
        + t["embeddings.position_embeddings.weight"][:seq][None]
        + t["embeddings.token_type_embeddings.weight"][0][None, None]
    )
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"])
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."

        def lin(v, name):
            return v @ t[p + name + ".weight"].T + t[p + name + ".bias"]

        def split(v):
            return v.reshape(batch, seq, heads, head_dim).transpose(0, 2, 1, 3)

        q = split(lin(x, "attention.self.query"))
        k = split(lin(x, "attention.self.key"))
        v = split(lin(x, "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head_dim)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
        x = layer_norm(lin(ctx, "attention.output.dense") + x,
                       t[p + "attention.output.LayerNorm.weight"], t[p + "attention.output.LayerNorm.bias"])
        h = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(lin(h, "output.dense") + x,
                       t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"])
    return x.mean(1)


def main():
    model_dir, out = sys.argv[1], sys.argv[2]
    dims = int(sys.argv[3]) if len(sys.argv) > 3 else 256
    config = json.load(open(f"{model_dir}/config.json"))
    vocab = [line.rstrip("\n") for line in open(f"{model_dir}/vocab.txt", encoding="utf-8")]
    tensors = load_safetensors(f"{model_dir}/model.safetensors")
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    # Special tokens and non-ASCII ones (scripts code is rarely written in) are left out.
    keep = [i for i, tok in enumerate(vocab)
            if tok.isascii() and not (tok.startswith("[") and tok.endswith("]"))]
    rows = []
    for start in range(0, len(keep), BATCH):
        chunk = np.array(keep[start:start + BATCH])
        ids = np.stack([np.full_like(chunk, cls), chunk, np.full_like(chunk, sep)], axis=1)
        rows.append(forward(tensors, ids, config).astype(np.float32))
        print(f"[distill] {min(start + BATCH, len(keep))}/{len(keep)} tokens", file=sys.stderr)
    emb = np.concatenate(rows)
    emb -= emb.mean(0)
    _, vecs = np.linalg.eigh(np.cov(emb, rowvar=False))
    emb = emb @ vecs[:, ::-1][:, :dims]
    # Zipf: a token's frequency falls with its rank in the vocabulary (the original ids).
    rank = np.array(keep, dtype=np.float64) + 2.0
    proba = (1.0 / rank) / np.sum(1.0 / np.arange(2, len(vocab) + 2))
    emb *= (SIF_COEFFICIENT / (SIF_COEFFICIENT + proba))[:, None]
    scale = np.abs(emb).max(1) / 127.0
    scale[scale == 0] = 1.0
    quant = np.clip(np.round(emb / scale[:, None]), -127, 127).astype(np.int8)
    with open(out, "wb") as f:
        f.write(b"NXSE" + struct.pack("<III", 1, dims, len(keep)))
        for i in keep:
            token = vocab[i].encode("utf-8")
            f.write(struct.pack("<B", len(token)) + token)
        f.write(scale.astype("<f4").tobytes())
        f.write(quant.tobytes())
    print(f"[distill] wrote {out}: {len(keep)} tokens x {dims} dims", file=sys.stderr)


if __name__ == "__main__":
    main()
