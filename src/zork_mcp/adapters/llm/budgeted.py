"""An LLM that starts no call the run's budget cannot cover (`domain/llm/budget.py` holds
the budget and its guard; prices come from `prices.py`)."""

from __future__ import annotations

from zork_mcp.domain.llm.budget import SpendGuard
from zork_mcp.domain.llm.messages import LLMRequest, LLMResponse
from zork_mcp.ports.llm import LLM


class BudgetedLLM:
    """The LLM port over a priced LLM: its guard allows each call before it starts and
    counts what each answer cost."""

    def __init__(self, llm: LLM, guard: SpendGuard) -> None:
        self._llm, self._guard = llm, guard

    @property
    def model(self) -> str:
        return self._llm.model

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self._guard.allow(request)
        response = await self._llm.complete(request)
        self._guard.add(response.usage)
        return response
