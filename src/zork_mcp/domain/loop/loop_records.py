"""What one run of the tool loop did: its state while it runs, its records and its outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, TypeVar

from zork_mcp.domain.llm.messages import LLMResponse, Message, Usage
from zork_mcp.domain.loop.batch_policy import CallOutcome
from zork_mcp.domain.tools.tool_result import ToolCallResult

A = TypeVar("A")


class ExitReason(Enum):
    CONTENT = "content"
    NO_TOOLS = "no_tools"
    MAX_ITERATIONS = "max_iterations"
    UNEXPECTED_STATE = "unexpected_state"
    SESSION_BROKEN = "session_broken"
    FAILED = "failed"  # an error (the LLM's, the session's) ended the run: see so_far()


@dataclass(frozen=True)
class ToolCallRecord:
    """One entry of the tool chain: what was called, how it went, what it returned."""

    iteration: int
    call_id: str
    tool_name: str
    arguments: Mapping[str, Any] | None
    outcome: CallOutcome
    result: ToolCallResult
    duration_seconds: float = 0.0
    reasoning: str | None = None
    opened_circuit: bool = False


@dataclass(frozen=True)
class Backtrack:
    """After this iteration's failures the LLM was asked for a different approach."""

    iteration: int
    call_ids: tuple[str, ...]
    prompt: str


@dataclass(frozen=True)
class LoopOutcome(Generic[A]):
    """Everything a turn decided and how: used by the agent and by MCP-Ghost alike."""

    answer: A  # the final content as the run's policy reads it
    iterations: int
    llm_calls: int
    exit_reason: ExitReason
    tool_chain: tuple[ToolCallRecord, ...]
    usage: Usage
    final_content: str | None
    messages: tuple[Message, ...] = field(repr=False)
    backtracks: tuple[Backtrack, ...] = ()
    llm_seconds: float = 0.0  # waiting for the LLM's answers, all calls together

    @property
    def forced_final(self) -> bool:
        return self.exit_reason is not ExitReason.CONTENT


@dataclass
class LoopState:
    """A run's mutable state: the history it extends, its tool chain, backtracks and counts."""

    messages: list[Message] = field(default_factory=list)
    chain: list[ToolCallRecord] = field(default_factory=list)
    backtracks: list[Backtrack] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    llm_calls: int = 0
    iterations: int = 0
    llm_seconds: float = 0.0

    def count(self, response: LLMResponse, seconds: float) -> None:
        self.llm_calls += 1
        self.usage = self.usage + (response.usage or Usage())
        self.llm_seconds += seconds

    def outcome(self, answer: A, reason: ExitReason, content: str | None) -> LoopOutcome[A]:
        return LoopOutcome(
            answer=answer,
            iterations=self.iterations,
            llm_calls=self.llm_calls,
            exit_reason=reason,
            tool_chain=tuple(self.chain),
            usage=self.usage,
            final_content=content,
            messages=tuple(self.messages),
            backtracks=tuple(self.backtracks),
            llm_seconds=self.llm_seconds,
        )
