"""The EpisodeJournal contract, with what the memory server reads of it: the turns recorded
come back in order, whole; a `begin` after `turn` turns (a resume) forgets the turns and the
notes of later turns, and keeps what the resumed run writes; notes come back oldest first;
the map is drawn from the turns still remembered."""

from __future__ import annotations

import pytest

from zork_mcp.domain.episode.episode_map import EpisodeMap
from zork_mcp.domain.episode.episode_state import Note, Place, PlayedTurn
from zork_mcp.domain.game.trilogy import ZORK1

WEST = Place("West of House", 180)
FOREST_1, FOREST_2 = Place("Forest", 190), Place("Forest", 191)


def turn(number: int, place: Place = FOREST_1, answer_of: int = 0, **fields) -> PlayedTurn:
    """Turn `number`; `answer_of`: an answer that long."""
    answer = f"answer {number}".ljust(answer_of, ".")
    return PlayedTurn(number, f"command {number}", answer, place, **fields)


class EpisodeJournalContract:
    @pytest.fixture
    def journal(self):
        """A fresh journal with the memory server's methods (played, add_note, exists)."""
        raise NotImplementedError

    def test_nothing_begun_is_an_empty_journal(self, journal):
        assert not journal.exists()
        assert journal.played() == (Place(""), "", ())
        assert journal.notes() == ()

    def test_the_turns_recorded_come_back_in_order_and_whole(self, journal):
        journal.begin(WEST, "ZORK I\nWest of House", 0)
        played = [
            turn(1, FOREST_1),
            turn(2, FOREST_2, score=10, score_change=10),
            PlayedTurn(3, 'open "egg" \\ é', "It's 💎\n\tdone", Place("Cellar", 0), died=True),
        ]
        for one in played:
            journal.record(one)
        assert journal.exists()
        assert journal.played() == (WEST, "ZORK I\nWest of House", tuple(played))

    def test_a_begin_after_k_turns_forgets_the_turns_recorded_after_k(self, journal):
        journal.begin(WEST, "opening", 0)
        for number in range(1, 6):
            journal.record(turn(number))
        journal.begin(WEST, "opening", 3)
        assert [t.turn for t in journal.played().turns] == [1, 2, 3]
        journal.record(turn(4, FOREST_2))
        assert journal.played().turns[-1] == turn(4, FOREST_2)

    def test_a_turn_recorded_again_replaces_the_first_record(self, journal):
        journal.begin(WEST, "opening", 0)
        journal.record(turn(1))
        journal.record(turn(1, FOREST_2))
        assert journal.played().turns == (turn(1, FOREST_2),)

    def test_the_map_is_drawn_from_the_turns_still_remembered(self, journal):
        assert journal.episode_map() == EpisodeMap((), None)
        journal.begin(WEST, "opening", 0)
        for number, place in enumerate([FOREST_1, FOREST_2, WEST, FOREST_2], 1):
            journal.record(turn(number, place))
        journal.begin(WEST, "opening", 2)
        journal.record(turn(2, WEST))
        drawn = journal.episode_map()
        assert [room.key for room in drawn.rooms] == [WEST.location, FOREST_1.location]
        assert drawn == EpisodeMap.of(WEST, [turn(1), turn(2, WEST)], ZORK1)

    def test_notes_come_back_oldest_first(self, journal):
        journal.begin(WEST, "opening", 0)
        troll, lamp = Note(2, "the troll is in the cellar"), Note(20, "lamp: living room")
        assert journal.add_note(troll.text, troll.turn) == troll
        journal.add_note(lamp.text, lamp.turn)
        assert journal.notes() == (troll, lamp)

    def test_a_resume_forgets_the_notes_of_the_forgotten_turns_and_keeps_later_ones(self, journal):
        journal.begin(WEST, "opening", 0)
        for number in range(1, 5):
            journal.record(turn(number))
            journal.add_note(f"in turn {number + 1}", number + 1)
        journal.begin(WEST, "opening", 2)  # killed after turn 4, the checkpoint was turn 2
        journal.add_note("in turn 3, again", 3)
        assert journal.notes() == (Note(2, "in turn 2"), Note(3, "in turn 3, again"))
