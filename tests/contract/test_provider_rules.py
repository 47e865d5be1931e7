"""Every rule in the provider rule table rejects a request that breaks it, as the provider does.

Each rule has one violation here: a valid request for its provider, changed to break exactly
that rule. A rule added to tests/support/provider_rules.py without a violation fails
`test_every_rule_has_a_violation`; a peer that quietly accepts a violation fails its case.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.llm_peers import GeminiPeer, OpenAIResponsesPeer, ProviderPeer, peer_for
from tests.support.provider_rules import RULES, rules_of
from zork_mcp.adapters.llm.fake import text_reply

KEY = ProviderPeer.api_key
PATHS = {
    "openai": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "gemini": "/v1beta/models/gemini-3.5-flash-lite:generateContent",
}
HEADERS = {
    "openai": {"authorization": f"Bearer {KEY}"},
    "openai-responses": {"authorization": f"Bearer {KEY}"},
    "anthropic": {"x-api-key": KEY, "anthropic-version": "2023-06-01"},
    "gemini": {"x-goog-api-key": KEY},
}
TOOL_SCHEMA = {
    "type": "object",
    "properties": {"action": {"type": "string"}},
    "required": ["action"],
}
CALL = {"id": "call_1", "type": "function", "function": {"name": "play", "arguments": "{}"}}
VALID = {
    "openai": {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You play Zork."},
            {"role": "user", "content": "West of House"},
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": "{}"},
        ],
        "tools": [{"type": "function", "function": {"name": "play", "parameters": TOOL_SCHEMA}}],
        "tool_choice": "auto",
    },
    "openai-responses": {
        "model": "gpt-6.1-sol",
        "input": [
            {"type": "message", "role": "system", "content": "You play Zork."},
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "West of House"}],
            },
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc-1"},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "play",
                "arguments": "{}",
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "{}"},
        ],
        "tools": [{"type": "function", "name": "play", "parameters": TOOL_SCHEMA, "strict": False}],
        "tool_choice": "auto",
        "store": False,
        "include": ["reasoning.encrypted_content"],
    },
    "anthropic": {
        "model": "claude-haiku-5-5",
        "max_tokens": 64,
        "system": [{"type": "text", "text": "You play Zork."}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "West of House"}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "play", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
            },
        ],
        "tools": [{"name": "play", "description": "", "input_schema": TOOL_SCHEMA}],
        "tool_choice": {"type": "auto"},
    },
    "gemini": {
        "contents": [
            {"role": "user", "parts": [{"text": "West of House"}]},
            {
                "role": "model",
                "parts": [
                    {
                        "functionCall": {"name": "play", "id": "c1", "args": {}},
                        "thoughtSignature": "sig-1",
                    }
                ],
            },
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "play", "id": "c1", "response": {}}}],
            },
        ],
        "tools": [{"functionDeclarations": [{"name": "play", "parameters": TOOL_SCHEMA}]}],
    },
}
Body = dict[str, Any]


def _functions(body: Body) -> list[dict[str, Any]]:
    return [tool["function"] for tool in body["tools"]]


def _messages(body: Body) -> list[Body]:
    return body["messages"]


def _items(body: Body) -> list[Body]:
    return body["input"]


def _json_schema_text(body: Body, format_: Body) -> None:
    body.pop("tools"), body.pop("tool_choice")
    body["text"] = {"format": format_}


def _openai_unanswered(body: Body) -> None:
    body["messages"].pop()


def _anthropic_cache(body: Body) -> None:
    marker = {"cache_control": {"type": "ephemeral"}}
    body["system"] = [{"type": "text", "text": f"part {i}", **marker} for i in range(5)]


def _gemini_parts(body: Body) -> list[Body]:
    return body["contents"][1]["parts"]


VIOLATIONS: dict[str, Callable[[Body, dict[str, str]], None]] = {
    "openai.api_key": lambda b, h: h.update(authorization="Bearer wrong"),
    "openai.required_fields": lambda b, h: b.pop("model"),
    "openai.message_role": lambda b, h: _messages(b)[0].update(role="narrator"),
    "openai.message_content": lambda b, h: _messages(b)[1].update(content=None),
    "openai.tool_name": lambda b, h: b["tools"][0]["function"].update(name="game.play"),
    "openai.tools_count": lambda b, h: b.update(tools=b["tools"] * 129),
    "openai.tool_description": lambda b, h: _functions(b)[0].update(description="d" * 1025),
    "openai.tool_choice_needs_tools": lambda b, h: b.pop("tools"),
    "openai.tools_without_reasoning": lambda b, h: b.update(model="gpt-6-luna"),
    "openai.tool_call_id": lambda b, h: _messages(b)[2]["tool_calls"][0].update(id=""),
    "openai.tool_call_fields": lambda b, h: _messages(b)[2]["tool_calls"][0].update(
        provider_data={"thoughtSignature": "x"}
    ),
    "openai.tool_calls_answered": lambda b, h: _openai_unanswered(b),
    "openai.tool_message_follows_call": lambda b, h: _messages(b)[3].update(tool_call_id="nope"),
    "openai.response_format": lambda b, h: (
        b.pop("tools"),
        b.pop("tool_choice"),
        b.update(response_format={"type": "json_object_schema"}),
    ),
    "openai.strict_schema": lambda b, h: (
        b.pop("tools"),
        b.pop("tool_choice"),
        b.update(
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "answer", "strict": True, "schema": TOOL_SCHEMA},
            }
        ),
    ),
    "openai.cache_breakpoints": lambda b, h: _messages(b).__setitem__(
        0,
        {
            "role": "system",
            "content": [
                {"type": "text", "text": f"{i}", "cache_control": {"type": "ephemeral"}}
                for i in range(5)
            ],
        },
    ),
    "openai.effort_none_unsupported": lambda b, h: b.update(
        model="gpt-6-astra", reasoning_effort="none"
    ),
    "openai.responses_only_model": lambda b, h: b.update(model="gpt-5.1-codex"),
    "responses.api_key": lambda b, h: h.update(authorization="Bearer wrong"),
    "responses.required_fields": lambda b, h: b.pop("input"),
    "responses.unknown_parameter": lambda b, h: b.update(max_tokens=64),
    "responses.moved_parameter": lambda b, h: b.update(reasoning_effort="none"),
    "responses.tool_shape": lambda b, h: b["tools"].__setitem__(
        0, {"type": "function", "function": {"name": "play", "parameters": TOOL_SCHEMA}}
    ),
    "responses.tool_name": lambda b, h: b["tools"][0].update(name="game.play"),
    "responses.input_role": lambda b, h: _items(b)[1].update(role="tool"),
    "responses.content_type": lambda b, h: _items(b)[1].update(role="assistant"),
    "responses.call_output_matches": lambda b, h: _items(b)[4].update(call_id="call_9"),
    "responses.call_answered": lambda b, h: _items(b).pop(),
    "responses.reasoning_before_call": lambda b, h: _items(b).pop(2),
    "responses.reasoning_followed": lambda b, h: _items(b).append(dict(_items(b)[2])),
    "responses.reasoning_not_stored": lambda b, h: _items(b)[2].pop("encrypted_content"),
    "responses.encrypted_content": lambda b, h: _items(b)[2].update(encrypted_content="forged"),
    "responses.previous_response": lambda b, h: b.update(previous_response_id="resp_1"),
    "responses.text_format": lambda b, h: _json_schema_text(
        b, {"type": "json_schema", "json_schema": {"name": "answer", "schema": TOOL_SCHEMA}}
    ),
    "responses.strict_schema": lambda b, h: _json_schema_text(
        b, {"type": "json_schema", "name": "answer", "schema": TOOL_SCHEMA, "strict": True}
    ),
    "anthropic.api_key": lambda b, h: h.update({"x-api-key": "wrong"}),
    "anthropic.version_header": lambda b, h: h.pop("anthropic-version"),
    "anthropic.required_fields": lambda b, h: b.pop("max_tokens"),
    "anthropic.message_role": lambda b, h: _messages(b).insert(
        0, {"role": "system", "content": "You play Zork."}
    ),
    "anthropic.non_empty_content": lambda b, h: _messages(b)[0].update(content=[]),
    "anthropic.empty_text": lambda b, h: _messages(b)[0]["content"].append(
        {"type": "text", "text": ""}
    ),
    "anthropic.whitespace_text": lambda b, h: _messages(b)[1]["content"].insert(
        0, {"type": "text", "text": "\n\n"}
    ),
    "anthropic.tool_result_follows_use": lambda b, h: _messages(b)[2].update(
        content=[{"type": "text", "text": "go on"}]
    ),
    "anthropic.tool_result_answers_use": lambda b, h: _messages(b)[2]["content"][0].update(
        tool_use_id="toolu_9"
    ),
    "anthropic.tool_results_first": lambda b, h: _messages(b)[2]["content"].insert(
        0, {"type": "text", "text": "here:"}
    ),
    "anthropic.tool_use_id_unique": lambda b, h: _messages(b)[1]["content"].append(
        {"type": "tool_use", "id": "toolu_1", "name": "play", "input": {}}
    ),
    "anthropic.tools_for_tool_blocks": lambda b, h: (b.pop("tools"), b.pop("tool_choice")),
    "anthropic.tool_definition": lambda b, h: b["tools"][0].update(name="game.play"),
    "anthropic.tool_choice": lambda b, h: b.update(tool_choice={"type": "tool", "name": "x"}),
    "anthropic.cache_breakpoints": lambda b, h: _anthropic_cache(b),
    "gemini.api_key": lambda b, h: h.update({"x-goog-api-key": "wrong"}),
    "gemini.content_role": lambda b, h: b["contents"][0].update(role="assistant"),
    "gemini.empty_text": lambda b, h: b.update(systemInstruction={"parts": [{"text": ""}]}),
    "gemini.call_turn_order": lambda b, h: b["contents"].pop(0),
    "gemini.response_count": lambda b, h: b["contents"][2]["parts"].append(
        {"functionResponse": {"name": "play", "id": "c1", "response": {}}}
    ),
    "gemini.response_matches_call": lambda b, h: b["contents"][2]["parts"][0][
        "functionResponse"
    ].update(id="c9"),
    "gemini.function_name": lambda b, h: b["tools"][0]["functionDeclarations"][0].update(
        name="9play"
    ),
    "gemini.schema_keywords": lambda b, h: b["tools"][0]["functionDeclarations"][0][
        "parameters"
    ].update(additionalProperties=False),
    "gemini.schema_type": lambda b, h: b["tools"][0]["functionDeclarations"][0]["parameters"][
        "properties"
    ]["action"].update(type=["string", "null"]),
    "gemini.object_properties": lambda b, h: b["tools"][0]["functionDeclarations"][0].update(
        parameters={"type": "object", "properties": {}}
    ),
    "gemini.thought_signature": lambda b, h: _gemini_parts(b)[0].pop("thoughtSignature"),
}


def _peer(provider: str) -> ProviderPeer:
    peer = peer_for(provider, [text_reply("ok")])
    if isinstance(peer, GeminiPeer):
        peer.signatures["c1"] = "sig-1"  # as if the peer had sent c1 with this signature
    if isinstance(peer, OpenAIResponsesPeer):  # as if it had sent fc_1 after reasoning rs_1
        peer.issued.reasoning_of_call["fc_1"] = "rs_1"
        peer.issued.encrypted["rs_1"] = "enc-1"
    return peer


def _send(peer: ProviderPeer, body: Body, headers: dict[str, str]) -> tuple[int, Body]:
    status, _, raw = peer.handle(PATHS[peer.protocol], headers, json.dumps(body).encode())
    return status, json.loads(raw)


def test_every_rule_has_a_violation():
    assert set(VIOLATIONS) == set(RULES)


@pytest.mark.parametrize("provider", sorted(VALID))
def test_the_valid_request_is_accepted(provider):
    peer = _peer(provider)
    status, body = _send(peer, copy.deepcopy(VALID[provider]), dict(HEADERS[provider]))
    assert (status, peer.rejections) == (200, [])
    assert not body.get("error")  # a Responses answer has `error: null`


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_a_request_breaking_the_rule_gets_the_providers_error(rule_id):
    rule = RULES[rule_id]
    body, headers = copy.deepcopy(VALID[rule.provider]), dict(HEADERS[rule.provider])
    VIOLATIONS[rule_id](body, headers)
    peer = _peer(rule.provider)
    status, answer = _send(peer, body, headers)
    assert status == rule.status and peer.broken_rules == [rule_id]
    _assert_provider_error_shape(rule.provider, status, answer.get("error", {}))
    assert rule.source.startswith("https://")


def _assert_provider_error_shape(provider: str, status: int, error: Body) -> None:
    assert isinstance(error.get("message"), str) and error["message"]
    if provider == "gemini":
        assert error["code"] == status and error["status"].isupper()
    else:
        assert isinstance(error.get("type"), str)


def test_each_provider_has_its_table():
    sizes = {provider: len(rules_of(provider)) for provider in VALID}
    assert all(size >= 10 for size in sizes.values()), sizes
