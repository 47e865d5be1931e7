"""Sweep progress: a live rich panel on a terminal, one plain line per episode otherwise."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.live import Live

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


class SweepProgress:
    def __init__(self, console: Console, live: Live | None, clock: Callable[[], float]) -> None:
        self._console, self._live, self._clock = console, live, clock
        self._started = clock()

    def started(self, task: EpisodeTask, state: SweepState) -> None:
        self._show(state)

    def began(self, task: EpisodeTask, state: SweepState) -> None:
        self._show(state)

    def finished(self, record: EpisodeRecord, state: SweepState) -> None:
        if self._live is None:
            self._console.print(episode_line(record), markup=False, highlight=False)
        self._show(state)

    def _show(self, state: SweepState) -> None:
        text = status(state, self._clock() - self._started)
        if self._live is not None:
            self._live.update(text)


@contextmanager
def sweep_progress(plain: bool) -> Iterator[SweepProgress]:
    console = Console(stderr=True)
    if plain or not console.is_terminal:
        yield SweepProgress(console, None, time.monotonic)
        return
    with Live("starting...", console=console, refresh_per_second=4, transient=True) as live:
        yield SweepProgress(console, live, time.monotonic)
