"""The text-adventure server (spec 003) as a subprocess over MCP: GAME, inventory, memory."""

from __future__ import annotations

import pytest

from tests.support.processes import assert_no_processes_left
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.domain.servers.server_config import MCPServerConfig

pytestmark = pytest.mark.slow


async def test_the_game_named_by_GAME_is_played_and_inventory_works_over_mcp(zork_game, tmp_path):
    """GAME points at a path the fallback would never find, under a name of its own."""
    renamed = tmp_path / "elsewhere" / "great_underground_empire.z3"
    renamed.parent.mkdir()
    renamed.symlink_to(zork_game)
    config = MCPServerConfig(
        command="python",
        args=("-m", "zork_mcp.servers.text_adventure"),
        env={"GAME": str(renamed), "ZORK_MCP_GAME": ""},
    )
    server = stdio_tool_server(
        {"game": config}, stderr_path=tmp_path / "stderr.log", shared_fork_server=True
    )
    async with server.open_session() as session:

        async def call(tool: str, **arguments: str) -> str:
            result = await session.call_tool(f"game.{tool}", arguments, 10)
            assert not result.is_error, result.error_message
            return result.content

        empty = await call("inventory")
        await call("play_action", action="open mailbox")
        await call("play_action", action="take leaflet")
        looked = await call("play_action", action="look")
        carrying = await call("inventory")
        memory = await call("memory")
    assert_no_processes_left(server)
    assert empty == "Inventory: You are empty-handed."
    assert carrying.startswith("Inventory: ") and "leaflet" in carrying
    assert "- Game: Zork I" in memory.splitlines()  # known by its hash, whatever its name
    moves = looked.rsplit("Moves: ", 1)[1].rstrip("]")
    assert f"- Moves: {moves}" in memory.splitlines(), "inventory spent no move"
    look = next(line for line in memory.splitlines() if line.startswith("  > look -> "))
    assert look == "  > look -> " + " ".join(looked.split("[Score:")[0].split())[:60]
