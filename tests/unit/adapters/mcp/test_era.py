"""Each server is spoken to in the newest era it supports, probed once and remembered; a
server whose connect fails is probed afresh (issue 38)."""

from __future__ import annotations

import asyncio

import mcp_types.version as sdk_versions
import pytest

from tests.support.processes import assert_no_processes_left
from tests.support.raw_servers import methods_by_process, raw_server
from zork_mcp.domain.errors import MCPServerStartupError
from zork_mcp.domain.servers.protocol_era import HANDSHAKE_VERSIONS, LATEST_VERSION, MODERN_VERSIONS

pytestmark = pytest.mark.slow


def test_the_domain_knows_the_versions_the_sdk_speaks():
    assert HANDSHAKE_VERSIONS == sdk_versions.HANDSHAKE_PROTOCOL_VERSIONS
    assert MODERN_VERSIONS == sdk_versions.MODERN_PROTOCOL_VERSIONS
    assert LATEST_VERSION == sdk_versions.LATEST_MODERN_VERSION


def test_a_server_redeployed_in_another_era_fails_one_connect_then_is_probed_afresh(tmp_path):
    eras, log = tmp_path / "eras", tmp_path / "methods.log"
    eras.write_text("modern")
    echo = {"description": "says its arguments back", "inputSchema": {"type": "object"}}
    server = raw_server(log, tools={"echo": echo}, eras=f"@{eras}")

    async def turn() -> str:
        async with server.open_session() as session:
            result = await session.call_tool("raw.echo", {"word": "hi"}, 10)
            assert result.content == '{"word": "hi"}'
            (protocol,) = session.protocols
            return protocol.version

    try:
        spoken = [asyncio.run(turn())]
        eras.write_text("handshake")
        with pytest.raises(MCPServerStartupError, match="before initialization"):
            asyncio.run(turn())
        spoken += [asyncio.run(turn()), asyncio.run(turn())]
    finally:
        assert_no_processes_left(server)
    assert spoken == ["2026-07-28", "2025-11-25", "2025-11-25"]
    modern, remembered, probed, known = methods_by_process(log)
    assert modern == ["server/discover +meta", "tools/list +meta", "tools/call +meta"]
    assert remembered == ["tools/list +meta"], "the era it was found in, without a probe"
    assert probed[0] == "server/discover +meta" and probed[1] == "initialize"
    assert "server/discover +meta" not in known
