"""The in-memory SweepBackend: a sweep's episodes on threads of this process.

The fake of the SweepBackend port, for tests and for runs that need no isolation: each
episode is played by the app's EpisodePlayer in a thread, with the same controls as a
worker process's (an interrupt reaches the running episodes and the queued ones), and
its outcome settles its future as the worker processes' do.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from itertools import count

from zork_mcp.domain.sweep.controls import EpisodeControls, EpisodeInterrupted, RunningEpisodes
from zork_mcp.domain.sweep.episodes import EpisodeTask
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.ports.sweep_backend import EpisodePlayer


class ThreadSweepBackend:
    """Up to `parallel` episodes at once, each on a thread of its own."""

    def __init__(self, parallel: int, *, player: EpisodePlayer) -> None:
        self._threads = ThreadPoolExecutor(parallel, thread_name_prefix="episode")
        self._running = RunningEpisodes()
        self._player = player
        self._keys = count()

    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        key = next(self._keys)
        return self._threads.submit(self._play, key, task, self._running.add(key))

    def interrupt(self) -> None:
        self._running.interrupt()

    def close(self) -> None:
        self._threads.shutdown(wait=True)

    def _play(self, key: int, task: EpisodeTask, controls: EpisodeControls) -> EpisodeRecord:
        try:
            return controls.settle(self._player(task, controls))
        except EpisodeInterrupted:
            raise
        except Exception as e:  # the player records failures; this is a bug's trace
            raise RuntimeError(f"{type(e).__name__}: {e}") from e
        finally:
            self._running.done(key)
