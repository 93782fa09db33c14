#!/usr/bin/env python3
"""Writes a SCIP index of the Zig files under a folder, each call resolved by the Zig compiler
(PyPI's ziglang), as the reference for scripts/accuracy.sh's Zig corpora.

Usage: zig_scip.py -root DIR -output FILE -entry FILE [-filter TEXT] [-lib-dir DIR]
                   [-module NAME=FILE ...]

The compiler runs `zig test ENTRY` without emitting a binary and writes the LLVM IR of every
function it analysed (Debug: no inlining but of `inline fn`). Each `call` instruction names its
callee's `define`, whose debug information gives the callee's file and line; the call's own
debug location gives the caller's file, line and column. Only functions the compiler analysed
(reached from the tests `-filter` selects) and calls it emitted appear (a call's debug column
is its `(`): calls of `inline fn`s
and calls run at compile time (`List(T)`, `comptime f()`) are not judged.

Definitions come from tree-sitter-zig (PyPI): every `fn` with its name, its container (the
`const` naming the struct, enum, union or opaque around it, or the function returning it) and
its extent. A method is its name within the file and owner that define it
("scip-zig . corpus 0 `FILE`/Owner#NAME().").
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import tree_sitter
import tree_sitter_zig

from scip_proto import escaped, write_index

CONTAINERS = ("struct_declaration", "enum_declaration", "union_declaration", "opaque_declaration")


def symbol_of(path, name, owner):
    types = escaped(owner) + "#" if owner else ""
    return "scip-zig . corpus 0 `%s`/%s%s()." % (path.replace("`", "``"), types, escaped(name))


def definitions(root):
    """Every Zig file under `root` with its functions (name, owner, 1-based lines, byte column)."""
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_zig.language()))
    files = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(".zig"):
                continue
            full = os.path.join(folder, name)
            with open(full, "rb") as handle:
                data = handle.read()
            defs = []
            stack = [(parser.parse(data).root_node, None)]
            while stack:
                node, owner = stack.pop()
                inner = owner
                if node.type == "variable_declaration":
                    named = [c for c in node.named_children]
                    if len(named) >= 2 and named[0].type == "identifier" and named[1].type in CONTAINERS:
                        inner = named[0].text.decode(errors="replace")
                if node.type == "function_declaration":
                    name_node = node.child_by_field_name("name")
                    if name_node is not None:
                        fn = name_node.text.decode(errors="replace")
                        defs.append(
                            {
                                "name": fn,
                                "owner": owner,
                                "line": name_node.start_point[0] + 1,
                                "column": name_node.start_point[1],
                                "start": node.start_point[0] + 1,
                                "end": node.end_point[0] + 1,
                            }
                        )
                        returns = node.child_by_field_name("type")
                        if returns is not None and returns.text == b"type":
                            inner = fn
                for child in reversed(node.named_children):
                    stack.append((child, inner))
            files.append({"path": os.path.relpath(full, root), "defs": defs, "data": data})
    return files


METADATA = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
FIELD = re.compile(r"(\w+): (\"(?:[^\"\\]|\\.)*\"|![0-9]+|-?\d+)")
DEFINE = re.compile(r"^define .*?@(\"[^\"]+\"|[\w.$]+)\(.*!dbg !(\d+)")
CALL = re.compile(r"\bcall [^@]*@(\"[^\"]+\"|[\w.$]+)\(.*!dbg !(\d+)")


def read_ir(path):
    """(metadata by id, define name → subprogram id, calls as (callee name, location id))."""
    meta, defines, calls = {}, {}, []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.startswith("!"):
                m = METADATA.match(line)
                if m:
                    meta[int(m.group(1))] = (m.group(2), dict(FIELD.findall(m.group(3))))
                continue
            if line.startswith("define "):
                m = DEFINE.match(line)
                if m:
                    defines[m.group(1).strip('"')] = int(m.group(2))
                continue
            if " call " in line:
                m = CALL.search(line)
                if m and not m.group(1).startswith("llvm."):
                    calls.append((m.group(1).strip('"'), int(m.group(2))))
    return meta, defines, calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-root", required=True)
    parser.add_argument("-output", required=True)
    parser.add_argument("-entry", required=True, help="the root file `zig test` compiles")
    parser.add_argument("-filter", default=None, help="only tests whose names hold this text")
    parser.add_argument("-lib-dir", default=None, help="the Zig library folder to compile with")
    parser.add_argument(
        "-module", action="append", default=[], help="NAME=FILE: a module the entry imports by name"
    )
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    files = definitions(root)
    by_path = {f["path"]: f for f in files}

    with tempfile.TemporaryDirectory() as scratch:
        ir = os.path.join(scratch, "corpus.ll")
        entry = os.path.join(root, args.entry)
        command = [sys.executable, "-m", "ziglang", "test"]
        if args.module:
            for module in args.module:
                command += ["--dep", module.split("=", 1)[0]]
            command += ["-Mroot=" + entry] + ["-M" + module for module in args.module]
        else:
            command.append(entry)
        command += ["-fno-emit-bin", "-femit-llvm-ir=" + ir, "--cache-dir", os.path.join(scratch, "cache")]
        if args.lib_dir:
            command += ["--zig-lib-dir", args.lib_dir]
        if args.filter:
            command += ["--test-filter", args.filter]
        subprocess.run(command, check=True, cwd=scratch)
        meta, defines, calls = read_ir(ir)

    def file_of(node_id, depth=0):
        """The corpus path of a debug scope (subprogram, lexical block, file)."""
        kind, fields = meta.get(node_id, (None, {}))
        if kind == "DIFile":
            name = fields.get("filename", '""').strip('"')
            folder = fields.get("directory", '""').strip('"')
            full = os.path.realpath(os.path.join(folder, name))
            return os.path.relpath(full, root) if full.startswith(root + os.sep) else None
        if depth > 64:
            return None
        for key in ("file", "scope"):
            if key in fields and fields[key].startswith("!"):
                return file_of(int(fields[key][1:]), depth + 1)
        return None

    def defined_at(name):
        """(path, def) of a defined function's LLVM name, when it is a function of the corpus."""
        sub = defines.get(name)
        if sub is None:
            return None
        path = file_of(sub)
        line = int(meta.get(sub, (None, {}))[1].get("line", "0"))
        f = by_path.get(path)
        if f is None:
            return None
        found = [d for d in f["defs"] if d["start"] == line or d["line"] == line]
        return (path, found[0]) if found else None

    references = {}
    resolved = 0
    for callee, location in calls:
        target = defined_at(callee)
        kind, fields = meta.get(location, (None, {}))
        if target is None or kind != "DILocation" or "inlinedAt" in fields:
            continue
        site = file_of(location)
        f = by_path.get(site)
        if f is None:
            continue
        line = int(fields.get("line", "0"))
        column = max(int(fields.get("column", "1")) - 1, 0)
        lines = f["data"].split(b"\n")
        if not 0 < line <= len(lines):
            continue
        text = lines[line - 1]
        name = target[1]["name"].encode()
        # The callee's name as written, followed by `(`: of its places on the line, the one
        # whose `(` is nearest the call's column (the compiler's column is the `(`).
        matches = list(re.finditer(rb"(?<![\w@])" + re.escape(name) + rb"\s*\(", text))
        if not matches:
            continue
        match = min(matches, key=lambda m: abs(m.end() - 1 - column))
        references.setdefault(site, set()).add(
            (line - 1, match.start(), len(name), (target[0], target[1]["name"], target[1]["owner"]))
        )
        resolved += 1

    defined, occurrences = write_index(
        args.output, root, files, references, symbol_of, "zig", "zig_scip.py", "zig"
    )
    print(
        "zig_scip: %d files, %d functions, %d calls in the IR, %d to the corpus, %d occurrences"
        % (len(files), defined, len(calls), resolved, occurrences),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
