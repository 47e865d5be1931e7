"""`zork-mcp show`: a real episode's logs (real app, raw MCP server, scripted LLM over HTTP)."""

from __future__ import annotations

import pytest

from tests.support.sweeps import peer, project
from zork_mcp.app.cli import main

pytestmark = pytest.mark.slow


def test_show_prints_each_turn_with_tool_calls_actions_and_score_changes(
    tmp_path, zork_game, capsys
):
    with peer().serve() as url:
        code = main(
            ["--provider", "local", "--base-url", f"{url}/v1", "--model", "p1-q1",
             "--game", str(zork_game), "--max-turns", "5", "--plain",
             "--config", str(project(tmp_path)), "--log-dir", str(tmp_path),
             "--episode-id", "shown"]
        )  # fmt: skip
    capsys.readouterr()
    assert code == 0 and main(["show", str(tmp_path / "shown")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Episode shown (MCP on, 5 turns max)"
    assert lines[1].startswith("Turn 1: score 0 | moves 1 | ")
    assert "    tool raw.pid {}" in lines and "    > N" in lines and "    > Get egg" in lines
    assert any(line.startswith("      -> ok: str of ") for line in lines)
    assert any(line.startswith("Turn 4: score 5 (+5)") for line in lines)
    assert lines[-1].startswith("Ended (turn_limit): score 5 in ")


def test_show_says_what_to_pass_when_the_folder_has_no_events(tmp_path, capsys):
    assert main(["show", str(tmp_path)]) == 2
    assert "pass an episode's log folder" in capsys.readouterr().err
