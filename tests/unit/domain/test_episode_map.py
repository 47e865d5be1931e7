"""The map an episode learns from its turns: commands read as Zork I's parser reads them,
exits and refusals, labels for rooms that share a name, the rendering an LLM reads and every
answer of `find_path` (the same map is drawn from the real game in
tests/e2e/test_episode_map_game.py)."""

from __future__ import annotations

import pytest

from zork_mcp.domain.episode.episode_map import (
    AlreadyThere,
    AmbiguousRoom,
    EpisodeMap,
    MapSurvey,
    NoKnownRoute,
    RouteFound,
    UnknownRoom,
    direction_of,
    refused,
    room_key,
)
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.game.profile import generic_profile
from zork_mcp.domain.game.trilogy import KNOWN_GAMES, ZORK1, ZORK2, ZORK3

WEST_OF_HOUSE = Place("West of House", 64)
CANT = "You can't go that way."


def played(*steps: tuple[str, Place] | tuple[str, Place, str]) -> list[PlayedTurn]:
    """Turns from (command, place after it[, answer]); the answer defaults to the room's name."""
    return [
        PlayedTurn(n, step[0], step[2] if len(step) == 3 else step[1].room, step[1])
        for n, step in enumerate(steps, 1)
    ]


def drawn(*steps: tuple[str, Place] | tuple[str, Place, str]) -> EpisodeMap:
    return EpisodeMap.of(WEST_OF_HOUSE, played(*steps), ZORK1)


NORTH_OF_HOUSE = Place("North of House", 137)
FOREST_PATH = Place("Forest Path", 238)
FOREST_1, FOREST_2, FOREST_3 = Place("Forest", 87), Place("Forest", 32), Place("Forest", 167)
# West of House, then three Forests and back, as in the real game.
FORESTS = drawn(
    ("w", FOREST_1),
    ("e", FOREST_PATH),
    ("e", FOREST_2),
    ("e", FOREST_3),
    ("e", FOREST_3, "The mountains are impassable."),
    ("w", FOREST_2),
    ("w", FOREST_PATH),
    ("s", NORTH_OF_HOUSE),
)


@pytest.mark.parametrize(
    ("command", "direction"),
    [
        ("n", "north"), ("N", "north"), ("north", "north"), ("n.", "north"),
        ("  Go   North ", "north"), ("walk ne", "northeast"), ("run u", "up"),
        ("proceed west", "west"), ("step e", "east"), ("go in", "in"), ("walk out", "out"),
        ("northeasterly", "northeast"), ("northward", "northwest"), ("southe", "southeast"),
        ("sw", "southwest"), ("nw", "northwest"), ("d", "down"), ("land", "land"),
        ("climb up", "up"), ("climb d", "down"), ("sit down", "down"),
        ("enter", "in"), ("exit", "out"), ("inside", "in"), ("into", "in"),
    ],
)  # fmt: skip
def test_a_move_is_read_as_the_parser_reads_it(command, direction):
    assert direction_of(command, ZORK1) == direction


@pytest.mark.parametrize(
    "command",
    ["", "go", "walk", "enter window", "exit house", "climb tree", "climb north", "n. s",
     "north east", "take north", "go to kitchen", "climb up tree", "northern lights"],
)  # fmt: skip
def test_a_command_that_is_not_a_bare_move_has_no_direction(command):
    assert direction_of(command, ZORK1) is None


@pytest.mark.parametrize(
    ("game", "text"),
    [(game, text) for game in KNOWN_GAMES.values() for text in game.exit_refusals],
)
def test_every_exit_refusal_of_each_game_is_read_as_blocked_even_wrapped(game, text):
    wrapped = text.replace(" ", "\n", 1)
    bird = f"{wrapped}\nYou hear in the distance a song bird."
    assert refused(text, game) and refused(bird, game)


@pytest.mark.parametrize(
    ("game", "command", "direction"),
    [(ZORK2, "cross", "cross"), (ZORK2, "ford", "cross"), (ZORK2, "enter", "in"),
     (ZORK3, "enter", "enter"), (ZORK3, "go enter", "enter"), (ZORK3, "land", None),
     (ZORK1, "cross", None), (ZORK1, "land", "land")],
)  # fmt: skip
def test_each_game_walks_by_its_own_parsers_words(game, command, direction):
    assert direction_of(command, game) == direction


def test_a_game_whose_words_are_unknown_marks_no_exit_blocked_but_still_walks():
    game = generic_profile("mygame")
    assert not any(refused(text, game) for text in ZORK1.exit_refusals)
    assert not refused("The grating is closed.", game)
    assert direction_of("go north", game) == "north" and direction_of("land", game) is None


@pytest.mark.parametrize("text", ["The kitchen window is closed.", "The trap door is closed."])
def test_a_closed_door_is_read_as_blocked(text):
    assert refused(text, ZORK1)


@pytest.mark.parametrize("text", ["Taken.", "The door is open.", "Forest", "You can't see it."])
def test_an_ordinary_answer_is_not_a_refusal(text):
    assert not refused(text, ZORK1)


def test_a_room_is_keyed_by_its_object_else_by_its_name():
    assert room_key(WEST_OF_HOUSE) == 64
    assert room_key(Place(" Kitchen ")) == "Kitchen"
    assert room_key(Place("")) is None


def test_each_move_records_its_exit_in_its_full_direction_and_the_current_room():
    walked = drawn(("N", NORTH_OF_HOUSE), ("go north", FOREST_PATH), ("s", NORTH_OF_HOUSE))
    assert [room.label for room in walked.rooms] == ["West of House", "North of House",
                                                     "Forest Path"]  # fmt: skip
    assert walked.room(WEST_OF_HOUSE).exits == {"north": 137}
    assert walked.room(137).exits == {"north": 238}
    assert walked.room(FOREST_PATH).exits == {"south": 137}
    assert walked.current == walked.room(NORTH_OF_HOUSE) and walked.here == 137


def test_a_move_by_another_command_is_an_exit_under_that_command():
    kitchen = Place("Kitchen", 27)
    walked = drawn(("e", Place("Behind House", 85)), ("Enter  Window", kitchen))
    assert walked.room(85).exits == {"enter window": 27}
    assert walked.find_path("West of House", "Kitchen").commands == ("east", "enter window")


def test_a_death_is_no_exit_but_its_room_is_entered():
    turns = played(("n", NORTH_OF_HOUSE))
    turns.append(PlayedTurn(2, "jump", "****  You have died  ****", FOREST_1, died=True))
    walked = EpisodeMap.of(WEST_OF_HOUSE, turns, ZORK1)
    assert walked.room(NORTH_OF_HOUSE).exits == {}
    assert walked.current == walked.room(FOREST_1) and walked.room(FOREST_1).first_turn == 2


def test_again_repeats_the_command_before_it():
    walked = drawn(("n", NORTH_OF_HOUSE), ("n", FOREST_PATH), ("g", Place("Clearing", 160)))
    assert walked.room(FOREST_PATH).exits == {"north": 160}


def test_a_refused_move_that_stays_put_is_blocked_and_nothing_else_is():
    walked = drawn(
        ("e", WEST_OF_HOUSE, "The door is boarded and you can't remove the boards."),
        ("take north", WEST_OF_HOUSE, CANT),
        ("sw", WEST_OF_HOUSE, "Taken."),
        ("n", NORTH_OF_HOUSE, CANT),
    )
    assert walked.room(WEST_OF_HOUSE).blocked == {"east"}
    assert walked.room(WEST_OF_HOUSE).exits == {"north": 137}


def test_a_later_move_through_a_blocked_way_clears_it_and_a_later_refusal_blocks_it_again():
    kitchen = Place("Kitchen", 27)
    cleared = drawn(("w", WEST_OF_HOUSE, "The kitchen window is closed."), ("w", kitchen))
    assert cleared.room(WEST_OF_HOUSE).blocked == set()
    closed = "The kitchen window is closed."
    again = drawn(("w", kitchen), ("e", WEST_OF_HOUSE), ("w", WEST_OF_HOUSE, closed))
    assert again.room(WEST_OF_HOUSE).blocked == {"west"}
    assert isinstance(again.find_path("here", "Kitchen"), NoKnownRoute)
    assert "  west -> Kitchen (blocked when last tried)" in again.render()


def test_rooms_that_share_a_name_are_numbered_by_first_visit_and_unique_names_are_plain():
    assert [room.label for room in FORESTS.rooms] == [
        "West of House", "Forest (1)", "Forest Path", "Forest (2)", "Forest (3)", "North of House",
    ]  # fmt: skip
    assert [room.key for room in FORESTS.rooms if room.name == "Forest"] == [87, 32, 167]


def test_names_that_differ_only_in_case_or_spacing_are_numbered_too():
    walked = drawn(("n", Place("Forest", 1)), ("n", Place("forest ", 2)))
    assert [room.label for room in walked.rooms][1:] == ["Forest (1)", "forest (2)"]


def test_without_objects_rooms_are_keyed_by_name():
    start = Place("West of House")
    turns = played(("n", Place("North of House")), ("w", Place("West of House")))
    walked = EpisodeMap.of(start, turns, ZORK1)
    assert [room.key for room in walked.rooms] == ["West of House", "North of House"]
    assert walked.visits() == {"West of House": 2, "North of House": 1}


def test_an_unknown_start_is_no_room_and_the_first_move_enters_one():
    walked = EpisodeMap.of(Place(""), played(("n", NORTH_OF_HOUSE)), ZORK1)
    assert [room.label for room in walked.rooms] == ["North of House"]
    assert walked.room(NORTH_OF_HOUSE).exits == {} and walked.room(NORTH_OF_HOUSE).first_turn == 1


def test_a_room_without_a_name_is_named_by_its_object_until_the_game_names_it():
    walked = drawn(("n", Place("", 137)))
    assert walked.room(137).label == "Room 137"
    named = drawn(("n", Place("", 137)), ("s", WEST_OF_HOUSE), ("n", NORTH_OF_HOUSE))
    assert named.room(137).label == "North of House"


def test_the_rendering_lists_rooms_in_first_visit_order_with_exits_and_the_current_room():
    assert FORESTS.render() == "\n".join([
        "Map: 6 rooms, in the order first entered.",
        "* West of House", "  west -> Forest (1)",
        "* Forest (1)", "  east -> Forest Path",
        "* Forest Path", "  east -> Forest (2)", "  south -> North of House",
        "* Forest (2)", "  east -> Forest (3)", "  west -> Forest Path",
        "* Forest (3)", "  west -> Forest (2)", "  east: blocked",
        "* North of House [here]",
    ])  # fmt: skip


def test_an_empty_map_says_so():
    assert EpisodeMap.of(Place(""), [], ZORK1).render() == "Map: no rooms yet."
    assert EpisodeMap.of(WEST_OF_HOUSE, [], ZORK1).render().splitlines() == [
        "Map: 1 room, in the order first entered.",
        "* West of House [here]",
    ]


def test_a_route_is_the_shortest_over_known_exits_as_the_commands_to_type():
    route = FORESTS.find_path("West of House", "forest (3)")
    assert route == RouteFound("West of House", "Forest (3)", ("west", "east", "east", "east"))
    assert route.text() == "From West of House to Forest (3): west, east, east, east (4 moves)"
    assert FORESTS.find_path("Forest (3)", " FOREST  path ").text() == (
        "From Forest (3) to Forest Path: west, west (2 moves)"
    )


def test_here_and_the_empty_name_are_the_current_room():
    start = drawn(("n", NORTH_OF_HOUSE), ("s", WEST_OF_HOUSE))
    assert start.find_path("", "North of House").text() == (
        "From West of House to North of House: north (1 move)"
    )
    assert start.find_path("North of House", "here").commands == ("south",)


def test_the_same_room_is_already_there():
    assert FORESTS.find_path("here", "North of House") == AlreadyThere("North of House")
    assert FORESTS.find_path("forest (2)", "Forest (2)").text() == (
        "From Forest (2) to Forest (2): already there (0 moves)."
    )


def test_a_shared_name_is_ambiguous_and_lists_its_labels():
    route = FORESTS.find_path("forest", "here")
    assert route == AmbiguousRoom("forest", ("Forest (1)", "Forest (2)", "Forest (3)"))
    assert route.text() == (
        "'forest' names 3 rooms: Forest (1), Forest (2), Forest (3). Ask for one by label."
    )


def test_an_unknown_room_lists_the_closest_labels_first():
    route = FORESTS.find_path("here", "Forrest Path")
    assert isinstance(route, UnknownRoom) and route.rooms[0] == "Forest Path"
    assert route.text() == (
        "The map does not know a room called 'Forrest Path'. Its rooms: Forest Path, "
        "Forest (1), Forest (2), Forest (3), West of House, North of House."
    )


def test_an_unknown_room_lists_at_most_twenty_rooms():
    steps = [("n", Place(f"Room {n:02}", n)) for n in range(1, 30)]
    route = drawn(*steps).find_path("here", "Kitchen")
    assert route.text().endswith("Room 19 (and 10 more).")


def test_an_unknown_name_from_a_model_is_repeated_cut_short():
    route = FORESTS.find_path("here", "Kitchen " * 10_000)
    assert route == UnknownRoom(("Kitchen " * 8)[:60], route.rooms) and len(route.text()) < 300


def test_without_a_current_room_here_is_unknown():
    empty = EpisodeMap.of(Place(""), [], ZORK1)
    assert empty.find_path("here", "Kitchen").text() == (
        "The map does not know the current room: it has no rooms yet."
    )


def test_no_known_route_says_which_rooms_the_start_reaches():
    assert FORESTS.find_path("Forest (2)", "West of House").text() == (
        "No known route from Forest (2) to West of House (blocked exits left out). "
        "From Forest (2) the map reaches: Forest Path, Forest (3), North of House."
    )
    assert FORESTS.find_path("North of House", "Forest (1)").text() == (
        "No known route from North of House to Forest (1) (blocked exits left out). "
        "No known exit leads anywhere from North of House yet."
    )


def test_describe_tells_one_rooms_exits_blocks_and_visits():
    assert FORESTS.describe(FOREST_3) == (
        "Forest (3): entered once (first on turn 4); exits: west -> Forest (2); east: blocked."
    )
    assert FORESTS.describe(238) == (
        "Forest Path: entered 2 times (first on turn 2); exits: east -> Forest (2); "
        "south -> North of House."
    )
    assert FORESTS.describe(NORTH_OF_HOUSE).endswith("exits: none yet.")
    assert FORESTS.describe(Place("Kitchen", 27)) == "The map knows nothing of Kitchen yet."


def test_visits_count_each_entering_by_label():
    assert FORESTS.visits() == {
        "West of House": 1, "Forest (1)": 1, "Forest Path": 2, "Forest (2)": 2,
        "Forest (3)": 1, "North of House": 1,
    }  # fmt: skip


IMPASSABLE = "The mountains are impassable."
FOREST_WALK = [
    ("w", FOREST_1), ("e", FOREST_PATH), ("e", FOREST_2), ("e", FOREST_3),
    ("e", FOREST_3, IMPASSABLE), ("g", FOREST_3, IMPASSABLE),
    ("w", FOREST_2), ("w", FOREST_PATH), ("s", NORTH_OF_HOUSE),
]  # fmt: skip


@pytest.mark.parametrize("kept", range(len(FOREST_WALK) + 1))
def test_a_survey_exported_and_imported_draws_on_as_if_never_kept(kept):
    turns = played(*FOREST_WALK)
    survey = MapSurvey.of(WEST_OF_HOUSE, turns[:kept], ZORK1)
    state = survey.exported()
    again = MapSurvey.imported(state, ZORK1)
    assert again == survey
    for turn in turns[kept:]:
        again.record(turn)
    assert again.drawn() == EpisodeMap.of(WEST_OF_HOUSE, turns, ZORK1)


def _with(state: tuple, index: int, value: object) -> tuple:
    return (*state[:index], value, *state[index + 1 :])


KEPT = MapSurvey.of(WEST_OF_HOUSE, played(*FOREST_WALK), ZORK1).exported()
FIRST = KEPT[4][0]


@pytest.mark.parametrize(
    "state",
    [
        None, b"garbage", [*KEPT], KEPT[:4], (*KEPT, ()),
        _with(KEPT, 2, True),  # a turn that is a bool
        _with(KEPT, 2, 9.0),
        _with(KEPT, 4, [*KEPT[4]]),  # rooms as a list
        _with(KEPT, 4, (*KEPT[4], FIRST)),  # a room twice
        _with(KEPT, 4, (_with(FIRST, 4, (("north", 999),)), *KEPT[4][1:])),  # to an unknown room
        _with(KEPT, 4, (_with(FIRST, 0, 1.5), *KEPT[4][1:])),  # a key neither object nor name
        _with(KEPT, 4, (_with(FIRST, 5, "east"), *KEPT[4][1:])),  # blocked ways as one string
        _with(_with(KEPT, 0, "Kitchen"), 1, 27),  # here is a room never drawn
    ],
)  # fmt: skip
def test_a_kept_state_that_is_not_a_surveys_is_refused(state):
    assert MapSurvey.imported(state, ZORK1) is None
