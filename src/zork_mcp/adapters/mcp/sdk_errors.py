"""What the MCP SDK's errors mean for a ToolServer caller."""

from __future__ import annotations

from mcp.shared.exceptions import MCPError as SdkMCPError

REQUEST_TIMEOUT = -32001
CONNECTION_CLOSED = -32000
UNREADABLE = -32098  # our own: a transport got an answer it could not read (pipes.py)
TOO_LARGE = -32097  # our own: an answer over the stdio limit for one line (stdio/line_limit.py)


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


class AnswerTooLargeError(Exception):
    """A server's answer over a transport's limit for one message: it was never read."""


def too_large(error: BaseException) -> bool:
    """A server's answer too large to read: its message says how large and the limit."""
    if isinstance(error, AnswerTooLargeError):
        return True
    return isinstance(error, SdkMCPError) and error.code == TOO_LARGE
