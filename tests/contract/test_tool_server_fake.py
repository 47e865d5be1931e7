"""The in-memory fake under the ToolServer contract: one FakeToolServer, and fake servers as
a ServerGroup under the real McpToolServer, whose opening, failing and routing they share."""

import pytest

from tests.contract.tool_server_contract import ToolServerContract, ToolServerSubject, echo_probe
from zork_mcp.adapters.mcp.fake import FakeToolServer, crash, fake_tool_servers, hang
from zork_mcp.domain.errors import MCPServerStartupError, MCPToolCallError


def echo(text: str) -> str:
    return f"echo: {text}"


def fail() -> None:
    raise RuntimeError("this tool always fails")


TOOLS = {"echo": echo, "fail": fail, "hang": hang, "crash": crash}


class TestFakeToolServer(ToolServerContract):
    @pytest.fixture
    def subject(self) -> ToolServerSubject:
        return ToolServerSubject(
            server=FakeToolServer("fake", TOOLS),
            server_name="fake",
            probe=echo_probe("fake.echo"),
            failing_tool="fake.fail",
            slow_tool="fake.hang",
            crash_tool="fake.crash",
            broken_server=FakeToolServer("fake", TOOLS, connect_failures=1),
        )


class TestFakeServerGroup(ToolServerContract):
    @pytest.fixture
    def subject(self) -> ToolServerSubject:
        return ToolServerSubject(
            server=fake_tool_servers([FakeToolServer("fake", TOOLS)]),
            server_name="fake",
            probe=echo_probe("fake.echo"),
            failing_tool="fake.fail",
            slow_tool="fake.hang",
            crash_tool="fake.crash",
            broken_server=fake_tool_servers([FakeToolServer("fake", TOOLS, connect_failures=1)]),
        )


def ping() -> str:
    return "pong"


def three() -> tuple[FakeToolServer, FakeToolServer, FakeToolServer]:
    return (
        FakeToolServer("a", {"ping": ping}),
        FakeToolServer("b", {"echo": echo}),
        FakeToolServer("c", {"ping": ping}),
    )


async def test_several_fakes_are_one_session_and_each_call_reaches_its_server():
    a, b, c = three()
    async with fake_tool_servers([a, b, c]).open_session() as session:
        names = [spec.canonical_name for spec in session.tools]
        assert names == ["a.ping", "b.echo", "c.ping"]
        assert (await session.call_tool("b.echo", {"text": "x"}, 5)).content == "echo: x"
        assert (await session.call_tool("c.ping", {}, 5)).content == "pong"
    assert ([call.name for call in b.calls], [call.name for call in c.calls]) == (
        ["b.echo"],
        ["c.ping"],
    )
    assert a.calls == [] and all(s.open_sessions == 0 for s in (a, b, c))


async def test_an_unknown_tool_names_every_known_one():
    async with fake_tool_servers(three()).open_session() as session:
        known = r"\['a\.ping', 'b\.echo', 'c\.ping'\]"
        with pytest.raises(MCPToolCallError, match=rf"^unknown tool 'b\.ping'; known: {known}$"):
            await session.call_tool("b.ping", {}, 5)


async def test_an_unknown_server_is_refused_naming_the_configured_ones():
    a, b, c = three()
    with pytest.raises(MCPToolCallError, match=r"no configured server \['d'\]; known: \['a', "):
        async with fake_tool_servers([a, b, c]).open_session(["a", "d"]):
            pass
    assert a.connect_attempts == 0, "nothing is connected for a refused session"


async def test_two_failures_are_one_error_naming_each_and_the_one_that_started_is_closed():
    a, b, c = three()
    a.fail_next_connects(1)
    c.fail_next_connects(1)
    with pytest.raises(MCPServerStartupError) as raised:
        async with fake_tool_servers([a, b, c]).open_session():
            pass
    assert raised.value.servers == ("a", "c")
    assert str(raised.value).startswith("2 MCP servers failed to start:\n- ")
    assert "'a': told to fail" in str(raised.value) and "'c': told to fail" in str(raised.value)
    assert (b.sessions_opened, b.open_sessions) == (1, 0)
