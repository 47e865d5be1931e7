"""One MCP server's connection over an SDK ClientSession, whatever carries its messages."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.exceptions import MCPError as SdkMCPError
from mcp.shared.message import SessionMessage

from zork_mcp.adapters.mcp.client_requests import answered, asks_for_input, roots_callback
from zork_mcp.adapters.mcp.client_session import ZorkClientSession
from zork_mcp.adapters.mcp.era import Eras
from zork_mcp.adapters.mcp.listing import Listing, list_tools
from zork_mcp.adapters.mcp.results import CallAnswer, read_answer, to_result, wraps_result
from zork_mcp.adapters.mcp.sdk_errors import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    TOO_LARGE,
    UNREADABLE,
)
from zork_mcp.domain.errors import (
    MCPSessionBrokenError,
    MCPToolCallError,
    MCPToolTimeoutError,
    ZorkMcpError,
)
from zork_mcp.domain.servers.protocol_era import ServerProtocol
from zork_mcp.domain.servers.roots import Root
from zork_mcp.domain.text.encoding import encodable_json
from zork_mcp.domain.tools.tool_offer import ALLOW_ALL, ToolFilter
from zork_mcp.domain.tools.tool_result import ToolCallResult

MESSAGE_CHARS = 500  # of a server's error message, in what the LLM reads


class ServerSession:
    """A connected server's tools and calls; once broken it stays broken."""

    def __init__(
        self, protocol: ServerProtocol, session: ZorkClientSession, listing: Listing
    ) -> None:
        self.name = protocol.server
        self.protocol = protocol
        self._session = session
        self.tools = listing.specs
        self.rejected = listing.rejected
        self.tool_names = {tool.name for tool in listing.tools}
        self._wrapped = {tool.name for tool in listing.tools if wraps_result(tool.output_schema)}
        self._broken: str | None = None

    async def call(
        self, tool: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        if self._broken:
            raise MCPSessionBrokenError(self._broken)
        canonical = f"{self.name}.{tool}"
        params = types.CallToolRequestParams(name=tool, arguments=encodable_json(dict(arguments)))
        deadline = anyio.current_time() + timeout_seconds
        try:
            answer = await self._session.send_unvalidated(
                types.CallToolRequest(params=params), timeout_seconds
            )
            if asks_for_input(answer):
                answer = await answered(self._session, params, answer, deadline, canonical)
        except SdkMCPError as e:
            raise self._translate(e, canonical, timeout_seconds) from e
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as e:
            raise self._broke(f"server '{self.name}' closed its connection") from e
        read = read_answer(answer)
        return await self._checked(tool, read) or to_result(read, tool in self._wrapped)

    async def _checked(self, tool: str, answer: CallAnswer) -> ToolCallResult | None:
        """A failure when structured content breaks the tool's output schema (the SDK's check,
        which MCP asks of clients), else None."""
        if answer.is_error:
            return None
        structured = {"structured_content": answer.structured} if answer.has_structured else {}
        result = types.CallToolResult(content=[], **structured)
        try:
            await self._session.validate_tool_result(tool, result)
        except RuntimeError as e:
            reason = str(e).splitlines()[0] if str(e) else type(e).__name__  # not jsonschema's dump
            return ToolCallResult.failure(f"{self.name}.{tool}: {_cut(reason)}")
        return None

    def _translate(self, error: SdkMCPError, tool: str, timeout: float) -> ZorkMcpError:
        if error.code == REQUEST_TIMEOUT:
            return MCPToolTimeoutError(tool, timeout)
        if error.code == CONNECTION_CLOSED:
            return self._broke(f"server '{self.name}' stopped: {error.error.message}")
        if error.code == UNREADABLE:
            return MCPToolCallError(f"{tool}: {_cut(error.error.message)}")
        if error.code == TOO_LARGE:
            return MCPToolCallError(f"{tool}: the server's answer is {_cut(error.error.message)}")
        return MCPToolCallError(f"{tool} was refused by the server: {_cut(error.error.message)}")

    def _broke(self, reason: str) -> MCPSessionBrokenError:
        self._broken = reason
        return MCPSessionBrokenError(reason)


def _cut(message: str) -> str:
    return message if len(message) <= MESSAGE_CHARS else message[:MESSAGE_CHARS] + " [cut]"


@asynccontextmanager
async def server_session(
    name: str,
    read: MemoryObjectReceiveStream[Any],
    write: MemoryObjectSendStream[SessionMessage],
    eras: Eras,
    tool_filter: ToolFilter = ALLOW_ALL,
    roots: Sequence[Root] = (),
) -> AsyncIterator[ServerSession]:
    """The era settled (initialize, or discover), then list_tools (property 8), over a
    transport's SDK streams; `roots` are what the client names to the server."""
    async with ZorkClientSession(read, write, list_roots_callback=roots_callback(roots)) as session:
        protocol = await eras.speak(name, session)
        yield ServerSession(protocol, session, await list_tools(session, name, tool_filter))
