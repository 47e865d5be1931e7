import asyncio

from hypothesis import given

from tests.support.strategies import json_values
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.domain.tools.tool_result import ToolCallResult


@given(json_values)
def test_p41_tool_call_result_success_format(value):
    """Property 41: ToolCallResult Success Format

    *For any* successful tool call, the result should be wrapped in a ToolCallResult with
    content and is_error=False.

    Validates: Requirements 11.1
    """
    server = FakeToolServer("box", {"give": lambda: value}, schemas={"give": {"type": "object"}})

    async def call():
        async with server.open_session() as session:
            return await session.call_tool("box.give", {}, 5)

    result = asyncio.run(call())
    assert isinstance(result, ToolCallResult)
    assert result.content == value and result.is_error is False and result.error_message is None
    assert result == ToolCallResult.success(value)
    assert result.to_dict() == {"content": value}
