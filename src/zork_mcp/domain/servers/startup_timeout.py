"""How long an MCP server may take to start (spawn, handshake, tool list): the configured
`server_startup_timeout_seconds` when set, else 10 s, or 60 s for a package launcher
(`npx`, `uvx`, …), whose first run downloads the server before it can answer."""

from __future__ import annotations

from pathlib import PurePath

STARTUP_SECONDS = 10.0
LAUNCHER_STARTUP_SECONDS = 60.0  # a first `npx` run of two servers took 9 s on a fast link
LAUNCHERS = frozenset({"npx", "uvx", "bunx", "pnpx", "pipx"})
LAUNCHING_VERBS = {"npm": "exec", "pnpm": "dlx", "uv": "tool"}  # `npm exec pkg`…


def is_launcher(command: str, args: tuple[str, ...] = ()) -> bool:
    """A command that may fetch the server first: `npx pkg`, `uvx pkg`, `npm exec pkg`…"""
    base = PurePath(command).name
    return base in LAUNCHERS or (base in LAUNCHING_VERBS and args[:1] == (LAUNCHING_VERBS[base],))


def startup_timeout(
    configured: float | None, command: str | None = None, args: tuple[str, ...] = ()
) -> float:
    """`configured` when the user set one; else the default for this server's `command`
    (None: a remote server, already running)."""
    if configured is not None:
        return configured
    if command is not None and is_launcher(command, args):
        return LAUNCHER_STARTUP_SECONDS
    return STARTUP_SECONDS
