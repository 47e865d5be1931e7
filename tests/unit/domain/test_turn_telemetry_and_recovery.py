"""What a turn tells telemetry (its session span, a retry, each skipped call) and how the
loop recovers (a call's unexpected error, backtracking up to its bound)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from contextlib import asynccontextmanager

from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply, tool_calls_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer, hang
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.facts.events import SESSION_SPAN, EventType, Level
from zork_mcp.domain.llm.messages import initial_messages
from zork_mcp.domain.loop.agent_turn import decide_action
from zork_mcp.domain.loop.loop_policy import AGENT_POLICY, LoopLimits
from zork_mcp.domain.loop.recovery import Recovery
from zork_mcp.domain.loop.tool_loop import ToolLoop
from zork_mcp.domain.servers.connection import ConnectionState, ConnectionTracker, ServerConnections
from zork_mcp.domain.settings import MCPSettings
from zork_mcp.domain.tools.tool_schema import ToolSpec


def echo(text: str) -> str:
    return text


def turn(llm, server, *, tracker=None, turn_number=3, telemetry=None):
    telemetry = telemetry or FakeTelemetry()
    outcome = asyncio.run(
        decide_action(
            llm=llm,
            messages=initial_messages("s", "u"),
            settings=MCPSettings(
                enabled=True, max_tool_iterations=4, tool_call_timeout_seconds=0.05
            ),
            telemetry=telemetry,
            clock=time.monotonic,
            tool_server=server,
            connection=ServerConnections({server.name: tracker} if server and tracker else {}),
            turn=turn_number,
        )
    )
    return outcome, telemetry


def test_the_session_span_records_the_turn_and_what_it_decided():
    server = FakeToolServer("box", {"echo": echo})
    llm = ScriptedLLM([tool_calls_reply(("box.echo", {"text": "a"})), action_reply("north")])
    _, telemetry = turn(llm, server)
    (span,) = [s for s in telemetry.spans if s.name == SESSION_SPAN]
    assert span.output == "north" and span.closed
    assert span.metadata == {
        "mcp_enabled": True,
        "max_iterations": 4,
        "turn": 3,
        "iterations_used": 2,
        "tools_called": 1,
        "final_action": "north",
        "tools_offered": True,
    }
    assert all(e.fields["turn"] == 3 for e in telemetry.events if "turn" in e.fields)
    (result,) = telemetry.of_type(EventType.MCP_TOOL_RESULT)
    assert (result.fields["server_name"], result.fields["timeout_seconds"]) == ("box", 0.05)


def test_a_retry_that_works_is_reported():
    server = FakeToolServer("box", {"echo": echo})
    server.fail_next_connects(1)
    tracker = ConnectionTracker(ConnectionState.HEALTHY)
    _, telemetry = turn(ScriptedLLM([action_reply("n")]), server, tracker=tracker, turn_number=9)
    (event,) = telemetry.of_type(EventType.MCP_CONNECT_RETRY_SUCCEEDED)
    assert (event.message, event.level, dict(event.fields)) == (
        "MCP server 'box' retry successful",
        Level.INFO,
        {"turn": 9, "server": "box"},
    )


def test_each_skipped_call_is_reported_by_name():
    server = FakeToolServer("box", {"echo": echo, "hang": hang})
    llm = ScriptedLLM(
        [
            tool_calls_reply(("box.hang", {}), ("box.echo", {"text": "a"}), ("box.nope", {})),
            action_reply("n"),
        ]
    )
    _, telemetry = turn(llm, server)
    skipped = telemetry.of_type(EventType.MCP_TOOL_SKIPPED)
    assert [e.fields["tool_name"] for e in skipped] == ["box.echo", "box.nope"]
    assert skipped[0].message.startswith("Skipping box.echo: skipped: an earlier call")


class RaisingSession:
    """A session whose tool call fails with an error the protocol did not expect."""

    tools = (ToolSpec("box", "odd"),)
    rejected = ()
    protocols = ()

    async def call_tool(self, name, arguments, timeout_seconds):
        raise RuntimeError("socket reset")


def test_an_unexpected_error_in_a_call_is_that_call_s_error():
    llm = ScriptedLLM([tool_calls_reply(("box.odd", {})), action_reply("n")])
    loop = ToolLoop(llm, RaisingSession(), LoopLimits(3, 1), FakeTelemetry(), time.monotonic)
    outcome = asyncio.run(loop.run(initial_messages("s", "u")))
    (record,) = outcome.tool_chain
    assert record.result.error_message == "Tool call box.odd failed: RuntimeError: socket reset"
    assert outcome.answer.response.action == "n"


def test_backtracking_stops_at_its_bound():
    def broken(text: str) -> str:
        raise ValueError(text)

    server = FakeToolServer("box", {"broken": broken})
    failing = [tool_calls_reply(("box.broken", {"text": str(i)})) for i in range(4)]
    llm = ScriptedLLM([*failing, action_reply("n")])
    policy = dataclasses.replace(AGENT_POLICY, recovery=Recovery(max_backtracks=2))

    @asynccontextmanager
    async def session():
        async with server.open_session() as opened:
            yield opened

    async def run():
        async with session() as opened:
            loop = ToolLoop(
                llm, opened, LoopLimits(6, 1), FakeTelemetry(), time.monotonic, policy=policy
            )
            return await loop.run(initial_messages("s", "u"))

    outcome = asyncio.run(run())
    assert [b.iteration for b in outcome.backtracks] == [1, 2]
    assert outcome.backtracks[0].prompt == (
        "The previous approach failed. Tool box.broken failed: ValueError: 0. "
        "Please try a different approach."
    )
