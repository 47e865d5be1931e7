"""The messages the loop sends: the first turn's user message and an assistant's tool calls."""

from __future__ import annotations

from zork_mcp.domain.messages import (
    FunctionCall,
    LLMResponse,
    ToolCall,
    assistant_tool_calls_message,
    initial_messages,
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
