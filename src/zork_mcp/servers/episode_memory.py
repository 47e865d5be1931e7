"""The memory server's tools, defined once: the map of the agent's own episode, routes on it,
its past turns, and its notes, each read from the episode's journal in the folder the client
names as an MCP root. This module holds only definitions, so the fork server preloads it; a
server run's one piece of state, the folder it serves, lives in `Served`.

Every tool finds its folder through the SDK's `Resolve(ListRoots)`: in the handshake era the
server asks `roots/list` during the call, in the stateless era the call answers
`input_required` and the client sends it again with its roots. A client that names no root,
or no folder with a journal, gets a tool error saying what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp.server.mcpserver.tools import Tool
from mcp.types import ListRootsResult
from pydantic import Field

from zork_mcp.builders.storage import journal_file
from zork_mcp.domain.episode.episode_map import EpisodeMap
from zork_mcp.domain.episode.episode_state import PlayedTurn
from zork_mcp.domain.servers.roots import folder_of

NOTE_CHARS = 1_000
QUERY_CHARS = 200
ROOM_CHARS = 200
TURNS_FOUND = 10
ANSWER_CHARS = 500
RESULT_CHARS = 20_000
ROOTS_NAMED = 5  # in an error that lists the client's roots

NO_ROOT = (
    "this client named no MCP root: the memory server serves the episode folder its client "
    "names as a root (a file:// URI of the episode's log folder, e.g. logs/<episode-id>) and "
    "reads the episode's journal there. Run it under zork-mcp, which names each episode's "
    "folder, or have your client declare the roots capability and list that folder."
)


@dataclass
class Served:
    """The episode folder one server run serves: the first its client names. Over stdio a
    run serves one client for one turn, so the roots it named are asked for once; over HTTP
    a long-lived run serves one episode, every request is asked, and one naming another
    folder is refused."""

    one_client: bool = True
    folder: Path | None = None
    roots: ListRootsResult | None = None  # the roots that named `folder`

    def bind(self, folder: Path, roots: ListRootsResult) -> Path:
        if self.folder is None:
            self.folder, self.roots = folder, roots
        elif folder != self.folder:
            raise ToolError(
                f"this memory server serves the episode in {self.folder}, and this client "
                f"names {folder}. One memory server serves one episode: start another one "
                "for this episode (over stdio zork-mcp starts one each turn)."
            )
        return folder


async def client_roots(ctx: Context) -> ListRoots | ListRootsResult | None:
    """Ask the client for its roots, if it says it has any (over stdio, once a process)."""
    served: Served = ctx.request_context.lifespan_context
    if served.one_client and served.roots is not None:
        return served.roots
    capabilities = ctx.client_capabilities
    return ListRoots() if capabilities is not None and capabilities.roots is not None else None


async def episode_folder(
    ctx: Context, roots: Annotated[ListRootsResult | None, Resolve(client_roots)]
) -> Path:
    """The first of the client's `file://` roots that holds an episode's journal."""
    if roots is None or not roots.roots:
        raise ToolError(NO_ROOT)
    for root in roots.roots:
        folder = folder_of(str(root.uri))
        if folder is not None and journal_file(Path(folder)).exists():
            served: Served = ctx.request_context.lifespan_context
            return served.bind(Path(folder), roots)
    named = ", ".join(str(root.uri) for root in roots.roots[:ROOTS_NAMED])
    more = len(roots.roots) - ROOTS_NAMED
    raise ToolError(
        f"none of this client's roots is an episode folder with a journal (journal.jsonl): "
        f"{named}{f' and {more} more' if more > 0 else ''}. Name the episode's log folder "
        "(logs/<episode-id>, where zork-mcp writes the journal as it plays) as a file:// root."
    )


Episode = Annotated[Path, Resolve(episode_folder)]
RoomName = Annotated[
    str,
    Field(
        max_length=ROOM_CHARS,
        description="A room as get_map labels it (e.g. 'Kitchen', 'Forest (2)'), or 'here' "
        "for the room you are in",
    ),
]


async def get_map(episode: Episode) -> str:
    played = journal_file(episode).played()
    return _bounded(EpisodeMap.of(played.start, played.turns).render())


async def find_path(episode: Episode, from_room: RoomName, to_room: RoomName) -> str:
    played = journal_file(episode).played()
    route = EpisodeMap.of(played.start, played.turns).find_path(from_room, to_room)
    return _bounded(route.text())


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
    journal = journal_file(episode)
    turns = journal.played().turns
    kept = journal.add_note(text, turns[-1].turn + 1 if turns else 1)
    return f"Noted in turn {kept.turn}; read_notes gives every note of this episode."


async def read_notes(episode: Episode) -> str:
    notes = journal_file(episode).notes()
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
    turns = journal_file(episode).played().turns
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
