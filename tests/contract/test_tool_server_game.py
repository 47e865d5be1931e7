"""Our text-adventure server on zork1.z3, and on Zork II and III by name, through the real
stdio adapter."""

from __future__ import annotations

import pytest
from jericho.game_info import zork1

from tests.contract.tool_server_contract import ToolServerContract, ToolServerSubject
from tests.support.probes import look_probe
from tests.support.processes import assert_no_processes_left
from tests.support.walkthrough import walkthrough
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.domain.game.trilogy import KNOWN_GAMES
from zork_mcp.domain.servers.server_config import MCPServerConfig

pytestmark = pytest.mark.slow


def game_server(zork_game, tmp_path) -> McpStdioToolServer:
    config = MCPServerConfig(
        command="python",
        args=("-m", "zork_mcp.servers.text_adventure"),
        env={"GAME": str(zork_game)},
    )
    return stdio_tool_server(
        {"game": config}, stderr_path=tmp_path / "stderr.log", shared_fork_server=True
    )


class TestGameServer(ToolServerContract):
    @pytest.fixture
    def subject(self, zork_game, tmp_path):
        server = game_server(zork_game, tmp_path)
        yield ToolServerSubject(server, "game", look_probe, failing_tool="game.play_action")
        assert_no_processes_left(server)


async def test_the_walkthrough_through_mcp_wins_the_game(zork_game, tmp_path):
    server = game_server(zork_game, tmp_path)
    async with server.open_session() as session:
        assert {spec.name for spec in session.tools} == {
            "play_action",
            "memory",
            "get_map",
            "inventory",
        }
        empty = await session.call_tool("game.play_action", {"action": "  "}, 10)
        reports = [
            (await session.call_tool("game.play_action", {"action": command}, 10)).content
            for command in zork1["walkthrough"].split("/")
        ]
        memory = (await session.call_tool("game.memory", {}, 10)).content
        game_map = (await session.call_tool("game.get_map", {}, 10)).content
        after = await session.call_tool("game.play_action", {"action": "look"}, 10)
    assert_no_processes_left(server)
    assert "[Score: 350 | Moves: 394]" in reports[-1] and reports[-1].endswith("GAME OVER")
    assert any("+5 points! (Total: 5)" in report for report in reports)
    assert "Score:" not in reports[0].split("\n\n")[0], "the status line stays out of the text"
    assert "- Score: 350 points" in memory and "* West of House" in game_map
    assert empty.is_error and "game command" in empty.error_message
    assert after.is_error and "GAME OVER" in after.error_message  # the game won is over
    assert "restart the server" in after.error_message


@pytest.mark.parametrize(
    ("key", "ending"), [("zork2", "400 | Moves: 301"), ("zork3", "7 | Moves: 773")]
)
async def test_each_later_zork_is_won_through_the_server_by_name(key, ending, tmp_path):
    server = game_server(key, tmp_path)
    async with server.open_session() as session:
        reports = [
            (await session.call_tool("game.play_action", {"action": command}, 10)).content
            for command in walkthrough(key)
        ]
        memory = (await session.call_tool("game.memory", {}, 10)).content
    assert_no_processes_left(server)
    assert f"[Score: {ending}]" in reports[-1] and reports[-1].endswith("GAME OVER")
    assert f"- Game: {KNOWN_GAMES[key].name}" in memory
