#!/usr/bin/env python3
# A misbehaving MCP stdio server for the MCP host tests: crashes after N calls or on demand,
# hangs, writes garbage to stdout, returns huge results, changes its tool list, never answers
# tools/list (or only the first), streams one endless line to stdout or stderr, and writes down the environment and
# folder it was started with. Standard library only.
import json
import os
import sys

args = sys.argv[1:]


def flag(name, default=None):
    if name in args:
        i = args.index(name)
        return args[i + 1] if i + 1 < len(args) else default
    return default


CRASH_AFTER = int(flag("--crash-after", "0"))
GARBAGE = "--garbage" in args
SILENT = "--silent" in args
NO_LIST = "--no-list" in args
NO_RELIST = "--no-relist" in args
LONG_STDOUT = int(flag("--long-stdout", "0"))
LONG_STDERR = int(flag("--long-stderr", "0"))
DUMP = flag("--dump-env")
LOG = os.environ.get("MISBEHAVE_LOG")
CRASH_FILE = os.environ.get("MISBEHAVE_CRASH_FILE")


def log(line):
    if LOG:
        with open(LOG, "a") as f:
            f.write(line + "\n")


def send(obj):
    if GARBAGE:
        sys.stdout.write("this is not JSON-RPC {{{\n")
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def schema(props, required):
    return {"type": "object", "properties": props, "required": required}


TOOLS = [
    {"name": "echo", "description": "Echoes the message.",
     "inputSchema": schema({"message": {"type": "string"}}, ["message"])},
    {"name": "hang", "description": "Never answers.", "inputSchema": schema({}, [])},
    {"name": "huge", "description": "Returns `bytes` bytes of text.",
     "inputSchema": schema({"bytes": {"type": "integer", "minimum": 1}}, ["bytes"])},
    {"name": "flaky", "description": "Crashes while the crash file exists.",
     "inputSchema": schema({}, [])},
    {"name": "grow", "description": "Adds a tool and says the list changed.",
     "inputSchema": schema({}, [])},
    {"name": "env", "description": "Returns an environment variable.",
     "inputSchema": schema({"name": {"type": "string"}}, ["name"])},
]

def stream_line(stream, size):
    # One line of `size` bytes, written in pieces so it is never held whole.
    piece = "x" * (1 << 20)
    left = size
    while left > 0:
        stream.write(piece[:min(left, len(piece))])
        left -= len(piece)
    stream.write("\n")
    stream.flush()


log("pid %d" % os.getpid())
listed = 0
if DUMP:
    cwd = os.getcwd()
    with open(DUMP, "w") as f:
        json.dump({"cwd": cwd, "cwd_entries": os.listdir(cwd), "env": dict(os.environ)}, f)
if LONG_STDERR:
    stream_line(sys.stderr, LONG_STDERR)
calls = 0
for raw in sys.stdin:
    try:
        msg = json.loads(raw)
    except ValueError:
        continue
    method = msg.get("method")
    mid = msg.get("id")
    if method == "notifications/cancelled":
        log("cancelled %s" % json.dumps(msg.get("params", {}).get("requestId")))
        continue
    if mid is None:
        continue
    if method == "initialize":
        if SILENT:
            continue
        version = msg.get("params", {}).get("protocolVersion", "2025-06-18")
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": True}, "prompts": {}},
            "serverInfo": {"name": "misbehave", "version": "1.0.0"}}})
    elif method == "tools/list":
        listed += 1
        if NO_LIST or (NO_RELIST and listed > 1):
            continue
        if LONG_STDOUT:
            stream_line(sys.stdout, LONG_STDOUT)
            continue
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
    elif method == "prompts/get":
        send({"jsonrpc": "2.0", "id": mid, "result": {"messages": [
            {"role": "user", "content": {"type": "text",
                                         "text": "Use misbehave:echo to test; never call hang."}}]}})
    elif method == "tools/call":
        calls += 1
        if CRASH_AFTER and calls > CRASH_AFTER:
            log("crash")
            sys.exit(3)
        name = msg["params"]["name"]
        arguments = msg["params"].get("arguments") or {}
        log("call %s %s" % (name, json.dumps(mid)))
        if name == "hang":
            continue
        if name == "flaky" and CRASH_FILE and os.path.exists(CRASH_FILE):
            log("crash")
            sys.exit(4)
        if name == "grow":
            TOOLS.append({"name": "grown%d" % len(TOOLS), "description": "Appeared later.",
                          "inputSchema": schema({}, [])})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        if name == "echo":
            text = arguments.get("message", "")
        elif name == "huge":
            text = "x" * int(arguments.get("bytes", 1))
        elif name == "env":
            text = os.environ.get(arguments.get("name", ""), "<unset>")
        else:
            text = "ok"
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": text}]}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no " + str(method)}})
