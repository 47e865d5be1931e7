"""What an episode's turns add up to in its sweep row."""

from __future__ import annotations

from zork_mcp.domain.sweep.records import play_metrics
from zork_mcp.domain.turn_facts import TurnFacts


def test_an_episode_without_turns_has_a_best_score_of_zero():
    assert play_metrics([]) == {
        "best_score": 0, "deaths": 0, "invalid_commands": 0, "rooms_visited": 0,
    }  # fmt: skip


def test_the_best_score_is_the_highest_reached_not_the_last():
    turns = [TurnFacts(1, 10, 1, 0), TurnFacts(2, 25, 2, 0), TurnFacts(3, 15, 3, 0, died=True)]
    assert play_metrics(turns)["best_score"] == 25
