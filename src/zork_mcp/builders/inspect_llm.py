"""The LLM of an episode played as an Inspect AI task: Inspect's model, called on the loop
Inspect runs the sample on (`zork_mcp.inspect`), the source the run's container prices and
budgets as it does a provider's. Imported only there: it needs the `inspect` extra."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from inspect_ai.model import Model

from zork_mcp.adapters.llm.inspect_model import InspectModelLLM
from zork_mcp.builders.llm import LLMSession
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.ports.llm import LLM

# Inspect's model API names where the registry knows the provider behind them (for what one
# request may offer, and its price list); any other API is held to OpenAI's limits.
REGISTRY_NAMES = {
    "openai": "openai",
    "anthropic": "anthropic",
    "google": "gemini",
    "openrouter": "openrouter",
}


def inspect_llm_session(model: Model, inspect_loop: asyncio.AbstractEventLoop) -> LLMSession:
    """Every turn's LLM: Inspect's `model`, each call run on `inspect_loop` (the container's
    `llm_source`: its `llm_session` prices and budgets it, as it does a provider's)."""

    @asynccontextmanager
    async def session() -> AsyncIterator[LLM]:
        yield InspectModelLLM(model, inspect_loop)

    return session


def registry_model(model: Model) -> tuple[str, str]:
    """The registry's provider for Inspect's `model`, and the model's name as that provider
    and its price list know it (`openai/gpt-4o`: openai's `gpt-4o`; `openrouter/openai/gpt-4o`:
    openrouter's `openai/gpt-4o`). An API the registry does not know keeps its whole name
    (`mockllm/model`), which no price list has."""
    api = str(model).split("/", 1)[0]
    name = REGISTRY_NAMES.get(api)
    if name is None:
        return PROVIDERS["openai"].name, str(model)
    return PROVIDERS[name].name, model.name
