"""What a server leaves in its own folder is read as untrusted bytes (issue 66): a pipe, a
socket, a device node or a link in place of the memory server's notes, a huge file, or a
note nested past the parser's depth. Each is that server's failure: its notes are skipped,
a notice says why (once), and the episode plays on promptly, in bounded memory."""

from __future__ import annotations

import json
import os
import socket
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.agents import agent_for
from tests.support.deadline import PROMPTLY, within
from zork_mcp.adapters.game.fake import FakeGameEnv
from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.adapters.storage.journal_file import (
    NOTES_BYTES,
    NOTES_FILE,
    NOTES_LINES,
    FileJournal,
)
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.app.orchestrator import Orchestrator
from zork_mcp.domain.episode.episode_state import Place
from zork_mcp.domain.errors import ServerFileError
from zork_mcp.domain.facts.events import EventType
from zork_mcp.domain.game.trilogy import ZORK1

ZORK1_START = Place("West of House", 64)


def a_fifo(path: Path) -> None:
    os.mkfifo(path)


def a_socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))  # left bound: the test process holds it until its end


def a_device(path: Path) -> None:
    os.mknod(path, 0o600 | 0o020000, os.makedev(1, 3))  # a char device, as /dev/null


def a_link(path: Path) -> None:
    secret = path.parent.parent / "secret.txt"
    secret.write_text(json.dumps({"turn": 1, "text": "the secret", "after": 0}) + "\n")
    path.symlink_to(secret)


def a_folder(path: Path) -> None:
    path.mkdir()


HOSTILE: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (a_fifo, "a pipe"),
    "socket": (a_socket, "a socket"),
    "device": (a_device, "a device node"),
    "link": (a_link, "a symbolic link"),
    "folder": (a_folder, "a folder"),
}


def journal_with_notes(tmp_path: Path) -> tuple[FileJournal, Path]:
    journal = FileJournal.episode(tmp_path / "episode", tmp_path / "memory")
    journal.begin(ZORK1_START, "opening", 0)
    (tmp_path / "memory").mkdir(exist_ok=True)
    return journal, tmp_path / "memory" / NOTES_FILE


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_node_in_place_of_the_notes_is_refused_at_once_saying_what_it_is(tmp_path, kind):
    journal, notes = journal_with_notes(tmp_path)
    make, what = HOSTILE[kind]
    make(notes)
    refused = within(PROMPTLY, journal.notes)
    assert isinstance(refused, ServerFileError), refused
    assert f"is {what}" in refused.reason and refused.path == str(notes)


def test_a_gigabyte_of_notes_is_read_as_its_last_megabyte_in_bounded_memory(tmp_path):
    journal, notes = journal_with_notes(tmp_path)
    with notes.open("wb") as file:
        file.truncate(1024**3)  # sparse: a GiB of NULs, as a hostile server left it
        file.seek(0, os.SEEK_END)
        for n in range(NOTES_LINES + 50):
            note = {"turn": 0, "text": f"note {n}", "after": 0}
            file.write(json.dumps(note).encode() + b"\n")
    tracemalloc.start()
    try:
        kept = within(PROMPTLY, journal.notes)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [note.text for note in kept][-1] == f"note {NOTES_LINES + 49}"
    assert len(kept) == NOTES_LINES  # the last ones, no more
    assert peak < 4 * NOTES_BYTES, f"peak {peak:,} bytes"


def test_a_note_nested_past_the_parsers_depth_is_skipped_and_the_others_kept(tmp_path):
    journal, notes = journal_with_notes(tmp_path)
    lines = [
        json.dumps({"turn": 0, "text": "before", "after": 0}),
        "[" * 200_000 + "]" * 200_000,
        '{"turn": 0, "text": ' + "[" * 5_000 + "]" * 5_000 + ', "after": 0}',
        json.dumps({"turn": 0, "text": "after", "after": 0}),
    ]
    notes.write_text("\n".join(lines) + "\n")
    assert [note.text for note in within(PROMPTLY, journal.notes)] == ["before", "after"]


@pytest.mark.parametrize("kind", ["fifo", "socket", "link"])
def test_the_episode_plays_on_past_a_hostile_notes_file_and_says_so_once(tmp_path, kind):
    journal, notes = journal_with_notes(tmp_path)
    HOSTILE[kind][0](notes)
    telemetry = FakeTelemetry()
    llm = ScriptedLLM([action_reply(c) for c in ("north", "east", "take egg")])
    orchestrator = Orchestrator(
        game=FakeGameEnv(),
        profile=ZORK1,
        agent=agent_for(llm, telemetry=telemetry),
        telemetry=telemetry,
        episode_id="e",
        max_turns=3,
        journal=journal,
    )
    summary = within(PROMPTLY * 3, orchestrator.run)
    assert summary.turns == 3 and summary.error is None
    skipped = [e for e in telemetry.events if e.type == EventType.MCP_SERVER_FILE_SKIPPED]
    assert len(skipped) == 1 and HOSTILE[kind][1] in skipped[0].message
    assert "the secret" not in json.dumps([e.message for e in telemetry.events])
