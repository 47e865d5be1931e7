"""The map an episode has learned from its own turns: the rooms it entered, the exits it took
and the ones the game refused, and the shortest known route between two rooms, as text an
LLM reads (`get_map`, `find_path` and the current room's memory). The survey that drafts it
turn by turn exports its state as plain data, so the memory server keeps it and draws only
the turns played since."""

from __future__ import annotations

import difflib
from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import ConfigDict, TypeAdapter, ValidationError

from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.game.profile import GameProfile

RoomKey = int | str  # the room's Z-machine object; its name when the object is unknown (0)

RESOLUTION = 6  # letters of a word a version 3 dictionary keeps: "northward" is "northw"
WALK_VERBS = ("walk", "go", "run", "procee", "step")  # <SYNONYM WALK GO RUN PROCEED STEP>
CLIMB_VERBS = ("climb", "sit")  # <SYNONYM CLIMB SIT>; V-CLIMB-UP walks up or down
LONE_VERBS = {"enter": "in", "exit": "out"}  # V-ENTER and V-EXIT walk in and out
AGAIN = ("again", "g")  # the parser repeats the command before

HERE = ("", "here")
LISTED = 20  # the most rooms a route's answer names
SHOWN = 60  # the most letters of an unknown name an answer repeats (a model's input)


def direction_of(command: str, game: GameProfile) -> str | None:
    """The direction `command` walks in, read as the game's parser reads it, or None."""
    words = [word[:RESOLUTION] for word in command.lower().rstrip(". ").split()]
    directions = game.directions
    if len(words) == 1:
        return directions.get(words[0]) or LONE_VERBS.get(words[0])  # Zork III's own ENTER
    if len(words) == 2 and words[0] in WALK_VERBS:
        return directions.get(words[1])
    if len(words) == 2 and words[0] in CLIMB_VERBS:
        return _up_or_down(directions.get(words[1]))
    return None


def _up_or_down(direction: str | None) -> str | None:
    return direction if direction in ("up", "down") else None


def refused(answer: str, game: GameProfile) -> bool:
    """The game's answer says the way is blocked (never, in a game whose words are unknown)."""
    flat = " ".join(answer.split())
    return any(text in flat for text in game.exit_refusals) or (
        game.closed_door is not None and game.closed_door.search(flat) is not None
    )


def room_key(place: Place) -> RoomKey | None:
    """The room's object, else its name; None for a place with neither."""
    return place.location or place.room.strip() or None


def _typed(command: str) -> str:
    return " ".join(command.lower().split())


@dataclass(frozen=True)
class MapRoom:
    """A room as the episode knows it; `exits` maps a direction or a command to a room."""

    key: RoomKey
    name: str
    label: str
    first_turn: int
    visits: int
    exits: Mapping[str, RoomKey]
    blocked: frozenset[str]

    def open_exits(self) -> Iterable[tuple[str, RoomKey]]:
        return ((way, to) for way, to in self.exits.items() if way not in self.blocked)


@dataclass
class _Draft:
    name: str
    first_turn: int
    visits: int = 1
    exits: dict[str, RoomKey] = field(default_factory=dict)
    blocked: set[str] = field(default_factory=set)

    def drawn(self, key: RoomKey, name: str, label: str) -> MapRoom:
        exits, blocked = dict(self.exits), frozenset(self.blocked)
        return MapRoom(key, name, label, self.first_turn, self.visits, exits, blocked)


# A room drafted: its key, name, first turn, visits, exits (way, room) and blocked ways.
DraftState = tuple[RoomKey, str, int, int, tuple[tuple[str, RoomKey], ...], tuple[str, ...]]
# Where the player is (name, object), the last turn drawn, what "again" repeats, the rooms.
SurveyState = tuple[str, int, int, str, tuple[DraftState, ...]]
_SURVEY_STATE = TypeAdapter(SurveyState, config=ConfigDict(strict=True))


@dataclass
class MapSurvey:
    """The rooms drawn so far, turn by turn. Its state is plain data (`exported`,
    `imported`), so a reader can keep it and later draw only the turns played since."""

    here: Place  # where the last turn drawn left the player
    game: GameProfile  # whose words tell a direction and a refused exit
    drafts: dict[RoomKey, _Draft] = field(default_factory=dict)
    turn: int = 0  # the number of the last turn drawn
    previous: str = ""  # the command an "again" repeats

    @classmethod
    def of(cls, start: Place, turns: Iterable[PlayedTurn], game: GameProfile) -> MapSurvey:
        survey = cls(start, game)
        survey.enter(start, 0)
        for turn in turns:
            survey.record(turn)
        return survey

    def enter(self, place: Place, turn: int) -> None:
        key = room_key(place)
        if key is None:
            return
        draft = self.drafts.get(key)
        if draft is None:
            self.drafts[key] = _Draft(place.room.strip(), turn)
            return
        draft.visits += 1
        draft.name = draft.name or place.room.strip()

    def record(self, turn: PlayedTurn) -> None:
        """One more turn, played from where the last one left the player."""
        before, self.here, self.turn = self.here, turn.place, turn.turn
        command = self._repeated(turn.command)
        origin, target = room_key(before), room_key(turn.place)
        if target != origin:
            self.enter(turn.place, turn.turn)
        if origin is None or target is None or turn.died:
            return
        way = direction_of(command, self.game)
        draft = self.drafts[origin]
        if target != origin:
            taken = way or _typed(command)
            draft.exits[taken] = target
            draft.blocked.discard(taken)
        elif way and refused(turn.answer, self.game):
            draft.blocked.add(way)

    def _repeated(self, command: str) -> str:
        if _typed(command) not in AGAIN or not self.previous:
            self.previous = command
        return self.previous

    def drawn(self) -> EpisodeMap:
        names = {key: draft.name or f"Room {key}" for key, draft in self.drafts.items()}
        labels = _labels(list(names.items()))
        rooms = tuple(
            draft.drawn(key, names[key], labels[key]) for key, draft in self.drafts.items()
        )
        return EpisodeMap(rooms, room_key(self.here))

    def exported(self) -> SurveyState:
        """The survey as tuples, strings and numbers, which `imported` takes back."""
        drafts = tuple(
            (key, d.name, d.first_turn, d.visits, tuple(d.exits.items()), tuple(sorted(d.blocked)))
            for key, d in self.drafts.items()
        )
        return (self.here.room, self.here.location, self.turn, self.previous, drafts)

    @classmethod
    def imported(cls, state: object, game: GameProfile) -> MapSurvey | None:
        """The survey `exported` gave, or None for anything else: a kept state is read from
        a folder another process can write, so its shape and its links are checked."""
        try:
            room, location, turn, previous, rooms = _SURVEY_STATE.validate_python(state)
        except ValidationError:
            return None
        drafts = {
            key: _Draft(name, first, visits, dict(exits), set(blocked))
            for key, name, first, visits, exits, blocked in rooms
        }
        here = Place(room, location)
        linked = all(to in drafts for draft in drafts.values() for to in draft.exits.values())
        if len(drafts) != len(rooms) or not linked or room_key(here) not in (None, *drafts):
            return None
        return cls(here, game, drafts, turn, previous)


def _labels(rooms: Sequence[tuple[RoomKey, str]]) -> dict[RoomKey, str]:
    """Each room's name, numbered by first visit where several rooms share it."""
    shared = Counter(_folded(name) for _, name in rooms)
    seen: Counter[str] = Counter()
    labels = {}
    for key, name in rooms:
        folded = _folded(name)
        seen[folded] += 1
        labels[key] = name if shared[folded] == 1 else f"{name} ({seen[folded]})"
    return labels


def _folded(name: str) -> str:
    return " ".join(name.casefold().split())


def _counted(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


def _listed(labels: Sequence[str]) -> str:
    more = len(labels) - LISTED
    return ", ".join(labels[:LISTED]) + (f" (and {more} more)" if more > 0 else "")


@dataclass(frozen=True)
class RouteFound:
    start: str
    goal: str
    commands: tuple[str, ...]

    def text(self) -> str:
        route = ", ".join(self.commands)
        return f"From {self.start} to {self.goal}: {route} ({_counted(len(self.commands), 'move')})"


@dataclass(frozen=True)
class AlreadyThere:
    room: str

    def text(self) -> str:
        return f"From {self.room} to {self.room}: already there (0 moves)."


@dataclass(frozen=True)
class UnknownRoom:
    name: str
    rooms: tuple[str, ...]  # the closest labels first, then the other known ones

    def text(self) -> str:
        what = "the current room" if _folded(self.name) in HERE else f"a room called {self.name!r}"
        if not self.rooms:
            return f"The map does not know {what}: it has no rooms yet."
        return f"The map does not know {what}. Its rooms: {_listed(self.rooms)}."


@dataclass(frozen=True)
class AmbiguousRoom:
    name: str
    candidates: tuple[str, ...]

    def text(self) -> str:
        rooms = _listed(self.candidates)
        return f"{self.name!r} names {len(self.candidates)} rooms: {rooms}. Ask for one by label."


@dataclass(frozen=True)
class NoKnownRoute:
    start: str
    goal: str
    reachable: tuple[str, ...]  # the rooms the known exits lead to from the start

    def text(self) -> str:
        head = f"No known route from {self.start} to {self.goal} (blocked exits left out)."
        if not self.reachable:
            return f"{head} No known exit leads anywhere from {self.start} yet."
        return f"{head} From {self.start} the map reaches: {_listed(self.reachable)}."


Route = RouteFound | AlreadyThere | UnknownRoom | AmbiguousRoom | NoKnownRoute


@dataclass(frozen=True)
class EpisodeMap:
    """The rooms in the order first entered, and the key of the room the player is in."""

    rooms: tuple[MapRoom, ...]
    here: RoomKey | None

    @classmethod
    def of(cls, start: Place, turns: Iterable[PlayedTurn], game: GameProfile) -> EpisodeMap:
        return MapSurvey.of(start, turns, game).drawn()

    def room(self, where: Place | RoomKey | None) -> MapRoom | None:
        key = room_key(where) if isinstance(where, Place) else where
        return next((room for room in self.rooms if room.key == key), None)

    @property
    def current(self) -> MapRoom | None:
        return self.room(self.here)

    def visits(self) -> dict[str, int]:
        """How many times each room was entered (the start counts once), by label."""
        return {room.label: room.visits for room in self.rooms}

    def find_path(self, from_room: str = "", to_room: str = "") -> Route:
        """The shortest route over the exits seen and not blocked ("" or "here": the current
        room), as the commands to type."""
        start, goal = self._resolved(from_room), self._resolved(to_room)
        if not isinstance(start, MapRoom):
            return start
        if not isinstance(goal, MapRoom):
            return goal
        if start.key == goal.key:
            return AlreadyThere(start.label)
        routes = self._routes_from(start)
        if goal.key in routes:
            return RouteFound(start.label, goal.label, routes[goal.key])
        del routes[start.key]
        reached = tuple(room.label for room in self.rooms if room.key in routes)
        return NoKnownRoute(start.label, goal.label, reached)

    def _resolved(self, name: str) -> MapRoom | UnknownRoom | AmbiguousRoom:
        wanted = _folded(name)
        if wanted in HERE:
            return self.current or UnknownRoom(name, self._labels_near(name))
        for room in self.rooms:
            if _folded(room.label) == wanted:
                return room
        named = [room for room in self.rooms if _folded(room.name) == wanted]
        if named:  # a name several rooms share (one room's label is its name)
            return AmbiguousRoom(name, tuple(room.label for room in named))
        return UnknownRoom(name[:SHOWN], self._labels_near(name))

    def _labels_near(self, name: str) -> tuple[str, ...]:
        """Every label, the five most like `name` first (ties in first-visit order)."""
        wanted = _folded(name[:SHOWN])
        likeness = {
            room.label: difflib.SequenceMatcher(None, wanted, _folded(room.label)).ratio()
            for room in self.rooms
        }
        alike = [label for label in likeness if likeness[label] >= 0.6]
        near = sorted(alike, key=likeness.__getitem__, reverse=True)[:5]
        return (*near, *(label for label in likeness if label not in near))

    def _routes_from(self, start: MapRoom) -> dict[RoomKey, tuple[str, ...]]:
        """Breadth first: the shortest known commands to each room reachable from `start`."""
        rooms = {room.key: room for room in self.rooms}
        routes: dict[RoomKey, tuple[str, ...]] = {start.key: ()}
        queue = deque([start.key])
        while queue:
            key = queue.popleft()
            for way, target in rooms[key].open_exits():
                if target not in routes:
                    routes[target] = (*routes[key], way)
                    queue.append(target)
        return routes

    def render(self) -> str:
        """Every room in the order first entered, with the exits seen and the ones blocked."""
        if not self.rooms:
            return "Map: no rooms yet."
        lines = [f"Map: {_counted(len(self.rooms), 'room')}, in the order first entered."]
        labels = self._labels_by_key()
        for room in self.rooms:
            lines.append(f"* {room.label}" + (" [here]" if room.key == self.here else ""))
            lines += [f"  {way}" for way in _ways(room, labels)]
        return "\n".join(lines)

    def _labels_by_key(self) -> dict[RoomKey, str]:
        return {room.key: room.label for room in self.rooms}

    def describe(self, where: Place | RoomKey) -> str:
        """What the map knows of one room, in a line or two."""
        room = self.room(where)
        if room is None:
            name = where.room if isinstance(where, Place) else where
            return f"The map knows nothing of {name or 'this room'} yet."
        times = "once" if room.visits == 1 else f"{room.visits} times"
        ways = _ways(room, self._labels_by_key())
        seen = "; ".join(ways) if ways else "none yet"
        return f"{room.label}: entered {times} (first on turn {room.first_turn}); exits: {seen}."


def _ways(room: MapRoom, labels: Mapping[RoomKey, str]) -> list[str]:
    """Each exit seen with the room it led to, then each direction blocked and never taken."""
    ways = [
        f"{way} -> {labels[to]}" + (" (blocked when last tried)" if way in room.blocked else "")
        for way, to in room.exits.items()
    ]
    return ways + [f"{way}: blocked" for way in sorted(room.blocked - room.exits.keys())]
