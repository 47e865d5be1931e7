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
        GAME_ENV_VAR,
        Story,
        find_game_file,
        find_story,
        load_lexicon,
        packaged_story,
        story_at,
    )

_HOMES = {
    "GAME_ENV_VAR": "story",
    "Story": "story",
    "find_story": "story",
    "packaged_story": "story",
    "story_at": "story",
    "GameSnapshot": "game_env",
    "JerichoGameEnv": "game_env",
    "find_game_file": "story",
    "load_lexicon": "story",
}

__all__ = [
    "GAME_ENV_VAR",
    "GameSnapshot",
    "JerichoGameEnv",
    "Story",
    "find_game_file",
    "find_story",
    "load_lexicon",
    "packaged_story",
    "story_at",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
