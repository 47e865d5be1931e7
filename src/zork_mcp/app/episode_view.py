"""One episode turn by turn, as read from its events log: what `show` prints and the HTML
report's episode pages lay out. Each turn: its facts, the command, the reasoning, the tool
calls with their arguments and results, and the notices (warnings and errors) it met; and
where the episode was resumed (or, in a sweep, extended) from its checkpoint."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from zork_mcp.domain.episode.episode_text import result_size
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.facts.episode_facts import (
    BudgetReached,
    EpisodeEnded,
    EpisodeResumed,
    EpisodeStarted,
    TurnCompleted,
)
from zork_mcp.domain.facts.events import EventType, LoggedEvent
from zork_mcp.domain.facts.tool_facts import (
    ToolCallRequested,
    ToolFact,
    ToolResultReceived,
    ToolSkipped,
    ToolTimedOut,
    tool_fact,
)

TOOL_EVENTS = (ToolCallRequested, ToolResultReceived, ToolTimedOut, ToolSkipped)
NOTICE_LEVELS = ("warning", "error")


@dataclass
class ToolView:
    name: str
    arguments: str  # as JSON (or the text the LLM sent, if it was not JSON)
    status: str = "pending"  # ok, error, or the event that ended it (timeout, skipped...)
    result: str = ""  # what the LLM read, cut (see `result_preview` in the events)
    detail: str = ""  # type, length and time of the result, or why there is none
    size: int | None = None  # of the whole result, in characters (`result` may be cut)


@dataclass
class Resume:
    """Where the episode went on from its checkpoint: after which turn, the start it went on
    with (its turn limit, raised if a sweep extended it), and the end it had met before."""

    after_turn: int
    turns_before: int  # how many of the view's turns come before it
    start: EpisodeStarted | None = None
    ended: EpisodeEnded | None = None
    start_before: EpisodeStarted | None = None  # the one it had been played with until then

    @property
    def extended_to(self) -> int | None:
        """The new turn limit, if it went on with a higher one than it had."""
        if self.start is None or self.start_before is None:
            return None
        raised = self.start.max_turns > self.start_before.max_turns
        return self.start.max_turns if raised else None


@dataclass
class TurnView:
    facts: TurnFacts
    before: TurnFacts | None = None  # the turn before it, if any
    action: str = ""
    reasoning: str = ""
    observation: str = ""  # what the game answered (cut in the log at OBSERVATION_CHARS)
    tools: list[ToolView] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    resumed: Resume | None = None  # the resume this turn is the first turn after

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
    first_start: EpisodeStarted | None = None  # `start` is the last (a resumed one's)
    resumes: list[Resume] = field(default_factory=list)
    budgets: dict[int, BudgetReached] = field(default_factory=dict)  # by the turn it stopped

    def resumes_before(self, index: int) -> list[Resume]:
        """The resumes met after `index` of its turns (`len(turns)`: after the last turn)."""
        return [resume for resume in self.resumes if resume.turns_before == index]


def episode_view(events: Sequence[LoggedEvent]) -> EpisodeView:
    view = EpisodeView()
    reading = _Reading()
    for event in events:
        payload, tool = event.payload, tool_fact(event.type, event.fields)
        if isinstance(payload, EpisodeStarted):
            _started(view, payload, event.episode_id, reading)
        elif event.type == EventType.EPISODE_RESUMED:
            reading.resumed(view, EpisodeResumed.from_fields(event.fields).turn)
        elif isinstance(tool, TOOL_EVENTS):
            _tool_event(tool, event.message, reading.tools)
        elif isinstance(payload, TurnCompleted):
            view.turns.append(reading.turn(payload, view.turns))
        elif isinstance(payload, EpisodeEnded):
            view.end = reading.ended = payload
        elif isinstance(payload, BudgetReached):
            view.budgets[payload.turn] = payload
        elif event.level in NOTICE_LEVELS and event.message:
            reading.notices.append(event.message)
    return view


@dataclass
class _Reading:
    """What the events read so far leave for the next turn."""

    tools: list[ToolView] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    ended: EpisodeEnded | None = None  # since the last turn
    resume: Resume | None = None  # since the last turn

    def resumed(self, view: EpisodeView, after_turn: object) -> None:
        turn = after_turn if isinstance(after_turn, int) else len(view.turns)
        self.resume = Resume(turn, len(view.turns), ended=self.ended, start_before=view.start)
        view.resumes.append(self.resume)

    def turn(self, turn: TurnCompleted, earlier: list[TurnView]) -> TurnView:
        before = earlier[-1].facts if earlier else None
        if self.resume is not None:  # turns after the checkpoint may be in the log twice
            played = [t.facts for t in earlier if t.facts.turn == self.resume.after_turn]
            before = played[-1] if played else before
        read = TurnView(
            facts=turn.facts,
            before=before,
            action=turn.action,
            reasoning=turn.reasoning,
            observation=turn.observation,
            tools=self.tools,
            notices=self.notices,
            resumed=self.resume,
        )
        self.tools, self.notices, self.ended, self.resume = [], [], None, None
        return read


def _started(
    view: EpisodeView, start: EpisodeStarted, episode_id: str | None, reading: _Reading
) -> None:
    if reading.resume is not None and reading.resume.start is None:
        reading.resume.start = start
    view.first_start = view.first_start or start
    view.start, view.episode_id = start, episode_id


def _tool_event(fact: ToolFact, message: object, tools: list[ToolView]) -> None:
    name = str(fact.tool_name or "?")
    if isinstance(fact, ToolCallRequested):
        arguments = fact.arguments
        shown = (
            arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
        )
        tools.append(ToolView(name, shown))
        return
    call = next((t for t in reversed(tools) if t.name == name and t.status == "pending"), None)
    if call is None:
        call = ToolView(name, "")
        tools.append(call)
    if isinstance(fact, ToolResultReceived):
        call.status = "error" if fact.is_error else "ok"
        call.result = str(fact.result_preview or "")
        call.size = result_size(bool(fact.is_error), fact.result_length, call.result)
        # a failed call's text is its error message: its content (most often None) is not shown
        shown = f"message of {call.size}" if fact.is_error else f"{fact.result_type} of {call.size}"
        call.detail = f"{shown} chars in {fact.duration_ms} ms"
    else:
        call.status = str(fact.kind).removeprefix("mcp_tool_")  # timeout, skipped
        call.detail = str(message or "")
