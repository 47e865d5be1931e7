"""A ZorkAgent wired to a given LLM, for tests of the agent's synchronous boundary."""

from __future__ import annotations

from contextlib import asynccontextmanager

from zork_mcp.adapters.mcp.fake import FakeToolServer
from zork_mcp.adapters.telemetry.fake import FakeTelemetry
from zork_mcp.app.agent import ZorkAgent
from zork_mcp.domain.settings import MCPSettings
from zork_mcp.ports.llm import LLM
from zork_mcp.ports.telemetry import Telemetry


def agent_for(
    llm: LLM,
    *,
    settings: MCPSettings = MCPSettings(enabled=True),
    tool_server: FakeToolServer | None = None,
    telemetry: Telemetry | None = None,
) -> ZorkAgent:
    @asynccontextmanager
    async def session():
        yield llm

    return ZorkAgent(
        llm_session=session,
        settings=settings,
        telemetry=telemetry or FakeTelemetry(),
        system_prompt="You play Zork.",
        tool_server=tool_server,
    )
