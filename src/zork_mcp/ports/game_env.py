"""The GameEnv port: a text adventure the orchestrator plays one command at a time."""

from typing import Protocol

from zork_mcp.domain.game.game import GameObservation


class GameEnv(Protocol):
    def reset(self) -> GameObservation: ...

    def step(self, action: str) -> GameObservation: ...

    def peek(self, action: str) -> GameObservation:
        """What `action` would answer now, without spending a move: the game is left
        exactly as it was (see `domain.game_peek` for the save-step-restore way)."""
        ...

    def save_state(self) -> bytes:
        """A snapshot of the game as bytes (a checkpoint keeps them) that restore_state
        accepts."""
        ...

    def restore_state(self, state: bytes) -> GameObservation:
        """Back to the moment of `state`; TypeError for bytes that are not its snapshot."""
        ...
