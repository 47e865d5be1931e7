"""The ToolServer contract. Subclass ToolServerContract and provide `subject`.

Sessions are opened inside each test (never in a yield fixture): an MCP session must be
entered and exited in the same asyncio task.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from zork_mcp.domain.errors import (
    MCPServerStartupError,
    MCPSessionBrokenError,
    MCPToolCallError,
    MCPToolTimeoutError,
)
from zork_mcp.ports.tool_server import ToolServer

# probe(tag) -> (canonical tool name, arguments, text the result must contain)
Probe = Callable[[str], tuple[str, dict[str, Any], str]]


def echo_probe(tool: str) -> Probe:
    return lambda tag: (tool, {"text": tag}, tag)


@dataclass
class ToolServerSubject:
    """A server under test, and which of its tools show each behaviour (None: has none)."""

    server: ToolServer
    server_name: str
    probe: Probe  # a call that succeeds and whose result shows the tag
    failing_tool: str | None = None  # the tool reports an error (is_error)
    slow_tool: str | None = None  # takes longer than 1 s
    crash_tool: str | None = None  # the server process dies during the call
    broken_server: ToolServer | None = None  # cannot start at all
    speaks: str | None = None  # the MCP version it is spoken to in (None: not checked)


async def call_probe(session, subject: ToolServerSubject, tag: str) -> None:
    tool, arguments, expected = subject.probe(tag)
    result = await session.call_tool(tool, arguments, 30)
    assert not result.is_error, result
    assert expected in str(result.content)


class ToolServerContract:
    @pytest.fixture
    def subject(self) -> ToolServerSubject:
        raise NotImplementedError

    async def test_tools_have_canonical_names_and_object_schemas(self, subject):
        async with subject.server.open_session() as session:
            names = [spec.canonical_name for spec in session.tools]
            assert subject.probe("x")[0] in names
            for spec in session.tools:
                assert spec.server == subject.server_name
                assert spec.canonical_name == f"{subject.server_name}.{spec.name}"
                assert spec.input_schema.get("type", "object") == "object"

    async def test_every_session_names_the_version_its_server_is_spoken_to_in(self, subject):
        for _ in range(2):  # the first finds it, the second remembers it
            async with subject.server.open_session() as session:
                versions = {p.server: p.version for p in session.protocols}
                assert set(versions) == {subject.server_name}
                if subject.speaks is not None:
                    assert versions[subject.server_name] == subject.speaks
                await call_probe(session, subject, "era")

    async def test_a_call_returns_the_tools_content(self, subject):
        async with subject.server.open_session() as session:
            await call_probe(session, subject, "hello-grue")

    async def test_a_failing_tool_gives_an_error_result_not_an_exception(self, subject):
        if subject.failing_tool is None:
            pytest.skip("this server has no failing tool")
        async with subject.server.open_session() as session:
            result = await session.call_tool(subject.failing_tool, {}, 10)
            assert result.is_error and result.error_message
            await call_probe(session, subject, "still-here")

    async def test_a_timeout_raises_and_the_session_stays_usable(self, subject):
        if subject.slow_tool is None:
            pytest.skip("this server has no slow tool")
        async with subject.server.open_session() as session:
            with pytest.raises(MCPToolTimeoutError):
                await session.call_tool(subject.slow_tool, {}, 0.3)
            await call_probe(session, subject, "after-timeout")

    async def test_a_dead_server_breaks_the_session_for_good(self, subject):
        if subject.crash_tool is None:
            pytest.skip("this server cannot be made to crash")
        async with subject.server.open_session() as session:
            with pytest.raises(MCPSessionBrokenError):
                await session.call_tool(subject.crash_tool, {}, 10)
            tool, arguments, _ = subject.probe("x")
            with pytest.raises(MCPSessionBrokenError):
                await session.call_tool(tool, arguments, 10)

    async def test_an_unknown_tool_is_a_call_error(self, subject):
        async with subject.server.open_session() as session:
            with pytest.raises(MCPToolCallError):
                await session.call_tool(f"{subject.server_name}.no_such_tool", {}, 10)
            with pytest.raises(MCPToolCallError):
                await session.call_tool("other_server.tool", {}, 10)
            await call_probe(session, subject, "still-fine")

    async def test_sessions_open_and_close_again_and_again(self, subject):
        for round_number in range(3):
            async with subject.server.open_session() as session:
                await call_probe(session, subject, f"round-{round_number}")

    async def test_a_server_that_cannot_start_raises_startup_error(self, subject):
        if subject.broken_server is None:
            pytest.skip("no broken variant of this server")
        with pytest.raises(MCPServerStartupError):
            async with subject.broken_server.open_session():
                pass
