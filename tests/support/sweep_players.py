"""EpisodePlayers for the SweepBackend contract: module-level, so a spawned worker process
or a Ray actor imports them by name, as it does the app's `play_episode`."""

from __future__ import annotations

import threading
from pathlib import Path

from zork_mcp.builders.providers import parse_model
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.controls import EpisodeControls, EpisodeInterrupted
from zork_mcp.domain.sweep.episodes import Cell, EpisodeSpec, EpisodeTask, ModelSpec
from zork_mcp.domain.sweep.records import EpisodeRecord

WAIT_SECONDS = 60.0  # a waiting player gives up after this: a back-end that never interrupts


def tasks(count: int, root: Path, *, seeds: int = 20) -> list[EpisodeTask]:
    cell = Cell(ModelSpec(parse_model("local:m")), "off")
    return [
        EpisodeTask(
            EpisodeSpec("contract", cell, i, seeds + i, 5),
            root,
            root / "pyproject.toml",
            ProjectSettings(),
        )
        for i in range(count)
    ]


def scored_by_seed(task: EpisodeTask, controls: EpisodeControls) -> EpisodeRecord:
    return task.spec.record(status="done", score=task.spec.seed)


def failing(task: EpisodeTask, controls: EpisodeControls) -> EpisodeRecord:
    raise ValueError(f"no game for seed {task.spec.seed}")


class _Agent:
    def __init__(self) -> None:
        self.stopped = threading.Event()

    def interrupt(self) -> None:
        self.stopped.set()


def until_interrupted(task: EpisodeTask, controls: EpisodeControls) -> EpisodeRecord:
    """Says it started (a file beside its config), then plays until it is stopped as Ctrl-C
    would stop it, and ends interrupted."""
    agent = _Agent()
    controls.attach(agent)
    started(task).touch()
    if agent.stopped.wait(WAIT_SECONDS):
        raise EpisodeInterrupted(task.spec.key)
    return task.spec.record(status="done", score=-1)


def fails_once_stopped(task: EpisodeTask, controls: EpisodeControls) -> EpisodeRecord:
    """Says it started, then, once stopped, fails as an episode does whose stop broke what
    its turn was using (its error recorded, not EpisodeInterrupted)."""
    agent = _Agent()
    controls.attach(agent)
    started(task).touch()
    agent.stopped.wait(WAIT_SECONDS)
    return task.spec.record(status="failed", error="LLMError: the connection closed mid-turn")


def finishes_once_stopped(task: EpisodeTask, controls: EpisodeControls) -> EpisodeRecord:
    """Says it started, then, once stopped, finishes anyway (its last turn was done)."""
    agent = _Agent()
    controls.attach(agent)
    started(task).touch()
    agent.stopped.wait(WAIT_SECONDS)
    return task.spec.record(status="done", score=task.spec.seed)


def started(task: EpisodeTask) -> Path:
    """Beside the task's config: a Ray actor plays with a log root of its own."""
    return task.config.parent / f"started-{task.spec.seed}"
