"""Sweep progress: on a terminal a live rich panel, the sweep's status and what each running
episode waits for, turn by turn (read from its activity file); one plain line per finished
episode otherwise."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.live import Live
from rich.text import Text

from zork_mcp.app import bootstrap
from zork_mcp.app.screen import screen
from zork_mcp.domain.facts.activity import Activity
from zork_mcp.domain.sweep.episodes import EpisodeTask
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.domain.sweep.scheduler import SweepState


def best_cell(records: list[EpisodeRecord]) -> str:
    """The cell of the best mean score so far, named with its set-up."""
    scores: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    for record in records:
        if not record.failed:
            scores.setdefault(record.cell, []).append(record.score)
            names[record.cell] = record.named_cell
    if not scores:
        return "-"
    cell, values = max(scores.items(), key=lambda item: sum(item[1]) / len(item[1]))
    return f"{names[cell]} (mean {sum(values) / len(values):.1f} over {len(values)})"


def status(state: SweepState, elapsed: float) -> str:
    finished = state.done + state.failed
    eta = elapsed / finished * state.remaining if finished else None
    starting = f" | starting {state.starting}" if state.starting else ""  # workers not up yet
    return (
        f"done {state.done + state.skipped}/{state.total} (skipped {state.skipped}) | "
        f"running {sum(state.running.values()) - state.starting}{starting} | "
        f"failed {state.failed} | "
        f"ETA {'?' if eta is None else f'{eta:.0f}s'} | best {best_cell(state.records)}"
    )


def episode_line(record: EpisodeRecord) -> str:
    outcome = f"error: {record.error}" if record.failed else record.end_reason
    return (
        f"{record.named_cell} seed {record.seed} #{record.index}: score {record.score} in "
        f"{record.moves} moves, {record.turns} turns ({outcome}) -> {record.log_dir}"
    )


def running_line(
    task: EpisodeTask, read: tuple[Activity, float] | None, started: float, now: float
) -> str:
    """A running episode: what its turn waits for and for how long, from its activity file
    (`read`); without one (before its first turn, or played where its logs are not yet
    here, on Ray), how long ago it started."""
    spec = task.spec
    who = f"{spec.cell.label} seed {spec.seed} #{spec.index}"
    if read is None:
        return f"{who}: started {max(now - started, 0):.0f} s ago"
    activity, since = read
    return f"{who}: {activity.text()} {max(now - since, 0):.0f} s"


class SweepProgress:
    """On a terminal, a live panel (`panel`): the sweep's status line, then a line per
    running episode saying what it waits for, turn by turn; else a plain line per finished
    episode."""

    def __init__(
        self,
        console: Console,
        *,
        live: bool,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], float] = time.time,
    ) -> None:
        """`clock`: the sweep's elapsed time; `now`: the time an activity file's is."""
        self._console, self._live, self._clock, self._now = console, live, clock, now
        self._started = clock()
        self._state: SweepState | None = None
        self._lock = threading.Lock()
        self._running: dict[str, tuple[EpisodeTask, float]] = {}  # by key: since when
        self._seen: dict[str, tuple[Activity, float] | None] = {}
        self._read_at = -math.inf

    def started(self, task: EpisodeTask, state: SweepState) -> None:
        with self._lock:
            self._running[task.spec.key] = (task, self._now())
            self._seen.pop(task.spec.key, None)
            self._state = state

    def began(self, task: EpisodeTask, state: SweepState) -> None:
        with self._lock:
            self._state = state  # one fewer starting: its worker is playing it

    def finished(self, record: EpisodeRecord, state: SweepState) -> None:
        with self._lock:
            self._running.pop(record.key, None)
            self._state = state
        if not self._live:
            self._console.print(episode_line(record), markup=False, highlight=False)

    def panel(self) -> Text:
        """What the live panel shows now (rich's refresh thread asks for it)."""
        state = self._state
        head = "starting..." if state is None else status(state, self._clock() - self._started)
        lines = [head, *self._episode_lines()]
        room = max(self._console.height - 1, 2)
        if len(lines) > room:
            lines[room - 1 :] = [f"… and {len(lines) - room + 1} more running"]
        return Text("\n".join(lines))

    def _episode_lines(self) -> list[str]:
        now = self._now()
        if now - self._read_at >= READ_EVERY:
            self._read_at = now
            with self._lock:
                running = dict(self._running)
            self._read(running)
        with self._lock:
            running = dict(self._running)
        return [
            running_line(task, self._seen.get(key), started, now)
            for key, (task, started) in running.items()
        ]

    def _read(self, running: dict[str, tuple[EpisodeTask, float]]) -> None:
        """Each running episode's activity file; one that was there and is gone ended (its
        record is on its way)."""
        for key, (task, since) in running.items():
            read = bootstrap.activity_file(task.log_root / task.spec.episode_id).read()
            if read is not None and read[1] < since - STALE_SECONDS:
                read = None  # an earlier run's, not yet replaced
            with self._lock:
                if read is None and self._seen.get(key) is not None:
                    self._running.pop(key, None)
                self._seen[key] = read


READ_EVERY = 1.0  # seconds between reads of the running episodes' activity files
STALE_SECONDS = 1.0  # a file this much older than its episode's start is an earlier run's


@contextmanager
def sweep_progress(plain: bool) -> Iterator[SweepProgress]:
    console = screen(plain=plain, stderr=True)
    if not console.is_terminal:
        yield SweepProgress(console, live=False)
        return
    progress = SweepProgress(console, live=True)
    with Live(get_renderable=progress.panel, console=console, refresh_per_second=4, transient=True):
        yield progress
