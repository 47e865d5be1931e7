"""What the tool loop's events say, typed: `LoopReport` writes each event's fields as its
place (`EventPlace`) and one fact, a type per event kind, and its readers read them back
through the same types. The tool call's own events are in `tool_facts`.

Read back from a log, a fact holds what the line held: a field the line lacks (a log an
earlier version wrote) reads as None, and a reader checks what it uses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Self

from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.llm.messages import FinishReason


@dataclass(frozen=True)
class EventPlace:
    """Where in the episode an event happened: the tool loop's iteration (0 before its first)
    and the turn. Every loop event carries it; read from another event, what it lacks is
    None (an episode's own event says no iteration, a sandbox's notice neither)."""

    iteration: int | None = None
    turn: int | None = None

    def fields(self) -> dict[str, Any]:
        """What it knows of the place: a notice of the turn says no iteration."""
        return {name: value for name, value in _written(self).items() if value is not None}

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> Self:
        return _read(cls, values)


@dataclass(frozen=True)
class LoopFact:
    """What one of the loop's events says beyond its place; its type names its kind."""

    kind: ClassVar[EventType]

    def fields(self) -> dict[str, Any]:
        return _written(self)

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> Self:
        return _read(cls, values)


def _written(fact: Any) -> dict[str, Any]:
    return {f.name: getattr(fact, f.name) for f in fields(fact)}


def _read(kind: type[Any], values: Mapping[str, Any]) -> Any:
    return kind(**{f.name: values.get(f.name) for f in fields(kind)})


@dataclass(frozen=True)
class ToolRejected(LoopFact):
    """A server listed a tool that cannot be offered; its other tools stay usable."""

    kind = EventType.MCP_TOOL_REJECTED
    server: str
    tool: str
    reason: str


@dataclass(frozen=True)
class ProtocolSpoken(LoopFact):
    """The MCP version (and its era) a server is spoken to in."""

    kind = EventType.MCP_SERVER_PROTOCOL
    server: str
    version: str
    era: str


@dataclass(frozen=True)
class ToolsLeftOut(LoopFact):
    """Tools not offered to the LLM, for one reason."""

    kind = EventType.MCP_TOOLS_LEFT_OUT
    tools: list[str]
    reason: str


@dataclass(frozen=True)
class IterationStarted(LoopFact):
    kind = EventType.MCP_ITERATION_START
    max_iterations: int


@dataclass(frozen=True)
class UnexpectedState(LoopFact):
    """The LLM returned neither content nor tool calls: why it says it stopped, and the
    provider's own word for it."""

    kind = EventType.MCP_UNEXPECTED_STATE
    finish_reason: FinishReason | None
    provider_reason: str | None = None


@dataclass(frozen=True)
class NoContent(LoopFact):
    """The loop ended without an answer; the final one is asked for without tools."""

    kind = EventType.MCP_NO_CONTENT
    iterations: int
    reason: str  # an ExitReason's value


@dataclass(frozen=True)
class ContextCompacted(LoopFact):
    kind = EventType.MCP_CONTEXT_COMPACTED
    tokens_before: int
    tokens_after: int
    max_tokens: int
    steps_condensed: int
    critical_kept: int


@dataclass(frozen=True)
class Backtracked(LoopFact):
    kind = EventType.MCP_BACKTRACK
    backtrack: int  # how many so far this turn
    failed_tools: list[str]


@dataclass(frozen=True)
class AnswerUnparsed(LoopFact):
    kind = EventType.AGENT_PARSE_ERROR
    raw_response: str | None
    error: str


@dataclass(frozen=True)
class SessionCompleted(LoopFact):
    kind = EventType.MCP_SESSION_COMPLETE
    iterations: int
    tool_calls_count: int
    tools_used: list[str]
    final_action: str | None


LOOP_FACTS: dict[EventType, type[LoopFact]] = {
    fact.kind: fact
    for fact in (
        ToolRejected,
        ProtocolSpoken,
        ToolsLeftOut,
        IterationStarted,
        UnexpectedState,
        NoContent,
        ContextCompacted,
        Backtracked,
        AnswerUnparsed,
        SessionCompleted,
    )
}
