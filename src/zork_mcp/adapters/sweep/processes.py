"""The local SweepBackend: episodes in worker processes of this machine (the default).

An episode spends nearly all its time waiting for the LLM, so a worker process plays many
at once, one per thread (each turn still one `asyncio.run`), and they share what is costly
to start: the MCP fork server, and the forkserver their game processes are forked from.
Worker processes default to the cores; episodes at once are the sweep's `--parallel`.

A worker ends with its parent: its pipe to the parent reaching EOF (the parent exited or
was killed, even by SIGKILL) stops its episodes as Ctrl-C would and ends it, and every
process it started ends with it (each watches a pipe of its own).

The app gives the back-end its EpisodePlayer, a module-level function that pickles by name
into each spawned worker: the adapter plays episodes without importing the app.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import multiprocessing.context
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Any

from zork_mcp.adapters.posix.held_ctrl_c import ctrl_c_held, ignore_ctrl_c
from zork_mcp.adapters.posix.main_left_out import main_left_out
from zork_mcp.domain.sweep.controls import (
    EpisodeControls,
    EpisodeInterrupted,
    RunningEpisodes,
    begun,
)
from zork_mcp.domain.sweep.episodes import EpisodeTask
from zork_mcp.domain.sweep.records import EpisodeRecord
from zork_mcp.ports.sweep_backend import EpisodePlayer

ORPHAN_GRACE_SECONDS = 3.0  # an orphaned worker's episodes get this long to close


class WorkerLostError(RuntimeError):
    """The worker process playing the episode died (killed, or out of memory)."""


class ProcessSweepBackend:
    """`workers` spawned processes, each playing up to `per_worker` episodes at once; an
    episode goes to the least busy one. A worker that died is replaced at the next submit,
    and the episodes it was playing are failed (the sweep records them and goes on). An
    episode's future runs once its worker has begun it: until then the worker is starting."""

    def __init__(self, workers: int, per_worker: int = 1, *, player: EpisodePlayer) -> None:
        self._slots = [_Worker(per_worker, player) for _ in range(workers)]
        self._per_worker = per_worker
        self._player = player

    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        index = min(range(len(self._slots)), key=lambda i: self._slots[i].load)
        if not self._slots[index].alive:
            self._slots[index].close()
            self._slots[index] = _Worker(self._per_worker, self._player)
        return self._slots[index].submit(task)

    def interrupt(self) -> None:
        """Each worker stops its episodes as Ctrl-C would. One still starting (importing,
        seconds) has begun none, so it has nothing to close: it is ended at once rather than
        waited for, and its episodes are interrupted."""
        for worker in self._slots:
            if worker.started and not worker.begun:
                worker.end()
            else:
                worker.send(("interrupt",))

    def close(self) -> None:
        for worker in self._slots:
            worker.send(("close",))
        for worker in self._slots:
            worker.close()

    @property
    def pids(self) -> list[int]:
        return [worker.pid for worker in self._slots if worker.started]


class _Worker:
    """The parent's side of one worker process: started at its first episode."""

    _ids = itertools.count()

    def __init__(self, per_worker: int, player: EpisodePlayer) -> None:
        self._per_worker = per_worker
        self._player = player
        self._process: Any = None
        self._conn: Connection | None = None
        self._futures: dict[int, Future[EpisodeRecord]] = {}
        self._lock = threading.Lock()
        self._reader: threading.Thread | None = None
        self._dead = False
        self._begun = False  # it has begun an episode: it is up
        self._ended = False  # ended by `end`, as the sweep stopped

    @property
    def started(self) -> bool:
        return self._process is not None

    @property
    def pid(self) -> int:
        return self._process.pid if self._process is not None else 0

    @property
    def load(self) -> int:
        return len(self._futures)

    @property
    def alive(self) -> bool:
        return not self._dead

    @property
    def begun(self) -> bool:
        return self._begun

    def end(self) -> None:
        """End it now: its episodes, not begun, are interrupted."""
        self._ended = True
        self._process.terminate()

    def submit(self, task: EpisodeTask) -> Future[EpisodeRecord]:
        if self._process is None:
            self._start()
        future: Future[EpisodeRecord] = Future()
        key = next(self._ids)
        with self._lock:
            self._futures[key] = future
        if not self.send(("play", key, task)):
            self._fail_all()
        return future

    def send(self, message: tuple[Any, ...]) -> bool:
        if self._conn is None or self._dead:
            return False
        try:
            with self._lock:
                self._conn.send(message)
        except (OSError, ValueError):
            self._dead = True
            return False
        return True

    def close(self) -> None:
        if self._process is not None:
            self._process.join()
        if self._reader is not None:
            self._reader.join()
        if self._conn is not None:
            self._conn.close()

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        # a player from an importable module needs nothing of the parent's main script
        worker = context.Process if self._player.__module__ == "__main__" else _WorkerProcess
        process = worker(
            target=worker_main,
            args=(theirs, self._per_worker, self._player),
            name="zork-mcp eval worker",
        )
        # the terminal's Ctrl-C is the parent's, from the worker's birth; the parent's own
        # comes once it knows its worker (an interrupt then ends it)
        with ctrl_c_held():
            try:
                process.start()
            except BaseException:
                ours.close()
                raise
            finally:
                theirs.close()
            self._process, self._conn = process, ours
            self._reader = threading.Thread(
                target=self._read, name="eval-worker-reader", daemon=True
            )
            self._reader.start()

    def _read(self) -> None:
        assert self._conn is not None
        while True:
            try:
                kind, key, payload = self._conn.recv()
            except (EOFError, OSError):
                break
            self._begun = True
            with self._lock:  # None: failed already (a send to it broke), nothing to say
                future = self._futures.get(key) if kind == "began" else self._futures.pop(key, None)
            if future is None:
                continue
            if kind == "began":
                begun(future)
            elif kind == "done":
                future.set_result(payload)
            else:
                future.set_exception(payload)
        self._dead = True
        self._fail_all()

    def _fail_all(self) -> None:
        with self._lock:
            futures, self._futures = list(self._futures.values()), {}
        code = self._process.exitcode if self._process is not None else None
        for future in (future for future in futures if not future.done()):
            if self._ended:
                future.set_exception(EpisodeInterrupted("its worker was ended as it started"))
            else:
                future.set_exception(WorkerLostError(f"the worker process died (exit {code})"))


class _WorkerProcess(multiprocessing.context.SpawnProcess):
    """A spawn start, less the child's import of this process's `__main__` (a benchmark's,
    or a user's own driver script, run again in every worker)."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        with main_left_out():
            return multiprocessing.context.SpawnProcess._Popen(process_obj)


def worker_main(conn: Connection, per_worker: int, player: EpisodePlayer) -> None:
    """A worker's life: play what the parent sends, until it says close or is gone."""
    ignore_ctrl_c()  # the parent says when to stop an episode
    worker = _Episodes(conn, per_worker, player)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the parent died: stop, and do not outlive it
            worker.interrupt()
            worker.wait(ORPHAN_GRACE_SECONDS)
            os._exit(1)
        if message[0] == "play":
            worker.play(message[1], message[2])
        elif message[0] == "interrupt":
            worker.interrupt()
        elif message[0] == "close":
            worker.wait(None)
            return


class _Episodes:
    """The episodes a worker is playing, one per thread; each answer goes to the parent."""

    def __init__(self, conn: Connection, per_worker: int, player: EpisodePlayer) -> None:
        self._conn = conn
        self._player = player
        self._threads = ThreadPoolExecutor(per_worker, thread_name_prefix="episode")
        self._running = RunningEpisodes()
        self._send_lock = threading.Lock()

    def play(self, key: int, task: EpisodeTask) -> None:
        self._threads.submit(self._play, key, task, self._running.add(key))

    def interrupt(self) -> None:
        self._running.interrupt()

    def wait(self, timeout: float | None) -> None:
        self._running.wait(timeout)

    def _play(self, key: int, task: EpisodeTask, controls: EpisodeControls) -> None:
        self._send(("began", key, None))
        try:
            record = controls.settle(self._player(task, controls))
            answer: tuple[str, int, object] = ("done", key, record)
        except EpisodeInterrupted as e:
            answer = ("failed", key, e)
        except BaseException as e:  # the player records failures; this is a bug's trace
            answer = ("failed", key, RuntimeError(f"{type(e).__name__}: {e}"))
        self._send(answer)
        self._running.done(key)

    def _send(self, message: tuple[str, int, object]) -> None:
        with self._send_lock, contextlib.suppress(OSError, ValueError):  # parent gone: we end
            self._conn.send(message)
