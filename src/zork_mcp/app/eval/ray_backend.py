"""Episodes as Ray tasks, on an existing cluster (`--address`) or a local Ray instance.

Workers need zork_mcp installed, the game file and the log folder at the same paths (a shared
filesystem), and the provider's key in their own environment: keys are never put into Ray's
runtime environment, which its dashboard shows.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from zork_mcp.app.eval.episode import EpisodeInterrupted, EpisodeTask, play_episode
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.evaluation.records import EpisodeRecord


def _play(task: EpisodeTask) -> EpisodeRecord:
    return play_episode(task)


class RayBackend:
    def __init__(self, parallel: int, address: str | None = None) -> None:
        try:
            import ray
        except ImportError as e:
            raise ConfigurationError(
                "--backend ray needs Ray: `pip install 'zork-mcp[ray]'`, or drop --backend ray "
                "to use the local process pool."
            ) from e
        self._ray = ray
        self._started = not ray.is_initialized()
        if self._started:
            local: dict[str, Any] = {} if address else {"num_cpus": parallel}
            ray.init(address=address, include_dashboard=False, log_to_driver=False, **local)
        self._remote = ray.remote(num_cpus=1, max_retries=0)(_play)
        self._running: dict[Any, Future[EpisodeRecord]] = {}

    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        ref = self._remote.remote(task)
        result: Future[EpisodeRecord] = Future()
        self._running[ref] = result
        ref.future().add_done_callback(lambda done: self._settle(ref, done, result))
        return result

    def _settle(self, ref: Any, done: Future[EpisodeRecord], result: Future[EpisodeRecord]) -> None:
        self._running.pop(ref, None)
        error = done.exception()
        if error is None:
            result.set_result(done.result())
        elif isinstance(error, self._ray.exceptions.TaskCancelledError | EpisodeInterrupted):
            result.set_exception(EpisodeInterrupted(str(error)))
        else:
            result.set_exception(error)

    def interrupt(self) -> None:
        """Ctrl-C in each running task: it ends as interrupted, its servers closed."""
        for ref in list(self._running):
            self._ray.cancel(ref, force=False)

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
