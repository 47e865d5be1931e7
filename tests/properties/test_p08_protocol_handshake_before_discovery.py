import asyncio
import tempfile
from pathlib import Path

from hypothesis import given, settings

from tests.support.processes import assert_no_processes_left
from tests.support.raw_servers import raw_server
from tests.support.strategies import mcp_tool_sets


@settings(max_examples=50)
@given(mcp_tool_sets)
def test_p08_protocol_handshake_before_discovery(tools):
    """Property 8: Protocol Handshake Before Discovery

    *For any* MCP session establishment, session.initialize() should be called before tool
    schema discovery.

    Validates: Requirements 3.3, 3.4
    """
    with tempfile.TemporaryDirectory() as directory:
        log = Path(directory) / "methods.log"
        server = raw_server(log, tools=tools)

        async def discover():
            async with server.open_session() as session:
                return [spec.name for spec in session.tools]

        try:
            discovered = asyncio.run(discover())
        finally:
            assert_no_processes_left(server)
        methods = log.read_text().splitlines()
    assert methods[:3] == ["initialize", "notifications/initialized", "tools/list"]
    assert methods.count("initialize") == 1 and methods.count("tools/list") == 1
    assert discovered == [*tools, "environ", "pid"]
