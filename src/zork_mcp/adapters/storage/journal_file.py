"""An episode's journal as files: `journal.jsonl` in its log folder, a line for every `begin`
and every turn recorded (the agent's own, which only it writes), and `notes.jsonl`, the
agent's notes, in its memory server's own folder (which only that server writes; the agent
reads them back as text). This module is the format's writer and its one reader.

Every line is written with one `write` on a file opened for appending, so a writer killed at
any moment leaves whole lines and at most one unfinished last line, which a reader skips. A
`begin` after `turn` turns forgets the turns recorded after that one (a run killed before its
checkpoint, then resumed), and the notes written in those turns; a note remembers how long
the journal was when it was written, so a note of the resumed run is kept.

Every memory tool call reads the journal afresh (each turn's server is a new process), and
parsing the JSON of a 400-turn journal with answers of a few KB costs a fresh process ~5 ms,
drawing its map ~2 ms more. So the memory server keeps what it parsed in `journal.snapshot`
in its own folder (marshal: a header with the map's survey, read alone, then the lines,
which a map's reader seldom reads); each read parses only the lines appended since, and
draws only their turns on the kept map (every turn again after a `begin` or a turn recorded
again). The snapshot is only a cache, in a folder another process could write: checked
against the journal (same file, same bytes where it ends), its survey's shape checked, and
ignored when either does not match.

No file is opened through a symbolic link, nor written when it is not the writer's own
(`own_files`).
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property, partial
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from zork_mcp.adapters.storage import own_files
from zork_mcp.adapters.storage.own_files import ForeignFileError
from zork_mcp.domain.episode.episode_map import EpisodeMap, MapSurvey
from zork_mcp.domain.episode.episode_state import Note, Place, PlayedTurn
from zork_mcp.domain.errors import ServerFileError
from zork_mcp.domain.game.profile import GameProfile
from zork_mcp.domain.game.trilogy import profile_named

JOURNAL_FILE = "journal.jsonl"
NOTES_FILE = "notes.jsonl"
SNAPSHOT_FILE = "journal.snapshot"
SNAPSHOT_VERSION = 2  # 2: the map's survey, then the lines
SNAPSHOT_AFTER = 32 * 1024  # bytes parsed past the snapshot before a reader writes a new one
CHECKED = 64  # bytes before the snapshot's end that must still be there
HEAD = 64 * 1024  # what a reader reads of a snapshot first: its header is a few KB
FIRST_LINE_BYTES = 256 * 1024  # the most of a `begin` line read for its game
NOTE_CHARS = 1_000  # the longest note the memory server keeps; a longer line is cut as read
# What a reader takes of a notes file, which its server writes: its last 1 MiB, its last
# 1,000 notes, each line at most 16 KiB (a note of NOTE_CHARS, each escaped as JSON at up to
# 12 bytes, and its fields)
NOTES_BYTES = 1024 * 1024
NOTES_LINES = 1_000
NOTE_LINE_BYTES = 16 * 1024
Line = tuple[int, dict[str, Any]]  # a parsed line and the offset where it ends


class Played(NamedTuple):
    """What the journal says the episode played: where it started, the game's first text,
    and every turn still remembered, in order."""

    start: Place
    opening: str
    turns: tuple[PlayedTurn, ...]


class FileJournal:
    """One episode's journal: the agent's (`episode`: it writes the journal in the episode's
    folder and reads the notes in its memory server's, if it has one), or its memory
    server's (`served`: it reads the journal and keeps its notes and its cache in its own
    folder)."""

    def __init__(
        self,
        journal_path: Path,
        notes_folder: Path | None,
        *,
        cache: bool = False,
        game: GameProfile | None = None,
    ) -> None:
        """`game`: the game the writer plays, named in each `begin`; a reader without one
        takes the game the journal's first line names (Zork I where it names none)."""
        self.journal_path = journal_path
        self._game = game
        self.notes_path = notes_folder / NOTES_FILE if notes_folder else None
        self.snapshot_path = notes_folder / SNAPSHOT_FILE if notes_folder and cache else None

    @classmethod
    def episode(
        cls, directory: Path, notes_folder: Path | None = None, game: GameProfile | None = None
    ) -> FileJournal:
        return cls(directory / JOURNAL_FILE, notes_folder, game=game)

    @classmethod
    def served(cls, journal_path: Path, folder: Path) -> FileJournal:
        return cls(journal_path, folder, cache=True)

    def begin(self, start: Place, opening: str, turn: int) -> None:
        line = {"begin": turn, "room": start.room, "location": start.location, "opening": opening}
        _append(self.journal_path, line | ({"game": self._game.key} if self._game else {}))

    def record(self, turn: PlayedTurn) -> None:
        _append(self.journal_path, _turn_line(turn))

    def exists(self) -> bool:
        """Whether an episode has begun here."""
        return self.journal_path.is_file()

    def played(self) -> Played:
        """The episode as recorded so far (no turns, an unnamed start, before any `begin`)."""
        with self._reading() as reading:
            return _played(reading.lines)

    def episode_map(self) -> EpisodeMap:
        """The map of the episode as recorded so far."""
        with self._reading() as reading:
            return reading.survey.drawn()

    @property
    def game(self) -> GameProfile:
        """The game the episode plays: the writer's, else the one the first `begin` names."""
        if self._game is None:
            self._game = profile_named(_first_game(self.journal_path))
        return self._game

    def add_note(self, text: str, turn: int) -> Note:
        """Keep a note written in `turn`."""
        if self.notes_path is None:
            raise ValueError("this journal has no folder for notes")
        after = _size(self.journal_path)
        _append(self.notes_path, {"turn": turn, "text": text, "after": after})
        return Note(turn, text)

    def notes(self) -> tuple[Note, ...]:
        """The notes still remembered: each a line its memory server wrote, read as text
        (a line that is not a note is skipped)."""
        try:
            written = _notes_lines(self.notes_path) if self.notes_path else []
        except ForeignFileError as e:
            raise ServerFileError(str(self.notes_path), str(e)) from e
        if not written:
            return ()
        with self._reading() as reading:
            begins = [(end, line["begin"]) for end, line in reading.lines if "begin" in line]
        kept = []
        for _, line in written:
            note = _note(line)
            if note is None:
                continue
            later = (turn for end, turn in begins if end > line["after"])
            if all(note.turn <= turn for turn in later):
                kept.append(note)
        return tuple(kept)

    @contextlib.contextmanager
    def _reading(self) -> Iterator[_Reading]:
        """The journal as it is now; when a reader has parsed enough since the snapshot, a
        new snapshot keeps what it read."""
        try:
            fd = own_files.open_reading(self.journal_path)
        except FileNotFoundError:
            yield _Reading(-1, _Kept(), [], lambda: self.game)  # nothing kept: never read
            return
        with os.fdopen(fd, "rb") as journal, contextlib.ExitStack() as stack:
            identity = os.fstat(fd).st_ino
            kept = stack.enter_context(_snapshot(self.snapshot_path, fd, identity))
            journal.seek(kept.end)
            appended = _parsed_lines(journal.read(), kept.end)
            reading = _Reading(fd, kept, appended, lambda: self.game)
            yield reading
            if self.snapshot_path and reading.parsed() >= SNAPSHOT_AFTER:
                _keep_snapshot(self.snapshot_path, fd, identity, reading)


class _Kept(NamedTuple):
    """What a reader kept of the journal up to `end`: its map's survey, as exported (not
    yet checked), and its lines, read from the snapshot only when asked for (a map's reader
    seldom needs them)."""

    end: int = 0
    survey: object = None
    kept_lines: Callable[[], bytes] = bytes  # the marshalled lines

    def lines(self, fd: int) -> list[Line]:
        """The kept lines; the journal's own (`fd`), parsed again, when they do not load."""
        if not self.end:
            return []
        with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
            lines = marshal.loads(self.kept_lines())
            if type(lines) is list:
                return lines
        return _parsed_lines(os.pread(fd, self.end, 0), 0)


class _Reading:
    """One read of the journal: what a reader kept, then the lines appended since. The kept
    lines are loaded, and the map drawn, only when asked for."""

    def __init__(
        self, fd: int, kept: _Kept, appended: list[Line], game: Callable[[], GameProfile]
    ) -> None:
        self.fd, self.kept, self.appended, self.game = fd, kept, appended, game

    def parsed(self) -> int:
        """How many bytes of the journal this read parsed."""
        return self.appended[-1][0] - self.kept.end if self.appended else 0

    @cached_property
    def lines(self) -> list[Line]:
        return self.kept.lines(self.fd) + self.appended

    @cached_property
    def survey(self) -> MapSurvey:
        """The kept survey with the turns appended since drawn on it; drawn afresh from every
        turn when none is kept, or when the journal went back (a `begin`, a turn recorded
        again)."""
        game = self.game()
        survey = MapSurvey.imported(self.kept.survey, game) if self.kept.end else None
        if survey is None or not _onward(survey.turn, self.appended):
            played = _played(self.lines)
            return MapSurvey.of(played.start, played.turns, game)
        for _, line in self.appended:
            survey.record(_turn(line))
        return survey


def _first_game(path: Path) -> str | None:
    """The game the journal's first line names (None: none, or no journal yet)."""
    try:
        fd = own_files.open_reading(path)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as journal:
        first = journal.readline(FIRST_LINE_BYTES)
    with contextlib.suppress(ValueError):
        line = json.loads(first)
        if isinstance(line, dict) and isinstance(line.get("game"), str):
            return line["game"]
    return None


def _onward(turn: int, lines: Sequence[Line]) -> bool:
    """Whether `lines` only go on after turn `turn`: no `begin`, and each turn a later one."""
    for _, line in lines:
        if "begin" in line or line["turn"] <= turn:
            return False
        turn = line["turn"]
    return True


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
        turns.append(_turn(line))
    return Played(start, opening, tuple(turns))


def _turn(line: dict[str, Any]) -> PlayedTurn:
    place = Place(line["room"], line["location"])
    return PlayedTurn(
        line["turn"],
        line["command"],
        line["answer"],
        place,
        line["score"],
        line["score_change"],
        line["died"],
    )


def _note(line: dict[str, Any]) -> Note | None:
    """A note line as its memory server writes it, or None."""
    turn, text, after = line.get("turn"), line.get("text"), line.get("after")
    if type(turn) is not int or type(after) is not int or not isinstance(text, str):
        return None
    return Note(turn, text[:NOTE_CHARS])


def _append(path: Path, line: dict[str, Any]) -> None:
    """One line, in one write: a reader never sees half of it, unless the writer died in
    the write; that unfinished line is then ended first, so it stays a line of its own,
    which readers skip."""
    data = (json.dumps(line) + "\n").encode()
    fd = own_files.open_appending(path, readable=True)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        os.write(fd, data)
    finally:
        os.close(fd)


def _notes_lines(path: Path) -> list[Line]:
    """The notes file's last NOTES_LINES whole lines that parse, read from at most its last
    NOTES_BYTES as a file its server writes (`own_files.read_foreign`); a line longer than
    a note's can be (NOTE_LINE_BYTES) is skipped unparsed."""
    try:
        data = own_files.read_foreign(path, NOTES_BYTES)
    except FileNotFoundError:
        return []
    return _parsed_lines(data, 0, NOTE_LINE_BYTES)[-NOTES_LINES:]


def _parsed_lines(data: bytes, offset: int, longest: int | None = None) -> list[Line]:
    """Each whole line of `data` that parses, with the offset where it ends (`data` starts
    at `offset`); an unfinished last line is left out, and so is a line longer than
    `longest` bytes or nested too deep for the parser."""
    lines, end = [], offset
    for row in data[: data.rfind(b"\n") + 1].split(b"\n")[:-1]:
        end += len(row) + 1
        if longest is not None and len(row) > longest:
            continue
        with contextlib.suppress(ValueError, RecursionError):
            line = json.loads(row)
            if isinstance(line, dict):
                lines.append((end, line))
    return lines


@contextlib.contextmanager
def _snapshot(path: Path | None, fd: int, identity: int) -> Iterator[_Kept]:
    """What a reader kept of this journal as it is now, the snapshot open while it is read;
    nothing (end 0) when there is none, or it is of another journal, another version or
    another length."""
    try:
        snapshot = own_files.open_reading(path) if path else None
    except (OSError, ForeignFileError):
        snapshot = None
    if snapshot is None:
        yield _Kept()
        return
    with os.fdopen(snapshot, "rb") as file:
        yield _header(file, fd, identity)


def _header(snapshot: BinaryIO, fd: int, identity: int) -> _Kept:
    """The snapshot's header, read first and alone; its lines are read when asked for."""
    try:
        file_size = os.fstat(snapshot.fileno()).st_size
        head = snapshot.read(HEAD)
        try:
            header = marshal.loads(head)  # the first object; the lines after it are left
        except EOFError:  # a header longer than HEAD
            header = marshal.loads(head + snapshot.read())
        version, kept_identity, end, check, survey, lines_size = header
        ours = (version, kept_identity) == (SNAPSHOT_VERSION, identity)
        if ours and _fits(end, check, lines_size, file_size) and _ends_with(fd, end, check):
            at = file_size - lines_size  # the lines are the snapshot's last bytes
            return _Kept(end, survey, partial(os.pread, snapshot.fileno(), lines_size, at))
    except (OSError, ValueError, EOFError, TypeError):
        pass
    return _Kept()


def _fits(end: object, check: object, lines_size: object, file_size: int) -> bool:
    """The header's numbers are a writer's: `check`, the last bytes before `end`, and the
    kept lines, the snapshot's last `lines_size` bytes."""
    ended = type(end) is int and type(check) is bytes and len(check) == min(CHECKED, end)
    return ended and type(lines_size) is int and 0 <= lines_size <= file_size


def _ends_with(fd: int, end: int, check: bytes) -> bool:
    return os.pread(fd, len(check), end - len(check)) == check


def _keep_snapshot(path: Path, fd: int, identity: int, reading: _Reading) -> None:
    """Best effort: a reader that cannot write one (a read-only folder, a link in its place)
    parses more."""
    lines = reading.lines
    end = lines[-1][0]
    check = os.pread(fd, min(CHECKED, end), end - min(CHECKED, end))
    kept = marshal.dumps(lines)
    header = (SNAPSHOT_VERSION, identity, end, check, reading.survey.exported(), len(kept))
    with contextlib.suppress(OSError, ForeignFileError):
        own_files.replace(path, marshal.dumps(header) + kept)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
