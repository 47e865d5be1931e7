"""Spawns one server's processes and keeps a spare warming when asked to."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Mapping

from zork_mcp.adapters.mcp.stdio.reaper import ProcessReaper
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
    ) -> None:
        self.name, self._config, self._system_env = name, config, system_env
        self._stderr, self._reaper, self._keep_spare = stderr, reaper, keep_spare
        self._spare: subprocess.Popen[bytes] | None = None
        self._spawned: list[subprocess.Popen[bytes]] = []
        self.pids: list[int] = []

    def take(self) -> subprocess.Popen[bytes]:
        """A process no session used: the spare if it is still alive, else a new one."""
        process, self._spare = self._spare, None
        if process is not None and process.poll() is not None:
            self._reaper.retire(process)
            process = None
        process = process or self._spawn()
        if self._keep_spare:
            self._refill()
        return process

    def warm_up(self) -> None:
        if self._keep_spare and self._spare is None:
            self._refill()

    def _refill(self) -> None:
        # A spawn failure is left for the next take(), which reports it in the foreground.
        with contextlib.suppress(MCPError):
            self._spare = self._spawn()

    def _spawn(self) -> subprocess.Popen[bytes]:
        env = server_environment(self._system_env, self._config.env, server=self.name)
        command = resolve_command(self._config.command)
        try:
            process = subprocess.Popen(
                [command, *self._config.args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr.handle(),
                env=env,
                start_new_session=True,
            )
        except OSError as e:
            raise self.startup_error(e, None) from e
        self._spawned.append(process)
        self.pids.append(process.pid)
        return process

    def startup_error(self, cause: BaseException, timeout: float | None) -> MCPServerStartupError:
        if isinstance(cause, MCPServerStartupError):
            return cause
        return MCPServerStartupError(
            startup_message(self.name, self._config, cause, timeout, self._stderr.path)
        )

    @property
    def live(self) -> int:
        self._spawned = [process for process in self._spawned if process.poll() is None]
        return len(self._spawned)

    def close(self) -> None:
        self._spare = None
        for process in self._spawned:
            self._reaper.retire(process)


def resolve_command(command: str) -> str:
    """`python` means the interpreter running zork_mcp, so servers see its packages."""
    return sys.executable if command in PYTHON_COMMANDS else command
