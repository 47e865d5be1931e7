"""An episode as Inspect keeps it: its score in the sample's store (what the scorer reads,
and what a sample stopped by a limit is scored with), and each turn in the transcript."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from inspect_ai.log import Transcript
from inspect_ai.util import StoreModel

from zork_mcp.app.orchestrator import TurnReport
from zork_mcp.domain.episode.episode import EndReason, EpisodeSummary
from zork_mcp.domain.episode.episode_state import EpisodeState
from zork_mcp.domain.loop.loop_records import ToolCallRecord
from zork_mcp.domain.tools.tool_result import jsonable

RESULT_PREVIEW_CHARS = 500  # of a tool's result, in the transcript


class EpisodeProgress(StoreModel):
    """How far the episode got: kept after every turn, so it outlives a limit's stop."""

    score: int = 0
    best: int = 0
    moves: int = 0
    turns: int = 0
    tool_calls: int = 0
    unreadable_replies: int = 0  # replies the agent could not read (the fallback played)
    end_reason: str = EndReason.RUNNING.value
    error: str | None = None


class InspectEpisodeRecord:
    """The orchestrator's progress observer. It is told of each turn on the episode's
    thread and hands what it records to Inspect's loop, where the sample's store and
    transcript live."""

    def __init__(
        self,
        progress: EpisodeProgress,
        transcript: Transcript,
        inspect_loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.progress, self._transcript, self._loop = progress, transcript, inspect_loop

    def begin(self, state: EpisodeState) -> None:
        opening = {"opening": state.opening, "room": state.start.room}
        self._on_inspect_loop(lambda: self._transcript.info(opening, source="zork episode"))

    def turn(self, report: TurnReport, totals: EpisodeSummary) -> None:
        self._on_inspect_loop(lambda: self._record(report, totals))

    def ended(self, summary: EpisodeSummary) -> None:
        self._on_inspect_loop(lambda: self._end(summary))

    def _record(self, report: TurnReport, totals: EpisodeSummary) -> None:
        progress, observation = self.progress, report.observation
        progress.score, progress.moves = observation.score, observation.moves
        progress.best = max(progress.best, observation.score)
        progress.turns, progress.tool_calls = totals.turns, totals.tool_calls
        progress.unreadable_replies = totals.unreadable_replies
        self._transcript.info(turn_info(report), source=f"zork turn {report.turn}")

    def _end(self, summary: EpisodeSummary) -> None:
        self.progress.end_reason = summary.end_reason.as_finished().value
        self.progress.error = summary.error

    def _on_inspect_loop(self, record: Callable[[], None]) -> None:
        """Run `record` on Inspect's loop and wait for it (the episode's thread has no loop
        running between turns, where the orchestrator reports)."""

        async def recorded() -> None:
            record()

        asyncio.run_coroutine_threadsafe(recorded(), self._loop).result()


def turn_info(report: TurnReport) -> dict[str, Any]:
    """One turn as the transcript shows it: the command (and, when the model's reply could not
    be read, why: the command is then the fallback, not the model's), the game's answer, the
    tool calls."""
    observation = report.observation
    unreadable = {"unreadable_reply": report.unreadable} if report.unreadable is not None else {}
    return {
        "command": report.action,
        **unreadable,
        "game": observation.text,
        "room": observation.room,
        "score": observation.score,
        "moves": observation.moves,
        "tool_calls": [tool_call_info(call) for call in report.calls],
    }


def tool_call_info(call: ToolCallRecord) -> dict[str, Any]:
    result = call.result
    return {
        "tool": call.tool_name,
        "arguments": jsonable(call.arguments),
        "outcome": call.outcome.value,
        "result": result.preview(RESULT_PREVIEW_CHARS),
        "error": result.error_message if result.is_error else None,
    }
