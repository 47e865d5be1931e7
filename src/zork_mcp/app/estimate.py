"""An estimate first (`--dry-run`): what a run's LLM calls will take, in tokens and dollars
with and without the provider's prompt caching, before any call is made.

The tools it offers are listed by starting its MCP servers once, in a folder of their own that
is removed afterwards; the LLM is never built, so no request leaves."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console
from rich.text import Text

from zork_mcp.app.container import Container
from zork_mcp.app.prompts import system_prompt
from zork_mcp.app.tables import Grid
from zork_mcp.builders.llm import priced_estimate
from zork_mcp.builders.settings import RunOptions
from zork_mcp.domain.episode.estimate import EpisodeEstimate, episode_requests, estimate_episode
from zork_mcp.domain.episode.estimate_cost import EstimatedCost
from zork_mcp.domain.llm.budget import OUTPUT_TOKENS, dollars
from zork_mcp.domain.loop.loop_policy import AGENT_POLICY
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.tools.tool_offer import choose_offered
from zork_mcp.domain.tools.tool_schema import ToolDefinition, tool_definitions

ASSUMED = (
    f"Assumes one LLM call a turn and {OUTPUT_TOKENS} tokens out a call; each tool call adds "
    "a call about as large. Tokens are characters / 4."
)


@dataclass(frozen=True)
class RunEstimate:
    """One configuration's estimate: its label, its episodes' calls and their cost."""

    label: str
    episodes: int
    episode: EpisodeEstimate
    cost: EstimatedCost | None
    unpriced: str | None = None

    @property
    def tokens(self) -> int:
        return self.episodes * self.episode.tokens


def estimate_run(
    options: RunOptions, project: ProjectSettings, label: str = "", episodes: int = 1
) -> RunEstimate:
    """The estimate of `episodes` episodes played with `options` and the pyproject's
    `project` settings (from scratch)."""
    with tempfile.TemporaryDirectory(prefix="zork-mcp-estimate-") as folder:
        scratch = replace(options, log_dir=Path(folder), resume=False)
        container = Container(options=scratch, project=project)
        try:
            tools = offered_tools(container)
            game = container.profile()
            requests = episode_requests(
                system_prompt(game),
                tools,
                container.history(),
                options.max_turns,
                game.typical_answer_chars,
                AGENT_POLICY.final_format,
            )
            episode = estimate_episode(requests)
        finally:
            container.shutdown_resources()
    cost, unpriced = priced_estimate(options.model, episode)
    return RunEstimate(label or str(options.model), episodes, episode, cost, unpriced)


def offered_tools(container: Container) -> tuple[ToolDefinition, ...]:
    """The tool definitions the run's first request would offer (none with MCP off)."""
    server = container.tool_server()
    if server is None:
        return ()

    async def listed() -> tuple[ToolDefinition, ...]:
        async with server.open_session() as session:
            return tool_definitions(choose_offered(session.tools, container.offer()).offered)

    return asyncio.run(listed())


def print_estimates(console: Console, estimates: Sequence[RunEstimate]) -> None:
    """A row per run (one run: named in the title), and their total; laid out to the
    console's width, a run's label never cut."""
    single = len(estimates) == 1
    title = f"Estimate for {estimates[0].label}" if single else "Estimate"
    headers = ["eps", "turns", "tokens in", "out", "$ uncached", "$ cached"]
    rows: list[list[str | Text]] = []
    for run in estimates:
        each, cost = run.episode, run.cost
        money = (
            [dollars(c * run.episodes) for c in (cost.plain, cost.cached)]
            if cost
            else ["unpriced", "unpriced"]
        )
        numbers = [
            str(run.episodes),
            str(len(each.prompts)),
            f"{run.episodes * each.input_tokens:,}",
            f"{run.episodes * each.output_tokens:,}",
            *money,
        ]
        rows.append([*([] if single else [Text(run.label)]), *numbers])
    if not single:
        rows.append(_total_row(estimates))
    grid = Grid(
        title + ", before any LLM call",
        headers if single else ["run", *headers],
        rows,
        leading=0 if single else 1,
    )
    for table in grid.tables(console.width):
        console.print(table)
    for run in estimates:
        if run.cost is None and run.unpriced:
            console.print(Text(f"{run.label}: unpriced, {run.unpriced}"))
    if any(r.cost is None for r in estimates) and any(r.cost for r in estimates):
        console.print("+: the priced runs' dollars alone.", highlight=False)
    console.print(ASSUMED, highlight=False)


def _total_row(estimates: Sequence[RunEstimate]) -> list[str | Text]:
    priced = [r for r in estimates if r.cost is not None]
    money = [
        (
            dollars(sum(r.episodes * part(r.cost) for r in priced if r.cost))
            + ("" if len(priced) == len(estimates) else "+")
        )
        if priced
        else "unpriced"
        for part in (lambda c: c.plain, lambda c: c.cached)
    ]
    tokens_in = sum(r.episodes * r.episode.input_tokens for r in estimates)
    tokens_out = sum(r.episodes * r.episode.output_tokens for r in estimates)
    episodes = sum(r.episodes for r in estimates)
    return [
        Text("total", style="bold"),
        str(episodes),
        "",
        f"{tokens_in:,}",
        f"{tokens_out:,}",
        *money,
    ]
