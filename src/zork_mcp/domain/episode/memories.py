"""The seeds' `relevant_memories` (spec 002, §3 and §4.2): what the episode's state knows that
bears on this turn, the agent's notes and what its map knows of the room it stands in."""

from __future__ import annotations

from zork_mcp.domain.episode.episode_map import EpisodeMap
from zork_mcp.domain.episode.episode_state import EpisodeState
from zork_mcp.domain.game.profile import GameProfile

NOTES_SHOWN = 10  # the latest; the memory server's read_notes gives them all
NOTE_CHARS = 300


def relevant_memories(state: EpisodeState, game: GameProfile) -> str | None:
    """A short block for this turn's message, or None before there is anything to recall."""
    lines = notes_lines(state)
    if state.turns:
        episode_map = EpisodeMap.of(state.start, state.turns, game)
        lines.append("Map: " + episode_map.describe(state.place))
    return "\n".join(["Relevant memories:", *lines]) if lines else None


def notes_lines(state: EpisodeState) -> list[str]:
    shown = state.notes[-NOTES_SHOWN:]
    if not shown:
        return []
    more = len(state.notes) - len(shown)
    header = f"Your notes ({more} older ones: read_notes):" if more else "Your notes:"
    return [header, *(f"- (turn {note.turn}) {note.text[:NOTE_CHARS]}" for note in shown)]
