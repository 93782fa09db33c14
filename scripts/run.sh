#!/usr/bin/env bash
# Sets up what is missing, builds the web UI and the bridge (release), and runs the hub + UI with
# the sample repository (or REPO=path) loaded. Open the link it prints last (it carries the tab's
# secret; `nexus-bridge status --link` prints it again); agents launch the same binary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
trunk build --release >&2
cargo build --release -p nexus-bridge >&2
port=${NEXUS_PORT:-54319}
repo=${REPO:-examples/sample-shop}
echo "Nexus: repository ${repo}; bridge binary $(pwd)/target/release/nexus-bridge" >&2
NEXUS_UI_DIR="$(pwd)/dist" exec target/release/nexus-bridge serve --port "$port" --repo "$repo"
