"""One config's stdio and HTTP servers as one ToolServer (MCP-Ghost mixes them)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Protocol

from zork_mcp.domain.errors import MCPToolCallError
from zork_mcp.domain.server_config import AnyServerConfig, MCPHttpServerConfig, MCPServerConfig
from zork_mcp.domain.tool_result import ToolCallResult
from zork_mcp.domain.tool_schema import ToolSpec, split_canonical_name
from zork_mcp.ports.tool_server import ToolServer, ToolSession


class ClosableToolServer(ToolServer, Protocol):
    def close(self) -> None: ...


def by_transport(
    servers: Mapping[str, AnyServerConfig],
) -> tuple[dict[str, MCPServerConfig], dict[str, MCPHttpServerConfig]]:
    """(stdio servers, HTTP servers), each in config order."""
    stdio = {n: c for n, c in servers.items() if isinstance(c, MCPServerConfig)}
    http = {n: c for n, c in servers.items() if isinstance(c, MCPHttpServerConfig)}
    return stdio, http


class MixedToolServer:
    """Opens a session on every part per session; a tool goes to the part that listed it."""

    def __init__(self, parts: Sequence[ClosableToolServer]) -> None:
        self._parts = list(parts)

    @asynccontextmanager
    async def open_session(self) -> AsyncIterator[MixedSession]:
        async with AsyncExitStack() as stack:
            sessions = [await stack.enter_async_context(p.open_session()) for p in self._parts]
            yield MixedSession(sessions)

    def close(self) -> None:
        for part in self._parts:
            part.close()


class MixedSession:
    def __init__(self, sessions: Sequence[ToolSession]) -> None:
        self._tools = [spec for session in sessions for spec in session.tools]
        self._owner = {spec.server: session for session in sessions for spec in session.tools}

    @property
    def tools(self) -> Sequence[ToolSpec]:
        return self._tools

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        try:
            server, _ = split_canonical_name(name)
        except ValueError as e:
            raise MCPToolCallError(str(e)) from None
        session = self._owner.get(server)
        if session is None:
            known = sorted(spec.canonical_name for spec in self._tools)
            raise MCPToolCallError(f"unknown tool {name!r}; known: {known}")
        return await session.call_tool(name, arguments, timeout_seconds)


def combined(parts: Sequence[ClosableToolServer]) -> ClosableToolServer:
    """The only part, or every part mixed."""
    return parts[0] if len(parts) == 1 else MixedToolServer(parts)
