"""What one finished episode of a sweep yields: one stored row and its score trajectory."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TurnPoint:
    turn: int
    score: int
    moves: int
    tool_calls: int


@dataclass(frozen=True)
class EpisodeRecord:
    sweep: str
    key: str
    cell: str
    model: str
    mcp: str
    seed: int
    index: int
    status: str  # "done" or "failed"
    score: int = 0
    moves: int = 0
    turns: int = 0
    end_reason: str = ""
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
    trajectory: tuple[TurnPoint, ...] = field(default=())

    @property
    def failed(self) -> bool:
        return self.status == "failed"


COLUMNS = [name for name in EpisodeRecord.__dataclass_fields__ if name != "trajectory"]
