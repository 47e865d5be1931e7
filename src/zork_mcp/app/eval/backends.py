"""Where episodes run: a local pool of worker processes (default) or a Ray cluster."""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

from zork_mcp.app.eval.episode import EpisodeTask, play_episode
from zork_mcp.evaluation.records import EpisodeRecord


class Backend(Protocol):
    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]: ...

    def interrupt(self) -> None:
        """Ask every running episode to stop (it ends as on Ctrl-C: resources closed)."""

    def close(self) -> None: ...


_worker = {"running": False, "interrupted": False}


def _worker_init() -> None:
    signal.signal(signal.SIGINT, _on_sigint)


def _on_sigint(signum: int, frame: object) -> None:
    """An idle worker ignores Ctrl-C; a playing one stops its episode once, cleanly."""
    if _worker["running"] and not _worker["interrupted"]:
        _worker["interrupted"] = True
        raise KeyboardInterrupt


def _play_in_worker(task: EpisodeTask) -> EpisodeRecord:
    _worker.update(running=True, interrupted=False)
    try:
        return play_episode(task)
    finally:
        _worker["running"] = False


class LocalBackend:
    """Spawned worker processes, reused from episode to episode."""

    def __init__(self, workers: int) -> None:
        self._workers = workers
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self._workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_init,
        )

    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        """A worker that died (its episodes are recorded as failed) is replaced by a new pool."""
        try:
            return self._pool.submit(_play_in_worker, task)
        except BrokenProcessPool:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = self._new_pool()
            return self._pool.submit(_play_in_worker, task)

    def interrupt(self) -> None:
        for child in multiprocessing.active_children():
            if child.pid is not None:
                os.kill(child.pid, signal.SIGINT)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
