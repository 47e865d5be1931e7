"""What a sweep reports per episode: LLM latency quantiles over the timed turns, and how many
rooms the player has stood in after each turn."""

from __future__ import annotations

import math

from zork_mcp.domain.sweep.metrics import BY_NAME, estimates, rooms_curve
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.domain.turn_facts import TurnFacts


def episode(llm_seconds: list[float]) -> EpisodeRecord:
    trajectory = tuple(TurnFacts(n, 0, n, 0, llm_seconds=s) for n, s in enumerate(llm_seconds, 1))
    return EpisodeRecord("s", "k", "c", "m", "on", 1, 0, "done", trajectory=trajectory)


def test_latency_quantiles_are_taken_over_the_timed_turns_only():
    # A turn of 0 s made no LLM call (or was not timed); the timed ones sorted are
    # 0.4 0.5 0.8 1.5 2.0: the median is 0.8, and the 95th percentile lies 0.8 of the way
    # from 1.5 to 2.0 (numpy's linear rule), 1.9.
    record = episode([0, 0.4, 0.5, 2.0, 0, 0.8, 1.5])
    assert BY_NAME["latency_p50"].of(record) == 0.8
    assert math.isclose(BY_NAME["latency_p95"].of(record), 1.9)


def test_an_episode_with_no_timed_turn_has_no_latency_and_is_left_out_of_the_mean():
    untimed = episode([0, 0, 0])
    assert BY_NAME["latency_p50"].of(untimed) is None
    assert BY_NAME["latency_p95"].of(untimed) is None
    assert estimates([untimed, episode([2.0]), episode([4.0])])["latency_p50"].value == 3.0


def test_the_rooms_curve_counts_each_room_once_and_a_turn_without_a_room_adds_none():
    rooms = ["West of House", "", "North of House", "West of House", "Forest"]
    trajectory = [TurnFacts(n, 0, n, 0, room=room) for n, room in enumerate(rooms, 1)]
    assert rooms_curve(trajectory) == [1, 1, 2, 2, 3]
