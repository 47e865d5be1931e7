"""What one run of the tool loop did: its state while it runs, its records and its outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from zork_mcp.domain.agent_response import ParsedAnswer
from zork_mcp.domain.batch_policy import CallOutcome
from zork_mcp.domain.messages import LLMResponse, Message, Usage
from zork_mcp.domain.tool_result import ToolCallResult


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
class LoopOutcome:
    """Everything a turn decided and how: used by the agent and by MCP-Ghost alike."""

    answer: ParsedAnswer | None  # None unless the policy reads an AgentResponse
    iterations: int
    llm_calls: int
    exit_reason: ExitReason
    tool_chain: tuple[ToolCallRecord, ...]
    usage: Usage
    final_content: str | None
    messages: tuple[Message, ...] = field(repr=False)
    backtracks: tuple[Backtrack, ...] = ()

    @property
    def forced_final(self) -> bool:
        return self.exit_reason is not ExitReason.CONTENT

    @property
    def action(self) -> str:
        return self._agent_answer().response.action

    @property
    def reasoning(self) -> str:
        return self._agent_answer().response.thinking

    @property
    def new_objective(self) -> str | None:
        return self._agent_answer().response.new_objective

    @property
    def parse_error(self) -> str | None:
        return self.answer.error if self.answer else None

    def _agent_answer(self) -> ParsedAnswer:
        if self.answer is None:
            raise ValueError("this run's policy does not read an AgentResponse")
        return self.answer

    @property
    def errors(self) -> tuple[str, ...]:
        failures = [r.result.error_message or "" for r in self.tool_chain if r.result.is_error]
        return (*failures, *([self.parse_error] if self.parse_error else []))

    def as_agent_dict(self) -> dict[str, str | None]:
        return {
            "action": self.action,
            "reasoning": self.reasoning,
            "new_objective": self.new_objective,
        }


@dataclass
class LoopState:
    """A run's mutable state: the history it extends, its tool chain, backtracks and counts."""

    messages: list[Message] = field(default_factory=list)
    chain: list[ToolCallRecord] = field(default_factory=list)
    backtracks: list[Backtrack] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    llm_calls: int = 0
    iterations: int = 0

    def count(self, response: LLMResponse) -> None:
        self.llm_calls += 1
        self.usage = self.usage + (response.usage or Usage())

    def outcome(
        self, answer: ParsedAnswer | None, reason: ExitReason, content: str | None
    ) -> LoopOutcome:
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
        )
