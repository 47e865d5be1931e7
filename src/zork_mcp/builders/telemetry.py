"""The Telemetry port's builder: an episode's events log or an MCP-Ghost call's logger, beside
the tracing back-ends the environment asks for (Langfuse, OTLP), from settings resolved once."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zork_mcp.adapters.telemetry.activity import ActivityTelemetry
from zork_mcp.adapters.telemetry.fanout import FanoutTelemetry
from zork_mcp.adapters.telemetry.jsonl import JsonlTelemetry
from zork_mcp.adapters.telemetry.logger import LoggingTelemetry
from zork_mcp.adapters.telemetry.trace_semantics import RunIdentity
from zork_mcp.builders.llm import LLMSettings
from zork_mcp.builders.settings import RunOptions
from zork_mcp.builders.tracing import tracing_backends
from zork_mcp.domain.facts.activity import ActivityWatch
from zork_mcp.domain.facts.mcp_state import McpState
from zork_mcp.domain.settings import MCPSettings
from zork_mcp.ports.telemetry import Telemetry


@dataclass(frozen=True)
class EpisodeLog:
    """An episode's events.jsonl (and its logs) in the episode's folder."""

    directory: Path
    episode_id: str


@dataclass(frozen=True)
class CallLog:
    """One call's records on a logger; its trace is one root span, opened with `input`."""

    logger: logging.Logger
    input: Any = None


@dataclass(frozen=True)
class TelemetrySettings:
    """Whose telemetry this is (the identity its traces carry), where it is kept locally, and
    for an episode, what its log says first of MCP."""

    identity: RunIdentity
    local: EpisodeLog | CallLog
    mcp: McpState | None = None


def episode_telemetry(options: RunOptions, settings: MCPSettings) -> TelemetrySettings:
    """The CLI's (and a sweep episode's): the episode's folder, its provider, model and seed."""
    mcp = "off"
    if settings.enabled:
        mcp = (options.mcp_config or Path(settings.config_file)).name
    identity = RunIdentity(options.model, options.episode_id, mcp, options.seed)
    log = EpisodeLog(options.episode_dir, options.episode_id)
    return TelemetrySettings(identity, log, mcp_state(options, settings))


def mcp_state(options: RunOptions, settings: MCPSettings) -> McpState:
    """MCP on, with the servers the pyproject (or --mcp-servers) picks, or off and why."""
    if settings.enabled:
        config = options.mcp_config or options.config.parent / settings.config_file
        return McpState(True, settings.servers or (), str(config))
    if options.mcp is False:
        why = "--no-mcp"
    elif options.config.is_file():
        why = f"{options.config} does not set [tool.zorkgpt.mcp] enabled = true"
    else:
        why = f"no {options.config} here"
    return McpState(False, off_because=why)


def call_telemetry(
    logger: logging.Logger, llm: LLMSettings, servers: Iterable[str], prompt: Any
) -> TelemetrySettings:
    """One mcp_ghost() call's: its logger, its provider and model, its servers."""
    identity = RunIdentity(llm.model, mcp_config=",".join(servers), name="mcp-ghost")
    return TelemetrySettings(identity, CallLog(logger, prompt))


@contextmanager
def telemetry(
    settings: TelemetrySettings, watch: ActivityWatch | None = None
) -> Iterator[Telemetry]:
    """The local log, plus Langfuse and/or OTLP when the environment asks; everything the
    back-ends hold is sent, and the local log closed, when this exits. With `watch`, what
    the episode is doing now is told to it too (the live display's, a sweep worker's)."""
    with _local(settings.local) as local, tracing_backends(settings.identity) as backends:
        if settings.mcp is not None:
            local.emit(settings.mcp.event())
        watched = [ActivityTelemetry(watch)] if watch is not None else []
        if not backends:
            yield FanoutTelemetry(local, *watched) if watched else local
            return
        traced = FanoutTelemetry(local, *backends, *watched)
        with _root_span(settings, traced):
            yield traced


@contextmanager
def _local(where: EpisodeLog | CallLog) -> Iterator[Telemetry]:
    if isinstance(where, CallLog):
        yield LoggingTelemetry(where.logger)
        return
    log = JsonlTelemetry(where.directory, where.episode_id)
    try:
        yield log
    finally:
        log.close()


def _root_span(settings: TelemetrySettings, telemetry: Telemetry) -> Any:
    """A call is one trace under one span; an episode's turns are its spans, with no root."""
    if isinstance(settings.local, CallLog):
        return telemetry.span(settings.identity.name, input=settings.local.input)
    return nullcontext()
