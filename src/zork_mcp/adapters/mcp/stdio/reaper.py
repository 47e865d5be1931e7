"""Ends server processes off the critical path: stdin EOF, then SIGTERM, then SIGKILL."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor

from zork_mcp.adapters.mcp.stdio.server_process import ServerProcess

STDIN_GRACE_SECONDS = 2.0
KILL_GRACE_SECONDS = 2.0
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

    def retire(self, process: ServerProcess) -> None:
        if process.pid in self._retired:
            return
        self._retired.add(process.pid)
        if self._waiters is None:
            self._waiters = ThreadPoolExecutor(WAITERS, thread_name_prefix="mcp-reaper")
        try:
            self._waiters.submit(_end_process, process)
        except RuntimeError:  # the interpreter is exiting and has ended the waiting threads
            _end_process(process)

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


def _end_process(process: ServerProcess) -> None:
    _close_pipes(process)
    for sig, grace in (
        (None, STDIN_GRACE_SECONDS),
        (signal.SIGTERM, KILL_GRACE_SECONDS),
        (signal.SIGKILL, None),
    ):
        if sig is not None:
            _signal_group(process, sig)
        try:
            process.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _signal_group(process: ServerProcess, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)
