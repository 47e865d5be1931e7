"""MixedToolServer: one config's stdio and HTTP servers as one ToolServer (issue 16), with
fake parts standing in for the transports (their own contracts run the real ones)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from zork_mcp.adapters.fake_tool_server import FakeToolServer
from zork_mcp.adapters.mcp.mixed import MixedToolServer, by_transport, combined
from zork_mcp.domain.errors import MCPServerStartupError, MCPToolCallError
from zork_mcp.domain.server_config import MCPHttpServerConfig, MCPServerConfig


@dataclass
class ClosablePart(FakeToolServer):
    closed: int = 0

    def close(self) -> None:
        self.closed += 1


def local(text: str) -> str:
    return f"local: {text}"


def remote(text: str) -> str:
    return f"remote: {text}"


def parts() -> tuple[ClosablePart, ClosablePart]:
    return ClosablePart("local", {"say": local}), ClosablePart("remote", {"say": remote})


async def test_each_tool_goes_to_the_part_that_listed_it():
    first, second = parts()
    async with MixedToolServer([first, second]).open_session() as session:
        assert [spec.canonical_name for spec in session.tools] == ["local.say", "remote.say"]
        assert (await session.call_tool("remote.say", {"text": "a"}, 5)).content == "remote: a"
        assert (await session.call_tool("local.say", {"text": "b"}, 5)).content == "local: b"
        with pytest.raises(MCPToolCallError, match=r"unknown tool 'elsewhere\.say'"):
            await session.call_tool("elsewhere.say", {"text": "c"}, 5)
        with pytest.raises(MCPToolCallError):
            await session.call_tool("no-separator", {}, 5)
    assert (first.sessions_closed, second.sessions_closed) == (1, 1)


async def test_a_part_that_cannot_start_closes_the_parts_already_open():
    first, second = parts()
    second.fail_next_connects(1)
    with pytest.raises(MCPServerStartupError):
        async with MixedToolServer([first, second]).open_session():
            pass
    assert first.sessions_opened == first.sessions_closed == 1


def test_close_closes_every_part_and_one_part_is_used_alone():
    first, second = parts()
    MixedToolServer([first, second]).close()
    assert (first.closed, second.closed) == (1, 1)
    assert combined([first]) is first


def test_servers_split_by_transport_in_config_order():
    servers = {
        "a": MCPServerConfig(command="x"),
        "b": MCPHttpServerConfig(url="http://h/mcp"),
        "c": MCPServerConfig(command="y"),
    }
    stdio, http = by_transport(servers)
    assert list(stdio) == ["a", "c"] and list(http) == ["b"]
