"""A budget stops one episode cleanly and resumably (issue 53), end to end: the app's CLI,
real Jericho, the reasoning and memory servers, and a provider peer that bills each request
by its size. Stopped at a turn boundary, then resumed with a higher budget, the episode ends
as an unbudgeted one does, having spent what it spends."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.full_game import WALKTHROUGH
from tests.support.llm_peers import OpenAIPeer
from tests.support.projects import measured_project
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.bootstrap import episode_events
from zork_mcp.app.cli import main
from zork_mcp.app.show import episode_lines
from zork_mcp.domain.facts.episode_facts import BudgetReached, EpisodeEnded
from zork_mcp.domain.facts.events import LoggedEvent

pytestmark = pytest.mark.slow
TURNS = 24


def play(tmp_path: Path, game: Path, episode: str, first: int, *extra: str) -> tuple[int, int]:
    """Exit code and requests of a run whose peer answers the walkthrough from `first`."""
    replies = [replace(action_reply(c), usage=None) for c in WALKTHROUGH[first:TURNS]]
    peer = OpenAIPeer(replies, api_key=None, count_tokens=True)  # type: ignore[arg-type]
    with peer.serve() as url:
        code = main([
            "--provider", "openrouter", "--base-url", f"{url}/v1", "--model",
            "openai/gpt-4.1-mini", "--game", str(game), "--max-turns", str(TURNS), "--plain",
            "--config", str(measured_project(tmp_path)), "--log-dir", str(tmp_path / "logs"),
            "--episode-id", episode, *extra,
        ])  # fmt: skip
    assert not peer.rejections
    return code, len(peer.requests)


def events(tmp_path: Path, episode: str) -> list[LoggedEvent]:
    return list(episode_events(tmp_path / "logs" / episode))


def ends(tmp_path: Path, episode: str) -> list[EpisodeEnded]:
    return [e.payload for e in events(tmp_path, episode) if isinstance(e.payload, EpisodeEnded)]


def test_an_episode_stopped_by_its_budget_resumes_to_the_unbudgeted_end(
    tmp_path, zork_game, capsys, monkeypatch
):
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-v1-peer0123456789abcdef")
    assert play(tmp_path, zork_game, "clean", 0) == (0, TURNS)
    (clean,) = ends(tmp_path, "clean")
    whole = clean.prompt_tokens + clean.completion_tokens

    budget = whole * 40 // 100
    code, sent = play(tmp_path, zork_game, "cut", 0, "--budget-tokens", str(budget))
    out = capsys.readouterr().out
    (cut,) = ends(tmp_path, "cut")
    assert code == 0 and cut.end_reason == "budget" and 0 < cut.turns == sent < TURNS
    assert cut.prompt_tokens + cut.completion_tokens <= budget  # no estimate fell short
    (reached,) = [e.payload for e in events(tmp_path, "cut")
                  if isinstance(e.payload, BudgetReached)]  # fmt: skip
    assert reached.turn == cut.turns and reached.budget_tokens == budget
    assert reached.spent_tokens + reached.next_call_tokens > budget
    assert "Stopped by the budget" in out and "--resume --episode-id cut" in out
    shown = list(episode_lines(events(tmp_path, "cut")))  # `zork-mcp show`
    used = cut.prompt_tokens + cut.completion_tokens
    assert shown[-2].startswith(f"    stopped by the budget: {used:,} of {budget:,} tokens spent")
    checkpoint = json.loads((tmp_path / "logs" / "cut" / "checkpoint.json").read_text())
    assert len(checkpoint["turns"]) == cut.turns

    code, sent = play(tmp_path, zork_game, "cut", cut.turns, "--resume",
                      "--budget-tokens", str(whole * 2))  # fmt: skip
    resumed = ends(tmp_path, "cut")[-1]
    assert code == 0 and sent == TURNS - cut.turns
    same = ("score", "moves", "turns", "room", "end_reason", "prompt_tokens", "completion_tokens")
    assert [getattr(resumed, f) for f in same] == [getattr(clean, f) for f in same]


def test_the_stop_says_its_figures_and_the_flag_that_fits_the_model(tmp_path, zork_game, capsys):
    """Issue 67: the terminal said `Stopped by the budget after turn 5` without the figures
    episode.log held, and offered --budget-usd to a local model, which a dollar budget
    refuses; an episode stopped before its first call said its cost was `unpriced`."""
    peer = OpenAIPeer([replace(action_reply(c), usage=None) for c in WALKTHROUGH[:TURNS]],
                      api_key=None, count_tokens=True)  # type: ignore[arg-type]  # fmt: skip
    for episode, budget in (("some", "1500"), ("none", "300")):
        with peer.serve() as url:
            code = main([
                "--provider", "local", "--base-url", f"{url}/v1", "--model", "m", "--no-mcp",
                "--game", str(zork_game), "--max-turns", str(TURNS), "--plain",
                "--log-dir", str(tmp_path / "logs"), "--episode-id", episode,
                "--budget-tokens", budget,
            ])  # fmt: skip
        out = " ".join(capsys.readouterr().out.split())  # as read, however it was wrapped
        (reached,) = [e.payload for e in events(tmp_path, episode)
                      if isinstance(e.payload, BudgetReached)]  # fmt: skip
        when = f"after turn {reached.turn}" if reached.turn else "before its first turn"
        said = (
            f"Stopped by the budget {when}: {reached.spent_tokens:,} of {int(budget):,} tokens "
            f"spent, and the next LLM call would have taken about "
            f"{reached.next_call_tokens:,} tokens."
        )
        assert code == 0 and said in out, out
        assert (
            f"--resume --episode-id {episode} --log-dir {tmp_path / 'logs'} --budget-tokens N"
            in out
        )
        assert "--budget-usd" not in out, "a dollar budget refuses a local model"
    assert "│ cost │ $0.0000 (no tokens used) │" in out  # stopped before any call
