"""Structured events the domain reports through the Telemetry port (requirement 7)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from zork_mcp.domain.facts.episode_facts import (
    BudgetReached,
    EpisodeEnded,
    EpisodeFact,
    EpisodeResumed,
    EpisodeStarted,
    TurnCompleted,
)


class EventType(StrEnum):
    """Every event's type: the one home of the names events.jsonl, the logs and the traces
    carry (an unknown name is refused when an Event is made)."""

    EPISODE_START = "episode_start"
    EPISODE_RESUMED = "episode_resumed"
    TURN_COMPLETE = "turn_complete"
    EPISODE_END = "episode_end"
    BUDGET_REACHED = "budget_reached"
    MCP_ITERATION_START = "mcp_iteration_start"
    MCP_TOOL_CALL = "mcp_tool_call"
    MCP_TOOL_RESULT = "mcp_tool_result"
    MCP_TOOL_TIMEOUT = "mcp_tool_timeout"
    MCP_TOOL_ERROR = "mcp_tool_error"
    MCP_TOOL_SKIPPED = "mcp_tool_skipped"
    MCP_TOOL_REJECTED = "mcp_tool_rejected"
    MCP_TOOLS_LEFT_OUT = "mcp_tools_left_out"
    MCP_SERVER_PROTOCOL = "mcp_server_protocol"
    MCP_SESSION_BROKEN = "mcp_session_broken"
    MCP_SESSION_COMPLETE = "mcp_session_complete"
    MCP_CONNECT_RETRY = "mcp_connect_retry"
    MCP_CONNECT_RETRY_SUCCEEDED = "mcp_connect_retry_succeeded"
    MCP_DISABLED_FALLBACK = "mcp_disabled_fallback"
    MCP_NO_CONTENT = "mcp_no_content"
    MCP_UNEXPECTED_STATE = "mcp_unexpected_state"
    MCP_BACKTRACK = "mcp_backtrack"
    MCP_CIRCUIT_OPEN = "mcp_circuit_open"
    MCP_CONTEXT_COMPACTED = "mcp_context_compacted"
    MCP_FORK_SERVER_LOST = "mcp_fork_server_lost"
    MCP_STATE = "mcp_state"  # at a run's start: MCP on with which servers, or off and why
    MCP_SANDBOX_OFF = "mcp_sandbox_off"
    MCP_SANDBOX_DEGRADED = "mcp_sandbox_degraded"
    MCP_SANDBOX_HOST_REFUSED = "mcp_sandbox_host_refused"
    AGENT_PARSE_ERROR = "agent_parse_error"
    GAME_EMULATOR_RESTARTED = "game_emulator_restarted"
    GAME_SANDBOX_DEGRADED = "game_sandbox_degraded"
    MCP_SERVER_FILE_SKIPPED = "mcp_server_file_skipped"
    REPLIES_UNREADABLE = "replies_unreadable"


class Level(StrEnum):
    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class SpanKind(StrEnum):
    SPAN = "span"
    GENERATION = "generation"


SESSION_SPAN = "agent-tool-calling-session"
LLM_GENERATION = "agent-llm-call"


TOOL_SPAN_PREFIX = "mcp-tool-"


def tool_span_name(canonical_tool_name: str) -> str:
    """A tool call's span is named after its tool (what it says is in its ToolCalled facts)."""
    return f"{TOOL_SPAN_PREFIX}{canonical_tool_name}"


class Fact(Protocol):
    """What an event of one kind says (domain/facts/loop_facts.py, notice_facts.py)."""

    @property
    def kind(self) -> EventType: ...

    def fields(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Event:
    type: EventType
    message: str
    level: Level = Level.INFO
    fields: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "type", EventType(self.type)
        )  # a name not in EventType: ValueError

    @classmethod
    def about(
        cls,
        fact: Fact,
        message: str,
        level: Level = Level.INFO,
        place: Mapping[str, Any] | None = None,
    ) -> Event:
        """A typed fact's event: its type is the fact's kind, its fields the place's (where
        in the episode, if anywhere) and the fact's."""
        return cls(fact.kind, message, level, {**(place or {}), **fact.fields()})

    @classmethod
    def of(cls, payload: EpisodeFact, message: str, level: Level = Level.INFO) -> Event:
        """An episode's own event: its type is its payload's, its fields the payload's."""
        return cls(TYPE_OF[type(payload)], message, level, payload.fields())


# The episode's own events and the payload each carries, written and read as these types.
PAYLOADS: dict[EventType, type[EpisodeFact]] = {
    EventType.EPISODE_START: EpisodeStarted,
    EventType.EPISODE_RESUMED: EpisodeResumed,
    EventType.TURN_COMPLETE: TurnCompleted,
    EventType.EPISODE_END: EpisodeEnded,
    EventType.BUDGET_REACHED: BudgetReached,
}
TYPE_OF = {payload: kind for kind, payload in PAYLOADS.items()}


# Beside its fields, every line of an events log says these of its event (its envelope).
LEVEL_KEY, MESSAGE_KEY, EPISODE_KEY = "level", "message", "episode_id"


@dataclass(frozen=True)
class LoggedEvent:
    """One line of an episode's events log, read back: its type (None for a span's line, or a
    type this version does not know), every field it was written with, and, for the
    episode's own events, its typed payload (a line of one of those types that does not
    hold its payload: KeyError, TypeError or ValueError where the LoggedEvent is made)."""

    type: EventType | None
    fields: Mapping[str, Any]
    payload: EpisodeFact | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        kind = PAYLOADS.get(self.type) if self.type is not None else None
        if kind is not None:
            object.__setattr__(self, "payload", kind.from_fields(self.fields))

    @property
    def level(self) -> str | None:
        return self.fields.get(LEVEL_KEY)

    @property
    def message(self) -> str:
        return str(self.fields.get(MESSAGE_KEY) or "")

    @property
    def episode_id(self) -> str | None:
        return self.fields.get(EPISODE_KEY)

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]
