"""What failed when a server did not start, and what the user can do about it."""

from __future__ import annotations

from pathlib import Path

from zork_mcp.adapters.mcp.sdk_errors import (
    AnswerTooLargeError,
    closed_during_startup,
    too_large,
    unreadable,
)
from zork_mcp.adapters.mcp.stdio.line_limit import LINE_LIMIT
from zork_mcp.domain.servers.server_config import MCPServerConfig


def startup_message(
    name: str,
    config: MCPServerConfig,
    cause: BaseException,
    timeout: float | None,
    stderr_path: Path | None,
) -> str:
    """What failed, the command line, why, and what to do about it (requirement 14.4, 14.5)."""
    return (
        f"Failed to start MCP server '{name}': {_describe(cause, timeout)}\n"
        f"Command: {config.command_line()}\n"
        f"{_advice(config.command, cause, stderr_path)}"
    )


def _describe(cause: BaseException, timeout: float | None) -> str:
    if isinstance(cause, FileNotFoundError):
        return "the command was not found"
    if isinstance(cause, TimeoutError):
        return f"it did not finish the MCP handshake within {timeout:g}s"
    if closed_during_startup(cause):
        return "it exited during startup"
    if too_large(cause):
        return str(cause) if isinstance(cause, AnswerTooLargeError) else f"its answer is {cause}"
    if unreadable(cause):
        return f"its answer could not be read ({cause})"
    return f"{type(cause).__name__}: {cause}"


def _advice(command: str, cause: BaseException, stderr_path: Path | None) -> str:
    where = f"Its stderr is logged in {stderr_path}." if stderr_path else ""
    base = Path(command).name
    if isinstance(cause, FileNotFoundError) and base in ("npx", "node", "npm"):
        return f"Install Node.js 20 or newer (it provides {base}) and make sure it is on PATH."
    if isinstance(cause, FileNotFoundError) and base in ("uvx", "uv"):
        return "Install uv (`pip install uv`) or point the config at the server's own command."
    if isinstance(cause, FileNotFoundError):
        return (
            f"Install the program that provides '{command}' (for a Python server: "
            f"`pip install <package>` in this environment), or fix 'command' in the config."
        )
    if too_large(cause):
        return (
            f"No line a server writes may be over {LINE_LIMIT:,} bytes; the limit is fixed. A "
            f"server with that many tools should page its tools/list (nextCursor): tell its "
            f"authors, or leave it out of the config. {where}"
        ).strip()
    if unreadable(cause):
        return f"The server does not follow the MCP specification: tell its authors. {where}"
    if isinstance(cause, TimeoutError):
        return (
            f"Check that the command starts an MCP stdio server, or raise "
            f"server_startup_timeout_seconds in [tool.zorkgpt.mcp]. {where}"
        ).strip()
    return f"Check that the command runs on its own in a terminal. {where}".strip()
