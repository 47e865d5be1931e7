"""Who an episode of a sweep is (its cell, seed and index; its stable key and the row it
becomes) and the task a worker is given to play it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from zork_mcp.domain.episode.history import HistoryMode
from zork_mcp.domain.llm.budget import Budget
from zork_mcp.domain.llm.model import ResolvedModel
from zork_mcp.domain.servers.config_advice import McpSwitches
from zork_mcp.domain.settings import ProjectSettings
from zork_mcp.domain.sweep.records import EpisodeRecord


@dataclass(frozen=True)
class ModelSpec:
    """A sweep's model, as its file or `--model` named it (resolved once), and where it is
    served (None: its provider's own address)."""

    model: ResolvedModel
    base_url: str | None = None

    @property
    def provider(self) -> str:
        return self.model.provider

    @property
    def label(self) -> str:
        return str(self.model)


class McpMode(StrEnum):
    ON = "on"  # the run's own MCP config
    OFF = "off"


@dataclass(frozen=True)
class McpConfigFile:
    """Another MCP config file for a cell, as written (its text names and keys the cell)."""

    path: str

    def __str__(self) -> str:
        return self.path


CellMcp = McpMode | McpConfigFile


def cell_mcp(text: str) -> CellMcp:
    """`on`, `off`, or the path of an MCP config file."""
    return McpMode(text) if text in tuple(McpMode) else McpConfigFile(text)


# A cell's MCP as `zork-mcp eval` spells it (its --mcp flag, the sweep file's `mcp` key).
SWEEP_SWITCHES = McpSwitches(config="--mcp PATH", on="--mcp on", off="--mcp off")


@dataclass(frozen=True)
class Cell:
    """One configuration: a model, its MCP (on, off, or another MCP config file), a history
    mode (None: the run's own, as its pyproject says) and a game (None: the sweep's one game,
    which its task carries; a sweep over several games gives each cell its own)."""

    model: ModelSpec
    mcp: CellMcp
    history: HistoryMode | None = None
    game: str | None = None  # a known game's key or a story file's path, as written

    def __post_init__(self) -> None:
        if isinstance(self.mcp, str):  # as written: "on", "off" or a file
            object.__setattr__(self, "mcp", cell_mcp(self.mcp))

    @property
    def label(self) -> str:
        """Names the cell, and so keys its episodes: a cell of the run's own history mode, or
        of a sweep's one game, keeps the label (and the keys) it had before cells had them."""
        history = f" history={self.history}" if self.history is not None else ""
        game = f" game={self.game}" if self.game is not None else ""
        return f"{self.model.label} mcp={self.mcp}{history}{game}"


@dataclass(frozen=True)
class EpisodeSpec:
    sweep: str
    cell: Cell
    index: int
    seed: int
    max_turns: int

    def record(self, **outcome: Any) -> EpisodeRecord:
        """This episode's row: who it is (sweep, key, cell, model, MCP mode, seed, index,
        history mode), and the outcome given; the one place an episode's identity becomes a
        stored record."""
        history = self.cell.history
        return EpisodeRecord(
            sweep=self.sweep,
            key=self.key,
            cell=self.cell.label,
            model=self.cell.model.label,
            mcp=str(self.cell.mcp),
            seed=self.seed,
            index=self.index,
            history=history,
            **outcome,
        )

    @property
    def key(self) -> str:
        """Stable identity: the same episode of the same sweep always has the same key (its
        cell's label holds the model, the MCP mode, any history mode and any game; a model's
        base URL is left out, so a local server may come back on another port; so is the turn
        limit, so a sweep run again with a higher one carries its episodes on)."""
        body = json.dumps(
            {"cell": self.cell.label, "i": self.index, "seed": self.seed}, sort_keys=True
        )
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    @property
    def episode_id(self) -> str:
        return f"{self.sweep}-{self.key}"


@dataclass(frozen=True)
class EpisodeTask:
    """Everything a worker needs to play one episode (picklable): the pyproject's `project`
    settings as the sweep read them once, before its first episode (its MCP config is read
    beside `config`)."""

    spec: EpisodeSpec
    log_root: Path
    config: Path
    project: ProjectSettings
    game: str | None = None  # the sweep's one game (None: the run's own); a cell's wins
    resume: bool = False  # continue from the episode's checkpoint if it has one
    trust_pickle: bool = False  # an old checkpoint.pickle is its user's, to be loaded
    extends: int | None = None  # carries on a stored episode played to this turn limit
    budget: Budget | None = None  # what the episode may spend in all, its runs before included
    max_score: int | None = None  # an unknown game's most points (None: the config's)

    @property
    def game_played(self) -> str | None:
        """The game this episode plays: its cell's, else the sweep's, else the run's own."""
        return self.spec.cell.game or self.game
