"""A model whose replies the agent cannot read (issue 67), end to end: the app's CLI, real
Jericho and a local peer of the OpenAI protocol. A one-line reply is the command it says; a
reply that is neither JSON nor one line is said on the terminal as it happens, played as
`look`, counted in the turn's and the episode's record, and a streak of them ends the
episode with its own end reason."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.llm_peers import OpenAIPeer
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.bootstrap import episode_events
from zork_mcp.app.cli import main
from zork_mcp.domain.facts.episode_facts import EpisodeEnded, TurnCompleted

pytestmark = pytest.mark.slow
PROSE = "Hmm, a white house.\nI think I should look around before I decide what to do."


def play(tmp_path: Path, game: Path, answers: list[str], limit: int | None) -> tuple[int, Path]:
    """Exit code and the episode's folder, the peer answering `answers` in turn."""
    setting = f"max_unreadable_replies = {limit}\n" if limit is not None else ""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f"[tool.zorkgpt]\n{setting}[tool.zorkgpt.mcp]\nenabled = false\n")
    replies = [replace(action_reply("look"), content=text) for text in answers]
    peer = OpenAIPeer(replies, api_key=None)  # type: ignore[arg-type]
    with peer.serve() as url:
        code = main([
            "--provider", "local", "--base-url", f"{url}/v1", "--model", "small",
            "--game", str(game), "--max-turns", str(len(answers)), "--plain",
            "--config", str(pyproject), "--log-dir", str(tmp_path / "logs"),
            "--episode-id", "e",
        ])  # fmt: skip
    assert not peer.rejections
    return code, tmp_path / "logs" / "e"


def turns_and_end(folder: Path) -> tuple[list[TurnCompleted], EpisodeEnded]:
    payloads = [event.payload for event in episode_events(folder)]
    turns = [p for p in payloads if isinstance(p, TurnCompleted)]
    (end,) = [p for p in payloads if isinstance(p, EpisodeEnded)]
    return turns, end


def test_one_line_replies_are_played_as_the_model_said_them(tmp_path, zork_game, capsys):
    code, folder = play(tmp_path, zork_game, ["open mailbox", "> read leaflet"], None)
    turns, end = turns_and_end(folder)
    assert code == 0 and [turn.action for turn in turns] == ["open mailbox", "read leaflet"]
    assert not any(turn.facts.unreadable for turn in turns) and end.end_reason == "turn_limit"
    assert "could not be read" not in capsys.readouterr().out


def test_a_streak_of_unreadable_replies_is_said_counted_and_ends_the_episode(
    tmp_path, zork_game, capsys
):
    answers = ["open mailbox", PROSE, "read leaflet", PROSE, PROSE, PROSE, "north", "north"]
    code, folder = play(tmp_path, zork_game, answers, 3)
    out = capsys.readouterr().out
    turns, end = turns_and_end(folder)
    assert [turn.action for turn in turns] == [
        "open mailbox", "look", "read leaflet", "look", "look", "look",
    ]  # fmt: skip
    assert [turn.facts.unreadable for turn in turns] == [False, True, False, True, True, True]
    assert end.end_reason == "unreadable_replies" and end.turns == 6 and code == 1
    assert out.count("the model's reply could not be read") == 4  # each as it happens
    assert "last 3 replies could not be read" in out and "max_unreadable_replies" in out
    assert "unreadable replies" in out and "4 (each played as 'look')" in out  # end table
