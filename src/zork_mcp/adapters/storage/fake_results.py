"""An in-memory ResultStore for tests: what SqliteResultStore keeps, without a file."""

from __future__ import annotations

import threading

from zork_mcp.domain.sweep.records import EpisodeRecord


class FakeResultStore:
    def __init__(self) -> None:
        self._episodes: dict[tuple[str, str], EpisodeRecord] = {}
        self._lock = threading.Lock()  # the scheduler records from its worker threads

    def record(self, episode: EpisodeRecord) -> None:
        with self._lock:
            self._episodes[episode.sweep, episode.key] = episode

    def sweeps(self) -> list[str]:
        with self._lock:
            return sorted({sweep for sweep, _ in self._episodes})

    def episodes(self, sweep: str | None = None) -> list[EpisodeRecord]:
        with self._lock:
            chosen = [e for e in self._episodes.values() if not sweep or e.sweep == sweep]
        return sorted(chosen, key=lambda e: (e.sweep, e.cell, e.index))
