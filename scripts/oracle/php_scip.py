#!/usr/bin/env python3
"""Writes a SCIP index of the PHP files under a folder, each call resolved by Intelephense (a PHP
language server from npm that infers types), as the reference for scripts/accuracy.sh's PHP
corpora.

Usage: php_scip.py -root DIR -output FILE -server INTELEPHENSE_JS [-sites SITES_PHP]

php_sites.php (nikic/PHP-Parser, Debian's php-parser) lists every function and method and every
call written with a name: `f()`, `$o->f()`, `$o?->f()`, `T::f()`. For each call the server is
asked where the called name is defined (`textDocument/definition`); an answer inside the corpus
at a function or method is a reference. Intelephense resolves `$this`, `self`, `static`,
`parent`, `use` imports and namespaces, declared types, `@var`/`@param`/`@return` doc types,
and what `new` assigns; it answers nothing for a receiver it cannot type. A call it answers with
several places (an interface method and its implementations) names the first it lists.

The index has, per PHP file (paths relative to DIR, byte columns): a definition of each
function and method (the range of its name, the whole declaration as the enclosing range), and
a reference at each call the server resolved. A function is its name within the file that
defines it ("scip-php . corpus 0 `FILE`/NAME()."), a method names its class as a type
("`FILE`/Class#NAME()."); namespaces are left out, so (file, qualified name) is the identity
both sides share. `new T` names no function and is no reference.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from urllib.parse import quote, unquote

from scip_proto import escaped, write_index


def symbol_of(path, name, owner):
    types = escaped(owner) + "#" if owner else ""
    return "scip-php . corpus 0 `%s`/%s%s()." % (path.replace("`", "``"), types, escaped(name))


class Server:
    """A language server on stdio: requests pipelined, answers matched by id."""

    def __init__(self, command):
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0

    def send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def read(self):
        length = None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise EOFError("the language server closed its output")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message = json.loads(self.process.stdout.read(length))
        # Requests from the server (configuration, progress) get an empty answer.
        if "method" in message and "id" in message:
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        return message

    def answers(self, ids):
        wanted, got = set(ids), {}
        while wanted:
            message = self.read()
            if message.get("id") in wanted and "method" not in message:
                wanted.discard(message["id"])
                got[message["id"]] = message.get("result")
        return got


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-root", required=True)
    parser.add_argument("-output", required=True)
    parser.add_argument("-server", required=True)
    parser.add_argument(
        "-sites", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "php_sites.php")
    )
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    listing = subprocess.run(
        ["php", args.sites, root], check=True, capture_output=True, text=True
    ).stdout
    files = [json.loads(line) for line in listing.splitlines() if line.strip()]
    defs_by_path = {f["path"]: f["defs"] for f in files}

    storage = tempfile.mkdtemp(prefix="intelephense-")
    server = Server(["node", args.server, "--stdio"])
    root_uri = "file://" + quote(root)
    init = server.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": root_uri,
            "workspaceFolders": [{"uri": root_uri, "name": "corpus"}],
            "capabilities": {},
            "initializationOptions": {"storagePath": storage, "clearCache": True},
        },
    )
    server.answers([init])
    server.notify("initialized", {})
    # Indexing ends with a notification of Intelephense's own.
    deadline = time.time() + 900
    while time.time() < deadline:
        if server.read().get("method") == "indexingEnded":
            break

    def target_of(result):
        if not result:
            return None
        location = result[0] if isinstance(result, list) else result
        uri = location.get("uri") or location.get("targetUri")
        rng = location.get("range") or location.get("targetSelectionRange")
        if not uri or not rng or not uri.startswith("file://"):
            return None
        path = os.path.realpath(unquote(uri[len("file://"):]))
        if not path.startswith(root + os.sep):
            return None
        rel = path[len(root) + 1:]
        first, last = rng["start"]["line"] + 1, rng["end"]["line"] + 1
        # The server names the whole declaration (its doc comment included): the first
        # definition whose name is within it.
        candidates = [d for d in defs_by_path.get(rel, ()) if first <= d["line"] <= last]
        if not candidates:
            return None
        best = min(candidates, key=lambda d: d["line"])
        return rel, best["name"], best["owner"]

    references = {}
    for f in files:
        path = os.path.join(root, f["path"])
        uri = "file://" + quote(path)
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "php", "version": 1, "text": text}},
        )
        lines = text.split("\n")
        ids = {}
        for call in f["calls"]:
            line_bytes = lines[call["line"] - 1].encode() if call["line"] - 1 < len(lines) else b""
            # The server counts UTF-16 units; the sites are byte columns.
            character = len(line_bytes[: call["column"]].decode(errors="replace").encode("utf-16-le")) // 2
            rid = server.request(
                "textDocument/definition",
                {"textDocument": {"uri": uri}, "position": {"line": call["line"] - 1, "character": character}},
            )
            ids[rid] = call
        for rid, result in server.answers(list(ids)).items():
            target = target_of(result)
            if target is None:
                continue
            call = ids[rid]
            line_bytes = lines[call["line"] - 1].encode()
            rest = line_bytes[call["column"]:]
            length = 0
            while length < len(rest) and (chr(rest[length]).isalnum() or rest[length] in b"_" or rest[length] >= 0x80):
                length += 1
            references.setdefault(f["path"], set()).add((call["line"] - 1, call["column"], length, target))
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    server.request("shutdown", None)
    server.notify("exit", None)
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()

    defined, occurrences = write_index(
        args.output, root, files, references, symbol_of, "php", "php_scip.py", "intelephense"
    )
    calls = sum(len(f["calls"]) for f in files)
    resolved = sum(len(r) for r in references.values())
    print(
        "php_scip: %d files, %d functions and methods, %d calls, %d resolved in the corpus, %d occurrences"
        % (len(files), defined, calls, resolved, occurrences),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
