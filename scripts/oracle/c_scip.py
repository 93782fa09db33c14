#!/usr/bin/env python3
"""Writes a SCIP index of the C files under a folder from clang's own semantic analysis
(libclang, Debian's python3-clang), as the reference for scripts/accuracy.sh's C corpora.

Usage: c_scip.py -root DIR -output FILE [-define NAME[=VALUE] ...]

Every .c file under DIR is parsed as one translation unit, with every folder under DIR that
holds a header on the include path (the folders an `#include` can resolve against) and DIR
itself. Clang keeps going past errors (a missing system or generated header): the index holds
what it attributed.

The index has, per C file or header (paths relative to DIR, byte columns):
  - a definition of each function with a body (the range of its name, and its whole definition
    as the enclosing range);
  - a reference at every name that clang resolves to a function defined in the corpus, written
    at that place in the source: a call written inside a macro's body (expanded elsewhere) or a
    macro invocation is no reference, as no function's name is written there.
A function is its name within the file that defines it: the symbol is
"scip-c . corpus 0 `FILE`/NAME()." with FILE the defining file, so a `static` function of one
file is never another's, and a prototype in a header is the function its definition defines:
the definition in the same translation unit, else the one project-wide of the same USR (the
first one seen when separate programs each define it).
"""

import argparse
import os
import sys

from clang import cindex


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field_bytes(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def field_str(number, text):
    return field_bytes(number, text.encode())


def field_int(number, value):
    return varint(number << 3) + varint(value) if value else b""


def field_packed(number, values):
    return field_bytes(number, b"".join(varint(v) for v in values))


def symbol_of(path, name):
    return "scip-c . corpus 0 `%s`/%s()." % (path.replace("`", "``"), name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-root", required=True)
    parser.add_argument("-output", required=True)
    parser.add_argument("-define", action="append", default=[])
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    sources, include_dirs = [], {root}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".c"):
                sources.append(os.path.join(folder, name))
            elif name.endswith(".h"):
                include_dirs.add(folder)
    flags = ["-x", "c", "-std=gnu11", "-ferror-limit=0"]
    flags += ["-I" + d for d in sorted(include_dirs)]
    flags += ["-D" + d for d in args.define]
    index = cindex.Index.create()
    texts = {}

    def relative(path):
        real = os.path.realpath(path)
        if not real.startswith(root + os.sep):
            return None
        return os.path.relpath(real, root)

    def line_text(rel, line):
        if rel not in texts:
            with open(os.path.join(root, rel), "rb") as f:
                texts[rel] = f.read().split(b"\n")
        lines = texts[rel]
        return lines[line - 1] if 0 < line <= len(lines) else b""

    # USR → (defining file, name); definitions and references per file.
    defined = {}
    definitions = {}
    references = {}
    errors = 0
    for source in sources:
        tu = index.parse(source, args=flags)
        errors += sum(1 for d in tu.diagnostics if d.severity >= cindex.Diagnostic.Error)
        stack = [tu.cursor]
        while stack:
            cursor = stack.pop()
            loc = cursor.location
            rel = relative(loc.file.name) if loc.file else None
            if cursor.kind == cindex.CursorKind.TRANSLATION_UNIT:
                stack.extend(cursor.get_children())
                continue
            if rel is None:
                continue
            kind = cursor.kind
            if kind == cindex.CursorKind.FUNCTION_DECL and cursor.is_definition():
                name = cursor.spelling
                if line_text(rel, loc.line)[loc.column - 1 :].startswith(name.encode()):
                    defined.setdefault(cursor.get_usr(), (rel, name))
                    extent = cursor.extent
                    definitions.setdefault(rel, set()).add(
                        (
                            name,
                            loc.line - 1,
                            loc.column - 1,
                            loc.column - 1 + len(name.encode()),
                            extent.start.line - 1,
                            extent.start.column - 1,
                            extent.end.line - 1,
                            extent.end.column - 1,
                        )
                    )
            elif kind == cindex.CursorKind.DECL_REF_EXPR:
                target = cursor.referenced
                if target is not None and target.kind == cindex.CursorKind.FUNCTION_DECL:
                    name = target.spelling
                    # Written here: the name itself, not a macro expanding to it.
                    if line_text(rel, loc.line)[loc.column - 1 :].startswith(name.encode()):
                        # The definition this translation unit links to, else the project's one.
                        here = target.get_definition()
                        where = relative(here.location.file.name) if here and here.location.file else None
                        key = (where, name) if where else target.get_usr()
                        references.setdefault(rel, set()).add(
                            (loc.line - 1, loc.column - 1, len(name.encode()), key)
                        )
            stack.extend(cursor.get_children())
    documents = []
    occurrences = 0
    for rel in sorted(set(definitions) | set(references)):
        doc = field_str(1, rel)
        for name, line, col, end, sl, sc, el, ec in sorted(definitions.get(rel, ())):
            occ = field_packed(1, [line, col, end]) + field_str(2, symbol_of(rel, name))
            occ += field_int(3, 1) + field_packed(7, [sl, sc, el, ec])
            doc += field_bytes(2, occ)
            occurrences += 1
        for line, col, length, key in sorted(references.get(rel, ()), key=str):
            if isinstance(key, str):
                if key not in defined:
                    continue
                key = defined[key]
            path, name = key
            occ = field_packed(1, [line, col, col + length]) + field_str(2, symbol_of(path, name))
            doc += field_bytes(2, occ)
            occurrences += 1
        doc += field_str(4, "c") + field_int(6, 1)
        documents.append(field_bytes(2, doc))
    tool = field_str(1, "c_scip.py") + field_str(2, cindex.__name__)
    metadata = field_bytes(2, tool) + field_str(3, "file://" + root) + field_int(4, 1)
    with open(args.output, "wb") as f:
        f.write(field_bytes(1, metadata) + b"".join(documents))
    print(
        "c_scip: %d translation units, %d documents, %d functions, %d occurrences, %d errors"
        % (len(sources), len(documents), len(defined), occurrences, errors),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
