"""What a worker (a local worker process or a Ray actor) has over the episodes it plays:
it can stop each as Ctrl-C would, and a stopped episode ends with EpisodeInterrupted; and
what a back-end tells of each: its future runs once its worker has begun it."""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import Future
from typing import Protocol

from zork_mcp.domain.sweep.records import EpisodeRecord


class EpisodeInterrupted(Exception):
    """The episode was stopped by Ctrl-C: it has no result and is played again next time."""


def begun(future: Future[EpisodeRecord]) -> None:
    """The episode's worker has begun it (it is up, no longer starting): its future runs,
    unless it has already ended."""
    with contextlib.suppress(RuntimeError):  # settled first: nothing left to say
        future.set_running_or_notify_cancel()


class Interruptible(Protocol):
    """What plays the episode (the agent): asked to stop as Ctrl-C would."""

    def interrupt(self) -> None: ...


class EpisodeControls:
    """What a worker has over an episode it plays in one of its threads: it can stop it as
    Ctrl-C would, and `shared` episodes use the worker's MCP fork server and fork their game
    processes, rather than each starting its own."""

    def __init__(self, *, shared: bool = False) -> None:
        self.shared = shared
        self._lock = threading.Lock()
        self._agent: Interruptible | None = None
        self._interrupted = False

    def attach(self, agent: Interruptible) -> None:
        with self._lock:
            self._agent = agent
            interrupted = self._interrupted
        if interrupted:
            agent.interrupt()

    def interrupt(self) -> None:
        with self._lock:
            self._interrupted, agent = True, self._agent
        if agent is not None:
            agent.interrupt()

    @property
    def interrupted(self) -> bool:
        return self._interrupted

    def settle(self, record: EpisodeRecord) -> EpisodeRecord:
        """The record a player returned, unless the episode failed after it was asked to
        stop: a stop cancels the turn in flight, and what the cancel broke (a connection, a
        handshake) can end the episode on an error rather than as interrupted. Such an
        episode has no result and is played again next time; one that finished is kept."""
        if record.failed and self.interrupted:
            raise EpisodeInterrupted(record.key)
        return record


class RunningEpisodes:
    """The episodes a worker is playing (a local worker process or a Ray actor), each with
    its controls from the moment it is accepted, so that an interrupt reaches the queued
    ones too."""

    def __init__(self) -> None:
        self._controls: dict[object, EpisodeControls] = {}
        self._changed = threading.Condition()

    def add(self, key: object) -> EpisodeControls:
        controls = EpisodeControls(shared=True)
        with self._changed:
            self._controls[key] = controls
        return controls

    def done(self, key: object) -> None:
        with self._changed:
            del self._controls[key]
            self._changed.notify_all()

    def interrupt(self) -> None:
        with self._changed:
            running = list(self._controls.values())
        for controls in running:
            controls.interrupt()

    def wait(self, timeout: float | None) -> None:
        """Until none is left, or `timeout` seconds."""
        with self._changed:
            self._changed.wait_for(lambda: not self._controls, timeout)
