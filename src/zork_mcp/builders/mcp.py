"""The MCP tools' builder: `mcp_tool_server`, the one assembly of every configured server
for the agent, a sweep worker's episodes and MCP-Ghost alike, from settings resolved once."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from zork_mcp.adapters.mcp.assembly import McpToolServer, ServerGroup
from zork_mcp.adapters.mcp.http.tool_server import McpHttpToolServer
from zork_mcp.adapters.mcp.stdio.start_plan import StartPlan, plan_starts
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer
from zork_mcp.adapters.posix.landlock import abi_version
from zork_mcp.adapters.posix.namespaces import namespaces_available
from zork_mcp.adapters.storage import own_files
from zork_mcp.builders.settings import RunOptions, chosen_servers
from zork_mcp.domain.facts.confinement_notices import sandbox_notices
from zork_mcp.domain.facts.events import Event, Level
from zork_mcp.domain.facts.notice_facts import ForkServerLost
from zork_mcp.domain.servers.server_config import AnyServerConfig, MCPConfig, by_transport
from zork_mcp.domain.servers.server_places import (
    EpisodePlaces,
    notes_keeper,
    placed_servers,
    uses_journal,
)
from zork_mcp.domain.settings import STDERR_LOG_BYTES, MCPSettings, ServerStart
from zork_mcp.ports.telemetry import Telemetry


@dataclass(frozen=True)
class ToolServerSettings:
    """What one assembly of MCP servers is built from: which servers, how their processes
    start (decided once, for the fork server and the tools), how long they may take, and
    for an episode, each server's folder there (`servers`, placed) and the folder where the
    episode's memory server keeps the agent's notes."""

    servers: Mapping[str, AnyServerConfig]
    plan: StartPlan
    startup_timeout: float | None  # None: each server's default (domain/servers/startup_timeout.py)
    background_spare: bool = False
    stderr_path: Path | None = None
    stderr_log_bytes: int = STDERR_LOG_BYTES
    sandbox: bool = True  # [tool.zorkgpt.mcp] sandbox: stdio servers confined
    notes_folder: Path | None = None


def notes_folder(settings: ToolServerSettings | None) -> Path | None:
    """Where the episode's memory server keeps the agent's notes (None: it has none)."""
    return settings.notes_folder if settings is not None else None


def start_plan(
    servers: Mapping[str, AnyServerConfig],
    server_start: ServerStart,
    *,
    shared: bool = False,
) -> StartPlan:
    """`shared`: fork from the fork server every run of this process shares (MCP-Ghost's
    calls, a sweep worker's episodes), not one of the tool server's own."""
    stdio, _ = by_transport(servers)
    plan = plan_starts(stdio, os.environ, server_start)
    return replace(plan, shared=shared)


def run_start_plan(settings: MCPSettings, config: MCPConfig | None) -> StartPlan | None:
    """How the run's stdio servers start (None with MCP off)."""
    if config is None:
        return None
    return start_plan(chosen_servers(config, settings), settings.server_start)


def shared_start_plan(settings: MCPSettings, config: MCPConfig | None) -> StartPlan | None:
    """The run's start plan in a process that plays many episodes at once (a sweep worker):
    the process's fork server, shared by all."""
    if config is None:
        return None
    servers = chosen_servers(config, settings)
    return start_plan(servers, settings.server_start, shared=True)


def run_tool_settings(
    options: RunOptions, settings: MCPSettings, config: MCPConfig | None, plan: StartPlan | None
) -> ToolServerSettings | None:
    """The agent's servers, or None with MCP off: each placed in the episode's folder (made
    here, before any starts: a confined server is granted only what exists), their stderr
    to the episode's log."""
    if config is None or plan is None:
        return None
    episode = options.episode_dir.absolute()
    places = EpisodePlaces(PurePosixPath(episode), PurePosixPath(Path.home()))
    chosen = chosen_servers(config, settings)
    keeper = notes_keeper(chosen)
    folders = {name: own_files.folder(Path(places.server_folder(name))) for name in chosen}
    if any(uses_journal(server) for server in chosen.values()):
        # made before they start: a Landlock rule on this one file needs it to exist
        own_files.touch(Path(places.journal))
    notes = folders[keeper] if keeper is not None else None
    return ToolServerSettings(
        placed_servers(chosen, places),
        plan,
        startup_timeout=settings.chosen_startup_timeout,
        background_spare=settings.background_spare,
        stderr_path=options.episode_dir / "mcp_servers.stderr.log",
        stderr_log_bytes=settings.stderr_log_bytes,
        sandbox=settings.sandbox,
        notes_folder=notes,
    )


@contextmanager
def agent_tool_server(
    settings: ToolServerSettings | None, telemetry: Telemetry
) -> Iterator[McpToolServer | None]:
    """The agent's tool server (None with MCP off): its spares started ahead, a lost fork
    server an event of the episode, and every process ended with the run."""
    if settings is None:
        yield None
        return
    for notice in confinement_notices(settings, abi_version()):
        telemetry.emit(notice)

    def warn(text: str) -> None:
        telemetry.emit(_lost(text))

    server = mcp_tool_server(settings, warn=warn, on_event=telemetry.emit)
    server.warm_up()
    try:
        yield server
    finally:
        server.close()


def confinement_notices(
    settings: ToolServerSettings, abi: int, namespaces: Callable[[], bool] = namespaces_available
) -> list[Event]:
    """What the episode's start says of its stdio servers' confinement, on a kernel with
    Landlock ABI `abi` (0: none) and with user namespaces or not (asked when a server is
    confined): off, or degraded, or nothing when all is enforced."""
    stdio, _ = by_transport(settings.servers)
    unconfined = [name for name, config in stdio.items() if config.sandbox is None]
    listed = [name for name, c in stdio.items() if c.sandbox and c.sandbox.hosts is not None]
    return sandbox_notices(
        enabled=settings.sandbox,
        unconfined_servers=unconfined,
        servers=list(stdio),
        abi=abi,
        host_listed=listed,
        namespaces=namespaces() if settings.sandbox and len(unconfined) < len(stdio) else True,
    )


def _lost(text: str) -> Event:
    return Event.about(ForkServerLost(), text, Level.WARNING)


def mcp_tool_server(
    settings: ToolServerSettings,
    warn: Callable[[str], object],
    on_event: Callable[[Event], object] | None = None,
) -> McpToolServer:
    """Every stdio server started as the start plan says (forked from the tool server's own
    fork server, or the process's), every HTTP server, one session over them all."""
    stdio, http = by_transport(settings.servers)
    groups: list[ServerGroup] = []
    if stdio:
        groups.append(
            McpStdioToolServer(
                stdio,
                settings.plan,
                startup_timeout_seconds=settings.startup_timeout,
                background_spare=settings.background_spare,
                stderr_path=settings.stderr_path,
                stderr_log_bytes=settings.stderr_log_bytes,
                warn=warn,
                sandbox=settings.sandbox,
                on_event=on_event,
            )
        )
    if http:
        remote = McpHttpToolServer(http, startup_timeout_seconds=settings.startup_timeout)
        groups.append(remote)
    return McpToolServer(groups, order=list(settings.servers))
