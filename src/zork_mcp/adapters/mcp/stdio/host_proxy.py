"""The proxy of the servers whose entry lists hosts (issue 47).

Each such server process runs in a network namespace of its own (loopback alone) and sends
us, before its code runs, a listener on 127.0.0.1:PROXY_PORT inside it. We accept there,
read each connection's CONNECT request, and tunnel it from our own network to the host
when the server's list has it (domain/servers/host_list.py); anything else is answered 4xx and
closed. So the server reaches its hosts and nothing else, UDP and DNS included: the proxy
resolves the names.

One thread runs one event loop for every process of a tool server, started with the first
listener and ended by close(). A refused host is told to `refused` once per process and
host. Nothing relayed is read past the request head, or kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Callable, Sequence

from zork_mcp.domain.facts.events import Event, Level
from zork_mcp.domain.facts.notice_facts import HostRefused
from zork_mcp.domain.servers.host_list import (
    HEAD_LIMIT,
    Connect,
    HostRule,
    Refusal,
    allowed,
    connect_request,
    refusal,
)

HEAD_SECONDS = 10.0  # for a request head to arrive
CONNECT_SECONDS = 10.0  # for the host to answer
CHUNK = 1 << 16
REPORTED_PER_PROCESS = 20  # distinct refused hosts told, then silence
ESTABLISHED = b"HTTP/1.1 200 Connection established\r\n\r\n"


class HostProxy:
    def __init__(self, refused: Callable[[Event], object] | None = None) -> None:
        """`refused` hears of each host a process was refused (an event)."""
        self._refused = refused or (lambda _event: None)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def serve(
        self, channel: socket.socket, server: str, hosts: Sequence[HostRule]
    ) -> Callable[[], None]:
        """Relay the connections of the process whose listener comes over `channel` (which
        is ours now) to `hosts`; the callable returned stops it, from any thread."""
        future = asyncio.run_coroutine_threadsafe(
            _Relay(server, tuple(hosts), self._refused).serve(channel), self._running_loop()
        )
        return future.cancel

    def close(self) -> None:
        """End every relay, then the thread. Safe to call twice."""
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is not None and thread is not None:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=_run, args=(self._loop,), name="mcp-host-proxy", daemon=True
                )
                self._thread.start()
            return self._loop


def _run(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    loop.run_forever()
    tasks = asyncio.all_tasks(loop)
    for task in tasks:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    loop.close()


class _Relay:
    """One server process's proxy."""

    def __init__(
        self, server: str, hosts: tuple[HostRule, ...], refused: Callable[[Event], object]
    ) -> None:
        self._server, self._hosts, self._refused = server, hosts, refused
        self._reported: set[tuple[str, int]] = set()
        self._connections: set[asyncio.Task[None]] = set()

    async def serve(self, channel: socket.socket) -> None:
        with channel:
            listener = await _listener(channel)
        if listener is None:  # it ended before it could send one
            return
        proxy = await asyncio.start_server(self._connection, sock=listener, limit=HEAD_LIMIT)
        try:
            await proxy.serve_forever()
        finally:
            proxy.close()
            for task in self._connections:
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            await self._tunnel(reader, writer)
        except (ConnectionError, OSError):
            pass  # either side went away: the other is closed below
        except asyncio.CancelledError:
            pass  # the relay ended: a handler's last act (Python 3.11 logs one cancelled)
        finally:
            self._connections.discard(task)
            writer.close()

    async def _tunnel(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(HEAD_SECONDS):
                head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            text = f"no request head within {HEAD_LIMIT} bytes and {HEAD_SECONDS:g} s"
            writer.write(Refusal(400, "Bad Request", text).response())
            return
        request = connect_request(head)
        if isinstance(request, Connect) and not allowed(self._hosts, request.host, request.port):
            self._report(request)
            request = refusal(self._server, request, self._hosts)
        if isinstance(request, Refusal):
            writer.write(request.response())
            return
        try:
            async with asyncio.timeout(CONNECT_SECONDS):
                far_reader, far_writer = await asyncio.open_connection(request.host, request.port)
        except (OSError, TimeoutError) as e:
            text = f"{request.host}:{request.port} could not be reached: {e or 'timed out'}"
            writer.write(Refusal(502, "Bad Gateway", text).response())
            return
        try:
            writer.write(ESTABLISHED)
            await asyncio.gather(_pipe(reader, far_writer), _pipe(far_reader, writer))
        finally:
            far_writer.close()

    def _report(self, request: Connect) -> None:
        target = (request.host, request.port)
        if target in self._reported or len(self._reported) >= REPORTED_PER_PROCESS:
            return
        self._reported.add(target)
        text = refusal(self._server, request, self._hosts).text
        refused = HostRefused(self._server, request.host, request.port)
        self._refused(Event.about(refused, text, Level.WARNING))


async def _listener(channel: socket.socket) -> socket.socket | None:
    """The listener the process sends (None: it closed its end first)."""
    loop = asyncio.get_running_loop()
    channel.setblocking(False)
    while True:
        try:
            _, fds, _, _ = socket.recv_fds(channel, 64, 1)
            break
        except BlockingIOError:
            await _readable(loop, channel)
    if not fds:
        return None
    listener = socket.socket(fileno=fds[0])
    listener.setblocking(False)
    return listener


async def _readable(loop: asyncio.AbstractEventLoop, channel: socket.socket) -> None:
    readable = loop.create_future()
    loop.add_reader(channel, lambda: readable.done() or readable.set_result(None))
    try:
        await readable
    finally:
        loop.remove_reader(channel)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until EOF, then pass the EOF on (the other direction may go on)."""
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
