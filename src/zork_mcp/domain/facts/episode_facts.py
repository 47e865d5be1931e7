"""What an episode's own events say, typed: the orchestrator writes these payloads as its
episode_start, episode_resumed, turn_complete, budget_reached and episode_end events, and the
log's readers (show, the HTML report, a resumed sweep episode) get the same types back from
`LoggedEvent.payload`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from zork_mcp.domain.episode.episode import EndReason, EpisodeSummary
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.llm.budget import Budget, Spend
from zork_mcp.domain.llm.messages import CostParts, Usage


@dataclass(frozen=True)
class EpisodeStarted:
    """Whether the agent has MCP tools, the turn limit it plays to, and where it starts (or,
    resumed, goes on) after how many turns."""

    mcp_enabled: bool
    max_turns: int
    room: str = ""
    location: int = 0  # the Z-machine object of `room` (0: unknown)
    turn: int = 0  # the turns already played: 0, or where a resumed episode goes on

    def fields(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> EpisodeStarted:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in names})


@dataclass(frozen=True)
class TurnCompleted:
    """A turn's facts, the command played, the agent's reasoning and the game's answer."""

    facts: TurnFacts
    action: str
    reasoning: str
    observation: str  # cut to the orchestrator's OBSERVATION_CHARS
    iterations: int  # of the tool loop

    def fields(self) -> dict[str, Any]:
        said = {name: getattr(self, name) for name in _BESIDE_FACTS}
        return said | self.facts.fields()

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> TurnCompleted:
        said = {name: values[name] for name in _BESIDE_FACTS if name in values}
        return cls(TurnFacts.from_fields(values), **(_TURN_BEFORE | said))


_BESIDE_FACTS = ("action", "reasoning", "observation", "iterations")
# What a turn_complete written by an earlier version lacks: the game's answer.
_TURN_BEFORE: dict[str, Any] = {"observation": ""}


@dataclass(frozen=True)
class EpisodeEnded:
    """The episode's totals and why it ended."""

    turns: int
    score: int
    moves: int
    room: str | None
    tool_calls: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    cost_usd: float | None
    end_reason: EndReason
    error: str | None
    seconds: float
    cache_write_tokens: int = 0
    cost_parts: CostParts | None = None  # the cost by part, where the price list knows it
    unpriced: str | None = None  # why there is no cost
    unreadable_replies: int = 0  # replies the agent could not read (0 in a log from before)

    @property
    def usage(self) -> Usage:
        """Its totals as the usage they were summed from."""
        return Usage(
            self.prompt_tokens,
            self.completion_tokens,
            self.cached_tokens,
            self.cost_usd,
            cache_write_tokens=self.cache_write_tokens,
            cost_parts=self.cost_parts,
            unpriced=self.unpriced,
        )

    def __post_init__(self) -> None:
        object.__setattr__(self, "end_reason", EndReason(self.end_reason))

    @classmethod
    def of(cls, summary: EpisodeSummary) -> EpisodeEnded:
        usage = summary.usage
        return cls(
            turns=summary.turns,
            score=summary.score,
            moves=summary.moves,
            room=summary.room,
            tool_calls=summary.tool_calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cached_tokens=usage.cached_tokens,
            cost_usd=usage.cost_usd,
            end_reason=summary.end_reason,
            error=summary.error,
            seconds=round(summary.seconds, 3),
            cache_write_tokens=usage.cache_write_tokens,
            cost_parts=usage.cost_parts,
            unpriced=usage.unpriced,
            unreadable_replies=summary.unreadable_replies,
        )

    def fields(self) -> dict[str, Any]:
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        parts = self.cost_parts and {
            f.name: getattr(self.cost_parts, f.name) for f in fields(self.cost_parts)
        }
        return values | {"end_reason": str(self.end_reason), "cost_parts": parts}  # plain JSON

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> EpisodeEnded:
        names = {f.name for f in fields(cls)}
        known = _ENDED_BEFORE | {k: v for k, v in values.items() if k in names}
        parts = known.get("cost_parts")
        known["cost_parts"] = CostParts(**parts) if isinstance(parts, Mapping) else None
        return cls(**known)


# What an episode_end written by an earlier version lacks: its cost, cached tokens and error.
_ENDED_BEFORE: dict[str, Any] = {"cached_tokens": 0, "cost_usd": None, "error": None}


@dataclass(frozen=True)
class BudgetReached:
    """The run's budget stopped the episode after `turn`: what it allows, what was spent,
    and the estimate of the call it did not start (None: no such limit, or unpriced)."""

    turn: int
    budget_usd: float | None
    budget_tokens: int | None
    spent_usd: float | None
    spent_tokens: int
    next_call_usd: float | None
    next_call_tokens: int

    def line(self) -> str:
        """'stopped by the budget: $0.50 spent of $0.50; the next call needed about ...'"""
        return f"stopped by the budget: {self.figures()}"

    def figures(self) -> str:
        """'908 of 3,000 tokens spent, and the next LLM call would have taken about 2,203
        tokens' (in dollars too, where the budget has a dollar limit)."""
        budget = Budget(self.budget_usd, self.budget_tokens)
        spent = Spend(self.spent_tokens, self.spent_usd)
        usd = self.next_call_usd if self.budget_usd is not None else None
        need = Budget(usd, self.next_call_tokens if self.budget_tokens is not None else None)
        return (
            f"{budget.describe(spent)} spent, and the next LLM call would have taken about "
            f"{need.describe()}"
        )

    def fields(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> BudgetReached:
        return cls(**{f.name: values.get(f.name) for f in fields(cls)})


@dataclass(frozen=True)
class EpisodeResumed:
    """Where a resumed episode goes on: after which turn, with the score it had then. Read
    back, what the line lacks is None (an earlier version wrote no score)."""

    turn: int | None
    score: int | None = None

    def fields(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> EpisodeResumed:
        return cls(**{f.name: values.get(f.name) for f in fields(cls)})


EpisodeFact = EpisodeStarted | EpisodeResumed | TurnCompleted | EpisodeEnded | BudgetReached
