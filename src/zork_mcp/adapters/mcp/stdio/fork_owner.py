"""Who owns the fork server a tool server's stdio servers are forked from, for how long: the
tool server, or the whole process.

Nothing outside this package names an owner: a tool server takes its plan, and the plan
says whether its fork server is its own or the process's (`StartPlan.shared`). The
process's is made here at its first use and closed here at exit: the one home of that
process-wide cleanup."""

from __future__ import annotations

import atexit
import enum
import os
import threading
from collections.abc import Mapping

from zork_mcp.adapters.mcp.stdio.fork_server import ForkServer, zygote_environment
from zork_mcp.adapters.mcp.stdio.start_plan import StartPlan
from zork_mcp.adapters.mcp.stdio.stderr_log import StderrLog


class Lifetime(enum.Enum):
    """Whose a fork server is, which says where its stderr goes and when it ends."""

    TOOL_SERVER = "tool server"  # one tool server's own: its stderr log, ended when it closes
    PROCESS = "process"  # every run in the process: replaced when found dead, ended at exit


class ForkServerOwner:
    """The one owner of a fork server: what gives a stdio tool server the fork server to fork
    from (`serve`), and what ends it (`close`, or `release` for a tool server's own).

    A tool server's own fork server is made at the first plan that forks and launched by
    its first start (`Forking`); a lost one is restarted by `Forking`. The process's is
    started by the first run that forks, later runs fork from it, and one found dead is
    replaced. Every method is thread-safe: a sweep worker starts many
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
    def for_plan(cls, plan: StartPlan, system_env: Mapping[str, str] | None) -> ForkServerOwner:
        """The process's owner if `plan` shares it, else a new one for one tool server."""
        return process_fork_server() if plan.shared else cls.for_tool_server(system_env)

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
            return self._server

    def _running(self) -> ForkServer:
        if self._server is None or not self._server.alive:
            self._server = ForkServer(zygote_environment(self._env), StderrLog(None))
            self._server.start()
        return self._server

    def release(self) -> None:
        """A tool server closed: its own fork server ends with it; the process's is left to
        the process's exit."""
        if self.ends_with_tool_server:
            self.close()

    def close(self) -> None:
        with self._lock:
            if self._server is not None:
                self._server.close()


_PROCESS_LOCK = threading.Lock()
_process_owner: ForkServerOwner | None = None


def process_fork_server() -> ForkServerOwner:
    """The owner of the fork server every run of this process shares (a sweep worker's
    episodes, MCP-Ghost's calls): made at its first use, its fork server closed at exit."""
    global _process_owner
    with _PROCESS_LOCK:
        if _process_owner is None:
            _process_owner = ForkServerOwner(Lifetime.PROCESS)
            atexit.register(_process_owner.close)
        return _process_owner
