"""Properties of the episode's map over random worlds (rooms, some sharing a name, joined by
directions and by other commands) and random walks over them, in every spelling of a move,
with refused moves and deaths that teleport."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.domain.episode.episode_map import AlreadyThere, EpisodeMap, NoKnownRoute, RouteFound
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.game.trilogy import ZORK1

NAMES = ("Forest", "Clearing", "Maze")
SPELLINGS = {
    "north": ("north", "n", "go north", "N"), "south": ("s", "walk south"),
    "east": ("e", "run east"), "west": ("w", "West"), "northeast": ("ne", "northeasterly"),
    "up": ("u", "climb up"), "down": ("d", "sit down"), "in": ("in", "enter"),
    "climb tree": ("climb tree",), "enter window": ("enter window",),
}  # fmt: skip
WAYS = tuple(SPELLINGS)
DEATH = "****  You have died  ****"
Edges = dict[int, dict[str, int]]


@dataclass(frozen=True)
class World:
    names: tuple[str, ...]  # room n (1..) is named names[n - 1]
    edges: Edges  # room -> way -> room
    walk: tuple[tuple[int, int], ...]  # (which way, which spelling of it)
    deaths: dict[int, int]  # the index of a step of the walk -> the room a death leads to

    def place(self, room: int) -> Place:
        return Place(self.names[room - 1], room)

    def way(self, room: int, choice: int) -> str:
        """Mostly one of the room's exits, else any way (which may be refused)."""
        exits = list(self.edges[room])
        return exits[choice % len(exits)] if exits and choice % 4 else WAYS[choice % len(WAYS)]


@st.composite
def worlds(draw: st.DrawFn) -> World:
    size = draw(st.integers(min_value=2, max_value=12))
    rooms = st.integers(min_value=1, max_value=size)
    names = draw(st.lists(st.sampled_from(NAMES), min_size=size, max_size=size))
    ways = st.dictionaries(st.sampled_from(WAYS), rooms, min_size=1, max_size=4)
    edges = {room: draw(ways) for room in range(1, size + 1)}
    steps = st.tuples(st.integers(0, 99), st.integers(0, 3))
    walk = draw(st.lists(steps, min_size=10, max_size=80))
    deaths = draw(st.dictionaries(st.integers(1, 80), rooms, max_size=2))
    return World(tuple(names), edges, tuple(walk), deaths)


def played(world: World) -> tuple[list[PlayedTurn], Edges]:
    """The walk's turns, and the exits it took (moves to another room, not deaths)."""
    here, turns, taken = 1, [], {}
    for n, (choice, spelling) in enumerate(world.walk, 1):
        if n in world.deaths:
            here = world.deaths[n]
            turns.append(PlayedTurn(n, "jump", DEATH, world.place(here), died=True))
            continue
        way = world.way(here, choice)
        there = world.edges[here].get(way, here)
        answer = world.names[there - 1] if way in world.edges[here] else "You can't go that way."
        command = SPELLINGS[way][spelling % len(SPELLINGS[way])]
        turns.append(PlayedTurn(n, command, answer, world.place(there)))
        if there != here:
            taken.setdefault(here, {})[way] = there
        here = there
    return turns, taken


def shortest(edges: Edges, start: int, goal: int) -> int | None:
    distances = {start: 0}
    queue = deque([start])
    while queue:
        room = queue.popleft()
        for there in edges.get(room, {}).values():
            if there not in distances:
                distances[there] = distances[room] + 1
                queue.append(there)
    return distances.get(goal)


@given(world=worlds())
def test_a_route_replays_on_the_true_world_over_taken_exits_and_is_shortest(world):
    """Every route find_path returns, replayed over the true world's edges from the start,
    ends at the goal, uses only exits the walk took, and is no longer than a BFS over them;
    where no route is found, none exists over the exits taken."""
    turns, taken = played(world)
    walked = EpisodeMap.of(world.place(1), turns, ZORK1)
    for start in walked.rooms:
        for goal in walked.rooms:
            route = walked.find_path(start.label, goal.label)
            distance = shortest(taken, start.key, goal.key)
            if start.key == goal.key:
                assert route == AlreadyThere(start.label)
            elif distance is None:
                assert isinstance(route, NoKnownRoute)
            else:
                assert isinstance(route, RouteFound) and len(route.commands) == distance
                assert replayed(world, taken, start.key, route.commands) == goal.key


def replayed(world: World, taken: Edges, start: int, commands: tuple[str, ...]) -> int:
    here = start
    for command in commands:
        assert command in taken.get(here, {}), f"{command} was never taken from {here}"
        here = world.edges[here][command]
    return here


@given(world=worlds())
def test_rooms_that_share_a_name_stay_distinct_with_unique_labels(world):
    """Rooms with the same name but different locations stay distinct with distinct labels;
    labels are unique, each room's is its plain name only when no other room shares it, and
    each label finds its room."""
    turns, _ = played(world)
    walked = EpisodeMap.of(world.place(1), turns, ZORK1)
    visited = {1} | {turn.place.location for turn in turns}
    assert {room.key for room in walked.rooms} == visited
    labels = [room.label for room in walked.rooms]
    assert len(set(labels)) == len(labels)
    for room in walked.rooms:
        alone = [other.name for other in walked.rooms].count(room.name) == 1
        assert (room.label == room.name) == alone
        assert walked.find_path(room.label, "") == walked.find_path(room.label, "here")
        assert walked.find_path(room.label.upper(), room.label) == AlreadyThere(room.label)
