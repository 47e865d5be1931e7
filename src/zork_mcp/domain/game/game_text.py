"""What the game's own words say a command came to: a death, or a command it did not read
(the words are its profile's, profile.py; a game whose words are not known has neither).
Questions back ("What do you want to take?") and the world's refusals ("You can't go that
way.") are read commands: the game parsed them.
"""

from __future__ import annotations

from zork_mcp.domain.game.profile import GameProfile


def died(text: str, game: GameProfile) -> bool:
    return game.death is not None and game.death.search(text) is not None


def unread(text: str, game: GameProfile) -> bool:
    """The game did not read the command: a line of its answer is one of its refusals."""
    starts = game.unread
    return bool(starts) and any(line.lstrip().startswith(starts) for line in text.splitlines())
