"""The SweepBackend port's builder: where a sweep's episodes are played, chosen once."""

from __future__ import annotations

from dataclasses import dataclass

from zork_mcp.ports.sweep_backend import EpisodePlayer, SweepBackend


@dataclass(frozen=True)
class LocalWorkers:
    """Worker processes on this machine, each playing up to `per_worker` episodes at once."""

    workers: int
    per_worker: int


@dataclass(frozen=True)
class RayActors:
    """Ray actors on the cluster at `address` (else a local Ray instance)."""

    parallel: int
    address: str | None = None
    workers: int | None = None


def sweep_backend(settings: LocalWorkers | RayActors, player: EpisodePlayer) -> SweepBackend:
    """Each back-end is imported only when chosen: only a Ray sweep imports Ray."""
    if isinstance(settings, RayActors):
        from zork_mcp.adapters.sweep.ray_cluster import RaySweepBackend

        return RaySweepBackend(settings.parallel, settings.address, settings.workers, player=player)
    from zork_mcp.adapters.sweep.processes import ProcessSweepBackend

    return ProcessSweepBackend(settings.workers, per_worker=settings.per_worker, player=player)
