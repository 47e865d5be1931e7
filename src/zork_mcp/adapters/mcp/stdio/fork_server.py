"""The client side of the fork server: start it, ask it for server processes, end it.

The fork server has imported the MCP SDK, so a Python server forked from it skips the
~0.5 s of CPU that `import mcp` costs. It gets the environment servers get minus nothing
more: no credential-like variable reaches it (a server's own config `env` travels with
each request). It lives in its own process group and ends when its control socket
reaches EOF, which happens on close() and also when this process dies, even by SIGKILL.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Literal

from zork_mcp.adapters.mcp.stdio.fork_lifecycle import (
    RUNNING,
    ForkServerAction,
    ForkServerEvent,
    ForkServerState,
    Lifecycle,
    transition,
)
from zork_mcp.adapters.mcp.stdio.process_supply import resolve_command
from zork_mcp.adapters.mcp.stdio.sandbox import Handover
from zork_mcp.adapters.mcp.stdio.stderr_log import StderrLog
from zork_mcp.adapters.posix.readiness import wait_readable
from zork_mcp.domain.errors import MCPConfigError
from zork_mcp.domain.servers.server_config import MCPServerConfig
from zork_mcp.domain.servers.server_env import server_environment

ZYGOTE_MODULE = "zork_mcp.adapters.mcp.stdio.zygote"
READY_TIMEOUT_SECONDS = 30.0
EXIT_TIMEOUT_SECONDS = 5.0
FORK_SERVER = "fork server"  # its stderr's name in the log


class ForkServerUnavailableError(RuntimeError):
    """The fork server is gone or never answered; the caller spawns instead."""

    def __init__(self, message: str, state: ForkServerState) -> None:
        super().__init__(message)
        self.state = state  # after the loss: lost (to restart), left dead, or closed


@dataclass(frozen=True)
class ForkTarget:
    """`python -m module args` or `python script args`: what a forked child runs."""

    kind: Literal["module", "script"]
    target: str
    args: tuple[str, ...]


def fork_target(
    command: str, args: Sequence[str], env: Mapping[str, str], zygote_env: Mapping[str, str]
) -> ForkTarget | None:
    """What to run in a forked child, or None when only spawning gives the same process.

    Only this interpreter qualifies, with no interpreter flags, and with the same PYTHON*
    variables the fork server started with (they act at interpreter start-up).
    """
    if resolve_command(command) != sys.executable or not args:
        return None
    if _python_variables(env) != _python_variables(zygote_env):
        return None
    if args[0] == "-m" and len(args) > 1:
        return ForkTarget("module", args[1], tuple(args[2:]))
    if args[0].startswith("-"):
        return None
    return ForkTarget("script", args[0], tuple(args[1:]))


def _python_variables(env: Mapping[str, str]) -> dict[str, str]:
    return {name: value for name, value in env.items() if name.startswith("PYTHON")}


class ForkedProcess:
    """A server process forked by the fork server; this process is not its parent.

    It is watched through a pidfd, so its pid cannot be confused with a reused one. Its
    exit status belongs to the fork server that reaps it; poll() and wait() say only
    that it ended (returncode -1).
    """

    def __init__(self, pid: int, pidfd: int, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self.pid, self._pidfd = pid, pidfd
        self.stdin: IO[bytes] | None = stdin
        self.stdout: IO[bytes] | None = stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode if self._ended(0) else None

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended(timeout):
            raise subprocess.TimeoutExpired(f"forked server {self.pid}", timeout or 0)
        return -1

    def _ended(self, timeout: float | None) -> bool:
        # The reaper's thread may wait while the loop's thread polls: the pidfd stays open
        # until this object is gone, so neither can select on a closed or reused fd.
        if self.returncode is None and wait_readable(self._pidfd, timeout):
            self.returncode = -1
        return self.returncode is not None

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._pidfd)


class ForkServer:
    """One fork server process; start() is cheap and returns before it has imported.

    Its lifecycle is `fork_lifecycle`'s: each method reports what it saw, under the lock, and
    does what the transition answers.
    """

    def __init__(self, env: Mapping[str, str], stderr: StderrLog) -> None:
        self.env = dict(env)
        self._stderr = stderr
        self._lock = threading.Lock()
        self._lifecycle = Lifecycle()
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self.pids: list[int] = []

    def start(self) -> None:
        """Start it, or start it again if it was lost (a restart, within the budget)."""
        with self._lock:
            self._notice_an_exit()
            self._record(ForkServerEvent.START)

    def start_once(self) -> None:
        """Start it unless it was ever started (a restart is Forking's decision)."""
        with self._lock:
            self._record(ForkServerEvent.START_ONCE)

    def close(self) -> None:
        """EOF on the control socket; the fork server ends any child still alive and exits.
        Final: a start after it starts nothing."""
        with self._lock:
            self._record(ForkServerEvent.CLOSE)

    @property
    def state(self) -> ForkServerState:
        return self._lifecycle.state

    @property
    def serves(self) -> bool:
        """Whether a start should ask it (and see it lost) rather than spawn at once."""
        return self._lifecycle.serves

    @property
    def alive(self) -> bool:
        # Lock-free: a fork may hold the lock while it waits for the imports to finish.
        process = self._process
        return process is not None and process.poll() is None

    def _record(self, event: ForkServerEvent) -> None:
        """The one place the lifecycle changes; the lock is held."""
        served = self.state is ForkServerState.READY
        self._lifecycle, action = transition(self._lifecycle, event)
        if action is ForkServerAction.LAUNCH:
            self._launch()
        elif action is ForkServerAction.END:
            self._end(served)

    def _notice_an_exit(self) -> None:
        if self._process is not None and self._process.poll() is not None:
            self._record(ForkServerEvent.GONE)

    def _launch(self) -> None:
        try:
            self._process, self._control = self._spawn_zygote()
        except BaseException:
            self._record(ForkServerEvent.LAUNCH_FAILED)
            raise
        self.pids.append(self._process.pid)

    def _spawn_zygote(self) -> tuple[subprocess.Popen[bytes], socket.socket]:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            try:
                process = subprocess.Popen(
                    [sys.executable, "-m", ZYGOTE_MODULE, str(theirs.fileno())],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=self._stderr.handle(FORK_SERVER),
                    env=self.env,
                    pass_fds=[theirs.fileno()],
                    start_new_session=True,
                )
            except BaseException:
                ours.close()
                raise
        return process, ours

    def fork(
        self,
        target: ForkTarget,
        env: Mapping[str, str],
        stderr: int,
        *,
        handover: Handover | None = None,
    ) -> ForkedProcess | None:
        """A new server process running `target`, with stdin and stdout piped to us and its
        stderr to the file descriptor `stderr` (or DEVNULL), confined as `handover` says (its
        descriptors sent along) before its code runs; once the fork server has finished its
        imports (None if it has not within READY_TIMEOUT_SECONDS: spawn it).
        """
        with self._lock:
            control = self._running_control()
            if control is None:
                raise ForkServerUnavailableError("the fork server is not running", self.state)
            try:
                if not self._await_ready(control, READY_TIMEOUT_SECONDS):
                    return None
                return self._request(control, target, env, stderr, handover)
            except (OSError, ValueError, KeyError) as e:
                self._record(ForkServerEvent.GONE)
                message = f"the fork server stopped answering: {e}"
                raise ForkServerUnavailableError(message, self.state) from e

    def wait_until_ready(self, timeout: float) -> bool:
        """Whether the fork server has finished its imports within `timeout` seconds."""
        with self._lock:
            control = self._running_control()
            if control is None:
                return False
            with contextlib.suppress(OSError, ValueError, KeyError):
                return self._await_ready(control, timeout)
            return False

    def _running_control(self) -> socket.socket | None:
        """Its control socket, if it runs; an exit seen here is a loss."""
        self._notice_an_exit()
        return self._control if self.state in RUNNING else None

    def _await_ready(self, control: socket.socket, timeout: float) -> bool:
        answered = self.state is ForkServerState.STARTING and wait_readable(control, timeout)
        if answered and json.loads(control.recv(4096))["ready"]:
            self._record(ForkServerEvent.CAME_UP)
        return self.state is ForkServerState.READY

    def _request(
        self,
        control: socket.socket,
        target: ForkTarget,
        env: Mapping[str, str],
        stderr: int,
        handover: Handover | None,
    ) -> ForkedProcess:
        control.settimeout(READY_TIMEOUT_SECONDS)
        request = {
            "kind": target.kind,
            "target": target.target,
            "args": list(target.args),
            "env": dict(env),
            "cwd": os.getcwd(),
            **(handover.fork_request() if handover is not None else {}),
        }
        extra = handover.fds if handover is not None else ()
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        with _stderr_fd(stderr) as stderr_fd:
            try:
                packet = json.dumps(request).encode()
                socket.send_fds(control, [packet], [stdin_r, stdout_w, stderr_fd, *extra])
            except BaseException:
                for fd in (stdin_w, stdout_r):
                    os.close(fd)
                raise
            finally:
                os.close(stdin_r)
                os.close(stdout_w)
        answer, fds, _, _ = socket.recv_fds(control, 4096, 1)
        if not answer or len(fds) != 1:
            os.close(stdin_w)
            os.close(stdout_r)
            raise ConnectionError("no pid came back")
        pid = json.loads(answer)["pid"]
        return ForkedProcess(pid, fds[0], open(stdin_w, "wb"), open(stdout_r, "rb"))

    def _end(self, served: bool) -> None:
        """One that has said it is ready (`served`, or its word waiting unread) ends the
        children it forked (its spare among them) on EOF, then exits. One still importing has
        forked none: it is killed rather than left to finish imports nobody will use (a tool
        server closed soon after it opened waited ~0.8 s of CPU for them)."""
        control, process = self._control, self._process
        self._control, self._process = None, None
        importing = not served and control is not None and not wait_readable(control, 0)
        if control is not None:
            control.close()
        if process is not None and importing and process.poll() is None:  # not yet reaped
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, 9)
        if process is not None:
            try:
                process.wait(EXIT_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, 9)
                process.wait()


@contextlib.contextmanager
def _stderr_fd(handle: int) -> Iterator[int]:
    if handle >= 0:
        yield handle
        return
    fd = os.open(os.devnull, os.O_WRONLY)
    try:
        yield fd
    finally:
        os.close(fd)


class Forking:
    """Starts through the fork server what it can start; a lost fork server is one warning,
    a spawn for the start that found it gone, and a restart off the critical path.

    The fork server is launched by the first start it can serve, and every start waits for
    its imports: a fresh fork server and a fork (~0.5 s of CPU) are never slower than
    spawning the server (~1 s of CPU, its interpreter and the same imports), and a server
    spawned meanwhile would compete with the fork server for the CPU. A tool server that
    never starts a server costs no fork server.
    """

    def __init__(self, server: ForkServer, warn: Callable[[str], None]) -> None:
        self._server, self._warn = server, warn
        self._restart: threading.Thread | None = None

    def start(
        self,
        command: str,
        args: tuple[str, ...],
        env: Mapping[str, str],
        stderr: int,
        handover: Handover | None = None,
    ) -> ForkedProcess | None:
        target = fork_target(command, args, env, self._server.env)
        if target is None:
            return None
        self._join_restart()  # first, so that whether it serves does not depend on timing
        self._server.start_once()
        if not self._server.serves:
            return None
        try:
            return self._server.fork(target, env, stderr, handover=handover)
        except ForkServerUnavailableError as e:
            self._lost(e)
            return None

    def _lost(self, e: ForkServerUnavailableError) -> None:
        """Warn, and restart it unless its lifecycle says it is left dead (or closed)."""
        if e.state is ForkServerState.LEFT_DEAD:
            self._warn(f"MCP fork server lost again ({e}); spawning every server from now on")
        elif e.state is ForkServerState.LOST:
            self._warn(
                f"MCP fork server unavailable ({e}); spawning this server process instead "
                f"and restarting the fork server in the background"
            )
            self._restart = threading.Thread(target=self._server.start, daemon=True)
            self._restart.start()

    def ready(self, timeout: float) -> bool:
        """Whether the fork server has finished its imports within `timeout` seconds; it is
        launched now if it never was."""
        self._join_restart()
        self._server.start_once()
        return self._server.wait_until_ready(timeout)

    def _join_restart(self) -> None:
        if self._restart is not None:
            self._restart.join()  # a Popen, not the fork server's imports
            self._restart = None


def fork_supported() -> bool:
    return hasattr(os, "fork") and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")


def zygote_environment(system_env: Mapping[str, str]) -> dict[str, str]:
    """What servers inherit, so no credential-like variable reaches the fork server."""
    return server_environment(system_env, None, server="fork server")


def is_forkable(config: MCPServerConfig, system_env: Mapping[str, str], name: str) -> bool:
    try:
        env = server_environment(system_env, config.env, server=name)
    except MCPConfigError:
        return False  # reported when the server is started
    zygote_env = zygote_environment(system_env)
    return fork_target(config.command, config.args, env, zygote_env) is not None
