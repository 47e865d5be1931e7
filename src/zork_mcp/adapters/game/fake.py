"""A tiny deterministic text adventure behind the GameEnv port, for tests and dry runs."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace

from zork_mcp.domain.game.game import GameObservation
from zork_mcp.domain.game.game_command import CommandRules, notice_text, safe_command
from zork_mcp.domain.game.game_peek import peek_by_restoring
from zork_mcp.domain.game.story_file import GameLexicon

_ROOMS = {
    "West of House": {"north": "North of House", "south": "South of House"},
    "North of House": {"south": "West of House", "east": "Behind House"},
    "South of House": {"north": "West of House", "east": "Behind House"},
    "Behind House": {"west": "North of House"},
}
# Each room's object number, as a story file numbers its objects (the game's location).
_OBJECTS = {room: number for number, room in enumerate(_ROOMS, start=10)}
_DIRECTIONS = {"n": "north", "s": "south", "e": "east", "w": "west"}
_QUIT = b"\x41\xf6\x00"  # one dictionary datum for both words, as in Zork I
_VOCABULARY = [
    *_DIRECTIONS,
    *_DIRECTIONS.values(),
    *["go", "take", "get", "look", "l", "inventory", "i", "leaflet", "egg"],
    ("quit", _QUIT),
    ("q", _QUIT),
    *["restart", "save", "restore", "script", "unscript", "#command", "#record", "#unrecord"],
    "$verify",
]
RULES = CommandRules.for_game(GameLexicon.from_words(_VOCABULARY))


@dataclass(frozen=True)
class _State:
    room: str = "West of House"
    moves: int = 0
    score: int = 0
    carrying: frozenset[str] = frozenset()
    items: tuple[tuple[str, str], ...] = (("leaflet", "West of House"), ("egg", "Behind House"))
    treasures: frozenset[str] = field(default=frozenset({"egg"}))

    def to_bytes(self) -> bytes:
        fields = {
            **asdict(self),
            "carrying": sorted(self.carrying),
            "treasures": sorted(self.treasures),
        }
        return json.dumps(fields).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> _State:
        try:
            saved = json.loads(data)
            return cls(
                str(saved["room"]),
                int(saved["moves"]),
                int(saved["score"]),
                frozenset(map(str, saved["carrying"])),
                tuple((str(item), str(room)) for item, room in saved["items"]),
                frozenset(map(str, saved["treasures"])),
            )
        except (TypeError, ValueError, KeyError) as e:
            raise TypeError("not a FakeGameEnv snapshot") from e


class FakeGameEnv:
    """Four rooms, a leaflet and an egg; taking the egg scores 10 points and wins."""

    max_score = 10

    def __init__(self) -> None:
        self._state = _State()

    def reset(self) -> GameObservation:
        self._state = _State()
        return self._observe(self._describe())

    def step(self, action: str) -> GameObservation:
        verdict = safe_command(action, RULES)
        if verdict.command is None:
            return self._observe(f"[{verdict.notice}]")
        verb, _, noun = verdict.command.lower().partition(" ")
        if verb == "go" and noun:
            verb, noun = noun, ""
        self._state = replace(self._state, moves=self._state.moves + 1)
        text = self._act(_DIRECTIONS.get(verb, verb), noun)
        return self._observe(notice_text(verdict, text))

    def peek(self, action: str) -> GameObservation:
        return peek_by_restoring(self, action)

    def save_state(self) -> bytes:
        return self._state.to_bytes()

    def restore_state(self, state: bytes) -> GameObservation:
        self._state = _State.from_bytes(state)
        return self._observe(self._describe())

    def _act(self, verb: str, noun: str) -> str:
        if verb in ("north", "south", "east", "west"):
            return self._go(verb)
        if verb in ("take", "get") and noun:
            return self._take(noun)
        if verb in ("look", "l"):
            return self._describe()
        if verb in ("inventory", "i"):
            return ", ".join(sorted(self._state.carrying)) or "You are empty-handed."
        return f'I don\'t know the word "{verb}".' if verb else "I beg your pardon?"

    def _go(self, direction: str) -> str:
        target = _ROOMS[self._state.room].get(direction)
        if target is None:
            return "You can't go that way."
        self._state = replace(self._state, room=target)
        return self._describe()

    def _take(self, noun: str) -> str:
        here = dict(self._state.items)
        if here.get(noun) != self._state.room:
            return f"You can't see any {noun} here!"
        bonus = 10 if noun in self._state.treasures else 0
        self._state = replace(
            self._state,
            items=tuple((item, room) for item, room in self._state.items if item != noun),
            carrying=self._state.carrying | {noun},
            score=self._state.score + bonus,
        )
        return "Taken."

    def _describe(self) -> str:
        here = [item for item, room in self._state.items if room == self._state.room]
        exits = ", ".join(sorted(_ROOMS[self._state.room]))
        seen = "".join(f"\nThere is a {item} here." for item in here)
        return f"{self._state.room}\nExits: {exits}.{seen}"

    def _observe(self, text: str) -> GameObservation:
        state = self._state
        over = state.score >= self.max_score
        return GameObservation(
            text,
            state.room,
            state.score,
            state.moves,
            game_over=over,
            location=_OBJECTS[state.room],
        )


class ScriptedGameEnv:
    """Answers each command with the next of `answers`, moving one room on each time (room
    `Room N`, object N); never over. For tests of what the agent is shown of long answers."""

    def __init__(self, answers: list[str], opening: str = "Welcome.") -> None:
        self._answers, self._opening = answers, opening
        self._played = 0

    def reset(self) -> GameObservation:
        self._played = 0
        return self._observe(self._opening)

    def step(self, action: str) -> GameObservation:
        text = self._answers[self._played % len(self._answers)]
        self._played += 1
        return self._observe(text)

    def peek(self, action: str) -> GameObservation:
        return self._observe("You are empty-handed.")

    def save_state(self) -> bytes:
        return json.dumps({"played": self._played}).encode()

    def restore_state(self, state: bytes) -> GameObservation:
        try:
            played = json.loads(state)["played"]
        except (TypeError, ValueError, KeyError) as e:
            raise TypeError("not a ScriptedGameEnv snapshot") from e
        if type(played) is not int:
            raise TypeError("not a ScriptedGameEnv snapshot")
        self._played = played
        return self._observe("")

    def _observe(self, text: str) -> GameObservation:
        room = self._played + 1
        return GameObservation(text, f"Room {room}", 0, self._played, location=room)
