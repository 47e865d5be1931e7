"""In-memory Checkpoints for tests: the latest one, kept as a copy, as the file keeps it."""

from __future__ import annotations

import copy

from zork_mcp.domain.episode.episode_state import Checkpoint
from zork_mcp.domain.errors import ConfigurationError


class FakeCheckpoints:
    def __init__(self) -> None:
        self._latest: Checkpoint | None = None

    def save(self, checkpoint: Checkpoint) -> None:
        self._latest = copy.deepcopy(checkpoint)

    def exists(self) -> bool:
        return self._latest is not None

    def load(self) -> Checkpoint:
        if self._latest is None:
            raise ConfigurationError("Nothing to resume: no checkpoint was saved; drop --resume.")
        return copy.deepcopy(self._latest)
