"""What Zork I's own words say a command came to: a death, or a command it did not read.

The texts are the game's, from its source (historicalsource/zork1): the parser's refusals
in gparser.zil, the "can't see" of gglobals.zil's NOT-HERE-OBJECT-F, the death of
1actions.zil's JIGS-UP; one is only in the story file (Release 119). Each is tested against
the real game (tests/e2e/test_turn_facts.py). Questions back ("What do you want to take?")
and the world's refusals ("You can't go that way.") are read commands: the game parsed them.
"""

from __future__ import annotations

import re

DEATH = re.compile(r"\*\*\*\*\s+You have died\s+\*\*\*\*")  # JIGS-UP, 1actions.zil
UNREAD = (  # the line a refusal starts with, and where the game prints it
    "I don't know the word",  # UNKNOWN-WORD, gparser.zil
    "You used the word",  # CANT-USE: '... in a way that I don't understand.'
    "There was no verb in that sentence!",
    "That sentence isn't one I recognize.",
    "There seems to be a noun missing in that sentence!",
    "There were too many nouns in that sentence.",
    "You can't use multiple",  # MANY-CHECK: '... direct objects with "take".'
    "I beg your pardon?",  # an empty command
    "You can't see any",  # NOT-HERE-OBJECT-F, gglobals.zil
    "Those things aren't here!",
    "The objects that you mentioned aren't here.",  # this release's, for several objects
)


def died(text: str) -> bool:
    return DEATH.search(text) is not None


def unread(text: str) -> bool:
    """The game did not read the command: a line of its answer is one of its refusals."""
    return any(line.lstrip().startswith(UNREAD) for line in text.splitlines())
