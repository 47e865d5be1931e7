import asyncio

from hypothesis import given, settings

from tests.support.openai_format import assert_openai_tool, assert_tool_definition
from tests.support.processes import assert_no_processes_left
from tests.support.raw_servers import raw_server
from tests.support.strategies import mcp_tool_sets, server_eras
from zork_mcp.domain.tools.tool_schema import openai_function_tool, tool_definitions


@settings(max_examples=50)
@given(mcp_tool_sets, server_eras)
def test_p38_openai_compatible_tool_definitions(tools, eras):
    """Property 38: OpenAI-Compatible Tool Definitions

    *For any* tool schema request, the MCPManager should return a list of valid
    OpenAI-compatible tool definitions.

    In both MCP eras: what a stateless server lists translates as a handshake server's does.

    Validates: Requirements 8.6
    """
    server = raw_server(tools=tools, eras=eras)

    async def definitions():
        async with server.open_session() as session:
            return tool_definitions(session.tools)

    try:
        translated = asyncio.run(definitions())
    finally:
        assert_no_processes_left(server)
    for tool in translated:
        assert_tool_definition(tool)
        assert_openai_tool(openai_function_tool(tool))
    names = [tool.name for tool in translated]
    assert names == [f"raw.{name}" for name in [*tools, "environ", "pid"]]
    for name, tool in tools.items():
        (definition,) = [t for t in translated if t.name == f"raw.{name}"]
        assert definition.description == tool["description"]
        assert definition.parameters.get("properties", {}) == tool["inputSchema"].get(
            "properties", {}
        )
