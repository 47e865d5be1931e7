"""Starts one server's processes, forked or spawned, and keeps a spare warming when asked to.

Accounting: a connect attempt starts at most one process. It takes the live spare and,
once connected, starts the next one; or, with no live spare, starts its own and leaves a
spare behind when its session closes. A failed connect starts no spare, so an episode that
gives up on MCP has no server process left running.

A spare is started off the event loop (`refill`), in the tool server's one starter thread:
asking the fork server for a process waits on its answer, and with several servers those
waits would add up on the turn's critical path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future
from typing import Protocol

from zork_mcp.adapters.mcp.stdio.host_proxy import HostProxy
from zork_mcp.adapters.mcp.stdio.reaper import ProcessReaper
from zork_mcp.adapters.mcp.stdio.sandbox import Confined, Handover, ServerSandbox
from zork_mcp.adapters.mcp.stdio.server_process import ServerProcess
from zork_mcp.adapters.mcp.stdio.startup_advice import startup_message
from zork_mcp.adapters.mcp.stdio.stderr_log import StderrLog
from zork_mcp.domain.errors import MCPError, MCPServerStartupError
from zork_mcp.domain.servers.roots import Root
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.servers.server_env import server_environment
from zork_mcp.domain.servers.server_places import roots_of
from zork_mcp.domain.tools.tool_offer import ToolFilter

PYTHON_COMMANDS = frozenset({"python", "python3"})


class ProcessSupply:
    def __init__(
        self,
        name: str,
        config: MCPServerConfig,
        system_env: Mapping[str, str],
        stderr: StderrLog,
        reaper: ProcessReaper,
        keep_spare: bool,
        forks: ForkStarter | None,
        sandbox: ServerSandbox,
        proxy: HostProxy,
    ) -> None:
        """`forks`: what forks its processes (None: each is spawned); `sandbox`: how each
        process is confined (`ServerSandbox(None)`: not at all); `proxy`: what relays the
        connections of a process whose entry lists hosts."""
        self.name, self._config, self._system_env = name, config, system_env
        self._stderr, self._reaper, self._keep_spare = stderr, reaper, keep_spare
        self._forks = forks
        self._sandbox, self._proxy = sandbox, proxy
        self._endings: dict[int, Callable[[], None]] = {}  # by pid: its folder and proxy to end
        self._spare: Future[ServerProcess | None] | None = None
        self._lock = threading.Lock()  # the started list, shared with the starter thread
        self._started: list[ServerProcess] = []
        self.pids: list[int] = []

    @property
    def roots(self) -> tuple[Root, ...]:
        """The roots its entry asks to be named."""
        return roots_of(self._config)

    @property
    def tool_filter(self) -> ToolFilter:
        return self._config.tool_filter

    def take(self) -> tuple[ServerProcess, bool]:
        """A process no session used (the live spare, else a new one), and whether it was
        the spare. A spare still starting is waited for: it is further on than a new one."""
        process = self._take_spare()
        if process is not None and process.poll() is None:
            return process, True
        if process is not None:
            self.retire(process)
        return self._start(), False

    def retire(self, process: ServerProcess) -> None:
        """End it off the critical path, then remove its private folder and stop its proxy."""
        with self._lock:
            ending = self._endings.pop(process.pid, None)
        self._reaper.retire(process, ending)

    def warm_up(self) -> None:
        """Start the spare now, on this thread."""
        if self._keep_spare and self._spare is None:
            self._spare = Future()
            self._spare.set_result(self._start_quietly())

    def refill(self, starter: Executor) -> None:
        """Start the spare on `starter`'s thread."""
        if self._keep_spare and self._spare is None:
            self._spare = starter.submit(self._start_quietly)

    def spare_started(self) -> None:
        """Wait until a spare being started has started (or failed to)."""
        if self._spare is not None:
            self._spare.result()

    def _take_spare(self) -> ServerProcess | None:
        spare, self._spare = self._spare, None
        return spare.result() if spare is not None else None

    def _start_quietly(self) -> ServerProcess | None:
        # A start failure is left for the next take(), which reports it in the foreground.
        with contextlib.suppress(MCPError):
            return self._start()
        return None

    def _start(self) -> ServerProcess:
        env = server_environment(self._system_env, self._config.env, server=self.name)
        command, args = resolve_command(self._config.command), self._config.args
        confined = self._sandbox.prepare(command, args, env)
        try:
            process, ending = self._fork_or_spawn(command, args, env, confined)
        except BaseException:
            if confined is not None:
                confined.remove()
            raise
        with self._lock:
            self._started = [p for p in self._started if p.poll() is None] + [process]
            self.pids.append(process.pid)
            if ending is not None:
                self._endings[process.pid] = ending
        return process

    def _fork_or_spawn(
        self, command: str, args: tuple[str, ...], env: Mapping[str, str], confined: Confined | None
    ) -> tuple[ServerProcess, Callable[[], None] | None]:
        """The process, and what ends its confinement once it has ended."""
        if confined is None:
            return self._fork_or_spawn_with(command, args, env, None), None
        env = confined.environment(env, self._config.env)
        with confined.handover() as (handover, proxy_end):
            process = self._fork_or_spawn_with(command, args, env, handover)
        if proxy_end is None:
            return process, confined.remove
        stop = self._proxy.serve(proxy_end, self.name, confined.hosts)

        def end() -> None:
            stop()
            confined.remove()

        return process, end

    def _fork_or_spawn_with(
        self, command: str, args: tuple[str, ...], env: Mapping[str, str], handover: Handover | None
    ) -> ServerProcess:
        stderr = self._stderr.handle(self.name)
        forked = self._forks.start(command, args, env, stderr, handover) if self._forks else None
        return forked or self._spawn(command, env, stderr, handover)

    def _spawn(
        self, command: str, env: Mapping[str, str], stderr: int, handover: Handover | None
    ) -> ServerProcess:
        argv = [command, *self._config.args]
        try:
            if handover is not None:
                if shutil.which(command, path=env.get("PATH", os.defpath)) is None:
                    raise FileNotFoundError(2, "No such file or directory", command)
                argv = handover.launcher_argv(argv)
            return subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=env,
                start_new_session=True,
                pass_fds=() if handover is None else handover.fds,
            )
        except OSError as e:
            raise self.startup_error(e, None) from e

    def startup_error(self, cause: BaseException, timeout: float | None) -> MCPServerStartupError:
        if isinstance(cause, MCPServerStartupError):
            return cause
        return MCPServerStartupError(
            startup_message(self.name, self._config, cause, timeout, self._stderr.path),
            servers=(self.name,),
        )

    @property
    def live(self) -> int:
        with self._lock:
            self._started = [process for process in self._started if process.poll() is None]
            return len(self._started)

    def close(self) -> None:
        """Retire every process it started, once a spare still starting has started."""
        self._take_spare()
        with self._lock:
            started = list(self._started)
        for process in started:
            self.retire(process)
        with self._lock:  # the folders of processes that died unused, never retired
            endings, self._endings = list(self._endings.values()), {}
        for ending in endings:
            ending()


class ForkStarter(Protocol):
    def start(
        self,
        command: str,
        args: tuple[str, ...],
        env: Mapping[str, str],
        stderr: int,
        handover: Handover | None = None,
    ) -> ServerProcess | None:
        """A forked process running `command args` with `env` and its stderr to the file
        descriptor `stderr`, confined as `handover` says before its code runs; or None to
        have it spawned."""
        ...


def resolve_command(command: str) -> str:
    """`python` means the interpreter running zork_mcp, so servers see its packages."""
    return sys.executable if command in PYTHON_COMMANDS else command
