"""Random connect success/failure sequences over many turns (requirements 6.1, 6.7-6.10).

Drives the real `decide_action` through the fake tool server and checks R6's rules after
every turn: turn-1 failure raises without retry; each later failure gets exactly one retry;
a failed retry disables MCP; a disabled episode never connects again; no session stays open.
"""

from __future__ import annotations

import asyncio
import time

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.domain.errors import MCPServerStartupError
from zork_mcp.domain.llm.messages import initial_messages
from zork_mcp.domain.loop.agent_turn import decide_action
from zork_mcp.domain.servers.connection import ConnectionState, ConnectionTracker, ServerConnections
from zork_mcp.domain.settings import MCPSettings


def ping() -> str:
    return "pong"


class EpisodeConnections(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.server = FakeToolServer("box", {"ping": ping})
        self.tracker = ConnectionTracker()
        self.turn = 0
        self.ended = False
        self.disabled = False

    @rule(failures=st.integers(min_value=0, max_value=3))
    def play_turn(self, failures: int) -> None:
        self.turn += 1
        self.server.fail_next_connects(failures)
        before = self.server.connect_attempts
        llm = ScriptedLLM([action_reply("look")])
        try:
            asyncio.run(self._decide(llm))
        except MCPServerStartupError:
            self._check_startup_failure(failures, self.server.connect_attempts - before)
            return
        attempts = self.server.connect_attempts - before
        offered = llm.requests[0].tools is not None
        self.server.fail_next_connects(0)
        if self.disabled or self.ended:
            assert attempts == 0 and not offered
        elif self.turn == 1:
            assert (failures, attempts, offered) == (0, 1, True)
        else:
            assert attempts == (1 if failures == 0 else 2)
            assert offered == (failures <= 1)
            self.disabled = failures >= 2

    async def _decide(self, llm: ScriptedLLM) -> None:
        await decide_action(
            llm=llm,
            messages=initial_messages("sys", "state"),
            settings=MCPSettings(enabled=True),
            telemetry=FakeTelemetry(),
            clock=time.monotonic,
            tool_server=self.server,
            connection=ServerConnections({self.server.name: self.tracker}),
            turn=self.turn,
        )

    def _check_startup_failure(self, failures: int, attempts: int) -> None:
        assert self.turn == 1 and failures >= 1 and attempts == 1
        assert self.tracker.state is ConnectionState.STARTUP_FAILED
        self.ended = True

    @invariant()
    def no_session_left_open(self) -> None:
        assert self.server.open_sessions == 0

    @invariant()
    def disabled_flag_matches_the_rules(self) -> None:
        assert self.tracker.is_disabled == self.disabled
        assert self.tracker.may_connect == (not self.disabled and not self.ended)


EpisodeConnections.TestCase.settings = settings(
    max_examples=150, stateful_step_count=12, deadline=None
)
TestEpisodeConnections = EpisodeConnections.TestCase
