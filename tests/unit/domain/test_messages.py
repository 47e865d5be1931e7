"""The messages the loop sends, the requests and responses it refuses, and token usage."""

from __future__ import annotations

import re

import pytest

from zork_mcp.domain.llm.messages import (
    AssistantText,
    AssistantToolCalls,
    CachePolicy,
    ContextSummary,
    FunctionCall,
    LLMRequest,
    LLMResponse,
    ResponseFormat,
    SystemMessage,
    ToolCall,
    ToolChoice,
    ToolResultMessage,
    Usage,
    UserMessage,
    assistant_content_message,
    assistant_tool_calls_message,
    initial_messages,
    system_message,
    to_openai_dict,
    tool_message,
    user_message,
)
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolDefinition


def test_memories_follow_the_game_state_after_a_blank_line():
    system, user = initial_messages("sys", "West of House", "You saw a lamp.")
    assert (system, user) == (SystemMessage("sys"), UserMessage("West of House\n\nYou saw a lamp."))
    assert initial_messages("sys", "West of House")[1] == UserMessage("West of House")


def test_an_assistant_tool_call_message_keeps_the_calls_and_their_preamble():
    call = ToolCall("c1", FunctionCall("box.echo", '{"a": 1}'))
    message = assistant_tool_calls_message(LLMResponse.of("thinking", [call]))
    assert message == AssistantToolCalls((call,), preamble="thinking")


def test_a_tool_message_keeps_the_result_itself():
    result = ToolCallResult.failure("boom", {"k": 1})
    assert tool_message("c1", result) == ToolResultMessage("c1", result)
    assert tool_message("c1", result).result is result


def test_an_assistant_tool_calls_message_needs_a_call():
    message = "^an AssistantToolCalls message needs at least one call$"
    with pytest.raises(ValueError, match=message):
        assistant_tool_calls_message(LLMResponse("text"))


def test_every_message_is_an_openai_format_dict_at_the_boundary():
    call = ToolCall("c1", FunctionCall("box.echo", '{"a": 1}'), provider_data={"sig": "s"})
    result = ToolCallResult.success({"k": "é"})
    messages = [
        system_message("sys"),
        user_message("state"),
        ContextSummary("older steps"),
        assistant_tool_calls_message(LLMResponse.of(None, [call])),
        tool_message("c1", result),
        assistant_content_message("north"),
    ]
    assert [to_openai_dict(m) for m in messages] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "state"},
        {"role": "user", "content": "older steps"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "box.echo", "arguments": '{"a": 1}'},
                    "provider_data": {"sig": "s"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": result.to_json()},
        {"role": "assistant", "content": "north"},
    ]


def test_the_default_cache_policy_marks_every_system_and_user_message_and_no_other():
    """Requirement 4.7; a condensed summary, rewritten for every request, is not marked."""
    call = ToolCall("c1", FunctionCall("box.echo", "{}"))
    policy = LLMRequest((user_message("u"),)).cache
    assert policy == CachePolicy()
    marked = [SystemMessage("s"), UserMessage("u"), UserMessage("")]
    unmarked = [
        ContextSummary("older steps"),
        AssistantText("a"),
        AssistantToolCalls((call,)),
        ToolResultMessage("c1", ToolCallResult.success("r")),
    ]
    assert [policy.marks(m) for m in marked] == [True] * len(marked)
    assert [policy.marks(m) for m in unmarked] == [False] * len(unmarked)
    assert not CachePolicy(kinds=()).marks(SystemMessage("s"))


CALL = ToolCall("c1", FunctionCall("box.echo", "{}"))
TOOL = ToolDefinition("box.echo", "", {"type": "object", "properties": {}})


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: LLMRequest(
                (user_message("u"),), tools=(TOOL,), response_format=ResponseFormat("a", {})
            ),
            "response_format is only for calls without tools (requirement 4.6)",
        ),
        (
            lambda: LLMRequest((user_message("u"),), tool_choice=ToolChoice.AUTO),
            "tool_choice needs tools",
        ),
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


OPENAI_TOOL = {"type": "function", "function": {"name": "box.echo", "parameters": {}}}


@pytest.mark.parametrize(
    "build",
    [
        lambda: LLMRequest((user_message("u"),), tools=(OPENAI_TOOL,)),  # type: ignore[arg-type]
        lambda: LLMRequest((user_message("u"),), tools=(TOOL,), tool_choice="auto"),  # type: ignore[arg-type]
        lambda: LLMResponse("done", finish_reason="stop"),  # type: ignore[arg-type]
    ],
)
def test_no_provider_dict_or_loose_string_crosses_the_llm_port(build):
    """The port speaks the domain's types: a provider's tool dict, or a tool choice or finish
    reason as a plain string, is refused where it is made, not misread by an adapter."""
    with pytest.raises(TypeError):
        build()


def test_usage_adds_up_every_count_and_the_costs_that_were_reported():
    first = Usage(100, 20, cached_tokens=50, cost_usd=0.25, reasoning_tokens=7)
    second = Usage(10, 2, cached_tokens=5, cost_usd=None, reasoning_tokens=3)
    assert first + second == Usage(110, 22, cached_tokens=55, cost_usd=0.25, reasoning_tokens=10)
    assert (second + first).cost_usd == 0.25
    assert (first + first).cost_usd == 0.5
    assert (second + second).cost_usd is None, "no cost reported is not a cost of zero"
    assert (first + second).total_tokens == 132
