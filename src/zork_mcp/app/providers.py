"""The provider registry: everything the project knows about each LLM provider, in one place.

The CLI, `zork-mcp eval`, MCP-Ghost and the tests all read `PROVIDERS`. Adding a provider is
one entry here, plus its adapter in zork_mcp.adapters and its peer in tests/support/llm_peers.py
when it brings a new wire protocol (an OpenAI-compatible service needs neither).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Literal

import httpx

from zork_mcp.adapters.anthropic_llm import AnthropicLLM
from zork_mcp.adapters.gemini_llm import GeminiLLM
from zork_mcp.adapters.llm_http import RetryPolicy
from zork_mcp.adapters.openai_compatible import OpenAICompatibleLLM, OpenAIFlavor
from zork_mcp.domain.wire_names import RULES, WireNameRule
from zork_mcp.ports.llm import LLM

WireProtocol = Literal["openai", "anthropic", "gemini"]
AdapterFactory = Callable[..., LLM]  # (client, *, model, api_key, base_url, retry) -> LLM


@dataclass(frozen=True)
class Provider:
    name: str
    protocol: WireProtocol  # picks the tool-name rule here and the peer in the tests
    default_model: str
    key_variables: tuple[str, ...]  # the first one set wins
    base_url: str
    adapter: AdapterFactory
    hosted: bool = True  # a key is required; MCP-Ghost offers the hosted providers (spec 004)

    @property
    def wire_names(self) -> WireNameRule:
        return RULES[self.protocol]

    def key_in(self, environ: Mapping[str, str]) -> str | None:
        return next((environ[name] for name in self.key_variables if environ.get(name)), None)

    def llm(
        self,
        client: httpx.AsyncClient,
        *,
        api_key: str | None,
        model: str | None = None,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> LLM:
        return self.adapter(
            client,
            model=model or self.default_model,
            api_key=api_key,
            base_url=base_url or self.base_url,
            retry=retry,
        )


def _keyed(adapter: type) -> AdapterFactory:
    """Anthropic and Gemini always send a key header; a missing key is sent empty."""

    def build(client: httpx.AsyncClient, *, api_key: str | None, **options: object) -> LLM:
        return adapter(client, api_key=api_key or "", **options)

    return build


# Default models are current, cheap and tool-capable, checked against each provider's model
# and deprecation pages on 2026-11-23 (README: "Default models").
PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            "openrouter",
            "openai",
            "anthropic/claude-haiku-5.5",
            ("OPENROUTER_API_KEY",),
            "https://openrouter.ai/api/v1",
            # OpenRouter passes cache_control on to Anthropic, which honours it.
            partial(OpenAICompatibleLLM, flavor=OpenAIFlavor("openrouter", cache_markers=True)),
        ),
        Provider(
            "openai",
            "openai",
            "gpt-6-luna",
            ("OPENAI_API_KEY",),
            "https://api.openai.com/v1",
            partial(OpenAICompatibleLLM, flavor=OpenAIFlavor("openai", cache_markers=False)),
        ),
        Provider(
            "anthropic",
            "anthropic",
            "claude-haiku-5-5",
            ("ANTHROPIC_API_KEY",),
            "https://api.anthropic.com",
            _keyed(AnthropicLLM),
        ),
        Provider(
            "gemini",
            "gemini",
            "gemini-3.5-flash-lite",
            ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            "https://generativelanguage.googleapis.com",
            _keyed(GeminiLLM),
        ),
        Provider(
            "local",
            "openai",
            "local-model",
            ("LOCAL_LLM_API_KEY",),
            "http://127.0.0.1:8080/v1",
            partial(OpenAICompatibleLLM, flavor=OpenAIFlavor("local", cache_markers=False)),
            hosted=False,
        ),
    )
}
HOSTED = tuple(name for name, p in PROVIDERS.items() if p.hosted)
