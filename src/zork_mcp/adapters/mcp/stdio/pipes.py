"""The SDK's session streams over an already running process's stdin and stdout.

Not the SDK's anyio `stdio_client`: a spare process must outlive the event loop of the
turn that started it, and each turn is its own `asyncio.run`. Closing the session does not
close the process's stdin: retiring the process does (ProcessReaper).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from zork_mcp.adapters.mcp.stdio.line_limit import (
    LINE_LIMIT,
    Waiting,
    drop_line,
    read_line,
    refuse_long_line,
)
from zork_mcp.adapters.mcp.stdio.server_process import ServerProcess
from zork_mcp.adapters.mcp.stdio.stderr_log import StderrLog
from zork_mcp.adapters.mcp.wire import read_message

# A server's log messages: the agent asks for none and reads none, so a flood of them is
# dropped before it is parsed (~60 us each through the SDK, ~1 us here).
LOG_NOTIFICATION = re.compile(
    rb'\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"method"\s*:\s*"notifications/message"'
)


@asynccontextmanager
async def pipe_streams(
    process: ServerProcess, log: StderrLog
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[Any], MemoryObjectSendStream[SessionMessage]]]:
    loop = asyncio.get_running_loop()
    assert process.stdin is not None and process.stdout is not None
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    # The transports get duplicates of the pipes: closing them at the end of the session
    # sends the server no EOF. The reaper closes the originals off the critical path, so
    # the server's shutdown, which that EOF starts, does not pre-empt this turn.
    stdout, stdin = _duplicate(process.stdout, "rb"), _duplicate(process.stdin, "wb")
    read_pipe, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), stdout
    )
    write_pipe, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdin)
    writer = asyncio.StreamWriter(write_pipe, protocol, None, loop)
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    waiting = Waiting()
    try:
        async with anyio.create_task_group() as pumps:
            pumps.start_soon(_pump_stdout, reader, to_session, log, waiting)
            pumps.start_soon(_pump_stdin, from_session, writer, waiting)
            try:
                yield from_server, to_server
            finally:
                pumps.cancel_scope.cancel()
    finally:
        write_pipe.close()
        read_pipe.close()
        await asyncio.sleep(0)  # let the transports close their pipe files now


def _duplicate(pipe: IO[bytes], mode: str) -> IO[bytes]:
    return open(os.dup(pipe.fileno()), mode, buffering=0)


async def _pump_stdout(
    reader: asyncio.StreamReader,
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    log: StderrLog,
    waiting: Waiting,
) -> None:
    """Every JSON-RPC line to the session; ends quietly when the session has gone."""
    dropped = 0
    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
        async with sink:
            while (line := await read_line(reader)) != b"":
                if line is None:
                    await _refuse_long_line(reader, sink, log, waiting)
                    continue
                if LOG_NOTIFICATION.match(line):
                    dropped += 1
                    continue
                message = read_message(line)
                if message is None:
                    log.note(f"skipped a stdout line that is not JSON-RPC: {line[:200]!r}")
                    continue
                waiting.answered(message)
                await sink.send(SessionMessage(message))
    if dropped:
        log.note(f"dropped {dropped} log notifications (notifications/message): none is read")


async def _refuse_long_line(
    reader: asyncio.StreamReader,
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    log: StderrLog,
    waiting: Waiting,
) -> None:
    """Its request is answered at once that it was too large; the line is then dropped."""
    head, answers = await refuse_long_line(reader, waiting)
    log.note(
        f"a stdout line over the {LINE_LIMIT:,}-byte limit for one message, dropped; "
        f"requests told it was too large: {len(answers)}; it begins {head[:200]!r}"
    )
    for answer in answers:
        waiting.answered(answer)
        await sink.send(SessionMessage(answer))
    size = len(head) + await drop_line(reader)
    log.note(f"dropped that line: {size:,} bytes")


async def _pump_stdin(
    source: MemoryObjectReceiveStream[SessionMessage],
    writer: asyncio.StreamWriter,
    waiting: Waiting,
) -> None:
    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
        await _write_all(source, writer, waiting)


async def _write_all(
    source: MemoryObjectReceiveStream[SessionMessage],
    writer: asyncio.StreamWriter,
    waiting: Waiting,
) -> None:
    async with source:
        async for session_message in source:
            waiting.sent(session_message.message)
            data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
            try:
                writer.write(data.encode() + b"\n")
                await writer.drain()
            except ConnectionError:
                return
