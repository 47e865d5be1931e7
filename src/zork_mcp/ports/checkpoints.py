"""The Checkpoints port: where an episode keeps its latest checkpoint, for `--resume`."""

from typing import Protocol

from zork_mcp.domain.episode.episode_state import Checkpoint


class Checkpoints(Protocol):
    def save(self, checkpoint: Checkpoint) -> None:
        """Replace the latest checkpoint, atomically: a reader sees the old one or the new."""
        ...

    def exists(self) -> bool: ...

    def load(self) -> Checkpoint:
        """The latest checkpoint; ConfigurationError saying what to do if there is none."""
        ...
