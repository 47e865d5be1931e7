"""The real HTTP LLM adapters against the provider peers, in-process (httpx.MockTransport)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import httpx

from tests.support.llm_peers import ProviderPeer, peer_for
from tests.support.peer_adapters import MOCK_BASE, build_adapter
from zork_mcp.adapters.llm.endpoint import RetryPolicy
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.domain.llm.messages import LLMRequest, LLMResponse

PROTOCOLS = tuple(dict.fromkeys(kind for p in PROVIDERS.values() for kind in p.protocols))


def exchange(
    protocol: str, request: LLMRequest, replies: Sequence[LLMResponse], **peer_options: Any
) -> tuple[LLMResponse, ProviderPeer]:
    """Send one request through the real adapter; the peer checks it and renders the reply."""
    offered = [tool.name for tool in request.tools or ()]
    peer = peer_for(protocol, list(replies), offered, **peer_options)

    async def run() -> LLMResponse:
        async with httpx.AsyncClient(transport=peer.mock_transport()) as client:
            llm = build_adapter(protocol, client, MOCK_BASE, peer.api_key, RetryPolicy(attempts=1))
            return await llm.complete(request)

    response = asyncio.run(run())
    assert peer.rejections == [], peer.rejections
    return response, peer


def wire_tools(peer: ProviderPeer) -> list[dict[str, Any]]:
    return peer.requests[-1].get("tools") or []
