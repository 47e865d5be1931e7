"""What an episode is doing now, turn by turn: starting its MCP servers, waiting for the
model, for a tool call (which), or for the game. It is read from the spans the episode opens
and closes and the turns it completes (`after`, one transition a change); the terminal's live
line shows it, and a sweep's worker passes it to the sweep's live panel."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from zork_mcp.domain.facts.span_facts import (
    LLMCalled,
    SpanFacts,
    ToolCalled,
    TurnDecided,
    TurnOpened,
)
from zork_mcp.domain.text.inert import inert


class Waiting(Enum):
    """What the turn waits for."""

    PREPARING = "preparing"  # its prompt, before its session opens
    SERVERS = "servers"  # its MCP servers to start (each turn opens a fresh session)
    MODEL = "model"
    TOOLS = "tools"
    MODEL_ANSWERED = "model answered"  # its tools called next, or its session closed
    TOOLS_ANSWERED = "tools answered"  # the model asked next
    GAME = "game"  # to play the command


@dataclass(frozen=True)
class Activity:
    turn: int
    waiting: Waiting = Waiting.PREPARING
    calls: int = 0  # the turn's LLM calls so far
    tools: tuple[str, ...] = ()  # the tool calls running now
    command: str = ""  # the command the game plays
    mcp: bool = False  # the turn offers MCP tools

    def text(self, servers: Sequence[str] = ()) -> str:
        """`turn 3: waiting for tool memory.get_map…`; `servers`: those the turn starts."""
        return f"turn {self.turn}: {inert(self._doing(servers))}…"

    def _doing(self, servers: Sequence[str]) -> str:
        match self.waiting:
            case Waiting.SERVERS:
                named = f" {', '.join(servers)}" if servers else ""
                return f"starting MCP server{'s' * (len(servers) != 1)}{named}"
            case Waiting.MODEL:
                return "waiting for the model" + (f" (call {self.calls})" if self.calls > 1 else "")
            case Waiting.TOOLS:
                counts = Counter(self.tools)
                named = [f"{tool} ×{n}" if n > 1 else tool for tool, n in counts.items()]
                return f"waiting for tool{'s' * (len(self.tools) > 1)} {', '.join(named)}"
            case Waiting.MODEL_ANSWERED:
                return "the model answered" + ("; closing the MCP session" if self.mcp else "")
            case Waiting.TOOLS_ANSWERED:
                return "the tools answered"
            case Waiting.GAME:
                return f"waiting for the game: > {self.command}"
        return "preparing the turn"


@dataclass(frozen=True)
class SpanOpened:
    facts: SpanFacts | None


@dataclass(frozen=True)
class SpanUpdated:
    facts: SpanFacts | None


@dataclass(frozen=True)
class SpanClosed:
    facts: SpanFacts | None  # the facts it opened with


@dataclass(frozen=True)
class TurnEnded:
    """The turn's command was played and its turn recorded."""


Change = SpanOpened | SpanUpdated | SpanClosed | TurnEnded


def after(activity: Activity | None, change: Change) -> Activity | None:
    """The activity once `change` happened (None: no turn has begun)."""
    now = activity or Activity(0)
    match change:
        case SpanOpened(TurnOpened() as turn):
            first = Waiting.SERVERS if turn.mcp_enabled else Waiting.MODEL
            return Activity(turn.turn, first, mcp=turn.mcp_enabled)
        case SpanOpened(LLMCalled()):
            return replace(now, waiting=Waiting.MODEL, calls=now.calls + 1)
        case SpanClosed(LLMCalled()):
            return replace(now, waiting=Waiting.MODEL_ANSWERED)
        case SpanOpened(ToolCalled() as call):
            return replace(now, waiting=Waiting.TOOLS, tools=(*now.tools, call.tool_name))
        case SpanClosed(ToolCalled() as call):
            tools = _without(now.tools, call.tool_name)
            return replace(
                now, tools=tools, waiting=Waiting.TOOLS if tools else Waiting.TOOLS_ANSWERED
            )
        case SpanUpdated(TurnDecided() as decided):
            return replace(now, waiting=Waiting.GAME, command=decided.final_action, tools=())
        case TurnEnded():
            return Activity(now.turn + 1)
    return activity


def _without(tools: tuple[str, ...], tool: str) -> tuple[str, ...]:
    """`tools` less one call of `tool`."""
    if tool not in tools:
        return tools
    index = tools.index(tool)
    return tools[:index] + tools[index + 1 :]


class ActivityWatch:
    """The episode's activity as it changes, told to whoever listens (the live display reads
    `now`; a sweep's worker listens)."""

    def __init__(self) -> None:
        self.now: Activity | None = None
        self._listeners: list[Callable[[Activity | None], None]] = []

    def listen(self, listener: Callable[[Activity | None], None]) -> None:
        self._listeners.append(listener)

    def change(self, change: Change) -> None:
        changed = after(self.now, change)
        if changed == self.now:
            return
        self.now = changed
        for listener in self._listeners:
            listener(changed)
