"""Ask the game something without spending a move: save, step, restore."""

from zork_mcp.domain.game import GameObservation
from zork_mcp.ports.game_env import GameEnv


def peek(env: GameEnv, command: str) -> GameObservation:
    """What `command` would answer now; the game is left exactly as it was."""
    snapshot = env.save_state()
    try:
        return env.step(command)
    finally:
        env.restore_state(snapshot)
