"""Where server processes write stderr: a log file, never the user's terminal, and never more
than a bounded share of the disk.

Each server writes into a pipe of its own (`handle(server)`), which a thread drains into the
log: at most `cap_bytes` of each server's stderr per episode (the life of this log), then one
line saying the rest is dropped, and at close how much was. Our own notes about a server
(junk on its stdout, say) are capped the same way.
"""

from __future__ import annotations

import os
import select
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

from zork_mcp.adapters.storage import own_files
from zork_mcp.domain.settings import STDERR_LOG_BYTES

NOTES = "zork_mcp"
CHUNK = 64 * 1024
JOIN_SECONDS = 2.0
Sink = Callable[[str, bytes], None]


class StderrLog:
    def __init__(self, path: Path | None, cap_bytes: int = STDERR_LOG_BYTES) -> None:
        self.path, self.cap_bytes = path, cap_bytes
        self._file: IO[bytes] | None = None
        self._lock = threading.Lock()
        self._channels: dict[str, _Channel] = {}
        self._written: dict[str, int] = {}
        self._dropped: dict[str, int] = {}

    def handle(self, server: str) -> int:
        """The file descriptor `server`'s processes write stderr to (DEVNULL with no log)."""
        if self.path is None:
            return subprocess.DEVNULL
        with self._lock:
            channel = self._channels.get(server)
            if channel is None:
                self._append(b"")  # the log exists once a server may write to it
                channel = self._channels[server] = _Channel(server, self._write)
            return channel.write_fd

    def note(self, text: str) -> None:
        if self.path is not None:
            self._write(NOTES, f"[zork_mcp] {text}\n".encode())

    def close(self) -> None:
        """Stop draining (every server process has ended by now) and say what was dropped."""
        with self._lock:
            channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            channel.close()
        with self._lock:
            for source, dropped in self._dropped.items():
                self._append(self._dropped_line(source, dropped, final=True))
            self._dropped.clear()
            if self._file is not None:
                self._file.close()
                self._file = None

    def _write(self, source: str, data: bytes) -> None:
        with self._lock:
            written = self._written.get(source, 0)
            kept = data[: max(0, self.cap_bytes - written)]
            self._written[source] = written + len(kept)
            if kept:
                self._append(kept)
            if len(kept) < len(data):
                if source not in self._dropped:
                    self._append(self._dropped_line(source, 0, final=False))
                self._dropped[source] = self._dropped.get(source, 0) + len(data) - len(kept)

    def _dropped_line(self, source: str, dropped: int, *, final: bool) -> bytes:
        who = "our notes" if source == NOTES else f"the stderr of server '{source}'"
        if not final:
            text = f"{who} reached {self.cap_bytes} bytes this episode; the rest is dropped"
        else:
            text = f"{who}: {dropped} more bytes were dropped this episode"
        return f"\n[zork_mcp] {text} (stderr_log_bytes in [tool.zorkgpt.mcp])\n".encode()

    def _append(self, data: bytes) -> None:
        if self._file is None:
            assert self.path is not None
            fd = own_files.open_appending(self.path)  # never through another's link
            self._file = os.fdopen(fd, "ab", buffering=0)
        self._file.write(data)


class _Channel:
    """One server's stderr pipe and the thread that drains it, until close() wakes it."""

    def __init__(self, server: str, write: Sink) -> None:
        self._server, self._write = server, write
        self._read_fd, self.write_fd = os.pipe()
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._read_fd, False)
        self._thread = threading.Thread(
            target=self._drain, name=f"mcp-stderr-{server}", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        os.close(self.write_fd)
        os.write(self._wake_write, b"x")
        self._thread.join(JOIN_SECONDS)
        for fd in (self._wake_write, self._wake_read):
            os.close(fd)

    def _drain(self) -> None:
        poller = select.poll()
        poller.register(self._read_fd, select.POLLIN)
        poller.register(self._wake_read, select.POLLIN)
        try:
            while not any(fd == self._wake_read for fd, _ in poller.poll()):
                if not self._read_available():
                    return
            self._read_available()  # what was written before the close
        finally:
            os.close(self._read_fd)

    def _read_available(self) -> bool:
        """Drain what can be read now; False at end of file (no writer is left)."""
        while True:
            try:
                data = os.read(self._read_fd, CHUNK)
            except BlockingIOError:
                return True
            if not data:
                return False
            self._write(self._server, data)
