from hypothesis import given

from tests.support.agents import agent_for
from tests.support.strategies import answers
from zork_mcp.adapters.llm.fake import ScriptedLLM, text_reply
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.loop.agent_response import final_answer_format, parse_agent_response
from zork_mcp.domain.settings import MCPSettings


@given(answers)
def test_p48_agent_response_backward_compatibility(answer):
    """Property 48: AgentResponse Backward Compatibility

    *For any* agent with MCP disabled, the agent should continue using AgentResponse without any
    changes.

    Validates: Requirements 15.5
    """
    llm, telemetry = ScriptedLLM([text_reply(answer.text())]), FakeTelemetry()
    agent = agent_for(llm, settings=MCPSettings(enabled=False), telemetry=telemetry)
    result = agent.get_action_with_reasoning("West of House")
    (request,) = llm.requests
    assert request.tools is None and request.tool_choice is None
    assert request.response_format == final_answer_format()
    expected = parse_agent_response(answer.text()).response
    assert result == {
        "action": expected.action,
        "reasoning": expected.thinking,
        "new_objective": expected.new_objective,
    }
    assert not [t for t in telemetry.types() if t.startswith("mcp_")]
