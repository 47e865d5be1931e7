"""What the MCP SDK's errors mean for a ToolServer caller."""

from __future__ import annotations

from mcp.shared.exceptions import MCPError as SdkMCPError

REQUEST_TIMEOUT = -32001
CONNECTION_CLOSED = -32000
UNREADABLE = -32098  # our own: a transport got an answer it could not read (pipes.py)


def root_cause(error: BaseException) -> BaseException:
    """The single leaf of nested exception groups, or the error itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def closed_during_startup(error: BaseException) -> bool:
    """The SDK's way of saying the server went away before answering."""
    return isinstance(error, SdkMCPError) and error.code == CONNECTION_CLOSED


class UnreadableAnswerError(Exception):
    """A server's answer is not what its method returns: nothing in it can be judged."""


def unreadable(error: BaseException) -> bool:
    """A server's answer that no reader could make sense of (not a timeout, not a crash)."""
    if isinstance(error, UnreadableAnswerError):
        return True
    return isinstance(error, SdkMCPError) and error.code == UNREADABLE
