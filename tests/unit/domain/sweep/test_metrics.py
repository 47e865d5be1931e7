"""What a sweep reports per episode: LLM latency quantiles over the timed turns, how many
rooms the player has stood in after each turn, and memory at work: the rooms it came back
to, the turns it took to come back, the commands it repeated for nothing."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.sweep.metrics import (
    BY_NAME,
    Return,
    estimates,
    repeated_share,
    returns,
    rooms_curve,
    rooms_revisited,
    turns_to_return,
)
from zork_mcp.domain.sweep.records import EpisodeRecord, play_metrics


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


# Memory at work: rooms come back to, the turns it took, commands repeated for nothing.


def walk(*places: int | str, repeated: tuple[int, ...] = ()) -> list[TurnFacts]:
    """A turn per place (an int is a room's object, named `Room <n>`; a str a room named so,
    its object unknown; 0 or "" nowhere known), turn numbers from 1."""
    return [
        TurnFacts(n, 0, n, 0, room=f"Room {at}" if isinstance(at, int) and at else str(at or ""),
                  location=at if isinstance(at, int) else 0, repeated=n in repeated)
        for n, at in enumerate(places, 1)
    ]  # fmt: skip


def record_of(trajectory: list[TurnFacts], **rest) -> EpisodeRecord:
    return EpisodeRecord("s", "k", "c", "m", "on", 1, 0, "done", turns=len(trajectory),
                         trajectory=tuple(trajectory), **rest)  # fmt: skip


def test_a_room_left_and_entered_again_is_revisited_once_and_its_return_timed():
    # West (1) -> North (2) -> West (3) -> North (4) -> West (5) -> Forest (6)
    trajectory = walk(10, 11, 10, 11, 10, 12)
    assert returns(trajectory) == [Return(10, 1, 3), Return(11, 2, 4)]
    assert (rooms_revisited(trajectory), turns_to_return(trajectory)) == (2, 2.0)


def test_standing_in_a_room_for_several_turns_is_not_coming_back_to_it():
    assert rooms_revisited(walk(10, 10, 10, 11)) == 0
    assert rooms_revisited(walk(10, 0, 10)) == 0, "a turn nowhere known leaves no room"
    assert rooms_revisited(walk(10, 11, 11, 11, 10)) == 1


def test_the_median_is_taken_over_the_rooms_come_back_to():
    # A at 1, B at 2, C at 3, back to A at 4 (3 turns), B at 5 (3), D at 6, C at 7 (4)
    trajectory = walk(1, 2, 3, 1, 2, 6, 3)
    assert [r.turns for r in returns(trajectory)] == [3, 3, 4]
    assert turns_to_return(trajectory) == 3.0


def test_a_location_of_0_falls_back_to_the_rooms_name():
    trajectory = walk("West of House", "North of House", "West of House", "Forest")
    assert all(turn.location == 0 for turn in trajectory)
    assert returns(trajectory) == [Return("West of House", 1, 3)]
    record = record_of(trajectory)
    assert (BY_NAME["rooms_revisited"].of(record), BY_NAME["return_turns"].of(record)) == (1, 2.0)


def test_an_episode_without_revisits_has_none_and_no_return_time_to_average():
    straight = record_of(walk(10, 11, 12, 13))
    back = record_of(walk(10, 11, 10, 11, 12, 13, 14, 10))  # returns after 2, 2 turns
    assert BY_NAME["rooms_revisited"].of(straight) == 0
    assert BY_NAME["return_turns"].of(straight) is None
    found = estimates([straight, back])
    assert (found["rooms_revisited"].value, found["return_turns"].value) == (1.0, 2.0)


def test_an_episode_whose_turns_say_nowhere_is_left_out_of_the_rooms_revisited():
    nowhere = record_of(walk(0, 0, 0))
    assert BY_NAME["rooms_revisited"].of(nowhere) is None
    assert BY_NAME["rooms_revisited"].of(record_of([])) is None


def test_the_share_of_repeated_turns_and_a_row_stored_before_it_is_left_out():
    trajectory = walk(10, 10, 10, 10, repeated=(2, 4))
    assert repeated_share(trajectory) == 0.5 and repeated_share([]) is None
    counted = record_of(trajectory, repeated_commands=2)
    old = record_of(walk(10, 10, 10))  # stored before turns said they repeated: all False
    assert (BY_NAME["repeated_rate"].of(counted), BY_NAME["repeated_rate"].of(old)) == (0.5, None)
    assert estimates([counted, old])["repeated_rate"].value == 0.5


places = st.lists(st.integers(0, 6), max_size=40)


@given(places)
def test_returns_need_two_turns_and_never_outnumber_the_rooms_visited(path):
    """Property: a room is revisited once at most, after its first visit and after leaving
    it (so its return comes 2 turns after the visit or later); the rooms revisited are
    among the rooms visited."""
    trajectory = walk(*path)
    found = returns(trajectory)
    assert len({r.place for r in found}) == len(found)
    assert all(r.turns >= 2 for r in found)
    visited = play_metrics(trajectory).rooms_visited
    assert (rooms_revisited(trajectory) or 0) <= visited


@given(places)
def test_rooms_are_revisited_alike_whether_told_by_object_or_by_a_unique_name(path):
    """Property: where every room has its own name, falling back to names (a row stored
    before locations, location 0) finds the same returns at the same turns."""
    by_object = walk(*path)
    by_name = walk(*(f"Room {at}" if at else "" for at in path))
    assert [(r.first_visit, r.first_return) for r in returns(by_object)] == [
        (r.first_visit, r.first_return) for r in returns(by_name)
    ]
    assert turns_to_return(by_object) == turns_to_return(by_name)
