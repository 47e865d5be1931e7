"""Streamable HTTP faults (issue 16): 401, 500, a 10 MB result, and no header value in any
log or error. Server down at start, a tool past its timeout and a server killed mid-call
are in the contract suite (tests/contract/test_tool_server_mcp_http.py)."""

from __future__ import annotations

import logging

import pytest

from tests.support.http_servers import http_server
from tests.support.paths import FAULT_SERVER
from zork_mcp.adapters.mcp.http.tool_server import McpHttpToolServer
from zork_mcp.domain.errors import MCPServerStartupError, MCPSessionBrokenError
from zork_mcp.domain.servers.server_config import MCPHttpServerConfig

pytestmark = pytest.mark.slow
SECRET = "tok-5b1c9e0f7d2a4c33"
AUTH = {"Authorization": "Bearer ${ZORK_TEST_TOKEN}"}


def remote(url: str, token: str) -> McpHttpToolServer:
    config = MCPHttpServerConfig(url=url, headers=AUTH)
    return McpHttpToolServer({"remote": config}, system_env={"ZORK_TEST_TOKEN": token})


@pytest.fixture(scope="module")
def guarded():
    with http_server([str(FAULT_SERVER), "http", "{port}", "auth"], {"FAULT_TOKEN": SECRET}) as s:
        yield s


async def test_401_names_the_header_and_variable_and_never_the_value(guarded, caplog):
    caplog.set_level(logging.DEBUG)
    wrong = SECRET[::-1]
    with pytest.raises(MCPServerStartupError) as caught:
        async with remote(guarded.url, wrong).open_session():
            pass
    message = str(caught.value)
    assert "401 Unauthorized" in message
    assert "Authorization header (from $ZORK_TEST_TOKEN)" in message
    for text in (message, repr(caught.value), caplog.text):
        assert wrong not in text and SECRET not in text


async def test_401_without_a_configured_header_says_so_and_how_to_add_one(guarded):
    server = McpHttpToolServer({"my-remote": MCPHttpServerConfig(url=guarded.url)})
    with pytest.raises(MCPServerStartupError) as caught:
        async with server.open_session():
            pass
    message = str(caught.value)
    assert "401 Unauthorized, and mcp_config.json sends it no header" in message
    assert '"Authorization": "Bearer ${MY_REMOTE_TOKEN}"' in message


async def test_the_right_token_gets_in_and_stays_out_of_the_logs(guarded, caplog):
    caplog.set_level(logging.DEBUG)
    async with remote(guarded.url, SECRET).open_session() as session:
        result = await session.call_tool("remote.echo", {"text": "in"}, 10)
    assert result.content == "echo: in"
    assert SECRET not in caplog.text


async def test_500_at_start_is_a_startup_error_saying_the_server_fails():
    with (
        http_server([str(FAULT_SERVER), "http", "{port}", "500"]) as failing,
        pytest.raises(MCPServerStartupError, match="answered 500: it is failing"),
    ):
        async with remote(failing.url, "t").open_session():
            pass


async def test_a_10_mb_result_arrives_whole():
    with http_server([str(FAULT_SERVER), "http", "{port}"]) as served:
        async with remote(served.url, "t").open_session() as session:
            result = await session.call_tool("remote.big", {"megabytes": 10}, 60)
            after = await session.call_tool("remote.echo", {"text": "after"}, 10)
    assert not result.is_error and len(result.content) == 10 * 1024 * 1024
    assert after.content == "echo: after"


async def test_500_mid_session_ends_it_as_a_dead_server():
    with http_server([str(FAULT_SERVER), "http", "{port}"]) as served:
        async with remote(served.url, "t").open_session() as session:
            await session.call_tool("remote.start_failing_http", {}, 10)
            with pytest.raises(MCPSessionBrokenError, match="answered 500"):
                await session.call_tool("remote.echo", {"text": "x"}, 10)
            with pytest.raises(MCPSessionBrokenError):
                await session.call_tool("remote.echo", {"text": "y"}, 10)
