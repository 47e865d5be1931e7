"""The skeleton of our test servers in plain JSON-RPC over stdio (fast to start: no mcp
import): initialize, tools/list, tools/call and ping answered, anything else -32601, one
message a line, until stdin closes. A server script beside it imports it (its folder is on
its path, and readable to a confined server, whose own folder it is)."""

import json
import sys
from collections.abc import Callable

Call = Callable[[str, dict], dict]  # a tool's name and arguments to its result


def answer(message: dict, name: str, tools: list[dict], call: Call) -> dict | None:
    if "id" not in message:
        return None
    method = message.get("method", "")
    params = message.get("params") or {}
    if method == "initialize":
        result: dict = {
            "protocolVersion": params["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": name, "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        result = call(params.get("name", ""), params.get("arguments") or {})
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": method}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def serve(name: str, tools: list[dict], call: Call) -> None:
    for line in sys.stdin:
        if line.strip():
            reply = answer(json.loads(line), name, tools, call)
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()
