"""A cell's set-up in words, as its report names it: what the agent is shown of its past
turns, and which MCP servers (from which config file) and which of their tools it is offered."""

from __future__ import annotations

from collections.abc import Mapping

from zork_mcp.domain.episode.history import HistoryPolicy
from zork_mcp.domain.servers.server_config import ToolChoice


def setup_words(
    history: HistoryPolicy, config: str | None, servers: Mapping[str, ToolChoice]
) -> str:
    """E.g. `history window: 30 turns within 8000 tokens; MCP memory.json: memory (add_note,
    read_notes)`; `config` is the MCP config file's name, None with MCP off."""
    return f"history {history.describe()}; {mcp_words(config, servers)}"


def mcp_words(config: str | None, servers: Mapping[str, ToolChoice]) -> str:
    if config is None:
        return "no MCP"
    offered = " + ".join(server_words(name, choice) for name, choice in servers.items())
    return f"MCP {config}: {offered or 'no server'}"


def server_words(name: str, choice: ToolChoice) -> str:
    """A server with the tools its filter offers (`includeTools`, `excludeTools` globs)."""
    include, exclude = choice.include_tools, choice.exclude_tools
    if include is None and not exclude:
        return name
    shown = "all tools" if include is None else ", ".join(include) or "no tools"
    if exclude:
        shown += f" but {', '.join(exclude)}"
    return f"{name} ({shown})"
