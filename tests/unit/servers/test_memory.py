"""The memory server's tools through the SDK's own client, in process (fast), in both eras:
the journal it is given (no roots: the client declares none), where it keeps its notes, and
how its answers stay bounded."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.client.client import Client

from zork_mcp.builders.storage import episode_journal
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.servers.server_places import NOTES_TOOL
from zork_mcp.servers.episode_memory import ANSWER_CHARS, RESULT_CHARS, TOOLS, TURNS_FOUND
from zork_mcp.servers.memory import build_server

WEST = Place("West of House", 64)


@pytest.fixture(params=["legacy", "auto"], ids=["handshake", "stateless"])
def mode(request) -> str:
    return request.param


def episode(folder: Path, turns: int, answer: str = "Time passes.") -> Path:
    journal = episode_journal(folder)
    journal.begin(WEST, "opening", 0)
    for number in range(1, turns + 1):
        journal.record(PlayedTurn(number, f"wait {number}", answer, WEST))
    return folder


async def answers(
    mode: str, folder: Path | None, *calls: tuple[str, dict], notes: Path | None = None
) -> list[str]:
    """Each call's text, from a server given `folder`'s journal and keeping its notes in
    `notes` (by default a folder beside it)."""
    journal = folder / "journal.jsonl" if folder else None
    notes = notes or (folder.parent / f"{folder.name}-memory" if folder else None)
    texts = []
    async with Client(build_server(journal, notes), mode=mode) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            texts.append(result.content[0].text)  # type: ignore[union-attr]
    return texts


async def test_the_journal_it_is_given_is_served_and_its_notes_kept_in_its_own_folder(
    tmp_path, mode
):
    served = episode(tmp_path / "e2", 3)
    notes = tmp_path / "memory"
    found, kept = await answers(
        mode,
        served,
        ("search_history", {"query": "WAIT 3"}),
        ("add_note", {"note": "lamp in the attic"}),
        notes=notes,
    )
    assert found.startswith("1 of 3 past turns match 'wait 3'")
    assert kept.startswith("Noted in turn 4")
    assert sorted(path.name for path in served.iterdir()) == ["journal.jsonl"]
    assert episode_journal(served, notes).notes()[0].text == "lamp in the attic"


async def test_a_server_given_no_journal_says_how_to_give_one(tmp_path, mode):
    (refused,) = await answers(mode, None, ("get_map", {}))
    assert "given no episode journal" in refused and '"--journal", "${ZORK_MCP_JOURNAL}"' in refused


async def test_a_search_shows_the_newest_matches_with_long_answers_cut(tmp_path, mode):
    folder = episode(tmp_path / "e1", 30, "troll " * 200)
    (found,) = await answers(mode, folder, ("search_history", {"query": "troll"}))
    turns = found.split("\n\n")
    assert turns[0] == f"30 of 30 past turns match 'troll'; the {TURNS_FOUND} newest, newest first:"
    assert len(turns) == 1 + TURNS_FOUND and turns[1].startswith(
        "Turn 30 (West of House) > wait 30"
    )
    assert turns[1].endswith(f"[cut: {1199 - ANSWER_CHARS:,} more characters]")


async def test_read_notes_keeps_the_newest_within_its_bound(tmp_path, mode):
    folder = episode(tmp_path / "e1", 1)
    note = "n" * 990
    calls = [("add_note", {"note": f"{number} {note}"}) for number in range(30)]
    *_, notes = await answers(mode, folder, *calls, ("read_notes", {}))
    assert len(notes) <= RESULT_CHARS + 100
    assert notes.startswith("Your notes, oldest first (30; the 11 oldest left out")
    assert notes.endswith(f"- (turn 2) 29 {note}")


async def test_a_room_name_longer_than_any_label_is_refused_by_the_schema(tmp_path, mode):
    folder = episode(tmp_path / "e1", 1)
    arguments = {"from_room": "x" * 201, "to_room": "here"}
    (refused,) = await answers(mode, folder, ("find_path", arguments))
    assert "String should have at most 200 characters" in refused


def test_the_notes_tool_the_agent_looks_for_is_the_one_this_server_offers():
    """The agent reads the notes of the server offering NOTES_TOOL (server_places.notes_keeper)."""
    assert NOTES_TOOL in {tool.name for tool in TOOLS}
