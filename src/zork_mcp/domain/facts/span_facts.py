"""What each span says, as typed values the Telemetry port carries.

A span opens with the facts of what it is (a turn, an LLM call, a tool call) and is updated
with what came of it; the type of its opening facts is its kind. The domain writes them
(loop_report, agent_turn); the trace adapters map them by type to OpenTelemetry GenAI
attributes and Langfuse fields, and the logs write them as metadata under their field names
(`metadata_of`), in field order. A renamed field is an AttributeError where it is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zork_mcp.domain.facts.events import SpanKind
from zork_mcp.domain.llm.messages import ToolChoice


@dataclass(frozen=True)
class TurnOpened:
    """The session span of one turn: what the agent may use to decide its command."""

    mcp_enabled: bool
    max_iterations: int
    turn: int


@dataclass(frozen=True)
class TurnDecided:
    iterations_used: int
    tools_called: int
    final_action: str
    tools_offered: bool


@dataclass(frozen=True)
class LLMCalled:
    """One LLM call's generation span: the model and the request settings that matter."""

    model: str
    tools: int
    tool_choice: ToolChoice | None
    forced_final: bool


@dataclass(frozen=True)
class LLMAnswered:
    response_model: str


@dataclass(frozen=True)
class ToolCalled:
    """One tool call's span: which tool of which server, and how long it may take."""

    server_name: str | None
    timeout_seconds: float
    tool_name: str
    call_id: str


@dataclass(frozen=True)
class ToolAnswered:
    is_error: bool
    outcome: str  # a CallOutcome's value
    duration_ms: float


SpanFacts = TurnOpened | TurnDecided | LLMCalled | LLMAnswered | ToolCalled | ToolAnswered


def metadata_of(facts: SpanFacts | None) -> dict[str, Any]:
    """The facts as a log's metadata: field name to value, in field order."""
    return {} if facts is None else dict(vars(facts))  # a dataclass's fields, in their order


def kind_of(facts: SpanFacts | None) -> SpanKind:
    """An LLM call's span is a generation; every other span is a span."""
    return SpanKind.GENERATION if isinstance(facts, LLMCalled) else SpanKind.SPAN
