"""`zork-mcp show EPISODE`: one episode turn by turn from its events.jsonl, the episode named
by its id (its folder under the log folder) or its folder's path."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from zork_mcp.app import bootstrap
from zork_mcp.app.episode_view import EpisodeView, Resume, TurnView, episode_view
from zork_mcp.domain.episode.episode import EndReason
from zork_mcp.domain.episode.episode_text import (
    cost_line,
    one_line,
    outcome_lines,
    result_line,
    resumed_line,
)
from zork_mcp.domain.errors import ConfigurationError, ZorkMcpError
from zork_mcp.domain.facts.episode_facts import BudgetReached, EpisodeEnded
from zork_mcp.domain.facts.events import LoggedEvent
from zork_mcp.domain.text.inert import inert

ARGUMENTS_CHARS = 160
INDENT = "    "


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zork-mcp show",
        allow_abbrev=False,
        description="Print one episode turn by turn (from the episode's events.jsonl): the "
        "agent's reasoning, its tool calls with their arguments and results, its command, the "
        "game's answer, then the score (and its change), moves and room after it; deaths, and "
        "where the episode was resumed.",
    )
    p.add_argument(
        "episode",
        metavar="EPISODE",
        help="an episode's id (its folder's name under --log-dir, e.g. episode-20261123-081500) "
        "or its log folder's path (e.g. eval/logs/sweep-1a2b3c)",
    )
    p.add_argument(
        "--log-dir",
        type=Path,
        default=Path("logs"),
        help="where an episode's id is looked up (default: logs, as for zork-mcp's own --log-dir)",
    )
    return p


def main(argv: Sequence[str]) -> int:
    """`show EPISODE` (argv after the subcommand); 2 with the error if it cannot."""
    args = parser().parse_args(argv)
    try:
        events = bootstrap.episode_events(episode_folder(args.episode, args.log_dir))
    except ZorkMcpError as error:
        Console(stderr=True).print(
            f"[bold red]error:[/] {escape(inert(str(error)))}", highlight=False, soft_wrap=True
        )
        return 2
    console = Console(highlight=False, emoji=False)
    for line in episode_lines(events):
        console.print(line, markup=False, soft_wrap=True)
    return 0


def episode_folder(episode: str, log_dir: Path) -> Path:
    """The folder `episode` names: its path, else its id's folder in `log_dir`."""
    places = list(dict.fromkeys((Path(episode), log_dir / episode)))
    for folder in places:
        if folder.is_dir():
            return folder
    where = " nor ".join(str(place) for place in places)
    raise ConfigurationError(
        f"No episode {episode}: neither {where} is a folder. Pass an episode's id (its folder's "
        f"name under --log-dir, here {log_dir}) or its folder's path."
    )


def episode_lines(events: Sequence[LoggedEvent]) -> Iterator[str]:
    """The episode as a reader follows it: each turn's reasoning and tool calls, its command,
    the game's answer and the state after it; where it was resumed; how it ended. Every
    text from the LLM, the game or a server is inert."""
    view = episode_view(events)
    return (inert(line) for line in _episode_lines(view))


def _episode_lines(view: EpisodeView) -> Iterator[str]:
    start = view.first_start
    if start is not None:
        mcp = "on" if start.mcp_enabled else "off"
        yield f"Episode {view.episode_id} (MCP {mcp}, {start.max_turns} turns max)"
    for index, turn in enumerate(view.turns):
        yield from _resume_lines(view.resumes_before(index), view.budgets)
        yield from _turn_lines(turn)
    yield from _resume_lines(view.resumes_before(len(view.turns)), view.budgets)
    if view.end is not None:
        yield from _end_lines(view.end, view.budgets)


def _turn_lines(turn: TurnView) -> Iterator[str]:
    yield f"Turn {turn.facts.turn}"
    if turn.reasoning:
        yield f"{INDENT}thinking: {one_line(turn.reasoning)}"
    for tool in turn.tools:
        yield f"{INDENT}tool {tool.name} {one_line(tool.arguments, ARGUMENTS_CHARS)}"
        if tool.status in ("ok", "error"):
            yield f"{INDENT}  {result_line(tool.status, tool.size, tool.result)}"
        elif tool.status != "pending":
            yield f"{INDENT}  {result_line(tool.status, None, tool.detail)}"
    yield from (f"{INDENT}! {one_line(notice)}" for notice in turn.notices)
    yield f"{INDENT}> {one_line(turn.action)}"
    before = turn.before.score if turn.before else 0
    yield from (INDENT + line for line in outcome_lines(turn.facts, turn.observation, before))


def _resume_lines(resumes: Sequence[Resume], budgets: Mapping[int, BudgetReached]) -> Iterator[str]:
    for resume in resumes:
        if resume.ended is not None:
            yield from _end_lines(resume.ended, budgets)
        yield resumed_line(resume.after_turn, resume.extended_to)


def _end_lines(end: EpisodeEnded, budgets: Mapping[int, BudgetReached]) -> Iterator[str]:
    yield (
        f"Ended ({end.end_reason}): score {end.score} in {end.moves} moves, "
        f"{end.turns} turns, {end.tool_calls} tool calls"
    )
    reached = budgets.get(end.turns) if end.end_reason == EndReason.BUDGET else None
    if reached is not None:
        yield f"{INDENT}{reached.line()}"
    if end.error:
        yield f"{INDENT}error: {one_line(end.error)}"
    yield INDENT + cost_line(end.usage)
