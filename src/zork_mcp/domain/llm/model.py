"""A run's model, resolved once: which provider serves it, its id there, the API that takes
its tools, and what the provider registry knows of it (its profile).

The edges (the CLI, a sweep file, an Inspect task, MCP-Ghost) each parse what their user
wrote into one `ResolvedModel` through the registry (`builders/providers.py`, the only table
of provider knowledge); every other module reads this value and looks nothing up again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from zork_mcp.domain.tools.model_support import NoTools
from zork_mcp.domain.tools.tool_offer import DEFINITION_BUDGET_CHARS, OfferLimits

OpenAIApi = Literal["chat", "responses"]
OPENAI_APIS: tuple[OpenAIApi, ...] = ("chat", "responses")


@dataclass(frozen=True)
class CacheRule:
    """How a provider's prompt cache serves a prompt's prefix (each provider's prompt-caching
    page, as of 2026-11): a hit from `minimum` tokens, in whole `step`s; with `writes`, what
    follows the hit is written to the cache at its write price (Anthropic's 1.25x)."""

    minimum: int
    step: int = 1
    writes: bool = False


@dataclass(frozen=True)
class ModelProfile:
    """What the registry knows of a model at its provider."""

    refused_tools: NoTools | None  # the registry's rule that it takes no tools (None: it does)
    cache: CacheRule  # how the provider's prompt cache serves its prompts
    price_list: str | None  # the provider's name in the price list (None: no list prices it)
    telemetry_name: str  # the provider as OpenTelemetry's gen_ai.provider.name writes it
    max_tools: int | None = None  # the most tools one request may offer (None: no count)
    reasoning: bool = False  # the Responses API sends its reasoning back, encrypted
    chat_tools_effort: str | None = None  # chat completions take its tools only at this effort

    @property
    def takes_tools(self) -> bool:
        return self.refused_tools is None


@dataclass(frozen=True)
class ResolvedModel:
    """`provider:name`, served through `api` (None: the provider has one API)."""

    provider: str  # the registry's name for the provider
    name: str  # the model's id, as its provider is sent it
    api: OpenAIApi | None
    profile: ModelProfile

    def __str__(self) -> str:
        return f"{self.provider}:{self.name}"

    def offer_limits(self, definition_budget_chars: int = DEFINITION_BUDGET_CHARS) -> OfferLimits:
        """What one request for it may offer (README: "What a request offers"), and whether
        it takes tools at all."""
        return OfferLimits(
            self.profile.max_tools,
            definition_budget_chars,
            self.provider,
            self.profile.refused_tools,
        )
