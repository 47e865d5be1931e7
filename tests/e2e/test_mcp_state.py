"""MCP is never off in silence (issue 55): the start of every run says on screen and first in
episode.log whether MCP is on, with which servers (from which config), or off and why, each
with the option that changes it. The real CLI, run from a folder, against a scripted model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.llm_peers import peer_for
from tests.support.paths import ROOT
from tests.support.projects import write_project
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.cli import main

pytestmark = pytest.mark.slow
TURN_ON = (
    "--mcp, or --config naming a pyproject with [tool.zorkgpt.mcp] enabled = true, turns it on"
)
ESCAPE_SERVER = ROOT / "tests" / "support" / "escape_server.py"


def first_log_line(game: Path, episode: str, *options: str) -> str:
    """One turn played from the working folder; the first line of its episode.log."""
    peer = peer_for("openai", [action_reply("north")], ["esc.banner", "esc.broken"], api_key=None)
    with peer.serve() as url:
        code = main(
            ["--provider", "local", "--base-url", f"{url}/v1", "--model", "m", "--plain",
             "--max-turns", "1", "--game", str(game), "--episode-id", episode, *options]
        )  # fmt: skip
    assert code == 0
    return (Path("logs") / episode / "episode.log").read_text().splitlines()[0]


def test_where_no_pyproject_turns_mcp_on_the_run_says_it_is_off_and_how_to_turn_it_on(
    tmp_path, zork_game, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    first = first_log_line(zork_game, "e")
    said = f"MCP off: no pyproject.toml here; {TURN_ON}"
    assert said in capsys.readouterr().out.splitlines()  # on screen as in the log
    assert first.endswith(said)
    write_project(tmp_path, None)  # a pyproject that leaves MCP off
    assert first_log_line(zork_game, "f").endswith(
        f"MCP off: pyproject.toml does not set [tool.zorkgpt.mcp] enabled = true; {TURN_ON}"
    )


def test_with_mcp_on_the_run_names_its_servers_and_says_how_to_play_without_them(
    tmp_path, zork_game, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    escape = {"command": "python", "args": [str(ESCAPE_SERVER)]}
    write_project(tmp_path, {"esc": escape}, enabled=True, background_spare=False)
    first = first_log_line(zork_game, "e")
    screen = capsys.readouterr().out.splitlines()
    assert "MCP on: server esc; --no-mcp to play without them" in screen
    assert first.endswith(
        "MCP on: every server from mcp_config.json; --no-mcp to play without them"
    )
    chosen = first_log_line(zork_game, "f", "--mcp-servers", "esc")
    assert chosen.endswith("MCP on: server esc from mcp_config.json; --no-mcp to play without them")
    assert first_log_line(zork_game, "g", "--no-mcp").endswith(f"MCP off: --no-mcp; {TURN_ON}")
    assert f"MCP off: --no-mcp; {TURN_ON}" in capsys.readouterr().out.splitlines()
