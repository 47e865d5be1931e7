"""Issue 67: Ctrl-C at any moment of a sweep stores no episode as failed and loses none.

For any moment Ctrl-C asks the sweep to stop (while it reads what is stored, hands out
episodes, waits on them, stores one, stops the others or waits for its workers to end), any
width, and episodes that end as stopped ones do (interrupted; failed because their stop
broke what the turn used; lost with their worker; finished anyway): no episode is stored
as failed, every stored episode is whole, as its player made it, a sweep not stopped has
stored them all, and a re-run plays exactly the episodes not stored, after which each is
stored once. The app's Ctrl-C sets the scheduler's stop (`ctrl_c_stops`); here a timer does.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from hypothesis import event, given, settings
from hypothesis import strategies as st

from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.adapters.sweep.threads import ThreadSweepBackend
from zork_mcp.builders.providers import parse_model
from zork_mcp.domain.episode.turn_facts import TurnFacts
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.controls import EpisodeControls, EpisodeInterrupted
from zork_mcp.domain.sweep.episodes import Cell, EpisodeSpec, EpisodeTask, ModelSpec
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.domain.sweep.scheduler import Scheduler

ENDINGS = ("interrupted", "broken", "lost", "finished")
CELLS = (
    Cell(ModelSpec(parse_model("local:m")), "on"),
    Cell(ModelSpec(parse_model("local:m")), "off"),
)
TASKS = [
    EpisodeTask(
        EpisodeSpec("ctrl-c", cell, i, 12 + i, 3),
        Path("logs"),
        Path("pyproject.toml"),
        ProjectSettings(),
    )
    for i in range(5)
    for cell in CELLS
]


def whole(task: EpisodeTask) -> EpisodeRecord:
    turns = tuple(TurnFacts(turn, task.spec.seed, turn, 0) for turn in (1, 2, 3))
    return task.spec.record(status="done", score=task.spec.seed, turns=3,
                            end_reason="turn_limit", trajectory=turns)  # fmt: skip


class _Agent:
    def __init__(self) -> None:
        self.stopped = threading.Event()

    def interrupt(self) -> None:
        self.stopped.set()


def player(endings: list[str], played: list[str]):
    """Plays 0-6 ms; once stopped, ends as `endings` says for its index."""

    def play(task: EpisodeTask, controls: EpisodeControls) -> EpisodeRecord:
        played.append(task.spec.key)
        agent = _Agent()
        controls.attach(agent)
        if agent.stopped.wait(task.spec.seed % 7 / 1000):
            ending = endings[task.spec.index % len(endings)]
            if ending == "interrupted":
                raise EpisodeInterrupted(task.spec.key)
            if ending == "broken":
                return task.spec.record(status="failed", error="LLMError: closed mid-turn")
            if ending == "lost":
                raise RuntimeError("the worker process died (exit -2)")
        return whole(task)

    return play


@settings(max_examples=40, deadline=None)
@given(
    delay=st.floats(0.0, 0.06),
    endings=st.lists(st.sampled_from(ENDINGS), min_size=1, max_size=4),
    parallel=st.integers(1, 4),
)
def test_ctrl_c_at_any_moment_of_a_sweep_stores_no_failure_and_loses_no_episode(
    delay, endings, parallel
):
    """Ctrl-C at any moment of a sweep (before workers are up, while they import, mid-episode,
    while results are being written) stores no episode as failed: an interrupted episode is
    stored as interrupted, or not at all, so a re-run or --resume plays it (issue 67)."""
    with tempfile.TemporaryDirectory() as folder:
        store, played = SqliteResultStore(Path(folder) / "r.sqlite"), []
        stop = threading.Event()
        ctrl_c = threading.Timer(delay, stop.set)
        ctrl_c.start()
        backend = ThreadSweepBackend(parallel, player=player(endings, played))
        state = Scheduler(backend, store, parallel, {}, stop=stop).run(TASKS)
        ctrl_c.join()
        stored = {record.key: record for record in store.episodes("ctrl-c")}
        event(f"stored {len(stored) * 10 // len(TASKS) * 10}% before the re-run")
        assert [record.error for record in stored.values() if record.failed] == []
        assert state.stopped or len(stored) == len(TASKS)
        for task in TASKS:
            if task.spec.key in stored:
                assert _facts(stored[task.spec.key]) == _facts(whole(task))
        played.clear()
        again = ThreadSweepBackend(parallel, player=player(endings, played))
        Scheduler(again, store, parallel, {}).run(TASKS)
        assert sorted(played) == sorted(t.spec.key for t in TASKS if t.spec.key not in stored)
        final = store.episodes("ctrl-c")
        assert len(final) == len(TASKS) and not any(record.failed for record in final)


def _facts(record: EpisodeRecord) -> tuple:
    return record.status, record.score, record.turns, record.end_reason, record.trajectory
