"""The memory server's tools, defined once: the map of the agent's own episode, routes on it,
its past turns, and its notes. Each reads the episode's journal, which the server is given
(`--journal`: zork-mcp fills `${ZORK_MCP_JOURNAL}` per episode) and may only read, and
keeps the notes in its own folder (`--folder`, by default `$ZORK_MCP_SERVER_DIR`, which
zork-mcp gives each server per episode). This module holds only definitions, so the fork
server preloads it; a server run's one piece of state, what it serves, lives in `Served`.
A server given no journal answers each tool with an error saying how to give one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Resolve
from mcp.server.mcpserver.tools import Tool
from pydantic import Field

from zork_mcp.builders.storage import NOTE_CHARS, FileJournal, journal_file
from zork_mcp.domain.episode.episode_state import PlayedTurn
from zork_mcp.domain.servers.server_places import JOURNAL, SERVER_DIR

QUERY_CHARS = 200
ROOM_CHARS = 200
TURNS_FOUND = 10
ANSWER_CHARS = 500
RESULT_CHARS = 20_000

NO_JOURNAL = (
    "this memory server was given no episode journal. Under zork-mcp, give it the one of "
    f'each episode in mcp_config.json: "args": ["-m", "zork_mcp.servers.memory", '
    f'"--journal", "${{{JOURNAL}}}"]. Run by hand, pass --journal logs/<episode-id>/'
    "journal.jsonl and --folder for its notes."
)
NO_FOLDER = (
    f"this memory server has no folder for its notes: zork-mcp sets ${SERVER_DIR} for "
    "each server; run by hand, pass --folder."
)


@dataclass(frozen=True)
class Served:
    """What one server run serves: an episode's journal (None: it was given none) and the
    folder of its own where it keeps the notes (None: it has none)."""

    journal: Path | None = None
    folder: Path | None = None

    def episode(self) -> FileJournal:
        if self.journal is None:
            raise ToolError(NO_JOURNAL)
        if self.folder is None:
            raise ToolError(NO_FOLDER)
        return journal_file(self.journal, self.folder)


async def served_episode(ctx: Context) -> FileJournal:
    """The journal this run serves, with its notes."""
    served: Served = ctx.request_context.lifespan_context
    return served.episode()


Episode = Annotated[FileJournal, Resolve(served_episode)]
RoomName = Annotated[
    str,
    Field(
        max_length=ROOM_CHARS,
        description="A room as get_map labels it (e.g. 'Kitchen', 'Forest (2)'), or 'here' "
        "for the room you are in",
    ),
]


async def get_map(episode: Episode) -> str:
    return _bounded(episode.episode_map().render())


async def find_path(episode: Episode, from_room: RoomName, to_room: RoomName) -> str:
    return _bounded(episode.episode_map().find_path(from_room, to_room).text())


async def add_note(
    episode: Episode,
    note: Annotated[str, Field(description=f"What to remember, at most {NOTE_CHARS:,} characters")],
) -> str:
    text = " ".join(note.split())
    if not text:
        raise ToolError(
            "note is empty: write what you want to remember, e.g. 'lamp is in the attic'"
        )
    if len(text) > NOTE_CHARS:
        raise ToolError(
            f"note has {len(text):,} characters; keep it to {NOTE_CHARS:,} and add another"
        )
    turns = episode.played().turns
    kept = episode.add_note(text, turns[-1].turn + 1 if turns else 1)
    return f"Noted in turn {kept.turn}; read_notes gives every note of this episode."


async def read_notes(episode: Episode) -> str:
    notes = episode.notes()
    if not notes:
        return "No notes yet: add_note(note) keeps one for the rest of this episode."
    lines, size = [], 0
    for note in reversed(notes):
        line = f"- (turn {note.turn}) {note.text}"
        size += len(line) + 1
        if size > RESULT_CHARS:
            break
        lines.append(line)
    left_out = len(notes) - len(lines)
    head = f"Your notes, oldest first ({len(notes)}"
    head += f"; the {left_out} oldest left out to keep this short):" if left_out else "):"
    return "\n".join([head, *reversed(lines)])


async def search_history(
    episode: Episode,
    query: Annotated[
        str,
        Field(max_length=QUERY_CHARS, description="Words to find, e.g. 'troll' or 'brass lantern'"),
    ],
) -> str:
    words = query.casefold().split()
    if not words:
        raise ToolError("query is empty: give a word to find, e.g. 'troll' or 'lamp'")
    turns = episode.played().turns
    found = [turn for turn in reversed(turns) if _matches(turn, words)]
    shown = " ".join(words)
    if not found:
        return f"No past turn matches {shown!r} (searched {len(turns)} turns)."
    head = f"{len(found)} of {len(turns)} past turns match {shown!r}"
    head += f"; the {TURNS_FOUND} newest" if len(found) > TURNS_FOUND else ""
    return "\n\n".join([head + ", newest first:", *map(_found, found[:TURNS_FOUND])])


def _matches(turn: PlayedTurn, words: list[str]) -> bool:
    text = f"{turn.command}\n{turn.answer}".casefold()
    return all(word in text for word in words)


def _found(turn: PlayedTurn) -> str:
    answer = turn.answer.strip()
    if len(answer) > ANSWER_CHARS:
        answer = f"{answer[:ANSWER_CHARS]} [cut: {len(answer) - ANSWER_CHARS:,} more characters]"
    return f"Turn {turn.turn} ({turn.place.room or 'unknown room'}) > {turn.command}\n{answer}"


def _bounded(text: str) -> str:
    if len(text) <= RESULT_CHARS:
        return text
    return f"{text[:RESULT_CHARS]}\n[cut: {len(text) - RESULT_CHARS:,} more characters]"


LABELS = (
    "Rooms are told apart as the game itself knows them, so rooms that share a name are "
    "labelled by first visit: 'Forest (1)', 'Forest (2)'."
)
GET_MAP = f"""The map of this episode so far, drawn from your own moves: every room you entered,
in the order first entered, each exit you took with the room it led to, the exits the game
refused marked 'blocked', and the room you are in marked [here]. {LABELS} Returns text."""
FIND_PATH = f"""The shortest known route between two rooms of this episode's map, as the
commands to type, e.g. 'From Kitchen to Cellar: west, down (2 moves)'. It uses only exits
you have taken and that were not blocked. Name rooms as get_map labels them; 'here' is the
room you are in. {LABELS} Says so when a room is unknown (naming the closest ones), when a
name fits several rooms, or when no known exits lead there."""
ADD_NOTE = f"""Keep a note for the rest of this episode: a clue, a puzzle to come back to,
where you left an item. Each turn's tools start afresh; notes do not. Returns the turn the
note was kept in. At most {NOTE_CHARS:,} characters; whitespace is squeezed to single spaces."""
READ_NOTES = f"""Every note you kept with add_note in this episode, oldest first, each with
the turn it was written in (the oldest are left out beyond {RESULT_CHARS:,} characters)."""
SEARCH_HISTORY = f"""Search this episode's past turns. A turn matches when every word of
the query appears in its command or in the game's answer, ignoring case, also inside longer
words ('lamp' matches 'lamps'). Returns how many turns match and the {TURNS_FOUND} newest,
newest first, each with its turn number, room, command and the game's answer (cut at
{ANSWER_CHARS} characters, the cut noted)."""

TOOLS = tuple(
    Tool.from_function(
        function, name=function.__name__, title=title, description=" ".join(text.split())
    )
    for function, title, text in (
        (get_map, "Episode map", GET_MAP),
        (find_path, "Find a route", FIND_PATH),
        (add_note, "Keep a note", ADD_NOTE),
        (read_notes, "Read notes", READ_NOTES),
        (search_history, "Search past turns", SEARCH_HISTORY),
    )
)
