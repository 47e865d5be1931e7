"""The tool loop's limits and policy: how far a run may go, how it asks for and reads its answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from zork_mcp.domain.llm.messages import FINAL_ACTION_PROMPT, ResponseFormat
from zork_mcp.domain.loop.agent_response import AgentAnswerReader, ParsedAnswer, final_answer_format
from zork_mcp.domain.loop.batch_policy import CallOutcome
from zork_mcp.domain.loop.context_budget import ContextBudget
from zork_mcp.domain.loop.recovery import Recovery
from zork_mcp.domain.settings import TOOL_TIMEOUT_SECONDS
from zork_mcp.domain.tools.tool_offer import OfferLimits

A = TypeVar("A")


@dataclass(frozen=True)
class LoopLimits:
    max_iterations: int = 20
    tool_timeout_seconds: float = TOOL_TIMEOUT_SECONDS
    max_result_chars: int = 50_000  # a tool message's JSON text, at most
    context_budget: ContextBudget = field(default_factory=ContextBudget)
    offer: OfferLimits = field(default_factory=OfferLimits)  # which tools a request offers


class AnswerReader(Protocol[A]):
    """How a policy turns the LLM's final content into its answer."""

    def read(self, content: str | None) -> A: ...

    def parse_error(self, answer: A) -> str | None:
        """Why the content could not be read as asked (the answer is then a fallback)."""
        ...

    def final_action(self, answer: A) -> str | None:
        """The game command the answer decides, if the policy's answers are commands."""
        ...


@dataclass(frozen=True)
class LoopPolicy(Generic[A]):
    """How a run asks for its final answer, reads it, and recovers from tool failures."""

    final_format: ResponseFormat | None
    final_prompt: str
    answer: AnswerReader[A]
    recovery: Recovery = Recovery()


AGENT_POLICY: LoopPolicy[ParsedAnswer] = LoopPolicy(
    final_answer_format(), FINAL_ACTION_PROMPT, AgentAnswerReader()
)
FAILED_OUTCOMES = frozenset(
    {
        CallOutcome.TOOL_ERROR,
        CallOutcome.BAD_ARGUMENTS,
        CallOutcome.UNKNOWN_TOOL,
        CallOutcome.TIMED_OUT,
        CallOutcome.CIRCUIT_OPEN,
    }
)
