"""MCP-Ghost with a config that mixes a stdio server and a Streamable HTTP server (issue 16)."""

from __future__ import annotations

import pytest

from tests.support.fault_server import FAULT_TOOLS
from tests.support.ghost_calls import assert_no_server_left, ghost, marker, servers
from tests.support.http_servers import free_port, http_server
from tests.support.llm_peers import peer_for
from tests.support.probes import thought_probe
from zork_mcp.adapters.llm.fake import text_reply, tool_calls_reply

pytestmark = pytest.mark.slow


async def test_one_config_mixes_stdio_and_http_servers():
    mark = marker()
    _, thought, _ = thought_probe("reasoning.sequentialthinking")("plan")
    peer = peer_for(
        "openai",
        [
            tool_calls_reply(("faults.echo", {"text": "local"})),
            tool_calls_reply(("reasoning.sequentialthinking", thought)),
            text_reply("done"),
        ],
        [*FAULT_TOOLS, "faults.start_failing_http", "reasoning.sequentialthinking"],
    )
    argv = ["-m", "zork_mcp.servers.reasoning", "--transport", "http", "--port", "{port}"]
    with http_server(argv) as remote:
        config = servers(mark)
        config["mcpServers"]["reasoning"] = {"type": "streamable-http", "url": remote.url}
        result = await ghost(peer, mark, server_config=config)
    assert result.success, result.errors
    assert result.execution_metadata.servers_connected == 2
    echo, reasoning = (step.result for step in result.tool_chain)
    assert echo == "echo: local" and reasoning["thoughtHistoryLength"] == 1
    assert_no_server_left(mark)


async def test_an_http_server_that_is_down_is_a_failed_result_naming_it():
    config = {"mcpServers": {"remote": {"url": f"http://127.0.0.1:{free_port()}/mcp"}}}
    result = await ghost(peer_for("openai", [text_reply("x")]), marker(), server_config=config)
    assert not result.success
    error = result.errors[0].error
    assert "'remote'" in error and "refused the connection" in error
