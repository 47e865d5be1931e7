"""The real HTTP adapter of each wire protocol, pointed at a provider peer."""

from __future__ import annotations

import httpx

from zork_mcp.adapters.anthropic_llm import AnthropicLLM
from zork_mcp.adapters.gemini_llm import GeminiLLM
from zork_mcp.adapters.openai_compatible import OPENROUTER, OpenAICompatibleLLM

MOCK_BASE = "https://provider.peer.invalid"  # the base URL of a peer behind httpx.MockTransport


def build_adapter(protocol: str, client: httpx.AsyncClient, base: str, key: str, retry):
    """The real adapter of this protocol, sending to the peer at `base` with `key`."""
    if protocol == "openai":
        return OpenAICompatibleLLM(
            client,
            model="openai/gpt-4o-mini",
            api_key=key,
            flavor=OPENROUTER,
            base_url=f"{base}/api/v1",
            retry=retry,
        )
    if protocol == "anthropic":
        return AnthropicLLM(
            client, model="claude-haiku-5-5", api_key=key, base_url=base, retry=retry
        )
    return GeminiLLM(client, model="gemini-3.5-flash-lite", api_key=key, base_url=base, retry=retry)
