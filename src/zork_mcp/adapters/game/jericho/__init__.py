"""The GameEnv port over Jericho, whose C emulator runs in a game process of its own.

Its names load when first asked for: the game process imports `emulator_main` from this
package and needs none of the parent's side (`game_env` and the domain it reads).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zork_mcp.adapters.game.jericho.game_env import GameSnapshot, JerichoGameEnv
    from zork_mcp.adapters.game.jericho.story import (
        DEFAULT_GAME,
        GAME_ENV_VAR,
        find_game_file,
        load_lexicon,
    )

_HOMES = {
    "DEFAULT_GAME": "story",
    "GAME_ENV_VAR": "story",
    "GameSnapshot": "game_env",
    "JerichoGameEnv": "game_env",
    "find_game_file": "story",
    "load_lexicon": "story",
}

__all__ = [
    "DEFAULT_GAME",
    "GAME_ENV_VAR",
    "GameSnapshot",
    "JerichoGameEnv",
    "find_game_file",
    "load_lexicon",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
