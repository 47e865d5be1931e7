"""McpToolServer: one session over every configured server, whatever group (transport) each
belongs to, routing tool names once (issue 26). Groups here are stand-ins; the real stdio
and HTTP groups run their own contracts and the end-to-end tests."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from zork_mcp.adapters.mcp.assembly import Connected, McpToolServer, open_together
from zork_mcp.domain.errors import MCPServerStartupError, MCPToolCallError
from zork_mcp.domain.servers.protocol_era import ServerProtocol
from zork_mcp.domain.servers.server_config import MCPHttpServerConfig, MCPServerConfig, by_transport
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolSpec


@dataclass
class EchoSession:
    name: str

    @property
    def tools(self) -> list[ToolSpec]:
        return [ToolSpec(self.name, "say", "", {"type": "object"})]

    tool_names = frozenset({"say"})
    rejected = ()

    @property
    def protocol(self) -> ServerProtocol:
        return ServerProtocol(self.name, "2026-07-28")

    async def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> ToolCallResult:
        return ToolCallResult.success(f"{self.name}: {arguments['text']}")


@dataclass
class Group:
    names: tuple[str, ...]
    failing: set[str] = field(default_factory=set)
    connected: list[str] = field(default_factory=list)
    closed_sessions: list[str] = field(default_factory=list)
    warmed: int = 0
    closed: int = 0

    @property
    def server_names(self) -> tuple[str, ...]:
        return self.names

    async def connect(self, stack: AsyncExitStack, servers: list[str]) -> Connected:
        result = Connected()
        for name in servers:
            self.connected.append(name)
            if name in self.failing:
                error = MCPServerStartupError(f"server '{name}' would not start", servers=(name,))
                result.failures.append(error)
                continue
            stack.callback(self.closed_sessions.append, name)
            result.sessions.append(EchoSession(name))  # type: ignore[arg-type]
        return result

    def warm_up(self) -> None:
        self.warmed += 1

    def close(self) -> None:
        self.closed += 1


def assembly(failing: set[str] = frozenset()) -> tuple[McpToolServer, Group, Group]:
    stdio, http = Group(("a", "c"), set(failing)), Group(("b",), set(failing))
    return McpToolServer([stdio, http], order=["a", "b", "c"]), stdio, http


async def test_every_server_of_every_group_in_config_order_and_each_call_routed():
    server, _, _ = assembly()
    async with server.open_session() as session:
        assert [spec.canonical_name for spec in session.tools] == ["a.say", "b.say", "c.say"]
        assert (await session.call_tool("b.say", {"text": "x"}, 5)).content == "b: x"
        assert (await session.call_tool("c.say", {"text": "y"}, 5)).content == "c: y"
        with pytest.raises(MCPToolCallError, match=r"unknown tool 'd\.say'"):
            await session.call_tool("d.say", {"text": "z"}, 5)


async def test_a_session_on_some_servers_connects_those_only():
    server, stdio, http = assembly()
    async with server.open_session(["c"]) as session:
        assert [spec.server for spec in session.tools] == ["c"]
    assert (stdio.connected, http.connected) == (["c"], [])
    with pytest.raises(MCPToolCallError, match="no configured server"):
        async with server.open_session(["nope"]):
            pass


async def test_failures_in_two_groups_are_one_error_naming_each_and_the_rest_is_closed():
    server, stdio, http = assembly(failing={"b", "c"})
    with pytest.raises(MCPServerStartupError) as raised:
        async with server.open_session():
            pass
    assert raised.value.servers == ("c", "b")
    assert "2 MCP servers failed to start" in str(raised.value)
    assert "'b' would not start" in str(raised.value) and "'c' would not start" in str(raised.value)
    assert stdio.connected == ["a", "c"] and http.connected == ["b"], "every server was tried"
    assert stdio.closed_sessions == ["a"], "the server that did connect was closed again"


async def test_one_failure_is_that_servers_own_error():
    server, _, _ = assembly(failing={"b"})
    with pytest.raises(MCPServerStartupError, match=r"^server 'b' would not start$") as raised:
        async with server.open_session():
            pass
    assert raised.value.servers == ("b",)


def test_warm_up_and_close_reach_every_group():
    server, stdio, http = assembly()
    server.warm_up()
    server.close()
    assert (stdio.warmed, http.warmed, stdio.closed, http.closed) == (1, 1, 1, 1)


def test_the_config_order_must_name_the_groups_servers():
    with pytest.raises(ValueError, match="config order"):
        McpToolServer([Group(("a",))], order=["a", "b"])


def test_servers_split_by_transport_in_config_order():
    servers = {
        "a": MCPServerConfig(command="x"),
        "b": MCPHttpServerConfig(url="http://h/mcp"),
        "c": MCPServerConfig(command="y"),
    }
    stdio, http = by_transport(servers)
    assert list(stdio) == ["a", "c"] and list(http) == ["b"]


class Recorded:
    """A context that notes the task it was entered and left in, and waits for a peer."""

    def __init__(self, log: list, name: str, peer: anyio.Event, mine: anyio.Event) -> None:
        self.log, self.name, self.peer, self.mine = log, name, peer, mine

    async def __aenter__(self) -> str:
        self.mine.set()
        with anyio.fail_after(5):
            await self.peer.wait()  # both are entered at once, or this never returns
        self.log.append(("enter", self.name, asyncio.current_task()))
        return self.name

    async def __aexit__(self, *_: object) -> None:
        self.log.append(("exit", self.name, asyncio.current_task()))


class Refusing:
    async def __aenter__(self) -> str:
        raise OSError("no")

    async def __aexit__(self, *_: object) -> None:
        raise AssertionError("never entered, never exited")


async def test_contexts_open_together_and_each_ends_in_the_task_it_began_in():
    log: list = []
    first, second = anyio.Event(), anyio.Event()
    contexts = [Recorded(log, "a", second, first), Recorded(log, "b", first, second), Refusing()]
    async with AsyncExitStack() as stack:
        results = await open_together(stack, contexts)
        assert results[:2] == ["a", "b"] and isinstance(results[2], OSError)
    tasks = {name: {task for _, n, task in log if n == name} for name in "ab"}
    assert all(len(task) == 1 for task in tasks.values()), "entered and left in one task"
    assert tasks["a"] != tasks["b"] and asyncio.current_task() not in tasks["a"] | tasks["b"]


async def test_an_error_in_the_turn_passes_through_unwrapped_and_closes_every_context():
    log: list = []
    first, second = anyio.Event(), anyio.Event()
    with pytest.raises(KeyError, match="inside"):
        async with AsyncExitStack() as stack:
            await open_together(
                stack, [Recorded(log, "a", second, first), Recorded(log, "b", first, second)]
            )
            raise KeyError("inside")
    assert sorted(name for kind, name, _ in log if kind == "exit") == ["a", "b"]
