"""In-memory MCP servers whose tools are Python callables, as one ServerGroup under the real
McpToolServer, so that opening, failing and routing are the real assembly's.

A server keeps the real adapter's contract: a connect failure raises MCPServerStartupError,
a tool that raises becomes an is_error result, a slow tool times out (the session stays
usable), and a tool that raises ServerCrash kills the session like a dying subprocess.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from zork_mcp.adapters.mcp.assembly import Connected, McpToolServer, open_together
from zork_mcp.adapters.mcp.session import McpSession
from zork_mcp.domain.errors import (
    MCPServerStartupError,
    MCPSessionBrokenError,
    MCPToolTimeoutError,
)
from zork_mcp.domain.servers.protocol_era import LATEST_VERSION, ServerProtocol
from zork_mcp.domain.tools.tool_judgment import ToolRejection
from zork_mcp.domain.tools.tool_result import ToolCallResult
from zork_mcp.domain.tools.tool_schema import ToolSpec

ToolFunction = Callable[..., Any]
_JSON_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
}


class ServerCrash(Exception):
    """Raised by a fake tool to make its server die in the middle of the call."""


async def hang(**_: Any) -> None:
    """A tool that never answers."""
    await asyncio.Event().wait()


def crash(**_: Any) -> None:
    """A tool whose server dies while running it."""
    raise ServerCrash("the fake server process exited")


@dataclass(frozen=True)
class CallLog:
    name: str
    arguments: Mapping[str, Any]
    started: float
    finished: float


@dataclass
class FakeToolServer:
    """Tools by name; `fail_next_connects(n)` makes the next n connects fail. On its own it is
    a ToolServer of one server (the real assembly over a group of one)."""

    name: str = "fake"
    tools: Mapping[str, ToolFunction] = field(default_factory=dict)
    descriptions: Mapping[str, str] = field(default_factory=dict)
    schemas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # overrides schema_of
    protocol_version: str = LATEST_VERSION  # what it is said to be spoken to in
    connect_failures: int = 0
    connect_attempts: int = 0
    sessions_opened: int = 0
    sessions_closed: int = 0
    calls: list[CallLog] = field(default_factory=list)

    def fail_next_connects(self, count: int) -> None:
        self.connect_failures = count

    @property
    def open_sessions(self) -> int:
        return self.sessions_opened - self.sessions_closed

    def specs(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                self.name,
                tool,
                self.descriptions.get(tool, fn.__doc__ or ""),
                self.schemas[tool] if tool in self.schemas else schema_of(fn),
            )
            for tool, fn in self.tools.items()
        ]

    @property
    def server_names(self) -> tuple[str, ...]:
        return (self.name,)

    def open_session(
        self, servers: Collection[str] | None = None
    ) -> AbstractAsyncContextManager[McpSession]:
        return fake_tool_servers([self]).open_session(servers)

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[FakeServerSession]:
        """One connection, as a transport makes it: refused while told to fail."""
        self.connect_attempts += 1
        if self.connect_failures > 0:
            self.connect_failures -= 1
            raise MCPServerStartupError(
                f"Failed to start MCP server '{self.name}': told to fail", servers=(self.name,)
            )
        self.sessions_opened += 1
        try:
            yield FakeServerSession(self)
        finally:
            self.sessions_closed += 1


class FakeServerSession:
    """One connected fake server, as McpSession routes to it; once broken it stays broken."""

    def __init__(self, server: FakeToolServer) -> None:
        self._server = server
        self._functions = dict(server.tools)  # listed once, at connect, as a real server's
        self.name = server.name
        self.protocol = ServerProtocol(server.name, server.protocol_version)
        self.tools: Sequence[ToolSpec] = server.specs()
        self.tool_names = frozenset(self._functions)
        self._broken: str | None = None

    @property
    def rejected(self) -> Sequence[ToolRejection]:
        """A fake's tools are Python functions: none is ever rejected."""
        return ()

    async def call(
        self, tool: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        if self._broken:
            raise MCPSessionBrokenError(self._broken)
        name, started = f"{self.name}.{tool}", time.monotonic()
        try:
            value = await asyncio.wait_for(
                _invoke(self._functions[tool], arguments), timeout_seconds
            )
        except TimeoutError:
            raise MCPToolTimeoutError(name, timeout_seconds) from None
        except ServerCrash as e:
            self._broken = f"server '{self.name}' is no longer running"
            raise MCPSessionBrokenError(f"server '{self.name}' died: {e}") from e
        except Exception as e:  # the tool's own failure: an is_error result, as MCP does
            return ToolCallResult.failure(f"{type(e).__name__}: {e}")
        finally:
            self._server.calls.append(CallLog(name, dict(arguments), started, time.monotonic()))
        return ToolCallResult.success(value)


class FakeServerGroup:
    """Fake servers as one ServerGroup, as a transport's servers are: connected together,
    each failing or working on its own; McpToolServer does the rest."""

    def __init__(self, servers: Sequence[FakeToolServer]) -> None:
        self._servers = {server.name: server for server in servers}

    @property
    def server_names(self) -> tuple[str, ...]:
        return tuple(self._servers)

    async def connect(self, stack: AsyncExitStack, servers: Sequence[str]) -> Connected:
        opened = await open_together(stack, [self._servers[name].connect() for name in servers])
        connected = Connected()
        for result in opened:
            if isinstance(result, MCPServerStartupError):
                connected.failures.append(result)
            elif isinstance(result, Exception):
                raise result  # a fake only refuses to start; anything else is a bug in a test
            else:
                connected.sessions.append(result)
        return connected

    def warm_up(self) -> None:
        """Nothing to start ahead: a fake server is a Python object."""

    def close(self) -> None:
        """Nothing outlives a session."""


def fake_tool_servers(servers: Sequence[FakeToolServer]) -> McpToolServer:
    """The real ToolServer over these fake servers, in this order."""
    return McpToolServer([FakeServerGroup(servers)])


async def _invoke(function: ToolFunction, arguments: Mapping[str, Any]) -> Any:
    value = function(**arguments)
    return await value if inspect.isawaitable(value) else value


def schema_of(function: ToolFunction) -> dict[str, Any]:
    """A JSON schema of the function's keyword parameters, from their annotations."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        annotation = parameter.annotation  # a string under `from __future__ import annotations`
        json_type = _JSON_TYPES.get(getattr(annotation, "__name__", annotation))
        properties[name] = {"type": json_type} if json_type else {}
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
    return {"type": "object", "properties": properties, "required": required}
