"""Checkpoints as `checkpoint.json` in the episode's log folder, replaced atomically after
every turn. This module is the format's writer and its one reader.

The file is data, never code: JSON that is validated field by field as it is read, the
game's state in it as base64 bytes. So a checkpoint that zork-mcp did not write is refused
with an error, and nothing in it runs, whoever wrote it: no key to keep, and a log folder
read on another machine (a Ray worker's) reads the same. The agent's folder is written
only by the agent (its servers each have a folder of their own), and it neither writes
through a link there nor reads one back (`own_files`).

Checkpoints used to be a pickle (`checkpoint.pickle`). Unpickling runs whatever code the
file holds, and any MCP server could write that folder then, so an old one is loaded only
when its user says so (`--trust-pickle-checkpoint`); the next checkpoint is JSON.
"""

from __future__ import annotations

import io
import json
import pickle
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from zork_mcp.adapters.storage import own_files
from zork_mcp.domain.episode.episode import EpisodeSummary
from zork_mcp.domain.episode.episode_state import Checkpoint, EpisodeState, Note, Place, PlayedTurn
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.servers.connection import ConnectionState, ConnectionTracker, ServerConnections
from zork_mcp.domain.tools.tool_offer import ToolNotices
from zork_mcp.domain.validation import describe_validation_error

CHECKPOINT_FILE = "checkpoint.json"
PICKLED_FILE = "checkpoint.pickle"  # before checkpoint.json: loaded only when trusted
FORMAT = "zork-mcp checkpoint"
VERSION = 1
TRUST_FLAG = "--trust-pickle-checkpoint"
# a folder that holds an episode is never started over (the CLI refuses to): a new id, then
_START_ANEW = "start a new episode instead: drop --resume, and pass another --episode-id or none"


class _Saved(BaseModel):
    """The checkpoint file: its format and version, the game's state, the episode's."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", ser_json_bytes="base64", val_json_bytes="base64"
    )

    format: Literal["zork-mcp checkpoint"]
    version: Literal[1]
    game_state: bytes
    summary: EpisodeSummary
    start: Place
    opening: str
    turns: list[PlayedTurn]
    objective: str | None
    notes: tuple[Note, ...]
    connections: dict[str, ConnectionState]
    notices: tuple[str, ...]

    @classmethod
    def of(cls, checkpoint: Checkpoint) -> _Saved:
        episode = checkpoint.episode
        return cls(
            format=FORMAT,
            version=VERSION,
            game_state=checkpoint.game_state,
            summary=episode.summary,
            start=episode.start,
            opening=episode.opening,
            turns=episode.turns,
            objective=episode.objective,
            notes=episode.notes,
            connections=episode.connections.states(),
            notices=tuple(sorted(episode.notices.said)),
        )

    def checkpoint(self) -> Checkpoint:
        trackers = {name: ConnectionTracker(state) for name, state in self.connections.items()}
        episode = EpisodeState(
            self.summary,
            start=self.start,
            opening=self.opening,
            turns=list(self.turns),
            objective=self.objective,
            notes=self.notes,
            connections=ServerConnections(trackers),
            notices=ToolNotices(set(self.notices)),
        )
        return Checkpoint(self.game_state, episode)


class FileCheckpoints:
    """The latest checkpoint of one episode: `<episode folder>/checkpoint.json`.
    `trust_pickle`: its user has said an old `checkpoint.pickle` there is theirs."""

    def __init__(self, episode_dir: Path, *, trust_pickle: bool = False) -> None:
        self.path = episode_dir / CHECKPOINT_FILE
        self.pickled = episode_dir / PICKLED_FILE
        self._trust_pickle = trust_pickle

    def save(self, checkpoint: Checkpoint) -> None:
        # json's own escapes (ASCII): a model's text may hold what UTF-8 cannot (a lone
        # surrogate), which then reads back as it was
        saved = _Saved.of(checkpoint).model_dump(mode="json")
        own_files.replace(self.path, json.dumps(saved).encode("ascii"))

    def exists(self) -> bool:
        return self.path.is_file() or (self._trust_pickle and self.pickled.is_file())

    def load(self) -> Checkpoint:
        try:
            data = own_files.read(self.path)
        except FileNotFoundError:
            return self._load_pickled()
        try:
            return _Saved.model_validate(json.loads(data)).checkpoint()
        except ValidationError as e:
            problem = describe_validation_error(e)
        except (ValueError, RecursionError) as e:
            problem = f"  - it is not JSON ({type(e).__name__}: {str(e)[:200]})"
        raise ConfigurationError(
            f"{self.path} is not a checkpoint zork-mcp wrote, and nothing in it was run:\n"
            f"{problem}\n{_START_ANEW.capitalize()}."
        )

    def _load_pickled(self) -> Checkpoint:
        if not self.pickled.is_file() and not self.pickled.is_symlink():
            raise ConfigurationError(self._nothing_to_resume())
        if not self._trust_pickle:
            raise ConfigurationError(
                f"{self.path.parent} holds only {PICKLED_FILE}, a checkpoint in the format "
                "zork-mcp wrote before checkpoint.json. It was not loaded: loading a pickle "
                "runs whatever code it holds, and the MCP servers of that time could write "
                "this folder. If you are sure no server and no other program wrote it, "
                f"resume with {TRUST_FLAG}; the next checkpoint is written as {CHECKPOINT_FILE}."
            )
        try:
            checkpoint = _Unpickler(io.BytesIO(own_files.read(self.pickled))).load()
        except own_files.ForeignFileError:
            raise
        except Exception as e:
            raise ConfigurationError(
                f"{self.pickled} is not a readable checkpoint ({type(e).__name__}); {_START_ANEW}."
            ) from e
        if not isinstance(checkpoint, Checkpoint):
            raise ConfigurationError(f"{self.pickled} holds no checkpoint; {_START_ANEW}.")
        return checkpoint

    def _nothing_to_resume(self) -> str:
        folder = self.path.parent
        if not folder.is_dir():
            return (
                f"Nothing to resume: there is no episode folder {folder}. Pass the --episode-id "
                "(and --log-dir) of an episode that played at least one turn, or drop --resume "
                "to start a new episode there."
            )
        return (
            f"Nothing to resume: {self.path} does not exist (its episode stopped before its "
            "first turn ended; its episode.log says why). For a new episode, drop --resume and "
            "pass another --episode-id, or none."
        )


_MOVED = {
    ("zork_mcp.app.checkpoint", "Checkpoint"): Checkpoint,
    ("zork_mcp.domain.episode", "Checkpoint"): Checkpoint,  # before issue 48's folders
    ("zork_mcp.domain.episode.episode", "Checkpoint"): Checkpoint,  # before issue 54
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
    "game": ("game", "game_command", "game_peek", "game_text", "status_line", "story_file"),
    "episode": ("episode", "episode_map", "episode_state", "episode_text", "history",
                "memories", "turn_facts"),
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
    # issue 54: what serves every outside text has a package of its own
    "zork_mcp.domain.text_encoding": "zork_mcp.domain.text.encoding",
    "zork_mcp.domain.game.text_encoding": "zork_mcp.domain.text.encoding",
    "zork_mcp.domain.inert_text": "zork_mcp.domain.text.inert",
    "zork_mcp.domain.episode.inert_text": "zork_mcp.domain.text.inert",
}


class _Unpickler(pickle.Unpickler):
    """An old checkpoint's classes found where they live now."""

    def find_class(self, module: str, name: str) -> Any:
        moved = _MOVED.get((module, name))
        return moved or super().find_class(_MOVED_MODULES.get(module, module), name)
