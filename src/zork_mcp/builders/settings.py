"""What one run is asked to do (the command line, resolved into one object), and the settings
its pyproject and MCP config add, each read once here for every builder."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

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


@dataclass(frozen=True)
class RunOptions:
    model: ResolvedModel = DEFAULT_MODEL  # the edge's `provider:model`, resolved once
    base_url: str | None = None
    game: str | None = None  # a known game's name or a story file's path (None: the config's)
    max_score: int | None = None  # an unknown game's most points (None: the config's)
    max_turns: int = 100
    config: Path = Path("pyproject.toml")
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


def project_settings(options: RunOptions) -> ProjectSettings:
    """`[tool.zorkgpt]` and its tables, read once (every default without a pyproject)."""
    text = pyproject_text(options)
    return parse_settings(text, source=str(options.config)) if text else ProjectSettings()


def load_settings(options: RunOptions, project: ProjectSettings | None = None) -> MCPSettings:
    """The MCP settings: the pyproject's, with --mcp and --mcp-servers over them."""
    settings = (project or project_settings(options)).mcp
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


def end_at_first_death(options: RunOptions, project: ProjectSettings | None = None) -> bool:
    """--end-at-first-death, else `end_at_first_death` in [tool.zorkgpt], else play on."""
    if options.end_at_first_death is not None:
        return options.end_at_first_death
    return (project or project_settings(options)).end_at_first_death


def history_policy(options: RunOptions, project: ProjectSettings | None = None) -> HistoryPolicy:
    """What the agent sees of its past turns: the options, else `[tool.zorkgpt]`, else a
    window."""
    policy = (project or project_settings(options)).history_policy()
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


def run_budget(options: RunOptions, project: ProjectSettings | None = None) -> Budget:
    """What the run may spend on LLM calls: the options' budget, else `[tool.zorkgpt]`'s."""
    if options.budget is not None:
        return options.budget
    return (project or project_settings(options)).budget()


def pyproject_text(options: RunOptions) -> str | None:
    if options.config.is_file():
        return options.config.read_text(encoding="utf-8")
    if options.config != RunOptions.config:
        raise ConfigurationError(f"The config file {options.config} does not exist.")
    return None
