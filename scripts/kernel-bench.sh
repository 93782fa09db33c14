#!/usr/bin/env bash
# The kernel-sized benchmark (issue 33): fetches the Linux kernel source with apt (Debian's
# `linux-source-6.12`, unpacked outside the repository, never committed), builds the release UI
# and bridge, and runs tests/js/browser-bench.mjs in headless Chromium on it and on the
# 200,000-file synthetic tree: files seen/indexed/left out (and why), phase times, page open →
# answers, peak tab memory, snapshot size, reload time, tool p50/p99 through the whole chain, the
# graph picture (first picture, frames per second panning and zooming).
#
# Usage: scripts/kernel-bench.sh [--corpora DIR] [--skip-build] [--only kernel|synthetic]
#        [--compare]   also time GitNexus's CLI (npm `gitnexus analyze`) on the same tree
# Environment: CARGO_TARGET_DIR (default target), CALLS (chain calls per tool, default 30).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
corpora=${NEXUS_CORPORA:-$HOME/.cache/nexus-corpora}
build=1
only=""
compare=0
while [ $# -gt 0 ]; do
  case "$1" in
    --corpora) corpora=$2; shift ;;
    --skip-build) build=0 ;;
    --only) only=$2; shift ;;
    --compare) compare=1 ;;
    *) echo "usage: $0 [--corpora DIR] [--skip-build] [--only kernel|synthetic] [--compare]" >&2; exit 2 ;;
  esac
  shift
done
target=${CARGO_TARGET_DIR:-$root/target}
calls=${CALLS:-30}
kernel=$corpora/linux-source-6.12

fetch_kernel() {
  [ -d "$kernel" ] && return
  mkdir -p "$corpora"
  local tarball=/usr/src/linux-source-6.12.tar.xz
  if [ ! -f "$tarball" ]; then
    # As root the package is installed; otherwise it is downloaded and unpacked beside the tree.
    if [ "$(id -u)" = 0 ] && apt-get install -y linux-source-6.12 >&2; then
      :
    else
      (cd "$corpora" && apt-get download linux-source-6.12 >&2 && dpkg -x linux-source-6.12_*.deb pkg)
      tarball=$corpora/pkg/usr/src/linux-source-6.12.tar.xz
    fi
  fi
  echo "unpacking $tarball into $corpora" >&2
  tar -xJf "$tarball" -C "$corpora"
  rm -rf "$corpora/pkg" "$corpora"/linux-source-6.12_*.deb
  # Debian's packaging appends `/*` and `!/debian/` to the root .gitignore (its git tracks only
  # debian/): honoured, they leave nothing but debian/ to index, as git would for an untracked
  # tree. The benchmark drops that block so the kernel's own rules apply.
  sed -i '/^# Debian packaging: ignore everything at the top level/,/^!\/debian\/$/d' "$kernel/.gitignore"
}

if [ "$build" = 1 ]; then
  (cd "$root" && cargo build --release -p nexus-bridge --locked >&2 && trunk build --release >&2)
fi
bench=(node "$root/tests/js/browser-bench.mjs" --ui "$root/dist" --bridge "$target/release/nexus-bridge"
  --chain "$calls" --reloads 2 --no-embed --picture --timeout-s 900)

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB; load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$only" != synthetic ]; then
  fetch_kernel
  echo "kernel tree: $(find "$kernel" -type f | wc -l) files, $(du -sh "$kernel" | cut -f1)"
  "${bench[@]}" --repo "$kernel" --symbol kmem_cache_alloc --query "allocate memory from slab cache" || true
  if [ "$compare" = 1 ]; then
    scratch=$(mktemp -d)
    echo "== GitNexus (npm gitnexus) on the same tree"
    (cd "$scratch" && npm install --silent gitnexus >&2 &&
      /usr/bin/time -v npx gitnexus analyze "$kernel" 2>&1 | grep -E "Elapsed|Maximum resident|rror|heap" | head -20) || echo "GitNexus failed (exit $?)"
    rm -rf "$scratch"
  fi
fi
if [ "$only" != kernel ]; then
  "${bench[@]}" --synthetic 200000 --symbol helper_4242 --query "service run step" || true
fi
