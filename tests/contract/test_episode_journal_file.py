"""The file journal under the contract, and what only a file can do: a second reader (the
memory server's process) sees each line at once, a line a killed writer left unfinished is
skipped, never misread, and the snapshot readers keep changes nothing they read (its map is
drawn on only while the journal goes on, and a snapshot that is not a reader's is ignored).
The agent writes only its episode's folder and the memory server only its own; neither
follows a link, and a notes line that is not a note is skipped."""

import json
import marshal
import os
from pathlib import Path

import pytest

from tests.contract.episode_journal_contract import (
    FOREST_2,
    WEST,
    EpisodeJournalContract,
    turn,
)
from zork_mcp.adapters.storage.journal_file import JOURNAL_FILE, NOTE_CHARS, FileJournal
from zork_mcp.adapters.storage.own_files import ForeignFileError
from zork_mcp.domain.episode.episode_map import EpisodeMap, MapSurvey
from zork_mcp.domain.episode.episode_state import Note, Place, PlayedTurn
from zork_mcp.domain.game.trilogy import ZORK1, ZORK3

ELSEWHERE = Place("Elsewhere", 999)


def long_journal(journal: FileJournal) -> None:
    """40 turns of 2 KB, read: enough for a reader to keep a snapshot."""
    journal.begin(WEST, "opening", 0)
    for number in range(1, 41):
        journal.record(turn(number, answer_of=2_000))
    journal.played()
    assert journal.snapshot_path.exists()


def rewritten(path: Path, at: int, value: object) -> None:
    """The snapshot with its header's field `at` (0 version, 4 survey) set to `value`."""
    data = path.read_bytes()
    header = marshal.loads(data)
    lines = data[len(data) - header[5] :]
    path.write_bytes(marshal.dumps((*header[:at], value, *header[at + 1 :])) + lines)


def full_map(journal: FileJournal) -> EpisodeMap:
    played = FileJournal(journal.journal_path, None).played()  # no snapshot: every line
    return EpisodeMap.of(played.start, played.turns, ZORK1)


class TestFileJournal(EpisodeJournalContract):
    @pytest.fixture
    def journal(self, tmp_path):
        """One object with the agent's methods and its memory server's, as the contract
        asks: the journal in the episode's folder, the notes and cache in the server's."""
        return FileJournal(tmp_path / "episode" / JOURNAL_FILE, tmp_path / "memory", cache=True)

    def test_another_reader_sees_each_turn_and_note_at_once(self, tmp_path):
        agent = FileJournal.episode(tmp_path / "episode", tmp_path / "memory")
        server = FileJournal.served(tmp_path / "episode" / JOURNAL_FILE, tmp_path / "memory")
        agent.begin(WEST, "opening", 0)
        agent.record(turn(1))
        assert server.played().turns == (turn(1),)
        server.add_note("seen", 2)
        assert agent.notes() == (Note(2, "seen"),)

    def test_the_agent_writes_only_its_folder_and_its_server_only_its_own(self, tmp_path):
        episode, memory = tmp_path / "episode", tmp_path / "memory"
        agent = FileJournal.episode(episode, memory)
        agent.begin(WEST, "opening", 0)
        for number in range(1, 41):
            agent.record(turn(number, answer_of=2_000))
        agent.played(), agent.notes()
        assert not memory.exists(), "the agent keeps no cache in its server's folder"
        server = FileJournal.served(episode / JOURNAL_FILE, memory)
        server.played()
        server.add_note("kept", 41)
        assert sorted(os.listdir(episode)) == [JOURNAL_FILE]
        assert sorted(os.listdir(memory)) == ["journal.snapshot", "notes.jsonl"]

    def test_a_notes_line_that_is_not_a_note_is_skipped_and_a_long_one_cut(self, tmp_path):
        episode, memory = tmp_path / "episode", tmp_path / "memory"
        agent = FileJournal.episode(episode, memory)
        agent.begin(WEST, "opening", 0)
        memory.mkdir()
        lines = [
            {"turn": "1", "text": "x", "after": 0},
            {"turn": 1, "text": ["x"], "after": 0},
            {"turn": 1, "after": 0},
            [1, 2],
            {"turn": 2, "text": "y" * 5_000, "after": 999},
        ]
        (memory / "notes.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
        assert agent.notes() == (Note(2, "y" * NOTE_CHARS),)

    def test_a_journal_swapped_for_a_link_is_neither_written_through_nor_read(self, tmp_path):
        outside = tmp_path / "outside.jsonl"
        outside.write_text('{"begin": 0, "room": "Nowhere", "location": 1, "opening": "x"}\n')
        episode = tmp_path / "episode"
        agent = FileJournal.episode(episode, tmp_path / "memory")
        agent.begin(WEST, "opening", 0)
        (episode / JOURNAL_FILE).unlink()
        (episode / JOURNAL_FILE).symlink_to(outside)
        with pytest.raises(ForeignFileError, match="symbolic link"):
            agent.record(turn(1))
        with pytest.raises(ForeignFileError, match="symbolic link"):
            FileJournal.served(episode / JOURNAL_FILE, tmp_path / "memory").played()
        assert outside.read_text().count("\n") == 1

    def test_a_line_a_killed_writer_left_unfinished_is_skipped(self, journal):
        journal.begin(WEST, "opening", 0)
        journal.record(turn(1))
        with open(journal.journal_path, "ab") as file:
            file.write(b'{"turn": 2, "command": "nor')  # killed in the middle of its write
        assert journal.played().turns == (turn(1),)
        journal.begin(WEST, "opening", 1)  # the resumed run's first line stays whole
        journal.record(turn(2))
        assert journal.played().turns == (turn(1), turn(2))
        assert journal.journal_path.read_bytes().count(b"\n") == 5

    def test_readers_keep_a_snapshot_that_never_changes_what_is_read(self, journal):
        journal.begin(WEST, "opening", 0)
        for number in range(1, 41):
            journal.record(turn(number, answer_of=2_000))
        first = journal.played()
        assert journal.snapshot_path.exists(), "40 turns of 2 KB: a reader keeps what it parsed"
        journal.record(turn(41))
        journal.begin(WEST, "opening", 30)
        journal.add_note("after the resume", 31)
        read = journal.played(), journal.notes(), journal.episode_map()
        journal.snapshot_path.unlink()
        assert read == (journal.played(), journal.notes(), journal.episode_map())
        assert read[0].turns == first.turns[:30]

    @pytest.mark.parametrize(
        "snapshot",
        ["another journal's", "garbage", "empty", "older", "no survey", "lines unloadable"],
    )
    def test_a_snapshot_that_is_not_of_this_journal_is_ignored(self, journal, snapshot):
        long_journal(journal)
        if snapshot == "another journal's":  # a fresh episode, in the same folder
            journal.journal_path.unlink()
            journal.begin(WEST, "afresh", 0)
            journal.record(turn(1))
        else:
            if snapshot in ("garbage", "empty"):
                journal.snapshot_path.write_bytes(b"" if snapshot == "empty" else b"\x00bad" * 9)
            elif snapshot == "older":
                rewritten(journal.snapshot_path, 0, 1)
            elif snapshot == "no survey":
                rewritten(journal.snapshot_path, 4, ("Elsewhere", 999, 40, "", ()))
            else:  # the header whole, the lines after it not
                data = journal.snapshot_path.read_bytes()
                journal.snapshot_path.write_bytes(data[:-9] + bytes(9))
            journal.record(turn(41))
        expected = journal.played(), journal.episode_map()
        journal.snapshot_path.unlink(missing_ok=True)
        assert expected == (journal.played(), journal.episode_map())
        assert expected[1] == full_map(journal)

    @pytest.mark.parametrize("back", ["a turn recorded again", "a begin"])
    def test_the_map_goes_on_from_the_kept_survey_until_the_journal_goes_back(self, journal, back):
        """A survey planted in the snapshot shows through while turns only follow it; after
        a `begin` or a turn recorded again, the map is drawn afresh from every turn."""
        long_journal(journal)
        rewritten(journal.snapshot_path, 4, MapSurvey.of(ELSEWHERE, (), ZORK1).exported())
        journal.record(turn(41, FOREST_2))
        rooms = [room.key for room in journal.episode_map().rooms]
        assert rooms == [ELSEWHERE.location, FOREST_2.location]
        if back == "a begin":
            journal.begin(WEST, "opening", 41)
        else:
            journal.record(turn(41, FOREST_2))
        assert journal.episode_map() == full_map(journal)
        assert ELSEWHERE.location not in [room.key for room in journal.episode_map().rooms]

    def test_a_header_longer_than_a_readers_first_read_is_read_whole(self, journal):
        long_journal(journal)
        far = Place("Elsewhere, " + "far " * 20_000, ELSEWHERE.location)  # 80 KB of header
        rewritten(journal.snapshot_path, 4, MapSurvey.of(far, (), ZORK1).exported())
        journal.record(turn(41, FOREST_2))
        rooms = [room.key for room in journal.episode_map().rooms]
        assert rooms == [ELSEWHERE.location, FOREST_2.location]
        assert journal.played() == FileJournal(journal.journal_path, None).played()

    def test_a_snapshot_swapped_for_a_link_is_neither_read_nor_written_through(self, journal):
        long_journal(journal)
        rewritten(journal.snapshot_path, 4, MapSurvey.of(ELSEWHERE, (), ZORK1).exported())
        outside = journal.snapshot_path.with_name("outside")
        journal.snapshot_path.rename(outside)
        journal.snapshot_path.symlink_to(outside)
        planted = outside.read_bytes()
        for number in range(41, 81):
            journal.record(turn(number, answer_of=2_000))
        assert journal.episode_map() == full_map(journal)
        assert journal.snapshot_path.is_symlink() and outside.read_bytes() == planted


def test_the_journal_names_its_game_and_a_reader_draws_the_map_with_that_games_words(tmp_path):
    """Zork III walks `enter` as an exit of its own, where Zork I's `enter` walks in: the
    memory server, given only the journal, reads the game from its first line."""
    agent = FileJournal.episode(tmp_path / "episode", tmp_path / "memory", ZORK3)
    agent.begin(Place("Flathead Ocean", 1), "opening", 0)
    agent.record(PlayedTurn(1, "enter", "Aqueduct", Place("Aqueduct", 2)))
    served = FileJournal.served(agent.journal_path, tmp_path / "memory")
    assert served.game is ZORK3
    [ocean, _] = served.episode_map().rooms
    assert dict(ocean.exits) == {"enter": 2}
    first = json.loads(agent.journal_path.read_text().splitlines()[0])
    assert first["game"] == "zork3"


def test_a_journal_from_before_games_had_names_is_zork_i(tmp_path):
    agent = FileJournal.episode(tmp_path / "episode", tmp_path / "memory")
    agent.begin(WEST, "opening", 0)
    assert FileJournal.served(agent.journal_path, tmp_path / "memory").game is ZORK1
    assert "game" not in json.loads(agent.journal_path.read_text())
