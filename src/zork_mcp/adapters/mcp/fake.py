"""An in-memory ToolServer whose tools are Python callables.

It keeps the real adapter's contract: connect failures raise MCPServerStartupError, a tool
that raises becomes an is_error result, a slow tool times out (the session stays usable),
and a tool that raises ServerCrash kills the session like a dying subprocess.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from zork_mcp.domain.errors import (
    MCPServerStartupError,
    MCPSessionBrokenError,
    MCPToolCallError,
    MCPToolTimeoutError,
)
from zork_mcp.domain.tool_judgment import ToolRejection
from zork_mcp.domain.tool_result import ToolCallResult
from zork_mcp.domain.tool_schema import ToolSpec, split_canonical_name

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
    """Tools by name; `fail_next_connects(n)` makes the next n connects fail."""

    name: str = "fake"
    tools: Mapping[str, ToolFunction] = field(default_factory=dict)
    descriptions: Mapping[str, str] = field(default_factory=dict)
    schemas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # overrides schema_of
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

    @asynccontextmanager
    async def open_session(
        self, servers: Collection[str] | None = None
    ) -> AsyncIterator[FakeToolSession]:
        if servers is not None and self.name not in servers:
            raise MCPToolCallError(f"no such server among {sorted(servers)}: '{self.name}'")
        self.connect_attempts += 1
        if self.connect_failures > 0:
            self.connect_failures -= 1
            raise MCPServerStartupError(
                f"Failed to start MCP server '{self.name}': told to fail", servers=(self.name,)
            )
        self.sessions_opened += 1
        try:
            yield FakeToolSession(self)
        finally:
            self.sessions_closed += 1


class FakeToolSession:
    def __init__(self, server: FakeToolServer) -> None:
        self._server = server
        self._tools = server.specs()
        self.dead = False

    @property
    def server_name(self) -> str:
        return self._server.name

    @property
    def tools(self) -> Sequence[ToolSpec]:
        return self._tools

    @property
    def rejected(self) -> Sequence[ToolRejection]:
        """A fake's tools are Python functions: none is ever rejected."""
        return ()

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        function = self._resolve(name)
        started = time.monotonic()
        try:
            value = await asyncio.wait_for(_invoke(function, arguments), timeout_seconds)
        except TimeoutError:
            raise MCPToolTimeoutError(name, timeout_seconds) from None
        except ServerCrash as e:
            self.dead = True
            raise MCPSessionBrokenError(f"server '{self._server.name}' died: {e}") from e
        except Exception as e:  # the tool's own failure: an is_error result, as MCP does
            return ToolCallResult.failure(f"{type(e).__name__}: {e}")
        finally:
            self._server.calls.append(CallLog(name, dict(arguments), started, time.monotonic()))
        return ToolCallResult.success(value)

    def _resolve(self, name: str) -> ToolFunction:
        if self.dead:
            raise MCPSessionBrokenError(f"server '{self._server.name}' is no longer running")
        server, tool = split_canonical_name(name)
        if server != self._server.name or tool not in self._server.tools:
            raise MCPToolCallError(f"unknown tool {name!r}")
        return self._server.tools[tool]


@dataclass
class FakeToolServers:
    """Several fake servers as one ToolServer, each failing or working on its own."""

    parts: Sequence[FakeToolServer]

    @property
    def server_names(self) -> tuple[str, ...]:
        return tuple(part.name for part in self.parts)

    @asynccontextmanager
    async def open_session(
        self, servers: Collection[str] | None = None
    ) -> AsyncIterator[FakeToolSessions]:
        chosen = [p for p in self.parts if servers is None or p.name in servers]
        async with AsyncExitStack() as stack:
            sessions, failures = [], []
            for part in chosen:
                try:
                    sessions.append(await stack.enter_async_context(part.open_session()))
                except MCPServerStartupError as e:
                    failures.append(e)
            if failures:
                names = tuple(name for e in failures for name in e.servers)
                raise MCPServerStartupError("; ".join(map(str, failures)), servers=names)
            yield FakeToolSessions(sessions)


class FakeToolSessions:
    def __init__(self, sessions: Sequence[FakeToolSession]) -> None:
        self._by_server = {session.server_name: session for session in sessions}
        self._tools = [spec for session in sessions for spec in session.tools]

    @property
    def tools(self) -> Sequence[ToolSpec]:
        return self._tools

    @property
    def rejected(self) -> Sequence[ToolRejection]:
        """A fake's tools are Python functions: none is ever rejected."""
        return ()

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any], timeout_seconds: float
    ) -> ToolCallResult:
        session = self._by_server.get(split_canonical_name(name)[0])
        if session is None:
            raise MCPToolCallError(f"unknown tool {name!r}")
        return await session.call_tool(name, arguments, timeout_seconds)


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
