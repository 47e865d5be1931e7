"""The V3 status line Jericho leaves at the top of unsupported games' observations.

`> West of House      Score: 0      Moves: 0   ` holds the room, score and moves as they
were *before* the command; the next observation's status line holds the values after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_STATUS = re.compile(
    r"^>\s*(?P<room>.*?)\s{2,}Score:\s*(?P<score>-?\d+)\s+Moves:\s*(?P<moves>\d+)\s*$",
    re.MULTILINE,
)
# What a game asks once it is over: Infocom's games (the trilogy's V-FINISH), and Inform's
# library (its end-of-game question, with or without "give the FULL score ...").
GAME_OVER_PROMPTS = (
    "(Type RESTART, RESTORE, or QUIT)",
    "Would you like to RESTART, RESTORE a saved game",
)


@dataclass(frozen=True)
class StatusLine:
    room: str
    score: int
    moves: int


def parse_status_line(observation: str) -> StatusLine | None:
    match = _STATUS.search(observation)
    if match is None:
        return None
    return StatusLine(match["room"].strip(), int(match["score"]), int(match["moves"]))


def strip_status_line(observation: str) -> str:
    """The observation without its status line, trimmed: the text the agent reads."""
    return _STATUS.sub("", observation).strip()


def is_game_over(text: str, final_words: tuple[str, ...] = ()) -> bool:
    """The game asks for a restart, or says a game's own `final_words` (its profile's)."""
    return any(prompt in text for prompt in (*GAME_OVER_PROMPTS, *final_words))
