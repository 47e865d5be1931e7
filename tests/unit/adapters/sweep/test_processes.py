"""The local back-end plays each episode with the player the app gives it, in a spawned
worker process that imports no part of the app (the adapter reaches the app only so)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from zork_mcp.adapters.sweep.processes import ProcessSweepBackend
from zork_mcp.domain.sweep.controls import EpisodeControls
from zork_mcp.domain.sweep.episodes import Cell, EpisodeSpec, EpisodeTask, ModelSpec
from zork_mcp.domain.sweep.records import EpisodeRecord

pytestmark = pytest.mark.slow  # spawns a worker process


def scored_by_seed(task: EpisodeTask, controls: EpisodeControls) -> EpisodeRecord:
    """A player a worker can import by name: the score is the seed, the error what app
    modules the worker has loaded."""
    loaded = sorted(name for name in sys.modules if name.startswith("zork_mcp.app"))
    shared = "shared" if controls.shared else "alone"
    return task.spec.record(status="done", score=task.spec.seed, error=f"{shared} {loaded}")


def test_a_worker_plays_with_the_given_player_and_imports_no_app():
    cell = Cell(ModelSpec("local", "m"), "off")
    tasks = [
        EpisodeTask(EpisodeSpec("s", cell, i, 20 + i, 5), Path("logs"), Path("x")) for i in range(3)
    ]
    backend = ProcessSweepBackend(1, per_worker=2, player=scored_by_seed)
    try:
        records = [future.result(timeout=60) for future in map(backend.submit, tasks)]
    finally:
        backend.close()
    assert [r.score for r in records] == [20, 21, 22]
    assert {r.error for r in records} == {"shared []"}
