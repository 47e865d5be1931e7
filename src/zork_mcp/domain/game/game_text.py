"""What the game's own words say a command came to: a death, or a command it did not read
(the words are its profile's, profile.py). Questions back ("What do you want to take?") and
the world's refusals ("You can't go that way.") are read commands: the game parsed them.
"""

from __future__ import annotations

from zork_mcp.domain.game.profile import ZORK1


def died(text: str) -> bool:
    return ZORK1.death.search(text) is not None


def unread(text: str) -> bool:
    """The game did not read the command: a line of its answer is one of its refusals."""
    return any(line.lstrip().startswith(ZORK1.unread) for line in text.splitlines())
