"""The GameEnv port over Jericho, whose C emulator runs in a game process of its own."""

from zork_mcp.adapters.game.jericho.game_env import GameSnapshot, JerichoGameEnv
from zork_mcp.adapters.game.jericho.story import (
    DEFAULT_GAME,
    GAME_ENV_VAR,
    find_game_file,
    load_lexicon,
)

__all__ = [
    "DEFAULT_GAME",
    "GAME_ENV_VAR",
    "GameSnapshot",
    "JerichoGameEnv",
    "find_game_file",
    "load_lexicon",
]
