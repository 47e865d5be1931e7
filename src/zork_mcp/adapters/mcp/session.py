"""One turn's connections to every configured server; tools are routed by `server.tool`."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from zork_mcp.domain.errors import MCPToolCallError
from zork_mcp.domain.servers.protocol_era import ServerProtocol
from zork_mcp.domain.tools.tool_judgment import ToolRejection
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolSpec, split_canonical_name


class ConnectedServer(Protocol):
    """One connected server as the session routes to it: a ServerSession, or an in-memory
    fake's, so that a fake runs this routing rather than a copy of it."""

    @property
    def name(self) -> str: ...

    @property
    def tools(self) -> Sequence[ToolSpec]: ...

    @property
    def rejected(self) -> Sequence[ToolRejection]: ...

    @property
    def protocol(self) -> ServerProtocol: ...

    @property
    def tool_names(self) -> Collection[str]: ...

    async def call(
        self, tool: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        """Call `tool` (its name on this server); raises as ToolSession.call_tool does."""
        ...


class McpSession:
    """A broken server stays broken for the rest of the session."""

    def __init__(self, servers: Sequence[ConnectedServer]) -> None:
        self._servers = {server.name: server for server in servers}
        self._tools = [spec for server in servers for spec in server.tools]
        self._rejected = [rejection for server in servers for rejection in server.rejected]
        self._protocols = [server.protocol for server in servers]

    @property
    def tools(self) -> Sequence[ToolSpec]:
        return self._tools

    @property
    def rejected(self) -> Sequence[ToolRejection]:
        return self._rejected

    @property
    def protocols(self) -> Sequence[ServerProtocol]:
        return self._protocols

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        server = self._route(name)
        return await server.call(split_canonical_name(name)[1], arguments, timeout_seconds)

    def _route(self, name: str) -> ConnectedServer:
        try:
            server_name, tool = split_canonical_name(name)
        except ValueError as e:
            raise MCPToolCallError(str(e)) from None
        server = self._servers.get(server_name)
        if server is None or tool not in server.tool_names:
            raise MCPToolCallError(f"unknown tool {name!r}; known: {sorted(self._all_names())}")
        return server

    def _all_names(self) -> list[str]:
        return [spec.canonical_name for spec in self._tools]
