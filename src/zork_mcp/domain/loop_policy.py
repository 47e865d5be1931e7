"""The tool loop's limits and policy: how far a run may go, how it asks for and reads its answer."""

from __future__ import annotations

from dataclasses import dataclass, field

from zork_mcp.domain.agent_response import final_answer_format
from zork_mcp.domain.batch_policy import CallOutcome
from zork_mcp.domain.context_budget import ContextBudget
from zork_mcp.domain.messages import FINAL_ACTION_PROMPT, ResponseFormat
from zork_mcp.domain.recovery import Recovery


@dataclass(frozen=True)
class LoopLimits:
    max_iterations: int = 20
    tool_timeout_seconds: float = 30.0
    max_result_chars: int = 50_000  # a tool message's JSON text, at most
    context_budget: ContextBudget = field(default_factory=ContextBudget)


@dataclass(frozen=True)
class LoopPolicy:
    """How a run asks for its final answer, reads it, and recovers from tool failures."""

    final_format: ResponseFormat | None
    final_prompt: str
    agent_answer: bool  # read the final content as an AgentResponse
    recovery: Recovery = Recovery()


AGENT_POLICY = LoopPolicy(final_answer_format(), FINAL_ACTION_PROMPT, agent_answer=True)
FAILED_OUTCOMES = frozenset(
    {
        CallOutcome.TOOL_ERROR,
        CallOutcome.BAD_ARGUMENTS,
        CallOutcome.UNKNOWN_TOOL,
        CallOutcome.TIMED_OUT,
        CallOutcome.CIRCUIT_OPEN,
    }
)
