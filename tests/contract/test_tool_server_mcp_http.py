"""The Streamable HTTP adapter under the ToolServer contract (issue 16): our two servers and
the fault server served over HTTP on 127.0.0.1 by real server processes."""

from __future__ import annotations

import asyncio

import httpx2
import pytest
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.contract.tool_server_contract import ToolServerContract, ToolServerSubject, echo_probe
from tests.support.http_servers import free_port, http_server
from tests.support.paths import FAULT_SERVER
from tests.support.probes import look_probe, thought_probe
from zork_mcp.adapters.mcp.http.tool_server import McpHttpToolServer
from zork_mcp.domain.servers.server_config import MCPHttpServerConfig

pytestmark = pytest.mark.slow

HTTP = ("--transport", "http", "--port", "{port}")
TOOL = "sequentialthinking"


def http_tool_server(name: str, url: str, protocol: str | None = None) -> McpHttpToolServer:
    config = MCPHttpServerConfig(url=url, protocol=protocol)
    return McpHttpToolServer({name: config}, startup_timeout_seconds=10)


@pytest.fixture(params=[None, "2025-11-25"], ids=["newest-era", "handshake-pinned"])
def protocol(request):
    """Our servers speak both eras: unpinned, the client speaks the stateless one."""
    return request.param


def nobody_listening() -> str:
    return f"http://127.0.0.1:{free_port()}/mcp"


@pytest.fixture(scope="module")
def reasoning_url():
    with http_server(["-m", "zork_mcp.servers.reasoning", *HTTP]) as server:
        yield server.url


@pytest.fixture(scope="module")
def game_url(zork_game):
    argv = ["-m", "zork_mcp.servers.text_adventure", *HTTP]
    with http_server(argv, {"GAME": str(zork_game)}) as served:
        yield served.url


class TestOurReasoningServerOverHttp(ToolServerContract):
    @pytest.fixture
    def subject(self, reasoning_url, protocol):
        server = http_tool_server("reasoning", reasoning_url, protocol)
        broken = http_tool_server("reasoning", nobody_listening())
        return ToolServerSubject(
            server,
            "reasoning",
            thought_probe("reasoning.sequentialthinking"),
            broken_server=broken,
            speaks=protocol or "2026-07-28",
        )


class TestOurGameServerOverHttp(ToolServerContract):
    @pytest.fixture
    def subject(self, game_url, protocol):
        server = http_tool_server("game", game_url, protocol)
        return ToolServerSubject(server, "game", look_probe, failing_tool="game.play_action")


class TestFaultServerOverHttp(ToolServerContract):
    """A fresh server per test: the crash tool kills it."""

    @pytest.fixture
    def subject(self, protocol):
        with http_server([str(FAULT_SERVER), "http", "{port}"]) as served:
            yield ToolServerSubject(
                http_tool_server("faults", served.url, protocol),
                "faults",
                echo_probe("faults.echo"),
                "faults.fail",
                "faults.slow",
                "faults.crash",
                http_tool_server("faults", nobody_listening()),
            )


@pytest.mark.parametrize(
    ("pin", "histories"),
    [
        ("2025-11-25", ([1, 2, 3, 4], [1, 2, 3])),  # each MCP session its own history
        (None, ([1, 1, 1, 1], [1, 1, 1])),  # stateless: each request stands alone
    ],
    ids=["handshake-pinned", "newest-era"],
)
async def test_parallel_sessions_never_share_thought_history(reasoning_url, pin, histories):
    """One long-lived HTTP reasoning server, two agents at once (issue 16)."""
    server = http_tool_server("reasoning", reasoning_url, pin)
    tool, arguments, _ = thought_probe("reasoning.sequentialthinking")("x")

    async def think(rounds: int) -> list[int]:
        async with server.open_session() as session:
            lengths = []
            for _ in range(rounds):
                result = await session.call_tool(tool, arguments, 10)
                lengths.append(result.content["thoughtHistoryLength"])
                await asyncio.sleep(0)
            return lengths

    first, second = await asyncio.gather(think(4), think(3))
    assert (first, second) == histories


@pytest.mark.parametrize("mode", ["2026-07-28", "auto"])
async def test_requests_without_an_mcp_session_share_no_thought_history(reasoning_url, mode):
    """The 2026-07-28 protocol (the SDK client's default, "auto", negotiates it) has no MCP
    session over HTTP: each request stands alone, so no client sees another's thoughts."""
    _, arguments, _ = thought_probe("reasoning.sequentialthinking")("x")

    async def think(rounds: int) -> list[int]:
        async with Client(reasoning_url, mode=mode) as client:
            calls = [await client.call_tool(TOOL, arguments) for _ in range(rounds)]
        return [call.structured_content["thoughtHistoryLength"] for call in calls]

    assert await asyncio.gather(think(3), think(2)) == [[1, 1, 1], [1, 1]]


async def test_a_request_without_a_session_cannot_borrow_one_by_its_header(reasoning_url):
    """A 2026-07-28 request naming another client's Mcp-Session-Id sees none of its thoughts
    (the header is the client's word, checked by the SDK only on a session's own requests)."""
    _, arguments, _ = thought_probe("reasoning.sequentialthinking")("x")
    session_ids: list[str] = []

    async def remember(response: httpx2.Response) -> None:
        session_ids.append(response.headers.get("mcp-session-id", ""))

    def length(result) -> int:
        return result.structured_content["thoughtHistoryLength"]

    own = httpx2.AsyncClient(event_hooks={"response": [remember]})
    async with (
        own,
        streamable_http_client(reasoning_url, http_client=own) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        lengths = [length(await session.call_tool(TOOL, arguments)) for _ in range(2)]
        header = {"mcp-session-id": next(filter(None, session_ids))}
        async with (
            httpx2.AsyncClient(headers=header) as borrowed,
            Client(
                streamable_http_client(reasoning_url, http_client=borrowed), mode="2026-07-28"
            ) as intruder,
        ):
            lengths.append(length(await intruder.call_tool(TOOL, arguments)))
        lengths.append(length(await session.call_tool(TOOL, arguments)))
    assert lengths == [1, 2, 1, 3]
