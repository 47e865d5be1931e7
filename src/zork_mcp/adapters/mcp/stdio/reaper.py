"""Ends server processes off the critical path: stdin EOF, then SIGTERM, then SIGKILL."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading

from zork_mcp.adapters.mcp.stdio.server_process import ServerProcess

STDIN_GRACE_SECONDS = 2.0
KILL_GRACE_SECONDS = 2.0


class ProcessReaper:
    """Pipes are closed on the caller's thread (the event loop's, where asyncio transports
    may own them); only the waiting and signalling happen on a background thread.
    """

    def __init__(self) -> None:
        self._threads: list[threading.Thread] = []
        self._retired: set[int] = set()

    def retire(self, process: ServerProcess) -> None:
        if process.pid in self._retired:
            return
        self._retired.add(process.pid)
        _close_pipes(process)
        thread = threading.Thread(target=_end_process, args=(process,), daemon=True)
        thread.start()
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]

    def join(self) -> None:
        for thread in list(self._threads):
            thread.join()
        self._threads = []


def _close_pipes(process: ServerProcess) -> None:
    for stream in (process.stdin, process.stdout):
        if stream is not None and not stream.closed:
            with contextlib.suppress(OSError):
                stream.close()


def _end_process(process: ServerProcess) -> None:
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
