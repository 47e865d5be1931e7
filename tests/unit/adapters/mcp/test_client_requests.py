"""What our client answers a server that asks it for something (through a real server
process and the SDK's server side): its roots in both MCP eras, and in the stateless era a
refusal at once for sampling and elicitation, or for roots when it has none, and an error
for a server that keeps asking."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.paths import ROOT
from tests.support.processes import assert_no_processes_left
from zork_mcp.adapters.mcp.client_requests import MAX_ROUNDS
from zork_mcp.adapters.mcp.stdio.tool_server import stdio_tool_server
from zork_mcp.domain.errors import MCPToolCallError
from zork_mcp.domain.servers.server_config import MCPServerConfig

pytestmark = pytest.mark.slow
ASKING_SERVER = ROOT / "tests" / "support" / "asking_server.py"
EPISODE = "/logs/run 1/e#1"


async def answers(tmp_path, protocol: str, roots: tuple[str, ...], *tools: str) -> list:
    """Each tool's answer from a server whose entry lists `roots`."""
    config = MCPServerConfig(
        command="python", args=(str(ASKING_SERVER),), protocol=protocol, roots=roots
    )
    server = stdio_tool_server(
        {"ask": config},
        background_spare=False,
        stderr_path=tmp_path / "stderr.log",
        shared_fork_server=True,
    )
    results = []
    async with server.open_session() as session:
        for tool in tools:
            try:
                results.append((await session.call_tool(f"ask.{tool}", {}, 10)).content)
            except MCPToolCallError as refused:
                results.append(str(refused))
    assert_no_processes_left(server)
    return results


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_the_roots_are_given_in_either_era(tmp_path, protocol):
    (given,) = await answers(tmp_path, protocol, (EPISODE,), "roots")
    assert json.loads(given) == [["file:///logs/run%201/e%231", "e#1"]]


async def test_sampling_and_elicitation_are_refused_at_once(tmp_path):
    started = time.perf_counter()
    sample, elicit = await answers(tmp_path, "2026-07-28", (EPISODE,), "sample", "elicit")
    assert time.perf_counter() - started < 5
    assert sample == (
        "ask.sample: the server asked this client for input it does not give "
        "(sampling/createMessage is not given); it gives only its roots, and only when it has some"
    )
    assert "(elicitation/create is not given)" in elicit


async def test_with_no_roots_a_request_for_them_is_refused(tmp_path):
    (refused,) = await answers(tmp_path, "2026-07-28", (), "nag")
    assert refused.startswith("ask.nag: the server asked this client for input it does not give")


async def test_a_server_that_keeps_asking_gets_an_error_after_a_few_rounds(tmp_path):
    (stopped,) = await answers(tmp_path, "2026-07-28", (EPISODE,), "nag")
    assert stopped == f"ask.nag: the server asked for input more than {MAX_ROUNDS} times"
