"""What the game shows the agent after each command."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameObservation:
    text: str  # what the game printed, without any status line
    room: str | None = None
    score: int = 0
    moves: int = 0
    game_over: bool = False
    refused: bool = False  # the command was refused before it reached the game
