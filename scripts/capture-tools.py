#!/usr/bin/env python3
"""Captures the real `tools/list` of MCP servers from npm and PyPI into the JIT registry fixture.

Each candidate of jit/fixtures/registry/candidates.txt (`npm NAME [ARG ...]` or `pypi NAME [ARG
...]`, `{scratch}` in an argument is the package's scratch folder) is installed in its own folder
under the scratch directory (never in the repository: npm with --ignore-scripts, PyPI with uv in
a venv), started over stdio with a minimal environment (PATH, a scratch HOME; no key of this
machine), initialised and asked for every page of tools/list under a timeout. A server that
stops and names environment variables it needs gets them once more as dummy values ("dummy",
never a real key). Captures go to servers.json (package, registry, version, command, dummy
variables, tools), failures with the stage and reason to failures.json; each server's split
(learning or held-out, by SHA-256 of the package name) is recorded with it.

Usage: python3 scripts/capture-tools.py [--scratch DIR] [--jobs N] [--timeout S] [--only NAME]
Needs node/npm, and uv (pip install uv) for PyPI packages.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "jit" / "fixtures" / "registry"
HELD_OUT_BUCKETS = 4  # one server in four is held out


def split_of(package):
    """learning or held-out, decided by the package name's hash alone."""
    digest = hashlib.sha256(package.encode()).digest()
    return "held-out" if digest[0] % HELD_OUT_BUCKETS == 0 else "learning"


def folder_name(package):
    return re.sub(r"[^A-Za-z0-9._-]", "_", package)


def run(cmd, cwd=None, timeout=600, env=None):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def tail(text, n=400):
    text = " ".join((text or "").split())
    return text[-n:]


def install_npm(package, folder):
    folder.mkdir(parents=True, exist_ok=True)
    out = run(["npm", "install", "--prefix", str(folder), "--no-audit", "--no-fund",
               "--ignore-scripts", "--loglevel=error", package], timeout=900)
    if out.returncode != 0:
        raise Failure("install", tail(out.stderr))
    meta_path = folder / "node_modules" / package / "package.json"
    meta = json.loads(meta_path.read_text())
    bins = meta.get("bin") or {}
    if isinstance(bins, str):
        bins = {package.split("/")[-1]: bins}
    if not bins:
        main = meta.get("main")
        if not main:
            raise Failure("entry", "package has no bin and no main")
        bins = {"main": main}
    base = package.split("/")[-1]
    name = next((k for k in bins if k == base), None) or next(
        (k for k in bins if "mcp" in k or "server" in k), None) or sorted(bins)[0]
    script = (meta_path.parent / bins[name]).resolve()
    return meta.get("version", "?"), ["node", str(script)]


def install_pypi(package, folder, uv):
    venv = folder / "venv"
    out = run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)])
    if out.returncode != 0:
        raise Failure("install", tail(out.stderr))
    python = venv / "bin" / "python"
    out = run([uv, "pip", "install", "--quiet", "--python", str(python), package], timeout=900)
    if out.returncode != 0:
        raise Failure("install", tail(out.stderr))
    probe = ("import importlib.metadata as m, json, sys; d = m.distribution(sys.argv[1]); "
             "print(json.dumps([d.version, [e.name for e in d.entry_points "
             "if e.group == 'console_scripts']]))")
    out = run([str(python), "-c", probe, package])
    if out.returncode != 0:
        raise Failure("entry", tail(out.stderr))
    version, scripts = json.loads(out.stdout)
    if not scripts:
        raise Failure("entry", "distribution has no console script")
    name = next((s for s in scripts if s == package), None) or next(
        (s for s in scripts if "mcp" in s or "server" in s), None) or sorted(scripts)[0]
    return version, [str(venv / "bin" / name)]


class Failure(Exception):
    def __init__(self, stage, reason):
        super().__init__(reason)
        self.stage = stage
        self.reason = reason


class Session:
    """One server process spoken to over stdio with a reader thread and deadlines."""

    def __init__(self, command, env, cwd):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, cwd=cwd,
                                     start_new_session=True)
        self.messages = []
        self.closed = False
        self.stderr = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            with self.cond:
                self.messages.append(message)
                self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def _read_err(self):
        for raw in self.proc.stderr:
            if sum(len(x) for x in self.stderr) < 20000:
                self.stderr.append(raw.decode(errors="replace"))

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def answer(self, wanted, deadline):
        with self.cond:
            while True:
                for m in self.messages:
                    if isinstance(m, dict) and m.get("id") == wanted:
                        return m
                if self.closed:
                    self.proc.wait()
                    raise Failure("exit", "exited with %s before answering request %d"
                                  % (self.proc.returncode, wanted))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Failure("timeout", "no answer to request %d in time" % wanted)
                self.cond.wait(min(left, 0.5))

    def close(self):
        try:
            os.killpg(self.proc.pid, 9)
        except OSError:
            pass
        self.proc.wait()


def list_tools(command, env, cwd, timeout):
    session = Session(command, env, cwd)
    deadline = time.monotonic() + timeout
    try:
        session.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "nexus-jit-capture", "version": "0.1.0"}}})
        init = session.answer(1, deadline)
        if "error" in init:
            raise Failure("initialize", json.dumps(init["error"])[:400])
        session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools, cursor, request = [], None, 2
        while True:
            params = {"cursor": cursor} if cursor else {}
            session.send({"jsonrpc": "2.0", "id": request, "method": "tools/list",
                          "params": params})
            reply = session.answer(request, deadline)
            if "error" in reply:
                raise Failure("tools/list", json.dumps(reply["error"])[:400])
            result = reply.get("result") or {}
            tools += result.get("tools") or []
            cursor = result.get("nextCursor")
            request += 1
            if not cursor or request > 50:
                break
        server = (init.get("result") or {}).get("serverInfo") or {}
        return tools, server
    except Failure as f:
        f.reason = (f.reason + "; stderr: " + tail("".join(session.stderr))).strip()
        f.stderr = "".join(session.stderr)
        raise
    except (BrokenPipeError, OSError) as e:
        f = Failure("exit", "%s; stderr: %s" % (e, tail("".join(session.stderr))))
        f.stderr = "".join(session.stderr)
        raise f
    finally:
        session.close()


ENV_NAME = re.compile(r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])\b")
ENV_HINT = re.compile(r"requir|missing|not set|must be|undefined|provide|environment|env",
                      re.I)
NOT_ENV = {"MCP_SERVER", "TODO", "ENOENT", "ERR_MODULE_NOT_FOUND", "EADDRINUSE"}


def wanted_variables(stderr):
    names = set()
    for line in stderr.splitlines():
        if ENV_HINT.search(line):
            names.update(n for n in ENV_NAME.findall(line)
                         if n not in NOT_ENV and not n.startswith("ERR_"))
    return sorted(names)[:12]


def base_env(home):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "LANG": "C.UTF-8", "NODE_NO_WARNINGS": "1", "NO_COLOR": "1",
           "PYTHONUNBUFFERED": "1"}
    return env


def capture(kind, package, args, scratch, timeout, uv):
    folder = scratch / kind / folder_name(package)
    home = folder / "home"
    record = {"package": package, "registry": kind, "split": split_of(package)}
    try:
        home.mkdir(parents=True, exist_ok=True)
        if kind == "npm":
            version, command = install_npm(package, folder)
        else:
            version, command = install_pypi(package, folder, uv)
        record["version"] = version
        args = [a.replace("{scratch}", str(folder)) for a in args]
        env = base_env(home)
        dummies = []
        for attempt in range(2):
            try:
                tools, server = list_tools(command + args, env, str(home), timeout)
                break
            except Failure as f:
                names = [n for n in wanted_variables(getattr(f, "stderr", ""))
                         if n not in env]
                if attempt == 1 or not names:
                    raise
                dummies += names
                env.update({n: "dummy" for n in names})
        if not tools:
            raise Failure("tools/list", "server listed no tools")
        record.update({
            "command": [pathlib.Path(c).name for c in command]
            + [a.replace(str(folder), "{scratch}") for a in args],
            "server_info": {k: server.get(k) for k in ("name", "version") if k in server},
            "dummy_env": dummies,
            "tools": [{"name": t.get("name", ""), "description": t.get("description") or "",
                       "inputSchema": t.get("inputSchema") or {}}
                      for t in tools if isinstance(t, dict)],
        })
        return record, None
    except Failure as f:
        record.update({"stage": f.stage, "reason": f.reason[:600]})
        return None, record
    except (subprocess.TimeoutExpired, OSError, ValueError, KeyError) as e:
        record.update({"stage": "install", "reason": str(e)[:600]})
        return None, record
    finally:
        # Installs are large (100 MB a package is common): each goes once captured.
        shutil.rmtree(folder, ignore_errors=True)


def write(servers, failures):
    servers.sort(key=lambda s: (s["package"], s["registry"]))
    failures.sort(key=lambda s: (s["package"], s["registry"]))
    with open(REGISTRY / "servers.json", "w") as f:
        json.dump(servers, f, indent=0, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    with open(REGISTRY / "failures.json", "w") as f:
        json.dump(failures, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    print("%d servers captured (%d tools), %d failed" % (
        len(servers), sum(len(s["tools"]) for s in servers), len(failures)))


def assemble(progress_files):
    """The fixtures from the progress of one or more runs: a capture wins over a failure."""
    wanted = set()
    for line in (REGISTRY / "candidates.txt").read_text().splitlines():
        line = line.split("#", 1)[0].split()
        if len(line) >= 2:
            wanted.add((line[0], line[1]))
    ok, failed = {}, {}
    for path in progress_files:
        for line in pathlib.Path(path).read_text().splitlines():
            record = json.loads(line)
            key = (record["registry"], record["package"])
            if key not in wanted:
                continue
            (ok if "tools" in record else failed)[key] = record
    for key in ok:
        failed.pop(key, None)
    missing = wanted - set(ok) - set(failed)
    for registry, package in sorted(missing):
        failed[(registry, package)] = {"package": package, "registry": registry,
                                       "split": split_of(package), "stage": "not run",
                                       "reason": "the capture run ended before this candidate"}
    write(list(ok.values()), list(failed.values()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scratch", default="/tmp/nexus-capture")
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=40.0)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--reverse", action="store_true",
                        help="take the candidates from the last (a second run sharing the work)")
    parser.add_argument("--assemble", nargs="+", metavar="PROGRESS",
                        help="write servers.json and failures.json from runs' progress.jsonl")
    opts = parser.parse_args()
    if opts.assemble:
        assemble(opts.assemble)
        return
    scratch = pathlib.Path(opts.scratch).resolve()
    if ROOT in scratch.parents or scratch == ROOT:
        sys.exit("the scratch folder must be outside the repository")
    scratch.mkdir(parents=True, exist_ok=True)
    uv = shutil.which("uv") or str(pathlib.Path(sys.executable).parent / "uv")
    candidates = []
    for line in (REGISTRY / "candidates.txt").read_text().splitlines():
        line = line.split("#", 1)[0].split()
        if len(line) >= 2 and line[0] in ("npm", "pypi"):
            if not opts.only or line[1] in opts.only:
                candidates.append((line[0], line[1], line[2:]))
    servers_path, failures_path = REGISTRY / "servers.json", REGISTRY / "failures.json"
    servers = json.loads(servers_path.read_text()) if opts.only and servers_path.exists() else []
    failures = json.loads(failures_path.read_text()) if opts.only and failures_path.exists() else []
    if opts.reverse:
        candidates.reverse()
    redo = {c[1] for c in candidates}
    servers = [s for s in servers if s["package"] not in redo]
    failures = [f for f in failures if f["package"] not in redo]
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        jobs = [pool.submit(capture, k, p, a, scratch, opts.timeout, uv)
                for k, p, a in candidates]
        for job in concurrent.futures.as_completed(jobs):
            ok, failed = job.result()
            with open(scratch / "progress.jsonl", "a") as f:
                f.write(json.dumps(ok or failed) + "\n")
            if ok:
                servers.append(ok)
                print("ok     %-50s %3d tools" % (ok["package"], len(ok["tools"])), flush=True)
            else:
                failures.append(failed)
                print("failed %-50s %s: %s" % (failed["package"], failed["stage"],
                                               failed["reason"][:120]), flush=True)
    write(servers, failures)


main()
