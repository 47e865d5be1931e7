"""How our servers are served: stdio (default) or Streamable HTTP for one long-lived server.

`--transport http --port N` serves http://127.0.0.1:N/mcp; `--host` opens it wider on purpose.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import anyio
from mcp.server.mcpserver import MCPServer

from zork_mcp.servers.stdio import serve_stdio

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def parse_transport(argv: Sequence[str] | None, program: str) -> argparse.Namespace:
    _PARSER.prog = program
    return _PARSER.parse_args(argv)


def transport_parser(program: str | None = None) -> argparse.ArgumentParser:
    """The transport's options, for a server to add its own to. Build it once, at import:
    a fresh server forked from the preloaded fork server then gets it made (argparse's
    set-up, its gettext lookups on disk included, is ~1 ms a process)."""
    parser = argparse.ArgumentParser(
        prog=program, description="Serve this MCP server.", allow_abbrev=False
    )
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default=DEFAULT_HOST, help="HTTP only (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTP only")
    return parser


_PARSER = transport_parser()


def serve(server: MCPServer, options: argparse.Namespace, *, json_response: bool = True) -> None:
    """`json_response=False`: each answer is an SSE stream, which a server needs to ask its
    client something during a call in the handshake era."""
    if options.transport == "stdio":
        anyio.run(serve_stdio, server)
        return
    import uvicorn

    # JSON answers rather than an SSE stream per request, and no log line per request:
    # both are most of a loopback round trip.
    app = server.streamable_http_app(json_response=json_response, host=options.host)
    uvicorn.run(app, host=options.host, port=options.port, log_level="warning")
