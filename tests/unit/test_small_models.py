"""Small pieces the loop and adapters rely on: usage sums, messages, wire names, parsing."""

from __future__ import annotations

from zork_mcp.domain.agent_response import parse_agent_response
from zork_mcp.domain.messages import (
    FunctionCall,
    LLMResponse,
    ToolCall,
    Usage,
    assistant_tool_calls_message,
    initial_messages,
)
from zork_mcp.domain.wire_names import GEMINI_RULE, OPENAI_RULE, WireNameMap, readable_wire_name


def test_usage_adds_every_counter():
    total = Usage(10, 5, 2) + Usage(1, 2, 3)
    assert (total.prompt_tokens, total.completion_tokens, total.cached_tokens) == (11, 7, 5)
    assert total.total_tokens == 18


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


def test_gemini_names_start_with_a_letter_or_underscore():
    assert readable_wire_name("1srv.tool", GEMINI_RULE) == "_1srv.tool"
    assert readable_wire_name("srv.tool", GEMINI_RULE) == "srv.tool"


def test_a_name_of_exactly_the_limit_stays_readable():
    name = "s." + "t" * 61  # 64 characters once the dot becomes "__"
    wire = WireNameMap([name], OPENAI_RULE).to_wire(name)
    assert wire == "s__" + "t" * 61 and len(wire) == 64


def test_a_brace_that_is_not_json_does_not_hide_the_answer_after_it():
    text = 'I weighed {options} first. {"thinking": "t", "action": "open door"}'
    assert parse_agent_response(text).response.action == "open door"
