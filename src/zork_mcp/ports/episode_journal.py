"""The EpisodeJournal port: an episode's turns and notes where its memory server can read
them (the episode's folder, named to servers as an MCP root)."""

from typing import Protocol

from zork_mcp.domain.episode.episode_state import Note, Place, PlayedTurn


class EpisodeJournal(Protocol):
    def begin(self, start: Place, opening: str, turn: int) -> None:
        """The episode starts, or resumes after `turn` turns: turns recorded after that
        one (a run killed before its checkpoint) are forgotten."""
        ...

    def record(self, turn: PlayedTurn) -> None:
        """One more turn, kept at once: a killed run keeps every turn it recorded."""
        ...

    def notes(self) -> tuple[Note, ...]:
        """The agent's notes so far (its memory server writes them), oldest first."""
        ...
