"""The app's index of builders: what `app/container.py` wires for one run.

Every part is built in zork_mcp.builders, one function per port, where MCP-Ghost and a
sweep worker's episodes get theirs too; the builders alone name concrete adapters.
"""

from __future__ import annotations

from zork_mcp.builders.game import episode_game, game_settings
from zork_mcp.builders.llm import llm_settings, metered_session, provider_session, spend_guard
from zork_mcp.builders.mcp import (
    agent_tool_server,
    notes_folder,
    run_start_plan,
    run_tool_settings,
    shared_start_plan,
)
from zork_mcp.builders.settings import (
    RunOptions,
    history_policy,
    load_settings,
    mcp_config,
)
from zork_mcp.builders.storage import (
    activity_file,
    checkpoints,
    episode_events,
    episode_folder,
    episode_journal,
    results_store,
)
from zork_mcp.builders.sweep import LocalWorkers, RayActors, sweep_backend
from zork_mcp.builders.telemetry import episode_telemetry, telemetry
from zork_mcp.domain.settings import MCPSettings
from zork_mcp.domain.tools.tool_offer import OfferLimits

__all__ = [
    "LocalWorkers",
    "RayActors",
    "activity_file",
    "agent_tool_server",
    "checkpoints",
    "episode_events",
    "episode_folder",
    "episode_game",
    "episode_journal",
    "episode_telemetry",
    "game_settings",
    "history_policy",
    "llm_settings",
    "load_settings",
    "mcp_config",
    "metered_session",
    "notes_folder",
    "offer_limits",
    "provider_session",
    "results_store",
    "run_start_plan",
    "run_tool_settings",
    "shared_start_plan",
    "spend_guard",
    "sweep_backend",
    "telemetry",
]


def offer_limits(options: RunOptions, settings: MCPSettings) -> OfferLimits:
    """What one request may offer: the provider's documented tool limit and our budget."""
    return options.model.offer_limits(settings.max_tool_definition_chars)
