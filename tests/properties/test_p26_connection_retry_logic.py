import asyncio
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.agent_turn import decide_action
from zork_mcp.domain.connection import ConnectionTracker, ServerConnections
from zork_mcp.domain.errors import MCPServerStartupError
from zork_mcp.domain.events import EventType
from zork_mcp.domain.messages import initial_messages
from zork_mcp.domain.settings import MCPSettings

# Connect failures wanted on each turn after the first, which always connects.
later_turns = st.lists(st.integers(0, 3), min_size=1, max_size=12)


def ping() -> str:
    return "pong"


def play_turn(server, tracker, telemetry, turn):
    llm = ScriptedLLM([action_reply("look")])
    outcome = asyncio.run(
        decide_action(
            llm=llm,
            messages=initial_messages("s", "u"),
            settings=MCPSettings(enabled=True),
            telemetry=telemetry,
            clock=time.monotonic,
            tool_server=server,
            connection=ServerConnections({server.name: tracker}),
            turn=turn,
        )
    )
    return outcome, llm


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
