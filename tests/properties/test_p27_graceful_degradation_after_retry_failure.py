from hypothesis import given
from hypothesis import strategies as st

from tests.support.connection_turns import ping, play_turn
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.servers.connection import ConnectionTracker


@given(st.integers(0, 5), st.integers(2, 3), st.integers(1, 6))
def test_p27_graceful_degradation_after_retry_failure(healthy_turns, failing, turns_after):
    """Property 27: Graceful Degradation After Retry Failure

    *For any* retry connection that fails, the system should disable MCP for the remainder of
    the episode and set the disabled flag.

    Validates: Requirements 6.8, 6.9
    """
    server, tracker = FakeToolServer("box", {"ping": ping}), ConnectionTracker()
    telemetry = FakeTelemetry()
    for turn in range(1, healthy_turns + 2):
        play_turn(server, tracker, telemetry, turn)
    server.fail_next_connects(failing)
    outcome, llm = play_turn(server, tracker, telemetry, healthy_turns + 2)
    assert tracker.is_disabled, "the disabled flag is set"
    assert outcome.answer.response.action == "look" and llm.requests[0].tools is None
    assert len(telemetry.of_type(EventType.MCP_DISABLED_FALLBACK)) == 1
    attempts = server.connect_attempts
    server.fail_next_connects(0)
    for turn in range(turns_after):
        outcome, llm = play_turn(server, tracker, telemetry, healthy_turns + 3 + turn)
        assert llm.requests[0].tools is None and outcome.answer.response.action == "look"
    assert server.connect_attempts == attempts, "never reconnects this episode"
    assert server.open_sessions == 0
