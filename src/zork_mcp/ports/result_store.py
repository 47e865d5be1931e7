"""The ResultStore port: where a sweep keeps its finished episodes (SQLite by default)."""

from typing import Protocol

from zork_mcp.domain.sweep.records import EpisodeRecord


class ResultStore(Protocol):
    def record(self, episode: EpisodeRecord) -> None:
        """Store one episode and its trajectory; a replayed episode replaces the old."""
        ...

    def sweeps(self) -> list[str]: ...

    def episodes(self, sweep: str | None = None) -> list[EpisodeRecord]: ...
