"""The real HTTP adapter of each wire protocol, pointed at a provider peer."""

from __future__ import annotations

import httpx

from zork_mcp.builders.providers import PROVIDERS

MOCK_BASE = "https://provider.peer.invalid"  # the base URL of a peer behind httpx.MockTransport
# The provider each wire protocol is tried through; the peer's path checks match its base URL.
THROUGH = {
    "openai": ("openrouter", "/api/v1"),
    "openai-responses": ("openai", "/v1"),
    "anthropic": ("anthropic", ""),
    "gemini": ("gemini", ""),
}


def build_adapter(protocol: str, client: httpx.AsyncClient, base: str, key: str, retry):
    """The real adapter of this protocol (from the provider registry), sending to `base`."""
    name, path = THROUGH[protocol]
    api = "responses" if protocol == "openai-responses" else None
    provider = PROVIDERS[name]
    model = provider.resolve(api=api)
    return provider.llm(client, model, api_key=key, base_url=f"{base}{path}", retry=retry)
