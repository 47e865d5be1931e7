"""MCP settings: the `[tool.zorkgpt.mcp]` table of a pyproject file (requirements 2.4, 2.5, 13)."""

from __future__ import annotations

import tomllib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from zork_mcp.domain.episode.history import HistoryMode, HistoryPolicy
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.llm.budget import Budget
from zork_mcp.domain.tools.tool_offer import DEFINITION_BUDGET_CHARS, ToolFilter
from zork_mcp.domain.validation import describe_validation_error

MCP_TABLE = "tool.zorkgpt.mcp"
TOOL_TIMEOUT_SECONDS = 30.0  # one tool call's limit unless configured (requirement 13)


ServerStart = Literal["auto", "fork", "spawn"]  # how stdio servers start (README)
STDERR_LOG_BYTES = 8 * 1024 * 1024


class ToolFilterSettings(BaseModel):
    """`[tool.zorkgpt.mcp.tool_filters.<server>]`: which of a server's tools to offer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    def as_filter(self) -> ToolFilter:
        return ToolFilter(self.include, self.exclude)


class MCPSettings(BaseModel):
    """The agent's MCP settings, with the defaults of requirement 13."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = False
    config_file: str = Field(default="mcp_config.json", min_length=1)
    max_tool_iterations: int = Field(default=20, ge=1)
    tool_call_timeout_seconds: float = Field(default=TOOL_TIMEOUT_SECONDS, gt=0)
    server_startup_timeout_seconds: float = Field(default=10, gt=0)
    max_tool_result_chars: int = Field(default=50_000, ge=1_000)
    max_tool_definition_chars: int = Field(default=DEFINITION_BUDGET_CHARS, ge=1_000)
    stderr_log_bytes: int = Field(default=STDERR_LOG_BYTES, ge=0)  # per server per episode
    tool_filters: dict[str, ToolFilterSettings] = Field(default_factory=dict)  # by server
    force_tool_support: bool = False
    background_spare: bool = True
    server_start: ServerStart = "auto"
    sandbox: bool = (
        True  # stdio servers confined (domain/servers/confinement.py); off: an event says
    )
    servers: tuple[str, ...] | None = None  # which of mcp_config.json's servers; None: all

    @property
    def chosen_startup_timeout(self) -> float | None:
        """`server_startup_timeout_seconds` if the pyproject sets it; None: its default, 10 s,
        or longer for a package launcher (domain/servers/startup_timeout.py)."""
        if "server_startup_timeout_seconds" in self.model_fields_set:
            return self.server_startup_timeout_seconds
        return None


def parse_mcp_settings(pyproject_text: str, *, source: str) -> MCPSettings:
    """Read `[tool.zorkgpt.mcp]` from pyproject text; a missing table means all defaults."""
    try:
        document = tomllib.loads(pyproject_text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigurationError(
            f"{source} is not valid TOML: {e}. Fix the syntax at that line and column."
        ) from e
    table = _mcp_table(document, source)
    try:
        return MCPSettings.model_validate(table)
    except ValidationError as e:
        raise ConfigurationError(
            f"{source} [{MCP_TABLE}] is invalid:\n{describe_validation_error(e)}\n"
            f"Fix or remove those keys; the documented keys are: "
            f"{', '.join(MCPSettings.model_fields)}."
        ) from e


def parse_game_setting(pyproject_text: str) -> str | None:
    """`game = "path/to/zork1.z3"` in `[tool.zorkgpt]`, if set."""
    table = tomllib.loads(pyproject_text).get("tool", {}).get("zorkgpt")
    game = table.get("game") if isinstance(table, dict) else None
    return game if isinstance(game, str) and game else None


def parse_end_at_first_death(pyproject_text: str, *, source: str) -> bool:
    """`end_at_first_death = true` in `[tool.zorkgpt]`: Jericho's rule, an episode ends at the
    player's first death; by default it plays on while the game does (Zork I reincarnates)."""
    table = tomllib.loads(pyproject_text).get("tool", {}).get("zorkgpt")
    value = table.get("end_at_first_death", False) if isinstance(table, dict) else False
    if not isinstance(value, bool):
        raise ConfigurationError(
            f"{source} [tool.zorkgpt] end_at_first_death must be true or false, not {value!r}."
        )
    return value


def _mcp_table(document: dict[str, Any], source: str) -> dict[str, Any]:
    node: Any = document
    path: list[str] = []
    for key in MCP_TABLE.split("."):
        node = node.get(key, {})
        path.append(key)
        if not isinstance(node, dict):
            raise ConfigurationError(
                f"{source}: [{'.'.join(path)}] must be a table, not {node!r}; "
                f"the MCP settings go in [{MCP_TABLE}]."
            )
    return node


class HistorySettings(BaseModel):
    """`history`, `history_turns` and `history_budget_tokens` in `[tool.zorkgpt]`."""

    model_config = ConfigDict(frozen=True)

    history: HistoryMode = HistoryMode.WINDOW
    history_turns: int = Field(default=HistoryPolicy.turns, ge=1)
    history_budget_tokens: int = Field(default=HistoryPolicy.budget_tokens, ge=0)

    def policy(self) -> HistoryPolicy:
        return HistoryPolicy(self.history, self.history_turns, self.history_budget_tokens)


def parse_history_policy(pyproject_text: str, *, source: str) -> HistoryPolicy:
    """What the agent is shown of its past turns (`[tool.zorkgpt]`; defaults: a window)."""
    table = tomllib.loads(pyproject_text).get("tool", {}).get("zorkgpt")
    keys = HistorySettings.model_fields
    chosen = {k: v for k, v in table.items() if k in keys} if isinstance(table, dict) else {}
    try:
        return HistorySettings.model_validate(chosen).policy()
    except ValidationError as e:
        raise ConfigurationError(
            f"{source} [tool.zorkgpt] history settings are invalid:\n"
            f"{describe_validation_error(e)}\n"
            'history is "window", "full" or "state"; history_turns at least 1; '
            "history_budget_tokens at least 0."
        ) from e


class BudgetSettings(BaseModel):
    """`budget_usd` and `budget_tokens` in `[tool.zorkgpt]`: what a run may spend on LLM
    calls (a single episode's, or a whole sweep's)."""

    model_config = ConfigDict(frozen=True)

    budget_usd: float | None = Field(default=None, gt=0)
    budget_tokens: int | None = Field(default=None, ge=1)

    def budget(self) -> Budget:
        return Budget(self.budget_usd, self.budget_tokens)


def parse_budget(pyproject_text: str, *, source: str) -> Budget:
    """The run's budget from `[tool.zorkgpt]` (none: no limit)."""
    table = tomllib.loads(pyproject_text).get("tool", {}).get("zorkgpt")
    keys = BudgetSettings.model_fields
    chosen = {k: v for k, v in table.items() if k in keys} if isinstance(table, dict) else {}
    try:
        return BudgetSettings.model_validate(chosen).budget()
    except ValidationError as e:
        raise ConfigurationError(
            f"{source} [tool.zorkgpt] budget settings are invalid:\n"
            f"{describe_validation_error(e)}\n"
            "budget_usd is a number of dollars above 0 (e.g. 2.5), budget_tokens a whole "
            "number of tokens, at least 1."
        ) from e
