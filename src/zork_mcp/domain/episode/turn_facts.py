"""What one turn of an episode came to: the facts a sweep stores for each turn.

The orchestrator writes them into the turn's `turn_complete` event (in its `TurnCompleted`
payload), so the episode's log holds them; a sweep stores them in its `turns` table, and a
resumed episode reads the turns it had played back from its log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class ToolUse:
    """How often one tool was called in a turn, and how many of those calls failed."""

    tool: str
    calls: int
    errors: int = 0


@dataclass(frozen=True)
class TurnFacts:
    turn: int
    score: int
    moves: int
    tool_calls: int
    room: str = ""
    valid: bool = True  # the game read the command: not an unknown word, nor refused
    died: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_seconds: float = 0.0
    tool_errors: int = 0
    tools: tuple[ToolUse, ...] = ()
    location: int = 0  # the Z-machine object of `room` (0: unknown)
    repeated: bool = False  # a command played before from the same place, answered the same
    cost_usd: float | None = None  # its LLM calls' cost (None: unpriced, or logged before)
    unreadable: bool = False  # the model's reply could not be read: the fallback was played

    def fields(self) -> dict[str, Any]:
        """As an event's fields: plain JSON values, tools as {tool: [calls, errors]}."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["tools"] = {use.tool: [use.calls, use.errors] for use in self.tools}
        return values

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> TurnFacts:
        """From an event's fields; a field an older log lacks takes its default."""
        known = {f.name for f in fields(cls)} - {"tools"}
        kept = {name: values[name] for name in known if values.get(name) is not None}
        tools = values.get("tools") or {}
        return cls(**kept, tools=tool_uses((name, *counts) for name, counts in tools.items()))


def tool_uses(calls: Iterable[tuple[str, int, int]]) -> tuple[ToolUse, ...]:
    """(tool, calls, errors) rows, summed per tool, in the order tools were first called."""
    totals: dict[str, list[int]] = {}
    for tool, count, errors in calls:
        total = totals.setdefault(tool, [0, 0])
        total[0] += count
        total[1] += errors
    return tuple(ToolUse(tool, count, errors) for tool, (count, errors) in totals.items())
