"""`--resume`: an episode that stopped on a provider error continues from its last checkpoint
(real app, real Jericho, the OpenAI-compatible adapter against a local peer) and ends where
an uninterrupted episode ends."""

from __future__ import annotations

import json
from pathlib import Path

from jericho.game_info import zork1

from tests.support.llm_peers import HttpFault, peer_for
from tests.support.projects import write_project
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.cli import main

WALKTHROUGH = zork1["walkthrough"].split("/")


def play(replies: list, tmp_path: Path, zork_game: Path, episode: str, *extra: str) -> int:
    """`extra` after the run's options (a second --max-turns wins over the first)."""
    peer = peer_for("openai", replies, api_key=None)
    pyproject = write_project(tmp_path, enabled=False)
    with peer.serve() as url:
        return main(
            ["--provider", "local", "--base-url", f"{url}/v1", "--model", "walkthrough",
             "--game", str(zork_game), "--plain", "--no-mcp",
             "--config", str(pyproject), "--log-dir", str(tmp_path),
             "--episode-id", episode, "--max-turns", "12", *extra]
        )  # fmt: skip


def events(tmp_path: Path, episode: str) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / episode / "events.jsonl").open()]


def test_an_episode_stopped_by_an_error_resumes_to_the_end_of_an_uninterrupted_one(
    tmp_path, zork_game
):
    moves = [action_reply(c, new_objective=f"step {i}") for i, c in enumerate(WALKTHROUGH[:12])]
    assert play(list(moves), tmp_path, zork_game, "straight") == 0
    assert play([*moves[:7], HttpFault(400, "bad")], tmp_path, zork_game, "broken") == 2
    assert play(moves[7:], tmp_path, zork_game, "broken", "--resume") == 0
    [straight] = [e for e in events(tmp_path, "straight") if e["event_type"] == "episode_end"]
    broken = events(tmp_path, "broken")
    ends = [e for e in broken if e["event_type"] == "episode_end"]
    assert [e["turns"] for e in ends] == [7, 12]
    keys = ("turns", "score", "moves", "room", "end_reason", "prompt_tokens")
    assert {k: ends[-1][k] for k in keys} == {k: straight[k] for k in keys}
    turns = [e["action"] for e in broken if e["event_type"] == "turn_complete"]
    assert turns == WALKTHROUGH[:12]
    [resumed] = [e for e in broken if e["event_type"] == "episode_resumed"]
    assert resumed["turn"] == 7


def test_resume_without_a_checkpoint_or_an_episode_id_says_what_to_pass(
    tmp_path, zork_game, capsys
):
    assert play([], tmp_path, zork_game, "never-played", "--resume") == 2
    assert "Nothing to resume" in capsys.readouterr().err
    try:
        main(["--resume"])
    except SystemExit as exit:
        assert exit.code == 2
    assert "--resume continues an earlier episode" in capsys.readouterr().err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_resuming_a_finished_episode_says_so_and_writes_nothing(tmp_path, zork_game, capsys):
    moves = [action_reply(c) for c in WALKTHROUGH[:12]]
    assert play(moves, tmp_path, zork_game, "done") == 0
    before = snapshot(tmp_path / "done")
    assert play([], tmp_path, zork_game, "done", "--resume") == 0
    err = capsys.readouterr().err
    assert "Episode done is finished, so --resume plays nothing" in err
    assert "raise --max-turns to play on" in err
    assert snapshot(tmp_path / "done") == before  # no second "resumed" nor "Ended"
    assert play([action_reply("north")], tmp_path, zork_game, "done", "--resume",
                "--max-turns", "13") == 0  # a higher limit plays on  # fmt: skip
    assert [e["turns"] for e in events(tmp_path, "done") if e["event_type"] == "episode_end"] == [
        12, 13]  # fmt: skip
