"""Ask the game something without spending a move, for a GameEnv that can save and restore:
save, step, restore. A game that can do it more cheaply implements `peek` itself."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from zork_mcp.domain.game.game import GameObservation

if TYPE_CHECKING:  # a port is a Protocol: the domain names it, never needs it at run time
    from zork_mcp.ports.game_env import GameEnv


def peek_by_restoring(env: GameEnv, command: str) -> GameObservation:
    """What `command` would answer, beside where the game stands (it is left as it was)."""
    snapshot = env.save_state()
    try:
        answer = env.step(command)
    finally:
        now = env.restore_state(snapshot)
    return replace(now, text=answer.text)
