//! Bash resolution fixtures: functions in all three forms, `source`/`.` of literal and
//! script-relative paths, calls in pipelines, lists, conditions and `$(…)`, and commands that
//! are no function of the project left unresolved.

use super::fixture_edges::{edges, owned};
use crate::graph::EdgeKind;
use crate::ingest::fixture_graph as graph;

const LIB: &str = r#"# Logs a line.
log() {
  echo "$@" >&2
}

function die {
  log "fatal: $1"
  exit 1
}

function trim() {
  sed -e 's/^ *//' <<< "$1"
}
"#;

const MORE: &str = r#"DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$DIR/lib.sh"

count() {
  wc -l | trim
}
"#;

const BUILD: &str = r#"#!/usr/bin/env bash
. "$(dirname "$0")/lib/more.sh"
source "$CONFIG"

build() {
  local out
  out="$(trim "$1")"
  if check "$out"; then
    log "ok" | count && die "done" || log "no"
  fi
  while check; do
    helper
  done
  grep -q x file
  undefined_here
}

check() {
  [[ -n "$1" ]]
}

build "$@"
"#;

#[test]
fn bash_functions_sourced_files_and_commands() {
    let g = graph(&[
        ("scripts/lib/lib.sh", LIB),
        ("scripts/lib/more.sh", MORE),
        ("scripts/build.sh", BUILD),
    ]);
    let build = "Function:scripts/build.sh:build";
    assert_eq!(
        edges(&g, EdgeKind::Calls),
        owned(&[
            ("File:scripts/build.sh", build, "0.97", "same-file"),
            // In an `if` and a `while` condition.
            (
                build,
                "Function:scripts/build.sh:check",
                "0.97",
                "same-file"
            ),
            // Through `. "$(dirname "$0")/lib/more.sh"`, which sources `lib.sh` in turn: in a
            // pipeline, after `&&` and `||`, inside `$(…)`.
            (
                build,
                "Function:scripts/lib/lib.sh:die",
                "0.97",
                "import-resolved"
            ),
            (
                build,
                "Function:scripts/lib/lib.sh:log",
                "0.97",
                "import-resolved"
            ),
            (
                build,
                "Function:scripts/lib/lib.sh:trim",
                "0.97",
                "import-resolved"
            ),
            (
                build,
                "Function:scripts/lib/more.sh:count",
                "0.97",
                "import-resolved"
            ),
            (
                "Function:scripts/lib/lib.sh:die",
                "Function:scripts/lib/lib.sh:log",
                "0.97",
                "same-file"
            ),
            // `source "$DIR/lib.sh"` with `DIR` the script's folder.
            (
                "Function:scripts/lib/more.sh:count",
                "Function:scripts/lib/lib.sh:trim",
                "0.97",
                "import-resolved"
            ),
        ])
    );
    let imports = edges(&g, EdgeKind::Imports);
    assert_eq!(
        imports
            .iter()
            .map(|(a, b, ..)| (a.as_str(), b.as_str()))
            .collect::<Vec<_>>(),
        [
            ("File:scripts/build.sh", "File:scripts/lib/more.sh"),
            ("File:scripts/lib/more.sh", "File:scripts/lib/lib.sh"),
        ],
        "`source \"$CONFIG\"` is not guessed"
    );
}
