"""One MCP session over every configured server, whatever carries each one's messages.

Each transport (spawned or forked stdio processes, Streamable HTTP) is a ServerGroup that
connects its servers into a turn's exit stack and says which failed; the tool server here
asks every group, in config order, and routes tool names once, in McpSession.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import anyio
import anyio.abc

from zork_mcp.adapters.mcp.session import ConnectedServer, McpSession
from zork_mcp.domain.errors import MCPServerStartupError, MCPToolCallError

T = TypeVar("T")


@dataclass
class Connected:
    """What a group's connect came to: the sessions it opened and the servers that failed."""

    sessions: list[ConnectedServer] = field(default_factory=list)
    failures: list[MCPServerStartupError] = field(default_factory=list)


class ServerGroup(Protocol):
    @property
    def server_names(self) -> tuple[str, ...]: ...

    async def connect(self, stack: AsyncExitStack, servers: Sequence[str]) -> Connected:
        """Connect each of `servers` (all of them this group's) into `stack`."""
        ...

    def warm_up(self) -> None:
        """Get ready for the first session (start processes ahead), if there is anything to."""
        ...

    def close(self) -> None: ...


class McpToolServer:
    """The ToolServer port over every configured server: one session a turn over them all."""

    def __init__(self, groups: Sequence[ServerGroup], order: Sequence[str] | None = None) -> None:
        self._groups = list(groups)
        names = [name for group in self._groups for name in group.server_names]
        self._names = tuple(order) if order is not None else tuple(names)
        if sorted(self._names) != sorted(names):
            raise ValueError(f"the config order {self._names} does not name the groups' servers")

    @property
    def server_names(self) -> tuple[str, ...]:
        return self._names

    @asynccontextmanager
    async def open_session(
        self, servers: Collection[str] | None = None
    ) -> AsyncIterator[McpSession]:
        wanted = self._wanted(servers)
        async with AsyncExitStack() as stack:
            sessions, failures = [], []
            for group in self._groups:
                mine = [name for name in wanted if name in group.server_names]
                if mine:
                    connected = await group.connect(stack, mine)
                    sessions += connected.sessions
                    failures += connected.failures
            if failures:
                raise startup_error(failures)
            yield McpSession(sorted(sessions, key=lambda s: self._names.index(s.name)))

    def warm_up(self) -> None:
        for group in self._groups:
            group.warm_up()

    def close(self) -> None:
        for group in self._groups:
            group.close()

    def _wanted(self, servers: Collection[str] | None) -> list[str]:
        if servers is None:
            return list(self._names)
        unknown = sorted(set(servers) - set(self._names))
        if unknown:
            raise MCPToolCallError(f"no configured server {unknown}; known: {list(self._names)}")
        return [name for name in self._names if name in servers]


def startup_error(failures: Sequence[MCPServerStartupError]) -> MCPServerStartupError:
    """One error naming every server that failed, each with its own reason."""
    if len(failures) == 1:
        return failures[0]
    names = tuple(name for failure in failures for name in failure.servers)
    reasons = "\n".join(f"- {failure}" for failure in failures)
    message = f"{len(failures)} MCP servers failed to start:\n{reasons}"
    return MCPServerStartupError(message, servers=names)


async def open_together(
    stack: AsyncExitStack, contexts: Sequence[AbstractAsyncContextManager[T]]
) -> list[T | Exception]:
    """Enter every context at once, each in a task of its own that also exits it when
    `stack` unwinds (an MCP session must end in the task it began in). A context that
    fails to enter gives its exception in its place."""
    tasks = await stack.enter_async_context(_holders())
    release = anyio.Event()
    stack.callback(release.set)  # unwinds first: each task then leaves its context
    results: list[T | Exception | None] = [None] * len(contexts)
    entered = [anyio.Event() for _ in contexts]

    async def hold(index: int) -> None:
        try:
            async with contexts[index] as value:
                results[index] = value
                entered[index].set()
                await release.wait()
        except Exception as error:
            if entered[index].is_set():
                raise
            results[index] = error
            entered[index].set()

    for index in range(len(contexts)):
        tasks.start_soon(hold, index)
    for event in entered:
        await event.wait()
    return results  # type: ignore[return-value]


@asynccontextmanager
async def _holders() -> AsyncIterator[anyio.abc.TaskGroup]:
    """A task group that an error of the turn passes through unchanged (anyio would wrap it
    in an ExceptionGroup): the group is left cleanly, its tasks once released, and then the
    error goes on."""
    error: BaseException | None = None
    async with anyio.create_task_group() as tasks:
        try:
            yield tasks
        except BaseException as raised:
            error = raised
    if error is not None:
        raise error
