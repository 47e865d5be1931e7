"""Every SweepBackend: the in-memory fake, the local worker processes, Ray."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest

from tests.contract.sweep_backend_contract import SweepBackendContract
from tests.support import sweep_players
from tests.support.sweep_players import tasks
from zork_mcp.adapters.sweep.processes import ProcessSweepBackend
from zork_mcp.adapters.sweep.threads import ThreadSweepBackend


class TestThreadSweepBackend(SweepBackendContract):
    def make(self, parallel, player):
        return ThreadSweepBackend(parallel, player=player)


@pytest.mark.slow  # spawns a worker process
class TestLocalBackend(SweepBackendContract):
    def make(self, parallel, player):
        return ProcessSweepBackend(1, per_worker=parallel, player=player)


@pytest.mark.slow  # starts a local Ray instance
@pytest.mark.xdist_group("ray")  # one at a time (tests/e2e/test_eval_ray.py)
class TestRayBackend(SweepBackendContract):
    """On one local instance that the class starts (~4 s each time saved): each backend then
    finds Ray running, as on a cluster of one CPU, and leaves it running. A backend that
    starts its own instance is played by tests/e2e/test_eval_ray.py."""

    @pytest.fixture(scope="class", autouse=True)
    @classmethod
    def ray_instance(cls):
        ray = pytest.importorskip("ray")
        from zork_mcp.adapters.sweep.ray_cluster import LOCAL_SYSTEM_CONFIG

        ray.init(
            num_cpus=1,
            include_dashboard=False,
            log_to_driver=False,
            _system_config=LOCAL_SYSTEM_CONFIG,
        )
        yield
        ray.shutdown()

    def make(self, parallel, player):
        from zork_mcp.adapters.sweep.ray_cluster import RaySweepBackend

        return RaySweepBackend(parallel, None, 1, player=player)

    def test_its_actors_leave_no_folder_behind(self, tmp_path):
        before = _actor_folders()
        sweep = self.make(2, sweep_players.scored_by_seed)
        try:
            [future.result(timeout=120) for future in map(sweep.submit, tasks(2, tmp_path))]
        finally:
            sweep.close()
        # On a running instance an actor's process ends, and its exit handlers run, after
        # close() has returned (tests/e2e/test_eval_ray.py: a local one waits for them).
        deadline = time.monotonic() + 20
        while not _actor_folders() <= before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _actor_folders() <= before


def _actor_folders() -> set[Path]:
    """The folders Ray actors make for an episode's logs when none is configured."""
    return set(Path(tempfile.gettempdir()).glob("zork_mcp_ray_*"))
