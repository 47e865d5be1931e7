"""The MIT-licensed trilogy, Zork I, II and III: each game's profile, its words from its
own ZIL source (historicalsource/zork1, zork2, zork3), each tested against the real game
(tests/e2e/test_turn_facts.py, the map's tests, tests/e2e/test_trilogy.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from zork_mcp.domain.game import zork2_zork3_words as words
from zork_mcp.domain.game.profile import COMPASS, GameProfile, generic_profile

# Zork I's own words (historicalsource/zork1; one only in the story file, Release 119),
# each tested against the real game (tests/e2e/test_turn_facts.py, the map's tests).
_DEATH = re.compile(r"\*\*\*\*\s+You have died\s+\*\*\*\*")  # JIGS-UP, 1actions.zil
_UNREAD = (  # the line a refusal starts with, and where the game prints it
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
# What Zork I answers when an exit refuses (historicalsource/zork1): V-WALK's own words
# (gverbs.zil), each exit's refusal in 1dungeon.zil (a direction's string, or the ELSE of a
# conditional exit) and those of the exit functions of 1actions.zil.
_EXIT_REFUSALS = (
    "You can't go that way.",  # V-WALK, V-CLIMB-UP, TRAP-DOOR-EXIT
    "There are no climbable trees here.",  # V-CLIMB-UP
    "Going up empty-handed is a bad idea.",  # UP-CHIMNEY-FUNCTION
    "You can't get up there with what you're carrying.",
    "Are you out of your mind?",
    "It is too narrow for most insects.",
    "It's a long way...",
    "Just in time you steer away from the rocks.",
    "Storm-tossed trees block your way.",
    "The White Cliffs prevent your landing here.",
    "The channel is too narrow.",
    "The chasm probably leads straight to the infernal regions.",
    "The dam blocks your way.",
    "The door is boarded and you can't remove the boards.",
    "The forest becomes impenetrable to the north.",
    "The mountains are impassable.",
    "The rank undergrowth prevents eastward movement.",
    "The stream emerges from a spot too small for you to enter.",
    "The windows are all boarded.",
    "There is no safe landing spot here.",
    "There is no tree here suitable for climbing.",
    "You can land either to the east or the west.",
    "You cannot climb any higher.",
    "You cannot go upstream due to strong currents.",
    "You cannot reach the rope.",
    "You try to ascend the ramp, but it is impossible, and you slide back down.",
    "You would need a machete to go further west.",
    "You wouldn't fit and would die if you could.",
    "Only Santa Claus climbs down chimneys.",
    "Some invisible force prevents you from passing through the gate.",
    "The cyclops doesn't look like he'll let you past.",
    "The door is nailed shut.",
    "The east wall is solid rock.",
    "The path is too narrow.",
    "The troll fends you off with a menacing gesture.",
    "You cannot fit through this passage with that load.",
    "You cannot go down without fracturing many bones.",
    "You haven't a prayer of getting the coffin down there.",
    "You would drown.",
)
_CLOSED_DOOR = re.compile(
    r"\bThe [\w -]+ is closed\."
)  # V-WALK's door exit: "The grating is closed."


# gsyntax.zil's directions and their synonyms: the compass, and LAND
_ZORK1_DIRECTIONS = MappingProxyType({**COMPASS, "land": "land"})

ZORK1 = GameProfile(
    key="zork1",
    name="Zork I",
    story_file="zork1.z3",
    sha256="37084966477dff679282de42974b2077156b1bd68fad92a65d4ea94d8eb64d79",
    max_score=350,
    directions=_ZORK1_DIRECTIONS,
    # The first 100 turns of Jericho's walkthrough, as prompt_size measures them, within 3%
    # under each history policy: most answers are short ("Taken.", a room's name); a few
    # long ones lift Jericho's raw mean to 252 characters.
    typical_answer_chars=150,
    death=_DEATH,
    unread=_UNREAD,
    exit_refusals=_EXIT_REFUSALS,
    closed_door=_CLOSED_DOOR,
)


def _later_zork(key: str, sha256: str) -> GameProfile:
    """Zork II or III: its words from its own source (zork2_zork3_words.py, `ZORK2_...`)."""
    name = f"{key.upper()}_"

    def word(field: str) -> Any:
        return getattr(words, name + field)

    return GameProfile(
        key=key,
        name=word("NAME"),
        story_file=word("STORY_FILE"),
        sha256=sha256,
        max_score=word("MAX_SCORE"),
        directions=word("DIRECTIONS"),
        # The first 60 turns of its walkthrough, as tests/e2e/test_estimate.py measures them,
        # within 3% under each history policy: its rooms' answers run longer than Zork I's.
        typical_answer_chars=240,
        death=re.compile(word("DEATH")),
        unread=word("UNREAD"),
        exit_refusals=word("EXIT_REFUSALS"),
        closed_door=re.compile(word("CLOSED_DOOR")),
        final_words=getattr(words, name + "FINAL_WORDS", ()),
    )


ZORK2 = _later_zork("zork2", "3ae7d5558943e9721f3e4b273c8a7faec1a03a604e1ae4ee1cde472c21cb24ac")
ZORK3 = _later_zork("zork3", "b637a242865d059890184164ce8dec28554cc80901dcbf26c740b2d1ed0d4eb8")


KNOWN_GAMES: Mapping[str, GameProfile] = MappingProxyType(
    {game.key: game for game in (ZORK1, ZORK2, ZORK3)}
)
DEFAULT_GAME = ZORK1.key


def profile_named(key: str | None) -> GameProfile:
    """The profile a record names by key: a known game's, else a generic one of that name.
    A record from before games had keys (None) is Zork I's: it was the only game."""
    if key is None:
        return ZORK1
    return KNOWN_GAMES.get(key) or generic_profile(key)
