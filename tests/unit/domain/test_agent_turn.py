"""A whole agent turn: connect policy (requirements 6.1, 6.7-6.10, 12.5) around the loop."""

from __future__ import annotations

import time
from contextlib import AsyncExitStack, asynccontextmanager

import pytest

from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer, fake_tool_servers
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.builders.providers import PROVIDERS
from zork_mcp.domain.errors import MCPError, MCPServerStartupError
from zork_mcp.domain.facts.events import SESSION_SPAN, EventType
from zork_mcp.domain.llm.messages import ToolResultMessage, initial_messages, user_message
from zork_mcp.domain.loop.agent_turn import connect_tools, decide_action
from zork_mcp.domain.servers.connection import ConnectionState, ConnectionTracker, ServerConnections
from zork_mcp.domain.settings import MCPSettings
from zork_mcp.domain.tools.tool_offer import OfferLimits


def echo(text: str) -> str:
    return text


async def turn(
    server: FakeToolServer | None,
    tracker: ConnectionTracker,
    number: int,
    *,
    model: str = "openai/gpt-4o-mini",
    settings: MCPSettings = MCPSettings(enabled=True),
    offer: OfferLimits | None = None,
) -> tuple[ScriptedLLM, FakeTelemetry, str]:
    llm, telemetry = ScriptedLLM([action_reply("look")], model=model), FakeTelemetry()
    outcome = await decide_action(
        llm=llm,
        messages=initial_messages("sys", "state"),
        settings=settings,
        telemetry=telemetry,
        clock=time.monotonic,
        tool_server=server,
        connection=ServerConnections({server.name: tracker} if server else {}),
        turn=number,
        offer=offer,
    )
    return llm, telemetry, outcome.answer.response.action


async def test_turn_one_failure_raises_startup_error_without_retry():
    server = FakeToolServer("box", {"echo": echo}, connect_failures=5)
    with pytest.raises(MCPServerStartupError, match="box"):
        await turn(server, ConnectionTracker(), 1)
    assert server.connect_attempts == 1
    assert server.open_sessions == 0


async def test_later_failure_is_retried_once_and_the_turn_keeps_its_tools():
    server, tracker = FakeToolServer("box", {"echo": echo}), ConnectionTracker()
    await turn(server, tracker, 1)
    server.fail_next_connects(1)
    llm, telemetry, action = await turn(server, tracker, 2)
    assert server.connect_attempts == 3 and action == "look"
    assert llm.requests[0].tools, "the retried session offers its tools"
    assert telemetry.types()[:2] == ["mcp_connect_retry", "mcp_connect_retry_succeeded"]
    assert tracker.state is ConnectionState.HEALTHY


async def test_each_later_failure_gets_its_own_retry_then_a_failed_retry_disables_mcp():
    server, tracker = FakeToolServer("box", {"echo": echo}), ConnectionTracker()
    await turn(server, tracker, 15)  # design Example 3
    server.fail_next_connects(1)
    await turn(server, tracker, 16)
    server.fail_next_connects(2)
    llm, telemetry, action = await turn(server, tracker, 17)
    assert action == "look" and llm.requests[0].tools is None
    assert telemetry.of_type(EventType.MCP_DISABLED_FALLBACK)
    assert tracker.is_disabled
    attempts = server.connect_attempts
    llm, _, _ = await turn(server, tracker, 18)
    assert server.connect_attempts == attempts, "a disabled episode never connects again"
    assert llm.requests[0].tools is None


async def test_sessions_are_closed_at_the_end_of_every_turn():
    server, tracker = FakeToolServer("box", {"echo": echo}), ConnectionTracker()
    for number in range(1, 4):
        await turn(server, tracker, number)
        assert server.open_sessions == 0
    assert server.sessions_opened == 3


async def test_a_model_that_takes_no_tools_fails_before_any_connect():
    server = FakeToolServer("box", {"echo": echo})
    registry = PROVIDERS["openrouter"].resolve("openai/o1-mini").offer_limits()
    with pytest.raises(MCPError, match="takes no tools"):
        await turn(server, ConnectionTracker(), 1, model="openai/o1-mini", offer=registry)
    assert server.connect_attempts == 0
    forced = MCPSettings(enabled=True, force_tool_support=True)
    _, _, action = await turn(
        server, ConnectionTracker(), 1, model="openai/o1-mini", settings=forced, offer=registry
    )
    assert action == "look"
    takes_tools = PROVIDERS["openai"].resolve("o3-mini").offer_limits()
    _, _, action = await turn(server, ConnectionTracker(), 1, model="o3-mini", offer=takes_tools)
    assert action == "look", "a reasoning model that takes tools is not refused"


async def test_without_a_server_the_turn_is_one_plain_call_inside_a_session_span():
    llm, telemetry, action = await turn(None, ConnectionTracker(), 1)
    assert action == "look" and llm.requests[0].tools is None
    [session] = [span for span in telemetry.spans if span.name == SESSION_SPAN]
    assert session.metadata["mcp_enabled"] is False and session.closed


class BrokenHandshake(FakeToolServer):
    """Its connect fails with an MCP error that is not a startup error of its own."""

    @asynccontextmanager
    async def open_session(self, servers=None):
        self.connect_attempts += 1
        raise MCPError("the handshake broke")
        yield


async def test_a_first_turn_failure_of_any_kind_is_a_startup_error_naming_its_servers():
    server = BrokenHandshake("box", {"echo": echo})
    with pytest.raises(MCPServerStartupError) as caught:
        await turn(server, ConnectionTracker(), 1)
    assert caught.value.servers == ("box",)
    assert str(caught.value) == "MCP server failed to start on the first turn: the handshake broke"


async def test_a_turn_without_tools_says_it_offered_none():
    _, telemetry, _ = await turn(None, ConnectionTracker(), 1)
    [session] = [span for span in telemetry.spans if span.name == SESSION_SPAN]
    assert session.metadata["tools_offered"] is False


async def test_the_session_span_shows_what_the_agent_was_shown_last():
    llm, telemetry = ScriptedLLM([action_reply("look")]), FakeTelemetry()
    messages = initial_messages("sys", "state", "memories")
    newest = user_message("the newest state")
    messages.append(newest)
    await decide_action(
        llm=llm,
        messages=messages,
        settings=MCPSettings(enabled=True),
        telemetry=telemetry,
        clock=time.monotonic,
    )
    [session] = [span for span in telemetry.spans if span.name == SESSION_SPAN]
    assert session.input is newest


async def test_the_settings_bound_a_tool_result_the_model_sees():
    def long(text: str) -> str:
        return text * 5_000

    server = FakeToolServer("box", {"long": long})
    llm = ScriptedLLM([tool_calls_reply(("box.long", {"text": "ab"})), action_reply("look")])
    settings = MCPSettings(enabled=True, max_tool_result_chars=1_000)
    await decide_action(
        llm=llm,
        messages=initial_messages("sys", "state"),
        settings=settings,
        telemetry=FakeTelemetry(),
        clock=time.monotonic,
        tool_server=server,
        connection=ServerConnections({server.name: ConnectionTracker()}),
        turn=1,
    )
    [result] = [m for m in llm.requests[1].messages if isinstance(m, ToolResultMessage)]
    assert len(result.result.to_json()) <= 1_000


async def test_a_disabled_server_is_not_connected_again_and_the_others_keep_their_tools():
    def look() -> str:
        return "a room"

    def take() -> str:
        return "taken"

    good, bad = FakeToolServer("good", {"look": look}), FakeToolServer("bad", {"take": take})
    connections = ServerConnections(
        {"good": ConnectionTracker(), "bad": ConnectionTracker(ConnectionState.DISABLED)}
    )
    async with AsyncExitStack() as stack:
        session = await connect_tools(
            fake_tool_servers([good, bad]), connections, stack, FakeTelemetry(), turn=3
        )
        assert session is not None and [t.name for t in session.tools] == ["look"]
    assert (good.connect_attempts, bad.connect_attempts) == (1, 0)


async def test_a_turn_given_no_number_is_turn_zero_and_an_empty_history_shows_nothing():
    telemetry = FakeTelemetry()
    await decide_action(
        llm=ScriptedLLM([action_reply("look")]),
        messages=[],
        settings=MCPSettings(enabled=True),
        telemetry=telemetry,
        clock=time.monotonic,
    )
    [session] = [span for span in telemetry.spans if span.name == SESSION_SPAN]
    assert session.input is None and session.metadata["turn"] == 0
