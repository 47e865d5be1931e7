"""What the stdio transport needs of a server process, spawned or forked."""

from __future__ import annotations

from typing import IO, Protocol


class ServerProcess(Protocol):
    pid: int
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...
