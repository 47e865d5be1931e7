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
from zork_mcp.builders.providers import inspect_model
from zork_mcp.domain.llm.model import ResolvedModel
from zork_mcp.ports.llm import LLM


def inspect_llm_session(model: Model, inspect_loop: asyncio.AbstractEventLoop) -> LLMSession:
    """Every turn's LLM: Inspect's `model`, each call run on `inspect_loop` (the container's
    `llm_source`: its `llm_session` prices and budgets it, as it does a provider's)."""

    @asynccontextmanager
    async def session() -> AsyncIterator[LLM]:
        yield InspectModelLLM(model, inspect_loop)

    return session


def resolved_model(model: Model) -> ResolvedModel:
    """Inspect's `model` as the registry resolves it (`openai/gpt-4o`: openai's gpt-4o)."""
    return inspect_model(str(model))
