"""The memory server: the agent's own episode, its map, routes on it, its past turns and its
notes (`get_map`, `find_path`, `search_history`, `add_note`, `read_notes`). It reads the
episode's journal it is given (`--journal`; zork-mcp fills `${ZORK_MCP_JOURNAL}` in its
entry for each episode, so one entry serves every episode of a sweep) and keeps the notes
in its own folder (`--folder`, by default `$ZORK_MCP_SERVER_DIR`, the folder zork-mcp gives
each server in each episode). Each turn's server is a fresh process; what it remembers lives
in that folder. The tools are defined in `episode_memory`; this module is the server.
Run: `python -m zork_mcp.servers.memory --journal PATH [--folder DIR]
[--transport http --port N]`.
"""

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from zork_mcp import __version__
from zork_mcp.domain.servers.server_places import SERVER_DIR
from zork_mcp.servers.episode_memory import TOOLS, Served
from zork_mcp.servers.transport import serve, transport_parser

PROGRAM = "python -m zork_mcp.servers.memory"


def build_server(journal: Path | None = None, folder: Path | None = None) -> MCPServer[Served]:
    """A server of the episode whose journal this is, its notes kept in `folder`."""

    @asynccontextmanager
    async def run(_: MCPServer[Served]) -> AsyncIterator[Served]:
        yield Served(journal, folder)

    return MCPServer("zork-mcp-memory", version=__version__, tools=list(TOOLS), lifespan=run)


def _parser():  # built once, at import: a forked server finds it made
    parser = transport_parser(PROGRAM)
    parser.add_argument("--journal", type=Path, help="the episode's journal.jsonl (read only)")
    parser.add_argument(
        "--folder", type=Path, help=f"where to keep the notes (default: ${SERVER_DIR})"
    )
    return parser


_PARSER = _parser()


def main(argv: Sequence[str] | None = None) -> None:
    options = _PARSER.parse_args(argv)
    folder = options.folder or (Path(os.environ[SERVER_DIR]) if SERVER_DIR in os.environ else None)
    serve(build_server(options.journal, folder), options)


if __name__ == "__main__":
    main()
