"""What the app prints fits where it goes (issue 67): a terminal at its width; a pipe, a file
or `--plain` at 80 columns, or at `$COLUMNS`; and no table cuts a model's name."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from zork_mcp.app.estimate import RunEstimate, print_estimates
from zork_mcp.app.screen import screen
from zork_mcp.domain.episode.estimate import EpisodeEstimate, TurnPrompt
from zork_mcp.domain.episode.estimate_cost import EstimatedCost

EPISODE = EpisodeEstimate(tuple(TurnPrompt(18_000, 0) for _ in range(100)))
LOCAL = "a local or self-hosted server: no price list knows what its model costs"
RUNS = [
    RunEstimate("openai:gpt-4.1-mini mcp=on", 10, EPISODE, EstimatedCost(1.07, 0.6299)),
    RunEstimate("openai:gpt-4.1-mini mcp=off", 10, EPISODE, EstimatedCost(1.04, 0.6202)),
    RunEstimate(
        "openrouter:anthropic/claude-haiku-5.5 mcp=on", 10, EPISODE, EstimatedCost(21.3, 4.1)
    ),
    RunEstimate("local:qwen mcp=on", 10, EPISODE, None, LOCAL),
]


@pytest.mark.parametrize("width", [80, 120])
def test_the_dry_run_fits_its_width_and_cuts_no_models_name(width):
    """At 80 columns the dry run showed `openai:gpt-4.1-m` over `ini mcp=on`."""
    out = io.StringIO()
    print_estimates(Console(file=out, width=width), RUNS)
    lines = out.getvalue().splitlines()
    assert max(map(len, lines)) <= width
    words = {word for line in lines for word in line.replace("│", " ").split()}
    names = {"openai:gpt-4.1-mini", "openrouter:anthropic/claude-haiku-5.5", "local:qwen"}
    assert names <= words, names - words
    assert {"$10.7000", "$6.2990", "$213.0000", "unpriced", "total", "$234.1000+"} <= words


def test_off_a_terminal_the_screen_is_80_columns_or_columns_and_plain_is_too(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert (screen().width, screen(stderr=True).width) == (80, 80)  # pytest captures both
    monkeypatch.setenv("COLUMNS", "132")
    assert screen().width == 132 and not screen().is_terminal
    monkeypatch.setenv("COLUMNS", "wide")
    assert screen().width == 80
    forced = property(lambda console: console._force_terminal is not False)  # a terminal
    monkeypatch.setattr(Console, "is_terminal", forced)
    assert screen(plain=True).width == 80 and not screen(plain=True).is_terminal
