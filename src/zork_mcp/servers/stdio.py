"""Our servers' stdio transport: the SDK's, except that every request gets an answer, and
that a pipe is read and written without a thread.

The SDK drops a request whose JSON holds text that is not Unicode (a lone surrogate such
as `"\\ud800"`, valid JSON but not valid text) without a word, and the client waits for its
timeout. Such a request is answered here with an Invalid params error that says where.

The SDK reads and writes stdin and stdout through anyio's worker threads: two threads
started, and a hand-over to a thread for every line read, written and flushed (~40 for a
turn's handshake, list and call; ~2 ms of CPU of a fresh server's ~18). When both are
pipes or sockets (as an MCP client makes them), they are read and written here when
ready instead; anything else (a terminal, a file) keeps the SDK's way. Either way, while
serving, fd 0 reads the null device and fd 1 writes to stderr, so stray output misses the
wire, as the SDK arranges.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from io import TextIOWrapper
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from zork_mcp.domain.text.encoding import is_encodable


async def serve_stdio(server: MCPServer[Any]) -> None:
    errors_in, errors_out = anyio.create_memory_object_stream[types.JSONRPCError](16)
    with _pipe_wire() as wire:
        if wire is None:
            stdin: Any = anyio.wrap_file(
                TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
            )
            streams = stdio_server(stdin=_AnsweredLines(stdin, errors_in))  # type: ignore[arg-type]
        else:
            lines = _AnsweredLines(_PipeLines(wire[0]), errors_in)
            streams = stdio_server(stdin=lines, stdout=_PipeWriter(wire[1]))  # type: ignore[arg-type]
        async with streams as (read, write), anyio.create_task_group() as tasks:
            tasks.start_soon(_forward, errors_out, write)
            lowlevel = server._lowlevel_server
            await lowlevel.run(read, write, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()


@contextlib.contextmanager
def _pipe_wire() -> Iterator[tuple[int, int] | None]:
    """Private, non-blocking copies of stdin and stdout when both are pipes or sockets
    (None otherwise), with fd 0 and fd 1 diverted while serving and restored after."""
    if not all(_is_pipe(fd) for fd in (0, 1)):
        yield None
        return
    sys.stdout.flush()
    wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3), fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    try:
        _divert(0, os.O_RDONLY, None)
        _divert(1, os.O_WRONLY, 2)
        for fd in wire:
            os.set_blocking(fd, False)
        yield wire
    finally:
        for target, fd in enumerate(wire):
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)
                os.dup2(fd, target)
            os.close(fd)


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _divert(fd: int, mode: int, to: int | None) -> None:
    """Point fd at `to` (stderr for stdout), or at the null device."""
    if to is not None:
        with contextlib.suppress(OSError):
            os.dup2(to, fd)
            return
    null = os.open(os.devnull, mode)
    os.dup2(null, fd)
    os.close(null)


class _PipeLines:
    """The lines of a non-blocking pipe (UTF-8, invalid bytes replaced), read when ready."""

    CHUNK = 1 << 16

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        buffered = bytearray()
        while chunk := await self._read():
            searched = len(buffered)
            buffered += chunk
            end = buffered.find(b"\n", searched)
            while end >= 0:  # a newline byte is never inside a UTF-8 sequence
                yield buffered[: end + 1].decode("utf-8", "replace")
                del buffered[: end + 1]
                end = buffered.find(b"\n")
        if buffered:
            yield buffered.decode("utf-8", "replace")

    async def _read(self) -> bytes:
        while True:
            try:
                return os.read(self._fd, self.CHUNK)
            except BlockingIOError:
                await anyio.wait_readable(self._fd)


class _PipeWriter:
    """Writes to a non-blocking pipe when it can take them: nothing is buffered here."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, text: str) -> None:
        data = memoryview(text.encode("utf-8"))
        while data:
            try:
                data = data[os.write(self._fd, data) :]
            except BlockingIOError:
                await anyio.wait_writable(self._fd)

    async def flush(self) -> None:
        """Every write reached the pipe before it returned."""


class _AnsweredLines:
    """The input lines, less the requests that are answered here with an error."""

    def __init__(self, lines: Any, errors: ObjectSendStream[types.JSONRPCError]) -> None:
        self._lines, self._errors = lines, errors

    def __aiter__(self) -> AsyncIterator[str]:
        return self._usable()

    async def _usable(self) -> AsyncIterator[str]:
        async for line in self._lines:
            error = unusable_request_error(line)
            if error is None:
                yield line
            else:
                await self._errors.send(error)


async def _forward(
    errors: ObjectReceiveStream[types.JSONRPCError], write: ObjectSendStream[SessionMessage]
) -> None:
    async for error in errors:
        await write.send(SessionMessage(error))


def unusable_request_error(line: str) -> types.JSONRPCError | None:
    """The error answering `line`, a request holding non-Unicode text; None for the rest."""
    if "\\ud" not in line.lower():
        return None  # no surrogate escape at all: the common case, decided without parsing
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return None
    where = _surrogate_path(message.get("params"), "params")
    if where is None:
        return None
    return types.JSONRPCError(
        jsonrpc="2.0",
        id=message["id"],
        error=types.ErrorData(
            code=types.INVALID_PARAMS,
            message=(
                f"Invalid params: {where} holds text that is not valid Unicode (a lone "
                "surrogate code point). Send it as UTF-8 text, without the unpaired surrogate."
            ),
        ),
    )


def _surrogate_path(value: Any, path: str) -> str | None:
    """Where in `value` the first unencodable text is (its path escaped), or None."""
    if isinstance(value, str):
        return None if is_encodable(value) else path
    if isinstance(value, dict):
        children = [(f"{path}.{_escaped(str(key))}", str(key), v) for key, v in value.items()]
    elif isinstance(value, list):
        children = [(f"{path}[{i}]", "", item) for i, item in enumerate(value)]
    else:
        return None
    for where, key, item in children:
        found = f"{where} (its name)" if not is_encodable(key) else _surrogate_path(item, where)
        if found:
            return found
    return None


def _escaped(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
