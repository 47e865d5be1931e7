import asyncio
import time

from hypothesis import given

from tests.support.fake_servers import server_offering
from tests.support.strategies import good_answers, tool_sets
from zork_mcp.adapters.llm.fake import FunctionLLM
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.llm.messages import LLMResponse, initial_messages
from zork_mcp.domain.loop.agent_turn import decide_action
from zork_mcp.domain.settings import MCPSettings


@given(tool_sets(), good_answers)
def test_p01_tool_schema_availability(tools, answer):
    """Property 1: Tool Schema Availability

    *For any* agent with MCP enabled, when action generation begins, tool schemas should be
    available to the LLM.

    Validates: Requirements 1.1
    """
    server = server_offering("srv", tools)
    seen = []

    def respond(request):
        seen.append((request.tools, server.open_sessions))
        return LLMResponse(answer.text())

    outcome = asyncio.run(
        decide_action(
            llm=FunctionLLM(respond),
            messages=initial_messages("s", "u"),
            settings=MCPSettings(enabled=True),
            telemetry=FakeTelemetry(),
            clock=time.monotonic,
            tool_server=server,
        )
    )
    first_tools, sessions_open = seen[0]
    assert sessions_open == 1, "the tools come from a live session"
    offered = {tool.name: tool.parameters for tool in first_tools}
    assert set(offered) == {f"srv.{name}" for name in tools}
    for name, tool in tools.items():
        properties = tool["inputSchema"].get("properties", {})
        assert offered[f"srv.{name}"].get("properties", {}) == properties
    assert outcome.exit_reason.value == "content"
