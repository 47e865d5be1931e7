"""A minimal MCP stdio server in plain JSON-RPC, fast to start (it does not import mcp).

It appends every method it receives to the file named by RAW_MCP_LOG (as "<pid> <method>",
with " +meta" where the request carries the 2026-07-28 version and client capabilities in
`_meta`), serves the tools listed as JSON in RAW_MCP_TOOLS plus `environ` (its environment
as JSON) and `pid`, and answers any other tool with its arguments. It exits when stdin closes.

RAW_MCP_ERAS says which eras it speaks: "handshake" (the default: `server/discover` is an
unknown method), "modern" (2026-07-28 only), or "both"; "@<path>" reads that word from a
file when the server starts (a server redeployed between turns). A modern-only server
answers `initialize` with -32022 naming its versions, and refuses a request whose `_meta`
lacks the protocol version with -32020, as the 2026-07-28 specification has it. A
handshake-only server refuses any request but `initialize` and `ping` before `initialize`.
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


ERAS = os.environ.get("RAW_MCP_ERAS", "handshake")
if ERAS.startswith("@"):
    with open(ERAS[1:], encoding="utf-8") as eras_file:
        ERAS = eras_file.read().strip()
initialized = False
MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"


def log(message: dict) -> None:
    path = os.environ.get("RAW_MCP_LOG")
    if path:
        stamped = " +meta" if stamped_modern(message) else ""
        with open(path, "a", encoding="utf-8") as file:
            file.write(
                f"{os.readlink('/proc/self')} {message.get('method', '<response>')}{stamped}\n"
            )


def stamped_modern(message: dict) -> bool:
    meta = (message.get("params") or {}).get("_meta") or {}
    return meta.get(VERSION_KEY) == MODERN and isinstance(meta.get(CAPABILITIES_KEY), dict)


def error(message: dict, code: int, text: str, data: object = None) -> dict:
    body = {"code": code, "message": text, **({"data": data} if data is not None else {})}
    return {"jsonrpc": "2.0", "id": message["id"], "error": body}


def era_refusal(message: dict) -> dict | None:
    """What a server of these eras says to a request it cannot take, or None."""
    method = message.get("method", "")
    if method == "server/discover" and ERAS == "handshake":
        return error(message, -32601, method)
    if method == "initialize" and ERAS == "modern":
        requested = message["params"]["protocolVersion"]
        data = {"supported": [MODERN], "requested": requested}
        return error(message, -32022, "Unsupported protocol version", data)
    if ERAS == "modern" and method != "initialize" and not stamped_modern(message):
        return error(message, -32020, "Missing protocol version in _meta")
    if ERAS == "handshake" and not initialized and method not in ("initialize", "ping"):
        return error(message, -32600, "Received request before initialization was complete")
    return None


def call(params: dict) -> dict:
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name == "environ":
        text = json.dumps(dict(os.environ))
    elif name == "pid":
        text = os.readlink("/proc/self")  # its pid as the host sees it (not 1, when sealed)
    else:
        text = json.dumps(arguments)
    return {"content": [{"type": "text", "text": text}], "isError": False}


def answer(message: dict) -> dict | None:
    method = message.get("method", "")
    if "id" not in message:
        return None
    refusal = era_refusal(message)
    if refusal is not None:
        return refusal
    if method == "server/discover":
        result = {"supportedVersions": [MODERN], "capabilities": {"tools": {}}}
    elif method == "initialize":
        global initialized
        initialized = True
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
        return error(message, -32601, method)
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        log(message)
        reply = answer(message)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
