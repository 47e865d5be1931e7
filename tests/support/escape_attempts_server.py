"""An MCP stdio server in plain JSON-RPC whose tools each try one escape from its sandbox and
report what they got (issue 47): a tool that escaped answers "ESCAPED: ...", a denied one a
tool error "denied: <errno name>". Fast to start: no mcp import. It exits when stdin closes.

Tools: `read` (a file's first bytes; `/proc/<pid>/environ` too), `write` (a new file),
`connect` (TCP to 127.0.0.1:port), `signal` (os.kill(pid, sig)), `ptrace` (PTRACE_ATTACH,
then detach), and `parent` (its parent's pid, from /proc/self/status).
"""

import ctypes
import errno
import json
import os
import socket
import sys

PTRACE_ATTACH, PTRACE_DETACH = 16, 17
TOOLS = ["read", "write", "connect", "signal", "ptrace", "parent"]


def _read(args: dict) -> str:
    with open(args["path"], "rb") as file:
        return f"ESCAPED: {file.read(200)!r}"


def _write(args: dict) -> str:
    with open(args["path"], "w") as file:
        file.write("escaped")
    return f"ESCAPED: wrote {args['path']}"


def _connect(args: dict) -> str:
    with socket.create_connection(("127.0.0.1", int(args["port"])), timeout=2):
        return f"ESCAPED: connected to port {args['port']}"


def _signal(args: dict) -> str:
    os.kill(int(args["pid"]), int(args["sig"]))
    return f"ESCAPED: signal {args['sig']} sent to {args['pid']}"


def _ptrace(args: dict) -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    pid = int(args["pid"])
    if libc.ptrace(PTRACE_ATTACH, pid, None, None) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    libc.ptrace(PTRACE_DETACH, pid, None, None)
    return f"ESCAPED: attached to {pid}"


def _parent(args: dict) -> str:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("PPid:"):
                return line.split()[1]
    return "?"


ACTIONS = {
    "read": _read,
    "write": _write,
    "connect": _connect,
    "signal": _signal,
    "ptrace": _ptrace,
    "parent": _parent,
}


def call(name: str, args: dict) -> dict:
    try:
        text, failed = ACTIONS[name](args), False
    except OSError as e:
        text, failed = f"denied: {errno.errorcode.get(e.errno or 0, e.errno)} {e}", True
    return {"content": [{"type": "text", "text": text}], "isError": failed}


def answer(message: dict) -> dict | None:
    if "id" not in message:
        return None
    method = message.get("method", "")
    params = message.get("params") or {}
    if method == "initialize":
        result: dict = {
            "protocolVersion": params["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "escape-attempts", "version": "0"},
        }
    elif method == "tools/list":
        schema = {"type": "object"}
        result = {"tools": [{"name": n, "inputSchema": schema} for n in TOOLS]}
    elif method == "tools/call":
        result = call(params.get("name", ""), params.get("arguments") or {})
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": method}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            reply = answer(json.loads(line))
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
