"""The file journal under the contract, and what only a file can do: a second reader (the
memory server's process) sees each line at once, a line a killed writer left unfinished is
skipped, never misread, and the snapshot readers keep changes nothing they read."""

import pytest

from tests.contract.episode_journal_contract import WEST, EpisodeJournalContract, turn
from zork_mcp.adapters.storage.journal_file import FileJournal
from zork_mcp.domain.episode.episode_state import Note


class TestFileJournal(EpisodeJournalContract):
    @pytest.fixture
    def journal(self, tmp_path):
        return FileJournal(tmp_path / "episode")

    def test_another_reader_sees_each_turn_and_note_at_once(self, journal):
        reader = FileJournal(journal.directory)
        journal.begin(WEST, "opening", 0)
        journal.record(turn(1))
        assert reader.played().turns == (turn(1),)
        reader.add_note("seen", 2)
        assert journal.notes() == (Note(2, "seen"),)

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
        read = journal.played(), journal.notes()
        journal.snapshot_path.unlink()
        assert read == (journal.played(), journal.notes())
        assert read[0].turns == first.turns[:30]

    @pytest.mark.parametrize("snapshot", ["another journal's", "garbage", "empty"])
    def test_a_snapshot_that_is_not_of_this_journal_is_ignored(self, journal, snapshot):
        journal.begin(WEST, "opening", 0)
        for number in range(1, 41):
            journal.record(turn(number, answer_of=2_000))
        journal.played()
        if snapshot == "another journal's":  # a fresh episode, in the same folder
            journal.journal_path.unlink()
            journal.begin(WEST, "afresh", 0)
            journal.record(turn(1))
        else:
            journal.snapshot_path.write_bytes(b"" if snapshot == "empty" else b"\x00garbage" * 9)
            journal.record(turn(41))
        expected = journal.played()
        journal.snapshot_path.unlink(missing_ok=True)
        assert expected == journal.played()
