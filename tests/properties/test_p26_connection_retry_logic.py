import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.connection_turns import ping, play_turn
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.errors import MCPServerStartupError
from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.servers.connection import ConnectionTracker

# Connect failures wanted on each turn after the first, which always connects.
later_turns = st.lists(st.integers(0, 3), min_size=1, max_size=12)


@given(later_turns)
def test_p26_connection_retry_logic(failures):
    """Property 26: Connection Retry Logic

    *For any* MCP session failure on a subsequent turn (not first turn), the system should retry
    connection exactly once.

    Validates: Requirements 6.7
    """
    server, tracker = FakeToolServer("box", {"ping": ping}), ConnectionTracker()
    telemetry = FakeTelemetry()
    play_turn(server, tracker, telemetry, 1)
    for turn, failing in enumerate(failures, start=2):
        if tracker.is_disabled:
            break
        server.fail_next_connects(failing)
        before = server.connect_attempts
        play_turn(server, tracker, telemetry, turn)
        attempts = server.connect_attempts - before
        assert attempts == (1 if failing == 0 else 2), "a failure is retried exactly once"
        retries = [
            e for e in telemetry.of_type(EventType.MCP_CONNECT_RETRY) if e.fields["turn"] == turn
        ]
        assert len(retries) == (0 if failing == 0 else 1)


@given(st.integers(1, 3))
def test_p26_the_first_turn_is_never_retried(failing):
    server = FakeToolServer("box", {"ping": ping})
    server.fail_next_connects(failing)
    with pytest.raises(MCPServerStartupError):
        play_turn(server, ConnectionTracker(), FakeTelemetry(), 1)
    assert server.connect_attempts == 1 and server.open_sessions == 0
