"""`--resume`: an episode that stopped on a provider error continues from its last checkpoint
(real app, real Jericho, the OpenAI-compatible adapter against a local peer) and ends where
an uninterrupted episode ends."""

from __future__ import annotations

import json
import shlex
from contextlib import asynccontextmanager
from pathlib import Path

from dependency_injector import providers
from jericho.game_info import zork1

from tests.support.llm_peers import HttpFault, peer_for
from tests.support.projects import write_project
from zork_mcp.adapters.llm.fake import FunctionLLM, action_reply
from zork_mcp.app.cli import main
from zork_mcp.app.container import Container

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


def interrupting_session(answers: list[str]):
    """An LLM that answers `answers`, one a turn, then is stopped as by Ctrl-C."""

    def respond(request):
        if not answers:
            raise KeyboardInterrupt
        return action_reply(answers.pop(0))

    @asynccontextmanager
    async def session():
        yield FunctionLLM(respond)

    return session


def interrupted(tmp_path: Path, zork_game: Path, url: str, answers: list[str]) -> int:
    """Episode `e`, 4 turns at most, Ctrl-C after `answers`; its exit code."""
    container = Container()
    container.llm_session.override(providers.Object(interrupting_session(answers)))
    pyproject = write_project(tmp_path, enabled=False)
    return main(
        ["--provider", "local", "--base-url", f"{url}/v1", "--model", "m",
         "--game", str(zork_game), "--plain", "--config", str(pyproject),
         "--log-dir", str(tmp_path / "logs"), "--max-turns", "4", "--episode-id", "e"],
        container,
    )  # fmt: skip


def test_ctrl_c_says_the_command_that_plays_on_and_it_does(tmp_path, zork_game, capsys):
    peer = peer_for("openai", [action_reply("east"), action_reply("open window")], api_key=None)
    with peer.serve() as url:
        assert interrupted(tmp_path, zork_game, url, ["north", "east"]) == 130
        out = capsys.readouterr().out
        [hint] = [line for line in out.splitlines() if line.startswith("Interrupted")]
        command = hint.split("To play on from there: ", 1)[1]
        assert hint.startswith("Interrupted after turn 2. To play on from there: zork-mcp ")
        words = shlex.split(command)
        assert words[0] == "zork-mcp" and words[-3:] == ["--resume", "--episode-id", "e"]
        assert words[words.index("--max-turns") :][:2] == ["--max-turns", "4"]
        assert main(words[1:]) == 0
    turns = [e for e in events(tmp_path / "logs", "e") if e["event_type"] == "turn_complete"]
    assert [e["action"] for e in turns] == ["north", "east", "east", "open window"]


def test_ctrl_c_before_a_turn_ended_says_there_is_nothing_to_resume(tmp_path, zork_game, capsys):
    assert interrupted(tmp_path, zork_game, "http://127.0.0.1:9", []) == 130
    out = " ".join(capsys.readouterr().out.split())
    assert "Interrupted before its first turn ended: there is nothing to resume." in out
    assert "--resume" not in out
