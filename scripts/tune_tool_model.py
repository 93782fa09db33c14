"""Tunes the built-in static model for requests <-> tools: the JIT tool compiler's own table.

A linear map W (dims x dims, starting at the identity) and a correction per token row (starting
at zero, pulled back toward it; only rows a batch uses move) are learned with a contrastive loss
(InfoNCE, in-batch negatives, W pulled toward the identity) so that a request and the tool that
answers it pool to nearby vectors. Pairs come from the LEARNING servers of
jit/fixtures/registry/servers.json only (split by package hash; held-out servers are never
read): each tool's description sentences and its name, parameter names and parameter
descriptions against the rest of the tool's text, and requests made from each tool by templates
(its description's first clause or its name as an order or a question, with the openings and
endings people type and a value for a parameter: "can you create a new issue in a repository
titled Weekly sync") against the tool's text. The person-written requests of
jit/bench/learning-servers.json are not trained on: they are the validation printed at the end
(rank of the needed tool among all learning tools, by similarity alone) and the calibration.
Pooling is linear before normalising, so both are baked into the rows: the output is a model
file of the same format and vocabulary ((rows + correction) x W), with a JSON beside it giving
the cosine that counts as no match (floor) and as a perfect one (full_scale), measured on the
learning requests.

Usage: tune_tool_model.py MODEL_IN OUT_FILE  (numpy only; a few minutes on one core; EPOCHS,
ROW_LR and TO_ZERO in the environment override the defaults below). The
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
EPOCHS = int(os.environ.get("EPOCHS", "10"))  # the count measured (more not tried to the end)
BATCH = 256
TEMPERATURE = 0.05
LEARNING_RATE = 2e-3
TO_IDENTITY = 1e-2  # weight of |W - I|^2
TEMPLATE_REQUESTS = 3  # requests made by templates per tool
ROW_LEARNING_RATE = float(os.environ.get("ROW_LR", "1e-3"))  # the per-token corrections' step
TO_ZERO = float(os.environ.get("TO_ZERO", "1e-3"))  # weight of |correction|^2


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


OPENINGS = ["", "", "please ", "can you ", "could you ", "i want to ", "i need to ", "help me ",
            "go ahead and ", "i'd like to ", "let's "]
ENDINGS = ["", "", "", " please", " for me", " now", " thanks"]
ASKING = ["show me ", "what are ", "tell me ", "i want to see ", "give me ", "look up "]
READ_VERBS = {"get", "list", "retrieve", "fetch", "return", "show", "read", "search", "find",
              "query", "lookup", "view", "describe", "check"}
# Values a person types after a parameter's kind, by words of the parameter's name.
VALUES = [
    ({"path", "file", "filename", "filepath", "dir", "directory", "folder"},
     ["notes/todo.md", "src/main.py", "reports/2024-q3.csv", "docs"]),
    ({"url", "uri", "link", "href", "endpoint"}, ["https://example.com/pricing", "example.org"]),
    ({"id", "uid", "uuid", "key", "number"}, ["42", "A-1093", "7f3e9c"]),
    ({"email", "mail"}, ["ann@example.com"]),
    ({"name", "title", "label", "subject"}, ["Weekly sync", "Carol", "release notes"]),
    ({"query", "q", "search", "term", "keyword", "keywords", "text", "prompt"},
     ["the login bug", "cheap flights", "rust async"]),
    ({"message", "content", "body", "comment", "description", "note", "notes"},
     ["looks good to me", "the build is fixed", "see you at noon"]),
    ({"date", "time", "start", "end", "since", "until", "when", "datetime"},
     ["tomorrow at 3pm", "last week", "2024-05-01"]),
    ({"city", "location", "address", "place", "country", "region"}, ["Lisbon", "Berlin"]),
    ({"repo", "repository", "owner", "project", "org", "team", "workspace"},
     ["acme/web", "the infra team"]),
    ({"limit", "count", "max", "size", "page", "top"}, ["10", "the first 5"]),
]


def verb_base(word):
    """An order's verb from a description's third person ("Creates" -> "create")."""
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


def first_clause(desc):
    """The description's first clause as an order, at most 12 words, or None."""
    text = re.sub(r"\s+", " ", re.sub(r"[`*_#\[\]]", " ", desc)).strip()
    text = re.split(r"(?<=[.!?:;])\s|\s[-(]\s?|, (?:which|that|and returns|returning)\b", text)[0]
    text = re.sub(r"^(?:this tool |tool to |use this (?:tool )?to |allows you to |a tool (?:to|that) |"
                  r"used to |lets you |enables you to |helps? (?:you )?)", "", text, flags=re.I)
    ws = text.rstrip(".!?:;").split()
    if len(ws) < 2:
        return None
    return " ".join([verb_base(ws[0])] + ws[1:12])


def value_for(key):
    parts = set(words(key))
    for kinds, values in VALUES:
        if parts & kinds:
            return values
    return None


def requests_of(tool, rng, count):
    """Requests a person might type for `tool`, made by templates from its text."""
    desc = tool.get("description") or ""
    name = " ".join(words(tool["name"]))
    props = (tool.get("inputSchema") or {}).get("properties") or {}
    keys = list(props) if isinstance(props, dict) else []
    required = (tool.get("inputSchema") or {}).get("required") or []
    keys = [k for k in required if k in keys] + [k for k in keys if k not in required]
    cores = [c for c in (first_clause(desc), name if len(name.split()) >= 2 else None) if c]
    out = []
    for _ in range(count if cores else 0):
        core = cores[rng.integers(len(cores))]
        first, _, rest = core.partition(" ")
        if first in READ_VERBS and rest and rng.random() < 0.5:
            text = ASKING[rng.integers(len(ASKING))] + rest
        else:
            text = OPENINGS[rng.integers(len(OPENINGS))] + core
        for key in keys[:2]:
            values = value_for(key)
            if values is not None and rng.random() < 0.6:
                value = values[rng.integers(len(values))]
                label = " ".join(words(key)) if rng.random() < 0.5 else ""
                text += " %s %s" % (label, value) if label else " " + value
        out.append(text + ENDINGS[rng.integers(len(ENDINGS))])
    return out


def ranks(tuned, tok, requests, texts, needs):
    """The rank (0 = first) of each request's best needed tool among `texts` by cosine."""
    qs = normalise(pool(tuned, [tok.ids(q) for q in requests]))
    ds = normalise(pool(tuned, [tok.ids(d) for d in texts]))
    sims = qs @ ds.T
    out = []
    for i, need in enumerate(needs):
        if not need:
            continue
        best = max(sims[i, j] for j in need)
        out.append(int((sims[i] > best).sum()))
    return out


def validation_line(label, rs):
    rs = np.array(rs)
    return "%s: %d requests, top-1 %.1f %%, top-5 %.1f %%, top-20 %.1f %%, MRR %.3f" % (
        label, len(rs), 100 * (rs < 1).mean(), 100 * (rs < 5).mean(), 100 * (rs < 20).mean(),
        (1.0 / (rs + 1)).mean())


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
    rng = np.random.default_rng(SEED)
    tools = {}
    queries, docs = [], []
    made = 0
    for s in learning:
        for t in s["tools"]:
            tools["%s:%s" % (s["package"], t["name"])] = t
            for q, d in pairs_of(t):
                queries.append(q)
                docs.append(d)
            for q in requests_of(t, rng, TEMPLATE_REQUESTS):
                queries.append(q)
                docs.append(tool_text(t))
                made += 1
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
    print("learning servers %d, tools %d, pairs %d (%d requests made by templates)" % (
        len(learning), len(tools), len(queries), made), file=sys.stderr)
    for example in queries[-3:]:
        print("  e.g. %r" % example, file=sys.stderr)
    tool_texts = [tool_text(t) for t in tools.values()]
    position = {id(t): i for i, t in enumerate(tools.values())}
    val_requests = [task["question"] for task in requests]
    val_needs = [[position[id(by_bench_id[x])] for need in task["needs"] for x in need
                  if x in by_bench_id and id(by_bench_id[x]) in position] for task in requests]
    print(validation_line("validation before (built-in model)",
                          ranks(table, tok, val_requests, tool_texts, val_needs)), file=sys.stderr)
    q_ids = [np.array(tok.ids(q), np.int64) for q in queries]
    d_ids = [np.array(tok.ids(d), np.int64) for d in docs]
    keep = [i for i in range(len(q_ids)) if len(q_ids[i]) and len(d_ids[i])]
    q_ids, d_ids = [q_ids[i] for i in keep], [d_ids[i] for i in keep]
    dims = table.shape[1]
    # Parameters: W (dims x dims, from the identity) and a correction per token row (from zero),
    # both pulled back toward their start; only the rows a batch uses are updated (lazy Adam).
    w = np.eye(dims, dtype=np.float32)
    delta = np.zeros_like(table)
    mw, vw = np.zeros_like(w), np.zeros_like(w)
    md, vd = np.zeros_like(table), np.zeros_like(table)
    steps_of_row = np.zeros(len(table), np.int64)
    step = 0

    def pooled(batch_ids):
        """Mean rows of each text, and what the backward pass needs."""
        flat = np.concatenate(batch_ids)
        seg = np.repeat(np.arange(len(batch_ids)), [len(x) for x in batch_ids])
        inv = 1.0 / np.array([len(x) for x in batch_ids], np.float32)
        out = np.zeros((len(batch_ids), dims), np.float32)
        np.add.at(out, seg, table[flat] + delta[flat])
        return out * inv[:, None], (flat, seg, inv)

    for epoch in range(EPOCHS):
        order = rng.permutation(len(q_ids))
        total = 0.0
        for at in range(0, len(order), BATCH):
            idx = order[at:at + BATCH]
            if len(idx) < 8:
                continue
            q_raw, q_saved = pooled([q_ids[i] for i in idx])
            d_raw, d_saved = pooled([d_ids[i] for i in idx])
            qa, da = q_raw @ w, d_raw @ w
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
            grad = q_raw.T @ g_qa + d_raw.T @ g_da + 2 * TO_IDENTITY * (w - np.eye(dims))
            step += 1
            mw = 0.9 * mw + 0.1 * grad
            vw = 0.999 * vw + 0.001 * grad * grad
            w -= LEARNING_RATE * (mw / (1 - 0.9 ** step)) / (np.sqrt(vw / (1 - 0.999 ** step)) + 1e-8)
            if ROW_LEARNING_RATE > 0:
                rows = np.unique(np.concatenate([q_saved[0], d_saved[0]]))
                gr = np.zeros((len(rows), dims), np.float32)
                for raw_grad, saved in ((g_qa @ w.T, q_saved), (g_da @ w.T, d_saved)):
                    flat, seg, inv = saved
                    np.add.at(gr, np.searchsorted(rows, flat), raw_grad[seg] * inv[seg][:, None])
                gr += 2 * TO_ZERO * delta[rows]
                steps_of_row[rows] += 1
                t = steps_of_row[rows][:, None]
                md[rows] = 0.9 * md[rows] + 0.1 * gr
                vd[rows] = 0.999 * vd[rows] + 0.001 * gr * gr
                delta[rows] -= ROW_LEARNING_RATE * (md[rows] / (1 - 0.9 ** t)) / (
                    np.sqrt(vd[rows] / (1 - 0.999 ** t)) + 1e-8)
        if epoch % 10 == 9 or epoch == EPOCHS - 1:
            print("epoch %d loss %.3f" % (epoch + 1, total / len(q_ids)), file=sys.stderr)
    tuned = (table + delta) @ w
    print(validation_line("validation after (tuned table)",
                          ranks(tuned, tok, val_requests, tool_texts, val_needs)), file=sys.stderr)
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
                   "learning_servers": len(learning), "pairs": len(keep)}
    side = pathlib.Path(out[:-4] if out.endswith(".tmp") else out).with_suffix(".json")
    side.write_text(json.dumps(calibration) + "\n")
    print("wrote %s: %s" % (out, calibration), file=sys.stderr)


main()
