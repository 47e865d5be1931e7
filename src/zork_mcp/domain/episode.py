"""An episode's running totals, and the checkpoint it can be resumed from: plain data."""

from __future__ import annotations

from dataclasses import dataclass, field

from zork_mcp.domain.messages import Usage


@dataclass
class EpisodeSummary:
    episode_id: str
    turns: int = 0
    score: int = 0
    moves: int = 0
    room: str | None = None
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    end_reason: str = "running"
    seconds: float = 0.0
    error: str | None = None  # what ended the episode, when an error did


@dataclass(frozen=True)
class Checkpoint:
    """The game's saved state, the agent's objective and recent actions, the totals so far."""

    turn: int
    game_state: object
    objective: str | None
    recent: tuple[tuple[str, str], ...]
    summary: EpisodeSummary
