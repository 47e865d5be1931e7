"""What one mcp_ghost() call runs on, built by the same builders as the agent's episodes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from zork_mcp.builders.llm import LLMSettings, llm_session
from zork_mcp.builders.mcp import ToolServerSettings, mcp_tool_server, start_plan
from zork_mcp.builders.telemetry import call_telemetry, telemetry
from zork_mcp.domain.llm.messages import RetryStats
from zork_mcp.domain.servers.server_config import MCPConfig
from zork_mcp.domain.settings import ServerStart
from zork_mcp.domain.tools.tool_offer import OfferLimits
from zork_mcp.ports.llm import LLM
from zork_mcp.ports.telemetry import Telemetry
from zork_mcp.ports.tool_server import ToolServer


@dataclass(frozen=True)
class GhostCall:
    """One mcp_ghost() call's checked arguments: what its parts are built from."""

    config: MCPConfig
    llm: LLMSettings
    logger: logging.Logger
    http_client: httpx.AsyncClient | None
    startup_timeout: float | None  # None: each server's default
    server_start: ServerStart


@dataclass(frozen=True)
class GhostParts:
    config: MCPConfig
    telemetry: Telemetry
    llm: LLM
    tool_server: ToolServer
    offer: OfferLimits  # what one request to the call's provider may offer


def tool_settings(
    config: MCPConfig, *, startup_timeout: float | None, server_start: ServerStart
) -> ToolServerSettings:
    """Every server of one config, with no spare (a call is one session) and no stderr log;
    stdio ones forked from the fork server every call of this process shares."""
    plan = start_plan(config.mcpServers, server_start, shared=True)
    return ToolServerSettings(config.mcpServers, plan, startup_timeout)


@asynccontextmanager
async def ghost_parts(call: GhostCall, prompt: Any) -> AsyncIterator[GhostParts]:
    """Its trace, its LLM (over the caller's HTTP client, else one of its own), and every
    server of its config (`tool_settings`). All are closed when the call ends; the tool
    server off the event loop (closing waits for processes to end)."""
    async with AsyncExitStack() as stack:
        traced = call_telemetry(call.logger, call.llm, call.config.mcpServers, prompt)
        trace = stack.enter_context(telemetry(traced))
        session = llm_session(call.llm, RetryStats(), call.http_client)
        llm = await stack.enter_async_context(session())
        settings = tool_settings(
            call.config, startup_timeout=call.startup_timeout, server_start=call.server_start
        )
        tool_server = mcp_tool_server(settings, warn=call.logger.warning)
        stack.push_async_callback(asyncio.to_thread, tool_server.close)
        offer = call.llm.model.offer_limits()
        yield GhostParts(call.config, trace, llm, tool_server, offer)
