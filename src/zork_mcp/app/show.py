"""`zork-mcp show EPISODE_DIR`: one episode turn by turn from its events.jsonl."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from pathlib import Path

from rich.console import Console

from zork_mcp.app import bootstrap
from zork_mcp.app.episode_view import TurnView, episode_view
from zork_mcp.domain.errors import ZorkMcpError
from zork_mcp.domain.events import LoggedEvent

ARGUMENTS_CHARS = 160


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zork-mcp show",
        description="Print one episode turn by turn: action, reasoning, tool calls with their "
        "arguments and results, score changes (from the episode's events.jsonl).",
    )
    p.add_argument("episode_dir", type=Path, help="an episode's log folder, e.g. logs/episode-1")
    return p


def main(argv: Sequence[str]) -> int:
    """`show EPISODE_DIR` (argv after the subcommand); 2 with the error if it cannot."""
    args = parser().parse_args(argv)
    try:
        events = bootstrap.episode_events(args.episode_dir)
    except ZorkMcpError as error:
        Console(stderr=True).print(f"[bold red]error:[/] {error}", highlight=False, soft_wrap=True)
        return 2
    console = Console(highlight=False)
    for line in episode_lines(events):
        console.print(line, markup=False, soft_wrap=True)
    return 0


def episode_lines(events: Sequence[LoggedEvent]) -> Iterator[str]:
    view = episode_view(events)
    if view.start is not None:
        mcp = "on" if view.start.mcp_enabled else "off"
        limit = view.start.max_turns
        yield f"Episode {view.episode_id} (MCP {mcp}, {limit} turns max)"
    for turn in view.turns:
        yield from _turn_lines(turn)
    if view.end is not None:
        end = view.end
        yield (
            f"Ended ({end.end_reason}): score {end.score} in {end.moves} moves, "
            f"{end.turns} turns, {end.tool_calls} tool calls"
        )


def _turn_lines(turn: TurnView) -> Iterator[str]:
    facts = turn.facts
    change = f" ({turn.score_change:+d})" if turn.score_change else ""
    room = facts.room or "?"
    yield f"Turn {facts.turn}: score {facts.score}{change} | moves {facts.moves} | {room}"
    if turn.reasoning:
        yield f"    thinking: {_short(turn.reasoning, ARGUMENTS_CHARS)}"
    for tool in turn.tools:
        yield f"    tool {tool.name} {_short(tool.arguments, ARGUMENTS_CHARS)}"
        if tool.status in ("ok", "error"):
            yield f"      -> {tool.status}: {tool.detail}"
        elif tool.status != "pending":
            yield f"      -> {tool.detail}"
    yield from (f"    ! {notice}" for notice in turn.notices)
    yield f"    > {turn.action}"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
