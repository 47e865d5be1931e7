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
    # The Z-machine object of the player's room (0: unknown): Zork I names several rooms
    # "Forest", and only their objects tell them apart.
    location: int = 0
