"""An episode plays on while the game does (issue 36): Zork I reincarnates the player after
a death, so Jericho's `done` there does not end the episode; the game's own end does (its
RESTART/RESTORE/QUIT prompt, as after the walkthrough's victory). `end_at_first_death` keeps
Jericho's rule. Against the real game: through the game port, the agent and `play_action`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.llm_peers import peer_for
from tests.support.processes import assert_no_processes_left
from tests.support.projects import write_project
from tests.support.walkthrough import TO_THE_GRUE
from zork_mcp.adapters.game.jericho import JerichoGameEnv
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer, stdio_tool_server
from zork_mcp.app.cli import main
from zork_mcp.domain.servers.server_config import MCPServerConfig

pytestmark = pytest.mark.slow
DEATH = "****  You have died  ****"
AFTER = ["n", "look"]  # reincarnated in the Forest: north is the Clearing


@pytest.mark.parametrize("first_death", [False, True])
def test_the_game_port_plays_on_after_a_death_unless_told_to_end_there(zork_game, first_death):
    env = JerichoGameEnv(zork_game, seed=12, end_at_first_death=first_death)
    try:
        env.reset()
        for command in TO_THE_GRUE:
            observation = env.step(command)
        assert DEATH in observation.text and "Forest" in observation.text
        assert observation.game_over is first_death
        after = env.step("n")
        assert (after.room, after.score, after.game_over) == ("Clearing", 30, False)
    finally:
        env.close()


def play(tmp_path: Path, zork_game: Path, commands: list[str], *extra: str) -> list[dict]:
    pyproject = write_project(tmp_path, enabled=False)
    peer = peer_for("openai", [action_reply(c) for c in commands], [], api_key=None)
    with peer.serve() as url:
        code = main(
            ["--provider", "local", "--base-url", f"{url}/v1", "--model", "m",
             "--game", str(zork_game), "--max-turns", "40", "--plain",
             "--config", str(pyproject), "--log-dir", str(tmp_path), "--episode-id", "e", *extra]
        )  # fmt: skip
    assert code == 0 and peer.rejections == []
    return [json.loads(line) for line in (tmp_path / "e" / "events.jsonl").open()]


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [event for event in events if event["event_type"] == kind]


def test_the_agent_plays_on_after_a_death_to_the_turn_limit(tmp_path, zork_game):
    commands = TO_THE_GRUE + AFTER
    events = play(tmp_path, zork_game, commands, "--max-turns", str(len(commands)))
    turns, [end] = of_type(events, "turn_complete"), of_type(events, "episode_end")
    assert [turn["action"] for turn in turns] == commands
    assert (end["end_reason"], end["score"], end["turns"]) == ("turn_limit", 30, len(commands))


def test_the_first_death_ends_the_episode_with_end_at_first_death(tmp_path, zork_game):
    commands = TO_THE_GRUE + AFTER
    events = play(tmp_path, zork_game, commands, "--end-at-first-death")
    turns, [end] = of_type(events, "turn_complete"), of_type(events, "episode_end")
    assert [turn["action"] for turn in turns] == TO_THE_GRUE
    assert (end["end_reason"], end["turns"]) == ("game_over", len(TO_THE_GRUE))


def game_server(zork_game: Path, tmp_path: Path, **env: str) -> McpStdioToolServer:
    config = MCPServerConfig(
        command="python",
        args=("-m", "zork_mcp.servers.text_adventure"),
        env={"GAME": str(zork_game), **env},
    )
    return stdio_tool_server(
        {"game": config}, stderr_path=tmp_path / "stderr.log", shared_fork_server=True
    )


@pytest.mark.parametrize("first_death", [False, True])
async def test_play_action_plays_on_after_a_death_unless_told_to_end_there_and_refuses_then(
    zork_game, tmp_path, first_death
):
    env = {"GAME_END_AT_FIRST_DEATH": "1"} if first_death else {}
    server = game_server(zork_game, tmp_path, **env)
    async with server.open_session() as session:
        results = [
            await session.call_tool("game.play_action", {"action": command}, 10)
            for command in [*TO_THE_GRUE, "n"]
        ]
        memory = (await session.call_tool("game.memory", {}, 10)).content
    assert_no_processes_left(server)
    death, after = results[-2], results[-1]
    assert DEATH in death.content and death.content.endswith("GAME OVER") is first_death
    assert "-10 points! (Total: 30)" in death.content and "- Score: 30" in memory
    if first_death:  # the game is over: the next command is refused, not played
        assert after.is_error and "restart the server" in (after.error_message or "")
        assert "Current Observation:\n" in memory and DEATH in memory
    else:
        assert after.content.startswith("Clearing") and not after.content.endswith("GAME OVER")
