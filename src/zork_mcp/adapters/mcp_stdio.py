"""The ToolServer port over MCP stdio servers, with the official SDK's ClientSession.

Every session talks to processes no earlier session used (requirement 3). Processes are
spawned with `subprocess.Popen`, not the SDK's anyio `stdio_client`, because a background
spare must outlive the event loop of the turn that started it: each turn is its own
`asyncio.run`. A spare warms up (imports, starts) while the current turn runs, so the next
turn only pays for the handshake. A used process is retired in a background thread: stdin
closed, then SIGTERM and SIGKILL to its process group if it lingers.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import weakref
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import IO, Any

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import ClientSession
from mcp.shared.exceptions import MCPError as SdkMCPError
from mcp.shared.message import SessionMessage

from zork_mcp.domain.errors import (
    MCPError,
    MCPServerStartupError,
    MCPSessionBrokenError,
    MCPToolCallError,
    MCPToolTimeoutError,
    ZorkMcpError,
)
from zork_mcp.domain.server_config import MCPServerConfig
from zork_mcp.domain.server_env import server_environment
from zork_mcp.domain.tool_result import ToolCallResult
from zork_mcp.domain.tool_schema import ToolSpec, split_canonical_name

REQUEST_TIMEOUT = -32001
CONNECTION_CLOSED = -32000
LINE_LIMIT = 64 * 1024 * 1024
STDIN_GRACE_SECONDS = 2.0
KILL_GRACE_SECONDS = 2.0
PYTHON_COMMANDS = frozenset({"python", "python3"})


class McpStdioToolServer:
    """Connects to every configured server per session; tools are routed by `server.tool`."""

    def __init__(
        self,
        servers: Mapping[str, MCPServerConfig],
        *,
        startup_timeout_seconds: float = 10.0,
        background_spare: bool = True,
        stderr_path: Path | None = None,
        system_env: Mapping[str, str] | None = None,
    ) -> None:
        if not servers:
            raise ValueError("McpStdioToolServer needs at least one server")
        self._startup_timeout = startup_timeout_seconds
        self._reaper = ProcessReaper()
        self._stderr = _StderrLog(stderr_path)
        env = os.environ if system_env is None else system_env
        self._supplies = [
            _ProcessSupply(name, config, env, self._stderr, self._reaper, background_spare)
            for name, config in servers.items()
        ]
        # Runs on close(), on garbage collection, or at interpreter exit, whichever is first.
        self._shutdown = weakref.finalize(
            self, _shut_down, self._supplies, self._reaper, self._stderr
        )

    @property
    def server_names(self) -> tuple[str, ...]:
        """The configured servers each session connects to, in order."""
        return tuple(supply.name for supply in self._supplies)

    def warm_up(self) -> None:
        """Start each server's spare now, so even the first session only pays the handshake."""
        for supply in self._supplies:
            supply.warm_up()

    @asynccontextmanager
    async def open_session(self) -> AsyncIterator[McpStdioSession]:
        async with AsyncExitStack() as stack:
            connected = [await self._connect(stack, supply) for supply in self._supplies]
            yield McpStdioSession(connected)

    async def _connect(self, stack: AsyncExitStack, supply: _ProcessSupply) -> _ServerSession:
        process = supply.take()
        stack.callback(self._reaper.retire, process)
        handshake = _handshake(supply.name, process, self._stderr)
        try:
            async with asyncio.timeout(self._startup_timeout):
                return await stack.enter_async_context(handshake)
        except Exception as error:
            raise supply.startup_error(_root_cause(error), self._startup_timeout) from error

    def close(self) -> None:
        """Retire every spare and wait for every process to be gone. Safe to call twice."""
        self._shutdown()

    def __enter__(self) -> McpStdioToolServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def live_processes(self) -> int:
        """Server processes started and still running (spares included)."""
        return sum(supply.live for supply in self._supplies)

    @property
    def spawned_pids(self) -> list[int]:
        """Every process this server ever started; each leads its own process group."""
        return [pid for supply in self._supplies for pid in supply.pids]


def _shut_down(supplies: list[_ProcessSupply], reaper: ProcessReaper, stderr: _StderrLog) -> None:
    for supply in supplies:
        supply.close()
    reaper.join()
    stderr.close()


class McpStdioSession:
    """One turn's connections; a broken server stays broken for the rest of the session."""

    def __init__(self, servers: Sequence[_ServerSession]) -> None:
        self._servers = {server.name: server for server in servers}
        self._tools = [spec for server in servers for spec in server.tools]

    @property
    def tools(self) -> Sequence[ToolSpec]:
        return self._tools

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        server = self._route(name)
        return await server.call(split_canonical_name(name)[1], arguments, timeout_seconds)

    def _route(self, name: str) -> _ServerSession:
        try:
            server_name, tool = split_canonical_name(name)
        except ValueError as e:
            raise MCPToolCallError(str(e)) from None
        server = self._servers.get(server_name)
        if server is None or tool not in server.tool_names:
            raise MCPToolCallError(f"unknown tool {name!r}; known: {sorted(self._all_names())}")
        return server

    def _all_names(self) -> list[str]:
        return [spec.canonical_name for spec in self._tools]


class _ServerSession:
    def __init__(self, name: str, session: ClientSession, listed: types.ListToolsResult) -> None:
        self.name = name
        self._session = session
        self.tools = [_to_spec(name, tool) for tool in listed.tools]
        self.tool_names = {tool.name for tool in listed.tools}
        self._wrapped = {tool.name for tool in listed.tools if _wraps_result(tool.output_schema)}
        self._broken: str | None = None

    async def call(
        self, tool: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        if self._broken:
            raise MCPSessionBrokenError(self._broken)
        canonical = f"{self.name}.{tool}"
        try:
            result = await self._session.call_tool(
                tool, dict(arguments), read_timeout_seconds=timeout_seconds
            )
        except SdkMCPError as e:
            raise self._translate(e, canonical, timeout_seconds) from e
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as e:
            raise self._broke(f"server '{self.name}' closed its connection") from e
        return _to_result(result, tool in self._wrapped)

    def _translate(self, error: SdkMCPError, tool: str, timeout: float) -> ZorkMcpError:
        if error.code == REQUEST_TIMEOUT:
            return MCPToolTimeoutError(tool, timeout)
        if error.code == CONNECTION_CLOSED:
            return self._broke(f"server '{self.name}' stopped: {error.error.message}")
        return MCPToolCallError(f"{tool} was refused by the server: {error.error.message}")

    def _broke(self, reason: str) -> MCPSessionBrokenError:
        self._broken = reason
        return MCPSessionBrokenError(reason)


@asynccontextmanager
async def _handshake(
    name: str, process: subprocess.Popen[bytes], log: _StderrLog
) -> AsyncIterator[_ServerSession]:
    """initialize, then list_tools (property 8); the body's errors pass through unwrapped."""
    try:
        async with (
            _pipe_streams(process, log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
            yield _ServerSession(name, session, listed)
    except BaseExceptionGroup as group:
        raise _root_cause(group) from None


@asynccontextmanager
async def _pipe_streams(
    process: subprocess.Popen[bytes], log: _StderrLog
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[Any], MemoryObjectSendStream[SessionMessage]]]:
    """The SDK's session streams over an already running process's stdin and stdout."""
    loop = asyncio.get_running_loop()
    assert process.stdin is not None and process.stdout is not None
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    read_pipe, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), process.stdout
    )
    write_pipe, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, process.stdin
    )
    writer = asyncio.StreamWriter(write_pipe, protocol, None, loop)
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as pumps:
            pumps.start_soon(_pump_stdout, reader, to_session, log)
            pumps.start_soon(_pump_stdin, from_session, writer)
            try:
                yield from_server, to_server
            finally:
                pumps.cancel_scope.cancel()
    finally:
        write_pipe.close()  # stdin EOF: a well-behaved server exits by itself
        read_pipe.close()
        await asyncio.sleep(0)  # let the transports close their pipe files now


async def _pump_stdout(
    reader: asyncio.StreamReader,
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    log: _StderrLog,
) -> None:
    async with sink:
        while line := await _read_line(reader):
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError:
                log.note(f"skipped a stdout line that is not JSON-RPC: {line[:200]!r}")
                continue
            await sink.send(SessionMessage(message))


async def _read_line(reader: asyncio.StreamReader) -> bytes:
    try:
        return await reader.readline()
    except (ConnectionError, ValueError):  # a line over LINE_LIMIT counts as a broken stream
        return b""


async def _pump_stdin(
    source: MemoryObjectReceiveStream[SessionMessage], writer: asyncio.StreamWriter
) -> None:
    async with source:
        async for session_message in source:
            data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
            try:
                writer.write(data.encode() + b"\n")
                await writer.drain()
            except ConnectionError:
                return


class _ProcessSupply:
    """Spawns one server's processes and keeps a spare warming when asked to."""

    def __init__(
        self,
        name: str,
        config: MCPServerConfig,
        system_env: Mapping[str, str],
        stderr: _StderrLog,
        reaper: ProcessReaper,
        keep_spare: bool,
    ) -> None:
        self.name, self._config, self._system_env = name, config, system_env
        self._stderr, self._reaper, self._keep_spare = stderr, reaper, keep_spare
        self._spare: subprocess.Popen[bytes] | None = None
        self._spawned: list[subprocess.Popen[bytes]] = []
        self.pids: list[int] = []

    def take(self) -> subprocess.Popen[bytes]:
        """A process no session used: the spare if it is still alive, else a new one."""
        process, self._spare = self._spare, None
        if process is not None and process.poll() is not None:
            self._reaper.retire(process)
            process = None
        process = process or self._spawn()
        if self._keep_spare:
            self._refill()
        return process

    def warm_up(self) -> None:
        if self._keep_spare and self._spare is None:
            self._refill()

    def _refill(self) -> None:
        # A spawn failure is left for the next take(), which reports it in the foreground.
        with contextlib.suppress(MCPError):
            self._spare = self._spawn()

    def _spawn(self) -> subprocess.Popen[bytes]:
        env = server_environment(self._system_env, self._config.env, server=self.name)
        command = _resolve_command(self._config.command)
        try:
            process = subprocess.Popen(
                [command, *self._config.args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr.handle(),
                env=env,
                start_new_session=True,
            )
        except OSError as e:
            raise self.startup_error(e, None) from e
        self._spawned.append(process)
        self.pids.append(process.pid)
        return process

    def startup_error(self, cause: BaseException, timeout: float | None) -> MCPServerStartupError:
        if isinstance(cause, MCPServerStartupError):
            return cause
        return MCPServerStartupError(
            startup_message(self.name, self._config, cause, timeout, self._stderr.path)
        )

    @property
    def live(self) -> int:
        self._spawned = [process for process in self._spawned if process.poll() is None]
        return len(self._spawned)

    def close(self) -> None:
        self._spare = None
        for process in self._spawned:
            self._reaper.retire(process)


class ProcessReaper:
    """Ends processes off the critical path: stdin EOF, then SIGTERM, then SIGKILL.

    Pipes are closed on the caller's thread (the event loop's, where asyncio transports
    may own them); only the waiting and signalling happen on a background thread.
    """

    def __init__(self) -> None:
        self._threads: list[threading.Thread] = []
        self._retired: set[int] = set()

    def retire(self, process: subprocess.Popen[bytes]) -> None:
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


def _close_pipes(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout):
        if stream is not None and not stream.closed:
            with contextlib.suppress(OSError):
                stream.close()


def _end_process(process: subprocess.Popen[bytes]) -> None:
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


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


class _StderrLog:
    """Where server processes write stderr: a log file, never the user's terminal."""

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


def _resolve_command(command: str) -> str:
    """`python` means the interpreter running zork_mcp, so servers see its packages."""
    return sys.executable if command in PYTHON_COMMANDS else command


def _root_cause(error: BaseException) -> BaseException:
    """The single leaf of nested exception groups, or the error itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def startup_message(
    name: str,
    config: MCPServerConfig,
    cause: BaseException,
    timeout: float | None,
    stderr_path: Path | None,
) -> str:
    """What failed, the command line, why, and what to do about it (requirement 14.4, 14.5)."""
    return (
        f"Failed to start MCP server '{name}': {_describe(cause, timeout)}\n"
        f"Command: {config.command_line()}\n"
        f"{_advice(config.command, cause, stderr_path)}"
    )


def _describe(cause: BaseException, timeout: float | None) -> str:
    if isinstance(cause, FileNotFoundError):
        return "the command was not found"
    if isinstance(cause, TimeoutError):
        return f"it did not finish the MCP handshake within {timeout:g}s"
    if isinstance(cause, SdkMCPError) and cause.code == CONNECTION_CLOSED:
        return "it exited during startup"
    return f"{type(cause).__name__}: {cause}"


def _advice(command: str, cause: BaseException, stderr_path: Path | None) -> str:
    where = f"Its stderr is logged in {stderr_path}." if stderr_path else ""
    base = Path(command).name
    if isinstance(cause, FileNotFoundError) and base in ("npx", "node", "npm"):
        return f"Install Node.js 20 or newer (it provides {base}) and make sure it is on PATH."
    if isinstance(cause, FileNotFoundError) and base in ("uvx", "uv"):
        return "Install uv (`pip install uv`) or point the config at the server's own command."
    if isinstance(cause, FileNotFoundError):
        return (
            f"Install the program that provides '{command}' (for a Python server: "
            f"`pip install <package>` in this environment), or fix 'command' in the config."
        )
    if isinstance(cause, TimeoutError):
        return (
            f"Check that the command starts an MCP stdio server, or raise "
            f"server_startup_timeout_seconds in [tool.zorkgpt.mcp]. {where}"
        ).strip()
    return f"Check that the command runs on its own in a terminal. {where}".strip()


def _to_spec(server: str, tool: types.Tool) -> ToolSpec:
    return ToolSpec(server, tool.name, tool.description or "", dict(tool.input_schema or {}))


def _to_result(result: types.CallToolResult, wrapped: bool) -> ToolCallResult:
    content = _content_of(result, wrapped)
    if result.is_error:
        return ToolCallResult.failure(_as_text(content) or "the tool reported an error")
    return ToolCallResult.success(content)


def _content_of(result: types.CallToolResult, wrapped: bool) -> Any:
    structured = result.structured_content
    if structured is None:
        items = [_block(block) for block in result.content]
        return items[0] if len(items) == 1 else items
    if wrapped and set(structured) == {"result"}:
        return structured["result"]
    return structured


def _wraps_result(output_schema: Mapping[str, Any] | None) -> bool:
    """MCPServer wraps a primitive return as {"result": value} with a one-field schema."""
    properties = (output_schema or {}).get("properties", {})
    return set(properties) == {"result"}


def _block(block: Any) -> Any:
    if isinstance(block, types.TextContent):
        return block.text
    data = block.model_dump(mode="json", exclude_none=True)
    if isinstance(data.get("data"), str):
        data["data"] = f"<{len(data['data'])} base64 characters omitted>"
    return data


def _as_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(item if isinstance(item, str) else str(item) for item in content)
    return str(content)
