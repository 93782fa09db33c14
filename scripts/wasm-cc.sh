#!/usr/bin/env bash
# C compiler for wasm32 builds of the tree-sitter grammars: clang plus the libc headers that the
# tree-sitter-language crate ships for wasm (found in the cargo registry, never copied here).
set -euo pipefail
include=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tree-sitter-language-*/wasm/include 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$include" ]; then
  echo "wasm-cc: tree-sitter-language's wasm/include not found in the cargo registry; run 'cargo fetch' first" >&2
  exit 1
fi
# tree-sitter-cpp's scanner uses `wchar_t` with `<wctype.h>` only, which those headers leave to
# `<wchar.h>`: it gets `<wchar.h>` first. It also writes C23's `static_assert`, which those
# headers' `<assert.h>` does not define: left alone it compiles to a call of an undefined
# function, a wasm import from "env" that no page can load; it is C11's `_Static_assert`.
# tree-sitter-swift's scanner calls `exit(1)` when its state cannot be allocated, which those
# headers do not declare (an "env" import again): it is their `abort()`, which the same
# allocation failure reaches elsewhere.
case "$*" in
  *tree-sitter-swift*) exec clang -isystem "$include" '-Dexit(code)=abort()' "$@" ;;
  *tree-sitter-cpp*) exec clang -isystem "$include" -include wchar.h -Dstatic_assert=_Static_assert "$@" ;;
esac
exec clang -isystem "$include" "$@"
