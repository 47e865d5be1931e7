"""The metrics a sweep reports per cell, each an episode's value averaged over a cell's
finished episodes with its bootstrap CI; and the tool use and room curves of its plots.

A value an episode does not have (a metric its row was stored without, no LLM call timed)
is left out of that metric's average, not counted as zero. Memory at work shows in where
the player goes: rooms it comes back to, how long it takes to come back, and commands it
plays again where they changed nothing before.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from zork_mcp.domain.episode.turn_facts import ToolUse, TurnFacts, tool_uses
from zork_mcp.domain.sweep.records import EpisodeRecord, Place, place
from zork_mcp.domain.sweep.statistics import Estimate, difference_ci, mean_ci


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    of: Callable[[EpisodeRecord], float | None]
    meaning: str = ""  # what it counts and from what, as the report explains it


@dataclass(frozen=True)
class Return:
    """A room the player came back to: the turn it first stood there, the turn it first
    entered it again after leaving it."""

    place: Place
    first_visit: int
    first_return: int

    @property
    def turns(self) -> int:
        return self.first_return - self.first_visit


def returns(trajectory: Sequence[TurnFacts]) -> list[Return]:
    """Each room entered again after leaving it, once, in the order of the returns. A turn
    whose room is unknown moves the player nowhere; the room an episode starts in counts
    from the first turn that ends there (the trajectory holds where turns left it)."""
    first: dict[Place, int] = {}
    found: dict[Place, Return] = {}
    here: Place | None = None
    for turn in trajectory:
        at = place(turn)
        if at is None or at == here:
            continue
        if at in first and at not in found:
            found[at] = Return(at, first[at], turn.turn)
        first.setdefault(at, turn.turn)
        here = at
    return list(found.values())


def rooms_revisited(trajectory: Sequence[TurnFacts]) -> int | None:
    """Distinct rooms entered again after leaving them (None: no turn says where it was)."""
    if all(place(turn) is None for turn in trajectory):
        return None
    return len(returns(trajectory))


def turns_to_return(trajectory: Sequence[TurnFacts]) -> float | None:
    """The median, over the rooms come back to, of the turns from the first visit to the
    first return (None: no room was come back to)."""
    gaps = [found.turns for found in returns(trajectory)]
    return float(np.median(gaps)) if gaps else None


def repeated_share(trajectory: Sequence[TurnFacts]) -> float | None:
    """The share of turns that repeated a command from the same place and were answered the
    same (None: no turn)."""
    if not trajectory:
        return None
    return sum(turn.repeated for turn in trajectory) / len(trajectory)


def _invalid_rate(record: EpisodeRecord) -> float | None:
    if record.invalid_commands is None or not record.turns:
        return None
    return record.invalid_commands / record.turns


def _unreadable_rate(record: EpisodeRecord) -> float | None:
    if record.unreadable_replies is None or not record.turns:
        return None
    return record.unreadable_replies / record.turns


def _repeated_rate(record: EpisodeRecord) -> float | None:
    # a row stored before turns said whether they repeated has them all False: left out
    return None if record.repeated_commands is None else repeated_share(record.trajectory)


def _latency(record: EpisodeRecord, quantile: float) -> float | None:
    # a function called per record, not a closure built at import, so that mutation testing
    # (which swaps a function body when it is called) reaches it
    seconds = [turn.llm_seconds for turn in record.trajectory if turn.llm_seconds > 0]
    return float(np.quantile(seconds, quantile)) if seconds else None


METRICS = (
    Metric("final_score", "final score", lambda r: r.score,
           "the score after the episode's last turn, as the game counts it; Zork I takes 10 "
           "points a death, so it can be below the best score"),
    Metric("best_score", "best score", lambda r: r.best_score,
           "the highest score after any turn, from the episode's turns (TALES's highscore, "
           "which TALES reads at 100 steps)"),
    Metric("normalized_score", "final score / maximum", lambda r: r.normalized_score,
           "the final score over the game's most points (Zork I 350, Zork II 400, Zork III 7; "
           "TALES's normalized score), which puts games side by side"),
    Metric("rooms", "rooms visited", lambda r: r.rooms_visited,
           "rooms the player stood in after a turn, from each turn's room, told apart by their "
           "Z-machine object (so Zork I's several Forests count apart)"),
    Metric("rooms_revisited", "rooms revisited", lambda r: rooms_revisited(r.trajectory),
           "rooms entered again after leaving them, from the turns' rooms (a room is its "
           "location object, else its name)"),
    Metric("return_turns", "turns to return, median", lambda r: turns_to_return(r.trajectory),
           "per room come back to, the turns from its first visit to its first return; the "
           "episode's median (an episode with no return is left out)"),
    Metric("repeated_rate", "repeats that changed nothing / turn", _repeated_rate,
           "turns that played a command again from the same place and got the same answer, "
           "over the episode's turns (episodes stored before issue 45 are left out)"),
    Metric("deaths", "deaths", lambda r: r.deaths,
           "turns whose text says “You have died” (an episode plays on after a death Zork "
           "survives)"),
    Metric("unreadable_rate", "unreadable replies / turn", _unreadable_rate,
           "replies the agent could not read (neither a JSON answer nor a one-line command), "
           "each played as `look`, over the episode's turns: a model that answers in a form "
           "the agent cannot read (episodes stored before issue 67 are left out)"),
    Metric("invalid_rate", "invalid commands / turn", _invalid_rate,
           "commands the game did not read (its parser refused them, or we did before they "
           "reached it), over the episode's turns"),
    Metric("tokens", "tokens (in + out)", lambda r: r.prompt_tokens + r.completion_tokens,
           "the prompt and completion tokens of the episode's LLM calls, as the provider "
           "reports them"),
    Metric("cost_usd", "$", lambda r: r.cost_usd,
           "the episode's LLM cost in dollars, each call priced from genai-prices' price data "
           "(a provider's own reported cost wins); an unpriced episode is left out, and its "
           "cell says why"),
    Metric("latency_p50", "LLM s / turn, p50", lambda r: _latency(r, 0.5),
           "the median of the episode's turns' LLM time, in seconds"),
    Metric("latency_p95", "LLM s / turn, p95", lambda r: _latency(r, 0.95),
           "the 95th percentile of the episode's turns' LLM time, in seconds"),
)  # fmt: skip
BY_NAME = {metric.name: metric for metric in METRICS}
MEMORY = ("rooms_revisited", "return_turns", "repeated_rate")  # memory at work, read from turns
COMPARED = (  # MCP on minus off, within a game
    "final_score",
    "rooms",
    "rooms_revisited",
    "return_turns",
    "repeated_rate",
)
# MCP on minus off over several games together: only a score over each game's own maximum
# puts Zork I's 350 points, Zork II's 400 and Zork III's 7 on one scale.
POOLED = ("normalized_score",)


def by_game(records: Sequence[EpisodeRecord]) -> dict[str, list[EpisodeRecord]]:
    """The episodes of each game, by its key, the games in the order their episodes come."""
    games: dict[str, list[EpisodeRecord]] = {}
    for record in records:
        games.setdefault(record.game_key, []).append(record)
    return games


def values(records: Sequence[EpisodeRecord], metric: Metric) -> list[float]:
    found = (metric.of(record) for record in records)
    return [float(value) for value in found if value is not None and not math.isnan(value)]


def estimates(records: Sequence[EpisodeRecord]) -> dict[str, Estimate]:
    """Each metric's mean over the episodes that have it, with its 95% bootstrap CI."""
    return {metric.name: mean_ci(values(records, metric)) for metric in METRICS}


def difference(
    treated: Sequence[EpisodeRecord], control: Sequence[EpisodeRecord], name: str
) -> Estimate:
    metric = BY_NAME[name]
    return difference_ci(values(treated, metric), values(control, metric))


def tool_use(records: Sequence[EpisodeRecord]) -> tuple[ToolUse, ...]:
    """Calls and failed calls per tool over all the episodes' turns."""
    return tool_uses(
        (use.tool, use.calls, use.errors)
        for record in records
        for turn in record.trajectory
        for use in turn.tools
    )


def rooms_curve(trajectory: Sequence[TurnFacts]) -> list[int]:
    """After each turn, how many rooms the player has stood in so far."""
    seen: set[Place] = set()
    curve = []
    for turn in trajectory:
        at = place(turn)
        if at is not None:
            seen.add(at)
        curve.append(len(seen))
    return curve
