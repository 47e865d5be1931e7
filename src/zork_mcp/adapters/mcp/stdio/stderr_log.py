"""Where server processes write stderr: a log file, never the user's terminal."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import IO


class StderrLog:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._file: IO[bytes] | None = None

    def handle(self) -> IO[bytes] | int:
        if self.path is None:
            return subprocess.DEVNULL
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("ab")
        return self._file

    def note(self, text: str) -> None:
        handle = self.handle()
        if handle is not subprocess.DEVNULL:
            assert not isinstance(handle, int)
            handle.write(f"[zork_mcp] {text}\n".encode())
            handle.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
