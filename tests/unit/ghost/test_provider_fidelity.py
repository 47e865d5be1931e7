"""MCP-Ghost on every provider against the strict peers (issue 12): the run endings that ask
for a final answer without tools, and backtracking that marks a user message per backtrack.

Real MCP server processes (the fault server), the real adapters, each provider's peer.
"""

from __future__ import annotations

import httpx
import pytest

from tests.support.fault_server import FAULT_TOOLS
from tests.support.ghost_calls import marker, servers
from tests.support.llm_peers import ProviderPeer, peer_for
from zork_mcp.adapters.llm.fake import text_reply, tool_calls_reply
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.ghost import mcp_ghost
from zork_mcp.ghost.run import MAX_BACKTRACKS

pytestmark = pytest.mark.slow
PROTOCOLS = {
    "openai": "openai",
    "openrouter": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
}
# OpenAI's Responses API: the registry picks it for GPT-6.1 Sol (chat takes no tools for it).
RESPONSES_MODEL = "gpt-6.1-sol"
ENDINGS = {
    "max_iterations": [tool_calls_reply(("faults.echo", {"text": t})) for t in "ab"],
    "dead_server": [tool_calls_reply(("faults.crash", {}))],
    "empty_reply": [tool_calls_reply(("faults.fail", {})), text_reply("")],
}


async def run(provider: str, peer: ProviderPeer, **options):
    async with httpx.AsyncClient(transport=peer.mock_transport()) as client:
        return await mcp_ghost(
            server_config=servers(marker()),
            system_prompt="Use the tools.",
            provider=provider,
            api_key=peer.api_key,
            user_prompt="Do it.",
            http_client=client,
            **options,
        )


@pytest.mark.parametrize("ending", sorted(ENDINGS))
@pytest.mark.parametrize("provider", sorted(PROTOCOLS))
async def test_the_final_answer_without_tools_is_accepted(provider, ending):
    replies = [*ENDINGS[ending], text_reply("my final answer")]
    peer = peer_for(PROTOCOLS[provider], replies, FAULT_TOOLS)
    result = await run(provider, peer, max_iterations=2, enable_backtracking=False)
    assert peer.rejections == [] and peer.replies == []
    assert result.final_result == "my final answer"
    assert not any("HTTP 400" in error.error for error in result.errors)


@pytest.mark.parametrize("ending", sorted(ENDINGS))
async def test_the_final_answer_without_tools_is_accepted_through_responses(ending):
    replies = [*ENDINGS[ending], text_reply("my final answer")]
    peer = peer_for("openai-responses", replies, FAULT_TOOLS)
    result = await run("openai", peer, model=RESPONSES_MODEL, max_iterations=2)
    assert peer.rejections == [] and peer.replies == []
    assert result.final_result == "my final answer"
    assert all(request["model"] == RESPONSES_MODEL for request in peer.requests)


async def test_the_chat_api_is_refused_for_a_model_that_takes_tools_only_through_responses():
    peer = peer_for("openai-responses", [text_reply("never")], FAULT_TOOLS)
    with pytest.raises(ConfigurationError, match="only through the Responses API"):
        await run("openai", peer, model=RESPONSES_MODEL, openai_api="chat")
    assert peer.requests == []


async def test_the_chat_api_can_be_chosen_for_gpt_6_luna_and_back():
    chat = peer_for("openai", [tool_calls_reply(("faults.echo", {"text": "a"})), text_reply("ok")])
    result = await run("openai", chat, model="gpt-6-luna", openai_api="chat")
    assert chat.rejections == [] and result.final_result == "ok"
    responses = peer_for("openai-responses", [text_reply("ok")], FAULT_TOOLS)
    result = await run("openai", responses, model="gpt-6-luna", openai_api="responses")
    assert responses.rejections == [] and result.final_result == "ok"


@pytest.mark.parametrize("provider", ["anthropic", "openrouter"])
async def test_every_backtrack_prompt_marked_still_fits_the_breakpoint_limit(provider):
    unknown = [tool_calls_reply(("faults.unknown_tool", {})) for _ in range(MAX_BACKTRACKS + 1)]
    peer = peer_for(PROTOCOLS[provider], [*unknown, text_reply("stuck")], FAULT_TOOLS)
    result = await run(provider, peer)
    assert result.execution_metadata.backtrack_count == MAX_BACKTRACKS
    assert peer.rejections == [] and result.final_result == "stuck"
    assert str(peer.requests[-1]).count("cache_control") == 4
