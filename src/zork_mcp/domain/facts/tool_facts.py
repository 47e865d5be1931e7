"""What a tool call's events say, typed: `LoopReport` writes them, and `show`, the HTML
report and episode.log read them back through `tool_fact`, so a renamed field is an
attribute error where it is read (read back, a field the line lacks is None)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.facts.loop_facts import LoopFact


@dataclass(frozen=True)
class ToolCallRequested(LoopFact):
    """The LLM asked for a tool with these arguments (the text it sent, if not JSON, with
    why it is not)."""

    kind = EventType.MCP_TOOL_CALL
    tool_name: str
    arguments: Mapping[str, Any] | str
    arguments_error: str | None = None

    def fields(self) -> dict[str, Any]:
        written = super().fields()
        if self.arguments_error is None:  # written only for arguments that are not JSON
            del written["arguments_error"]
        return written


@dataclass(frozen=True)
class ToolResultReceived(LoopFact):
    """A tool answered (or failed as a tool, `is_error`): what it answered, cut to a preview,
    and how long it took."""

    kind = EventType.MCP_TOOL_RESULT
    tool_name: str
    result_type: str  # of the content, as Python names it
    result_length: int  # of the whole content as text (the preview may be cut)
    result_preview: str
    is_error: bool
    duration_ms: float
    server_name: str | None
    timeout_seconds: float


@dataclass(frozen=True)
class ToolTimedOut(LoopFact):
    kind = EventType.MCP_TOOL_TIMEOUT
    tool_name: str
    timeout_seconds: float


@dataclass(frozen=True)
class ToolSkipped(LoopFact):
    """A call not made (an earlier one in its batch timed out, or the server stopped)."""

    kind = EventType.MCP_TOOL_SKIPPED
    tool_name: str


@dataclass(frozen=True)
class ToolCallFailed(LoopFact):
    kind = EventType.MCP_TOOL_ERROR
    tool_name: str
    error: str | None
    outcome: str  # a CallOutcome's value


@dataclass(frozen=True)
class ToolSessionBroken(LoopFact):
    """The tool server stopped during this call: no more tool calls this turn."""

    kind = EventType.MCP_SESSION_BROKEN
    tool_name: str
    error: str | None


@dataclass(frozen=True)
class ToolCircuitOpened(LoopFact):
    """The tool failed too often in a row: not called again."""

    kind = EventType.MCP_CIRCUIT_OPEN
    tool_name: str


ToolFact = (
    ToolCallRequested
    | ToolResultReceived
    | ToolTimedOut
    | ToolSkipped
    | ToolCallFailed
    | ToolSessionBroken
    | ToolCircuitOpened
)
TOOL_FACTS: dict[EventType, type[ToolFact]] = {
    fact.kind: fact
    for fact in (
        ToolCallRequested,
        ToolResultReceived,
        ToolTimedOut,
        ToolSkipped,
        ToolCallFailed,
        ToolSessionBroken,
        ToolCircuitOpened,
    )
}


def tool_fact(kind: EventType | None, values: Mapping[str, Any]) -> ToolFact | None:
    """A tool call's event read back as its fact; None for an event of another kind."""
    fact = TOOL_FACTS.get(kind) if kind is not None else None
    return fact.from_fields(values) if fact is not None else None
