"""episode.log's text: each event as a line a person reads, as the specification's examples
write it (`[INFO] Turn 47 Iteration 1: Agent calling tool thoughtbox.think`), and under a
turn's line its reasoning, the game's answer, a death, the score (with its change), moves
and room after it; under a tool's call its arguments, under its result a preview of it;
a resume's mark where it went on. Every text from the LLM, the game or a server is inert."""

from __future__ import annotations

import json
from collections.abc import Iterator

from zork_mcp.domain.episode.episode_text import (
    cost_line,
    one_line,
    outcome_lines,
    result_line,
    result_size,
    resumed_line,
)
from zork_mcp.domain.facts.episode_facts import (
    EpisodeEnded,
    EpisodeFact,
    EpisodeResumed,
    EpisodeStarted,
    TurnCompleted,
)
from zork_mcp.domain.facts.events import Event, EventType, Level, LoggedEvent
from zork_mcp.domain.facts.loop_facts import EventPlace
from zork_mcp.domain.facts.tool_facts import ToolCallRequested, ToolResultReceived, tool_fact
from zork_mcp.domain.text.inert import inert
from zork_mcp.domain.tools.tool_result import jsonable

INDENT = "    "


class HumanLog:
    """Turns each event into its lines, remembering the score after the last turn so that the
    next shows its change; a resume says the score it goes on from."""

    def __init__(self) -> None:
        self._score: int | None = None  # after the last turn written, if known

    def text(self, event: Event) -> str:
        """The event's lines, each ending in a newline."""
        return "".join(line + "\n" for line in self._lines(event))

    def _lines(self, event: Event) -> Iterator[str]:
        if event.type is EventType.EPISODE_RESUMED:
            yield self._resumed(event)
            return
        payload = _payload(event)
        if isinstance(payload, EpisodeStarted):  # the episode's, not its turn N's
            yield human_line(Event(event.type, event.message, event.level))
            yield INDENT + _started(payload)
            self._score = 0 if payload.turn == 0 else self._score
            return
        yield human_line(event)
        tool = tool_fact(event.type, event.fields)
        if isinstance(payload, EpisodeEnded):
            if payload.error:
                yield f"{INDENT}error: {one_line(payload.error)}"
            yield INDENT + cost_line(payload.usage)
        elif isinstance(payload, TurnCompleted):
            yield from self._turn(payload)
        elif isinstance(tool, ToolCallRequested) and tool.arguments is not None:
            arguments = json.dumps(jsonable(tool.arguments), ensure_ascii=False)
            yield human_line(
                Event(event.type, f"Tool arguments: {arguments}", Level.DEBUG, event.fields)
            )
        elif isinstance(tool, ToolResultReceived):
            yield INDENT + _result(tool)

    def _resumed(self, event: Event) -> str:
        resumed = EpisodeResumed.from_fields(event.fields)
        if not isinstance(resumed.turn, int):
            return human_line(event)
        self._score = resumed.score if isinstance(resumed.score, int) else None
        return human_line(Event(event.type, resumed_line(resumed.turn), event.level))

    def _turn(self, turn: TurnCompleted) -> Iterator[str]:
        if turn.reasoning:
            yield f"{INDENT}thinking: {one_line(turn.reasoning)}"
        for line in outcome_lines(turn.facts, turn.observation, self._score):
            yield INDENT + line
        self._score = turn.facts.score


def human_line(event: Event) -> str:
    """`[LEVEL] Turn N Iteration I: message`; a message of several lines goes on indented."""
    place = EventPlace.from_fields(event.fields)
    where = f"Turn {place.turn}" if place.turn else "Episode"
    if place.iteration and str(event.type).startswith("mcp_tool"):
        where += f" Iteration {place.iteration}"
    message = f"\n{INDENT}".join(event.message.splitlines())
    return inert(f"[{str(event.level).upper()}] {where}: {message}")


def _payload(event: Event) -> EpisodeFact | None:
    try:
        return LoggedEvent(event.type, event.fields).payload
    except (KeyError, TypeError, ValueError):  # an episode event without its payload
        return None


def _started(start: EpisodeStarted) -> str:
    mcp = "on" if start.mcp_enabled else "off"
    after = f", going on after turn {start.turn}" if start.turn else ""
    room = f", in {one_line(start.room)}" if start.room.strip() else ""
    return f"MCP {mcp}, {start.max_turns} turns max{after}{room}"


def _result(received: ToolResultReceived) -> str:
    preview = str(received.result_preview or "")
    failed = bool(received.is_error)
    size = result_size(failed, received.result_length, preview)
    return result_line("error" if failed else "ok", size, preview)
