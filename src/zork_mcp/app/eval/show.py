"""`zork-mcp show EPISODE_DIR`: one episode turn by turn from its events.jsonl."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from zork_mcp.domain.errors import ConfigurationError

ARGUMENTS_CHARS = 160
TOOL_EVENTS = ("mcp_tool_call", "mcp_tool_result", "mcp_tool_timeout", "mcp_tool_skipped")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zork-mcp show",
        description="Print one episode turn by turn: action, reasoning, tool calls with their "
        "arguments and results, score changes (from the episode's events.jsonl).",
    )
    p.add_argument("episode_dir", type=Path, help="an episode's log folder, e.g. logs/episode-1")
    return p


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    console = Console(highlight=False)
    for line in episode_lines(read_events(args.episode_dir)):
        console.print(line, markup=False, soft_wrap=True)
    return 0


def read_events(directory: Path) -> list[dict[str, Any]]:
    path = directory / "events.jsonl"
    if not path.is_file():
        raise ConfigurationError(
            f"No events.jsonl in {directory}: pass an episode's log folder "
            f"(e.g. logs/<episode-id>, or eval/logs/<sweep>-<key> for a sweep's episode)."
        )
    events = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise ConfigurationError(f"{path}:{number} is not a JSON event ({e}).") from e
    return events


def episode_lines(events: Sequence[dict[str, Any]]) -> Iterator[str]:
    tools: list[str] = []
    score = 0
    for event in events:
        kind = event.get("event_type")
        if kind == "episode_start":
            mcp = "on" if event.get("mcp_enabled") else "off"
            limit = event.get("max_turns")
            yield f"Episode {event.get('episode_id')} (MCP {mcp}, {limit} turns max)"
        elif kind in TOOL_EVENTS:
            tools.append(_tool_line(event))
        elif kind == "mcp_disabled_fallback":
            tools.append(f"    ! {event.get('message')}")
        elif kind == "turn_complete":
            yield from _turn_lines(event, score, tools)
            score, tools = int(event.get("score") or 0), []
        elif kind == "episode_end":
            yield (
                f"Ended ({event.get('end_reason')}): score {event.get('score')} in "
                f"{event.get('moves')} moves, {event.get('turns')} turns, "
                f"{event.get('tool_calls')} tool calls"
            )


def _turn_lines(event: dict[str, Any], before: int, tools: list[str]) -> Iterator[str]:
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


def _tool_line(event: dict[str, Any]) -> str:
    name, kind = event.get("tool_name"), event.get("event_type")
    if kind == "mcp_tool_call":
        arguments = json.dumps(event.get("arguments"), ensure_ascii=False)
        return f"    tool {name} {_short(arguments, ARGUMENTS_CHARS)}"
    if kind == "mcp_tool_result":
        status = "error" if event.get("is_error") else "ok"
        return (
            f"      -> {status}: {event.get('result_type')} of {event.get('result_length')} "
            f"chars in {event.get('duration_ms')} ms"
        )
    return f"      -> {event.get('message')}"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
