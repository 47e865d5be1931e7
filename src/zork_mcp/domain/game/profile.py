"""What the project knows of a game it plays: its name, its story file and that file's hash,
its most points, the words its parser walks by, its own words for a death, for a command it
did not read and for an exit that refuses, and what one of its answers weighs.

`KNOWN_GAMES` holds the MIT-licensed trilogy (Zork I, II and III), each one's words from its
own ZIL source (historicalsource/zork1, zork2, zork3) and tested against the real game. Any
other story file plays with `generic_profile`: its maximum from the user, and no game's words
at all, so no Zork word or number reaches its prompt, map or score. Each reader (the prompt,
the game's text, the map, the sweep's scores, the estimate, the report, the Inspect score and
the text-adventure server) takes the episode's profile: none imports one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class GameProfile:
    key: str  # the name a user chooses it by (`--game zork2`); a generic game's file stem
    name: str  # as the prompt and the report say it
    max_score: int | None  # None: not known (a generic game whose maximum was not given)
    # the words its parser takes for a direction, as its dictionary keeps them (6 letters)
    directions: Mapping[str, str]
    # what one remembered turn's game text weighs, for an estimate of an episode's prompts
    # (domain/episode/estimate.py), fitted to benchmarks/prompt_size.py's measure
    typical_answer_chars: int
    death: re.Pattern[str] | None  # a death, in its answer (None: not known)
    unread: tuple[str, ...]  # what a line of its answer starts with when it read no command
    exit_refusals: tuple[str, ...]  # what it answers when an exit refuses
    closed_door: re.Pattern[str] | None  # a door exit's refusal (None: not known)
    # what it says when it ends the game by itself without its end prompt (Zork III's QUIT
    # after a fourth death, which Jericho's interpreter does not carry out)
    final_words: tuple[str, ...] = ()
    story_file: str = ""  # a known game's file, shipped in the package
    sha256: str = ""  # a known game's file's hash: the file is this game, whatever its name

    @property
    def known(self) -> bool:
        """A game whose words the project knows (one of KNOWN_GAMES)."""
        return bool(self.sha256)

    def normalized(self, score: int) -> float | None:
        """`score` over the game's maximum (TALES's normalised score); None with no maximum."""
        return score / self.max_score if self.max_score else None

    def unknowns(self) -> tuple[str, ...]:
        """What the project cannot tell in this game, in words, for the run to say."""
        missing = [
            (
                "its maximum score (set max_score in [tool.zorkgpt], or --max-score)",
                self.max_score is None,
            ),
            ("when the player dies", self.death is None),
            ("when the game did not read a command", not self.unread),
            ("when an exit refuses (the map marks no exit blocked)", not self.exit_refusals),
        ]
        return tuple(what for what, lacking in missing if lacking)


# The compass and the ways in and out, as Infocom's and Inform's parsers both take them
# (6 letters, as a version 3 dictionary keeps a word).
COMPASS = MappingProxyType({
    "north": "north", "n": "north", "south": "south", "s": "south",
    "east": "east", "e": "east", "west": "west", "w": "west",
    "northe": "northeast", "ne": "northeast", "northw": "northwest", "nw": "northwest",
    "southe": "southeast", "se": "southeast", "southw": "southwest", "sw": "southwest",
    "up": "up", "u": "up", "down": "down", "d": "down",
    "in": "in", "inside": "in", "into": "in", "out": "out",
})  # fmt: skip
# What one answer weighs where the game's own was not measured.
_TYPICAL_ANSWER_CHARS = 150


def generic_profile(key: str, max_score: int | None = None) -> GameProfile:
    """A story file the project knows nothing of: its name is its file's, its maximum the
    user's, and it has no death, unread-command or refused-exit words."""
    return GameProfile(
        key=key,
        name=key,
        max_score=max_score,
        directions=COMPASS,
        typical_answer_chars=_TYPICAL_ANSWER_CHARS,
        death=None,
        unread=(),
        exit_refusals=(),
        closed_door=None,
    )
