#!/usr/bin/env python3
"""Writes a SCIP index of the C or C++ files under a folder from clang's own semantic analysis
(libclang, Debian's python3-clang), as the reference for scripts/accuracy.sh's C and C++ corpora.

Usage: c_scip.py -root DIR -output FILE [-lang c|c++] [-define NAME[=VALUE] ...]

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

With -lang c++, every .cc/.cpp/.cxx file is a translation unit (-std=c++17), and functions are
also methods (in the class or out of line as `A::f`), constructors, destructors and function
templates; a method's symbol names its classes as types (`FILE`/A#f().) and namespaces are left
out, so (file, qualified name) is the identity both sides share. A reference is a name clang
resolves to one of those written at that place: `f()`, `ns::f()`, `A::f()`, `obj.f()`,
`p->f()`, `this->f()`, the function a call through a base class's pointer names statically
(not its overrides). Operators, conversions and constructions (`A a(1)`, `new A`) write no name
of a function and are no references.
"""

import argparse
import ctypes
import os
import sys

from clang import cindex

from scip_proto import escaped, field_bytes, field_int, field_packed, field_str


def symbol_of(path, name, owners=()):
    types = "".join(escaped(o) + "#" for o in owners)
    return "scip-c . corpus 0 `%s`/%s%s()." % (path.replace("`", "``"), types, escaped(name))


CLASS_KINDS = {
    cindex.CursorKind.STRUCT_DECL,
    cindex.CursorKind.CLASS_DECL,
    cindex.CursorKind.UNION_DECL,
    cindex.CursorKind.CLASS_TEMPLATE,
    cindex.CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION,
}
FUNCTION_KINDS = {cindex.CursorKind.FUNCTION_DECL}
CPP_FUNCTION_KINDS = FUNCTION_KINDS | {
    cindex.CursorKind.CXX_METHOD,
    cindex.CursorKind.CONSTRUCTOR,
    cindex.CursorKind.DESTRUCTOR,
    cindex.CursorKind.FUNCTION_TEMPLATE,
}


class Spot:
    def __init__(self, line, column):
        self.line, self.column = line, column


def spelled_at(loc):
    """The (line, column) where the token at `loc` is spelled, when that is in the same file and
    on the same line as where it is expanded (a macro's argument); (None, None) otherwise."""
    spelled_file = cindex.c_object_p()
    line, column, offset = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    cindex.conf.lib.clang_getSpellingLocation(
        loc, ctypes.byref(spelled_file), ctypes.byref(line), ctypes.byref(column), ctypes.byref(offset)
    )
    if not spelled_file or not loc.file or line.value != loc.line:
        return None, None
    if cindex.File(spelled_file).name != loc.file.name:
        return None, None
    return line.value, column.value


def owners_of(cursor):
    """The classes around a function, outermost first; None inside an unnamed one."""
    owners = []
    parent = cursor.semantic_parent
    while parent is not None and parent.kind != cindex.CursorKind.TRANSLATION_UNIT:
        if parent.kind in CLASS_KINDS:
            if not parent.spelling or parent.spelling.startswith("("):
                return None
            owners.append(parent.spelling)
        parent = parent.semantic_parent
    return tuple(reversed(owners))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-root", required=True)
    parser.add_argument("-output", required=True)
    parser.add_argument("-define", action="append", default=[])
    parser.add_argument("-lang", choices=["c", "c++"], default="c")
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    cpp = args.lang == "c++"
    source_ends = (".cc", ".cpp", ".cxx") if cpp else (".c",)
    header_ends = (".h", ".hh", ".hpp", ".hxx") if cpp else (".h",)
    function_kinds = CPP_FUNCTION_KINDS if cpp else FUNCTION_KINDS
    sources, include_dirs = [], {root}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(source_ends):
                sources.append(os.path.join(folder, name))
            elif name.endswith(header_ends):
                include_dirs.add(folder)
    if cpp:
        # C++ projects include from a folder above the header's (`#include "db/db_impl.h"`):
        # every folder between the root and a header's folder is on the include path too.
        for folder in list(include_dirs):
            while folder.startswith(root + os.sep):
                folder = os.path.dirname(folder)
                include_dirs.add(folder)
        flags = ["-x", "c++", "-std=c++17", "-ferror-limit=0"]
    else:
        flags = ["-x", "c", "-std=gnu11", "-ferror-limit=0"]
    if cpp:
        # After the system's folders: a project header named like a standard one
        # (`marisa/stdio.h`) must not stand in for it when the standard library includes it.
        flags += ["-iquote" + d for d in sorted(include_dirs)]
        flags += ["-idirafter" + d for d in sorted(include_dirs)]
    else:
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
            if kind in function_kinds and cursor.is_definition():
                name = cursor.spelling
                owners = owners_of(cursor)
                if owners is not None and line_text(rel, loc.line)[loc.column - 1 :].startswith(
                    name.encode()
                ):
                    defined.setdefault(cursor.get_usr(), (rel, name, owners))
                    extent = cursor.extent
                    definitions.setdefault(rel, set()).add(
                        (
                            name,
                            owners,
                            loc.line - 1,
                            loc.column - 1,
                            loc.column - 1 + len(name.encode()),
                            extent.start.line - 1,
                            extent.start.column - 1,
                            extent.end.line - 1,
                            extent.end.column - 1,
                        )
                    )
            elif kind in (cindex.CursorKind.DECL_REF_EXPR, cindex.CursorKind.MEMBER_REF_EXPR):
                target = cursor.referenced
                if target is not None and target.kind in function_kinds:
                    name = target.spelling
                    # In C++, a name written in a macro's argument (`assert(Valid())`) is where
                    # it is spelled, on the invocation's line.
                    if cpp:
                        line, column = spelled_at(loc)
                        if line is not None:
                            loc = Spot(line, column)
                    # Written here: the name itself, not a macro expanding to it.
                    if line_text(rel, loc.line)[loc.column - 1 :].startswith(name.encode()):
                        # The definition this translation unit links to, else the project's one.
                        here = target.get_definition()
                        where = relative(here.location.file.name) if here and here.location.file else None
                        owners = owners_of(here if where else target)
                        if owners is None:
                            stack.extend(cursor.get_children())
                            continue
                        key = (where, name, owners) if where else target.get_usr()
                        references.setdefault(rel, set()).add(
                            (loc.line - 1, loc.column - 1, len(name.encode()), key)
                        )
            stack.extend(cursor.get_children())
    documents = []
    occurrences = 0
    for rel in sorted(set(definitions) | set(references)):
        doc = field_str(1, rel)
        for name, owners, line, col, end, sl, sc, el, ec in sorted(definitions.get(rel, ())):
            occ = field_packed(1, [line, col, end]) + field_str(2, symbol_of(rel, name, owners))
            occ += field_int(3, 1) + field_packed(7, [sl, sc, el, ec])
            doc += field_bytes(2, occ)
            occurrences += 1
        for line, col, length, key in sorted(references.get(rel, ()), key=str):
            if isinstance(key, str):
                if key not in defined:
                    continue
                key = defined[key]
            path, name, owners = key
            occ = field_packed(1, [line, col, col + length]) + field_str(
                2, symbol_of(path, name, owners)
            )
            doc += field_bytes(2, occ)
            occurrences += 1
        doc += field_str(4, "cpp" if cpp else "c") + field_int(6, 1)
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
