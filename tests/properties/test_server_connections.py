"""Requirements 6.7-6.10 for each configured server (issue 26): random connect failures on
three servers over many turns; each server is retried and disabled on its own, a first-turn
failure of any one ends the episode naming it, and the others keep their tools."""

from __future__ import annotations

import asyncio
import time

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer, fake_tool_servers
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.errors import MCPServerStartupError
from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.llm.messages import initial_messages
from zork_mcp.domain.loop.agent_turn import decide_action
from zork_mcp.domain.servers.connection import ConnectionState, ServerConnections
from zork_mcp.domain.settings import MCPSettings

NAMES = ("a", "b", "c")


def ping() -> str:
    return "pong"


class ThreeServers(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.parts = {name: FakeToolServer(name, {"ping": ping}) for name in NAMES}
        self.server = fake_tool_servers(list(self.parts.values()))
        self.connections = ServerConnections()
        self.turn = 0
        self.ended = False
        self.disabled: set[str] = set()

    @precondition(lambda self: not self.ended)  # a first-turn failure ends the episode
    @rule(failures=st.fixed_dictionaries({name: st.integers(0, 3) for name in NAMES}))
    def play_turn(self, failures: dict[str, int]) -> None:
        self.turn += 1
        for name, count in failures.items():
            self.parts[name].fail_next_connects(count)
        before = {name: part.connect_attempts for name, part in self.parts.items()}
        llm, telemetry = ScriptedLLM([action_reply("look")]), FakeTelemetry()
        try:
            asyncio.run(self._decide(llm, telemetry))
        except MCPServerStartupError as error:
            self._check_startup_failure(failures, error)
            return
        finally:
            for part in self.parts.values():
                part.fail_next_connects(0)
        tried = {n for n, part in self.parts.items() if part.connect_attempts > before[n]}
        assert not tried & self.disabled, "a disabled server was connected again"
        newly = {n for n in NAMES if failures[n] >= 2 and n not in self.disabled}
        self.disabled |= newly
        assert self._offered(llm) == set(NAMES) - self.disabled
        events = telemetry.of_type(EventType.MCP_DISABLED_FALLBACK)
        assert {event.fields["server"] for event in events} == newly

    @precondition(lambda self: self.ended)
    @rule()
    def the_episode_is_over(self) -> None:
        """Nothing follows a first-turn failure: the run ended with it."""

    async def _decide(self, llm: ScriptedLLM, telemetry: FakeTelemetry) -> None:
        await decide_action(
            llm=llm,
            messages=initial_messages("sys", "state"),
            settings=MCPSettings(enabled=True),
            telemetry=telemetry,
            clock=time.monotonic,
            tool_server=self.server,
            connection=self.connections,
            turn=self.turn,
        )

    def _offered(self, llm: ScriptedLLM) -> set[str]:
        tools = llm.requests[0].tools or ()
        return {tool.name.split(".", 1)[0] for tool in tools}

    def _check_startup_failure(
        self, failures: dict[str, int], error: MCPServerStartupError
    ) -> None:
        assert self.turn == 1
        failed = {name for name, count in failures.items() if count >= 1}
        assert set(error.servers) == failed and all(f"'{n}'" in str(error) for n in failed)
        states = self.connections.states()
        assert {n for n, s in states.items() if s is ConnectionState.STARTUP_FAILED} == failed
        self.ended = True

    @invariant()
    def no_session_left_open(self) -> None:
        assert all(part.open_sessions == 0 for part in self.parts.values())

    @invariant()
    def each_server_is_disabled_alone(self) -> None:
        states = self.connections.states()
        assert {n for n, s in states.items() if s is ConnectionState.DISABLED} == self.disabled
        assert self.connections.is_disabled == (self.disabled == set(NAMES))


ThreeServers.TestCase.settings = settings(max_examples=120, stateful_step_count=10, deadline=None)
TestThreeServers = ThreeServers.TestCase
