"""Every LLM call priced: its usage priced from genai-prices (pydantic's maintained, dated
price data, bundled with the package: no network), in its four parts: input, cached input,
cache writes and output. A provider's own reported cost (OpenRouter's) wins for the total;
its parts are then the price list's split of that total. A call the data cannot price is
`unpriced`, saying why, never 0.

`PricedLLM` wraps any LLM adapter, so every provider's calls are priced in one place;
`budgeted.py`'s `BudgetedLLM` over it starts no call the run's budget cannot cover, and
`domain/episode/estimate_cost.py` prices an estimate with the functions here.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from functools import lru_cache

from genai_prices import Usage as PriceUsage
from genai_prices import calc_price

from zork_mcp.domain.llm.budget import Price
from zork_mcp.domain.llm.messages import CostParts, LLMRequest, LLMResponse, Usage
from zork_mcp.ports.llm import LLM

NO_PRICE_LIST = "a local or self-hosted server: no price list knows what its model costs"


@lru_cache(maxsize=64)
def _rates(provider: str, model: str, input_tokens: int) -> tuple[Decimal, Decimal] | None:
    """USD a token for a cache read and a cache write at this prompt's size (a tier may
    depend on it); None when the model has neither price."""
    try:
        read = calc_price(
            PriceUsage(input_tokens=input_tokens, cache_read_tokens=input_tokens),
            model_ref=model,
            provider_id=provider,
        )
        write = calc_price(
            PriceUsage(input_tokens=input_tokens, cache_write_tokens=input_tokens),
            model_ref=model,
            provider_id=provider,
        )
    except LookupError:
        return None
    return read.input_price / input_tokens, write.input_price / input_tokens


def priced(usage: Usage, provider: str | None, model: str, at: datetime | None = None) -> Usage:
    """`usage` with its cost: the provider's own total if it gave one, the price list's parts
    (and total, if the provider gave none); or `unpriced` with the reason."""
    if provider is None:
        return usage if usage.cost_usd is not None else replace(usage, unpriced=NO_PRICE_LIST)
    counted = PriceUsage(
        input_tokens=usage.prompt_tokens,
        cache_read_tokens=usage.cached_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        output_tokens=usage.completion_tokens,
    )
    try:
        price = calc_price(
            counted, model_ref=model, provider_id=provider, genai_request_timestamp=at
        )
    except LookupError as e:
        if usage.cost_usd is not None:
            return usage
        return replace(usage, unpriced=f"genai-prices has no price for {provider} {model!r} ({e})")
    parts = _parts(price.input_price, price.output_price, usage, provider, model)
    if usage.cost_usd is None:
        return replace(usage, cost_usd=parts.total, cost_parts=parts, unpriced=None)
    scale = usage.cost_usd / parts.total if parts.total else 0.0  # the bill, split as listed
    shares = (parts.input, parts.cached_input, parts.cache_write, parts.output)
    scaled = CostParts(*(share * scale for share in shares))
    return replace(usage, cost_parts=scaled, unpriced=None)


def _parts(
    input_price: Decimal, output_price: Decimal, usage: Usage, provider: str, model: str
) -> CostParts:
    cached = written = Decimal(0)
    if usage.prompt_tokens and (usage.cached_tokens or usage.cache_write_tokens):
        rates = _rates(provider, model, usage.prompt_tokens)
        if rates is not None:
            cached, written = usage.cached_tokens * rates[0], usage.cache_write_tokens * rates[1]
    return CostParts(
        float(input_price - cached - written), float(cached), float(written), float(output_price)
    )


class PricedLLM:
    """An LLM whose every answer's usage is priced (the LLM port, over another adapter)."""

    def __init__(self, llm: LLM, provider: str | None) -> None:
        """`provider`: the price list's name for the provider (None: no price list has it)."""
        self._llm, self._provider = llm, provider

    @property
    def model(self) -> str:
        return self._llm.model

    async def complete(self, request: LLMRequest) -> LLMResponse:
        response = await self._llm.complete(request)
        if response.usage is None:
            return response
        usage = priced(response.usage, self._provider, response.model or self._llm.model)
        return replace(response, usage=usage)


def call_price(provider: str | None, model: str) -> Price | None:
    """USD for a call of so many input and output tokens at `model`'s list price, uncached;
    None when no price list has the model (`unpriced_reason` says why)."""
    if unpriced_reason(provider, model) is not None:
        return None
    assert provider is not None

    def price(input_tokens: int, output_tokens: int) -> float | None:
        usage = PriceUsage(input_tokens=input_tokens, output_tokens=output_tokens)
        try:
            return float(calc_price(usage, model_ref=model, provider_id=provider).total_price)
        except LookupError:
            return None

    return price


def unpriced_reason(provider: str | None, model: str) -> str | None:
    """Why a call of `model` cannot be priced, or None when it can."""
    if provider is None:
        return NO_PRICE_LIST
    try:
        calc_price(PriceUsage(input_tokens=1), model_ref=model, provider_id=provider)
    except LookupError as e:
        return f"genai-prices has no price for {provider} {model!r} ({e})"
    return None


def cache_rates(provider: str, model: str, input_tokens: int) -> tuple[float, float] | None:
    """USD a token for a cache read and a cache write, at a prompt of this size."""
    rates = _rates(provider, model, max(1, input_tokens))
    return None if rates is None else (float(rates[0]), float(rates[1]))
