"""What one run is asked to do (its entry point's inputs, resolved into one object by
`run_options`), and the settings its pyproject and MCP config add: the pyproject read once
where the run enters (`project_settings`), then given to every builder that needs it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from zork_mcp.builders.providers import DEFAULT_MODEL
from zork_mcp.domain.episode.history import HistoryMode, HistoryPolicy
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.llm.budget import Budget
from zork_mcp.domain.llm.model import ResolvedModel
from zork_mcp.domain.servers.config_advice import (
    CLI_SWITCHES,
    McpConfigOrigin,
    McpSwitches,
    missing_config_error,
)
from zork_mcp.domain.servers.server_config import (
    AnyServerConfig,
    MCPConfig,
    parse_mcp_config,
    with_tool_filters,
)
from zork_mcp.domain.settings import MCPSettings, ProjectSettings, parse_settings

DEFAULT_CONFIG: Final = Path("pyproject.toml")  # without it, every setting's default


@dataclass(frozen=True)
class RunOptions:
    model: ResolvedModel = DEFAULT_MODEL  # the edge's `provider:model`, resolved once
    base_url: str | None = None
    game: str | None = None  # a known game's name or a story file's path (None: the config's)
    max_score: int | None = None  # an unknown game's most points (None: the config's)
    max_turns: int = 100
    config: Path = DEFAULT_CONFIG
    mcp_config: Path | None = None
    mcp: bool | None = None  # None: as the pyproject says
    mcp_servers: tuple[str, ...] | None = None  # None: as the pyproject says (default all)
    log_dir: Path = Path("logs")
    seed: int = 12
    episode_id: str = "episode"
    plain: bool = False
    allow_quit_restart: bool = False
    end_at_first_death: bool | None = None  # None: as the pyproject says (default: play on)
    resume: bool = False  # continue the episode from its last checkpoint
    trust_pickle: bool = False  # its user says an old checkpoint.pickle is theirs
    fork_game: bool = False  # fork the game process from a preloaded parent (sweep workers)
    history: HistoryMode | None = None  # None: as the pyproject says (default: a window)
    history_turns: int | None = None
    history_budget_tokens: int | None = None
    budget: Budget | None = None  # None: as the pyproject says (default: no limit)
    mcp_switches: McpSwitches = CLI_SWITCHES  # how its entry point spells the MCP options

    @property
    def episode_dir(self) -> Path:
        return self.log_dir / self.episode_id


def run_options(
    *,
    model: ResolvedModel,
    game: str | None,
    max_score: int | None,
    seed: int,
    max_turns: int,
    config: Path,
    mcp_config: Path | None,
    mcp: bool | None,
    mcp_switches: McpSwitches,
    history: HistoryMode | str | None,
    log_dir: Path,
    episode_id: str,
    plain: bool,
    base_url: str | None = None,
    mcp_servers: tuple[str, ...] | None = None,
    history_turns: int | None = None,
    history_budget_tokens: int | None = None,
    budget: Budget | None = None,
    allow_quit_restart: bool = False,
    end_at_first_death: bool | None = None,
    resume: bool = False,
    trust_pickle: bool = False,
    fork_game: bool = False,
) -> RunOptions:
    """A run's options from what its entry point was given (`zork-mcp`'s flags, a sweep's
    episode, an Inspect sample): the one place they are made, so each entry says what every
    run must be told (its model, game, MCP and how it spells MCP's switches, history, where
    it logs) and means by it what the others do. None leaves a setting to the pyproject."""
    return RunOptions(
        model=model,
        base_url=base_url,
        game=game,
        max_score=max_score,
        max_turns=max_turns,
        config=config,
        mcp_config=mcp_config,
        mcp=mcp,
        mcp_servers=mcp_servers,
        log_dir=log_dir,
        seed=seed,
        episode_id=episode_id,
        plain=plain,
        allow_quit_restart=allow_quit_restart,
        end_at_first_death=end_at_first_death,
        resume=resume,
        trust_pickle=trust_pickle,
        fork_game=fork_game,
        history=HistoryMode(history) if history is not None else None,
        history_turns=history_turns,
        history_budget_tokens=history_budget_tokens,
        budget=budget,
        mcp_switches=mcp_switches,
    )


def project_settings(config: Path) -> ProjectSettings:
    """`[tool.zorkgpt]` and its tables of the pyproject at `config` (every default where the
    default pyproject.toml is not there). Read once where a run enters (the CLI, a sweep, the
    Inspect task) and given to whatever needs it: no builder reads it again."""
    text = pyproject_text(config)
    return parse_settings(text, source=str(config)) if text else ProjectSettings()


def load_settings(options: RunOptions, project: ProjectSettings) -> MCPSettings:
    """The MCP settings: the pyproject's, with --mcp and --mcp-servers over them."""
    settings = project.mcp
    if options.mcp is not None:
        settings = settings.model_copy(update={"enabled": options.mcp})
    if options.mcp_servers is not None:
        settings = settings.model_copy(update={"servers": options.mcp_servers})
    return settings


def mcp_config(options: RunOptions, settings: MCPSettings) -> MCPConfig | None:
    """The MCP config the run uses, or None with MCP off."""
    if not settings.enabled:
        return None
    origin = McpConfigOrigin(
        options.mcp_switches,
        named=options.mcp_config is not None,
        pyproject=str(options.config) if options.config.is_file() else None,
        turned_on=options.mcp is True,
    )
    path = options.mcp_config or (options.config.parent / settings.config_file)
    if not path.is_file():
        raise missing_config_error(str(path), origin)
    text = path.read_text(encoding="utf-8")
    return parse_mcp_config(text, source=str(path), off=origin.off)


def chosen_servers(config: MCPConfig, settings: MCPSettings) -> dict[str, AnyServerConfig]:
    """The servers the run uses, each with the tool filter [tool.zorkgpt.mcp] adds to its own."""
    chosen = config.chosen(settings.servers, source="[tool.zorkgpt.mcp] servers (or --mcp-servers)")
    filters = {name: table.as_filter() for name, table in settings.tool_filters.items()}
    return with_tool_filters(chosen, filters, source="[tool.zorkgpt.mcp.tool_filters]")


def end_at_first_death(options: RunOptions, project: ProjectSettings) -> bool:
    """--end-at-first-death, else `end_at_first_death` in [tool.zorkgpt], else play on."""
    if options.end_at_first_death is not None:
        return options.end_at_first_death
    return project.end_at_first_death


def history_policy(options: RunOptions, project: ProjectSettings) -> HistoryPolicy:
    """What the agent sees of its past turns: the options, else `[tool.zorkgpt]`, else a
    window."""
    policy = project.history_policy()
    chosen = {
        "mode": options.history,
        "turns": options.history_turns,
        "budget_tokens": options.history_budget_tokens,
    }
    try:
        return replace(policy, **{k: v for k, v in chosen.items() if v is not None})
    except ValueError as e:
        raise ConfigurationError(
            f"--history-turns must be at least 1 and --history-budget-tokens at least 0 ({e})."
        ) from e


def run_budget(options: RunOptions, project: ProjectSettings) -> Budget:
    """What the run may spend on LLM calls: the options' budget, else `[tool.zorkgpt]`'s."""
    if options.budget is not None:
        return options.budget
    return project.budget()


def pyproject_text(config: Path) -> str | None:
    if config.is_file():
        return config.read_text(encoding="utf-8")
    if config != DEFAULT_CONFIG:
        raise ConfigurationError(f"The config file {config} does not exist.")
    return None
