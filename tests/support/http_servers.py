"""MCP servers served over Streamable HTTP on 127.0.0.1, on a port free at run time."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class HttpServer:
    process: subprocess.Popen
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(10)


@contextmanager
def http_server(
    argv: Sequence[str], env: dict[str, str] | None = None, log=None
) -> Iterator[HttpServer]:
    """Run `python argv... <port>` (argv may use {port}) until it accepts connections."""
    port = free_port()
    command = [sys.executable, *(part.format(port=port) for part in argv)]
    process = subprocess.Popen(
        command,
        env={**os.environ, "DISABLE_THOUGHT_LOGGING": "true", **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=log or subprocess.DEVNULL,
    )
    try:
        _wait_for(port, process)
        yield HttpServer(process, port)
    finally:
        process.kill()
        process.wait(10)


def _wait_for(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"HTTP server exited with {process.returncode} before serving")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"HTTP server did not listen on {port} within {timeout} s")
