"""`zork-mcp show EPISODE_DIR`: one episode turn by turn from its events.jsonl."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

from rich.console import Console

from zork_mcp.app import bootstrap
from zork_mcp.domain.errors import ZorkMcpError
from zork_mcp.domain.events import EventType, LoggedEvent

ARGUMENTS_CHARS = 160
TOOL_EVENTS = (
    EventType.MCP_TOOL_CALL,
    EventType.MCP_TOOL_RESULT,
    EventType.MCP_TOOL_TIMEOUT,
    EventType.MCP_TOOL_SKIPPED,
)


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
    tools: list[str] = []
    score = 0
    for event in events:
        kind = event.type
        if kind == EventType.EPISODE_START:
            mcp = "on" if event.get("mcp_enabled") else "off"
            limit = event.get("max_turns")
            yield f"Episode {event.get('episode_id')} (MCP {mcp}, {limit} turns max)"
        elif kind in TOOL_EVENTS:
            tools.append(_tool_line(event))
        elif kind == EventType.MCP_DISABLED_FALLBACK:
            tools.append(f"    ! {event.get('message')}")
        elif kind == EventType.TURN_COMPLETE:
            yield from _turn_lines(event, score, tools)
            score, tools = int(event.get("score") or 0), []
        elif kind == EventType.EPISODE_END:
            yield (
                f"Ended ({event.get('end_reason')}): score {event.get('score')} in "
                f"{event.get('moves')} moves, {event.get('turns')} turns, "
                f"{event.get('tool_calls')} tool calls"
            )


def _turn_lines(event: LoggedEvent, before: int, tools: list[str]) -> Iterator[str]:
    score = int(event.get("score") or 0)
    change = f" ({score - before:+d})" if score != before else ""
    yield (
        f"Turn {event.get('turn')}: score {score}{change} | moves {event.get('moves')} | "
        f"{event.get('room') or '?'}"
    )
    if event.get("reasoning"):
        yield f"    thinking: {_short(str(event['reasoning']), ARGUMENTS_CHARS)}"
    yield from tools
    yield f"    > {event.get('action')}"


def _tool_line(event: LoggedEvent) -> str:
    name, kind = event.get("tool_name"), event.type
    if kind == EventType.MCP_TOOL_CALL:
        arguments = json.dumps(event.get("arguments"), ensure_ascii=False)
        return f"    tool {name} {_short(arguments, ARGUMENTS_CHARS)}"
    if kind == EventType.MCP_TOOL_RESULT:
        status = "error" if event.get("is_error") else "ok"
        return (
            f"      -> {status}: {event.get('result_type')} of {event.get('result_length')} "
            f"chars in {event.get('duration_ms')} ms"
        )
    return f"      -> {event.get('message')}"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
