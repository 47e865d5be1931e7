"""A minimal MCP stdio server in plain JSON-RPC, fast to start (it does not import mcp).

It appends every method it receives to the file named by RAW_MCP_LOG, serves the tools
listed as JSON in RAW_MCP_TOOLS plus `environ` (its environment as JSON) and `pid`, and
answers any other tool with its arguments. It exits when stdin closes.
"""

import json
import os
import sys

BUILTIN = [
    {
        "name": "environ",
        "description": "The process environment.",
        "inputSchema": {"type": "object"},
    },
    {"name": "pid", "description": "The process id.", "inputSchema": {"type": "object"}},
]


def log(method: str) -> None:
    path = os.environ.get("RAW_MCP_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(method + "\n")


def call(params: dict) -> dict:
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name == "environ":
        text = json.dumps(dict(os.environ))
    elif name == "pid":
        text = str(os.getpid())
    else:
        text = json.dumps(arguments)
    return {"content": [{"type": "text", "text": text}], "isError": False}


def answer(message: dict) -> dict | None:
    method = message.get("method", "")
    if "id" not in message:
        return None
    if method == "initialize":
        version = message["params"]["protocolVersion"]
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": json.loads(os.environ.get("RAW_MCP_TOOLS", "[]")) + BUILTIN}
    elif method == "tools/call":
        result = call(message.get("params") or {})
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": method}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        log(message.get("method", "<response>"))
        reply = answer(message)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
