"""An episode's running totals and why it ended (its checkpoint is episode_state's):
plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from zork_mcp.domain.llm.messages import Usage


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
    UNREADABLE_REPLIES = "unreadable_replies"  # the model's replies could not be read, in a row
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
    unreadable_replies: int = 0  # turns whose reply could not be read (the fallback played)
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
