#!/usr/bin/env python3
"""Writes a SCIP index of the C# files under a folder from the C# compiler's own binding (Mono's
mcs compiles them; the IL's call, callvirt and newobj instructions name the methods it bound),
as the reference for scripts/accuracy.sh's C# corpora.

Usage: cs_scip.py -root DIR -output FILE [-ref ASSEMBLY ...] [-define SYMBOL ...]

Needs Debian's mono-mcs and libmono-cecil-cil (Mono.Cecil 0.9.5 and its .mdb reader). Every .cs
file under DIR is compiled as one library with debugging symbols; scripts/oracle/CsIl.cs reads
the assembly back and lists its methods (with the lines their bodies span) and each call whose
target the assembly defines (with the lines of its statement).

The index has, per file (paths relative to DIR, byte columns):
  - a definition of each method, constructor, property or indexer (by its accessors) and
    operator the compiler compiled: the range of its name, found in the source at or above the
    body's first line, and the body as the enclosing range; a method without a body (abstract,
    an interface's) at the first line naming it followed by `(` after its type's declaration;
  - a reference at each call the compiler bound to one of those, written in the statement's
    lines: the callee's name followed by `(` (with generic arguments between), `new T(` for a
    construction (named by its class, as the source and Nexus name constructors), `base(` or
    `this(` for a constructor's initializer. When a statement writes a name more often than it
    has calls of that name, and those calls go to different methods, none of them is kept: no
    reference is ever guessed.
A method is its name within its types within its file: the symbol is
"scip-cs . corpus 0 `FILE`/Outer#Inner#Name()." (namespaces left out, overloads one function),
so (file, qualified name) is the identity both sides share. Property reads, operators, calls in
compiler-made methods into compiler-made methods (lambdas' bodies), implicit constructors and
methods of other assemblies are no references.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

from scip_proto import escaped, field_bytes, field_int, field_packed, field_str

HERE = os.path.dirname(os.path.abspath(__file__))
CECIL = "/usr/lib/mono-cecil"


def symbol_of(path, name, owners):
    types = "".join(escaped(o) + "#" for o in owners)
    return "scip-cs . corpus 0 `%s`/%s%s()." % (path.replace("`", "``"), types, escaped(name))


def source_name(method, owners):
    """The name the source writes a method by, or None for what no call writes by name."""
    if method == ".ctor":
        return owners[-1]
    if method == ".cctor" or method.startswith("op_") or "<" in method:
        return None
    for prefix in ("get_", "set_", "add_", "remove_"):
        if method.startswith(prefix):
            return method[len(prefix):]
    # An explicit interface implementation (`Ns.IFoo.M`) is written `IFoo.M`.
    return method.rsplit(".", 1)[-1]


def call_pattern(name):
    return re.compile(r"(?<![\w@])@?%s\s*(<[^;(){}]*>)?\s*\(" % re.escape(name))


def build(root, refs, defines, work):
    tool = os.path.join(work, "CsIl.exe")
    subprocess.run(
        ["mcs", "-nologo", "-out:" + tool, "-r:%s/Mono.Cecil.dll" % CECIL,
         "-r:%s/Mono.Cecil.Mdb.dll" % CECIL, os.path.join(HERE, "CsIl.cs")],
        check=True,
    )
    for dll in ("Mono.Cecil.dll", "Mono.Cecil.Mdb.dll"):
        with open(os.path.join(CECIL, dll), "rb") as f, open(os.path.join(work, dll), "wb") as g:
            g.write(f.read())
    assembly = os.path.join(work, "corpus.dll")
    sources = sorted(
        os.path.join(d, n) for d, _, names in os.walk(root) for n in names if n.endswith(".cs")
    )
    args = ["mcs", "-nologo", "-target:library", "-debug", "-unsafe", "-warn:0",
            "-out:" + assembly] + ["-r:" + r for r in refs] + ["-d:" + d for d in defines]
    result = subprocess.run(args + sources, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit("cs_scip: mcs could not compile the corpus")
    listing = subprocess.run(["mono", tool, assembly], check=True, capture_output=True, text=True)
    return listing.stdout.splitlines()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-root", required=True)
    parser.add_argument("-output", required=True)
    parser.add_argument("-ref", action="append", default=[])
    parser.add_argument("-define", action="append", default=[])
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    with tempfile.TemporaryDirectory() as work:
        rows = [line.split("\t") for line in build(root, args.ref, args.define, work)]

    texts = {}

    def lines_of(rel):
        if rel not in texts:
            try:
                with open(os.path.join(root, rel), encoding="utf-8-sig", errors="replace") as f:
                    texts[rel] = f.read().split("\n")
            except OSError:
                texts[rel] = []
        return texts[rel]

    def relative(path):
        path = os.path.realpath(path)
        return os.path.relpath(path, root) if path.startswith(root + os.sep) else None

    all_files = sorted(
        os.path.relpath(os.path.join(d, n), root)
        for d, _, names in os.walk(root) for n in names if n.endswith(".cs")
    )
    # Definitions: (file) -> {(name line 0-based, col, end, symbol, body start, body end)}.
    definitions = {}
    defined = {}  # (owners, method) -> [(file, symbol)]

    def define(rel, owners, name, line, col, body):
        symbol = symbol_of(rel, name, owners)
        entry = (line, col, col + len(name.encode()), symbol) + (body or (None, None))
        definitions.setdefault(rel, set()).add(entry)
        return symbol

    for row in rows:
        if row[0] != "M" or len(row) < 6 or "<" in row[1]:
            continue
        owners = tuple(row[1].split("#"))
        name = source_name(row[2], owners)
        rel = relative(row[3])
        if name is None or rel is None:
            continue
        first, last = int(row[4]), int(row[5])
        lines = lines_of(rel)
        is_property = row[2].split("_", 1)[0] in ("get", "set", "add", "remove")
        pattern = re.compile(r"(?<![\w.])%s\b" % re.escape(name)) if is_property else call_pattern(name)
        if row[2] == "get_Item" or row[2] == "set_Item":
            pattern, name = re.compile(r"\bthis\s*\["), "this"
        # The declaration is on the body's first line or a few above it.
        for at in range(first - 1, max(first - 12, 0) - 1, -1):
            if at >= len(lines):
                continue
            m = pattern.search(lines[at])
            if m:
                col = len(lines[at][: m.start()].encode())
                symbol = define(rel, owners, name, at, col, (at, last - 1))
                defined.setdefault((owners, row[2]), []).append((rel, symbol))
                break
    # Methods without a body: at the first line naming them after their type's declaration.
    for row in rows:
        if row[0] != "A" or len(row) < 3 or "<" in row[1]:
            continue
        owners = tuple(row[1].split("#"))
        name = source_name(row[2], owners)
        if name is None or (owners, row[2]) in defined:
            continue
        opener = re.compile(r"\b(class|interface|struct|record)\s+%s\b" % re.escape(owners[-1]))
        pattern = call_pattern(name)
        for rel in all_files:
            lines = lines_of(rel)
            start = next((i for i, l in enumerate(lines) if opener.search(l)), None)
            if start is None:
                continue
            hit = next(
                ((i, m) for i in range(start, len(lines)) for m in [pattern.search(lines[i])]
                 if m and lines[i].rstrip().endswith(";")),
                None,
            )
            if hit:
                i, m = hit
                symbol = define(rel, owners, name, i, len(lines[i][: m.start()].encode()), None)
                defined.setdefault((owners, row[2]), []).append((rel, symbol))
                break
    # Calls, grouped by statement and written name.
    groups = {}
    for row in rows:
        if row[0] != "C" or len(row) < 7:
            continue
        rel = relative(row[1])
        owners = tuple(row[4].split("#"))
        targets = defined.get((owners, row[5]))
        if rel is None or not targets or "<" in row[4]:
            continue
        if row[5].split("_", 1)[0] in ("get", "set", "add", "remove"):
            continue
        if row[5] == ".ctor":
            written = owners[-1] if row[6] == "Newobj" else "base|this"
        else:
            written = source_name(row[5], owners)
        if written is None:
            continue
        # A method of a partial type defined in several files: the first (as the scorer does).
        groups.setdefault((rel, int(row[2]), int(row[3]), written), []).append(targets[0][1])
    references = {}
    for (rel, first, last, written), symbols in groups.items():
        lines = lines_of(rel)
        if written == "base|this":
            pattern = re.compile(r"(?<![\w.])(base|this)\s*\(")
        else:
            pattern = call_pattern(written)
        spots = []
        for at in range(first - 1, min(last, len(lines))):
            for m in pattern.finditer(lines[at]):
                col = len(lines[at][: m.start()].encode())
                name_len = len((m.group(0).split("(")[0].split("<")[0]).rstrip().encode())
                spots.append((at, col, col + name_len))
        distinct = set(symbols)
        if len(distinct) == 1:
            chosen = [(spot, symbols[0]) for spot in spots]
        elif len(spots) == len(symbols):
            chosen = list(zip(spots, symbols))
        else:
            chosen = []
        for spot, symbol in chosen:
            references.setdefault(rel, set()).add(spot + (symbol,))
    documents = []
    occurrences = 0
    for rel in sorted(set(definitions) | set(references)):
        doc = field_str(1, rel)
        for line, col, end, symbol, body_start, body_end in sorted(definitions.get(rel, ()), key=str):
            occ = field_packed(1, [line, col, end]) + field_str(2, symbol) + field_int(3, 1)
            if body_start is not None:
                lines = lines_of(rel)
                end_col = len(lines[body_end].encode()) if body_end < len(lines) else 0
                occ += field_packed(7, [body_start, 0, body_end, end_col])
            doc += field_bytes(2, occ)
            occurrences += 1
        for line, col, end, symbol in sorted(references.get(rel, ())):
            doc += field_bytes(2, field_packed(1, [line, col, end]) + field_str(2, symbol))
            occurrences += 1
        doc += field_str(4, "csharp") + field_int(6, 1)
        documents.append(field_bytes(2, doc))
    tool = field_str(1, "cs_scip.py") + field_str(2, "mcs")
    metadata = field_bytes(2, tool) + field_str(3, "file://" + root) + field_int(4, 1)
    with open(args.output, "wb") as f:
        f.write(field_bytes(1, metadata) + b"".join(documents))
    print(
        "cs_scip: %d documents, %d methods, %d calls bound, %d occurrences"
        % (len(documents), len(defined), sum(len(v) for v in groups.values()), occurrences),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
