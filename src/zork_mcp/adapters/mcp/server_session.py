"""One MCP server's connection over an SDK ClientSession, whatever carries its messages."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.exceptions import MCPError as SdkMCPError
from mcp.shared.message import SessionMessage

from zork_mcp.adapters.mcp.client_session import ZorkClientSession
from zork_mcp.adapters.mcp.results import to_result, to_spec, wraps_result
from zork_mcp.adapters.mcp.sdk_errors import CONNECTION_CLOSED, REQUEST_TIMEOUT
from zork_mcp.domain.errors import (
    MCPSessionBrokenError,
    MCPToolCallError,
    MCPToolTimeoutError,
    ZorkMcpError,
)
from zork_mcp.domain.text_encoding import encodable_json
from zork_mcp.domain.tool_result import ToolCallResult


class ServerSession:
    """A connected server's tools and calls; once broken it stays broken."""

    def __init__(
        self, name: str, session: ZorkClientSession, listed: types.ListToolsResult
    ) -> None:
        self.name = name
        self._session = session
        self.tools = [to_spec(name, tool) for tool in listed.tools]
        self.tool_names = {tool.name for tool in listed.tools}
        self._wrapped = {tool.name for tool in listed.tools if wraps_result(tool.output_schema)}
        self._broken: str | None = None

    async def call(
        self, tool: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        if self._broken:
            raise MCPSessionBrokenError(self._broken)
        canonical = f"{self.name}.{tool}"
        try:
            result = await self._session.call_tool(
                tool, encodable_json(dict(arguments)), read_timeout_seconds=timeout_seconds
            )
        except SdkMCPError as e:
            raise self._translate(e, canonical, timeout_seconds) from e
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as e:
            raise self._broke(f"server '{self.name}' closed its connection") from e
        return to_result(result, tool in self._wrapped)

    def _translate(self, error: SdkMCPError, tool: str, timeout: float) -> ZorkMcpError:
        if error.code == REQUEST_TIMEOUT:
            return MCPToolTimeoutError(tool, timeout)
        if error.code == CONNECTION_CLOSED:
            return self._broke(f"server '{self.name}' stopped: {error.error.message}")
        return MCPToolCallError(f"{tool} was refused by the server: {error.error.message}")

    def _broke(self, reason: str) -> MCPSessionBrokenError:
        self._broken = reason
        return MCPSessionBrokenError(reason)


@asynccontextmanager
async def server_session(
    name: str,
    read: MemoryObjectReceiveStream[Any],
    write: MemoryObjectSendStream[SessionMessage],
) -> AsyncIterator[ServerSession]:
    """initialize, then list_tools (property 8), over a transport's SDK streams."""
    async with ZorkClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        yield ServerSession(name, session, listed)
