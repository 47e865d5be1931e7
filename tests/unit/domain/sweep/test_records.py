"""What an episode's turns add up to in its sweep row."""

from __future__ import annotations

from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.sweep.records import play_metrics


def test_an_episode_without_turns_has_a_best_score_of_zero():
    assert play_metrics([]).fields() == {
        "best_score": 0, "deaths": 0, "invalid_commands": 0, "rooms_visited": 0,
        "repeated_commands": 0, "unreadable_replies": 0,
    }  # fmt: skip


def test_the_best_score_is_the_highest_reached_not_the_last():
    turns = [TurnFacts(1, 10, 1, 0), TurnFacts(2, 25, 2, 0), TurnFacts(3, 15, 3, 0, died=True)]
    assert play_metrics(turns).best_score == 25


def test_rooms_are_told_apart_by_their_object_so_the_mazes_rooms_of_one_name_count_apart():
    maze = [
        TurnFacts(n, 0, n, 0, room="Maze", location=loc) for n, loc in enumerate([40, 41, 40], 1)
    ]
    named = [TurnFacts(n, 0, n, 0, room=room) for n, room in enumerate(["Maze", "Cellar"], 1)]
    assert (play_metrics(maze).rooms_visited, play_metrics(named).rooms_visited) == (2, 2)


def test_the_turns_that_repeated_a_command_for_nothing_are_counted():
    turns = [TurnFacts(1, 0, 1, 0), TurnFacts(2, 0, 2, 0, repeated=True), TurnFacts(3, 0, 3, 0)]
    assert play_metrics(turns).repeated_commands == 1
