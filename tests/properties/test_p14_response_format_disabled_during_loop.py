import pytest
from hypothesis import given

from tests.support.scripts import offered_requests, play, scripts
from tests.support.strategies import plain_names
from zork_mcp.domain.llm.messages import LLMRequest, ToolChoice, user_message
from zork_mcp.domain.loop.agent_response import final_answer_format
from zork_mcp.domain.tools.tool_schema import ToolDefinition


@given(scripts)
def test_p14_response_format_disabled_during_loop(script):
    """Property 14: Response Format Disabled During Loop

    *For any* LLM call during the tool-calling loop (before max iterations), the response_format
    parameter should be None.

    Validates: Requirements 4.6
    """
    played = play(script)
    offered = offered_requests(played)
    assert 1 <= len(offered) <= script.max_iterations
    for request in offered:
        assert request.response_format is None and request.tool_choice is ToolChoice.AUTO
    for request in played.requests:
        if request.response_format is not None:
            assert not request.tools and request is played.requests[-1]


@given(plain_names)
def test_p14_a_request_cannot_carry_both(text):
    tools = (ToolDefinition(text, "", {"type": "object", "properties": {}}),)
    with pytest.raises(ValueError, match=r"4\.6"):
        LLMRequest((user_message(text),), tools=tools, response_format=final_answer_format())
