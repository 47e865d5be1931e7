"""A structured-reasoning MCP server, compatible with the `sequentialthinking` tool.

It accepts the same arguments as `@modelcontextprotocol/server-sequential-thinking` and
answers with the same structured progress. Thought history lives as long as the MCP
session: with a fresh server per turn it resets every turn, as the npm server's does, and
one long-lived HTTP server keeps each session's thoughts apart. The tool itself is defined
in `thinking`; this module is the server: its state and how it is served.
Run: `python -m zork_mcp.servers.reasoning [--transport http --port N]`.
"""

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from mcp.server.mcpserver import MCPServer

from zork_mcp import __version__
from zork_mcp.servers.thinking import TOOL, Thinking
from zork_mcp.servers.transport import parse_transport, serve


def build_server(*, echo_thoughts: bool = False) -> MCPServer[Thinking]:
    @asynccontextmanager
    async def run(_: MCPServer[Thinking]) -> AsyncIterator[Thinking]:
        yield Thinking(echo=echo_thoughts)

    return MCPServer("zork-mcp-reasoning", version=__version__, tools=[TOOL], lifespan=run)


def main(argv: Sequence[str] | None = None) -> None:
    options = parse_transport(argv, "python -m zork_mcp.servers.reasoning")
    echo = os.environ.get("DISABLE_THOUGHT_LOGGING", "").lower() != "true"
    serve(build_server(echo_thoughts=echo), options)


if __name__ == "__main__":
    main()
