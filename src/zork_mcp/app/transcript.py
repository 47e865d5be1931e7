"""One turn of an episode as a person reads it: each tool call with a short result, the
command, the game's answer (a long one folded), score changes, deaths and reincarnations.
Every piece of text the game, the model or a server wrote is made inert first."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from zork_mcp.app.orchestrator import TurnReport
from zork_mcp.domain.episode.episode_state import EpisodeState
from zork_mcp.domain.episode.turn_facts import ToolUse
from zork_mcp.domain.loop.loop_records import ToolCallRecord
from zork_mcp.domain.text.inert import inert

ANSWER_LINES = 12  # of the game's answer; the rest is counted, not shown
RESULT_CHARS = 100  # of a tool's result
ARGUMENT_CHARS = 60  # of a tool call's arguments
UNREADABLE_CHARS = 120  # of why a reply could not be read (it quotes the reply)
_SPACES = re.compile(r"[ \t\n]+")  # what stays of whitespace once the text is inert


class Tone(Enum):
    """What a line says, for a display that styles lines (a plain one ignores it)."""

    COMMAND = "command"
    GAME = "game"
    TOOL = "tool"
    TOOL_ERROR = "tool_error"
    GAIN = "gain"
    LOSS = "loss"
    DEATH = "death"
    NOTICE = "notice"


@dataclass(frozen=True)
class Line:
    text: str  # inert: no character in it acts on a terminal
    tone: Tone


class Transcript:
    """The lines of each turn, in order; it remembers the score and the deaths so far."""

    def __init__(self) -> None:
        self._score: int | None = None
        self._mcp_disabled = False
        self._unpriced: set[str] = set()  # why calls were unpriced, each said once
        self.deaths = 0

    def begin(self, state: EpisodeState) -> list[Line]:
        """The game's opening, or where a resumed episode goes on from."""
        self._score = state.summary.score
        if not state.turns:
            return answer_lines(state.opening)
        mark = Line(f"— resumed after turn {state.turn}, score {self._score} —", Tone.NOTICE)
        return [mark, *answer_lines(state.turns[-1].answer)]

    def turn(self, report: TurnReport) -> list[Line]:
        calls = report.calls
        complete = len(calls) == report.facts.tool_calls
        lines = tool_lines(calls) if complete else tool_use_lines(report.facts.tools)
        if report.unreadable is not None:
            said = one_line(report.unreadable, UNREADABLE_CHARS)
            lines.append(Line(f"the model's reply could not be read ({said}):", Tone.NOTICE))
        lines.append(Line(f"> {inert(report.action)}", Tone.COMMAND))
        lines += answer_lines(report.observation.text)
        lines += self._score_lines(report)
        lines += self._fate_lines(report)
        lines += self._cost_lines(report)
        return lines

    def _cost_lines(self, report: TurnReport) -> list[Line]:
        """Why the turn's calls have no cost, the first time it is why (its status line
        then says `unpriced`)."""
        why = report.usage.unpriced
        if not why or why in self._unpriced:
            return []
        self._unpriced.add(why)
        return [Line(f"cost unpriced: {one_line(why, RESULT_CHARS + 40)}", Tone.NOTICE)]

    def _score_lines(self, report: TurnReport) -> list[Line]:
        # The first turn starts from 0; a resumed episode's first turn from an unknown score.
        before = self._score if self._score is not None else (0 if report.turn == 1 else None)
        score = self._score = report.facts.score
        if before is None or score == before:
            return []
        if score > before:
            return [Line(f"+{score - before} points ({score})", Tone.GAIN)]
        return [Line(f"−{before - score} points ({score})", Tone.LOSS)]

    def _fate_lines(self, report: TurnReport) -> list[Line]:
        lines = []
        if report.facts.died:
            self.deaths += 1
            after = (
                "the game is over"
                if report.observation.game_over
                else f"reincarnated in {inert(report.observation.room or '?')}"
            )
            lines.append(Line(f"died (death {self.deaths}): {after}", Tone.DEATH))
        elif report.observation.game_over:
            lines.append(Line("the game is over", Tone.NOTICE))
        if report.mcp_disabled and not self._mcp_disabled:
            lines.append(Line("MCP tools disabled for the rest of the episode", Tone.NOTICE))
        self._mcp_disabled = report.mcp_disabled
        return lines


def answer_lines(text: str, limit: int = ANSWER_LINES) -> list[Line]:
    """The game's answer, its first `limit` lines and a count of the rest."""
    lines = inert(text).strip("\n").split("\n")
    shown = [Line(line.rstrip(), Tone.GAME) for line in lines[:limit]]
    if len(lines) > limit:
        shown.append(Line(f"… ({len(lines) - limit} more lines)", Tone.GAME))
    return shown


def tool_lines(calls: Sequence[ToolCallRecord]) -> list[Line]:
    """One line a call: the tool, its arguments and its result (or its error), each cut."""
    lines = []
    for call in calls:
        arguments = json.dumps(call.arguments or {}, ensure_ascii=False, default=str)
        name = one_line(call.tool_name, RESULT_CHARS)
        head = f"tool {name} {one_line(arguments, ARGUMENT_CHARS)}"
        said = one_line(call.result.preview(RESULT_CHARS), RESULT_CHARS + 40)
        if call.result.is_error:
            lines.append(Line(f"{head} failed: {said}", Tone.TOOL_ERROR))
        else:
            lines.append(Line(f"{head} → {said}", Tone.TOOL))
    return lines


def tool_use_lines(uses: Sequence[ToolUse]) -> list[Line]:
    """One line a tool, when only how often it was called (and failed) is known."""
    lines = []
    for use in uses:
        failed = f", {use.errors} failed" if use.errors else ""
        tone = Tone.TOOL_ERROR if use.errors else Tone.TOOL
        lines.append(Line(f"tool {one_line(use.tool, RESULT_CHARS)} ×{use.calls}{failed}", tone))
    return lines


def one_line(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, inert, its whitespace runs made single spaces."""
    cut = text if len(text) <= limit else text[: limit - 1] + "…"
    return _SPACES.sub(" ", inert(cut)).strip()
