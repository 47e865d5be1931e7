"""An episode's running totals, why it ended, and the checkpoint it can be resumed from:
plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from zork_mcp.domain.llm.messages import Usage

if TYPE_CHECKING:  # episode_state builds on this module's summary
    from zork_mcp.domain.episode.episode_state import EpisodeState


class EndReason(StrEnum):
    """Why an episode ended: the value its episode_end event, its sweep row and its exit code
    are read from (a StrEnum, so files written before, with the plain string, read the same)."""

    RUNNING = "running"  # not ended yet
    GAME_OVER = "game_over"
    TURN_LIMIT = "turn_limit"
    INTERRUPTED = "interrupted"
    EMULATOR_HALTED = "emulator_halted"
    EMULATOR_LOST = "emulator_lost"
    MCP_STARTUP_FAILED = "mcp_startup_failed"
    LLM_ERROR = "llm_error"
    BUDGET = "budget"  # the next LLM call would not fit in the run's budget
    ERROR = "error"

    def as_finished(self) -> EndReason:
        """As a finished episode's: one still running failed before it could end."""
        return EndReason.ERROR if self is EndReason.RUNNING else self


@dataclass
class EpisodeSummary:
    episode_id: str
    turns: int = 0
    score: int = 0
    moves: int = 0
    room: str | None = None
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    end_reason: EndReason = EndReason.RUNNING
    seconds: float = 0.0
    error: str | None = None  # what ended the episode, when an error did

    def __post_init__(self) -> None:
        self.end_reason = EndReason(self.end_reason)  # a reason not in EndReason: ValueError

    def __getstate__(self) -> dict[str, Any]:
        # The end reason is pickled as its string, as before EndReason, so a checkpoint
        # names no enum class and one written before loads the same.
        return {**self.__dict__, "end_reason": str(self.end_reason)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        reason = EndReason(state.get("end_reason", EndReason.RUNNING))
        self.__dict__.update(state, end_reason=reason)


@dataclass(frozen=True)
class Checkpoint:
    """The game's saved state and the episode's, whole: what `--resume` goes on from."""

    game_state: object
    episode: EpisodeState

    @property
    def turn(self) -> int:
        return self.episode.turn

    @property
    def summary(self) -> EpisodeSummary:
        return self.episode.summary

    def finished(self, max_turns: int) -> str | None:
        """Why a `--resume` to `max_turns` would play nothing (None: it plays on): the game
        ended, or the episode has played its turns."""
        ended, turns = self.summary.end_reason, self.turn
        if ended is EndReason.GAME_OVER:
            return f"its game ended after turn {turns} (score {self.summary.score})"
        if turns >= max_turns:
            return (
                f"it has played {turns} turns, and --max-turns is {max_turns}: raise "
                "--max-turns to play on"
            )
        return None

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "episode" not in state:  # written before the episode's state was kept whole
            state = {"game_state": state["game_state"], "episode": _episode_before(state)}
        self.__dict__.update(state)


def _episode_before(saved: dict[str, Any]) -> EpisodeState:
    """An older checkpoint's turn, objective, recent actions and totals as an episode state;
    only its last actions were kept, each with its answer."""
    from zork_mcp.domain.episode.episode_state import EpisodeState, Place, PlayedTurn

    summary: EpisodeSummary = saved["summary"]
    recent = list(saved.get("recent") or ())
    first = saved["turn"] - len(recent) + 1
    place = Place(summary.room or "")
    turns = [
        PlayedTurn(first + index, command, answer, place)
        for index, (command, answer) in enumerate(recent)
    ]
    return EpisodeState(summary, start=place, turns=turns, objective=saved.get("objective"))
