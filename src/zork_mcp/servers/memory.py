"""The memory server: the agent's own episode, its map, routes on it, its past turns and its
notes (`get_map`, `find_path`, `search_history`, `add_note`, `read_notes`), read from the
episode's journal in the folder its client names as an MCP root; zork-mcp names each
episode's log folder, so one config entry serves every episode of a sweep. Each turn's
server is a fresh process, and what it remembers lives in that folder. Over Streamable HTTP
one server serves one episode: the first folder a client names binds it. The tools are
defined in `episode_memory`; this module is the server.
Run: `python -m zork_mcp.servers.memory [--transport http --port N]`.
"""

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from mcp.server.mcpserver import MCPServer

from zork_mcp import __version__
from zork_mcp.servers.episode_memory import TOOLS, Served
from zork_mcp.servers.transport import parse_transport, serve


def build_server(*, one_client: bool = True) -> MCPServer[Served]:
    """`one_client`: the server serves one client (stdio), so it asks for its roots once."""

    @asynccontextmanager
    async def run(_: MCPServer[Served]) -> AsyncIterator[Served]:
        yield Served(one_client)

    return MCPServer("zork-mcp-memory", version=__version__, tools=list(TOOLS), lifespan=run)


def main(argv: Sequence[str] | None = None) -> None:
    """Over HTTP, answers are SSE streams: a handshake-era call asks for the roots in one."""
    options = parse_transport(argv, "python -m zork_mcp.servers.memory")
    serve(build_server(one_client=options.transport == "stdio"), options, json_response=False)


if __name__ == "__main__":
    main()
