"""What the project knows of the game it plays, in one place: its name, its story file, its
most points, the words its parser walks by, its own words for a death, for a command it did
not read and for an exit that refuses, and what one of its answers weighs. The prompt, the
game's boundary (game_text.py), the map (episode_map.py), the sweep's scores, the estimate
and the default story path all read it here. A second game (Zork II and III are in
../shared/games) is one more profile, its words from its own source."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from types import MappingProxyType


@dataclass(frozen=True)
class GameProfile:
    name: str
    story_file: str  # its file name in ../shared/games
    max_score: int
    # the words its parser takes for a direction, as its dictionary keeps them (6 letters)
    directions: Mapping[str, str]
    # what one remembered turn's game text weighs, for an estimate of an episode's prompts
    # (domain/episode/estimate.py), fitted to benchmarks/prompt_size.py's measure
    typical_answer_chars: int
    death: re.Pattern[str]  # a death, in its answer
    unread: tuple[str, ...]  # what a line of its answer starts with when it read no command
    exit_refusals: tuple[str, ...]  # what it answers when an exit refuses
    closed_door: re.Pattern[str]  # a door exit's refusal

    @property
    def default_path(self) -> PurePosixPath:
        """Where the story file is looked for last, from a project's folder."""
        return PurePosixPath("..", "shared", "games", self.story_file)


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


ZORK1 = GameProfile(
    name="Zork I",
    story_file="zork1.z3",
    max_score=350,
    directions=MappingProxyType({  # gsyntax.zil's directions and their synonyms
        "north": "north", "n": "north", "south": "south", "s": "south",
        "east": "east", "e": "east", "west": "west", "w": "west",
        "northe": "northeast", "ne": "northeast", "northw": "northwest", "nw": "northwest",
        "southe": "southeast", "se": "southeast", "southw": "southwest", "sw": "southwest",
        "up": "up", "u": "up", "down": "down", "d": "down",
        "in": "in", "inside": "in", "into": "in", "out": "out", "land": "land",
    }),
    # The first 100 turns of Jericho's walkthrough, as prompt_size measures them, within 3%
    # under each history policy: most answers are short ("Taken.", a room's name); a few
    # long ones lift Jericho's raw mean to 252 characters.
    typical_answer_chars=150,
    death=_DEATH,
    unread=_UNREAD,
    exit_refusals=_EXIT_REFUSALS,
    closed_door=_CLOSED_DOOR,
)  # fmt: skip
