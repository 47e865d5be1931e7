"""The project's settings: `[tool.zorkgpt]` of a pyproject file and its `[tool.zorkgpt.mcp]`
table (requirements 2.4, 2.5, 13), read once into one typed object."""

from __future__ import annotations

import re
import tomllib
from difflib import get_close_matches
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from zork_mcp.domain.episode.history import HistoryMode, HistoryPolicy
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.llm.budget import Budget
from zork_mcp.domain.tools.tool_offer import DEFINITION_BUDGET_CHARS, ToolFilter

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

    enabled: StrictBool = False
    config_file: str = Field(default="mcp_config.json", min_length=1)
    max_tool_iterations: int = Field(default=20, ge=1)
    tool_call_timeout_seconds: float = Field(default=TOOL_TIMEOUT_SECONDS, gt=0)
    server_startup_timeout_seconds: float = Field(default=10, gt=0)
    max_tool_result_chars: int = Field(default=50_000, ge=1_000)
    max_tool_definition_chars: int = Field(default=DEFINITION_BUDGET_CHARS, ge=1_000)
    stderr_log_bytes: int = Field(default=STDERR_LOG_BYTES, ge=0)  # per server per episode
    tool_filters: dict[str, ToolFilterSettings] = Field(default_factory=dict)  # by server
    force_tool_support: StrictBool = False
    background_spare: StrictBool = True
    server_start: ServerStart = "auto"
    sandbox: StrictBool = (
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


class ProjectSettings(BaseModel):
    """`[tool.zorkgpt]` and its tables, read once: the story file, the death rule, what the
    agent sees of its past turns, what a run may spend, and the MCP settings
    (`[tool.zorkgpt.mcp]`). The table is ZorkGPT's too, so a key it does not know is left
    alone, unless it is a near miss of one it knows: a misspelt `budget_usd` must not leave a
    run without its budget (`[tool.zorkgpt.mcp]` refuses every key it does not know)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    mcp: MCPSettings = Field(default_factory=MCPSettings)
    game: str | None = Field(default=None, min_length=1)  # a known game's name, or a path
    max_score: int | None = Field(default=None, ge=1)  # an unknown game's most points
    end_at_first_death: StrictBool = False  # Jericho's rule; by default play on (Zork reincarnates)
    history: HistoryMode = HistoryMode.WINDOW
    history_turns: int = Field(default=HistoryPolicy.turns, ge=1)
    history_budget_tokens: int = Field(default=HistoryPolicy.budget_tokens, ge=0)
    budget_usd: float | None = Field(default=None, gt=0)  # a run's (or a sweep's) LLM spend
    budget_tokens: int | None = Field(default=None, ge=1)
    # Replies in a row the agent could not read (each played as `look`) that end the episode
    max_unreadable_replies: int = Field(default=5, ge=1)

    def history_policy(self) -> HistoryPolicy:
        return HistoryPolicy(self.history, self.history_turns, self.history_budget_tokens)

    def budget(self) -> Budget:
        return Budget(self.budget_usd, self.budget_tokens)


HINTS = {
    "history": 'history is "window", "full" or "state"',
    "history_turns": "history_turns is at least 1",
    "history_budget_tokens": "history_budget_tokens is at least 0",
    "budget_usd": "budget_usd is a number of dollars above 0 (e.g. 2.5)",
    "budget_tokens": "budget_tokens is a whole number of tokens, at least 1",
    "end_at_first_death": "end_at_first_death is true or false",
    "game": 'game is a known game\'s name ("zork1", "zork2", "zork3") or a story file\'s path',
    "max_score": "max_score is a whole number of points, at least 1 (an unknown game's maximum)",
    "max_unreadable_replies": (
        "max_unreadable_replies is a whole number of replies in a row, at least 1"
    ),
}


def parse_settings(pyproject_text: str, *, source: str) -> ProjectSettings:
    """`[tool.zorkgpt]` and its tables from pyproject text (missing: every default). A TOML
    or value error says the file, the line and the key, and what the key takes."""
    try:
        document = tomllib.loads(pyproject_text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigurationError(
            f"{source} is not valid TOML: {e}. Fix the syntax at that line and column."
        ) from e
    table = _table(document, ("tool", "zorkgpt"), source)
    if "mcp" in table:
        table = {**table, "mcp": _table(document, ("tool", "zorkgpt", "mcp"), source)}
    misspelt = _near_misses(table, pyproject_text, source)
    try:
        settings = ProjectSettings.model_validate(table)
    except ValidationError as e:
        raise ConfigurationError(_described(e, pyproject_text, source, misspelt)) from e
    if misspelt:
        raise ConfigurationError(_said(source, misspelt, []))
    return settings


def _near_misses(table: dict[str, Any], text: str, source: str) -> list[str]:
    """A line for each key of `[tool.zorkgpt]` it does not know that is close to one it does."""
    known = list(ProjectSettings.model_fields)
    lines = []
    for key in table:
        close = get_close_matches(key, known, n=1, cutoff=0.8) if key not in known else []
        if close:
            line = _line_of(text, "tool.zorkgpt", key)
            at = f"{source}:{line}" if line else source
            lines.append(f"  {at}: [tool.zorkgpt] {key}: not a key; did you mean {close[0]}?")
    return lines


def parse_mcp_settings(pyproject_text: str, *, source: str) -> MCPSettings:
    """`[tool.zorkgpt.mcp]` alone (as `parse_settings` reads it)."""
    return parse_settings(pyproject_text, source=source).mcp


def _table(document: dict[str, Any], path: tuple[str, ...], source: str) -> dict[str, Any]:
    node: Any = document
    for depth, key in enumerate(path, 1):
        node = node.get(key, {})
        if not isinstance(node, dict):
            name = ".".join(path[:depth])
            raise ConfigurationError(
                f"{source}: [{name}] must be a table, not {node!r}; the settings go in "
                f"[tool.zorkgpt] and the MCP settings in [{MCP_TABLE}]."
            )
    return node


def _described(error: ValidationError, text: str, source: str, also: list[str]) -> str:
    """One line per problem: `file:line: [table] key: what is wrong`, then what it takes."""
    lines, hints = [], []
    for problem in error.errors():
        where = [str(part) for part in problem["loc"]]
        table = ".".join(["tool", "zorkgpt", *where[:-1]]) if where else "tool.zorkgpt"
        key = where[-1] if where else ""
        if where[:1] == ["mcp"] and len(where) > 2:  # a tool filter's key
            table, key = ".".join(["tool", "zorkgpt", *where[:3]]), ".".join(where[3:])
        line = _line_of(text, table, key.split(".")[0]) if key else None
        at = f"{source}:{line}" if line else source
        lines.append(f"  {at}: [{table}] {key}: {problem['msg']}")
        if problem["type"] == "extra_forbidden":
            known = MCPSettings.model_fields if table == MCP_TABLE else ProjectSettings.model_fields
            hints.append(f"[{table}] takes: {', '.join(known)}")
        elif key in HINTS:
            hints.append(HINTS[key])
    return _said(source, [*also, *lines], hints)


def _said(source: str, lines: list[str], hints: list[str]) -> str:
    advice = "".join(f"\n{hint}." for hint in dict.fromkeys(hints))
    return (
        f"{source} has settings that cannot be used:\n"
        + "\n".join(lines)
        + advice
        + "\nFix or remove those keys."
    )


_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")


def _line_of(text: str, table: str, key: str) -> int | None:
    """The line (from 1) where `key = ...` is set in `[table]`, if written that plainly."""
    current = ""
    assignment = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            current = "".join(header.group(1).split()).replace('"', "").replace("'", "")
        elif current == table and assignment.match(line):
            return number
    return None
