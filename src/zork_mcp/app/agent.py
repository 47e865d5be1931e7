"""ZorkAgent: the synchronous face of the async tool-calling turn (requirements 9, 10, 15).

Every call to get_action_with_reasoning runs exactly one asyncio.run; the LLM client, the
tool session and everything else that belongs to an event loop live inside it. Another
thread can stop the episode as Ctrl-C stops it (`interrupt`): a sweep worker plays many
episodes at once, one per thread, and only its main thread ever sees a signal.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TypeVar

from zork_mcp.domain.errors import NestedEventLoopError
from zork_mcp.domain.llm.messages import Message, initial_messages
from zork_mcp.domain.loop.agent_response import ParsedAnswer
from zork_mcp.domain.loop.agent_turn import decide_action
from zork_mcp.domain.loop.loop_records import LoopOutcome
from zork_mcp.domain.loop.tool_loop import Clock
from zork_mcp.domain.servers.connection import ServerConnections
from zork_mcp.domain.settings import MCPSettings
from zork_mcp.domain.tools.tool_offer import OfferLimits, ToolNotices
from zork_mcp.ports.llm import LLM
from zork_mcp.ports.telemetry import Telemetry
from zork_mcp.ports.tool_server import ToolServer

LLMSession = Callable[[], AbstractAsyncContextManager[LLM]]
T = TypeVar("T")


@dataclass(frozen=True)
class Decision:
    """The agent's answer for one turn, and how its tool loop came to it."""

    action: str
    reasoning: str
    new_objective: str | None
    outcome: LoopOutcome[ParsedAnswer]

    @property
    def unreadable(self) -> str | None:
        """Why the model's reply could not be read, so the fallback is played (None: read)."""
        return self.outcome.answer.error

    @classmethod
    def of(cls, outcome: LoopOutcome[ParsedAnswer]) -> Decision:
        response = outcome.answer.response
        return cls(response.action, response.thinking, response.new_objective, outcome)

    def as_dict(self) -> dict[str, str | None]:
        """The reply of spec 002's `get_action_with_reasoning`."""
        return {
            "action": self.action,
            "reasoning": self.reasoning,
            "new_objective": self.new_objective,
        }


class ZorkAgent:
    def __init__(
        self,
        *,
        llm_session: LLMSession,
        settings: MCPSettings,
        telemetry: Telemetry,
        system_prompt: str,
        tool_server: ToolServer | None = None,
        clock: Clock = time.monotonic,
        offer: OfferLimits | None = None,
    ) -> None:
        """`offer`: the provider's limits on the tools a request offers (its registry entry)."""
        self._llm_session, self._settings, self._offer = llm_session, settings, offer
        self._telemetry, self._system_prompt = telemetry, system_prompt
        self.tool_server, self._clock = tool_server, clock
        self.connection = ServerConnections.of(tool_server.server_names if tool_server else ())
        self.notices = ToolNotices()
        self.turn = 0
        self._interrupted = False
        self._lock = threading.Lock()
        self._running: tuple[asyncio.AbstractEventLoop, asyncio.Task[object]] | None = None

    @property
    def system_prompt(self) -> str:
        return self._system_prompt

    def interrupt(self) -> None:
        """From any thread: the turn in progress is cancelled (its sessions closed as on
        Ctrl-C) and raises KeyboardInterrupt, or else the next turn does."""
        with self._lock:
            self._interrupted, running = True, self._running
        if running is not None:
            loop, task = running
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(task.cancel)

    def get_action_with_reasoning(
        self, game_state_text: str, relevant_memories: str | None = None
    ) -> dict[str, str | None]:
        """{"action", "reasoning", "new_objective"} for the next turn; synchronous (spec 002)."""
        messages = initial_messages(self._system_prompt, game_state_text, relevant_memories)
        return self.decide_turn(messages, self.turn + 1).as_dict()

    def decide_turn(self, messages: list[Message], turn: int) -> Decision:
        """Turn `turn`'s decision from the conversation it is shown; synchronous."""
        if _loop_is_running():
            raise NestedEventLoopError(
                "The agent's turn is synchronous and was called from a running event loop; "
                "in async code call `await agent.decide_messages(...)` instead."
            )
        if self._interrupted:
            raise KeyboardInterrupt
        self.turn = turn
        try:
            outcome = asyncio.run(self._interruptible(self.decide_messages(messages, turn)))
        except asyncio.CancelledError:
            if self._interrupted:
                raise KeyboardInterrupt from None
            raise
        return Decision.of(outcome)

    async def _interruptible(self, turn: Awaitable[T]) -> T:
        with self._lock:
            task = asyncio.current_task()
            assert task is not None
            self._running = asyncio.get_running_loop(), task
            if self._interrupted:
                task.cancel()
        try:
            return await turn
        finally:
            with self._lock:
                self._running = None

    async def decide(
        self, game_state_text: str, relevant_memories: str | None = None
    ) -> LoopOutcome[ParsedAnswer]:
        """The next turn's outcome from one state text, in async code."""
        messages = initial_messages(self._system_prompt, game_state_text, relevant_memories)
        return await self.decide_messages(messages, self.turn + 1)

    async def decide_messages(
        self, messages: list[Message], turn: int
    ) -> LoopOutcome[ParsedAnswer]:
        async with self._llm_session() as llm:
            return await decide_action(
                llm=llm,
                messages=messages,
                settings=self._settings,
                telemetry=self._telemetry,
                clock=self._clock,
                tool_server=self.tool_server,
                connection=self.connection,
                turn=turn,
                offer=self._offer,
                notices=self.notices,
            )


def _loop_is_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
