"""The SweepBackend contract: what the sweep's scheduler relies on, whatever plays episodes.

Subclasses provide `make(parallel, player)`; players are in tests/support/sweep_players.py
(module-level, as a worker process or a Ray actor needs them).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterator

import pytest

from tests.support import sweep_players
from tests.support.sweep_players import tasks
from zork_mcp.domain.sweep.controls import EpisodeInterrupted
from zork_mcp.ports.sweep_backend import EpisodePlayer, SweepBackend

RESULT_SECONDS = 120


class SweepBackendContract(ABC):
    @abstractmethod
    def make(self, parallel: int, player: EpisodePlayer) -> SweepBackend: ...

    @pytest.fixture
    def backend(self) -> Iterator:
        made: list[SweepBackend] = []

        def build(parallel: int, player: EpisodePlayer) -> SweepBackend:
            made.append(self.make(parallel, player))
            return made[-1]

        yield build
        for backend in made:
            backend.close()

    def test_each_episode_is_played_by_the_given_player_into_its_record(self, backend, tmp_path):
        sweep = backend(2, sweep_players.scored_by_seed)
        futures = [sweep.submit(task) for task in tasks(3, tmp_path)]
        records = [future.result(timeout=RESULT_SECONDS) for future in futures]
        assert [(r.seed, r.score, r.status) for r in records] == [
            (20, 20, "done"),
            (21, 21, "done"),
            (22, 22, "done"),
        ]

    def test_a_player_that_fails_fails_its_episode_with_the_reason(self, backend, tmp_path):
        sweep = backend(1, sweep_players.failing)
        future = sweep.submit(tasks(1, tmp_path)[0])
        with pytest.raises(Exception, match="no game for seed 20"):
            future.result(timeout=RESULT_SECONDS)

    @pytest.mark.parametrize("player", ["until_interrupted", "fails_once_stopped"])
    def test_an_interrupt_ends_the_running_episodes_as_interrupted(self, backend, tmp_path, player):
        """Also one that ends on an error once stopped: a failure its stop caused is not a
        result to store, and the episode is played again next time."""
        futures = self.started_then_interrupted(
            backend(2, getattr(sweep_players, player)), tmp_path
        )
        for future in futures:
            with pytest.raises(EpisodeInterrupted):
                future.result(timeout=RESULT_SECONDS)

    def test_an_episode_that_finishes_as_it_is_stopped_keeps_its_record(self, backend, tmp_path):
        futures = self.started_then_interrupted(
            backend(2, sweep_players.finishes_once_stopped), tmp_path
        )
        assert [future.result(timeout=RESULT_SECONDS).score for future in futures] == [20, 21]

    def test_an_episode_runs_once_its_worker_has_begun_it(self, backend, tmp_path):
        """Pending while its worker starts (a sweep's live line says it is starting, not
        running), running once it is played."""
        sweep = backend(2, sweep_players.until_interrupted)
        [task] = tasks(1, tmp_path)
        future = sweep.submit(task)
        deadline = time.monotonic() + RESULT_SECONDS
        while not (sweep_players.started(task).exists() and future.running()):
            assert time.monotonic() < deadline and not future.done(), "it never ran"
            time.sleep(0.02)
        sweep.interrupt()
        with pytest.raises(EpisodeInterrupted):
            future.result(timeout=RESULT_SECONDS)

    @staticmethod
    def started_then_interrupted(sweep: SweepBackend, tmp_path) -> list:
        played = tasks(2, tmp_path)
        futures = [sweep.submit(task) for task in played]
        deadline = time.monotonic() + RESULT_SECONDS
        while not all(sweep_players.started(t).exists() for t in played):
            assert time.monotonic() < deadline, "the episodes never started"
            time.sleep(0.02)
        sweep.interrupt()
        return futures
