"""Starts one server's processes, forked or spawned, and keeps a spare warming when asked to.

Accounting: a connect attempt starts at most one process. It takes the live spare and
starts the next one at once; or, with no live spare, starts its own and leaves a spare
behind when its session closes. A failed connect leaves no spare (one it started is
retired again), so an episode that gives up on MCP has no server process left running.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Mapping
from typing import Protocol

from zork_mcp.adapters.mcp.stdio.reaper import ProcessReaper
from zork_mcp.adapters.mcp.stdio.server_process import ServerProcess
from zork_mcp.adapters.mcp.stdio.startup_advice import startup_message
from zork_mcp.adapters.mcp.stdio.stderr_log import StderrLog
from zork_mcp.domain.errors import MCPError, MCPServerStartupError
from zork_mcp.domain.server_config import MCPServerConfig
from zork_mcp.domain.server_env import server_environment

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
        forks: ForkStarter | None = None,
    ) -> None:
        self.name, self._config, self._system_env = name, config, system_env
        self._stderr, self._reaper, self._keep_spare = stderr, reaper, keep_spare
        self._forks = forks
        self._spare: ServerProcess | None = None
        self._started: list[ServerProcess] = []
        self.pids: list[int] = []

    def take(self) -> tuple[ServerProcess, bool]:
        """A process no session used (the live spare, else a new one), and whether it was
        the spare."""
        process, self._spare = self._spare, None
        if process is not None and process.poll() is None:
            return process, True
        if process is not None:
            self._reaper.retire(process)
        return self._start(), False

    def warm_up(self) -> None:
        if self._keep_spare and self._spare is None:
            # A start failure is left for the next take(), which reports it in the foreground.
            with contextlib.suppress(MCPError):
                self._spare = self._start()

    def drop_spare(self) -> None:
        spare, self._spare = self._spare, None
        if spare is not None:
            self._reaper.retire(spare)

    def _start(self) -> ServerProcess:
        env = server_environment(self._system_env, self._config.env, server=self.name)
        command = resolve_command(self._config.command)
        forked = self._forks.start(command, self._config.args, env) if self._forks else None
        process = forked or self._spawn(command, env)
        self._started = [p for p in self._started if p.poll() is None] + [process]
        self.pids.append(process.pid)
        return process

    def _spawn(self, command: str, env: Mapping[str, str]) -> ServerProcess:
        try:
            return subprocess.Popen(
                [command, *self._config.args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr.handle(),
                env=env,
                start_new_session=True,
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
        self._started = [process for process in self._started if process.poll() is None]
        return len(self._started)

    def close(self) -> None:
        self._spare = None
        for process in self._started:
            self._reaper.retire(process)


class ForkStarter(Protocol):
    def start(
        self, command: str, args: tuple[str, ...], env: Mapping[str, str]
    ) -> ServerProcess | None:
        """A forked process running `command args` with `env`, or None to have it spawned."""
        ...


def resolve_command(command: str) -> str:
    """`python` means the interpreter running zork_mcp, so servers see its packages."""
    return sys.executable if command in PYTHON_COMMANDS else command
