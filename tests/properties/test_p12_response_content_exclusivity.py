import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import TEXT, json_objects, plain_names
from zork_mcp.adapters.llm.openai.chat import parse_completion
from zork_mcp.domain.llm.messages import FunctionCall, LLMResponse, ToolCall
from zork_mcp.domain.tools.wire_names import WireNameMap

contents = st.none() | st.text(TEXT, max_size=30)
wire_calls = st.lists(st.tuples(plain_names, json_objects), max_size=3)


@given(contents, wire_calls)
def test_p12_response_content_exclusivity(content, calls):
    """Property 12: Response Content Exclusivity

    *For any* LLM response, if tool_calls are present then content should be None, and if
    content is present then tool_calls should be None.

    Validates: Requirements 4.3, 4.4
    """
    names = WireNameMap([f"box.{name}" for name, _ in calls])
    message = {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": names.to_wire(f"box.{name}"), "arguments": json.dumps(args)},
            }
            for i, (name, args) in enumerate(calls)
        ]
        or None,
    }
    data = {"model": "m", "choices": [{"message": message, "finish_reason": "stop"}]}
    response = parse_completion(data, names, "openrouter")
    if calls:
        assert response.content is None and len(response.tool_calls) == len(calls)
        assert response.preamble == (content or None)
    else:
        assert response.tool_calls is None and response.content == content


@given(st.text(TEXT, max_size=20), st.lists(plain_names, min_size=1, max_size=3))
def test_p12_a_response_cannot_hold_both(content, names):
    calls = tuple(ToolCall(f"c{i}", FunctionCall(f"box.{n}", "{}")) for i, n in enumerate(names))
    with pytest.raises(ValueError, match=r"4\.3"):
        LLMResponse(content, tool_calls=calls)
    normalised = LLMResponse.of(content, calls)
    assert normalised.content is None and normalised.tool_calls == calls
