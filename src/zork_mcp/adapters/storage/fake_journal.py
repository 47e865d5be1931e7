"""An in-memory episode journal, as the file keeps one: a `begin` after `turn` turns forgets
the turns recorded after it and the notes written in them."""

from __future__ import annotations

from zork_mcp.adapters.storage.journal_file import Played
from zork_mcp.domain.episode.episode_map import EpisodeMap
from zork_mcp.domain.episode.episode_state import Note, Place, PlayedTurn
from zork_mcp.domain.game.profile import GameProfile
from zork_mcp.domain.game.trilogy import profile_named


class FakeJournal:
    def __init__(self, game: GameProfile | None = None) -> None:
        """`game`: as the file journal's writer names it (None: as an unnamed journal's)."""
        self.game = game or profile_named(None)
        self._start, self._opening = Place(""), ""
        self._begun = False
        self._turns: list[PlayedTurn] = []
        self._notes: list[Note] = []

    def begin(self, start: Place, opening: str, turn: int) -> None:
        self._start, self._opening, self._begun = start, opening, True
        self._turns = [played for played in self._turns if played.turn <= turn]
        self._notes = [note for note in self._notes if note.turn <= turn]

    def record(self, turn: PlayedTurn) -> None:
        self._turns = [played for played in self._turns if played.turn < turn.turn]
        self._turns.append(turn)

    def exists(self) -> bool:
        return self._begun

    def played(self) -> Played:
        return Played(self._start, self._opening, tuple(self._turns))

    def episode_map(self) -> EpisodeMap:
        return EpisodeMap.of(self._start, self._turns, self.game)

    def add_note(self, text: str, turn: int) -> Note:
        note = Note(turn, text)
        self._notes.append(note)
        return note

    def notes(self) -> tuple[Note, ...]:
        return tuple(self._notes)
