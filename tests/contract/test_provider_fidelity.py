"""Regressions of issue 12, each through the real adapter against the strict provider peer.

Every case here was a green test against the old, lenient peers and an HTTP 400 (or a
silently wrong retry) against the real provider.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.contract.http_llm_contract import SleepRecorder
from tests.support.llm_peers import HttpFault, ProviderPeer, peer_for
from tests.support.peer_adapters import MOCK_BASE, build_adapter
from zork_mcp.adapters.llm.endpoint import RetryPolicy
from zork_mcp.adapters.llm.fake import text_reply, tool_calls_reply
from zork_mcp.adapters.llm.messages import limit_cache_markers
from zork_mcp.adapters.llm.openai.responses import parse_response
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.domain.errors import LLMError
from zork_mcp.domain.llm.messages import (
    CachePolicy,
    ContextSummary,
    LLMRequest,
    SystemMessage,
    ToolChoice,
    Usage,
    assistant_tool_calls_message,
    initial_messages,
    tool_message,
    user_message,
)
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolSpec, tool_definitions
from zork_mcp.domain.tools.wire_names import WireNameMap

TOOLS = tool_definitions([ToolSpec("game", "play", {"type": "object", "properties": {}})])
NAMES = ["game.play"]


async def _complete(peer: ProviderPeer, request: LLMRequest, retry: RetryPolicy | None = None):
    async with httpx.AsyncClient(transport=peer.mock_transport()) as client:
        llm = build_adapter(
            peer.protocol, client, MOCK_BASE, peer.api_key, retry or RetryPolicy(attempts=1)
        )
        return await llm.complete(request)


def _answered(messages: list, response) -> list:
    """The history after running every call of `response` (each answered "ok")."""
    results = [tool_message(call.id, ToolCallResult.success("ok")) for call in response.tool_calls]
    return [*messages, assistant_tool_calls_message(response), *results]


# ---- Anthropic: a call without tools while the history holds tool blocks ------------------


async def test_anthropic_final_call_without_tools_declares_them_and_forbids_calls():
    peer = peer_for("anthropic", [tool_calls_reply(("game.play", {})), text_reply("done")])
    first = list(initial_messages("s", "u"))
    response = await _complete(peer, LLMRequest(tuple(first), TOOLS, ToolChoice.AUTO))
    history = [*_answered(first, response), user_message("Answer now, without tools.")]
    final = await _complete(peer, LLMRequest(tuple(history)))
    assert final.content == "done" and peer.rejections == []
    sent = peer.requests[-1]
    assert sent["tool_choice"] == {"type": "none"}
    assert [tool["name"] for tool in sent["tools"]] == ["game__play"]


async def test_anthropic_whitespace_beside_tool_calls_is_not_sent_back():
    replies = [tool_calls_reply(("game.play", {}), preamble="\n\n"), text_reply("done")]
    peer = peer_for("anthropic", replies, NAMES)
    first = list(initial_messages("s", "u"))
    response = await _complete(peer, LLMRequest(tuple(first), TOOLS, ToolChoice.AUTO))
    assert response.preamble == "\n\n"
    final = await _complete(
        peer, LLMRequest(tuple(_answered(first, response)), TOOLS, ToolChoice.AUTO)
    )
    assert final.content == "done" and peer.rejections == []


# ---- cache_control: at most 4 breakpoints, on the system prompt and the latest messages ----


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_every_user_message_marked_still_gives_at_most_four_breakpoints(protocol):
    backtracks = [user_message(f"The previous approach failed ({n}).") for n in range(3)]
    messages = [*initial_messages("system text", "user text"), *backtracks]
    peer = peer_for(protocol, [text_reply("ok")])
    await _complete(peer, LLMRequest(tuple(messages)))
    assert peer.rejections == []
    marked = [text for text, cached in _text_blocks(peer.requests[0]) if cached]
    assert marked == ["system text", *[m.text for m in backtracks]]


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_the_requests_cache_policy_picks_the_breakpoints_on_the_wire(protocol):
    summary = ContextSummary("Summary of 2 earlier step(s)")
    messages = (*initial_messages("system text", "user text"), summary, user_message("latest"))
    peer = peer_for(protocol, [text_reply("ok"), text_reply("ok")])
    await _complete(peer, LLMRequest(messages))
    await _complete(peer, LLMRequest(messages, cache=CachePolicy(kinds=(SystemMessage,))))
    assert peer.rejections == []
    by_default, system_only = (
        [text for text, cached in _text_blocks(body) if cached] for body in peer.requests
    )
    assert by_default == ["system text", "user text", "latest"], "a summary is no breakpoint"
    assert system_only == ["system text"]


def _text_blocks(body: dict) -> list[tuple[str, bool]]:
    system = body.get("system") or []
    blocks = [*system, *(b for m in body["messages"] for b in _parts(m["content"]))]
    return [(b["text"], "cache_control" in b) for b in blocks if b.get("type") == "text"]


def _parts(content) -> list:
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


@given(st.lists(st.booleans(), max_size=12), st.integers(min_value=1, max_value=6))
def test_limit_cache_markers_keeps_the_first_and_the_latest(marks, limit):
    blocks = [{"n": n, **({"cache_control": {}} if m else {})} for n, m in enumerate(marks)]
    marked = [b["n"] for b in blocks if "cache_control" in b]
    limit_cache_markers(blocks, limit)
    kept = [b["n"] for b in blocks if "cache_control" in b]
    if len(marked) <= limit:
        assert kept == marked
    else:
        expected = marked[:1] + marked[len(marked) - (limit - 1) :] if limit > 1 else marked[:1]
        assert kept == expected and len(kept) == limit
    assert [b["n"] for b in blocks] == list(range(len(marks)))


# ---- Gemini: thought signatures go back on their functionCall part -----------------------


async def test_gemini_thought_signature_travels_with_the_call_through_history():
    peer = peer_for(
        "gemini",
        [tool_calls_reply(("game.play", {}), ("game.play", {})), text_reply("done")],
        NAMES,
    )
    first = list(initial_messages("s", "u"))
    response = await _complete(peer, LLMRequest(tuple(first), TOOLS, ToolChoice.AUTO))
    signed = response.tool_calls[0]
    assert signed.provider_data == {"thoughtSignature": peer.signatures[signed.id]}
    assert response.tool_calls[1].provider_data is None  # parallel calls: the first is signed
    final = await _complete(
        peer, LLMRequest(tuple(_answered(first, response)), TOOLS, ToolChoice.AUTO)
    )
    assert final.content == "done" and peer.rejections == []
    parts = peer.requests[-1]["contents"][1]["parts"]
    assert parts[0]["thoughtSignature"] == peer.signatures[signed.id]
    assert "thoughtSignature" not in parts[1]


@pytest.mark.parametrize("protocol", ["openai", "openai-responses"])
async def test_gemini_signature_never_reaches_an_openai_wire(protocol):
    """Chat completions or Responses: a Gemini history goes on without Gemini's data."""
    gemini = peer_for("gemini", [tool_calls_reply(("game.play", {}))], NAMES)
    first = list(initial_messages("s", "u"))
    response = await _complete(gemini, LLMRequest(tuple(first), TOOLS, ToolChoice.AUTO))
    openai = peer_for(protocol, [text_reply("done")], NAMES)
    await _complete(openai, LLMRequest(tuple(_answered(first, response)), TOOLS, ToolChoice.AUTO))
    assert openai.rejections == [] and "thoughtSignature" not in json.dumps(openai.requests)


async def test_gemini_parameterless_tool_is_declared_without_parameters():
    peer = peer_for("gemini", [tool_calls_reply(("game.play", {}))], NAMES)
    response = await _complete(
        peer, LLMRequest(tuple(initial_messages("s", "u")), TOOLS, ToolChoice.AUTO)
    )
    (declaration,) = peer.requests[0]["tools"][0]["functionDeclarations"]
    assert "parameters" not in declaration and peer.rejections == []
    assert json.loads(response.tool_calls[0].function.arguments) == {}


# ---- OpenAI-compatible servers that send tool calls without ids ---------------------------


async def test_tool_calls_without_ids_get_unique_ids_the_next_request_can_answer():
    replies = [tool_calls_reply(("game.play", {}), ("game.play", {})), text_reply("done")]
    peer = peer_for("openai", replies, NAMES, call_ids=False)
    first = list(initial_messages("s", "u"))
    response = await _complete(peer, LLMRequest(tuple(first), TOOLS, ToolChoice.AUTO))
    ids = [call.id for call in response.tool_calls]
    assert all(ids) and len(set(ids)) == 2
    final = await _complete(
        peer, LLMRequest(tuple(_answered(first, response)), TOOLS, ToolChoice.AUTO)
    )
    assert final.content == "done" and peer.rejections == []


# ---- OpenAI: GPT-5.4+ in chat completions takes tools only with reasoning off -------------


async def test_openai_default_model_gets_tools_with_reasoning_off():
    peer = peer_for("openai", [tool_calls_reply(("game.play", {}))], NAMES)
    async with httpx.AsyncClient(transport=peer.mock_transport()) as client:
        openai = PROVIDERS["openai"]
        llm = openai.llm(client, openai.resolve(), api_key=peer.api_key, base_url=f"{MOCK_BASE}/v1")
        await llm.complete(LLMRequest(tuple(initial_messages("s", "u")), TOOLS, ToolChoice.AUTO))
    assert peer.rejections == [] and peer.requests[0]["reasoning_effort"] == "none"


# ---- OpenAI Responses: reasoning goes back as it came, and nothing is stored ----------------


async def _two_calls(peer: ProviderPeer) -> tuple:
    first = list(initial_messages("s", "u"))
    response = await _complete(peer, LLMRequest(tuple(first), TOOLS, ToolChoice.AUTO))
    final = await _complete(
        peer, LLMRequest(tuple(_answered(first, response)), TOOLS, ToolChoice.AUTO)
    )
    return response, final


async def test_responses_reasoning_goes_back_encrypted_before_its_calls_in_order():
    calls = tool_calls_reply(("game.play", {}), ("game.play", {}), preamble="Thinking aloud.")
    peer = peer_for("openai-responses", [calls, text_reply("done")], NAMES)
    response, final = await _two_calls(peer)
    assert final.content == "done" and peer.rejections == []
    sent = [(i["type"], i.get("id")) for i in peer.requests[1]["input"][2:6]]
    assert sent == [
        ("reasoning", "rs_peer0"),
        ("message", "msg_peer0"),
        ("function_call", "fc_peer0_0"),
        ("function_call", "fc_peer0_1"),
    ]
    assert response.preamble == "Thinking aloud."
    assert all(r["store"] is False and "previous_response_id" not in r for r in peer.requests)


async def test_responses_reasoning_without_its_content_is_left_out_with_the_ids_asking_for_it():
    replies = [tool_calls_reply(("game.play", {})), text_reply("done")]
    peer = peer_for("openai-responses", replies, NAMES, encrypt=False)
    _, final = await _two_calls(peer)
    assert final.content == "done" and peer.rejections == []
    sent = peer.requests[1]["input"]
    assert [i["type"] for i in sent[2:]] == ["function_call", "function_call_output"]
    assert "id" not in sent[2]


async def test_responses_usage_counts_cached_and_reasoning_tokens():
    peer = peer_for("openai-responses", [text_reply("ok")])  # 10 in, 5 out
    response = await _complete(peer, LLMRequest(tuple(initial_messages("s", "u"))))
    assert response.usage == Usage(10, 5, cached_tokens=3, reasoning_tokens=2)


@pytest.mark.parametrize(
    ("answer", "finish"),
    [
        ({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}, "length"),
        ({"status": "completed"}, "stop"),
    ],
)
def test_responses_status_becomes_the_finish_reason(answer, finish):
    output = [{"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "e"}]
    response = parse_response({**answer, "output": output}, WireNameMap(NAMES))
    assert (response.content, response.finish_reason) == (None, finish)


def test_a_failed_response_is_an_error_with_its_message():
    failed = {"status": "failed", "error": {"code": "server_error", "message": "it broke"}}
    with pytest.raises(LLMError, match="it broke"):
        parse_response({**failed, "output": []}, WireNameMap(NAMES))


# ---- retries: the provider's stated wait, within a stated budget --------------------------


@pytest.mark.parametrize(
    ("headers", "waited"),
    [({"retry-after": "45"}, 45.0), ({"retry-after-ms": "1500", "retry-after": "2"}, 1.5)],
)
async def test_the_providers_stated_wait_is_kept(headers, waited):
    sleep = SleepRecorder()
    peer = peer_for("openai", [HttpFault(429, "slow down", headers), text_reply("ok")])
    response = await _complete(
        peer, LLMRequest(tuple(initial_messages("s", "u"))), RetryPolicy(sleep=sleep)
    )
    assert response.content == "ok" and sleep.delays == [waited]


async def test_a_wait_beyond_the_budget_is_not_started_and_the_error_says_why():
    sleep = SleepRecorder()
    peer = peer_for("anthropic", [HttpFault(429, "slow down", {"retry-after": "600"})])
    policy = RetryPolicy(attempts=4, wait_seconds=120, sleep=sleep)
    with pytest.raises(LLMError) as caught:
        await _complete(peer, LLMRequest(tuple(initial_messages("s", "u"))), policy)
    message = str(caught.value)
    assert sleep.delays == [] and len(peer.requests) == 1
    assert "asked to wait 600 s" in message and "4 attempts, 120 s of waiting" in message


async def test_retries_stop_when_the_budget_is_spent():
    sleep = SleepRecorder()
    faults = [HttpFault(503, "busy", {"retry-after": "50"}) for _ in range(3)]
    peer = peer_for("gemini", faults)
    policy = RetryPolicy(attempts=4, wait_seconds=120, sleep=sleep)
    with pytest.raises(LLMError, match=r"after 3 attempts.*retry budget"):
        await _complete(peer, LLMRequest(tuple(initial_messages("s", "u"))), policy)
    assert sleep.delays == [50.0, 50.0]


# ---- default models: current, and stated in the docs --------------------------------------

# Shut down or retired by 2026-11-23, per the providers' deprecation pages:
# platform.claude.com/docs/en/about-claude/model-deprecations,
# ai.google.dev/gemini-api/docs/deprecations, developers.openai.com/api/docs/deprecations.
RETIRED = {
    "claude-3-5-haiku-latest",
    "claude-3-5-haiku-20241022",
    "gemini-2.0-flash",
    "gpt-3.5-turbo",
    "gpt-4",
    "gpt-4-turbo",
    "o3-mini",
    "o4-mini",
}
# Deprecated with a shutdown date, or (Claude Haiku 4.5) legacy with a successor named.
DEPRECATED = {"gpt-4o-mini", "gpt-4.1-mini", "gpt-5-mini", "gemini-2.5-flash", "claude-haiku-4-5"}


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_the_default_model_is_neither_retired_nor_deprecated(provider):
    bare = PROVIDERS[provider].default_model.rsplit("/", 1)[-1]
    assert bare not in RETIRED | DEPRECATED


def test_the_docs_state_each_default_and_when_it_was_checked():
    page = (Path(__file__).resolve().parents[2] / "docs" / "providers.md").read_text()
    section = page.split("## Default models", 1)[1].split("##", 1)[0]
    assert "2026-11-23" in section
    for name, provider in PROVIDERS.items():
        assert f"| `{name}` | `{provider.default_model}` |" in section


# ---- an empty system prompt (MCP-Ghost accepts one) ----------------------------------------


@pytest.mark.parametrize("protocol", ["openai", "anthropic", "gemini"])
async def test_an_empty_system_prompt_is_left_out_not_sent_empty(protocol):
    peer = peer_for(protocol, [text_reply("ok")])
    response = await _complete(peer, LLMRequest(tuple(initial_messages("", "West of House"))))
    assert response.content == "ok" and peer.rejections == []
