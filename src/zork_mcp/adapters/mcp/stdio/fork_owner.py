"""How a config's stdio servers start (the start plan, decided once) and who owns the fork
server they are forked from, for how long: one tool server, one run, or the whole process."""

from __future__ import annotations

import enum
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from zork_mcp.adapters.mcp.stdio.fork_server import (
    ForkServer,
    fork_supported,
    is_forkable,
    zygote_environment,
)
from zork_mcp.adapters.mcp.stdio.stderr_log import StderrLog
from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.server_config import MCPServerConfig
from zork_mcp.domain.settings import ServerStart


@dataclass(frozen=True)
class StartPlan:
    """How a config's stdio servers start: decided once, then given to whoever starts them."""

    server_start: ServerStart
    forks: bool  # a fork server serves at least one of them
    patient: bool = False  # wait for the fork server rather than spawn while it imports

    @property
    def waits(self) -> bool:
        """Whether a start that the fork server can serve waits for it to be ready: with
        "fork", or when patient (many starts at once: spawning each would cost ~0.5 s of
        CPU against its ~1 s, once)."""
        return self.server_start == "fork" or self.patient


def plan_starts(
    servers: Mapping[str, MCPServerConfig], env: Mapping[str, str], server_start: ServerStart
) -> StartPlan:
    """Whether any server is started by fork; with "fork", every server must be forkable."""
    if server_start == "spawn" or not fork_supported():
        return StartPlan(server_start, forks=False)
    forkable = {name: is_forkable(config, env, name) for name, config in servers.items()}
    refused = [name for name, ok in forkable.items() if not ok]
    if server_start == "fork" and refused:
        raise MCPConfigError(
            f'server_start = "fork", but {", ".join(refused)} cannot be forked: only '
            f"`python -m module` or `python script.py` (this interpreter, no flags) can. "
            f'Use server_start = "auto" to spawn those and fork the rest.'
        )
    return StartPlan(server_start, forks=any(forkable.values()))


class Lifetime(enum.Enum):
    """Whose a fork server is, which says where its stderr goes and when it ends."""

    TOOL_SERVER = "tool server"  # one tool server's own: its stderr log, ended when it closes
    RUN = "run"  # one run's (the CLI's episode): ended with the run
    PROCESS = "process"  # every run in the process: replaced when found dead, ended at exit


class ForkServerOwner:
    """The one owner of a fork server: what gives a stdio tool server the fork server to fork
    from (`serve`), and what ends it (`close`, or `release` for a tool server's own).

    A tool server's or a run's fork server is made at the first plan that forks, and started
    then with "fork" (every start waits for it) or else by the tool server once its spares
    are started; a lost one is restarted by `Forking`. The process's is started by the
    first run that forks (which spawns its own servers meanwhile), later runs fork from it,
    and one found dead is replaced. Every method is thread-safe: a sweep worker starts many
    episodes at once.
    """

    def __init__(self, lifetime: Lifetime, system_env: Mapping[str, str] | None = None) -> None:
        self.lifetime = lifetime
        self._env = os.environ if system_env is None else system_env
        self._server: ForkServer | None = None
        self._lock = threading.Lock()

    @classmethod
    def for_tool_server(cls, system_env: Mapping[str, str] | None = None) -> ForkServerOwner:
        return cls(Lifetime.TOOL_SERVER, system_env)

    @classmethod
    def for_run(cls) -> ForkServerOwner:
        return cls(Lifetime.RUN)

    @classmethod
    def for_process(cls) -> ForkServerOwner:
        return cls(Lifetime.PROCESS)

    @property
    def started(self) -> ForkServer | None:
        """The fork server, if one was ever made."""
        return self._server

    @property
    def ends_with_tool_server(self) -> bool:
        return self.lifetime is Lifetime.TOOL_SERVER

    def serve(self, plan: StartPlan, stderr: StderrLog) -> ForkServer | None:
        """The fork server for a tool server whose servers start as `plan` says (None if it
        forks none); `stderr` is that tool server's log, which only its own fork server uses."""
        if not plan.forks:
            return None
        with self._lock:
            if self.lifetime is Lifetime.PROCESS:
                return self._running()
            if self._server is None:
                log = stderr if self.ends_with_tool_server else StderrLog(None)
                self._server = ForkServer(zygote_environment(self._env), log)
            if plan.server_start == "fork":
                self._server.start_once()  # every start waits for it
            return self._server

    def _running(self) -> ForkServer:
        if self._server is None or not self._server.alive:
            self._server = ForkServer(zygote_environment(self._env), StderrLog(None))
            self._server.start()
        return self._server

    def release(self) -> None:
        """A tool server closed: its own fork server ends with it; a run's or the process's
        is left to them."""
        if self.ends_with_tool_server:
            self.close()

    def close(self) -> None:
        with self._lock:
            if self._server is not None:
                self._server.close()
