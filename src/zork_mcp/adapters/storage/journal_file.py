"""An episode's journal as files in its log folder: `journal.jsonl`, a line for every `begin`
and every turn recorded (the orchestrator's), and `notes.jsonl`, the agent's notes (its
memory server's). This module is the format's writer and its one reader.

Every line is written with one `write` on a file opened for appending, so a writer killed at
any moment leaves whole lines and at most one unfinished last line, which a reader skips. A
`begin` after `turn` turns forgets the turns recorded after that one (a run killed before its
checkpoint, then resumed), and the notes written in those turns; a note remembers how long
the journal was when it was written, so a note of the resumed run is kept.

Every memory tool call reads the journal afresh (each turn's server is a new process), and
parsing the JSON of a 400-turn journal with answers of a few KB costs a fresh process ~5 ms.
So readers keep what they parsed in `journal.snapshot` (marshal, ~0.2 ms to load), and each
read parses only the lines appended since; the snapshot is only a cache, checked against
the journal (same file, same bytes where it ends) and ignored when it does not match.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from zork_mcp.domain.episode.episode_state import Note, Place, PlayedTurn

JOURNAL_FILE = "journal.jsonl"
NOTES_FILE = "notes.jsonl"
SNAPSHOT_FILE = "journal.snapshot"
SNAPSHOT_VERSION = 1
SNAPSHOT_AFTER = 32 * 1024  # bytes parsed past the snapshot before a reader writes a new one
CHECKED = 64  # bytes before the snapshot's end that must still be there
Line = tuple[int, dict[str, Any]]  # a parsed line and the offset where it ends


class Played(NamedTuple):
    """What the journal says the episode played: where it started, the game's first text,
    and every turn still remembered, in order."""

    start: Place
    opening: str
    turns: tuple[PlayedTurn, ...]


class FileJournal:
    """The EpisodeJournal of one episode folder, and what its memory server reads and adds."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.journal_path = directory / JOURNAL_FILE
        self.notes_path = directory / NOTES_FILE
        self.snapshot_path = directory / SNAPSHOT_FILE

    def begin(self, start: Place, opening: str, turn: int) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        line = {"begin": turn, "room": start.room, "location": start.location, "opening": opening}
        _append(self.journal_path, line)

    def record(self, turn: PlayedTurn) -> None:
        _append(self.journal_path, _turn_line(turn))

    def exists(self) -> bool:
        """Whether an episode has begun here."""
        return self.journal_path.is_file()

    def played(self) -> Played:
        """The episode as recorded so far (no turns, an unnamed start, before any `begin`)."""
        return _played(self._journal_lines())

    def add_note(self, text: str, turn: int) -> Note:
        """Keep a note written in `turn`."""
        after = _size(self.journal_path)
        _append(self.notes_path, {"turn": turn, "text": text, "after": after})
        return Note(turn, text)

    def notes(self) -> tuple[Note, ...]:
        written = _whole_lines(self.notes_path)
        if not written:
            return ()
        begins = [(end, line["begin"]) for end, line in self._journal_lines() if "begin" in line]
        kept = []
        for _, line in written:
            later = (turn for end, turn in begins if end > line["after"])
            if all(line["turn"] <= turn for turn in later):
                kept.append(Note(line["turn"], line["text"]))
        return tuple(kept)

    def _journal_lines(self) -> list[Line]:
        """Every whole line of the journal: the snapshot's, then those appended since."""
        try:
            fd = os.open(self.journal_path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return []
        with os.fdopen(fd, "rb") as journal:
            identity = os.fstat(fd).st_ino
            lines, start = _snapshot(self.snapshot_path, fd, identity)
            journal.seek(start)
            appended = _parsed_lines(journal.read(), start)
            lines += appended
            if appended and appended[-1][0] - start >= SNAPSHOT_AFTER:
                _keep_snapshot(self.snapshot_path, fd, identity, lines)
        return lines


def _turn_line(turn: PlayedTurn) -> dict[str, Any]:
    return {
        "turn": turn.turn,
        "command": turn.command,
        "answer": turn.answer,
        "room": turn.place.room,
        "location": turn.place.location,
        "score": turn.score,
        "score_change": turn.score_change,
        "died": turn.died,
    }


def _played(lines: Sequence[Line]) -> Played:
    start, opening = Place(""), ""
    turns: list[PlayedTurn] = []
    for _, line in lines:
        if "begin" in line:
            start, opening = Place(line["room"], line["location"]), line["opening"]
            while turns and turns[-1].turn > line["begin"]:
                turns.pop()
            continue
        while turns and turns[-1].turn >= line["turn"]:
            turns.pop()  # recorded again: the later word wins
        place = Place(line["room"], line["location"])
        turns.append(PlayedTurn(line["turn"], line["command"], line["answer"], place,
                                line["score"], line["score_change"], line["died"]))  # fmt: skip
    return Played(start, opening, tuple(turns))


def _append(path: Path, line: dict[str, Any]) -> None:
    """One line, in one write: a reader never sees half of it, unless the writer died in
    the write; that unfinished line is then ended first, so it stays a line of its own,
    which readers skip."""
    data = (json.dumps(line) + "\n").encode()
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        os.write(fd, data)
    finally:
        os.close(fd)


def _whole_lines(path: Path) -> list[Line]:
    try:
        return _parsed_lines(path.read_bytes(), 0)
    except FileNotFoundError:
        return []


def _parsed_lines(data: bytes, offset: int) -> list[Line]:
    """Each whole line of `data` that parses, with the offset where it ends (`data` starts
    at `offset`); an unfinished last line is left out."""
    lines, end = [], offset
    for row in data[: data.rfind(b"\n") + 1].split(b"\n")[:-1]:
        end += len(row) + 1
        with contextlib.suppress(ValueError):
            line = json.loads(row)
            if isinstance(line, dict):
                lines.append((end, line))
    return lines


def _snapshot(path: Path, fd: int, identity: int) -> tuple[list[Line], int]:
    """The lines a reader kept, and the offset they end at; none (0) when there is no
    snapshot or it is not of this journal as it is now."""
    try:
        version, kept_identity, end, check, lines = marshal.loads(path.read_bytes())
        ours = (version, kept_identity) == (SNAPSHOT_VERSION, identity) and type(lines) is list
        if ours and os.pread(fd, len(check), end - len(check)) == check:
            return lines, end
    except (OSError, ValueError, EOFError, TypeError):
        pass
    return [], 0


def _keep_snapshot(path: Path, fd: int, identity: int, lines: list[Line]) -> None:
    """Best effort: a reader that cannot write one (a read-only folder) parses more."""
    end = lines[-1][0]
    check = os.pread(fd, min(CHECKED, end), end - min(CHECKED, end))
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    with contextlib.suppress(OSError):
        partial.write_bytes(marshal.dumps((SNAPSHOT_VERSION, identity, end, check, lines)))
        os.replace(partial, path)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
