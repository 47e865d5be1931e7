import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.provider_exchange import PROTOCOLS, exchange
from tests.support.strategies import json_objects, server_names, tool_names
from zork_mcp.adapters.llm.fake import tool_calls_reply
from zork_mcp.domain.llm.messages import LLMRequest, ToolChoice, initial_messages
from zork_mcp.domain.tools.tool_schema import ToolSpec, tool_definitions


@st.composite
def offered_and_called(draw):
    specs = draw(
        st.lists(
            st.builds(ToolSpec, server_names, tool_names),
            min_size=1,
            max_size=5,
            unique_by=lambda spec: spec.canonical_name,
        )
    )
    names = [spec.canonical_name for spec in specs]
    calls = draw(st.lists(st.tuples(st.sampled_from(names), json_objects), min_size=1, max_size=4))
    return specs, calls


@pytest.mark.parametrize("protocol", PROTOCOLS)
@settings(max_examples=60)
@given(offered_and_called())
def test_p11_tool_calls_parsing(protocol, case):
    """Property 11: Tool Calls Parsing

    *For any* LLM response containing tool_calls, the LLMClient should parse and return tool
    call information correctly.

    Validates: Requirements 4.2
    """
    specs, calls = case
    request = LLMRequest(
        tuple(initial_messages("s", "u")), tool_definitions(specs), ToolChoice.AUTO
    )
    response, _ = exchange(protocol, request, [tool_calls_reply(*calls)])
    assert response.content is None and len(response.tool_calls) == len(calls)
    assert len({call.id for call in response.tool_calls}) == len(calls), "ids tell calls apart"
    for parsed, (name, arguments) in zip(response.tool_calls, calls, strict=True):
        assert parsed.function.name == name
        assert json.loads(parsed.function.arguments) == arguments


@settings(max_examples=30)
@given(offered_and_called())
def test_p11_tool_calls_without_ids_are_told_apart(case):
    """Property 11 for OpenAI-compatible servers that send tool calls without `id`: each call
    still gets its own non-empty id, so every result can answer its call."""
    specs, calls = case
    request = LLMRequest(
        tuple(initial_messages("s", "u")), tool_definitions(specs), ToolChoice.AUTO
    )
    response, _ = exchange("openai", request, [tool_calls_reply(*calls)], call_ids=False)
    ids = [call.id for call in response.tool_calls]
    assert all(ids) and len(set(ids)) == len(calls)
