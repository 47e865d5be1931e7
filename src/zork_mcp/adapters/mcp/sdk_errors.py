"""What the MCP SDK's errors mean for a ToolServer caller."""

from __future__ import annotations

from mcp.shared.exceptions import MCPError as SdkMCPError

REQUEST_TIMEOUT = -32001
CONNECTION_CLOSED = -32000


def root_cause(error: BaseException) -> BaseException:
    """The single leaf of nested exception groups, or the error itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def closed_during_startup(error: BaseException) -> bool:
    """The SDK's way of saying the server went away before answering."""
    return isinstance(error, SdkMCPError) and error.code == CONNECTION_CLOSED
