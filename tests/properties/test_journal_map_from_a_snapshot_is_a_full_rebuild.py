"""The memory server's map, drawn on the survey its snapshot kept (issue 56), is the map drawn
afresh from every turn: over random journals of turns (answers long and short, so snapshots
are kept at random points), re-recorded turns, `begin`s that resume earlier or later, lines
a killed writer left unfinished, and snapshots garbled, zeroed or cut short (a snapshot
changed into another well-formed one is trusted: it is a cache, not a defence)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from zork_mcp.adapters.storage.journal_file import JOURNAL_FILE, FileJournal
from zork_mcp.domain.episode.episode_map import EpisodeMap
from zork_mcp.domain.episode.episode_state import Place, PlayedTurn
from zork_mcp.domain.game.trilogy import ZORK1

PLACES = (
    Place("West of House", 64), Place("Forest", 87), Place("Forest", 32), Place("Attic", 0),
    Place("", 0), Place("Kitchen", 27),
)  # fmt: skip
COMMANDS = ("north", "n", "go south", "e", "climb tree", "take lamp", "g", "again", "enter")
ANSWERS = ("You can't go that way.", "Taken.", "The kitchen window is closed.", "Forest")
PAD = 24_000  # the longest padding of an answer: a snapshot is kept past 32 KB, every few turns

places = st.sampled_from(PLACES)
records = st.tuples(
    st.just("record"),
    st.sampled_from([1, 1, 1, 1, 2, 0, -1, -4]),  # after the last turn; 0 and less: again
    st.sampled_from(COMMANDS),
    st.sampled_from(ANSWERS),
    st.sampled_from([PAD, 0, PAD // 4]),
    places,
    st.sampled_from([False, False, False, True]),  # died
)
begins = st.tuples(st.just("begin"), st.integers(-2, 6), places)  # back this many turns
reads = st.tuples(st.sampled_from(["map", "played"]))
harms = st.tuples(st.sampled_from(["torn line", "garbled header", "zeroed lines", "cut"]))
steps = st.lists(
    st.one_of(records, records, records, begins, reads, reads, harms), min_size=8, max_size=60
)


@given(steps=steps)
def test_the_map_drawn_on_a_kept_survey_is_the_map_drawn_afresh(steps):
    """After any sequence of journal writes, reads (which keep snapshots) and harm to the
    snapshot, the memory server's map equals `EpisodeMap.of` over the turns a reader without
    a snapshot reads, and what it reads equals that reader's."""
    with tempfile.TemporaryDirectory() as directory:
        journal_path = Path(directory) / "episode" / JOURNAL_FILE
        agent = FileJournal(journal_path, None)
        served = FileJournal.served(journal_path, Path(directory) / "memory")
        last = 0
        agent.begin(PLACES[0], "opening", 0)
        for step in steps:
            last = _taken(step, agent, served, last)
        _agree(served, agent, "played")
        _agree(served, agent, "map")


def _taken(step: tuple, agent: FileJournal, served: FileJournal, last: int) -> int:
    """`step` done; the number of the journal's last turn after it (or a little more, after
    a `begin` between two numbers: any number will do for the next turn's)."""
    kind = step[0]
    if kind == "record":
        _, after, command, answer, pad, place, died = step
        number = max(last + after, 1)
        agent.record(PlayedTurn(number, command, answer + " " * pad, place, died=died))
        return number
    if kind == "begin":
        _, back, place = step
        agent.begin(place, "opening", max(last - back, 0))
        return min(last, max(last - back, 0))
    if kind in ("map", "played"):
        _agree(served, agent, kind)
    else:
        _harmed(kind, agent.journal_path, served.snapshot_path)
    return last


def _agree(served: FileJournal, agent: FileJournal, what: str) -> None:
    expected = agent.played()  # no snapshot: every line parsed, every turn drawn
    if what == "played":
        assert served.played() == expected
    else:
        assert served.episode_map() == EpisodeMap.of(expected.start, expected.turns, ZORK1)


def _harmed(harm: str, journal: Path, snapshot: Path) -> None:
    if harm == "torn line":  # a writer killed in its write
        with open(journal, "ab") as file:
            file.write(b'{"turn": 999, "command": "nor')
    elif snapshot.exists():  # a header garbled, the lines after it zeroed, or cut short
        data = snapshot.read_bytes()
        kept = len(data) * 3 // 4  # the header is a few KB, the lines 32 KB and more
        if harm == "garbled header":
            data = b"\x00garbled" + data[8:]
        elif harm == "zeroed lines":
            data = data[:kept] + bytes(len(data) - kept)
        else:
            data = data[: len(data) // 2]
        snapshot.write_bytes(data)
