"""The metrics a sweep reports per cell, each an episode's value averaged over a cell's
finished episodes with its bootstrap CI; and the tool use and room curves of its plots.

A value an episode does not have (a metric its row was stored without, no LLM call timed)
is left out of that metric's average, not counted as zero.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.domain.sweep.statistics import Estimate, difference_ci, mean_ci
from zork_mcp.domain.turn_facts import ToolUse, TurnFacts, tool_uses


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    of: Callable[[EpisodeRecord], float | None]


def _invalid_rate(record: EpisodeRecord) -> float | None:
    if record.invalid_commands is None or not record.turns:
        return None
    return record.invalid_commands / record.turns


def _latency(record: EpisodeRecord, quantile: float) -> float | None:
    # a function called per record, not a closure built at import, so that mutation testing
    # (which swaps a function body when it is called) reaches it
    seconds = [turn.llm_seconds for turn in record.trajectory if turn.llm_seconds > 0]
    return float(np.quantile(seconds, quantile)) if seconds else None


METRICS = (
    Metric("final_score", "final score", lambda r: r.score),
    Metric("best_score", "best score", lambda r: r.best_score),
    Metric("normalized_score", "final score / 350", lambda r: r.normalized_score),
    Metric("rooms", "rooms visited", lambda r: r.rooms_visited),
    Metric("deaths", "deaths", lambda r: r.deaths),
    Metric("invalid_rate", "invalid commands / turn", _invalid_rate),
    Metric("tokens", "tokens (in + out)", lambda r: r.prompt_tokens + r.completion_tokens),
    Metric("cost_usd", "$", lambda r: r.cost_usd),
    Metric("latency_p50", "LLM s / turn, p50", lambda r: _latency(r, 0.5)),
    Metric("latency_p95", "LLM s / turn, p95", lambda r: _latency(r, 0.95)),
)
BY_NAME = {metric.name: metric for metric in METRICS}
COMPARED = ("final_score", "rooms")  # MCP on minus off


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
    seen: set[str] = set()
    curve = []
    for turn in trajectory:
        if turn.room:
            seen.add(turn.room)
        curve.append(len(seen))
    return curve
