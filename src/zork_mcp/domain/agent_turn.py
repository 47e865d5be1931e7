"""One agent turn: connect the tool server (with the episode's retry policy), run the loop.

The session lives inside this coroutine from connect to disconnect, so it is opened and
closed in one asyncio task, and it is closed whatever the loop does (requirements 3.1, 3.5).
"""

from __future__ import annotations

from contextlib import AsyncExitStack

from zork_mcp.domain.agent_response import ParsedAnswer
from zork_mcp.domain.connection import ConnectionState, ConnectionTracker, ConnectResult, Directive
from zork_mcp.domain.errors import MCPError, MCPServerStartupError
from zork_mcp.domain.events import SESSION_SPAN, Event, EventType, Level
from zork_mcp.domain.loop_policy import LoopLimits
from zork_mcp.domain.loop_records import LoopOutcome
from zork_mcp.domain.messages import Message
from zork_mcp.domain.model_support import ensure_tool_support
from zork_mcp.domain.settings import MCPSettings
from zork_mcp.domain.tool_loop import Clock, ToolLoop
from zork_mcp.ports.llm import LLM
from zork_mcp.ports.telemetry import Telemetry
from zork_mcp.ports.tool_server import ToolServer, ToolSession


async def decide_action(
    *,
    llm: LLM,
    messages: list[Message],
    settings: MCPSettings,
    telemetry: Telemetry,
    clock: Clock,
    tool_server: ToolServer | None = None,
    connection: ConnectionTracker | None = None,
    turn: int = 0,
) -> LoopOutcome[ParsedAnswer]:
    """Decide one game command, with tools when a server is given and still allowed."""
    limits = LoopLimits(
        settings.max_tool_iterations,
        settings.tool_call_timeout_seconds,
        settings.max_tool_result_chars,
    )
    tracker = connection or ConnectionTracker()
    metadata = {
        "mcp_enabled": tool_server is not None,
        "max_iterations": limits.max_iterations,
        "turn": turn,
    }
    state = messages[-1] if messages else None  # what the agent was shown this turn
    with telemetry.span(SESSION_SPAN, input=state, metadata=metadata) as span:
        async with AsyncExitStack() as stack:
            session = None
            if tool_server is not None and tracker.may_connect:
                ensure_tool_support(llm.model, force=settings.force_tool_support)
                session = await connect_tools(tool_server, tracker, stack, telemetry, turn)
            outcome = await ToolLoop(llm, session, limits, telemetry, clock, turn).run(messages)
        action = outcome.answer.response.action
        span.update(
            output=action,
            metadata={
                "iterations_used": outcome.iterations,
                "tools_called": len(outcome.tool_chain),
                "final_action": action,
                "tools_offered": session is not None,
            },
        )
    return outcome


async def connect_tools(
    server: ToolServer,
    tracker: ConnectionTracker,
    stack: AsyncExitStack,
    telemetry: Telemetry,
    turn: int,
) -> ToolSession | None:
    """Open this turn's session under the episode's policy; None means go on without tools."""
    while True:
        try:
            session = await stack.enter_async_context(server.open_session())
        except MCPError as error:
            directive = tracker.record(ConnectResult.FAILED)
            if directive is Directive.RETRY:
                _warn(
                    telemetry,
                    EventType.MCP_CONNECT_RETRY,
                    f"MCP session connect failed, retrying: {error}",
                    turn,
                    error,
                )
                continue
            if directive is Directive.RAISE_STARTUP_ERROR:
                raise _as_startup_error(error) from error
            _warn(
                telemetry,
                EventType.MCP_DISABLED_FALLBACK,
                f"MCP retry failed, disabling MCP for episode: {error}",
                turn,
                error,
            )
            return None
        _record_success(tracker, telemetry, turn)
        return session


def _record_success(tracker: ConnectionTracker, telemetry: Telemetry, turn: int) -> None:
    was_retry = tracker.state is ConnectionState.RETRYING
    tracker.record(ConnectResult.SUCCEEDED)
    if was_retry:
        telemetry.emit(
            Event(
                EventType.MCP_CONNECT_RETRY_SUCCEEDED,
                "MCP session retry successful",
                Level.INFO,
                {"turn": turn},
            )
        )


def _warn(telemetry: Telemetry, kind: EventType, message: str, turn: int, error: Exception) -> None:
    telemetry.emit(Event(kind, message, Level.WARNING, {"turn": turn, "error": str(error)}))


def _as_startup_error(error: MCPError) -> MCPServerStartupError:
    if isinstance(error, MCPServerStartupError):
        return error
    return MCPServerStartupError(f"MCP server failed to start on the first turn: {error}")
