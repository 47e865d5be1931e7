"""One turn's connections to every configured server; tools are routed by `server.tool`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zork_mcp.adapters.mcp.server_session import ServerSession
from zork_mcp.domain.errors import MCPToolCallError
from zork_mcp.domain.tool_judgment import ToolRejection
from zork_mcp.domain.tool_result import ToolCallResult
from zork_mcp.domain.tool_schema import ToolSpec, split_canonical_name


class McpSession:
    """A broken server stays broken for the rest of the session."""

    def __init__(self, servers: Sequence[ServerSession]) -> None:
        self._servers = {server.name: server for server in servers}
        self._tools = [spec for server in servers for spec in server.tools]
        self._rejected = [rejection for server in servers for rejection in server.rejected]

    @property
    def tools(self) -> Sequence[ToolSpec]:
        return self._tools

    @property
    def rejected(self) -> Sequence[ToolRejection]:
        return self._rejected

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        server = self._route(name)
        return await server.call(split_canonical_name(name)[1], arguments, timeout_seconds)

    def _route(self, name: str) -> ServerSession:
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
