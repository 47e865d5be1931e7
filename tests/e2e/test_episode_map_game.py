"""The episode's map drawn from the real game: the walkthrough's rooms and exits, Zork I's
several rooms named "Forest" kept apart by their objects, and a route `find_path` gives
that the real game walks to its goal."""

from __future__ import annotations

import pytest

from tests.support.walkthrough import WALKTHROUGH
from zork_mcp.adapters.game.jericho import JerichoGameEnv
from zork_mcp.domain.episode.episode_map import AmbiguousRoom, EpisodeMap, RouteFound
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.game.game_text import died
from zork_mcp.domain.game.trilogy import ZORK1

# (room, direction, the room it led to), as the walkthrough's first 40 commands take them.
WALKTHROUGH_EXITS = [
    ("West of House", "north", "North of House"),
    ("North of House", "north", "Forest Path"),
    ("Forest Path", "up", "Up a Tree"),
    ("Up a Tree", "down", "Forest Path"),
    ("Forest Path", "south", "North of House"),
    ("North of House", "east", "Behind House"),
    ("Behind House", "west", "Kitchen"),
    ("Kitchen", "west", "Living Room"),
    ("Living Room", "east", "Kitchen"),
    ("Kitchen", "up", "Attic"),
    ("Attic", "down", "Kitchen"),
    ("Living Room", "down", "Cellar"),
    ("Cellar", "north", "The Troll Room"),
    ("The Troll Room", "east", "East-West Passage"),
    ("East-West Passage", "east", "Round Room"),
    ("Round Room", "southeast", "Engravings Cave"),
    ("Engravings Cave", "east", "Dome Room"),
    ("Dome Room", "down", "Torch Room"),
    ("Torch Room", "down", "Temple"),
    ("Temple", "south", "Altar"),
]
# West of House into three Forests: west, then east from Forest Path twice (the mountains
# refuse a third), and back to North of House and West of House.
TO_THE_FORESTS = ["w", "e", "e", "e", "e", "w", "w", "s", "w"]


@pytest.fixture(scope="module")
def env(zork_game):
    env = JerichoGameEnv(zork_game, seed=12)
    yield env
    env.close()


def episode(env: JerichoGameEnv, commands: list[str]) -> EpisodeMap:
    """The map of a game played from its start with `commands`."""
    opening = env.reset()
    turns = []
    for n, command in enumerate(commands, 1):
        seen = env.step(command)
        place = Place(seen.room or "", seen.location)
        turns.append(
            PlayedTurn(n, command, seen.text, place, seen.score, died=died(seen.text, ZORK1))
        )
    return EpisodeMap.of(Place(opening.room or "", opening.location), turns, ZORK1)


def led_to(walked: EpisodeMap, label: str, way: str) -> str:
    (room,) = [room for room in walked.rooms if room.label == label]
    return walked.room(room.exits[way]).label


def test_the_walkthrough_map_lists_its_rooms_with_the_exits_taken(env):
    walked = episode(env, WALKTHROUGH[:40])
    assert [(room, way, led_to(walked, room, way)) for room, way, _ in WALKTHROUGH_EXITS] == (
        WALKTHROUGH_EXITS
    )
    rooms = list(dict.fromkeys([WALKTHROUGH_EXITS[0][0], *(to for *_, to in WALKTHROUGH_EXITS)]))
    assert [room.label for room in walked.rooms] == rooms
    assert walked.current.label == "Altar"
    assert "* West of House\n  north -> North of House\n* North of House" in walked.render()
    route = walked.find_path("Kitchen", "Cellar").text()
    assert route == "From Kitchen to Cellar: west, down (2 moves)"


def test_the_forests_stay_apart_and_a_route_between_them_walks_in_the_real_game(env):
    walked = episode(env, TO_THE_FORESTS)
    forests = [room for room in walked.rooms if room.name == "Forest"]
    assert [room.label for room in forests] == ["Forest (1)", "Forest (2)", "Forest (3)"]
    assert len({room.key for room in forests}) == 3
    assert "* Forest (3)\n  west -> Forest (2)\n  east: blocked\n" in walked.render()
    assert isinstance(walked.find_path("forest", "here"), AmbiguousRoom)
    route = walked.find_path("here", "Forest (3)")
    assert route == RouteFound("West of House", "Forest (3)", ("west", "east", "east", "east"))
    seen = [env.step(command) for command in route.commands]
    assert seen[-1].location == forests[2].key and seen[-1].room == "Forest"
