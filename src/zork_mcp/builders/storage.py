"""The stores' builders: an episode's checkpoints, events log and journal, a sweep's results."""

from __future__ import annotations

from pathlib import Path

from zork_mcp.adapters.storage.activity_file import ActivityFile
from zork_mcp.adapters.storage.checkpoint_file import TRUST_FLAG, FileCheckpoints
from zork_mcp.adapters.storage.episode_folder import EpisodeFolder
from zork_mcp.adapters.storage.journal_file import NOTE_CHARS, FileJournal
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.adapters.telemetry.jsonl import read_events
from zork_mcp.domain.facts.events import LoggedEvent
from zork_mcp.domain.game.profile import GameProfile
from zork_mcp.ports.checkpoints import Checkpoints
from zork_mcp.ports.episode_journal import EpisodeJournal
from zork_mcp.ports.result_store import ResultStore

__all__ = [
    "NOTE_CHARS",
    "TRUST_FLAG",
    "EpisodeFolder",
    "FileJournal",
]  # for the CLIs, the memory server


def activity_file(directory: Path) -> ActivityFile:
    """What the episode whose log folder this is waits for now: its worker writes it, the
    sweep's live panel reads it."""
    return ActivityFile(directory)


def checkpoints(directory: Path, trust_pickle: bool = False) -> Checkpoints:
    """The checkpoints of the episode whose log folder this is; `trust_pickle`: its user
    has said an old checkpoint.pickle there is theirs, to be loaded."""
    return FileCheckpoints(directory, trust_pickle=trust_pickle)


def episode_folder(directory: Path) -> EpisodeFolder:
    """An episode's log folder as it is before a run writes there: what it holds, and what a
    run that stops before its episode began must remove."""
    return EpisodeFolder.look(directory)


def episode_journal(
    directory: Path, notes_folder: Path | None = None, game: GameProfile | None = None
) -> EpisodeJournal:
    """The journal of the episode whose log folder this is, which its memory server reads,
    and the notes that server keeps in its own folder (`notes_folder`; None: no notes).
    `game`: the game played, which the journal names for its readers."""
    return FileJournal.episode(directory, notes_folder, game)


def journal_file(journal: Path, folder: Path) -> FileJournal:
    """An episode's journal as its memory server uses it: read, and notes kept in its own
    folder beside what it has parsed."""
    return FileJournal.served(journal, folder)


def episode_events(directory: Path) -> list[LoggedEvent]:
    """An episode folder's events log, read by the adapter that writes it."""
    return read_events(directory)


def results_store(path: Path, *, existing: bool = False) -> ResultStore:
    """A sweep's results; `existing=True` refuses a path with no results yet."""
    return SqliteResultStore.existing(path) if existing else SqliteResultStore(path)
