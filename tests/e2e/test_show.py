"""`zork-mcp show` and episode.log: a real episode's logs (real app and game, raw MCP server,
scripted LLM over HTTP) tell each turn's command, the game's answer, a death and the state
after it, in that order."""

from __future__ import annotations

import re

import pytest

from tests.support.llm_peers import peer_for
from tests.support.projects import write_project
from tests.support.sweeps import peer, project
from tests.support.walkthrough import TO_THE_GRUE
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.adapters.llm.prices import NO_PRICE_LIST
from zork_mcp.app.cli import main

pytestmark = pytest.mark.slow
DEATH = "    |     ****  You have died  ****"


def test_show_prints_each_turn_with_tool_calls_command_answer_and_score_changes(
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
    assert lines[:2] == ["Episode shown (MCP on, 5 turns max)", "Turn 1"]
    assert "    tool raw.pid {}" in lines and "    > N" in lines and "    > Get egg" in lines
    assert any(line.startswith("      -> ok (") and " chars): " in line for line in lines)
    north = lines.index("    > N")
    assert lines[north + 1] == "    | North of House"
    # the peer reports each call's cost, as OpenRouter does: the turn's is on its state line
    state = re.compile(r"    score 0, moves 1, now in North of House, <?\$0\.\d{4}")
    assert state.fullmatch(lines[lines.index("Turn 2") - 1])
    egg = lines.index("    > Get egg")
    assert lines[egg + 1] == "    | Taken."
    egg_state = r"    score 5 \(\+5\), moves 4, now in Up a Tree, <?\$0\.\d{4}"
    assert re.fullmatch(egg_state, lines[egg + 2])
    assert lines[-2].startswith("Ended (turn_limit): score 5 in ")
    assert re.fullmatch(r"    cost \$0\.\d{4} \(as the provider reported it\)", lines[-1])


def test_show_and_the_episode_log_hold_each_answer_and_the_death(tmp_path, zork_game, capsys):
    llm = peer_for("openai", [action_reply(command) for command in TO_THE_GRUE], [], api_key=None)
    # (this peer reports no cost: the local server's model is unpriced, and says why)
    with llm.serve() as url:
        code = main(
            ["--provider", "local", "--base-url", f"{url}/v1", "--model", "m",
             "--game", str(zork_game), "--max-turns", str(len(TO_THE_GRUE)), "--plain",
             "--config", str(write_project(tmp_path, enabled=False)),
             "--log-dir", str(tmp_path), "--episode-id", "e"]
        )  # fmt: skip
    capsys.readouterr()
    assert code == 0 and main(["show", str(tmp_path / "e")]) == 0
    shown = capsys.readouterr().out.splitlines()
    logged = (tmp_path / "e" / "episode.log").read_text(encoding="utf-8").splitlines()
    last = len(TO_THE_GRUE)
    for lines, header in (
        (shown, f"Turn {last}"),
        (logged, f"[INFO] Turn {last}: Agent action: n"),
    ):
        death = lines[lines.index(header) :]
        assert DEATH in death and "    ** died **" in death
        state = death[death.index("    ** died **") + 1]
        assert state.startswith("    score 30 (-10), moves ") and state.endswith("now in Forest")
        assert lines[-1] == f"    cost: unpriced ({NO_PRICE_LIST})"
    answers = [line for line in logged if line.startswith("    | ")]
    assert answers[:2] == [
        "    | North of House",
        "    | You are facing the north side of a white house. "
        "There is no door here, and all the windows are boarded up. To the north a "
        "narrow path winds through the trees.",
    ]
    assert len([line for line in shown if line.startswith("    score ")]) == last
