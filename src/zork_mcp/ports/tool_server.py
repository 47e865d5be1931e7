"""The ToolServer port: a per-turn session with tools the agent may call."""

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from zork_mcp.domain.tool_result import ToolCallResult
from zork_mcp.domain.tool_schema import ToolSpec


class ToolSession(Protocol):
    @property
    def tools(self) -> Sequence[ToolSpec]:
        """The tools discovered after the handshake, in server order."""
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
    def open_session(self) -> AbstractAsyncContextManager[ToolSession]:
        """Connect (spawn, initialize, list tools) on enter; disconnect and reap on exit.

        Raises MCPServerStartupError from enter when the server cannot be reached.
        Enter and exit must happen in the same asyncio task.
        """
        ...
