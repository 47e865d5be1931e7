"""What the project knows of the game it plays, in one place: its name, its story file, its
most points, the words its parser walks by, and what one of its answers weighs. The other
Zork I knowledge is its own words (game_text.py: deaths and refusals; episode_map.py: the
refusals of its exits). A second game (Zork II and III are in ../shared/games) is one more
profile here, and its own texts beside these."""

from __future__ import annotations

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

    @property
    def default_path(self) -> PurePosixPath:
        """Where the story file is looked for last, from a project's folder."""
        return PurePosixPath("..", "shared", "games", self.story_file)


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
)  # fmt: skip
