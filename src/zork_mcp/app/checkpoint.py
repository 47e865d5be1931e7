"""Per-turn checkpoints of an episode (the game's saved state, the agent's objective and recent
actions, the totals so far), so `--resume` continues an episode that stopped on an error.

The file is a pickle (Jericho's state holds numpy arrays and bytes) that zork-mcp writes into
the episode's own log folder; only load checkpoints from log folders you wrote.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zork_mcp.domain.errors import ConfigurationError

if TYPE_CHECKING:
    from zork_mcp.app.orchestrator import EpisodeSummary

CHECKPOINT_FILE = "checkpoint.pickle"


@dataclass(frozen=True)
class Checkpoint:
    turn: int
    game_state: object
    objective: str | None
    recent: tuple[tuple[str, str], ...]
    summary: EpisodeSummary


class CheckpointFile:
    """The latest checkpoint of one episode, replaced atomically after every turn."""

    def __init__(self, episode_dir: Path) -> None:
        self.path = episode_dir / CHECKPOINT_FILE

    def save(self, checkpoint: Checkpoint) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(checkpoint))
        os.replace(partial, self.path)

    def exists(self) -> bool:
        return self.path.is_file()

    def load(self) -> Checkpoint:
        if not self.path.is_file():
            raise ConfigurationError(
                f"Nothing to resume: {self.path} does not exist. Pass the --episode-id (and "
                f"--log-dir) of an episode that played at least one turn, or drop --resume."
            )
        try:
            checkpoint = pickle.loads(self.path.read_bytes())
        except Exception as e:
            raise ConfigurationError(
                f"{self.path} is not a readable checkpoint ({type(e).__name__}); "
                f"start the episode afresh without --resume."
            ) from e
        if not isinstance(checkpoint, Checkpoint):
            raise ConfigurationError(f"{self.path} holds no checkpoint; drop --resume.")
        return checkpoint
