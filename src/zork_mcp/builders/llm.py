"""The LLM port's builder: the agent's turns, a sweep worker's episodes and MCP-Ghost's calls
all get their LLM from `llm_session`, with the run's retry policy and the process's rate gate;
every run's LLM, an Inspect episode's model too, is priced and budgeted by `metered_session`."""

from __future__ import annotations

import functools
import os
import ssl
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

import certifi
import httpx

from zork_mcp.adapters.llm.budgeted import BudgetedLLM
from zork_mcp.adapters.llm.endpoint import RetryNotice, RetryPolicy, rate_gate
from zork_mcp.adapters.llm.prices import PricedLLM, cache_rates, call_price, unpriced_reason
from zork_mcp.builders.providers import PROVIDERS, required_key
from zork_mcp.builders.settings import RunOptions, run_budget
from zork_mcp.domain.episode.estimate import EpisodeEstimate
from zork_mcp.domain.episode.estimate_cost import EstimatedCost, estimate_cost
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.llm.budget import SpendGuard
from zork_mcp.domain.llm.messages import RetryStats
from zork_mcp.domain.llm.model import ResolvedModel
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.ports.llm import LLM

HTTP_TIMEOUT = httpx.Timeout(120.0, connect=10.0)
LLMSession = Callable[[], AbstractAsyncContextManager[LLM]]


@dataclass(frozen=True)
class LLMSettings:
    """Which model a run talks to (resolved once, at its edge), where, and with which key."""

    model: ResolvedModel
    api_key: str | None
    base_url: str | None = None


def llm_settings(options: RunOptions, environ: Mapping[str, str] | None = None) -> LLMSettings:
    """The CLI's (and a sweep episode's) LLM, its key from the environment."""
    key = required_key(
        PROVIDERS[options.model.provider],
        os.environ if environ is None else environ,
        how="or play without a hosted provider: run a local OpenAI-compatible server "
        "(llama.cpp's llama-server, Ollama, vLLM) and pass "
        "--provider local --base-url http://127.0.0.1:8080/v1",
    )
    return LLMSettings(options.model, key, options.base_url)


def llm_session(
    settings: LLMSettings,
    stats: RetryStats,
    client: httpx.AsyncClient | None = None,
    on_retry: Callable[[RetryNotice], None] | None = None,
    guard: SpendGuard | None = None,
) -> LLMSession:
    """The provider's LLMs (`provider_session`), each priced and, with a `guard`, within the
    run's budget (`metered_session`)."""
    own = provider_session(settings, stats, client, on_retry)
    return metered_session(own, settings.model, guard)


def provider_session(
    settings: LLMSettings,
    stats: RetryStats,
    client: httpx.AsyncClient | None = None,
    on_retry: Callable[[RetryNotice], None] | None = None,
) -> LLMSession:
    """The provider's own LLMs over `client` (MCP-Ghost's caller's), else each over an httpx
    client of its own that lives inside the session's event loop (the agent opens one per
    turn).

    The TLS context is the process's (`tls_context`). The retry policy is the run's: its
    counts, the process's rate gate for the provider, and whom to tell before a retry's wait
    (`on_retry`: the CLI's display).
    """
    provider = PROVIDERS[settings.model.provider]
    gate = rate_gate(provider.name, settings.base_url or provider.base_url)
    retry = RetryPolicy(gate=gate, stats=stats, notify=on_retry)
    tls = tls_context() if client is None else None

    @asynccontextmanager
    async def session() -> AsyncIterator[LLM]:
        if client is not None:
            yield _llm(settings, client, retry)
            return
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT, verify=tls) as own:
            yield _llm(settings, own, retry)

    return session


def metered_session(
    session: LLMSession, model: ResolvedModel, guard: SpendGuard | None = None
) -> LLMSession:
    """Every LLM of `session` (a provider's, or Inspect's model) with its every answer priced
    at `model`'s price list (adapters/llm/prices.py) and, with a `guard`, starting no call
    the run's budget cannot cover: the one chain every run's LLM is called through."""
    prices = model.profile.price_list

    @asynccontextmanager
    async def metered() -> AsyncIterator[LLM]:
        async with session() as llm:
            priced = PricedLLM(llm, prices)
            yield priced if guard is None else BudgetedLLM(priced, guard)

    return metered


_TLS_LOCK = threading.Lock()


def tls_context() -> ssl.SSLContext:
    """One for every client in the process: building one costs ~20 ms of CPU (certifi's
    bundle parsed), once an episode when each session built its own; a sweep worker plays
    many episodes, each on a thread of its own, hence the lock (functools.cache would let
    the first ones each build theirs). An SSLContext is shared across threads safely: it
    only makes each connection's SSL object."""
    with _TLS_LOCK:
        return _tls_context()


@functools.cache
def _tls_context() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=certifi.where())


def _llm(settings: LLMSettings, client: httpx.AsyncClient, retry: RetryPolicy) -> LLM:
    """The provider's adapter."""
    provider = PROVIDERS[settings.model.provider]
    return provider.llm(
        client, settings.model, api_key=settings.api_key, base_url=settings.base_url, retry=retry
    )


def spend_guard(options: RunOptions, project: ProjectSettings) -> SpendGuard | None:
    """The run's budget, call by call (None: no limit). A dollar budget needs a model the
    price list knows: else a ConfigurationError names the model, before any call."""
    budget = run_budget(options, project)
    if not budget.limits:
        return None
    model = options.model
    price = call_price(model.profile.price_list, model.name)
    if budget.usd is not None and price is None:
        raise ConfigurationError(
            f"A dollar budget needs a priced model, and {model} is not: "
            f"{unpriced_reason(model.profile.price_list, model.name)}. Give a token budget instead "
            "(--budget-tokens, budget_tokens in [tool.zorkgpt] or the sweep file)."
        )
    return SpendGuard(budget, price or _unpriced)


def _unpriced(input_tokens: int, output_tokens: int) -> float | None:
    return None


def priced_estimate(
    model: ResolvedModel, estimate: EpisodeEstimate
) -> tuple[EstimatedCost | None, str | None]:
    """What an estimate's calls cost at the model's list prices, with and without its
    provider's caching rule; or None and why the model is unpriced."""
    prices = model.profile.price_list
    price = call_price(prices, model.name)
    if prices is None or price is None:
        return None, unpriced_reason(prices, model.name)

    def rates(tokens: int) -> tuple[float, float] | None:
        return cache_rates(prices, model.name, tokens)

    return estimate_cost(estimate, price, rates, model.profile.cache), None
