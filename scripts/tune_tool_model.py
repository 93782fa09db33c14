"""Tunes the built-in static model for requests <-> tools: the JIT tool compiler's own table.

A linear map W (dims x dims, starting at the identity) is learned with a contrastive loss
(InfoNCE, in-batch negatives, pulled toward the identity) so that a request and the tool that
answers it pool to nearby vectors. Pairs come from the LEARNING servers of
jit/fixtures/registry/servers.json only (split by package hash; held-out servers are never
read): each tool's description sentences and its name, parameter names and parameter
descriptions against the rest of the tool's text, and the requests of
jit/bench/learning-servers.json against their tools. Pooling is linear before normalising, so
W is baked into the rows: the output is a model file of the same format and vocabulary
(rows x W), with a JSON beside it giving the cosine that counts as no match (floor) and as a
perfect one (full_scale), measured on the learning pairs.

Usage: tune_tool_model.py MODEL_IN OUT_FILE  (numpy only; about a minute on one core). The
calibration goes to OUT_FILE's name with .json (a trailing .tmp dropped first).
"""

import json
import os
import pathlib
import re
import struct
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED = 29
EPOCHS = 40
BATCH = 256
TEMPERATURE = 0.05
LEARNING_RATE = 2e-3
TO_IDENTITY = 1e-2  # weight of |W - I|^2
REQUEST_REPEATS = 4  # requests written as people write them weigh more than description views


def read_model(path):
    data = pathlib.Path(path).read_bytes()
    assert data[:4] == b"NXSE", "not a Nexus model file"
    version, dims, rows = struct.unpack_from("<III", data, 4)
    assert version == 1
    at = 16
    tokens = []
    for _ in range(rows):
        n = data[at]
        tokens.append(data[at + 1:at + 1 + n].decode())
        at += 1 + n
    scales = np.frombuffer(data, "<f4", rows, at)
    at += rows * 4
    table = np.frombuffer(data, "i1", rows * dims, at).reshape(rows, dims).astype(np.float32)
    return tokens, table * scales[:, None]


def write_model(path, tokens, table):
    dims = table.shape[1]
    top = np.abs(table).max(axis=1)
    scales = np.where(top > 0, top / 127.0, 1.0).astype("<f4")
    q = np.clip(np.round(table / scales[:, None]), -127, 127).astype("i1")
    with open(path, "wb") as f:
        f.write(b"NXSE" + struct.pack("<III", 1, dims, len(tokens)))
        for t in tokens:
            b = t.encode()
            f.write(bytes([len(b)]) + b)
        f.write(scales.tobytes())
        f.write(q.tobytes())


def words(text):
    """embed/src/wordpiece.rs `words`: identifier parts, lowercased."""
    out = []
    for run in re.split(r"[^0-9A-Za-z\u00C0-\uFFFF]+", text):
        current, prev = "", None
        for i, c in enumerate(run):
            nxt = run[i + 1] if i + 1 < len(run) else ""
            boundary = prev is not None and (
                (c.isupper() and (prev.islower() or (prev.isupper() and nxt.islower())))
                or (c.isdigit() != prev.isdigit()))
            if boundary and current:
                out.append(current)
                current = ""
            current += c.lower()
            prev = c
        if current:
            out.append(current)
    return out


class Tokenizer:
    def __init__(self, tokens):
        self.vocab = {t: i for i, t in enumerate(tokens)}
        self.cache = {}

    def pieces(self, word):
        if word in self.cache:
            return self.cache[word]
        out, start = [], 0
        if len(word) > 100:
            self.cache[word] = []
            return []
        while start < len(word):
            end, found = len(word), None
            while end > start:
                piece = ("##" if start else "") + word[start:end]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                end -= 1
            if found is None:
                out = []
                break
            out.append(found)
            start = end
        self.cache[word] = out
        return out

    def ids(self, text):
        return [i for w in words(text) for i in self.pieces(w)]


def sentences(text):
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.split()) >= 3]


def tool_text(tool):
    return "%s %s" % (tool["name"], tool.get("description") or "")


def pairs_of(tool):
    """Views of one tool that should land near the tool's text."""
    name = " ".join(words(tool["name"]))
    desc = tool.get("description") or ""
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    prop_names = " ".join(props) if isinstance(props, dict) else ""
    views = []
    parts = sentences(desc)
    for s in parts[:4]:
        views.append(("%s %s" % (s, prop_names), "%s %s" % (name, " ".join(p for p in parts if p != s) or name)))
    if desc:
        views.append(("%s %s" % (name, prop_names), desc))
    if isinstance(props, dict):
        for key, prop in list(props.items())[:6]:
            d = prop.get("description") if isinstance(prop, dict) else None
            if isinstance(d, str) and len(d.split()) >= 3:
                views.append(("%s %s" % (key, d), tool_text(tool)))
    return views


def pool(table, ids_list):
    out = np.zeros((len(ids_list), table.shape[1]), np.float32)
    for i, ids in enumerate(ids_list):
        if ids:
            out[i] = table[ids].mean(axis=0)
    return out


def normalise(x):
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(n, 1e-8)


def main():
    model_in, out = sys.argv[1], sys.argv[2]
    tokens, table = read_model(model_in)
    tok = Tokenizer(tokens)
    servers = json.loads((ROOT / "jit/fixtures/registry/servers.json").read_text())
    learning = [s for s in servers if s["split"] == "learning"]
    tools = {}
    queries, docs, weights = [], [], []
    for s in learning:
        for t in s["tools"]:
            tools["%s:%s" % (s["package"], t["name"])] = t
            for q, d in pairs_of(t):
                queries.append(q)
                docs.append(d)
    requests = json.loads((ROOT / "jit/bench/learning-servers.json").read_text())["tasks"]
    # learning-servers.json names tools by the bench's server id; map back by tool name + server.
    by_bench_id = {}
    for s in learning:
        bench_id = s["package"].lstrip("@").replace("/", "-")
        for t in s["tools"]:
            by_bench_id["%s:%s" % (bench_id, t["name"])] = t
            by_bench_id["%s-py:%s" % (bench_id, t["name"])] = t
    request_pairs = []
    for task in requests:
        for need in task["needs"]:
            for tool_id in need:
                t = by_bench_id.get(tool_id)
                if t is not None:
                    request_pairs.append((task["question"], tool_text(t)))
    for _ in range(REQUEST_REPEATS):
        for q, d in request_pairs:
            queries.append(q)
            docs.append(d)
    print("learning servers %d, tools %d, pairs %d (%d from requests)" % (
        len(learning), len(tools), len(queries), len(request_pairs)), file=sys.stderr)
    q_raw = pool(table, [tok.ids(q) for q in queries])
    d_raw = pool(table, [tok.ids(d) for d in docs])
    keep = (np.abs(q_raw).sum(1) > 0) & (np.abs(d_raw).sum(1) > 0)
    q_raw, d_raw = q_raw[keep], d_raw[keep]
    dims = table.shape[1]
    rng = np.random.default_rng(SEED)
    w = np.eye(dims, dtype=np.float32)
    m, v = np.zeros_like(w), np.zeros_like(w)
    step = 0
    for epoch in range(EPOCHS):
        order = rng.permutation(len(q_raw))
        total = 0.0
        for at in range(0, len(order), BATCH):
            idx = order[at:at + BATCH]
            if len(idx) < 8:
                continue
            qa, da = q_raw[idx] @ w, d_raw[idx] @ w
            qn_len = np.linalg.norm(qa, axis=1, keepdims=True) + 1e-8
            dn_len = np.linalg.norm(da, axis=1, keepdims=True) + 1e-8
            qn, dn = qa / qn_len, da / dn_len
            logits = qn @ dn.T / TEMPERATURE
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            n = len(idx)
            total += -np.log(p[np.arange(n), np.arange(n)] + 1e-12).sum()
            g = p.copy()
            g[np.arange(n), np.arange(n)] -= 1.0
            g /= n * TEMPERATURE
            g_qn, g_dn = g @ dn, g.T @ qn
            g_qa = (g_qn - qn * (g_qn * qn).sum(1, keepdims=True)) / qn_len
            g_da = (g_dn - dn * (g_dn * dn).sum(1, keepdims=True)) / dn_len
            grad = q_raw[idx].T @ g_qa + d_raw[idx].T @ g_da + 2 * TO_IDENTITY * (w - np.eye(dims))
            step += 1
            m = 0.9 * m + 0.1 * grad
            v = 0.999 * v + 0.001 * grad * grad
            w -= LEARNING_RATE * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
        if epoch % 10 == 9:
            print("epoch %d loss %.3f" % (epoch + 1, total / len(q_raw)), file=sys.stderr)
    tuned = table @ w
    # Calibration on the learning requests: a matched pair's typical cosine is a perfect match,
    # an unmatched pair's 90th percentile is no match.
    qs = normalise(pool(tuned, [tok.ids(q) for q, _ in request_pairs]))
    ds = normalise(pool(tuned, [tok.ids(d) for _, d in request_pairs]))
    sims = qs @ ds.T
    positive = float(np.median(np.diag(sims)))
    mask = ~np.eye(len(qs), dtype=bool)
    floor = float(np.quantile(sims[mask], 0.9))
    write_model(out, tokens, tuned)
    calibration = {"floor": round(floor, 3), "full_scale": round(max(positive, floor + 0.1), 3),
                   "learning_servers": len(learning), "pairs": int(keep.sum())}
    side = pathlib.Path(out[:-4] if out.endswith(".tmp") else out).with_suffix(".json")
    side.write_text(json.dumps(calibration) + "\n")
    print("wrote %s: %s" % (out, calibration), file=sys.stderr)


main()
