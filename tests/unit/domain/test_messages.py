"""The messages the loop sends, the requests and responses it refuses, and token usage."""

from __future__ import annotations

import re

import pytest

from zork_mcp.domain.messages import (
    FunctionCall,
    LLMRequest,
    LLMResponse,
    ResponseFormat,
    ToolCall,
    Usage,
    assistant_tool_calls_message,
    initial_messages,
    user_message,
)


def test_memories_follow_the_game_state_after_a_blank_line():
    _, user = initial_messages("sys", "West of House", "You saw a lamp.")
    assert user["content"] == "West of House\n\nYou saw a lamp."
    assert initial_messages("sys", "West of House")[1]["content"] == "West of House"


def test_an_assistant_tool_call_message_is_in_openai_form():
    call = ToolCall("c1", FunctionCall("box.echo", '{"a": 1}'))
    message = assistant_tool_calls_message(LLMResponse.of("thinking", [call]))
    assert message == {
        "role": "assistant",
        "content": "thinking",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "box.echo", "arguments": '{"a": 1}'},
            }
        ],
    }


CALL = ToolCall("c1", FunctionCall("box.echo", "{}"))
TOOL = {"type": "function", "function": {"name": "box.echo", "parameters": {}}}


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: LLMRequest(
                (user_message("u"),), tools=(TOOL,), response_format=ResponseFormat("a", {})
            ),
            "response_format is only for calls without tools (requirement 4.6)",
        ),
        (lambda: LLMRequest((user_message("u"),), tool_choice="auto"), "tool_choice needs tools"),
        (lambda: LLMResponse(None, tool_calls=()), "tool_calls must be None or non-empty"),
        (
            lambda: LLMResponse("text", tool_calls=(CALL,)),
            "a response with tool_calls has content None (requirement 4.3)",
        ),
    ],
)
def test_a_request_or_response_that_breaks_a_rule_is_refused_naming_the_rule(build, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        build()


def test_usage_adds_up_every_count_and_the_costs_that_were_reported():
    first = Usage(100, 20, cached_tokens=50, cost_usd=0.25, reasoning_tokens=7)
    second = Usage(10, 2, cached_tokens=5, cost_usd=None, reasoning_tokens=3)
    assert first + second == Usage(110, 22, cached_tokens=55, cost_usd=0.25, reasoning_tokens=10)
    assert (second + first).cost_usd == 0.25
    assert (first + first).cost_usd == 0.5
    assert (second + second).cost_usd is None, "no cost reported is not a cost of zero"
    assert (first + second).total_tokens == 132
