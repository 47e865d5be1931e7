"""The SweepBackend port: where a sweep's episodes are played (local worker processes, a
Ray cluster), and the EpisodePlayer the app gives a back-end to play each one with."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Protocol

from zork_mcp.domain.sweep.controls import EpisodeControls
from zork_mcp.domain.sweep.episodes import EpisodeTask
from zork_mcp.domain.sweep.records import EpisodeRecord


class SweepBackend(Protocol):
    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        """Play the episode; the future is pending while its worker starts and runs once the
        worker has begun it (`controls.begun`); it fails with EpisodeInterrupted if the
        episode was stopped."""
        ...

    def interrupt(self) -> None:
        """Ask every running episode to stop (it ends as on Ctrl-C: resources closed), and
        one whose worker is still starting not to begin."""

    def close(self) -> None: ...


class EpisodePlayer(Protocol):
    """Plays one episode to its record (a failure is a record); raises EpisodeInterrupted
    when its controls stop it. A back-end sends it to its workers, so it is a module-level
    function: it pickles by name into a spawned process or a Ray actor."""

    def __call__(self, task: EpisodeTask, controls: EpisodeControls, /) -> EpisodeRecord: ...
