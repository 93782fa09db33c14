#!/usr/bin/env bash
# Call-graph accuracy: indexes a corpus with a type-checker-based SCIP indexer from npm and compares
# Nexus's CALLS edges with it. Usage: scripts/accuracy.sh django|ts [--examples N]
# Caches the indexers, corpora and indexes in $NEXUS_ACCURACY (default ~/.cache/nexus-accuracy).
set -euo pipefail
corpus=${1:?usage: scripts/accuracy.sh django|ts [--examples N]}
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${NEXUS_ACCURACY:-$HOME/.cache/nexus-accuracy}
tools="$cache/tools"
mkdir -p "$tools"
if [ ! -x "$tools/node_modules/.bin/scip-python" ] || [ ! -x "$tools/node_modules/.bin/scip-typescript" ]; then
  echo "installing the SCIP indexers into $tools" >&2
  [ -f "$tools/package.json" ] || (cd "$tools" && npm init -y >/dev/null)
  (cd "$tools" && npm install --no-audit --no-fund --silent \
    @sourcegraph/scip-python@0.6.6 @sourcegraph/scip-typescript@0.4.0 >&2)
fi
case "$corpus" in
  django)  # Python: Django 5.1.4, its django/ package (scip-python crashes on the test folders)
    root=$("$repo/../shared/corpora/fetch.sh" django 2>/dev/null || true)
    if [ -z "$root" ]; then
      root="$cache/Django-5.1.4"
      if [ ! -d "$root" ]; then
        (cd "$cache" && pip download --quiet --no-deps --no-binary :all: django==5.1.4 -d . >&2 \
          && tar xzf Django-5.1.4.tar.gz)
      fi
    fi
    index="$cache/django-5.1.4.scip"
    if [ ! -s "$index" ]; then
      (cd "$root" && "$tools/node_modules/.bin/scip-python" index . --project-name django \
        --project-version 5.1.4 --target-only django --output "$index" >&2)
    fi
    prefix=django/ ;;
  ts)  # TypeScript: @theia/core 1.55.0 ships its src/ folder (479 .ts/.tsx files)
    root="$cache/theia-core-1.55.0"
    if [ ! -d "$root/src" ]; then
      mkdir -p "$root"
      (cd "$cache" && npm pack --silent @theia/core@1.55.0 >/dev/null \
        && tar xzf theia-core-1.55.0.tgz -C "$root" --strip-components=1 package/src package/package.json)
      # The package ships no tsconfig; a plain one covering src/ (dependencies are not installed,
      # so calls into them are unresolved on both sides).
      cat > "$root/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "es2019",
    "module": "commonjs",
    "moduleResolution": "node",
    "jsx": "react",
    "experimentalDecorators": true,
    "emitDecoratorMetadata": true,
    "esModuleInterop": true,
    "skipLibCheck": true,
    "strict": false,
    "lib": ["es2019", "dom"]
  },
  "include": ["src"]
}
JSON
    fi
    index="$cache/theia-core-1.55.0.scip"
    if [ ! -s "$index" ]; then
      (cd "$root" && "$tools/node_modules/.bin/scip-typescript" index --no-progress-bar \
        --output "$index" >&2)
    fi
    prefix= ;;
  *) echo "unknown corpus: $corpus (django | ts)" >&2; exit 2 ;;
esac
cd "$repo"
cargo run --quiet --release -p nexus-accuracy -- --scip "$index" --root "$root" --prefix "$prefix" "$@"
