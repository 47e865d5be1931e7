"""A sweep: models x MCP modes x history modes x games, each cell played for N episodes;
parsed from flags or TOML and checked against the provider registry. Its episodes are
domain/sweep/episodes.py."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zork_mcp.builders import providers
from zork_mcp.domain.episode.history import HistoryMode
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.game.seeds import checked_seeds
from zork_mcp.domain.game.trilogy import KNOWN_GAMES
from zork_mcp.domain.llm.budget import Budget
from zork_mcp.domain.sweep.episodes import (
    Cell,
    CellMcp,
    EpisodeSpec,
    McpMode,
    ModelSpec,
    cell_mcp,
)

DEFAULT_FIRST_SEED = 12
RUN_HISTORY = "default"  # the history mode a run has without one: its pyproject's
SWEEP_KEYS = frozenset(
    {
        "name",
        "models",
        "mcp",
        "history",
        "seeds",
        "episodes",
        "max_turns",
        "parallel",
        "provider_limits",
        "budget_usd",
        "budget_tokens",
        "games",
        "max_score",
    }
)


@dataclass(frozen=True)
class Sweep:
    name: str
    models: tuple[ModelSpec, ...]
    mcp: tuple[CellMcp, ...] = (McpMode.ON, McpMode.OFF)
    seeds: tuple[int, ...] = ()
    episodes: int = 1
    max_turns: int = 100
    provider_limits: Mapping[str, int] = field(default_factory=dict)
    history: tuple[HistoryMode | None, ...] = (None,)  # None: the run's own
    budget_usd: float | None = None  # what the whole sweep may spend on LLM calls
    budget_tokens: int | None = None
    games: tuple[str, ...] = ()  # () : the run's own game; several: a cell per game
    max_score: int | None = None  # an unknown game's most points (None: the config's)

    def __post_init__(self) -> None:
        if not self.name.strip():
            # the store reads an empty name as "every sweep": its re-runs and report would mix them
            raise ConfigurationError(
                'A sweep needs a name: --name NAME, or name = "..." in its file.'
            )
        if not self.models:
            raise ConfigurationError("A sweep needs at least one model: --model provider:model.")
        if not self.history:
            raise ConfigurationError("A sweep needs at least one history mode (or leave it out).")
        if self.max_score is not None and self.max_score < 1:
            raise ConfigurationError("max_score must be at least 1.")
        if self.episodes < 1 or self.max_turns < 1:
            raise ConfigurationError("episodes and max_turns must be at least 1.")
        try:
            self.budget  # noqa: B018 - checked here, where the sweep is made
        except ValueError as e:
            raise ConfigurationError(f"budget_usd and budget_tokens: {e}.") from e
        for provider, limit in self.provider_limits.items():
            providers.provider_named(provider, where="provider_limits")
            if limit < 1:
                raise ConfigurationError(f"provider_limits.{provider} must be at least 1.")

    @property
    def budget(self) -> Budget:
        return Budget(self.budget_usd, self.budget_tokens)

    @property
    def game(self) -> str | None:
        """The game of a one-game sweep (None: the run's own, or a cell's own per game)."""
        return self.games[0] if len(self.games) == 1 else None

    @property
    def cells(self) -> list[Cell]:
        """Game by game, models x MCP modes x history modes; a one-game sweep's cells name no
        game, so its labels and keys are those it had before sweeps had games."""
        games: tuple[str | None, ...] = self.games if len(self.games) > 1 else (None,)
        return [
            Cell(model, mode, history, game)
            for game in games
            for model in self.models
            for mode in self.mcp
            for history in self.history
        ]

    def seed_of(self, index: int) -> int:
        if self.seeds:
            return self.seeds[index % len(self.seeds)]
        return DEFAULT_FIRST_SEED + index

    def episodes_to_play(self) -> list[EpisodeSpec]:
        """Episode-major order, so an early stop leaves every cell with a similar count."""
        return [
            EpisodeSpec(self.name, cell, index, self.seed_of(index), self.max_turns)
            for index in range(self.episodes)
            for cell in self.cells
        ]


def model_spec(text: str) -> ModelSpec:
    """`provider:model` as a sweep's model (the registry's `parse_model`, checked)."""
    return ModelSpec(providers.parse_model(text))


def model_from_toml(entry: Any) -> ModelSpec:
    if isinstance(entry, str):
        return model_spec(entry)
    if isinstance(entry, dict) and set(entry) <= {"provider", "model", "base_url"}:
        spec = model_spec(f"{entry.get('provider', '')}:{entry.get('model', '')}")
        return ModelSpec(spec.model, entry.get("base_url"))
    raise ConfigurationError(
        f'models entry {entry!r}: write "provider:model" or '
        '{provider = "...", model = "...", base_url = "..."}.'
    )


def parse_mcp_modes(modes: Iterable[str]) -> tuple[CellMcp, ...]:
    result = tuple(cell_mcp(mode.strip()) for mode in modes if mode.strip())
    if not result:
        raise ConfigurationError("--mcp needs at least one mode: on, off or an MCP config file.")
    return result


def parse_history_modes(modes: Iterable[str]) -> tuple[HistoryMode | None, ...]:
    """Each cell's history mode, once each in the order given; `default` is the run's own."""
    valid = [mode.value for mode in HistoryMode]
    result: dict[HistoryMode | None, None] = {}
    for text in (mode.strip() for mode in modes):
        if text == RUN_HISTORY:
            result[None] = None
        elif text in valid:
            result[HistoryMode(text)] = None
        elif text:
            raise ConfigurationError(
                f"history mode '{text}': write one of {', '.join(valid)} or {RUN_HISTORY} "
                "(the run's own, from [tool.zorkgpt] history), e.g. --history window,state."
            )
    if not result:
        raise ConfigurationError("--history needs at least one mode: window, full, state.")
    return tuple(result)


def parse_games(games: Iterable[str]) -> tuple[str, ...]:
    """Each game once, in the order given: a known game's name (its key, in lower case) or a
    story file's path, as written."""
    result: dict[str, None] = {}
    for text in (game.strip() for game in games):
        if text:
            result[text.lower() if text.lower() in KNOWN_GAMES else text] = None
    if not result:
        raise ConfigurationError(
            f"--game needs at least one game: {', '.join(KNOWN_GAMES)} or a story file's path."
        )
    return tuple(result)


def sweep_from_toml(text: str, source: str) -> dict[str, Any]:
    """The sweep file's fields, checked; the CLI lets flags override them."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigurationError(f"{source} is not valid TOML: {e}") from e
    unknown = set(data) - SWEEP_KEYS
    if unknown:
        raise ConfigurationError(
            f"{source}: unknown keys {sorted(unknown)}; valid keys: {sorted(SWEEP_KEYS)}."
        )
    fields: dict[str, Any] = dict(data)
    if "models" in data:
        fields["models"] = tuple(model_from_toml(entry) for entry in _list(data, "models", source))
    if "mcp" in data:
        fields["mcp"] = parse_mcp_modes(str(m) for m in _list(data, "mcp", source))
    if "history" in data:
        fields["history"] = parse_history_modes(str(m) for m in _list(data, "history", source))
    if "games" in data:
        fields["games"] = parse_games(str(g) for g in _list(data, "games", source))
    if "seeds" in data:
        seeds = (int(s) for s in _list(data, "seeds", source))
        fields["seeds"] = checked_seeds(seeds, f"{source}: seeds")
    return fields


def _list(data: Mapping[str, Any], key: str, source: str) -> Sequence[Any]:
    value = data[key]
    if not isinstance(value, list):
        raise ConfigurationError(f"{source}: {key} must be a list, got {value!r}.")
    return value
