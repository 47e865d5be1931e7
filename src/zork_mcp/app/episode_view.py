"""One episode turn by turn, as read from its events log: what `show` prints and the HTML
report's episode pages lay out. Each turn: its facts, the command, the reasoning, the tool
calls with their arguments and results, and the notices (warnings and errors) it met."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from zork_mcp.domain.episode_facts import EpisodeEnded, EpisodeStarted, TurnCompleted
from zork_mcp.domain.events import EventType, LoggedEvent
from zork_mcp.domain.turn_facts import TurnFacts

TOOL_EVENTS = (
    EventType.MCP_TOOL_CALL,
    EventType.MCP_TOOL_RESULT,
    EventType.MCP_TOOL_TIMEOUT,
    EventType.MCP_TOOL_SKIPPED,
)
NOTICE_LEVELS = ("warning", "error")


@dataclass
class ToolView:
    name: str
    arguments: str  # as JSON (or the text the LLM sent, if it was not JSON)
    status: str = "pending"  # ok, error, or the event that ended it (timeout, skipped...)
    result: str = ""  # what the LLM read, cut (see `result_preview` in the events)
    detail: str = ""  # type, length and time of the result, or why there is none


@dataclass
class TurnView:
    facts: TurnFacts
    before: TurnFacts | None = None  # the turn before it, if any
    action: str = ""
    reasoning: str = ""
    observation: str = ""  # what the game answered (cut in the log at OBSERVATION_CHARS)
    tools: list[ToolView] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def score_change(self) -> int:
        return self.facts.score - (self.before.score if self.before else 0)

    @property
    def room_changed(self) -> bool:
        return self.before is not None and self.facts.room != self.before.room


@dataclass
class EpisodeView:
    start: EpisodeStarted | None = None
    turns: list[TurnView] = field(default_factory=list)
    end: EpisodeEnded | None = None
    episode_id: str | None = None  # as its start event was logged


def episode_view(events: Sequence[LoggedEvent]) -> EpisodeView:
    view = EpisodeView()
    tools: list[ToolView] = []
    notices: list[str] = []
    for event in events:
        payload = event.payload
        if isinstance(payload, EpisodeStarted):
            view.start, view.episode_id = payload, event.get("episode_id")
        elif event.type in TOOL_EVENTS:
            _tool_event(event, tools)
        elif isinstance(payload, TurnCompleted):
            view.turns.append(_turn(payload, view.turns, tools, notices))
            tools, notices = [], []
        elif isinstance(payload, EpisodeEnded):
            view.end = payload
        elif event.get("level") in NOTICE_LEVELS and event.get("message"):
            notices.append(str(event.get("message")))
    return view


def _turn(
    turn: TurnCompleted, earlier: list[TurnView], tools: list[ToolView], notices: list[str]
) -> TurnView:
    return TurnView(
        facts=turn.facts,
        before=earlier[-1].facts if earlier else None,
        action=turn.action,
        reasoning=turn.reasoning,
        observation=turn.observation,
        tools=tools,
        notices=notices,
    )


def _tool_event(event: LoggedEvent, tools: list[ToolView]) -> None:
    name = str(event.get("tool_name") or "?")
    if event.type == EventType.MCP_TOOL_CALL:
        arguments = event.get("arguments")
        shown = (
            arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
        )
        tools.append(ToolView(name, shown))
        return
    call = next((t for t in reversed(tools) if t.name == name and t.status == "pending"), None)
    if call is None:
        call = ToolView(name, "")
        tools.append(call)
    if event.type == EventType.MCP_TOOL_RESULT:
        call.status = "error" if event.get("is_error") else "ok"
        call.result = str(event.get("result_preview") or "")
        call.detail = (
            f"{event.get('result_type')} of {event.get('result_length')} chars "
            f"in {event.get('duration_ms')} ms"
        )
    else:
        call.status = str(event.type.value).removeprefix("mcp_tool_") if event.type else "?"
        call.detail = str(event.get("message") or "")
