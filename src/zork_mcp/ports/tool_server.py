"""The ToolServer port: a per-turn session with tools the agent may call."""

from collections.abc import Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from zork_mcp.domain.servers.protocol_era import ServerProtocol
from zork_mcp.domain.tools.tool_judgment import ToolRejection
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolSpec


class ToolSession(Protocol):
    @property
    def tools(self) -> Sequence[ToolSpec]:
        """The tools discovered after the handshake that can be offered, in server order."""
        ...

    @property
    def rejected(self) -> Sequence[ToolRejection]:
        """The tools the servers listed that cannot be offered, each with its reason."""
        ...

    @property
    def protocols(self) -> Sequence[ServerProtocol]:
        """The protocol version each connected server is spoken to in, in server order."""
        ...

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        """Call the tool with canonical name `server.tool`.

        Returns the tool's result, with is_error=True when the tool itself failed.
        Raises MCPToolTimeoutError on timeout (the session stays usable),
        MCPSessionBrokenError when the server is gone, MCPToolCallError otherwise.
        """
        ...


class ToolServer(Protocol):
    @property
    def server_names(self) -> Sequence[str]:
        """The configured servers, in config order."""
        ...

    def open_session(
        self, servers: Collection[str] | None = None
    ) -> AbstractAsyncContextManager[ToolSession]:
        """Connect (spawn, settle the era, list tools) to `servers` (default: all) on enter;
        disconnect and reap on exit.

        Raises MCPServerStartupError from enter when any of them cannot be reached, after
        trying them all; its `servers` names every one that failed.
        Enter and exit must happen in the same asyncio task.
        """
        ...
