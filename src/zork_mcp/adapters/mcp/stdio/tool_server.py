"""The ToolServer port over MCP stdio servers.

Every session talks to processes no earlier session used (requirement 3). A spare warms
up (imports, starts) while the current turn runs, so the next turn only pays for the
handshake. A used process is retired in a background thread.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import weakref
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from zork_mcp.adapters.mcp.sdk_errors import root_cause
from zork_mcp.adapters.mcp.server_session import ServerSession, server_session
from zork_mcp.adapters.mcp.session import McpSession
from zork_mcp.adapters.mcp.stdio.pipes import pipe_streams
from zork_mcp.adapters.mcp.stdio.process_supply import ProcessSupply
from zork_mcp.adapters.mcp.stdio.reaper import ProcessReaper
from zork_mcp.adapters.mcp.stdio.stderr_log import StderrLog
from zork_mcp.domain.server_config import MCPServerConfig


class McpStdioToolServer:
    """Connects to every configured server per session; tools are routed by `server.tool`."""

    def __init__(
        self,
        servers: Mapping[str, MCPServerConfig],
        *,
        startup_timeout_seconds: float = 10.0,
        background_spare: bool = True,
        stderr_path: Path | None = None,
        system_env: Mapping[str, str] | None = None,
    ) -> None:
        if not servers:
            raise ValueError("McpStdioToolServer needs at least one server")
        self._startup_timeout = startup_timeout_seconds
        self._reaper = ProcessReaper()
        self._stderr = StderrLog(stderr_path)
        env = os.environ if system_env is None else system_env
        self._supplies = [
            ProcessSupply(name, config, env, self._stderr, self._reaper, background_spare)
            for name, config in servers.items()
        ]
        # Runs on close(), on garbage collection, or at interpreter exit, whichever is first.
        self._shutdown = weakref.finalize(
            self, _shut_down, self._supplies, self._reaper, self._stderr
        )

    def warm_up(self) -> None:
        """Start each server's spare now, so even the first session only pays the handshake."""
        for supply in self._supplies:
            supply.warm_up()

    @asynccontextmanager
    async def open_session(self) -> AsyncIterator[McpSession]:
        async with AsyncExitStack() as stack:
            connected = [await self._connect(stack, supply) for supply in self._supplies]
            yield McpSession(connected)

    async def _connect(self, stack: AsyncExitStack, supply: ProcessSupply) -> ServerSession:
        process = supply.take()
        stack.callback(self._reaper.retire, process)
        handshake = _handshake(supply.name, process, self._stderr)
        try:
            async with asyncio.timeout(self._startup_timeout):
                return await stack.enter_async_context(handshake)
        except Exception as error:
            raise supply.startup_error(root_cause(error), self._startup_timeout) from error

    def close(self) -> None:
        """Retire every spare and wait for every process to be gone. Safe to call twice."""
        self._shutdown()

    def __enter__(self) -> McpStdioToolServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def live_processes(self) -> int:
        """Server processes started and still running (spares included)."""
        return sum(supply.live for supply in self._supplies)

    @property
    def spawned_pids(self) -> list[int]:
        """Every process this server ever started; each leads its own process group."""
        return [pid for supply in self._supplies for pid in supply.pids]


def _shut_down(supplies: list[ProcessSupply], reaper: ProcessReaper, stderr: StderrLog) -> None:
    for supply in supplies:
        supply.close()
    reaper.join()
    stderr.close()


@asynccontextmanager
async def _handshake(
    name: str, process: subprocess.Popen[bytes], log: StderrLog
) -> AsyncIterator[ServerSession]:
    """The body's errors pass through unwrapped."""
    try:
        async with (
            pipe_streams(process, log) as (read, write),
            server_session(name, read, write) as server,
        ):
            yield server
    except BaseExceptionGroup as group:
        raise root_cause(group) from None
