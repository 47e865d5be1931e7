"""What an episode's estimated calls cost at a model's list prices, without and with its
provider's prompt caching (`--dry-run`'s dollars). The prices come in as functions (the
price list's, `adapters/llm/prices.py`), the caching rule with the model's profile."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from zork_mcp.domain.episode.estimate import EpisodeEstimate
from zork_mcp.domain.llm.budget import Price
from zork_mcp.domain.llm.model import CacheRule

# USD a token for a cache read and a cache write, at a prompt of so many tokens (None: the
# model has no such price).
CacheRates = Callable[[int], tuple[float, float] | None]


@dataclass(frozen=True)
class EstimatedCost:
    """An estimate's dollars: without caching, and with the provider's caching rule."""

    plain: float
    cached: float


def estimate_cost(
    estimate: EpisodeEstimate, price: Price, cache_rates: CacheRates, rule: CacheRule
) -> EstimatedCost:
    """What `estimate`'s calls cost at `price`; each prompt at its own size's rates (a
    long-context tier costs more), and cached as `rule` says: a hit from its minimum, in
    whole steps, the rest written at the write price where the provider charges writes."""
    output = sum(price(0, estimate.output_per_call) or 0.0 for _ in estimate.prompts)
    plain = cached = output
    for prompt in estimate.prompts:
        uncached = price(prompt.tokens, 0) or 0.0
        rate = uncached / prompt.tokens if prompt.tokens else 0.0
        read, write = cache_rates(prompt.tokens) or (rate, rate)
        hit = prompt.shared // rule.step * rule.step if prompt.shared >= rule.minimum else 0
        rest_rate = write if rule.writes and prompt.tokens >= rule.minimum else rate
        plain += uncached
        cached += hit * read + (prompt.tokens - hit) * rest_rate
    return EstimatedCost(plain, cached)
