"""The composition root: builders of the concrete parts, for the CLI's runs and for MCP-Ghost.

With app/providers.py (the LLM adapters) and app/tracing.py (the tracing back-ends), the
only place that names concrete adapters; import-linter keeps the rest of the app and
MCP-Ghost from naming one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import ssl
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import certifi
import httpx

from zork_mcp.adapters.game.jericho import JerichoGameEnv, find_game_file
from zork_mcp.adapters.llm.endpoint import RetryPolicy, rate_gate
from zork_mcp.adapters.mcp.assembly import McpToolServer, ServerGroup
from zork_mcp.adapters.mcp.http.tool_server import McpHttpToolServer
from zork_mcp.adapters.mcp.stdio.fork_owner import ForkServerOwner, StartPlan, plan_starts
from zork_mcp.adapters.mcp.stdio.stderr_log import STDERR_LOG_BYTES
from zork_mcp.adapters.mcp.stdio.tool_server import McpStdioToolServer
from zork_mcp.adapters.storage.checkpoint_file import FileCheckpoints
from zork_mcp.adapters.storage.sqlite_results import SqliteResultStore
from zork_mcp.adapters.telemetry.fanout import FanoutTelemetry
from zork_mcp.adapters.telemetry.jsonl import JsonlTelemetry, read_events
from zork_mcp.adapters.telemetry.logger import LoggingTelemetry
from zork_mcp.adapters.telemetry.trace_semantics import RunIdentity
from zork_mcp.app.agent import LLMSession
from zork_mcp.app.options import RunOptions
from zork_mcp.app.providers import PROVIDERS, OpenAIApi, required_key
from zork_mcp.app.tracing import traced_call, tracing_backends
from zork_mcp.domain.errors import ConfigurationError
from zork_mcp.domain.events import Event, EventType, Level, LoggedEvent
from zork_mcp.domain.messages import RetryStats
from zork_mcp.domain.server_config import (
    AnyServerConfig,
    MCPConfig,
    by_transport,
    missing_config_error,
    parse_mcp_config,
    with_tool_filters,
)
from zork_mcp.domain.settings import (
    MCPSettings,
    ServerStart,
    parse_end_at_first_death,
    parse_game_setting,
    parse_mcp_settings,
)
from zork_mcp.domain.tool_offer import OfferLimits
from zork_mcp.ports.checkpoints import Checkpoints
from zork_mcp.ports.llm import LLM
from zork_mcp.ports.result_store import ResultStore
from zork_mcp.ports.sweep_backend import EpisodePlayer, SweepBackend
from zork_mcp.ports.telemetry import Telemetry

HTTP_TIMEOUT = httpx.Timeout(120.0, connect=10.0)


def load_settings(options: RunOptions) -> MCPSettings:
    text = _pyproject_text(options)
    settings = parse_mcp_settings(text, source=str(options.config)) if text else MCPSettings()
    if options.mcp is not None:
        settings = settings.model_copy(update={"enabled": options.mcp})
    if options.mcp_servers is not None:
        settings = settings.model_copy(update={"servers": options.mcp_servers})
    return settings


def api_key(options: RunOptions, environ: Mapping[str, str] | None = None) -> str | None:
    return required_key(
        PROVIDERS[options.provider],
        os.environ if environ is None else environ,
        how="or play without a hosted provider: run a local OpenAI-compatible server "
        "(llama.cpp's llama-server, Ollama, vLLM) and pass "
        "--provider local --base-url http://127.0.0.1:8080/v1",
    )


def llm_session(options: RunOptions, key: str | None, stats: RetryStats) -> LLMSession:
    """A per-turn LLM: its httpx client lives inside the turn's event loop.

    The TLS context is built once per run; building it per client costs ~27 ms a turn. The
    retry policy is the run's: its counts, and the process's rate gate for the provider.
    """
    tls = ssl.create_default_context(cafile=certifi.where())
    provider = PROVIDERS[options.provider]
    gate = rate_gate(provider.name, options.base_url or provider.base_url)
    retry = RetryPolicy(gate=gate, stats=stats)

    @asynccontextmanager
    async def session() -> AsyncIterator[LLM]:
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT, verify=tls) as client:
            yield build_llm(options, client, key, retry)

    return session


def build_llm(
    options: RunOptions,
    client: httpx.AsyncClient,
    key: str | None,
    retry: RetryPolicy | None = None,
) -> LLM:
    return PROVIDERS[options.provider].llm(
        client,
        api_key=key,
        model=options.model,
        base_url=options.base_url,
        retry=retry,
        openai_api=options.openai_api,
    )


def mcp_config(options: RunOptions, settings: MCPSettings) -> MCPConfig | None:
    """The MCP config the run uses, or None with MCP off."""
    if not settings.enabled:
        return None
    path = options.mcp_config or (options.config.parent / settings.config_file)
    if not path.is_file():
        raise missing_config_error(str(path))
    return parse_mcp_config(path.read_text(encoding="utf-8"), source=str(path))


def chosen_servers(config: MCPConfig, settings: MCPSettings) -> dict[str, AnyServerConfig]:
    """The servers the run uses, each with the tool filter [tool.zorkgpt.mcp] adds to its own."""
    chosen = config.chosen(settings.servers, source="[tool.zorkgpt.mcp] servers (or --mcp-servers)")
    filters = {name: table.as_filter() for name, table in settings.tool_filters.items()}
    return with_tool_filters(chosen, filters, source="[tool.zorkgpt.mcp.tool_filters]")


def offer_limits(options: RunOptions, settings: MCPSettings) -> OfferLimits:
    """What one request may offer: the provider's documented tool limit and our budget."""
    return PROVIDERS[options.provider].offer_limits(settings.max_tool_definition_chars)


def run_start_plan(settings: MCPSettings, config: MCPConfig | None) -> StartPlan | None:
    """How the run's stdio servers start, decided once for the fork server and the tools."""
    if config is None:
        return None
    return start_plan(chosen_servers(config, settings), settings.server_start)


def run_fork_servers() -> Iterator[ForkServerOwner]:
    """The owner of the run's fork server (made only if the run forks a server), ended with
    the run."""
    owner = ForkServerOwner.for_run()
    try:
        yield owner
    finally:
        owner.close()


def tool_server(
    options: RunOptions,
    settings: MCPSettings,
    config: MCPConfig | None,
    plan: StartPlan | None,
    forks: ForkServerOwner,
    telemetry: Telemetry,
) -> Iterator[McpToolServer | None]:
    """The agent's MCP tool server over every chosen server, or None with MCP off."""
    if config is None or plan is None:
        yield None
        return
    server = mcp_tool_server(
        chosen_servers(config, settings),
        startup_timeout=settings.server_startup_timeout_seconds,
        background_spare=settings.background_spare,
        plan=plan,
        forks=forks,
        stderr_path=episode_dir(options) / "mcp_servers.stderr.log",
        stderr_log_bytes=settings.stderr_log_bytes,
        warn=lambda text: telemetry.emit(
            Event(EventType.MCP_FORK_SERVER_LOST, text, Level.WARNING)
        ),
    )
    server.warm_up()
    try:
        yield server
    finally:
        server.close()


def mcp_tool_server(
    servers: Mapping[str, AnyServerConfig],
    *,
    startup_timeout: float,
    background_spare: bool,
    plan: StartPlan,
    forks: ForkServerOwner,
    stderr_path: Path | None,
    warn: Callable[[str], object],
    stderr_log_bytes: int = STDERR_LOG_BYTES,
) -> McpToolServer:
    """The one assembly of MCP servers, for the agent and MCP-Ghost alike: every stdio
    server started as the start plan says (forked from the fork server `forks` gives), every
    HTTP server, one session over them all."""
    stdio, http = by_transport(servers)
    groups: list[ServerGroup] = []
    if stdio:
        groups.append(
            McpStdioToolServer(
                stdio,
                plan,
                forks,
                startup_timeout_seconds=startup_timeout,
                background_spare=background_spare,
                stderr_path=stderr_path,
                stderr_log_bytes=stderr_log_bytes,
                warn=warn,
            )
        )
    if http:
        groups.append(McpHttpToolServer(http, startup_timeout_seconds=startup_timeout))
    return McpToolServer(groups, order=list(servers))


def start_plan(servers: Mapping[str, AnyServerConfig], server_start: ServerStart) -> StartPlan:
    stdio, _ = by_transport(servers)
    return plan_starts(stdio, os.environ, server_start)


def game(options: RunOptions, telemetry: Telemetry) -> Iterator[JerichoGameEnv]:
    text = _pyproject_text(options)
    configured = parse_game_setting(text) if text else None
    env = JerichoGameEnv(
        find_game_file(options.game, configured=configured),
        seed=options.seed,
        allow_quit_restart=options.allow_quit_restart,
        end_at_first_death=end_at_first_death(options, text),
        on_event=telemetry.emit,
        forked=options.fork_game,
    )
    try:
        yield env
    finally:
        env.close()


def end_at_first_death(options: RunOptions, pyproject_text: str | None) -> bool:
    """--end-at-first-death, else `end_at_first_death` in [tool.zorkgpt], else play on."""
    if options.end_at_first_death is not None:
        return options.end_at_first_death
    if pyproject_text is None:
        return False
    return parse_end_at_first_death(pyproject_text, source=str(options.config))


def telemetry(options: RunOptions, settings: MCPSettings) -> Iterator[Telemetry]:
    """The episode's local logs, plus Langfuse and/or OTLP when the environment asks."""
    local = JsonlTelemetry(episode_dir(options), options.episode_id)
    try:
        with tracing_backends(run_identity(options, settings)) as backends:
            yield FanoutTelemetry(local, *backends) if backends else local
    finally:
        local.close()


def checkpoints(options: RunOptions) -> Checkpoints:
    return episode_checkpoints(episode_dir(options))


def episode_checkpoints(directory: Path) -> Checkpoints:
    """The checkpoints of the episode whose log folder this is."""
    return FileCheckpoints(directory)


def episode_dir(options: RunOptions) -> Path:
    return options.log_dir / options.episode_id


def run_identity(options: RunOptions, settings: MCPSettings) -> RunIdentity:
    mcp = "off"
    if settings.enabled:
        mcp = (options.mcp_config or Path(settings.config_file)).name
    return RunIdentity(options.provider, options.model_name, options.episode_id, mcp, options.seed)


def episode_events(directory: Path) -> list[LoggedEvent]:
    """An episode folder's events log, read by the adapter that writes it."""
    return read_events(directory)


def results_store(path: Path, *, existing: bool = False) -> ResultStore:
    """A sweep's results; `existing=True` refuses a path with no results yet."""
    return SqliteResultStore.existing(path) if existing else SqliteResultStore(path)


def local_sweep_backend(workers: int, per_worker: int, player: EpisodePlayer) -> SweepBackend:
    """A sweep's worker processes on this machine, each playing up to `per_worker` at once."""
    from zork_mcp.adapters.sweep.processes import ProcessSweepBackend

    return ProcessSweepBackend(workers, per_worker=per_worker, player=player)


def ray_sweep_backend(
    parallel: int, address: str | None, workers: int | None, player: EpisodePlayer
) -> SweepBackend:
    """A sweep's Ray actors, on the cluster at `address` (else a local Ray instance)."""
    from zork_mcp.adapters.sweep.ray_cluster import RaySweepBackend  # only a Ray sweep imports Ray

    return RaySweepBackend(parallel, address, workers, player=player)


def _pyproject_text(options: RunOptions) -> str | None:
    if options.config.is_file():
        return options.config.read_text(encoding="utf-8")
    if options.config != RunOptions.config:
        raise ConfigurationError(f"The config file {options.config} does not exist.")
    return None


# ---- MCP-Ghost ----------------------------------------------------------------------------


@dataclass(frozen=True)
class GhostCall:
    """One mcp_ghost() call's checked arguments: what its parts are built from."""

    config: MCPConfig
    provider: str
    api_key: str
    model: str | None
    base_url: str | None
    openai_api: OpenAIApi | None
    logger: logging.Logger
    http_client: httpx.AsyncClient | None
    startup_timeout: float
    server_start: ServerStart


@dataclass(frozen=True)
class GhostParts:
    config: MCPConfig
    telemetry: Telemetry
    llm: LLM
    tool_server: McpToolServer
    offer: OfferLimits  # what one request to the call's provider may offer


@asynccontextmanager
async def ghost_parts(
    call: GhostCall, forks: ForkServerOwner, prompt: Any
) -> AsyncIterator[GhostParts]:
    """What one call runs on: its trace, its LLM (over the caller's HTTP client, else one of
    its own), and every server of its config. All are closed when the call ends; the tool
    server off the event loop (closing waits for processes to end)."""
    async with AsyncExitStack() as stack:
        servers = call.config.mcpServers
        telemetry = stack.enter_context(
            ghost_trace(call.logger, call.provider, call.model, servers, prompt)
        )
        client = call.http_client or await stack.enter_async_context(
            httpx.AsyncClient(timeout=HTTP_TIMEOUT)
        )
        llm = ghost_llm(call, client)
        tool_server = ghost_tool_server(
            call.config,
            forks,
            startup_timeout=call.startup_timeout,
            server_start=call.server_start,
            warn=call.logger.warning,
        )
        stack.push_async_callback(asyncio.to_thread, tool_server.close)
        offer = PROVIDERS[call.provider].offer_limits()
        yield GhostParts(call.config, telemetry, llm, tool_server, offer)


def ghost_llm(call: GhostCall, client: httpx.AsyncClient) -> LLM:
    return PROVIDERS[call.provider].llm(
        client,
        api_key=call.api_key,
        model=call.model,
        base_url=call.base_url,
        openai_api=call.openai_api,
    )


@contextmanager
def ghost_trace(
    logger: logging.Logger, provider: str, model: str | None, servers: Iterable[str], prompt: Any
) -> Iterator[Telemetry]:
    """One mcp_ghost() call: its logger, plus Langfuse and/or OTLP when the environment asks."""
    model = model or PROVIDERS[provider].default_model
    identity = RunIdentity(provider, model, mcp_config=",".join(servers), name="mcp-ghost")
    with traced_call(LoggingTelemetry(logger), identity, input=prompt) as telemetry:
        yield telemetry


def ghost_tool_server(
    config: MCPConfig,
    forks: ForkServerOwner,
    *,
    startup_timeout: float,
    server_start: ServerStart,
    warn: Callable[[str], object],
) -> McpToolServer:
    """Every server of one config, through the agent's assembly; stdio ones are forked from
    the fork server `forks` gives (the one every call of this process shares), when the
    start plan forks any."""
    plan = start_plan(config.mcpServers, server_start)
    return mcp_tool_server(
        config.mcpServers,
        startup_timeout=startup_timeout,
        background_spare=False,
        plan=plan,
        forks=forks,
        stderr_path=None,
        warn=warn,
    )


def patient_start_plan(settings: MCPSettings, config: MCPConfig | None) -> StartPlan | None:
    """The run's start plan for a process that plays many episodes at once (a sweep
    worker): starts wait for the shared fork server, once, rather than all spawn."""
    plan = run_start_plan(settings, config)
    return replace(plan, patient=True) if plan is not None else None
