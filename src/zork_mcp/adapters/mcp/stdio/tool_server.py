"""The ToolServer port over MCP stdio servers.

Every session talks to processes no earlier session used (requirement 3). A spare warms
up (imports, starts) while the current turn runs, so the next turn only pays for the
handshake. Spares are started, and used processes retired, in background threads.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from zork_mcp.adapters.mcp.assembly import Connected, McpToolServer, open_together
from zork_mcp.adapters.mcp.era import Eras
from zork_mcp.adapters.mcp.sdk_errors import root_cause
from zork_mcp.adapters.mcp.server_session import ServerSession, server_session
from zork_mcp.adapters.mcp.session import McpSession
from zork_mcp.adapters.mcp.stdio.fork_owner import ForkServerOwner
from zork_mcp.adapters.mcp.stdio.fork_server import Forking
from zork_mcp.adapters.mcp.stdio.host_proxy import HostProxy
from zork_mcp.adapters.mcp.stdio.pipes import pipe_streams
from zork_mcp.adapters.mcp.stdio.process_supply import ProcessSupply
from zork_mcp.adapters.mcp.stdio.reaper import ProcessReaper
from zork_mcp.adapters.mcp.stdio.sandbox import ServerSandbox
from zork_mcp.adapters.mcp.stdio.server_process import ServerProcess
from zork_mcp.adapters.mcp.stdio.start_plan import StartPlan, plan_starts
from zork_mcp.adapters.mcp.stdio.stderr_log import StderrLog
from zork_mcp.domain.errors import MCPServerStartupError
from zork_mcp.domain.facts.events import Event
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.servers.startup_timeout import startup_timeout
from zork_mcp.domain.settings import STDERR_LOG_BYTES, ServerStart


class McpStdioToolServer:
    """Connects to every configured server per session; tools are routed by `server.tool`."""

    def __init__(
        self,
        servers: Mapping[str, MCPServerConfig],
        plan: StartPlan,
        *,
        startup_timeout_seconds: float | None = None,
        background_spare: bool = True,
        stderr_path: Path | None = None,
        stderr_log_bytes: int = STDERR_LOG_BYTES,
        system_env: Mapping[str, str] | None = None,
        warn: Callable[[str], None] | None = None,
        sandbox: bool = True,
        on_event: Callable[[Event], object] | None = None,
    ) -> None:
        """`plan` is how these servers start, as decided once by whoever built this: whether
        any is forked, and from whose fork server (its own, or the process's); `warn` hears
        that the
        fork server was lost (default: a note in the stderr log); `startup_timeout_seconds`:
        each server's, or None: 10 s, 60 s for a package launcher (`npx`…), which may
        download the server first; `stderr_log_bytes`: how
        much of each server's stderr the log keeps (each is named the roots its entry
        lists; none: the client declares no roots); `sandbox`: each server process confined as its
        entry's `"sandbox"` says (domain/servers/confinement.py), or none at all; `on_event` hears
        of a host a server was refused (default: a note in the stderr log)."""
        if not servers:
            raise ValueError("McpStdioToolServer needs at least one server")
        self._timeouts = {
            name: startup_timeout(startup_timeout_seconds, config.command, config.args)
            for name, config in servers.items()
        }
        self._reaper = ProcessReaper()
        self._stderr = StderrLog(stderr_path, stderr_log_bytes)
        env = os.environ if system_env is None else system_env
        forks = ForkServerOwner.for_plan(plan, system_env)
        fork_server = forks.serve(plan, self._stderr)
        forking = None
        if fork_server is not None:
            forking = Forking(fork_server, warn or self._stderr.note)
        self._eras = Eras({name: config.protocol for name, config in servers.items()})
        note = self._stderr.note  # not self: the finalizer below must not keep it alive
        self._proxy = HostProxy(on_event or (lambda event: note(event.message)))
        self._supplies = [
            ProcessSupply(
                name,
                config,
                env,
                self._stderr,
                self._reaper,
                background_spare,
                forking,
                ServerSandbox(config.sandbox if sandbox else None),
                self._proxy,
            )
            for name, config in servers.items()
        ]
        self._owner, self._fork_server, self._forks = forks, fork_server, forking
        self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-spare")
        # Runs on close(), on garbage collection, or at interpreter exit, whichever is first.
        self._shutdown = weakref.finalize(
            self,
            _shut_down,
            self._supplies,
            self._starter,
            self._reaper,
            self._stderr,
            forks,
            self._proxy,
        )

    @property
    def server_names(self) -> tuple[str, ...]:
        """The configured servers, in order."""
        return tuple(supply.name for supply in self._supplies)

    def warm_up(self) -> None:
        """Start each server's spare now, so even the first session only pays the handshake
        (a forkable one's start launches the fork server and waits for its imports)."""
        for supply in self._supplies:
            supply.warm_up()

    def open_session(
        self, servers: Collection[str] | None = None
    ) -> AbstractAsyncContextManager[McpSession]:
        return McpToolServer([self]).open_session(servers)

    async def connect(self, stack: AsyncExitStack, servers: Sequence[str]) -> Connected:
        """Every server's process starts before the first handshake, so they start together.

        Once all are connected, each supply whose spare was taken starts the next one in the
        background: it gets ready while the LLM thinks, and never competes with a handshake.
        """
        supplies, taken, unstarted = [], [], []
        for supply in (supply for supply in self._supplies if supply.name in servers):
            try:  # a process that cannot start fails alone: every failed server is named
                taken.append(self._take(stack, supply))
                supplies.append(supply)
            except MCPServerStartupError as error:
                unstarted.append(error)
        connected = await self._handshakes(stack, supplies, taken)
        order = self.server_names
        failures = unstarted + connected.failures
        connected.failures = sorted(failures, key=lambda error: order.index(error.servers[0]))
        if not connected.failures:
            for supply, (_, was_spare) in zip(supplies, taken, strict=True):
                if was_spare:
                    supply.refill(self._starter)
                else:  # after this session, not within its attempt
                    stack.callback(supply.refill, self._starter)
        return connected

    async def _handshakes(
        self,
        stack: AsyncExitStack,
        supplies: list[ProcessSupply],
        taken: list[tuple[ServerProcess, bool]],
    ) -> Connected:
        """Every handshake at once: with several servers, the turn waits for the slowest."""
        timed = [
            self._timed_handshake(supply, process)
            for supply, (process, _) in zip(supplies, taken, strict=True)
        ]
        results = await open_together(stack, timed)
        connected = Connected()
        for supply, result in zip(supplies, results, strict=True):
            if isinstance(result, Exception):
                self._eras.forget(supply.name)
                cause = root_cause(result)
                timeout = self._timeouts[supply.name]
                connected.failures.append(supply.startup_error(cause, timeout))
            else:
                connected.sessions.append(result)
        return connected

    def _take(self, stack: AsyncExitStack, supply: ProcessSupply) -> tuple[ServerProcess, bool]:
        process, was_spare = supply.take()
        stack.callback(supply.retire, process)
        return process, was_spare

    @asynccontextmanager
    async def _timed_handshake(
        self, supply: ProcessSupply, process: ServerProcess
    ) -> AsyncIterator[ServerSession]:
        """The handshake within the startup timeout; the session after it, untimed."""
        async with AsyncExitStack() as inner:
            async with asyncio.timeout(self._timeouts[supply.name]):
                server = await inner.enter_async_context(
                    _handshake(supply, process, self._stderr, self._eras)
                )
            yield server

    def spares_started(self) -> None:
        """Wait until every spare being started in the background has started."""
        for supply in self._supplies:
            supply.spare_started()

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
    def server_pids(self) -> list[int]:
        """Every server process this server ever started, in order (the fork server is not
        one); each leads its own process group."""
        return [pid for supply in self._supplies for pid in supply.pids]

    @property
    def spawned_pids(self) -> list[int]:
        """Every process this server ever started, the fork server included; each leads its
        own process group."""
        return self.server_pids + self.fork_server_pids

    def fork_server_ready(self, timeout: float) -> bool:
        """Launch the fork server now and wait up to `timeout` for its imports (a test or a
        benchmark that keeps them off its clock; a start would wait for them anyway)."""
        return self._forks is not None and self._forks.ready(timeout)

    @property
    def fork_server_pids(self) -> list[int]:
        """The fork servers this server started (one, or more after a restart): none when
        its fork server is a run's or the process's."""
        own = self._fork_server if self._owner.ends_with_tool_server else None
        return list(own.pids) if own is not None else []


def stdio_tool_server(
    servers: Mapping[str, MCPServerConfig],
    *,
    server_start: ServerStart = "auto",
    system_env: Mapping[str, str] | None = None,
    shared_fork_server: bool = False,
    **options: Any,
) -> McpStdioToolServer:
    """A stdio tool server on its own (a test, a benchmark, a script): its start plan decided
    here from `server_start`, and a fork server of its own that ends when it closes, or
    (`shared_fork_server`) the process's, as a sweep's episodes and MCP-Ghost's calls share
    it. The app and MCP-Ghost build theirs in zork_mcp.builders.mcp."""
    env = os.environ if system_env is None else system_env
    plan = replace(plan_starts(servers, env, server_start), shared=shared_fork_server)
    return McpStdioToolServer(servers, plan, system_env=system_env, **options)


def _shut_down(
    supplies: list[ProcessSupply],
    starter: ThreadPoolExecutor,
    reaper: ProcessReaper,
    stderr: StderrLog,
    forks: ForkServerOwner,
    proxy: HostProxy,
) -> None:
    for supply in supplies:
        supply.close()
    starter.shutdown()
    reaper.join()
    proxy.close()
    forks.release()
    stderr.close()


@asynccontextmanager
async def _handshake(
    supply: ProcessSupply, process: ServerProcess, log: StderrLog, eras: Eras
) -> AsyncIterator[ServerSession]:
    """The body's errors pass through unwrapped."""
    try:
        async with (
            pipe_streams(process, log) as (read, write),
            server_session(
                supply.name, read, write, eras, supply.tool_filter, supply.roots
            ) as server,
        ):
            yield server
    except BaseExceptionGroup as group:
        raise root_cause(group) from None
