"""An estimate first (issue 53): `--dry-run` prints what a run will take and sends no request;
its tokens for the walkthrough are within 10% of what a scripted run of it then sends, as
`benchmarks/prompt_size.py` measures prompts (every request's tools and messages, as the
provider gets them, at 4 characters a token)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.full_game import WALKTHROUGH
from benchmarks.prompt_size import prompt_text
from tests.support.llm_peers import OpenAIPeer
from tests.support.projects import measured_project
from tests.support.walkthrough import walkthrough
from zork_mcp.adapters.llm.fake import action_reply
from zork_mcp.app.cli import main, options_from, parser
from zork_mcp.app.estimate import estimate_run
from zork_mcp.builders.settings import project_settings

pytestmark = pytest.mark.slow
TURNS = 60


def run_args(url: str, tmp_path: Path, game: Path | str, *extra: str) -> list[str]:
    return [
        "--provider", "openrouter", "--base-url", f"{url}/v1", "--model", "openai/gpt-4.1-mini",
        "--game", str(game), "--max-turns", str(TURNS), "--plain",
        "--config", str(measured_project(tmp_path)),
        "--log-dir", str(tmp_path / "logs"), "--episode-id", "e", *extra,
    ]  # fmt: skip


def test_a_dry_run_prints_the_estimate_and_sends_no_request(tmp_path, zork_game, capsys):
    peer = OpenAIPeer([action_reply(c) for c in WALKTHROUGH[:TURNS]], api_key=None)
    with peer.serve() as url:
        code = main(run_args(url, tmp_path, zork_game, "--dry-run"))
    out = " ".join(capsys.readouterr().out.split())  # as read, whatever the width wrapped
    assert code == 0 and peer.requests == []
    assert "before any LLM call" in out and "$ cached" in out
    assert "openrouter:openai/gpt-4.1-mini" in out and f" {TURNS} " in out
    assert not (tmp_path / "logs").exists()  # nothing of an episode was written


@pytest.mark.parametrize(
    ("game", "history"), [("zork1", "window"), ("zork1", "state"), ("zork3", "window")]
)
def test_the_estimate_is_within_10_percent_of_what_the_walkthrough_sends(
    tmp_path, game, history, monkeypatch
):
    """Each game's answers weigh what its profile says (Zork III's run longer than Zork I's)."""
    monkeypatch.setenv("OPENROUTER_API_KEY", "unused-by-the-peer")
    peer = OpenAIPeer([action_reply(c) for c in walkthrough(game)[:TURNS]], api_key=None)
    with peer.serve() as url:
        args = run_args(url, tmp_path, game, "--history", history)
        options = options_from(parser().parse_args(args))
        estimate = estimate_run(options, project_settings(options.config))
        assert main(args) == 0
    assert len(peer.requests) == TURNS and not peer.rejections
    sent = sum(-(-len(prompt_text(body)) // 4) for body in peer.requests)
    assert estimate.episode.input_tokens == pytest.approx(sent, rel=0.10)
