"""Budgets that stop a run: at most so many dollars or tokens of LLM calls.

No call starts that what is left cannot cover at its estimate (`SpendGuard.allow`), so a run
ends past its budget by no more than its last call's misjudgement (the call's actual cost
less its estimate); the estimate is the request's own size, as `--dry-run` measures it
(`request_tokens`, the one measure in `domain/llm/tokens.py`), and the most output any call
of the run has taken so far (at least `OUTPUT_TOKENS`). Where a call is refused the episode
ends at the turn boundary before it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from zork_mcp.domain.llm.messages import LLMRequest, Usage
from zork_mcp.domain.llm.tokens import request_tokens

OUTPUT_TOKENS = 200  # an answer's tokens until the run has seen one: an action, its reasons

Price = Callable[[int, int], float | None]  # USD for (input, output) tokens; None: unpriced


# What a budget without a token limit has left: more than any run spends (Spend.tokens is an
# int, so not math.inf).
UNLIMITED_TOKENS = 1 << 62


@dataclass(frozen=True)
class Spend:
    """Tokens and dollars: spent, left, or a call's estimate (`usd` None: not priced)."""

    tokens: int = 0
    usd: float | None = None

    def __add__(self, other: Spend) -> Spend:
        usd = None if self.usd is None and other.usd is None else (self.usd or 0) + (other.usd or 0)
        return Spend(self.tokens + other.tokens, usd)

    @classmethod
    def of(cls, usage: Usage) -> Spend:
        return cls(usage.total_tokens, usage.cost_usd)


@dataclass(frozen=True)
class Budget:
    """What a run may spend on LLM calls: dollars, tokens, or both (None: no limit)."""

    usd: float | None = None
    tokens: int | None = None

    def __post_init__(self) -> None:
        if self.usd is not None and not self.usd > 0:
            raise ValueError(f"a dollar budget must be more than 0, not {self.usd}")
        if self.tokens is not None and self.tokens < 1:
            raise ValueError(f"a token budget must be at least 1, not {self.tokens}")

    @property
    def limits(self) -> bool:
        return self.usd is not None or self.tokens is not None

    def left(self, spent: Spend) -> Spend:
        """What is left after `spent` (a limit it has not got reads as unlimited)."""
        tokens = self.tokens - spent.tokens if self.tokens is not None else UNLIMITED_TOKENS
        usd = self.usd - (spent.usd or 0.0) if self.usd is not None else math.inf
        return Spend(tokens, usd)

    def covers(self, spent: Spend, cost: Spend) -> bool:
        """Whether `cost` fits in what is left after `spent`."""
        left = self.left(spent)
        if cost.tokens > left.tokens:
            return False
        return self.usd is None or (cost.usd is not None and cost.usd <= (left.usd or 0.0))

    def plus(self, spent: Spend) -> Budget:
        """This budget on top of what was spent before it (an episode's allowance, after its
        earlier runs)."""
        return Budget(
            None if self.usd is None else self.usd + (spent.usd or 0.0),
            None if self.tokens is None else self.tokens + spent.tokens,
        )

    def describe(self, spent: Spend | None = None) -> str:
        """'$0.12 of $0.50, 41,200 of 100,000 tokens', or the limits alone."""
        parts = []
        if self.usd is not None:
            of = f"{dollars(spent.usd or 0.0)} of " if spent is not None else ""
            parts.append(f"{of}{dollars(self.usd)}")
        if self.tokens is not None:
            of = f"{spent.tokens:,} of " if spent is not None else ""
            parts.append(f"{of}{self.tokens:,} tokens")
        return ", ".join(parts) or "no limit"


def dollars(usd: float) -> str:
    """A dollar amount as every screen, log and report writes it: four decimals (`$0.0123`,
    `$1.5700`, `$1,234.5000`), so a call's cost and a sweep's read alike and line up; a cost
    too small for them reads `<$0.0001`, never `$0.0000`."""
    if 0 < usd < 0.00005:
        return "<$0.0001"
    return f"${usd:,.4f}"


class BudgetSpent(Exception):  # not an error: the run's end, as its budget says
    """The next LLM call's estimate does not fit in what the budget has left."""

    def __init__(self, budget: Budget, spent: Usage, estimate: Spend) -> None:
        self.budget, self.spent, self.estimate = budget, spent, estimate
        need = Budget(estimate.usd, estimate.tokens or None) if estimate.tokens else budget
        super().__init__(
            f"Budget reached: {budget.describe(Spend.of(spent))} spent, and the next LLM call "
            f"would take about {need.describe()}."
        )


class SpendGuard:
    """An episode's budget, call by call: `allow` before each call, `add` after it;
    `restart` at each turn boundary with the episode's own total so far (which holds the
    runs before a `--resume`)."""

    def __init__(self, budget: Budget, price: Price) -> None:
        self.budget, self._price = budget, price
        self.spent = Usage()
        self._most_output = OUTPUT_TOKENS

    def restart(self, spent: Usage) -> None:
        self.spent = spent

    def estimate(self, request: LLMRequest) -> Spend:
        tokens_in, tokens_out = request_tokens(request), self._most_output
        return Spend(tokens_in + tokens_out, self._price(tokens_in, tokens_out))

    def allow(self, request: LLMRequest) -> None:
        """Raises BudgetSpent when the request's estimate does not fit in what is left."""
        estimate = self.estimate(request)
        if not self.budget.covers(Spend.of(self.spent), estimate):
            raise BudgetSpent(self.budget, self.spent, estimate)

    def add(self, usage: Usage | None) -> None:
        if usage is not None:
            self.spent = self.spent + usage
            self._most_output = max(self._most_output, usage.completion_tokens)
