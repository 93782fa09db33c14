#!/usr/bin/env python3
"""Python usages that are not calls, from jedi, as rows for usages_score.py: every name in the
chosen files that jedi follows (through imports) to a function, method or class defined in the
corpus, except where `(` follows the name (a call) and the definition's own name.

Usage: py_usages.py ROOT --out FILE [--only PATH_PREFIX ...]

ROOT is the corpus (jedi's project: imports resolve within it); --only limits the files whose
names are read (default: all). The output has a `#target path line` row per `def`/`class` of
the corpus (the line of its name), a `#files` row with the files read, then
`target_path target_line usage_path usage_line reference 1` rows.
"""

import argparse
import os
import re
import sys

import jedi

DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)")
KINDS = {"function", "class", "property"}


def python_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(folder, name), root)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--out", required=True)
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    project = jedi.Project(root)
    names, targets, chosen = set(), [], []
    for rel in python_files(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                match = DEFINITION.match(line)
                if match:
                    names.add(match.group(1))
                    targets.append((rel, number))
        if not args.only or any(rel.startswith(p) for p in args.only):
            chosen.append(rel)
    rows = []
    for count, rel in enumerate(chosen, 1):
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8", errors="replace") as f:
            code = f.read()
        lines = code.splitlines()
        try:
            script = jedi.Script(code, path=path, project=project)
            found = script.get_names(all_scopes=True, definitions=True, references=True)
        except Exception as err:  # a file jedi cannot read counts as read, with no usages
            print(f"{rel}: {err}", file=sys.stderr)
            continue
        for name in found:
            if name.name not in names or name.type in ("param", "keyword"):
                continue
            text = lines[name.line - 1] if name.line <= len(lines) else ""
            if text[name.column + len(name.name):].lstrip().startswith("("):
                continue
            try:
                definitions = name.goto(follow_imports=True)
            except Exception:
                continue
            for d in definitions:
                if d.type not in KINDS or not d.module_path or d.line is None:
                    continue
                target = os.path.relpath(str(d.module_path), root)
                if target.startswith(".."):
                    continue
                if (target, d.line, d.column) == (rel, name.line, name.column):
                    continue
                rows.append(f"{target}\t{d.line}\t{rel}\t{name.line}\treference\t1")
        if count % 20 == 0:
            print(f"{count}/{len(chosen)} files", file=sys.stderr)
    with open(args.out, "w", encoding="utf-8") as out:
        for rel, line in targets:
            out.write(f"#target\t{rel}\t{line}\n")
        out.write("#files\t" + "\t".join(chosen) + "\n")
        out.write("\n".join(sorted(set(rows))) + "\n")


if __name__ == "__main__":
    main()
