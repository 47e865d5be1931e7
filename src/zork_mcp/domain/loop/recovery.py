"""What a run does after tool failures: backtrack with the failure in context, open a circuit.

Backtracking (MCP-Ghost): after a batch with failed calls, the LLM is told what failed and
asked for a different approach, at most `max_backtracks` times per run. The circuit breaker
stops calling a tool after `breaker_threshold` consecutive failures of that tool.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

BACKTRACK_PROMPT = "The previous approach failed. {failures}. Please try a different approach."


@dataclass(frozen=True)
class Recovery:
    max_backtracks: int = 0  # 0: failures are only reported in the tool messages
    breaker_threshold: int | None = None  # None: a tool is always called


@dataclass(frozen=True)
class Failure:
    tool_name: str
    error: str


def backtrack_prompt(failures: Iterable[Failure]) -> str:
    listed = "; ".join(f"Tool {f.tool_name} failed: {f.error}" for f in failures)
    return BACKTRACK_PROMPT.format(failures=listed)


class CircuitBreaker:
    """Counts consecutive failures per tool; at the threshold the tool's circuit opens."""

    def __init__(self, threshold: int | None) -> None:
        if threshold is not None and threshold < 1:
            raise ValueError(f"breaker threshold must be at least 1, got {threshold}")
        self._threshold = threshold
        self._failures: Counter[str] = Counter()

    def allows(self, tool: str) -> bool:
        return self._threshold is None or self._failures[tool] < self._threshold

    def failures(self, tool: str) -> int:
        return self._failures[tool]

    def record(self, tool: str, *, succeeded: bool) -> bool:
        """Note a call's result; True when this failure is the one that opens the circuit."""
        if succeeded:
            self._failures[tool] = 0
            return False
        self._failures[tool] += 1
        return self._threshold is not None and self._failures[tool] == self._threshold
