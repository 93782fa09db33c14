#!/usr/bin/env python3
"""Writes a SCIP index of the Elixir files under a folder, each call resolved by the Elixir
compiler itself (Debian's elixir 1.14, a compiler tracer), as the reference for
scripts/accuracy.sh's Elixir corpora.

Usage: elixir_scip.py -root DIR -output FILE [-trace EXS]

elixir_trace.exs compiles every `.ex` file under DIR with a tracer and lists each function and
macro a module defines (name, arity, first clause's line) and each call the compiler resolved
(local, imported or remote: file, line, column, caller and callee as module, name, arity). A
function is named `name/arity` within its module, as Nexus names it; a function with default
arguments (`def f(a, b \\\\ 1)` defines f/1 and f/2 on one line) is its largest arity. A
definition whose line does not hold `def…` and its name (one a macro such as `use` injected)
is left out, and so are calls to it.

The index has, per Elixir file (paths relative to DIR, byte columns): a definition of each
function (the range of its name; from its first clause to the line before the file's next
definition as the enclosing range) and a reference at each call the compiler resolved
to a function of the corpus, made inside a function ("scip-elixir . corpus 0
`FILE`/`Module`#`name/arity`().").
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

from scip_proto import escaped, write_index


def symbol_of(path, name, owner):
    return "scip-elixir . corpus 0 `%s`/%s#%s()." % (
        path.replace("`", "``"),
        escaped(owner),
        escaped(name),
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-root", required=True)
    parser.add_argument("-output", required=True)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("-trace", default=os.path.join(here, "elixir_trace.exs"))
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    with tempfile.TemporaryDirectory() as scratch:
        listing = os.path.join(scratch, "trace.tsv")
        subprocess.run(["elixir", args.trace, root, listing], check=True, cwd=scratch)
        with open(listing, encoding="utf-8", errors="replace") as handle:
            rows = [line.rstrip("\n").split("\t") for line in handle if line.strip()]

    texts = {}

    def lines_of(path):
        if path not in texts:
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as handle:
                texts[path] = handle.read().split("\n")
        return texts[path]

    # Definitions: (module, name, arity) → (path, line); the largest arity on one line wins.
    defs, largest = {}, {}
    for row in rows:
        if row[0] != "def" or len(row) != 7:
            continue
        _, file, module, name, arity, _kind, line = row
        path = os.path.relpath(file, root)
        line = int(line)
        text = lines_of(path)[line - 1] if 0 < line <= len(lines_of(path)) else ""
        if not re.search(r"\bdef\w*\s*\(?\s*%s\b" % re.escape(name), text):
            continue
        defs[(module, name, int(arity))] = (path, line)
        key = (module, name, line)
        largest[key] = max(largest.get(key, 0), int(arity))

    def canonical(module, name, arity):
        at = defs.get((module, name, arity))
        if at is None:
            return None
        return module, name, largest[(module, name, at[1])]

    files = {}
    for (module, name, arity), (path, line) in defs.items():
        if largest[(module, name, line)] != arity:
            continue
        text = lines_of(path)[line - 1]
        found = re.search(r"\bdef\w*\s*\(?\s*(%s)\b" % re.escape(name), text)
        column = len(text[: found.start(1)].encode()) if found else 0
        files.setdefault(path, []).append(
            {"name": "%s/%d" % (name, arity), "owner": module, "line": line, "column": column}
        )
    for path, listed in files.items():
        listed.sort(key=lambda d: d["line"])
        total = len(lines_of(path))
        for i, d in enumerate(listed):
            later = [e["line"] for e in listed[i + 1 :] if e["line"] > d["line"]]
            d["start"] = d["line"]
            d["end"] = (later[0] - 1) if later else total

    references, calls = {}, 0
    for row in rows:
        if row[0] != "call" or len(row) != 10:
            continue
        _, file, line, column, caller_module, caller, caller_arity, module, name, arity = row
        calls += 1
        target = canonical(module, name, int(arity))
        if target is None or canonical(caller_module, caller, int(caller_arity)) is None:
            continue
        path = os.path.relpath(file, root)
        line = int(line)
        text = lines_of(path)[line - 1] if 0 < line <= len(lines_of(path)) else ""
        col = len(text[: int(column) - 1].encode())
        if not text.encode()[col:].startswith(name.encode()):
            continue
        t_module, t_name, t_arity = target
        t_path = defs[(t_module, t_name, t_arity)][0]
        references.setdefault(path, set()).add(
            (line - 1, col, len(name.encode()), (t_path, "%s/%d" % (t_name, t_arity), t_module))
        )

    listed = [{"path": p, "defs": d} for p, d in sorted(files.items())]
    defined, occurrences = write_index(
        args.output, root, listed, references, symbol_of, "elixir", "elixir_scip.py", "elixir-tracer"
    )
    resolved = sum(len(r) for r in references.values())
    print(
        "elixir_scip: %d files, %d functions, %d traced calls, %d resolved in the corpus, %d occurrences"
        % (len(listed), defined, calls, resolved, occurrences),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
