"""Checkpoints as a file in the episode's log folder, replaced atomically after every turn.

The file is a pickle (Jericho's state holds numpy arrays and bytes) that zork-mcp writes into
the episode's own log folder; only load checkpoints from log folders you wrote. One written
before the checkpoint's classes moved (to the domain, or to another adapter package) still
loads: their old names are read as the new ones.
"""

from __future__ import annotations

import io
import os
import pickle
from pathlib import Path
from typing import Any

from zork_mcp.domain.episode.episode import Checkpoint, EpisodeSummary
from zork_mcp.domain.errors import ConfigurationError

CHECKPOINT_FILE = "checkpoint.pickle"
_MOVED = {
    ("zork_mcp.app.checkpoint", "Checkpoint"): Checkpoint,
    ("zork_mcp.app.orchestrator", "EpisodeSummary"): EpisodeSummary,
}
_MOVED_MODULES = {  # issue 37: the Jericho adapter moved under adapters/game/
    f"zork_mcp.adapters.jericho_game.{module}": f"zork_mcp.adapters.game.jericho.{module}"
    for module in ("game_env", "wire")
}
_DOMAIN_BY_CONCERN = {  # issue 48: the domain's modules moved into a folder per concern
    "loop": ("agent_turn", "batch_policy", "context_budget", "loop_records", "loop_policy",
             "loop_report", "recovery", "tool_loop", "agent_response"),
    "llm": ("messages",),
    "tools": ("model_support", "schema_dialects", "tool_judgment", "tool_offer", "tool_result",
              "tool_schema", "wire_names"),
    "servers": ("confinement", "connection", "host_list", "protocol_era", "roots",
                "server_config", "server_env"),
    "game": ("game", "game_command", "game_peek", "game_text", "status_line", "story_file",
             "text_encoding"),
    "episode": ("episode", "episode_map", "episode_state", "episode_text", "history",
                "inert_text", "memories", "turn_facts"),
    "facts": ("episode_facts", "events", "loop_facts", "span_facts", "tool_facts"),
}  # fmt: skip
_MOVED_MODULES |= {
    f"zork_mcp.domain.{module}": f"zork_mcp.domain.{concern}.{module}"
    for concern, modules in _DOMAIN_BY_CONCERN.items()
    for module in modules
}
_MOVED_MODULES |= {  # where a few stood for a day before the domain's layers were drawn
    "zork_mcp.domain.loop.messages": "zork_mcp.domain.llm.messages",
    "zork_mcp.domain.loop.connection": "zork_mcp.domain.servers.connection",
    "zork_mcp.domain.facts.turn_facts": "zork_mcp.domain.episode.turn_facts",
}


class FileCheckpoints:
    """The latest checkpoint of one episode: `<episode folder>/checkpoint.pickle`."""

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
            checkpoint = _Unpickler(io.BytesIO(self.path.read_bytes())).load()
        except Exception as e:
            raise ConfigurationError(
                f"{self.path} is not a readable checkpoint ({type(e).__name__}); "
                f"start the episode afresh without --resume."
            ) from e
        if not isinstance(checkpoint, Checkpoint):
            raise ConfigurationError(f"{self.path} holds no checkpoint; drop --resume.")
        return checkpoint


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        moved = _MOVED.get((module, name))
        return moved or super().find_class(_MOVED_MODULES.get(module, module), name)
