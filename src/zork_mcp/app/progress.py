"""The game on screen: each turn's transcript (app/transcript.py) above a live status line
that says, turn by turn, what the run waits for (its MCP servers' start, the model, a tool
call, the game, a retry) and for how long, and the end-of-episode summary. With `--plain`, or
when not a terminal, the same lines plain: no colour, no live region, fit for a log."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from zork_mcp.app.orchestrator import TurnReport
from zork_mcp.app.transcript import Line, Tone, Transcript
from zork_mcp.builders.llm import RetryNotice
from zork_mcp.domain.episode.episode import EpisodeSummary
from zork_mcp.domain.episode.episode_state import EpisodeState
from zork_mcp.domain.episode.episode_text import cost_short, cost_words
from zork_mcp.domain.facts.activity import ActivityWatch
from zork_mcp.domain.facts.mcp_state import McpState
from zork_mcp.domain.text.inert import inert

WAITING = "waiting for the model…"
PREPARING = "starting the episode…"
STYLES = {
    Tone.COMMAND: "bold",
    Tone.GAME: "",
    Tone.TOOL: "dim",
    Tone.TOOL_ERROR: "red",
    Tone.GAIN: "bold green",
    Tone.LOSS: "bold red",
    Tone.DEATH: "bold red",
    Tone.NOTICE: "yellow",
}


class RetryNotices:
    """The LLM's retry notices, passed on to whichever display listens (none in a sweep)."""

    def __init__(self) -> None:
        self._listener: Callable[[RetryNotice], None] | None = None

    def listen(self, listener: Callable[[RetryNotice], None] | None) -> None:
        self._listener = listener

    def tell(self, notice: RetryNotice) -> None:
        if self._listener is not None:
            self._listener(notice)


def status_text(report: TurnReport, totals: EpisodeSummary) -> str:
    observation = report.observation
    return (
        f"turn {report.turn} | {inert(observation.room or '?')} | score {observation.score} | "
        f"moves {observation.moves} | tools {totals.tool_calls} | "
        f"tokens {totals.usage.total_tokens} | {cost_short(totals.usage)} | "
        f"> {inert(report.action)}"
    )


def mcp_line(state: EpisodeState, said: McpState | None = None) -> str:
    """MCP on with the episode's servers, or off (and why, where the run said); with the
    option that changes it."""
    if said is not None and not said.enabled:
        return said.line()
    return McpState.of_servers(tuple(state.connections.states())).line()


def waiting_text(state: EpisodeState | None) -> str:
    """What the first turn waits for now: its MCP servers' first start (turn 1 opens their
    first session; a first `npx` run downloads the server), then the model."""
    if state is None:
        return PREPARING
    starting = state.connections.never_connected
    if not starting:
        return WAITING
    plural = "s" if len(starting) > 1 else ""
    return f"starting MCP server{plural} {inert(', '.join(starting))}…"


def retry_text(notice: RetryNotice) -> str:
    """`waiting for the model… (attempt 2 of 4: HTTP 429 rate limited: …, retrying in 2 s)`"""
    return (
        f"{WAITING} (attempt {notice.attempt} of {notice.attempts}: {inert(notice.reason)}, "
        f"retrying in {round(notice.wait, 1):g} s)"
    )


class PlainProgress:
    """Each turn's transcript and status as plain lines; a retry as a line when it happens."""

    def __init__(self, console: Console, mcp: McpState | None = None) -> None:
        """`mcp`: what the run's start says of MCP (why it is off, if it is)."""
        self.console, self._mcp = console, mcp
        self._transcript = Transcript()

    def begin(self, state: EpisodeState) -> None:
        for line in self._transcript.begin(state):
            self._say(line.text)
        self._say(mcp_line(state, self._mcp))
        waiting = waiting_text(state)
        self._say(waiting if waiting == WAITING else f"{waiting[:-1]}, then {WAITING}")

    def turn(self, report: TurnReport, totals: EpisodeSummary) -> None:
        self._say("")
        for line in self._transcript.turn(report):
            self._say(line.text)
        self._say(status_text(report, totals))

    def retrying(self, notice: RetryNotice) -> None:
        self._say(retry_text(notice))

    def close(self) -> None:
        pass

    def _say(self, text: str) -> None:
        self.console.print(Text(text), soft_wrap=True)


class LiveProgress:
    """Each turn's transcript printed above a live status line; before the first turn, and
    while a retry waits, the live line says what is waited for (`waiting_text`), and since
    when."""

    def __init__(
        self,
        console: Console,
        clock: Callable[[], float] = time.monotonic,
        mcp: McpState | None = None,
        activity: ActivityWatch | None = None,
    ) -> None:
        """`activity`: what each turn waits for (the model, a tool call, the game)."""
        self.console, self._clock, self._mcp = console, clock, mcp
        self._activity = activity
        self._transcript = Transcript()
        self._status: str | None = None
        self._notice: RetryNotice | None = None
        self._noticed_while = ""  # what was waited for when the retry was noticed
        self._state: EpisodeState | None = None
        self._waiting, self._since = PREPARING, clock()
        self._live = Live(
            get_renderable=self.live_text,
            console=console,
            refresh_per_second=4,
            transient=True,
        )
        self._live.start()

    def live_text(self) -> Text:
        """What the live line shows now (rich's refresh thread asks for it)."""
        notice = self._notice  # read once: the main thread may clear it meanwhile
        if notice is not None and self._doing() == self._noticed_while:
            waiting = retry_text(notice)  # until the call it retries is answered
        else:
            waiting = self._waited()
        shown = "\n".join(part for part in (self._status, waiting) if part)
        return Text(shown, style="bold")

    def _waited(self) -> str:
        """The wait and its seconds so far, counted afresh when what is waited for changes."""
        waiting = self._doing()
        if waiting != self._waiting:
            self._waiting, self._since = waiting, self._clock()
        return f"{waiting} {self._clock() - self._since:.0f} s"

    def _doing(self) -> str:
        """What is waited for now: the turn's activity, or before the first turn, its start."""
        now = self._activity.now if self._activity is not None else None
        if now is None or self._state is None:
            return waiting_text(self._state)
        connections = self._state.connections
        starting = connections.never_connected or connections.connectable(connections.states())
        return now.text(starting)

    def begin(self, state: EpisodeState) -> None:
        for line in self._transcript.begin(state):
            self._say(line)
        self._say(Line(mcp_line(state, self._mcp), Tone.NOTICE))
        self._waiting, self._since = waiting_text(state), self._clock()
        self._state = state

    def turn(self, report: TurnReport, totals: EpisodeSummary) -> None:
        self.console.print()
        for line in self._transcript.turn(report):
            self._say(line)
        self._status, self._notice = status_text(report, totals), None
        self._live.refresh()

    def retrying(self, notice: RetryNotice) -> None:
        self._notice, self._noticed_while = notice, self._doing()
        self._say(Line(retry_text(notice), Tone.NOTICE))
        self._live.refresh()

    def close(self) -> None:
        self._live.stop()

    def _say(self, line: Line) -> None:
        self.console.print(Text(line.text, style=STYLES[line.tone]))


def progress(
    plain: bool = False,
    notices: RetryNotices | None = None,
    mcp: McpState | None = None,
    activity: ActivityWatch | None = None,
) -> Iterator[PlainProgress | LiveProgress]:
    """A transcript above a live line on a terminal, else plain lines; stopped when the run
    ends. `notices`: the LLM's retries, shown while they wait; `mcp`: what the run's start
    says of MCP; `activity`: what each turn waits for, on the live line."""
    console = Console()
    if plain or not console.is_terminal:
        display: PlainProgress | LiveProgress = PlainProgress(console, mcp)
    else:
        display = LiveProgress(console, mcp=mcp, activity=activity)
    if notices is not None:
        notices.listen(display.retrying)
    try:
        yield display
    finally:
        if notices is not None:
            notices.listen(None)
        display.close()


def print_summary(console: Console, summary: EpisodeSummary, log_dir: str) -> None:
    table = Table(title=Text(f"Episode {inert(summary.episode_id)}"), show_header=False)
    rows = [
        ("ended", summary.end_reason),
        ("turns", str(summary.turns)),
        ("score", str(summary.score)),
        ("moves", str(summary.moves)),
        ("room", summary.room or "?"),
        ("tool calls", str(summary.tool_calls)),
        *(
            [("unreadable replies", f"{summary.unreadable_replies} (each played as 'look')")]
            if summary.unreadable_replies
            else []
        ),
        ("tokens", f"{summary.usage.prompt_tokens} in / {summary.usage.completion_tokens} out"),
        ("cost", cost_words(summary.usage)),
        ("wall time", f"{summary.seconds:.1f}s"),
        ("logs", log_dir),
    ]
    for name, value in rows:
        table.add_row(name, Text(inert(str(value))))
    console.print(table)
