"""A turn played over servers that fail to connect, for the connection properties."""

from __future__ import annotations

import asyncio
import time

from zork_mcp.adapters.llm.fake import ScriptedLLM, action_reply
from zork_mcp.domain.llm.messages import initial_messages
from zork_mcp.domain.loop.agent_turn import decide_action
from zork_mcp.domain.servers.connection import ServerConnections
from zork_mcp.domain.settings import MCPSettings


def ping() -> str:
    return "pong"


def play_turn(server, tracker, telemetry, turn):
    llm = ScriptedLLM([action_reply("look")])
    outcome = asyncio.run(
        decide_action(
            llm=llm,
            messages=initial_messages("s", "u"),
            settings=MCPSettings(enabled=True),
            telemetry=telemetry,
            clock=time.monotonic,
            tool_server=server,
            connection=ServerConnections({server.name: tracker}),
            turn=turn,
        )
    )
    return outcome, llm
