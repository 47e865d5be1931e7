"""The provider registry: everything the project knows about each LLM provider, in one place.

The CLI, `zork-mcp eval`, MCP-Ghost and the tests all read `PROVIDERS`, and choose a provider
through `provider_named` and `parse_model` (one error text for a wrong name, wherever it was
written), with one default (`DEFAULT_PROVIDER`) and one key lookup (`Provider.key_in`,
`required_key`). Adding a provider is one entry here, plus its adapter in zork_mcp.adapters
and its peer in tests/support/llm_peers.py when it brings a new wire protocol (an
OpenAI-compatible service needs neither).
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
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.wire_names import RULES, WireNameRule
from zork_mcp.ports.llm import LLM

WireProtocol = Literal["openai", "anthropic", "gemini"]
AdapterFactory = Callable[..., LLM]  # (client, *, model, api_key, base_url, retry, wire_names)


@dataclass(frozen=True)
class Provider:
    name: str
    protocol: WireProtocol  # picks the tool-name rule its adapter is given, and its test peer
    default_model: str
    key_variables: tuple[str, ...]  # the first one set wins
    base_url: str
    adapter: AdapterFactory
    hosted: bool = True  # a key is required; MCP-Ghost offers the hosted providers (spec 004)

    @property
    def wire_names(self) -> WireNameRule:
        """The tool names its API accepts: the rule its adapter is built with."""
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
            wire_names=self.wire_names,
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
DEFAULT_PROVIDER = "openrouter"


def provider_named(name: str, *, where: str = "", hosted: bool = False) -> Provider:
    """The provider called `name`; refused with the names to use if there is none (or, with
    `hosted`, if it needs no key: MCP-Ghost offers the hosted providers only)."""
    names = HOSTED if hosted else tuple(PROVIDERS)
    if name not in names:
        place = f" in {where}" if where else ""
        raise ConfigurationError(
            f"Unknown provider {name!r}{place}; choose one of {', '.join(names)}."
        )
    return PROVIDERS[name]


def parse_model(text: str) -> tuple[Provider, str]:
    """`provider:model` (the model may hold colons, e.g. `local:qwen:7b`)."""
    name, sep, model = text.partition(":")
    if not sep or not model:
        raise ConfigurationError(
            f"Model '{text}' is not provider:model (e.g. openrouter:openai/gpt-4o-mini, "
            f"local:my-model); providers: {', '.join(PROVIDERS)}."
        )
    return provider_named(name, where=f"model '{text}'"), model


def required_key(provider: Provider, environ: Mapping[str, str], *, how: str) -> str | None:
    """The provider's key from `environ` (its first variable set); a hosted provider without
    one is refused, saying which variables to set and `how` else to give it."""
    key = provider.key_in(environ)
    if key or not provider.hosted:
        return key
    names = provider.key_variables
    raise ConfigurationError(
        f"No API key for provider '{provider.name}': set {' or '.join(names)} (e.g. `export "
        f"{names[0]}=...`, or a line `{names[0]}=...` in ./.env), {how}."
    )
