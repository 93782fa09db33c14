#!/usr/bin/env python3
"""Writes a SCIP index of the Ruby files under a folder, each call resolved by TypeProf (the type
analyzer bundled with Ruby 3.1, Debian's libruby3.1), as the reference for scripts/accuracy.sh's
Ruby corpora.

Usage: ruby_scip.py -root DIR -output FILE [-seconds N] [-typeprof RB] [-sites SITES_RB]
                    [-methods RB]

ruby_sites.rb (Ruby's own parser) lists every method, class and module and every call written
with a name. TypeProf keeps the definition table its language server answers with for one text
only; the corpus's files are joined into one text, one after another (Ruby reads them so:
constants are global, a class reopened in another file is one class), analysed by
ruby_typeprof.rb, and each call's place looked up in the table. TypeProf records no definition
for methods made by `attr_*`, `alias_method` or `alias`, so it reads each file with those
statements written as the `def`s they make (ruby_sites.rb's "typeprof" text, lines kept). An
answer at a method's first line is a reference (the method of the called name when several start
there; a call whose receiver may be of several classes has several); an answer at a class for
`new` is the `initialize` Ruby itself runs for that class, else the class's own `initialize` when
it defines one. ruby_methods.rb loads the corpus and asks Ruby which method it runs: for `new`,
`instance_method(:initialize)` (own, inherited or from a module, also one a module's `included`
hook mixes in); for `super` in a method of a class (TypeProf answers nothing there), the method
the class's own method's `super_method` is, a reference at the keyword; for a call on `self`
that TypeProf sends to `method_missing` alone, the called
name on the method's owner, since Ruby runs `method_missing` only when no method is found: the
method Ruby finds replaces it (nothing when that method has no `def` in the corpus, as one
written by `module_eval` with a string). TypeProf types receivers by abstract interpretation
(`Foo.new`, instance variables, what methods return, methods it runs with untyped arguments
when nothing calls them); it answers nothing where it cannot type the receiver.

The index has, per Ruby file (paths relative to DIR, byte columns): a definition of each method
(the range of its name, the whole definition as the enclosing range), and a reference at each
call TypeProf resolved. A method is its name within the file and owner that define it
("scip-ruby . corpus 0 `FILE`/Owner#NAME().").
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from scip_proto import escaped, write_index


def symbol_of(path, name, owner):
    types = escaped(owner) + "#" if owner else ""
    return "scip-ruby . corpus 0 `%s`/%s%s()." % (path.replace("`", "``"), types, escaped(name))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-root", required=True)
    parser.add_argument("-output", required=True)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("-typeprof", default=os.path.join(here, "ruby_typeprof.rb"))
    parser.add_argument("-seconds", type=int, default=600)
    parser.add_argument(
        "-sites", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "ruby_sites.rb")
    )
    parser.add_argument("-methods", default=os.path.join(here, "ruby_methods.rb"))
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    listing = subprocess.run(
        ["ruby", args.sites, root], check=True, capture_output=True, text=True
    ).stdout
    files = [json.loads(line) for line in listing.splitlines() if line.strip()]

    # One text: each file's lines at an offset.
    texts, offsets, at = [], [], 0
    for f in files:
        with open(os.path.join(root, f["path"]), encoding="utf-8", errors="replace") as handle:
            text = f.get("typeprof") or handle.read()
        if not text.endswith("\n"):
            text += "\n"
        texts.append(text)
        offsets.append(at)
        at += text.count("\n")
    whole = "".join(texts)
    lines = whole.split("\n")

    def located(line):
        """The file index and 1-based line of a 0-based line of the whole text."""
        index = max(i for i, o in enumerate(offsets) if o <= line)
        return index, line - offsets[index] + 1

    sites = [(fi, call) for fi, f in enumerate(files) for call in f["calls"]]
    positions = []
    for fi, call in sites:
        line = offsets[fi] + call["line"] - 1
        line_bytes = lines[line].encode() if line < len(lines) else b""
        positions.append([line + 1, len(line_bytes[: call["column"]].decode(errors="replace"))])
    with tempfile.TemporaryDirectory() as scratch:
        text_file = os.path.join(scratch, "corpus.rb")
        sites_file = os.path.join(scratch, "sites.json")
        with open(text_file, "w", encoding="utf-8") as out:
            out.write(whole)
        with open(sites_file, "w") as out:
            json.dump(positions, out)
        answers = json.loads(
            subprocess.run(
                ["ruby", args.typeprof, text_file, sites_file, str(args.seconds)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )

    # What Ruby runs: `initialize` for `C.new`, and each called name on `self`'s owner.
    classes = {c["name"] for f in files for c in f["classes"]}
    queries = (
        {c + "#initialize" for c in classes}
        | {call["self"] + call["name"] for f in files for call in f["calls"] if call.get("self")}
        | {"super " + s["method"] for f in files for s in f.get("supers", [])}
    )
    ruby_runs = json.loads(
        subprocess.run(
            ["ruby", args.methods, root],
            input="\n".join(sorted(queries)),
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    def_at = {}
    for f in files:
        for d in f["defs"]:
            def_at.setdefault((f["path"], d["start"], d["name"]), d)

    def target_of(first_line, called):
        fi, first = located(first_line - 1)
        f = files[fi]
        method = [d for d in f["defs"] if d["start"] == first]
        method = [d for d in method if d["name"] == called] or method
        if method:
            return f["path"], method[0]["name"], method[0]["owner"]
        classes = [c for c in f["classes"] if c["line"] == first]
        if called != "new" or not classes:
            return None
        run = ruby_runs.get(classes[0]["name"] + "#initialize")
        d = def_at.get((run[0], run[1], "initialize")) if run else None
        if d is not None:
            return run[0], d["name"], d["owner"]
        for g in files:
            for d in g["defs"]:
                if d["name"] == "initialize" and d["owner"] == classes[0]["name"]:
                    return g["path"], d["name"], d["owner"]
        return None

    references = {}
    for (fi, call), answer in zip(sites, answers):
        targets = [t for t in (target_of(first, call["name"]) for first in answer) if t]
        # Ruby runs `method_missing` only when no method is found: with another answer beside
        # it, it is TypeProf's fallback for a receiver it also typed otherwise.
        if any(t[1] != "method_missing" for t in targets):
            targets = [t for t in targets if t[1] != "method_missing"]
        # Alone, on `self`: unless Ruby finds no method of that name on the method's owner.
        found = ruby_runs.get(call["self"] + call["name"]) if call.get("self") else None
        if targets and found is not None and call["name"] != "method_missing":
            d = def_at.get((found[0], found[1], call["name"])) if found else None
            targets = [t for t in targets if t[1] != "method_missing"]
            if d is not None and not targets:
                targets = [(found[0], d["name"], d["owner"])]
        for target in targets:
            length = len(call["name"].encode())
            references.setdefault(files[fi]["path"], set()).add(
                (call["line"] - 1, call["column"], length, target)
            )

    for f in files:
        for site in f.get("supers", []):
            found = ruby_runs.get("super " + site["method"])
            name = re.split(r"[#.]", site["method"])[-1]
            d = def_at.get((found[0], found[1], name)) if found else None
            if d is not None:
                target = (found[0], d["name"], d["owner"])
                references.setdefault(f["path"], set()).add(
                    (site["line"] - 1, site["column"], len("super"), target)
                )

    defined, occurrences = write_index(
        args.output, root, files, references, symbol_of, "ruby", "ruby_scip.py", "typeprof"
    )
    calls = sum(len(f["calls"]) for f in files)
    resolved = sum(len(r) for r in references.values())
    print(
        "ruby_scip: %d files, %d methods, %d calls, %d resolved in the corpus, %d occurrences"
        % (len(files), defined, calls, resolved, occurrences),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
