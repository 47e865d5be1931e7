"""An episode's map as SVG (issue 46): rooms placed by their exits' directions (north up, east
right, up/down/in/out diagonal, collisions nudged to the nearest free cell), labelled as the
map labels them, exits labelled with their way, the path, the deaths; every name escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from zork_mcp.app.sweep.map_svg import LABEL_CHARS, Step, layout, map_svg, steps_of
from zork_mcp.domain.episode.episode_map import EpisodeMap
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.game.trilogy import ZORK1

SVG = "{http://www.w3.org/2000/svg}"
WEST, NORTH = Place("West of House", 64), Place("North of House", 137)
PATH, TREE = Place("Forest Path", 238), Place("Up a Tree", 88)
BEHIND, KITCHEN = Place("Behind House", 79), Place("Kitchen", 200)
FOREST_1, FOREST_2 = Place("Forest", 87), Place("Forest", 32)


def played(*moves: tuple[str, Place] | tuple[str, Place, bool]) -> list[PlayedTurn]:
    """Turns from (command, place after it[, died]); the answer is the room's name."""
    return [
        PlayedTurn(n, move[0], move[1].room, move[1], died=len(move) == 3 and bool(move[2]))
        for n, move in enumerate(moves, 1)
    ]


def drawn(start: Place, turns: list[PlayedTurn], **options) -> ET.Element:
    svg = map_svg(EpisodeMap.of(start, turns, ZORK1), steps_of(start, turns), **options)
    return ET.fromstring(svg)


def texts(svg: ET.Element, kind: str) -> list[str]:
    """The text each element of class `kind` shows (not its tooltip)."""
    return [t.text or "" for t in svg.iter(f"{SVG}text") if t.get("class") == kind]


def cells_of(start: Place, turns: list[PlayedTurn]) -> dict[str, tuple[int, int]]:
    episode_map = EpisodeMap.of(start, turns, ZORK1)
    cells = layout(episode_map, steps_of(start, turns))
    return {room.label: cells[room.key] for room in episode_map.rooms}


# West of House, north twice, up the tree, down, south, east: the fixture episode's walk.
WALK = played(("n", NORTH), ("n", PATH), ("u", TREE), ("d", PATH), ("s", NORTH), ("e", BEHIND))


def test_rooms_go_the_way_their_exits_point_north_up_east_right_up_diagonal():
    assert cells_of(WEST, WALK) == {
        "West of House": (0, 0),
        "North of House": (0, -1),
        "Forest Path": (0, -2),
        "Up a Tree": (1, -3),  # up: one right, one up
        "Behind House": (1, -1),
    }


def test_in_and_out_go_diagonally_too():
    turns = played(("in", KITCHEN), ("out", WEST), ("out", BEHIND))
    assert cells_of(WEST, turns) == {"West of House": (0, 0), "Kitchen": (1, 1),
                                     "Behind House": (-1, -1)}  # fmt: skip


def test_a_room_whose_cell_is_taken_goes_to_the_nearest_free_one_the_top_one_first():
    # From West of House, north then northeast; from North of House, east: Behind House
    # wants (1, -1), which Kitchen (West of House's exit, placed first) holds.
    turns = played(("n", NORTH), ("e", BEHIND), ("w", NORTH), ("s", WEST), ("ne", KITCHEN))
    assert cells_of(WEST, turns) == {
        "West of House": (0, 0),
        "North of House": (0, -1),
        "Kitchen": (1, -1),
        "Behind House": (1, -2),
    }


def test_a_room_entered_by_w_is_drawn_left_of_where_it_was_entered_from():
    """Issue 55: the walk of WALK, then "w" from Behind House through the kitchen window. West
    of Behind House is North of House, and Forest Path and Up a Tree sit above: Kitchen was
    drawn straight above Behind House. It goes the exit's way, on a line that crosses no room."""
    walk = [(t.command, t.place) for t in WALK]
    cells = cells_of(WEST, played(*walk, ("w", KITCHEN)))
    kitchen, behind = cells["Kitchen"], cells["Behind House"]
    assert kitchen[0] < behind[0], cells
    taken = set(cells.values()) - {kitchen, behind}
    assert not any(
        (behind[0] + (kitchen[0] - behind[0]) * k / 4, behind[1] + (kitchen[1] - behind[1]) * k / 4)
        in taken
        for k in range(1, 4)
    ), cells


@settings(max_examples=100)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["n", "s", "e", "w", "ne", "sw", "u", "d", "in", "out", "climb tree"]),
            st.integers(1, 12),
            st.booleans(),
        ),
        max_size=40,
    )
)
def test_every_room_gets_a_cell_of_its_own_and_the_same_turns_the_same_layout(moves):
    turns = [
        PlayedTurn(n, command, "", Place(f"Room {room % 7}", room), died=died and n % 5 == 0)
        for n, (command, room, died) in enumerate(moves, 1)
    ]
    episode_map = EpisodeMap.of(WEST, turns, ZORK1)
    cells = layout(episode_map, steps_of(WEST, turns))
    assert set(cells) == {room.key for room in episode_map.rooms}
    assert len(set(cells.values())) == len(cells)
    assert cells == layout(EpisodeMap.of(WEST, turns, ZORK1), steps_of(WEST, turns))
    svg = ET.fromstring(map_svg(episode_map, steps_of(WEST, turns)))
    assert texts(svg, "map-label") == [room.label for room in episode_map.rooms]


def test_rooms_are_labelled_as_the_map_labels_them_and_exits_with_their_way():
    turns = played(("w", FOREST_1), ("e", WEST), ("n", NORTH), ("w", FOREST_2))
    svg = drawn(WEST, turns)
    assert texts(svg, "map-label") == ["West of House", "Forest (1)", "North of House",
                                       "Forest (2)"]  # fmt: skip
    assert sorted(texts(svg, "map-way")) == ["e", "n", "w", "w"]
    lines = [line for line in svg.iter(f"{SVG}line") if line.get("class") == "map-exit"]
    assert len(lines) == 3  # West-Forest 1 (both ways: one line), West-North, North-Forest 2


def test_the_path_follows_the_moves_and_marks_start_end_and_the_turns_each_room_was_entered():
    svg = drawn(WEST, WALK)
    [path] = [p for p in svg.iter(f"{SVG}polyline") if p.get("class") == "map-path"]
    assert len(path.get("points").split()) == len(WALK) + 1  # every move, one run
    assert texts(svg, "map-turns") == ["turn 0", "turns 1, 5", "turns 2, 4", "turn 3", "turn 6"]
    marks = {g.get("class") for g in svg.iter(f"{SVG}g")}
    assert {"map-room map-start", "map-room map-end"} <= marks


def test_a_death_is_a_red_mark_with_its_turn_where_it_happened_and_a_dashed_jump():
    turns = played(("n", NORTH), ("e", BEHIND), ("open window", BEHIND),
                   ("w", FOREST_1, True), ("e", PATH))  # fmt: skip
    svg = drawn(WEST, turns)
    [died] = texts(svg, "map-died")
    assert died.startswith("☠ 4")
    [room] = [g for g in svg.iter(f"{SVG}g") if died in "".join(g.itertext())]
    assert texts(room, "map-label") == ["Behind House"]
    jumps = [line for line in svg.iter(f"{SVG}line") if line.get("class") == "map-death-jump"]
    assert len(jumps) == 1
    paths = [p for p in svg.iter(f"{SVG}polyline") if p.get("class") == "map-path"]
    assert len(paths) == 2  # the walk before the death, and the one after


def test_a_room_no_exit_reaches_starts_a_group_to_the_right():
    turns = played(("n", NORTH), ("e", BEHIND), ("w", FOREST_1, True), ("n", PATH))
    cells = cells_of(WEST, turns)
    assert cells["Forest"][0] == 1 + 2 and cells["Forest Path"] == (3, -1)


def test_stored_turns_draw_rooms_and_the_path_without_the_exits_ways():
    turns = [PlayedTurn(n, "", "", place) for n, place in enumerate([NORTH, PATH, TREE], 1)]
    svg = drawn(Place(""), turns, ways_known=False)
    assert texts(svg, "map-label") == ["North of House", "Forest Path", "Up a Tree"]
    assert texts(svg, "map-way") == [] and texts(svg, "map-turns")[0] == "turn 1"
    cells = layout(EpisodeMap.of(Place(""), turns, ZORK1), steps_of(Place(""), turns))
    assert all(
        max(abs(a - b) for a, b in zip(cells[x.location], cells[y.location], strict=True)) == 1
        for x, y in [(NORTH, PATH), (PATH, TREE)]
    ), "rooms walked between sit side by side"


def test_a_map_with_no_room_draws_nothing():
    assert map_svg(EpisodeMap.of(Place(""), [], ZORK1), []) == ""
    assert Step(1, None, 5).moved is False


MARKUP = ["<", ">", "&", '"', "'", "</svg>", "<script>", "]]>", "&amp;", "<!--"]
names = st.lists(
    st.sampled_from(MARKUP) | st.text(st.characters(codec="utf-8", categories=["L", "N", "P"])),
    min_size=1,
    max_size=6,
).map("".join)


@settings(max_examples=100)
@given(rooms=st.lists(names.map(str.strip).filter(bool), min_size=1, max_size=4), command=names)
def test_every_name_and_command_reads_back_as_the_same_text(rooms, command):
    """Room names are the game's, commands the LLM's: neither can open an element."""
    turns = [PlayedTurn(n, command, "", Place(room)) for n, room in enumerate(rooms, 1)]
    start = Place("Start <here>")
    episode_map = EpisodeMap.of(start, turns, ZORK1)
    svg = ET.fromstring(map_svg(episode_map, steps_of(start, turns)))
    described = ["".join(g.find(f"{SVG}title").itertext()) for g in svg.iter(f"{SVG}g")]
    assert described == [episode_map.describe(room.key) for room in episode_map.rooms]
    shown = {room.label for room in episode_map.rooms if len(room.label) <= LABEL_CHARS}
    assert shown <= set(texts(svg, "map-label"))
    ways = {way for room in episode_map.rooms for way in room.exits}
    way_titles = {
        "".join(text.find(f"{SVG}title").itertext())
        for text in svg.iter(f"{SVG}text")
        if text.get("class") == "map-way"
    }
    assert way_titles == ways - {""}
    assert not list(svg.iter(f"{SVG}script"))
