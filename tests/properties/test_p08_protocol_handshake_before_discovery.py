import asyncio
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.processes import assert_no_processes_left
from tests.support.raw_servers import methods_by_process, raw_server
from tests.support.strategies import mcp_tool_sets

HANDSHAKE = ["initialize", "notifications/initialized", "tools/list"]
MODERN = "2026-07-28"

# What the server speaks, and what its entry pins: every pairing the client may meet.
connections = st.sampled_from(
    [
        ("handshake", None),
        ("handshake", "2025-11-25"),
        ("both", None),
        ("both", "2025-11-25"),
        ("both", MODERN),
        ("modern", None),
        ("modern", MODERN),
    ]
)


def speaks_modern(eras: str, pin: str | None) -> bool:
    return pin == MODERN or (pin is None and eras != "handshake")


@settings(max_examples=40)
@given(mcp_tool_sets, connections, st.integers(1, 3))
def test_p08_protocol_handshake_before_discovery(tools, connection, turns):
    """Property 8: Protocol Handshake Before Discovery

    *For any* MCP session establishment, session.initialize() should be called before tool
    schema discovery.

    In both eras: in the handshake era `initialize` (then `notifications/initialized`)
    comes before `tools/list` in every session; in the stateless era (2026-07-28) the
    episode's `server/discover` came before the first `tools/list`, and every `tools/list`
    carries the version and client capabilities in `_meta`. The era is probed once an
    episode, never again, and never when the config pins it.

    Validates: Requirements 3.3, 3.4
    """
    eras, pin = connection
    with tempfile.TemporaryDirectory() as directory:
        log = Path(directory) / "methods.log"
        server = raw_server(log, tools=tools, eras=eras, protocol=pin)

        async def discover():
            found = []
            for _ in range(turns):
                async with server.open_session() as session:
                    found.append(([spec.name for spec in session.tools], session.protocols))
            return found

        try:
            discovered = asyncio.run(discover())
        finally:
            assert_no_processes_left(server)
        sessions = methods_by_process(log)
    assert len(sessions) == turns, "a fresh server process every session"
    probed = pin is None
    first, *later = sessions
    if speaks_modern(eras, pin):
        assert first == (["server/discover +meta"] if probed else []) + ["tools/list +meta"]
        assert all(session == ["tools/list +meta"] for session in later)
    else:
        assert first == (["server/discover +meta"] if probed else []) + HANDSHAKE
        assert all(session == HANDSHAKE for session in later)
    for names, protocols in discovered:
        assert names == [*tools, "environ", "pid"]
        (protocol,) = protocols
        assert protocol.version == (MODERN if speaks_modern(eras, pin) else "2025-11-25")
