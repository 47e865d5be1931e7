"""The test guard: no test can reach a real provider by accident."""

import httpx
import pytest

from tests.support.network import PROVIDER_KEYS, RealProviderBlocked
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.domain.llm.messages import LLMRequest, initial_messages


async def test_requests_to_real_hosts_are_refused_before_leaving_the_machine():
    async with httpx.AsyncClient() as client:
        openrouter = PROVIDERS["openrouter"]
        llm = openrouter.llm(client, openrouter.resolve("m"), api_key="k")
        with pytest.raises(RealProviderBlocked, match=r"openrouter\.ai"):
            await llm.complete(LLMRequest(tuple(initial_messages("s", "u"))))


def test_provider_keys_are_not_in_the_test_environment():
    import os

    assert not any(os.environ.get(name) for name in PROVIDER_KEYS)
