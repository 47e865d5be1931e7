"""Ends server processes off the critical path: stdin EOF, then SIGTERM, then SIGKILL; and
then whatever the server started in its process group, even when the server itself exited
on its own and left children behind.

A process that leaves its group (setsid, setpgid, a double fork into a new session) is out
of reach here; a sealed server's ends with it all the same, its PID namespace's end
(adapters/posix/namespaces.py; docs/mcp-servers.md, "Its own namespaces")."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from zork_mcp.adapters.mcp.stdio.server_process import ServerProcess
from zork_mcp.adapters.posix.process_table import group_running

STDIN_GRACE_SECONDS = 2.0
KILL_GRACE_SECONDS = 2.0
GROUP_POLL_SECONDS = 0.02
WAITERS = 16  # processes waited on at once; more queue behind them


class ProcessReaper:
    """Closing the pipes (stdin EOF, which starts a well-behaved server's exit), waiting and
    signalling all happen on background threads, which stay for the next retired process
    (starting a thread per process cost each turn ~1.5 ms of waiting for it to be
    scheduled on a busy machine). Sessions' transports own duplicates of the pipes.
    """

    def __init__(self) -> None:
        self._waiters: ThreadPoolExecutor | None = None
        self._retired: set[int] = set()

    def retire(self, process: ServerProcess, then: Callable[[], object] | None = None) -> None:
        """End `process` off this thread; `then` runs once it and its group are gone."""
        if process.pid in self._retired:
            return
        self._retired.add(process.pid)
        if self._waiters is None:
            self._waiters = ThreadPoolExecutor(WAITERS, thread_name_prefix="mcp-reaper")
        try:
            self._waiters.submit(_end_process, process, then)
        except RuntimeError:  # the interpreter is exiting and has ended the waiting threads
            _end_process(process, then)

    def join(self) -> None:
        """Wait until every retired process has ended; the waiting threads end too."""
        if self._waiters is not None:
            self._waiters.shutdown()  # waits for every process submitted, queued ones too
            self._waiters = None


def _close_pipes(process: ServerProcess) -> None:
    for stream in (process.stdin, process.stdout):
        if stream is not None and not stream.closed:
            with contextlib.suppress(OSError):
                stream.close()


def _end_process(process: ServerProcess, then: Callable[[], object] | None = None) -> None:
    _close_pipes(process)
    for sig, grace in (
        (None, STDIN_GRACE_SECONDS),
        (signal.SIGTERM, KILL_GRACE_SECONDS),
        (signal.SIGKILL, None),
    ):
        if sig is not None:
            signal_group(process.pid, sig)
        try:
            process.wait(grace)
            break
        except subprocess.TimeoutExpired:
            continue
    end_group(process.pid)
    if then is not None:
        then()


def end_group(group: int) -> None:
    """Every process left in the group the server led: SIGTERM, then SIGKILL for what stays,
    and then wait until none runs: a killed process ends only once it is scheduled again,
    which on a busy machine can be after `close` would otherwise have returned (a zombie has
    ended; only its exit status waits for whoever is its parent now)."""
    if not signal_group(group, signal.SIGTERM) or _gone_within(group, KILL_GRACE_SECONDS):
        return
    signal_group(group, signal.SIGKILL)
    deadline = time.monotonic() + KILL_GRACE_SECONDS
    while group_running(group) and time.monotonic() < deadline:
        time.sleep(GROUP_POLL_SECONDS)


def _gone_within(group: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not signal_group(group, 0):
            return True
        time.sleep(GROUP_POLL_SECONDS)
    return False


def signal_group(group: int, sig: int) -> bool:
    """Whether the group still had a process to signal."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
