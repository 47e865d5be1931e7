import asyncio
import time

from hypothesis import given

from tests.support.fake_servers import server_offering
from tests.support.openai_format import assert_tool_definition
from tests.support.strategies import server_names, tool_sets
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.llm.messages import initial_messages
from zork_mcp.domain.loop.agent_turn import decide_action
from zork_mcp.domain.settings import MCPSettings


@given(server_names, tool_sets())
def test_p37_complete_tool_translation(server_name, tools):
    """Property 37: Complete Tool Translation

    *For any* MCP server with multiple tools, all tools should be translated and made available.

    Validates: Requirements 8.5
    """
    server = server_offering(server_name, tools)
    llm = ScriptedLLM([action_reply("look")])
    asyncio.run(
        decide_action(
            llm=llm,
            messages=initial_messages("s", "u"),
            settings=MCPSettings(enabled=True),
            telemetry=FakeTelemetry(),
            clock=time.monotonic,
            tool_server=server,
        )
    )
    offered = llm.requests[0].tools
    assert [tool.name for tool in offered] == [f"{server_name}.{n}" for n in tools]
    for tool in offered:
        assert_tool_definition(tool)
