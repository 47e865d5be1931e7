"""The ToolServer contract. Subclass ToolServerContract and provide `subject`.

Sessions are opened inside each test (never in a yield fixture): an MCP session must be
entered and exited in the same asyncio task.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from zork_mcp.domain.errors import (
    MCPServerStartupError,
    MCPSessionBrokenError,
    MCPToolCallError,
    MCPToolTimeoutError,
)
from zork_mcp.ports.tool_server import ToolServer


@dataclass
class ToolServerSubject:
    """A server under test, and which of its tools show each behaviour (None: has none)."""

    server: ToolServer
    server_name: str
    echo_tool: str  # canonical name; takes {"text": str} and answers with that text in it
    failing_tool: str | None = None  # the tool reports an error (is_error)
    slow_tool: str | None = None  # takes longer than 1 s
    crash_tool: str | None = None  # the server process dies during the call
    broken_server: ToolServer | None = None  # cannot start at all


class ToolServerContract:
    @pytest.fixture
    def subject(self) -> ToolServerSubject:
        raise NotImplementedError

    async def test_tools_have_canonical_names_and_object_schemas(self, subject):
        async with subject.server.open_session() as session:
            names = [spec.canonical_name for spec in session.tools]
            assert subject.echo_tool in names
            for spec in session.tools:
                assert spec.server == subject.server_name
                assert spec.canonical_name == f"{subject.server_name}.{spec.name}"
                assert spec.input_schema.get("type", "object") == "object"

    async def test_a_call_returns_the_tools_content(self, subject):
        async with subject.server.open_session() as session:
            result = await session.call_tool(subject.echo_tool, {"text": "hello grue"}, 10)
        assert not result.is_error and "hello grue" in str(result.content)

    async def test_a_failing_tool_gives_an_error_result_not_an_exception(self, subject):
        if subject.failing_tool is None:
            pytest.skip("this server has no failing tool")
        async with subject.server.open_session() as session:
            result = await session.call_tool(subject.failing_tool, {}, 10)
            assert result.is_error and result.error_message
            again = await session.call_tool(subject.echo_tool, {"text": "still here"}, 10)
        assert "still here" in str(again.content)

    async def test_a_timeout_raises_and_the_session_stays_usable(self, subject):
        if subject.slow_tool is None:
            pytest.skip("this server has no slow tool")
        async with subject.server.open_session() as session:
            with pytest.raises(MCPToolTimeoutError):
                await session.call_tool(subject.slow_tool, {}, 0.3)
            after = await session.call_tool(subject.echo_tool, {"text": "after"}, 10)
        assert "after" in str(after.content)

    async def test_a_dead_server_breaks_the_session_for_good(self, subject):
        if subject.crash_tool is None:
            pytest.skip("this server cannot be made to crash")
        async with subject.server.open_session() as session:
            with pytest.raises(MCPSessionBrokenError):
                await session.call_tool(subject.crash_tool, {}, 10)
            with pytest.raises(MCPSessionBrokenError):
                await session.call_tool(subject.echo_tool, {"text": "x"}, 10)

    async def test_an_unknown_tool_is_a_call_error(self, subject):
        async with subject.server.open_session() as session:
            with pytest.raises(MCPToolCallError):
                await session.call_tool(f"{subject.server_name}.no_such_tool", {}, 10)
            with pytest.raises(MCPToolCallError):
                await session.call_tool("other_server.tool", {}, 10)

    async def test_sessions_open_and_close_again_and_again(self, subject):
        for round_number in range(3):
            async with subject.server.open_session() as session:
                result = await session.call_tool(subject.echo_tool, {"text": str(round_number)}, 10)
                assert str(round_number) in str(result.content)

    async def test_a_server_that_cannot_start_raises_startup_error(self, subject):
        if subject.broken_server is None:
            pytest.skip("no broken variant of this server")
        with pytest.raises(MCPServerStartupError):
            async with subject.broken_server.open_session():
                pass
