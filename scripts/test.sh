#!/usr/bin/env bash
# Sets up what is missing, then runs every test: lint, native unit tests, browser (wasm) tests in
# headless Chromium, and end-to-end tests across the real bridge, MCP clients and Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# CI builds once from a clean clone: incremental caches would only cost disk, which is short there.
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi

step() { printf '\n== %s\n' "$*" >&2; }
# Every test runner's output is also kept here, for the closing total.
results=$(mktemp)

step "format and lint"
df -h . >&2
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p nexus-bridge --features conformance-fixtures --all-targets --locked -- -D warnings
cargo clippy -p nexus-engine -p nexus-tools -p nexus-web --target wasm32-unknown-unknown --all-targets --locked -- -D warnings

step "build the web UI, the bridge and the test servers"
trunk build >&2
# A C function a grammar calls that the wasm libc lacks compiles to an import from "env", which
# no page can load (the worker dies before its first message): name it here, not in a timeout.
node scripts/wasm-imports.mjs dist/*.wasm
cargo build --locked -p nexus-bridge -p nexus-e2e --bins
# The bridge with the MCP conformance suite's fixtures (tests/e2e/conformance.rs; never released).
cargo build --locked -p nexus-bridge --features conformance-fixtures --bin nexus-bridge-conformance

# Binaries land in cargo's target folder (CARGO_TARGET_DIR when set); the e2e tests find the
# bridge through NEXUS_BRIDGE_BIN.
bin_dir="${CARGO_TARGET_DIR:-target}/debug"
export NEXUS_BRIDGE_BIN=${NEXUS_BRIDGE_BIN:-$(cd "$bin_dir" && pwd)/nexus-bridge}

step "browser tests (wasm-pack, headless Chromium)"
flap_port=${NEXUS_FLAP_PORT:-54398}
"$bin_dir/flap-server" "$flap_port" 2>/dev/null &
flap_pid=$!
trap 'kill "$flap_pid" 2>/dev/null || true' EXIT
export CHROMEDRIVER=${CHROMEDRIVER:-$(command -v chromedriver)}
# The runner gives ChromeDriver 5 s to bind its port; a cold start on a fresh machine can take longer
# (CI once saw it killed at 5 s), so it gets two minutes, restarted every 10 s as the runner does.
export WASM_BINDGEN_TEST_DRIVER_TIMEOUT=${WASM_BINDGEN_TEST_DRIVER_TIMEOUT:-120}
export NEXUS_FLAP_URL="ws://127.0.0.1:${flap_port}/ws"
(cd web && wasm-pack test --headless --chrome --mode no-install) 2>&1 | tee -a "$results"

step "native unit tests and end-to-end tests"
NEXUS_UI_DIR="$(pwd)/dist" cargo test --workspace --locked 2>&1 | tee -a "$results"

df -h . >&2
du -sh "${CARGO_TARGET_DIR:-target}" >&2

# One closing line for all runners (cargo's own last line is a doc-test run of 0 tests).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i == "passed;") p += $(i-1); if ($i == "failed;") f += $(i-1) } }
     END { printf "%d passed, %d failed\n", p, f }' "$results"
