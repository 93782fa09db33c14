#!/usr/bin/env python3
"""Writes a SCIP index of the Scala files under a folder, each call bound by scalac 2.11's typer
(Debian's scala), as the reference for scripts/accuracy.sh's Scala corpora.

Usage: scala_scip.py -root DIR -output FILE -classes DIR [-cp JAR ...]

ScalaSites.scala (beside this file) is compiled once into -classes, then run on every .scala
file under the root with the compiler, the standard library and the -cp jars on its classpath.
It stops after the typer and lists each `def` written in the source (name, owner chain, name's
line and column, extent) and each reference to one whose name is written where the reference
stands (see its header for what that leaves out). A method is its name within the file and
owner chain that define it ("scip-scala . corpus 0 `FILE`/Owner#NAME()."), so overloads are one.

What the reference cannot judge: calls the compiler writes itself (`Foo(x)` calling
`Foo.apply`, implicit conversions and arguments, `for` comprehensions' `map`/`flatMap`/
`foreach`), accessors of `val`s and `var`s (not functions), method values (`xs.map(f)`), and
calls inside an expression scalac rejects (reported on stderr). Dynamic dispatch is not followed:
a call names the method the typer binds (a trait's abstract `def`, not its overrides).
"""

import argparse
import os
import subprocess
import sys

from scip_proto import escaped, write_index

LIB = "/usr/share/scala-2.11/lib"
COMPILER = ["scala-library.jar", "scala-compiler.jar", "scala-reflect.jar"]


def symbol_of(path, name, owner):
    return "scip-scala . corpus 0 `%s`/%s%s()." % (path.replace("`", "``"), owner, escaped(name))


def compile_sites(classes):
    """Compiles ScalaSites.scala into `classes` unless it is there and newer than its source."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ScalaSites.scala")
    built = os.path.join(classes, "ScalaSites.class")
    if os.path.exists(built) and os.path.getmtime(built) >= os.path.getmtime(source):
        return
    os.makedirs(classes, exist_ok=True)
    cp = ":".join(os.path.join(LIB, j) for j in COMPILER[1:])
    subprocess.run(["scalac", "-nowarn", "-cp", cp, "-d", classes, source], check=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-root", required=True)
    parser.add_argument("-output", required=True)
    parser.add_argument("-classes", required=True)
    parser.add_argument("-cp", action="append", default=[])
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    compile_sites(args.classes)
    sources = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        sources.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith(".scala"))
    classpath = [args.classes] + [os.path.join(LIB, j) for j in COMPILER] + args.cp
    run = subprocess.run(
        ["java", "-Xss8m", "-cp", ":".join(classpath), "ScalaSites", root] + sources,
        stdout=subprocess.PIPE,
        check=True,
    )
    defs = {os.path.relpath(s, root): [] for s in sources}
    references = {}
    for row in run.stdout.decode("utf-8").splitlines():
        cells = row.split("\t")
        if cells[0] == "D" and len(cells) == 8:
            _, path, name, owner, line, column, start, end = cells
            defs.setdefault(path, []).append(
                {
                    "name": name,
                    "owner": owner,
                    "line": int(line),
                    "column": int(column),
                    "start": int(start),
                    "end": int(end),
                }
            )
        elif cells[0] == "R" and len(cells) == 8:
            _, path, line, column, length, callee_path, name, owner = cells
            references.setdefault(path, []).append(
                (int(line), int(column), int(length), (callee_path, name, owner))
            )
    files = [{"path": p, "defs": d} for p, d in sorted(defs.items())]
    defined, occurrences = write_index(
        args.output, root, files, references, symbol_of, "scala", "scala-sites", "2.11.12"
    )
    calls = sum(len(r) for r in references.values())
    print(
        "scala_scip: %d files, %d definitions, %d calls, %d occurrences"
        % (len(files), defined, calls, occurrences),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
