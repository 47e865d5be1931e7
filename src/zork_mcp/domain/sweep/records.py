"""What one finished episode of a sweep yields: one stored row and the facts of its turns;
and where a turn left the player, the one room identity its metrics read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum

from zork_mcp.domain.episode.episode import EndReason
from zork_mcp.domain.episode.history import HistoryMode
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.game.profile import GameProfile
from zork_mcp.domain.game.trilogy import DEFAULT_GAME, profile_named
from zork_mcp.domain.llm.messages import CostParts


class EpisodeStatus(StrEnum):
    """A stored episode's status (a StrEnum: the string a row holds reads back as it)."""

    DONE = "done"  # it came to an end: the game's, the turn limit's or the budget's
    FAILED = "failed"  # an error ended it; `eval --resume` plays it again


@dataclass(frozen=True)
class EpisodeRecord:
    sweep: str
    key: str
    cell: str
    model: str
    mcp: str
    seed: int
    index: int
    status: EpisodeStatus
    score: int = 0
    moves: int = 0
    turns: int = 0
    end_reason: EndReason | str = ""  # a stored row gives its string back ("" if none was given)
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None
    tool_calls: int = 0
    tool_errors: int = 0
    mcp_disabled: bool = False
    rate_limited: int = 0  # 429 answers the LLM provider gave the episode
    llm_retries: int = 0  # LLM calls tried again (after a 429, a 5xx or a timeout)
    seconds: float = 0.0
    log_dir: str = ""
    # From the turns (`play_metrics`); None in a row stored before they were kept.
    best_score: int | None = None
    deaths: int | None = None
    invalid_commands: int | None = None
    rooms_visited: int | None = None
    max_turns: int | None = None  # the turn limit it was played to (None: stored before)
    extended_from: int | None = None  # carried on from a row played to this limit
    history: HistoryMode | None = None  # the cell's (None: the run's own, or stored before)
    setup: str | None = None  # the set-up it was played with, in words (None: not known)
    game: str = ""  # the game's key (zork1, zork2, zork3, or a story file's stem; "": zork1)
    max_score: int | None = None  # the game's most points (None: the known game's, or unknown)
    repeated_commands: int | None = None  # turns that changed nothing (None: stored before)
    # Its cost by part, as the price list splits it (None: unpriced, or stored before), and
    # why it has no cost when it has none.
    cache_write_tokens: int = 0
    cost_input_usd: float | None = None
    cost_cached_input_usd: float | None = None
    cost_cache_write_usd: float | None = None
    cost_output_usd: float | None = None
    unpriced: str | None = None
    # Turns whose reply the agent could not read, so the fallback was played (None: before)
    unreadable_replies: int | None = None
    trajectory: tuple[TurnFacts, ...] = field(default=())

    @property
    def cost_parts(self) -> CostParts | None:
        parts = (
            self.cost_input_usd,
            self.cost_cached_input_usd,
            self.cost_cache_write_usd,
            self.cost_output_usd,
        )
        return None if any(part is None for part in parts) else CostParts(*parts)  # type: ignore[arg-type]

    def __post_init__(self) -> None:  # a stored row's strings read back as their types
        object.__setattr__(self, "status", EpisodeStatus(self.status))
        if self.history is not None:
            object.__setattr__(self, "history", HistoryMode(self.history))

    @property
    def failed(self) -> bool:
        return self.status is EpisodeStatus.FAILED

    @property
    def game_key(self) -> str:
        """The game it was played in; a row from before games had keys played Zork I."""
        return self.game or DEFAULT_GAME

    @property
    def profile(self) -> GameProfile:
        """Its game's profile, read from the row once: the known game's, else a generic one
        with the maximum the row was played with."""
        profile = profile_named(self.game or None)
        if self.max_score is None or profile.max_score == self.max_score:
            return profile
        return replace(profile, max_score=self.max_score)

    @property
    def normalized_score(self) -> float | None:
        """The final score over the game's maximum; None where the maximum is not known."""
        return self.profile.normalized(self.score)

    @property
    def named_cell(self) -> str:
        """The cell's label with its set-up in words, where the episode knows it."""
        return f"{self.cell} ({self.setup})" if self.setup else self.cell


COLUMNS = [name for name in EpisodeRecord.__dataclass_fields__ if name != "trajectory"]


Place = int | str


def place(turn: TurnFacts) -> Place | None:
    """The room a turn left the player in: its Z-machine object (rooms of one name, as the
    maze's, are apart), else its name (a turn stored before locations were), else unknown."""
    return turn.location or turn.room or None


@dataclass(frozen=True)
class PlayMetrics:
    """What an episode's turns add up to (`play_metrics`), as its record's fields."""

    best_score: int
    deaths: int
    invalid_commands: int
    rooms_visited: int
    repeated_commands: int
    unreadable_replies: int

    def fields(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def play_metrics(turns: Sequence[TurnFacts]) -> PlayMetrics:
    """What an episode's turns add up to: its best score (Zork I takes 10 points a death, so
    the last is not the best), its deaths, commands the game did not read, rooms stood in,
    commands repeated from the same place and answered the same (a move that changed nothing),
    replies the agent could not read (the fallback played instead)."""
    return PlayMetrics(
        best_score=max((turn.score for turn in turns), default=0),
        deaths=sum(turn.died for turn in turns),
        invalid_commands=sum(not turn.valid for turn in turns),
        rooms_visited=len({place(turn) for turn in turns} - {None}),
        repeated_commands=sum(turn.repeated for turn in turns),
        unreadable_replies=sum(turn.unreadable for turn in turns),
    )
