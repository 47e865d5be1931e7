import asyncio

from hypothesis import given
from hypothesis import strategies as st

from tests.support.strategies import TEXT
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.domain.loop.batch_policy import BatchStep, error_result, skip_result, timeout_result

messages = st.text(TEXT, min_size=1, max_size=40)


@given(messages, st.sampled_from([RuntimeError, ValueError, KeyError, OSError]))
def test_p42_tool_call_result_error_format(message, error_type):
    """Property 42: ToolCallResult Error Format

    *For any* failed tool call, the result should be wrapped in a ToolCallResult with
    is_error=True and error_message.

    Validates: Requirements 11.2, 11.4
    """

    def broken():
        raise error_type(message)

    server = FakeToolServer("box", {"broken": broken}, schemas={"broken": {"type": "object"}})

    async def call():
        async with server.open_session() as session:
            return await session.call_tool("box.broken", {}, 5)

    result = asyncio.run(call())
    assert result.is_error is True and isinstance(result.error_message, str)
    assert error_type.__name__ in result.error_message
    assert result.to_dict()["error"] == result.error_message


@given(messages, st.floats(0.001, 1e4), st.sampled_from(BatchStep))
def test_p42_every_failure_the_loop_makes_has_a_message(reason, seconds, step):
    for result in (error_result("s.t", reason), timeout_result("s.t", seconds), skip_result(step)):
        assert result.is_error is True and result.error_message
        assert result.to_dict()["error"] == result.error_message
    assert reason in error_result("s.t", reason).error_message
