"""One agent turn: connect the tool servers (each under the episode's retry policy), run the loop.

The session lives inside this coroutine from connect to disconnect, so it is opened and
closed in one asyncio task, and it is closed whatever the loop does (requirements 3.1, 3.5).
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

from zork_mcp.domain.errors import MCPError, MCPServerStartupError
from zork_mcp.domain.facts.events import SESSION_SPAN, Event, Level
from zork_mcp.domain.facts.loop_facts import EventPlace, LoopFact
from zork_mcp.domain.facts.notice_facts import ConnectRecovered, ConnectRetried, ServerDisabled
from zork_mcp.domain.facts.span_facts import TurnDecided, TurnOpened
from zork_mcp.domain.llm.messages import Message
from zork_mcp.domain.loop.agent_response import ParsedAnswer
from zork_mcp.domain.loop.loop_policy import LoopLimits
from zork_mcp.domain.loop.loop_records import LoopOutcome
from zork_mcp.domain.loop.tool_loop import Clock, ToolLoop
from zork_mcp.domain.servers.connection import (
    ConnectionState,
    ConnectResult,
    Directive,
    ServerConnections,
)
from zork_mcp.domain.settings import MCPSettings
from zork_mcp.domain.tools.model_support import refuse_without_tools
from zork_mcp.domain.tools.tool_offer import OfferLimits, ToolNotices

if TYPE_CHECKING:  # a port is a Protocol: the domain names it, never needs it at run time
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
    connection: ServerConnections | None = None,
    turn: int = 0,
    offer: OfferLimits | None = None,
    notices: ToolNotices | None = None,
) -> LoopOutcome[ParsedAnswer]:
    """Decide one game command, with tools when a server is given and still allowed.

    `offer`: the provider's limits on what a request offers; `notices`: what the episode
    has said of its tools already."""
    limits = LoopLimits(
        settings.max_tool_iterations,
        settings.tool_call_timeout_seconds,
        settings.max_tool_result_chars,
        offer=offer or OfferLimits(definition_budget_chars=settings.max_tool_definition_chars),
    )
    connections = connection if connection is not None else ServerConnections()
    facts = TurnOpened(
        mcp_enabled=tool_server is not None, max_iterations=limits.max_iterations, turn=turn
    )
    state = messages[-1] if messages else None  # what the agent was shown this turn
    with telemetry.span(SESSION_SPAN, input=state, facts=facts) as span:
        async with AsyncExitStack() as stack:
            session = None
            if tool_server is not None and connections.connectable(tool_server.server_names):
                refused, force = limits.offer.refused_tools, settings.force_tool_support
                refuse_without_tools(llm.model, refused, force=force)
                session = await connect_tools(tool_server, connections, stack, telemetry, turn)
            loop = ToolLoop(llm, session, limits, telemetry, clock, turn, notices=notices)
            outcome = await loop.run(messages)
        action = outcome.answer.response.action
        span.update(
            output=action,
            facts=TurnDecided(
                iterations_used=outcome.iterations,
                tools_called=len(outcome.tool_chain),
                final_action=action,
                tools_offered=session is not None,
            ),
        )
    return outcome


async def connect_tools(
    server: ToolServer,
    connections: ServerConnections,
    stack: AsyncExitStack,
    telemetry: Telemetry,
    turn: int,
) -> ToolSession | None:
    """Open this turn's session on every server still allowed, each under its own policy:
    a failed server is retried once (with the others) or disabled alone; None means no
    server is left this turn, and the turn goes on without tools."""
    wanted = connections.connectable(server.server_names)
    while wanted:
        try:
            session = await stack.enter_async_context(server.open_session(wanted))
        except MCPError as error:
            wanted = _after_failure(error, wanted, connections, telemetry, turn)
            continue
        _record_success(wanted, connections, telemetry, turn)
        return session
    return None


def _after_failure(
    error: MCPError,
    wanted: list[str],
    connections: ServerConnections,
    telemetry: Telemetry,
    turn: int,
) -> list[str]:
    """The servers to try again now; raises on a first-turn failure."""
    named = error.servers if isinstance(error, MCPServerStartupError) else ()
    failed = [name for name in wanted if name in named] or wanted
    directives = {name: connections[name].record(ConnectResult.FAILED) for name in failed}
    if Directive.RAISE_STARTUP_ERROR in directives.values():
        raise _as_startup_error(error, failed) from error
    for name, directive in directives.items():
        if directive is Directive.CONTINUE_WITHOUT_TOOLS:
            fact: LoopFact = ServerDisabled(name, str(error))
            text = f"MCP retry failed, disabling MCP server '{name}': {error}"
        else:
            fact, text = (
                ConnectRetried(name, str(error)),
                f"MCP connect failed, retrying server '{name}': {error}",
            )
        telemetry.emit(Event.about(fact, text, Level.WARNING, EventPlace(turn=turn).fields()))
    return [name for name in wanted if connections[name].may_connect]


def _record_success(
    servers: list[str], connections: ServerConnections, telemetry: Telemetry, turn: int
) -> None:
    for name in servers:
        was_retry = connections[name].state is ConnectionState.RETRYING
        connections[name].record(ConnectResult.SUCCEEDED)
        if was_retry:
            text = f"MCP server '{name}' retry successful"
            place = EventPlace(turn=turn).fields()
            telemetry.emit(Event.about(ConnectRecovered(name), text, Level.INFO, place))


def _as_startup_error(error: MCPError, failed: list[str]) -> MCPServerStartupError:
    if isinstance(error, MCPServerStartupError):
        return error
    return MCPServerStartupError(
        f"MCP server failed to start on the first turn: {error}", servers=tuple(failed)
    )
